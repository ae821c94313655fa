"""The Gradescope autograder (`make gradescope`, tools/gradescope.py) in a simulated
Gradescope layout: the zip unpacked into source/, an upload with the notebooks in a
nested folder, run_autograder run as Gradescope runs it; and a results.json even when
the grader cannot start."""

import json
import os
from pathlib import Path
import subprocess
import sys
import zipfile

import pytest


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def layout(tmp_path_factory):
    """/autograder as Gradescope lays it out, with our zip unpacked in source/."""
    top = tmp_path_factory.mktemp("gradescope") / "autograder"
    built = subprocess.run(
        [
            sys.executable,
            "tools/gradescope.py",
            "--out",
            str(top.parent / "autograder.zip"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "wrote" in built.stdout
    with zipfile.ZipFile(top.parent / "autograder.zip") as archive:
        archive.extractall(top / "source")
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    for script in ("setup.sh", "run_autograder"):
        (top / "source" / script).chmod(0o755)
        subprocess.run(["bash", "-n", str(top / "source" / script)], check=True)
    return top


def run_autograder(top, python=sys.executable):
    environment = {
        **os.environ,
        "AUTOGRADER_ROOT": str(top),
        "AUTOGRADER_PYTHON": python,
    }
    return subprocess.run(
        ["bash", str(top / "source" / "run_autograder")],
        capture_output=True,
        text=True,
        env=environment,
        timeout=1200,
    )


def test_the_zip_holds_the_grader_and_no_build_leftovers(layout):
    source = layout / "source"
    for needed in (
        "tools/grade.py",
        "autograder/grading.py",
        "autograder/sandbox.py",
        "course/export.py",
        "engine/core.py",
        "book/01_tape.ipynb",
        "requirements.txt",
        "pyproject.toml",
    ):
        assert (source / needed).exists(), needed
    assert not list(source.rglob("__pycache__"))
    setup = (source / "setup.sh").read_text()
    assert "bubblewrap" in setup and "torch==2.13.0" in setup


def test_an_upload_with_nested_notebooks_is_graded(layout, tmp_path):
    subprocess.run(
        [
            sys.executable,
            "tools/student_edition.py",
            "--out",
            str(tmp_path / "edition"),
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    upload = layout / "submission" / "my upload" / "homework"
    upload.mkdir(parents=True)
    for path in (tmp_path / "edition" / "book").glob("*.ipynb"):
        (upload / path.name).write_bytes(path.read_bytes())
    (layout / "submission" / "__MACOSX").mkdir()
    (layout / "submission_metadata.json").write_text(  # beside the upload, as there
        json.dumps({"users": [{"sid": "s123", "name": "A Student"}]})
    )
    ran = run_autograder(layout)
    results = json.loads((layout / "results" / "results.json").read_text())
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert results["score"] == 0 and len(results["tests"]) > 20, results["output"]
    assert "not implemented yet" in json.dumps(results)  # the stubs were found
    assert "seeded for s123" in results["output"]


def test_a_grader_that_cannot_start_still_leaves_a_results_json(layout):
    ran = run_autograder(layout, python="/bin/false")
    results = json.loads((layout / "results" / "results.json").read_text())
    assert (
        results["score"] == 0 and "stopped before it could grade" in results["output"]
    )
    assert ran.returncode == 0
