"""The project installs as three packages (the engine, the course's machinery and the
grader with its checks): every folder of them that holds Python is a package that
`pip install .` ships, not only what an editable install happens to find."""

from pathlib import Path
import tomllib

from setuptools import find_packages


ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_installed():
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = settings["tool"]["setuptools"]["packages"]["find"]
    shipped = set(find_packages(str(ROOT), include=found["include"]))
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for top in ("engine", "course", "autograder")
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders <= shipped, folders - shipped
    assert {"engine", "course", "autograder", "autograder.checks"} <= shipped
