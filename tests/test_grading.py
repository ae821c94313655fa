"""The graded track end to end, through the documented commands: `make student` writes
an edition whose tasks are stubs, `tools/grade.py` grades a folder of notebooks and
writes results.json.

The untouched edition scores 0 even though the reference engine is installed here; the
book's own notebooks score full marks; a copied reference engine/, a tampered
conftest.py, a fake oracle and a zero local rule earn nothing; correct solutions written
differently from the book's earn full marks; a task that never ends times out and the
others are still scored."""

import ast
import json
from pathlib import Path
import re
import shutil
import subprocess
import sys

import pytest

from autograder import checks, grading, notebooks, sandbox, tasks


ROOT = Path(__file__).resolve().parent.parent


TIMEOUT = 20


def edition(folder):
    """A fresh student edition in `folder`, written by the documented command."""
    subprocess.run(
        [sys.executable, "tools/student_edition.py", "--out", str(folder)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return folder


def grade(folder, *args, timeout=TIMEOUT):
    """Run tools/grade.py on `folder`: (results.json as a dict, what it printed)."""
    out = folder.parent / f"{folder.name}-results.json"
    result = subprocess.run(
        [
            sys.executable,
            "tools/grade.py",
            str(folder),
            "--json",
            str(out),
            "--timeout",
            str(timeout),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(out.read_text(encoding="utf-8")), result.stdout


def scores(results):
    """{task id or 'integration': (score, max_score)}."""
    return {
        test.get("number", "integration"): (test["score"], test["max_score"])
        for test in results["tests"]
    }


def write(folder, name, code, notebook_name=None):
    """Replace the definition of `name` (a task's, or any in `notebook_name`) in the
    student's notebook by `code`; return the cell's index."""
    path = folder / "book" / (notebook_name or tasks.task_named(name).notebook)
    notebook = notebooks.read_notebook(path)
    index, source = notebooks.find_cell(notebook, [name])
    tree = ast.parse(source)
    first, last = notebooks.span(
        notebooks.top_level_definitions(tree)[notebooks.owner(name)]
    )
    lines = source.splitlines()
    lines[first - 1 : last] = code.strip("\n").splitlines()
    notebook["cells"][index]["source"] = ("\n".join(lines) + "\n").splitlines(True)
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return index


@pytest.fixture(scope="module")
def untouched(tmp_path_factory):
    return edition(tmp_path_factory.mktemp("untouched") / "student")


def test_the_edition_is_complete(untouched):
    for needed in [
        "_config.yml",
        "_toc.yml",
        "_ext/offline_mathjax.py",
        "_static/custom.css",
        "benchmarks/results.json",
        "requirements.txt",
        "requirements-no-torch.txt",
        "LICENSE",
        "LICENSE-TEXT.md",
        "tools/export_engine.py",
        "course/export.py",
        "course/catalogue.py",
        "engine/core.py",
        "tests/test_tasks.py",
    ]:
        assert (untouched / needed).exists(), needed
    readme = (untouched / "README.md").read_text(encoding="utf-8")
    assert "pip install -r requirements-no-torch.txt" in readme
    assert "adapted from" in (untouched / "LICENSE-TEXT.md").read_text(encoding="utf-8")
    without = (untouched / "requirements-no-torch.txt").read_text(encoding="utf-8")
    assert "\ntorch==" not in without and "\nnumpy==" in without
    for task in tasks.TASKS:
        assert f"| {task.id} |" in readme
    # every file outside book/ that a chapter reads (a path such as
    # "../benchmarks/x.json")
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        for read in set(
            re.findall(r'"\.\./([\w./-]+\.\w+)', path.read_text(encoding="utf-8"))
        ):
            assert (untouched / read).exists(), f"{path.name} reads {read}"


def test_every_task_is_stubbed_and_no_solution_is_left(untouched):
    for task in tasks.TASKS:
        notebook = notebooks.read_notebook(untouched / "book" / task.notebook)
        _, source = notebooks.find_cell(notebook, task.names)
        assert notebooks.stub_message(task) in source, task.id
    for path in (untouched / "book").glob("*.ipynb"):
        notebook = notebooks.read_notebook(path)
        for cell in notebook["cells"]:
            text = notebooks.source_of(cell)
            # no output but the glued values the prose quotes (tools/student_edition.py)
            glued = [
                "scrapbook" in o.get("metadata", {}) for o in cell.get("outputs", [])
            ]
            assert all(glued), path.name
            if cell["cell_type"] == "markdown":
                assert "{admonition} Solution" not in text, (path.name, text[:200])
            elif text.startswith("# Solution"):
                assert text == notebooks.WITHHELD_CODE, (path.name, text[:300])


def test_make_student_needs_only_the_standard_library():
    source = (ROOT / "tools" / "student_edition.py").read_text(encoding="utf-8")
    for module in (
        "tools/student_edition.py",
        "tools/export_engine.py",
        "course/export.py",
        "course/__init__.py",
        "autograder/tasks.py",
        "autograder/notebooks.py",
    ):
        tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        imported |= {
            node.module.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert imported <= set(sys.stdlib_module_names) | {"autograder", "course"}, (
            module,
            imported - set(sys.stdlib_module_names),
        )
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = makefile.split("\nstudent:")[1].split("\n\n")[0]
    assert (
        "$(VENV)" not in rule.split("\n")[0]
        and "$(PYTHON) tools/student_edition.py" in rule
    )
    assert "encoding" in source


def test_the_untouched_edition_scores_nothing(untouched):
    """Even though the reference engine is installed in this environment."""
    results, printed = grade(untouched)
    assert results["score"] == 0, printed
    assert printed.strip().splitlines()[-1].startswith("score: 0 / ")
    total = sum(t.points for t in tasks.TASKS) + grading.INTEGRATION_POINTS
    assert f"score: 0 / {total} points" in printed


def test_the_books_own_notebooks_score_full_marks(tmp_path):
    results, printed = grade(ROOT)
    assert all(score == worth for score, worth in scores(results).values()), printed
    total = sum(t.points for t in tasks.TASKS) + grading.INTEGRATION_POINTS
    assert results["score"] == total and f"score: {total:g} / {total} points" in printed
    for test in results["tests"]:
        assert {"name", "score", "max_score", "output"} <= set(test)


CORRECT_BUT_DIFFERENT = {
    "topological_order": '''
def topological_order(root):
    """Kahn's algorithm over the reversed edges, then reversed: a different correct
    order."""
    users, seen, stack = {}, {id(root): root}, [root]
    while stack:
        node = stack.pop()
        for parent in node.parents:
            users.setdefault(id(parent), []).append(node)
            if id(parent) not in seen:
                seen[id(parent)] = parent
                stack.append(parent)
    waiting = {key: len(users.get(key, ())) for key in seen}
    ready, order = [root], []
    while ready:
        node = ready.pop()
        order.append(node)
        for parent in node.parents:
            waiting[id(parent)] -= 1
            if waiting[id(parent)] == 0:
                ready.append(parent)
    return order[::-1]
''',
    "unbroadcast": '''
def unbroadcast(g, shape):
    """One axis at a time, from the left."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g
''',
}


@pytest.fixture(scope="module")
def adversarial(tmp_path_factory):
    """An edition with two correct solutions written unlike the book's, a zero rule
    beside a zero oracle, a task that never ends, a buggy rule, a copied reference
    engine and a tampered conftest.py; graded once."""
    folder = edition(tmp_path_factory.mktemp("adversarial") / "student")
    for name, code in CORRECT_BUT_DIFFERENT.items():
        write(folder, name, code)
    write(folder, "matmul_vjp_a", "def matmul_vjp_a(g, out, a, b):\n    return 0 * a\n")
    write(folder, "matmul_vjp_b", "def matmul_vjp_b(g, out, a, b):\n    return 0 * b\n")
    write(
        folder,
        "numerical_gradient",
        "def numerical_gradient(f, x, eps=1e-6):\n"
        "    return 0 * np.asarray(x, float)\n",
        "01_tape.ipynb",
    )
    write(
        folder,
        "max_vjp",
        "def max_vjp(g, out, x, axis, keepdims):\n    while True:\n        pass\n",
    )
    cell = write(
        folder,
        "scatter_add_forward",
        "def scatter_add_forward(g, key, shape):\n    out = np.zeros(shape)\n"
        "    out[key[0]] += g\n    return out\n",
    )
    subprocess.run(["cp", "-r", str(ROOT / "engine"), str(folder)], check=True)
    (folder / "conftest.py").write_text(
        "def pytest_runtest_logreport(report):\n    report.outcome = 'passed'\n"
    )
    (folder / "autograder" / "checks.py").write_text(
        "def cases(task, seed):\n    return []\n"
    )
    results, printed = grade(folder, timeout=8)
    return scores(results), results, printed, cell


def test_correct_solutions_written_differently_get_full_marks(adversarial):
    got, _, printed, _ = adversarial
    for name in CORRECT_BUT_DIFFERENT:
        task = tasks.task_named(name)
        assert got[task.id][0] == task.points, printed


def test_a_fake_oracle_and_a_zero_rule_earn_nothing(adversarial):
    got, _, printed, _ = adversarial
    assert got[tasks.task_named("matmul_vjp_a").id][0] == 0, printed


def test_copied_engine_and_tampered_files_earn_nothing(adversarial):
    got, _, printed, _ = adversarial
    earned = {t for t, (score, _) in got.items() if score > 0}
    right = {tasks.task_named(name).id for name in CORRECT_BUT_DIFFERENT}
    assert earned - {"integration"} == right, printed


def test_a_looping_task_times_out_and_the_rest_are_scored(adversarial):
    got, results, printed, _ = adversarial
    loop = tasks.task_named("max_vjp")
    output = next(t["output"] for t in results["tests"] if t.get("number") == loop.id)
    assert got[loop.id][0] == 0 and "timed out" in output, output
    later = [t for t in tasks.TASKS if int(t.id[1:]) > int(loop.id[1:])]
    assert all(t.id in got for t in later)


def test_an_error_is_reported_with_its_notebook_cell(adversarial):
    _, results, _, cell = adversarial
    task = tasks.task_named("scatter_add_forward")
    output = next(t["output"] for t in results["tests"] if t.get("number") == task.id)
    assert f"book/{task.notebook}, cell {cell}" in output, output
    assert "Traceback" not in output


def test_a_failure_says_which_tasks_it_blocks(adversarial):
    _, results, _, _ = adversarial
    sweep = tasks.task_named("backpropagate")
    order = tasks.task_named("topological_order")
    output = next(t["output"] for t in results["tests"] if t.get("number") == sweep.id)
    assert "not implemented yet" in output
    # the sweep's checks call topological_order: the order blocks the sweep, not the
    # reverse
    report = grading.grade(ROOT, seed=1, only=[order.id, sweep.id], integration=False)
    blocks = {entry["task"].id: entry["blocks"] for entry in report["tasks"]}
    assert sweep.id in blocks[order.id] and order.id not in blocks[sweep.id]


def test_the_cases_differ_from_student_to_student():
    task = tasks.task_named("unbroadcast")
    first, second = (
        checks.cases(task, grading.student_seed(s)) for s in ("ada", "grace")
    )
    assert [c.label for c in first] != [c.label for c in second]


def test_the_cases_come_in_an_order_of_each_students_own():
    """A submission cannot tell a case by its place (answer the n-th call with the n-th
    expected value): every task with more than three cases runs them in an order drawn
    from the student's seed."""
    for task in tasks.TASKS:
        orders = set()
        for seed in range(6):
            made = [c.label for c in checks.cases(task, seed, shuffled=False)]
            order = checks.toolkit.case_order(task, seed, len(made))
            assert [c.label for c in checks.cases(task, seed)] == [
                made[k] for k in order
            ]
            orders.add(tuple(order))
        if len(made) > 3:
            assert len(orders) > 1, task.id


RULE_BREAKERS = {
    "topological_order": """
def topological_order(root):
    import sys

    sys.setrecursionlimit(100_000)
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order
""",
    "matmul_vjp_a": """
def matmul_vjp_a(g, out, a, b):
    grad, eps = np.zeros_like(a), 1e-6
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = ((up @ b - down @ b) * g).sum() / (2 * eps)
    return grad
""",
    "matmul_vjp_b": """
def matmul_vjp_b(g, out, a, b):
    grad, eps = np.zeros_like(b), 1e-6
    for i in np.ndindex(b.shape):
        up, down = b.copy(), b.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = ((a @ up - a @ down) * g).sum() / (2 * eps)
    return grad
""",
}


def test_the_rules_a_title_states_are_judged_by_the_grader(untouched, tmp_path):
    """A recursive order with a raised recursion limit passes every case of T1 but the
    rule, which the grader reads from the source; rules computed by finite differences
    pass T4's unit-sized cases but not those with an operand near 1e12."""
    folder = tmp_path / "student"
    shutil.copytree(untouched, folder)
    for name, code in RULE_BREAKERS.items():
        write(folder, name, code)
    results, printed = grade(folder, "--tasks", "T1,T4", "--no-integration")
    output = {t["number"]: t["output"] for t in results["tests"] if "number" in t}
    got = scores(results)
    assert 0 < got["T1"][0] < got["T1"][1], printed
    assert "✗ the rule: no recursion" in output["T1"], output["T1"]
    assert output["T1"].count("✗") == 1, output["T1"]
    assert 0 < got["T4"][0] < got["T4"][1], printed
    failed = [line for line in output["T4"].splitlines() if "✗" in line]
    assert len(failed) == 2 and all("near 1e12" in line for line in failed), failed


def test_each_tasks_checks_need_only_tasks_of_its_chapter_and_earlier(tmp_path):
    """Every task's cases pass on the reference engine with the tasks of all later
    chapters stubbed: a student's own checks of chapter N pass as soon as chapters 1 to
    N are done."""
    box = sandbox.Sandbox([ROOT, tmp_path])
    kit = grading.write_kit(tmp_path / "kit")
    cells = grading.reference_cells()
    failures = []
    for task in tasks.TASKS:
        later = [t for t in tasks.TASKS if tasks.chapter(t) > tasks.chapter(task)]
        stubbed = [
            (
                module,
                name,
                index,
                notebooks.stub_cell(code, [t for t in later if t.notebook == name]),
                replaces,
            )
            for module, name, index, code, replaces in cells
        ]
        folder = grading.write_engine(
            tmp_path / task.id, grading.modules_or_error(stubbed)
        )
        spec = {"task": task.id, "engine": str(folder), "seed": 3}
        position, module = grading.home(task, cells)
        if position is None:
            notebook = notebooks.read_notebook(ROOT / "book" / task.notebook)
            index, source = notebooks.find_cell(notebook, task.names)
            spec.update(
                cell=notebooks.definitions_only(source, task.names),
                cell_origin=task.notebook,
                modules=grading.exported_from(task.notebook, cells),
                preamble=grading.preamble(task),
            )
        else:
            spec["module"] = module
        run = grading.run_child(spec, tmp_path / task.id, TIMEOUT, box, kit)
        failures += [
            (task.id, label, message)
            for label, ok, message in grading.judged(task, 3, run, TIMEOUT)
            if not ok
        ]
    assert not failures, failures[:5]


def test_the_student_runs_the_checks_with_plain_pytest(untouched, tmp_path):
    """In the edition, `pytest -k T..` runs a task's checks on the student's notebooks:
    it fails while the task is a stub and passes once it is written."""
    task = tasks.task_named("unbroadcast")
    folder = tmp_path / "student"
    subprocess.run(["cp", "-r", str(untouched), str(folder)], check=True)

    def pytest_in(folder):
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-k", tasks.selector(task)],
            cwd=folder,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
        )

    before = pytest_in(folder)
    assert (
        before.returncode == 1 and f"{task.id} is not implemented yet" in before.stdout
    ), before.stdout[-2000:] + before.stderr[-2000:]
    write(folder, "unbroadcast", CORRECT_BUT_DIFFERENT["unbroadcast"])
    after = pytest_in(folder)
    assert after.returncode == 0 and f"{task.points} / {task.points}" in after.stdout, (
        after.stdout[-2000:]
    )


def test_the_syllabus_lists_every_task_with_its_week_hours_and_points():
    text = (ROOT / "book" / "syllabus.md").read_text(encoding="utf-8")
    rows = {
        cells[0]: cells
        for cells in (
            [c.strip() for c in line.strip("|").split("|")]
            for line in text.splitlines()
            if line.startswith("| T")
        )
    }
    assert set(rows) == {t.id for t in tasks.TASKS}
    for task in tasks.TASKS:
        _, week, chapter, what, hours, points = rows[task.id]
        assert (int(week), float(hours), int(points)) == (
            task.week,
            task.hours,
            task.points,
        )
        assert task.notebook[:-6] in chapter and task.title in what
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make student" in readme and "make grade SUBMISSION=" in readme


@pytest.mark.slow
def test_the_edition_builds_its_book_and_runs_every_chapter(tmp_path):
    """The edition as the book's notebooks would make it with every task done (and every
    solution still withheld): its book builds, and each chapter runs top to bottom."""
    folder = edition(tmp_path / "student")
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        here = [t for t in tasks.TASKS if t.notebook == path.name]
        original = notebooks.read_notebook(path)
        done = notebooks.student_notebook(notebooks.read_notebook(path), here)
        for cell, book_cell in zip(done["cells"], original["cells"]):
            if any(
                notebooks.stub_message(t) in notebooks.source_of(cell) for t in here
            ):
                cell["source"] = book_cell["source"]  # the task, done as the book does
        (folder / "book" / path.name).write_text(
            json.dumps(done, indent=1), encoding="utf-8"
        )
    env = {**__import__("os").environ, "PYTHONPATH": str(folder)}
    subprocess.run(
        [sys.executable, "tools/export_engine.py"],
        cwd=folder,
        check=True,
        env=env,
        capture_output=True,
    )
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    built = subprocess.run(
        [str(jupyter_book), "build", str(folder), "--keep-going"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert (
        built.returncode == 0 and (folder / "_build" / "html" / "index.html").exists()
    ), built.stdout[-3000:]
    jupyter = Path(sys.executable).parent / "jupyter"
    failed = {}
    for path in sorted((folder / "book").glob("[0-9][0-9]_*.ipynb")):
        run = subprocess.run(
            [str(jupyter), "execute", path.name],
            cwd=folder / "book",
            capture_output=True,
            text=True,
            env=env,
        )
        if run.returncode:
            failed[path.name] = run.stderr[-1500:]
    assert not failed, failed


def test_each_task_is_selected_alone_by_its_pytest_id():
    """`pytest -k T01` in the edition selects T1 and not T10 to T19."""
    ids = [tasks.selector(t) for t in tasks.TASKS]
    assert all(sum(a in b for b in ids) == 1 for a in ids), ids


def test_a_task_cell_that_does_not_parse_is_named_as_such(untouched, tmp_path):
    folder = tmp_path / "student"
    subprocess.run(["cp", "-r", str(untouched), str(folder)], check=True)
    task = tasks.task_named("unbroadcast")
    path = folder / "book" / task.notebook
    notebook = notebooks.read_notebook(path)
    index, source = notebooks.find_cell(notebook, ["unbroadcast"])
    broken = source.replace("def unbroadcast(g, shape)", "def unbroadcast(g, shape", 1)
    assert broken != source
    notebook["cells"][index]["source"] = broken.splitlines(True)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    with pytest.raises(LookupError, match=f"cell {index} is not valid Python"):
        grading.Submission(folder).task_cell(task)


def test_notebooks_of_another_edition_are_graded_with_a_warning(untouched, tmp_path):
    assert grading.edition_note(grading.Submission(untouched)) == ""
    folder = tmp_path / "student"
    subprocess.run(["cp", "-r", str(untouched), str(folder)], check=True)
    path = folder / "book" / tasks.TASKS[0].notebook
    notebook = notebooks.read_notebook(path)
    notebook["metadata"][notebooks.STAMP] = "an-old-stamp"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    note = grading.edition_note(grading.Submission(folder))
    assert "another edition" in note and "an-old-stamp" in note


def test_the_headline_of_a_task_weighs_more_than_one_case():
    """T6 is "the maximum's local rule, ties included": a rule that gives every tied
    maximum the whole gradient (a usual mistake) loses every tie case, a third of the
    task, not one case in eleven."""
    from types import SimpleNamespace

    import numpy as np

    def whole_gradient_to_each_maximum(g, out, x, axis=None, keepdims=False):
        top = np.max(x, axis=axis, keepdims=True)
        return (x == top) * (g if keepdims or axis is None else np.expand_dims(g, axis))

    made = checks.cases(tasks.task_named("max_vjp"), seed=3)
    wrong = [
        c.label
        for c in made
        if c.judge(c.run(SimpleNamespace(max_vjp=whole_gradient_to_each_maximum)))
    ]
    assert len(wrong) >= len(made) / 3 and all(w.startswith("ties") for w in wrong)
