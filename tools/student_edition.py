"""Write the student edition of the book: the graded tasks stubbed, solutions withheld.

    python tools/student_edition.py [--out student]     # what `make student` runs

Standard library only: it needs no virtual environment. The tasks are
autograder/tasks.py's table. In each notebook a task's definitions keep their signatures
and docstrings, and their bodies raise NotImplementedError; every hidden exercise
solution and every "Solution ..." explanation is withheld; outputs are cleared (but the
values the prose quotes, glued, of the cells that are the course's unchanged). The
edition gets its own `engine/`, exported from the stubbed notebooks by the same
exporter, so every chapter runs on the student's own code, the files the book needs to
build and run, the student-side checks (`pytest`), a README and a notice that the text
is adapted from the course (CC BY 4.0)."""

import argparse
import json
from pathlib import Path
import shutil
import sys


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # a script run from a checkout that is not installed
from autograder import notebooks, tasks  # noqa: E402
from course import export  # noqa: E402


COPIED = [
    "_config.yml",
    "_toc.yml",
    "_ext",
    "_static",
    "LICENSE",
    "tools/export_engine.py",
    "engine/__init__.py",
    "course/__init__.py",
    "course/export.py",
    "benchmarks/results.json",
    "benchmarks/results_before.json",
    "benchmarks/results_guarded.json",
    "benchmarks/conv.json",
    "benchmarks/transformer.json",
    "requirements.txt",
    "autograder/__init__.py",
    "autograder/tasks.py",
    "autograder/notebooks.py",
    "autograder/checks",
    "autograder/runner.py",
    "autograder/grading.py",
    "autograder/sandbox.py",
]


def write_edition(out):
    """Write the student edition into folder `out`; return {task id: notebook name}."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    (out / "book").mkdir(parents=True)
    located = {}
    stamp = notebooks.edition_stamp(ROOT / "book")
    for path in sorted((ROOT / "book").iterdir()):
        if path.suffix == ".ipynb":
            here = [t for t in tasks.TASKS if t.notebook == path.name]
            course = notebooks.read_notebook(path)
            notebook = notebooks.student_notebook(notebooks.read_notebook(path), here)
            keep_glue(course, notebook)
            notebook.setdefault("metadata", {})[notebooks.STAMP] = stamp
            for task in here:
                if notebooks.find_cell(notebook, task.names):
                    located[task.id] = path.name
            (out / "book" / path.name).write_text(
                json.dumps(notebook, indent=1, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
        elif path.is_file():
            shutil.copy(path, out / "book" / path.name)
        elif path.is_dir() and not path.name.startswith((".", "_")):
            shutil.copytree(path, out / "book" / path.name)
    missing = [task.id for task in tasks.TASKS if task.id not in located]
    if missing:
        raise SystemExit(f"tasks not found in their notebooks: {missing}")
    for name in COPIED:
        source, target = ROOT / name, out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(
                source, target, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy(source, target)
    export.write_modules(out, export.exported_modules(out / "book"))
    init = (ROOT / "autograder" / "__init__.py").read_text(encoding="utf-8")
    code = init[init.index('"""', 3) + 3 :]  # check_task, after the course's docstring
    (out / "autograder" / "__init__.py").write_text(
        '"""The student-side checks: `check_task` runs each task\'s cases on your\n'
        'definitions, judged as the course judges them."""\n\n\n' + code.lstrip("\n"),
        encoding="utf-8",
    )
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    (out / "requirements-no-torch.txt").write_text(
        "\n".join(line for line in requirements if not line.startswith("torch=="))
        + "\n",
        encoding="utf-8",
    )
    torch = next(line for line in requirements if line.startswith("torch=="))
    for name, text in FILES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        text = text.replace("{tasks}", task_table()).replace("{torch}", torch)
        (out / name).write_text(text, encoding="utf-8")
    return located


def is_glue(output):
    """An output that only records a value for the text ({glue:text}`name` in the
    prose): myst-nb's glue."""
    return "scrapbook" in output.get("metadata", {})


def keep_glue(course, edition):
    """Give the edition's code cells that are the course's, unchanged, their glued
    values back: the prose quotes them ({glue:text}`name`), and a book built before the
    chapter is run would otherwise warn of every one it misses. A stubbed or withheld
    cell keeps no output."""
    for theirs, ours in zip(edition["cells"], course["cells"]):
        if theirs.get("cell_type") == "code" and theirs["source"] == ours["source"]:
            theirs["outputs"] = [o for o in ours.get("outputs", []) if is_glue(o)]


def task_table():
    """The README's table of tasks."""
    rows = [
        f"| {t.id} | week {t.week} | {t.notebook} | `{'`, `'.join(t.names)}` "
        f"| {t.title} | {t.points} |"
        for t in tasks.TASKS
    ]
    return "\n".join(
        [
            "| task | when | notebook | what you write | about | points |",
            "|---|---|---|---|---|---|",
        ]
        + rows
    )


# the edition's own files beside its notebooks: README, licence, project and its checks
EDITION_FILES = Path(__file__).resolve().parent / "edition"
FILES = {
    str(path.relative_to(EDITION_FILES)): path.read_text(encoding="utf-8")
    for path in sorted(EDITION_FILES.rglob("*"))
    if path.is_file() and "__pycache__" not in path.parts
}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "student"), help="folder to write")
    args = parser.parse_args(argv)
    located = write_edition(Path(args.out))
    print(f"wrote the student edition to {args.out}: {len(located)} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
