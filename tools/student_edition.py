"""Write the student edition of the book: the graded tasks stubbed, solutions withheld.

    python tools/student_edition.py [--out student]     # what `make student` runs

Standard library only: it needs no virtual environment. The tasks are
autograder/tasks.py's table. In each notebook a task's definitions keep their signatures
and docstrings, and their bodies raise NotImplementedError; every hidden exercise
solution and every "Solution ..." explanation is withheld; outputs are cleared. The
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
    "benchmarks/transformer.json",
    "requirements.txt",
    "autograder/__init__.py",
    "autograder/tasks.py",
    "autograder/notebooks.py",
    "autograder/checks.py",
    "autograder/runner.py",
    "autograder/grading.py",
]


def write_edition(out):
    """Write the student edition into folder `out`; return {task id: notebook name}."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    (out / "book").mkdir(parents=True)
    located = {}
    for path in sorted((ROOT / "book").iterdir()):
        if path.suffix == ".ipynb":
            here = [t for t in tasks.TASKS if t.notebook == path.name]
            notebook = notebooks.student_notebook(notebooks.read_notebook(path), here)
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
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    export.write_modules(out, export.exported_modules(out / "book"))
    init = (ROOT / "autograder" / "__init__.py").read_text(encoding="utf-8")
    code = init[init.index('"""', 3) + 3 :]  # check_task, after the course's docstring
    (out / "autograder" / "__init__.py").write_text(
        '"""The student-side checks: `check_task` runs each task\'s cases on your definitions,\n'
        'judged as the course judges them."""\n\n\n' + code.lstrip("\n"),
        encoding="utf-8",
    )
    requirements = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    (out / "requirements-no-torch.txt").write_text(
        "\n".join(line for line in requirements if not line.startswith("torch=="))
        + "\n",
        encoding="utf-8",
    )
    for name, text in FILES.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text.replace("{tasks}", task_table()), encoding="utf-8")
    return located


def task_table():
    """The README's table of tasks."""
    rows = [
        f"| {t.id} | week {t.week} | {t.notebook} | `{'`, `'.join(t.names)}` | {t.title} "
        f"| {t.points} |"
        for t in tasks.TASKS
    ]
    return "\n".join(
        [
            "| task | when | notebook | what you write | about | points |",
            "|---|---|---|---|---|---|",
        ]
        + rows
    )


FILES = {
    "README.md": """# Autodiff from Scratch: student edition

This is the student edition of *Autodiff from Scratch*: the same book, with the graded tasks
left for you to write and the exercise solutions withheld. Your engine is built from your
notebooks, as in the book: implement each task in its notebook cell, run
`python tools/export_engine.py` to write `engine/` (and `course/`), and check your work with `pytest`.

## Set up (once)

With Python 3.11 or newer:

    python3 -m venv .venv
    .venv/bin/pip install -r requirements.txt            # everything, PyTorch included (CPU)

On a machine without PyTorch (an Intel Mac, say), install everything else instead:

    .venv/bin/pip install -r requirements-no-torch.txt

Chapters 1 to 3 do not use PyTorch; without it, the checks that compare with PyTorch (Adam's
and AdamW's steps, for instance) are reported as skipped, and the course's grader still runs
them. On Windows, write `.venv\\Scripts\\pip` and `.venv\\Scripts\\python` instead.

## Work on a task

    .venv/bin/jupyter lab book/                          # write the task in its notebook cell
    .venv/bin/python tools/export_engine.py              # after every change to a `#| export` cell
    .venv/bin/pytest                                     # every task's checks, and your score
    .venv/bin/pytest -k T5                               # one task

`pytest` exports your notebooks itself (your own `engine/` is for running the chapters), runs
each task's cases on the engine they make, and tells you which case failed, what was expected
and by how much. A task whose body still raises NotImplementedError is "not implemented yet".
The book builds as the course's does: `.venv/bin/jupyter-book build .` (it shows no outputs
until you run the notebooks).

## The tasks

{tasks}

Do them in order: later chapters run on your code. The checks of a chapter need only the tasks
of that chapter and earlier ones. Your instructor grades each task on its own, with your
definitions placed in the course's engine, then your whole engine, with random cases of your
own and the course's oracles (central differences, PyTorch), so the score does not depend on
anything else in this folder.

## License

The text and figures are adapted from *Autodiff from Scratch*, by the Autodiff from Scratch
authors, under CC BY 4.0: see LICENSE-TEXT.md for what was changed. The code is under the MIT
License (LICENSE).
""",
    "LICENSE-TEXT.md": """# License of the book's text and figures

This student edition is **adapted from** *Autodiff from Scratch*, by the Autodiff from Scratch
authors, whose text, figures and notebook outputs are licensed under the Creative Commons
Attribution 4.0 International License (CC BY 4.0,
<https://creativecommons.org/licenses/by/4.0/>). The adaptation is licensed under CC BY 4.0 too.

Changes made: the bodies of the graded tasks' definitions are replaced by stubs, the exercise
solutions and their explanations are withheld, the notebook outputs are removed, and this README,
the student-side checks and the requirements without PyTorch are added.

The code (the `engine` package, the code cells of the notebooks, the checks and tools) is under
the MIT License: see `LICENSE`.
""",
    "pyproject.toml": """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "autodiff-from-scratch-student"
version = "0.1.0"
description = "The student edition of Autodiff from Scratch: your engine, built from your notebooks"
requires-python = ">=3.11"
dependencies = ["numpy>=1.26"]

[tool.setuptools]
packages = ["engine", "course", "autograder"]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-p no:cacheprovider"
""",
    "tests/test_tasks.py": '''"""Your tasks, checked: each task's cases on the engine your notebooks export.

    pytest            # every task, then your score
    pytest -k T5      # one task
"""
import pytest

from autograder import tasks


@pytest.mark.parametrize("task", tasks.TASKS, ids=[t.id for t in tasks.TASKS])
def test_task(task, graded):
    verdicts = graded(task)
    wrong = [f"{label}: {message}" for label, ok, message in verdicts if not ok]
    if wrong and all("not implemented yet" in w for w in wrong):
        pytest.fail(f"{task.id} is not implemented yet", pytrace=False)
    if wrong and all("No module named 'torch'" in w for w in wrong):
        pytest.skip(f"{task.id} is checked against PyTorch, which is not installed")
    assert not wrong, f"{task.id}: {len(wrong)} of {len(verdicts)} cases wrong:\\n" + \\
        "\\n".join(wrong[:10])
''',
    "tests/conftest.py": '''"""Runs the tasks' checks once per session (on your notebooks, exported afresh) and prints
your score at the end."""
from pathlib import Path

import pytest

from autograder import grading

ROOT = Path(__file__).resolve().parent.parent
RESULTS = {}


@pytest.fixture(scope="session")
def graded():
    """task -> its verdicts [(case, correct, message)] on your whole engine."""
    def verdicts(task):
        if task.id not in RESULTS:
            report = grading.grade(ROOT, seed=0, only=[task.id], isolation=False)
            RESULTS[task.id] = (task, report["integration"])
        return [(label.split(": ", 1)[1], ok, message)
                for label, ok, message in RESULTS[task.id][1]]
    return verdicts


def pytest_terminal_summary(terminalreporter):
    if not RESULTS:
        return
    terminalreporter.section("score")
    total = worth = 0
    for task, verdicts in RESULTS.values():
        score = grading.points(verdicts, task.points)
        total, worth = total + score, worth + task.points
        right = sum(ok for _, ok, _ in verdicts)
        terminalreporter.write_line(f"{task.id:>4}: {score:>5g} / {task.points:<3} points "
                                    f"({right} of {len(verdicts)} cases)  {task.title}")
    terminalreporter.write_line(f"score: {total:g} / {worth} points on these tasks "
                                "(your instructor's grader also checks each task on its own)")
''',
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
