"""The student edition (tools/student_edition.py) and its autograder (autograder/): the stubs fail
every task, the reference engine passes every task, and a planted bug fails with a message that
names the case and the entries."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import student_edition  # noqa: E402

TASKS = [task for task, _, _ in student_edition.TASKS]


def grade(folder, *args):
    """Run the autograder on the engine in `folder`; (per-task (passed, total), full output)."""
    result = subprocess.run([sys.executable, "-m", "pytest", "autograder", "-q", "-p",
                             "no:cacheprovider", *args], cwd=folder, capture_output=True,
                            text=True, env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"})
    scores = {task: (int(p), int(t)) for task, p, t in
              re.findall(r"task\s+([\d.]+): (\d+)/(\d+) checks passed", result.stdout)}
    return scores, result.stdout


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("edition") / "student"
    student_edition.write_edition(out)
    return out


def test_every_task_is_stubbed_and_documented(edition):
    engine = "".join(p.read_text() for p in (edition / "engine").glob("*.py"))
    readme = (edition / "README.md").read_text()
    for task, name, _ in student_edition.TASKS:
        assert f'NotImplementedError("Task {task}:' in engine, f"task {task} is not stubbed"
        assert f"| {task} | `{name}` |" in readme
    solutions = [cell for path in (edition / "book").glob("*.ipynb")
                 for cell in path.read_text().split('"cell_type"') if "# Solution " in cell]
    assert not solutions, "a hidden solution is still in the student edition"


def test_the_stubs_fail_every_task(edition):
    scores, output = grade(edition)
    assert set(scores) == set(TASKS), output[-2000:]
    assert all(passed == 0 for passed, _ in scores.values()), scores


def test_the_reference_engine_passes_every_task(tmp_path):
    shutil.copytree(ROOT / "engine", tmp_path / "engine")
    shutil.copytree(ROOT / "autograder", tmp_path / "autograder")
    scores, output = grade(tmp_path)
    assert set(scores) == set(TASKS), output[-2000:]
    assert all(passed == total for passed, total in scores.values()), output[-3000:]
    assert f"score: {len(TASKS)} of {len(TASKS)} tasks complete" in output


def test_a_planted_bug_is_named_with_case_and_entries(tmp_path):
    shutil.copytree(ROOT / "engine", tmp_path / "engine")
    shutil.copytree(ROOT / "autograder", tmp_path / "autograder")
    tensor = tmp_path / "engine" / "tensor.py"
    line, replacement = "g2 @ b2.swapaxes(-1, -2)", "g2 @ b2"   # the museum's missing transpose
    assert tensor.read_text().count(line) == 1
    tensor.write_text(tensor.read_text().replace(line, replacement))
    scores, output = grade(tmp_path, "-m", "task2_1 or task2_2")
    assert scores["2.1"][0] < scores["2.1"][1] and scores["2.2"][0] == scores["2.2"][1]
    assert "(3, 3) @ (3, 3), d/dA, gradient of input 0" in output and "entries are off" in output
