"""The student edition gives nothing away and reads well.

The leak test: for every graded task, the course's own definitions of it (from the
book's notebooks) are looked for in every file a student receives, code and prose:

- the same definition: a function, class or assignment whose syntax tree, docstrings
  dropped and local names renumbered, is the reference's;
- distinctive lines of the reference body, verbatim (spaces aside);
- a distinctive expression of the reference, with its local names as wildcards (the
  mask `np.triu(np.full((T, T), -np.inf), k=1)` written for T = 4 is still the mask);
- a function of the chapter's exported modules that passes the task's checks: code
  equivalent to the solution even when written unlike it (an exercise's oracle).

Then the judges' messages, which ship with the edition, say what is wrong, not the fix;
the edition's prose withholds the formula a task asks for; and the edition's rough
edges: its README, the seed of a grade, stubs that read as not implemented, its pytest
output, a task that ends its process, its book build."""

import ast
import contextlib
import importlib
import importlib.util
import io
from pathlib import Path
import re
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest
from test_grading import write

from autograder import check_task, checks, grading, notebooks, tasks
from course import export


ROOT = Path(__file__).resolve().parent.parent


def student_edition():
    """tools/student_edition.py, imported (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location(
        "student_edition", ROOT / "tools" / "student_edition.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edition") / "student"
    student_edition().write_edition(folder)
    return folder


# --- what a student receives ----------------------------------------------------------

FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1", re.S | re.M)


def received(folder):
    """(where, kind, text) for everything in the edition: each notebook cell, each file;
    kind 'code' for Python (code cells, .py files, fenced blocks in prose) or
    'prose'."""
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file() or {"__pycache__", "_build"} & set(path.parts):
            continue
        where = str(path.relative_to(folder))
        if path.suffix == ".ipynb":
            for k, cell in enumerate(notebooks.read_notebook(path)["cells"]):
                text = notebooks.source_of(cell)
                kind = "code" if cell.get("cell_type") == "code" else "prose"
                yield f"{where}, cell {k}", kind, text
                if kind == "prose":
                    for block in FENCE.finditer(text):
                        yield f"{where}, cell {k} (a code block)", "code", block[2]
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        yield where, "code" if path.suffix == ".py" else "prose", text
        if path.suffix == ".md":
            for block in FENCE.finditer(text):
                yield f"{where} (a code block)", "code", block[2]


def tree_of(text):
    """The syntax tree of some code, its magics and shell lines dropped; None if it
    does not parse."""
    lines = [
        line for line in text.splitlines() if not line.lstrip().startswith(("%", "!"))
    ]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


# --- the reference: the course's own definitions of each task -------------------------


def reference(task):
    """(source of the task's cell in the course's notebook, [(name, node)]): each of
    the task's definitions, and each method of a class among them."""
    notebook = notebooks.read_notebook(ROOT / "book" / task.notebook)
    _, source = notebooks.find_cell(notebook, task.names)
    defined = notebooks.top_level_definitions(ast.parse(source))
    units = []
    for name in task.names:
        node = defined[notebooks.owner(name)]
        if "." in name:
            method = name.split(".", 1)[1]
            node = next(n for n in node.body if getattr(n, "name", None) == method)
        units.append((name, node))
        if isinstance(node, ast.ClassDef):
            units += [
                (f"{name}.{n.name}", n)
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return source, units


def task_cells():
    """{(notebook, cell index)} of every task's cell in the course."""
    found = set()
    for task in tasks.TASKS:
        notebook = notebooks.read_notebook(ROOT / "book" / task.notebook)
        found.add((task.notebook, notebooks.find_cell(notebook, task.names)[0]))
    return found


def without_docstring(body):
    first = body[0] if body else None
    documented = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    return body[1:] if documented else body


def local_names(node):
    """The names a definition binds: its parameters, assigned and loop names."""
    found = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            found.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            found.add(n.id)
    return found


def normalized(node):
    """A definition's syntax tree as text, its name, docstrings, decorators and
    annotations dropped and its local names numbered in order of appearance."""
    node = ast.parse(ast.unparse(node)).body[0]  # a copy
    local, names = local_names(node), {}

    def renamed(name):
        return names.setdefault(name, f"_{len(names)}")

    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            n.name, n.decorator_list = "_", []
            n.body = without_docstring(n.body) or [ast.Pass()]
            if not isinstance(n, ast.ClassDef):
                n.returns = None
        elif isinstance(n, ast.arg):
            n.arg, n.annotation = renamed(n.arg), None
        elif isinstance(n, ast.Name) and n.id in local:
            n.id = renamed(n.id)
    return ast.dump(node, annotate_fields=False)


def weight(node, wild=()):
    """The number of syntax nodes of `node` that say something: no contexts or
    operators, no parameters, no wildcard names."""
    quiet = (
        ast.expr_context,
        ast.operator,
        ast.unaryop,
        ast.cmpop,
        ast.boolop,
        ast.arguments,
        ast.arg,
    )
    return sum(
        1
        for n in ast.walk(node)
        if not isinstance(n, quiet) and not (isinstance(n, ast.Name) and n.id in wild)
    )


def body_statements(node):
    """The statements of a definition's body (methods' bodies for a class)."""
    if isinstance(node, ast.ClassDef):
        return [
            s
            for n in without_docstring(node.body)
            for s in (
                without_docstring(n.body)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                else [n]
            )
        ]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return without_docstring(node.body)
    return [node]


def squeezed(line):
    """A line with its spaces collapsed and a trailing comment dropped."""
    if "#" in line and not ({"'", '"'} & set(line.split("#", 1)[0])):
        line = line.split("#", 1)[0]
    return " ".join(line.split())


def course_lines():
    """{squeezed line: number of course notebook cells that hold it}, the tasks' own
    cells left out: a line many chapters write is an idiom of the course."""
    count, skipped = {}, task_cells()
    for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
        for k, cell in enumerate(notebooks.read_notebook(path)["cells"]):
            if (path.name, k) in skipped:
                continue
            for line in {squeezed(s) for s in notebooks.source_of(cell).splitlines()}:
                count[line] = count.get(line, 0) + 1
    return count


IDIOM = 3  # a line in this many other cells of the course is not distinctive


def distinctive_lines(node, source, idioms):
    """The lines of a definition's body that would give it away: 20 or more characters
    that are not a docstring, a comment, an error or an idiom of the course."""
    lines = source.splitlines()
    found = []
    for statement in body_statements(node):
        if isinstance(statement, ast.Raise):
            continue
        for line in lines[statement.lineno - 1 : statement.end_lineno]:
            line = squeezed(line)
            if (
                len(line.replace(" ", "")) >= 20
                and not line.startswith(("#", '"', "'", "raise ", "def ", "class "))
                and idioms.get(line, 0) < IDIOM
                and line not in found
            ):
                found.append(line)
    return found


def matches(pattern, node, wild, bound):
    """Whether expression `node` is `pattern`, each name of `wild` in the pattern
    standing for any expression (the same one at every place). A call's keyword
    arguments may be given by position."""
    if isinstance(pattern, ast.Name) and pattern.id in wild:
        key = ast.dump(node)
        return bound.setdefault(pattern.id, key) == key
    if type(pattern) is not type(node):
        return False
    if isinstance(pattern, ast.Call):
        ours = pattern.args + [k.value for k in pattern.keywords]
        theirs = node.args + [k.value for k in node.keywords]
        return (
            len(ours) == len(theirs)
            and matches(pattern.func, node.func, wild, bound)
            and all(matches(a, b, wild, bound) for a, b in zip(ours, theirs))
        )
    for field, value in ast.iter_fields(pattern):
        if field in ("ctx", "type_comment", "kind"):
            continue
        other = getattr(node, field, None)
        values, others = (
            (value, other) if isinstance(value, list) else ([value], [other])
        )
        if not isinstance(others, list) or len(values) != len(others):
            return False
        for a, b in zip(values, others):
            if isinstance(a, ast.AST):
                if not isinstance(b, ast.AST) or not matches(a, b, wild, bound):
                    return False
            elif a != b:
                return False
    return True


LEAST = 10  # an expression of fewer syntax nodes is not distinctive


def distinctive_expressions(node):
    """(expressions of a definition's body that compute something particular, its
    local names): errors, docstrings and annotations aside."""
    wild = local_names(node)
    quiet = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Raise) or isinstance(n, ast.arg):
            quiet |= {id(m) for m in ast.walk(n)}
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns:
            quiet |= {id(m) for m in ast.walk(n.returns)}
        if isinstance(n, (ast.AnnAssign)):
            quiet |= {id(m) for m in ast.walk(n.annotation)}
    found = [
        n
        for statement in body_statements(node)
        for n in ast.walk(statement)
        if isinstance(n, ast.expr)
        and not isinstance(n, (ast.Name, ast.Constant, ast.JoinedStr))
        and id(n) not in quiet
        and weight(n, wild) >= LEAST
    ]
    return found, wild


def all_units():
    """(task, name, node, source of its cell) for every definition of every task that
    says something: a one-liner such as `return mode.around(self)` does not."""
    for task in tasks.TASKS:
        source, units = reference(task)
        for name, node in units:
            if weight(node) >= 12 or len(body_statements(node)) >= 2:
                yield task, name, node, source


def same_definitions(folder):
    """[(task, name, where)]: the same definition in the edition."""
    seen = {}
    for where, kind, text in received(folder):
        tree = tree_of(text) if kind == "code" else None
        for n in ast.walk(tree) if tree else ():
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                seen.setdefault(normalized(n), []).append(where)
            elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                seen.setdefault(normalized(n), []).append(where)
    found = []
    for task, name, node, _ in all_units():
        found += [(task.id, name, where) for where in seen.get(normalized(node), [])]
    return found


def copied_lines(folder):
    """[(task, name, where, lines)]: three or more distinctive lines of one definition
    (all of them, if it has fewer) in one place of the edition."""
    idioms = course_lines()
    places = [
        (where, {squeezed(line) for line in text.splitlines()})
        for where, _, text in received(folder)
    ]
    found = []
    for task, name, node, source in all_units():
        lines = distinctive_lines(node, source, idioms)
        if not lines:
            continue
        for where, text in places:
            there = [line for line in lines if line in text]
            if len(there) >= min(3, len(lines)):
                found.append((task.id, name, where, there))
    return found


def copied_expressions(folder):
    """[(task, name, where, expression)]: a distinctive expression of a definition,
    whatever its local names are called there."""
    trees = []
    for where, kind, text in received(folder):
        tree = tree_of(text) if kind == "code" else None
        if tree is not None:
            trees.append(
                (where, [n for n in ast.walk(tree) if isinstance(n, ast.expr)])
            )
    found = []
    for task, name, node, _ in all_units():
        expressions, wild = distinctive_expressions(node)
        for expression in expressions:
            for where, candidates in trees:
                if any(
                    type(c) is type(expression) and matches(expression, c, wild, {})
                    for c in candidates
                ):
                    found.append((task.id, name, where, ast.unparse(expression)))
    return found


class TooLong(BaseException):
    pass


def equivalents(folder):
    """[(task, module.function)]: a function that the edition's modules export from the
    task's chapter and that passes every case of the task's checks (seed 0), put in the
    task's place."""
    task_names = {notebooks.owner(n) for t in tasks.TASKS for n in t.names}
    shipped = {
        str(path.relative_to(folder).with_suffix("")).replace("/", ".")
        for package in export.PACKAGES
        for path in (folder / package).glob("*.py")
    }
    found = []

    def alarm(signum, frame):
        raise TooLong

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        for task in tasks.TASKS:
            source, units = reference(task)
            name, node = units[0]
            if len(task.names) > 1 or not isinstance(node, ast.FunctionDef):
                continue
            wanted = len(node.args.args) - len(node.args.defaults)
            if passes(task, name, refused):
                continue  # its checks run the engine's copy: nothing to put in
            for module, notebook, _, code, _ in export.exported_cells(ROOT / "book"):
                if notebook != task.notebook or module not in shipped:
                    continue
                for other in ast.parse(code).body:
                    if (
                        not isinstance(other, ast.FunctionDef)
                        or other.name in task_names
                        or len(other.args.args) - len(other.args.defaults) != wanted
                    ):
                        continue
                    function = getattr(importlib.import_module(module), other.name)
                    if passes(task, name, function):
                        found.append((task.id, f"{module}.{other.name}"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return found


def refused(*args, **kwargs):
    raise NotImplementedError


def passes(task, name, function):
    """Whether `function`, as the task's `name`, passes all of the task's cases."""
    for case in checks.cases(task, 0):
        signal.setitimer(signal.ITIMER_REAL, 10)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                got = case.run(SimpleNamespace(**{name: function}))
            if case.judge(got) is not None:
                return False
        except (Exception, TooLong):
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return True


def test_no_definition_of_a_task_is_in_the_edition(edition):
    assert same_definitions(edition) == []


def test_no_distinctive_lines_of_a_solution_are_in_the_edition(edition):
    assert copied_lines(edition) == []


def test_no_distinctive_expression_of_a_solution_is_in_the_edition(edition):
    assert copied_expressions(edition) == []


def test_no_function_of_the_edition_solves_a_task(edition):
    assert equivalents(edition) == []


def test_the_leak_test_finds_a_solution_left_in_the_edition(edition, tmp_path):
    """The leak test at work: the course's own notebooks, unstubbed, leak every task;
    a solution pasted into a module, renamed, is found by its syntax tree."""
    leaky = tmp_path / "leaky"
    (leaky / "book").mkdir(parents=True)
    for task in tasks.TASKS:
        source = (ROOT / "book" / task.notebook).read_text(encoding="utf-8")
        (leaky / "book" / task.notebook).write_text(source, encoding="utf-8")
    found = {task for task, *_ in same_definitions(leaky)}
    assert found == {t.id for t in tasks.TASKS}
    _, units = reference(tasks.task_named("unbroadcast"))
    renamed = ast.unparse(units[0][1]).replace("unbroadcast", "reduce_to")
    (tmp_path / "planted").mkdir()
    (tmp_path / "planted" / "helpers.py").write_text(
        re.sub(r"\bg\b", "grad", renamed), encoding="utf-8"
    )
    assert [t for t, *_ in same_definitions(tmp_path / "planted")] == ["T5"]


# --- the judges' messages -------------------------------------------------------------

# what a message must not say: code to write, or an instruction to write it
FIX = re.compile(
    r"\buse\b|\binstead of\b|\bnp\.\w+|\btorch\.\w+\(|\.T\b|swapaxes|transpose\(|"
    r"\bk=\d|\bwrite\b|\btry\b"
)


def messages(path):
    """(line, text) of every string in a check module that is not a docstring: what
    its judges can say."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in documented
    ]


def test_the_judges_say_what_is_wrong_not_how_to_fix_it(edition):
    said = [
        (path.name, line, text)
        for path in sorted((edition / "autograder" / "checks").glob("*.py"))
        for line, text in messages(path)
        if FIX.search(text)
    ]
    assert said == []


# --- the prose withholds what a task asks for -----------------------------------------

# per task: what its chapter's prose says of the result (the rule, the update, the
# formula) that the task asks the student to find; the full book keeps it, in answer
# spans (<!-- answer --> ... <!-- /answer -->) that the edition withholds
WITHHELD = {
    "T1": ["with a marker (`None`) above it"],
    "T4": ["promote 1-D operands to matrices", "swapaxes(-1, -2)` transposes"],
    "T7": ["np.add.at"],
    "T8": [
        r"g_j - p_j \sum_i g_i",
        "g - exp(out) * g.sum(axis=-1, keepdims=True)",
        r"g_j - p_{r j} \sum_i g_i",
    ],
    "T9": [
        r"-\frac{1}{n}\,[i = t_r]",
        r"-\text{one-hot}(t)\, g/n",
        r"-\text{one-hot}(t_r)/n",
        r"\frac{P - \text{one-hot}(t)}{n}",
    ],
    "T11": [r"v \leftarrow \mu\, v + g", r"\theta \leftarrow \theta - \eta\, v"],
    "T13": [
        r"m_t = \beta_1 m_{t-1} + (1 - \beta_1)\, g_t",
        r"v_t = \beta_2 v_{t-1} + (1 - \beta_2)\, g_t^2",
        r"\frac{m_t}{1 - \beta_1^t}",
        r"\frac{\hat m_t}{\sqrt{\hat v_t} + \epsilon}",
    ],
    "T14": [r"\theta \leftarrow \theta - \eta\lambda\theta"],
}


def prose(path):
    """A notebook's markdown cells, as one text."""
    return "\n".join(
        notebooks.source_of(cell)
        for cell in notebooks.read_notebook(path)["cells"]
        if cell.get("cell_type") == "markdown"
    )


@pytest.mark.parametrize("task_id", sorted(WITHHELD, key=lambda t: int(t[1:])))
def test_the_edition_withholds_the_formula_a_task_asks_for(edition, task_id):
    task = tasks.BY_ID[task_id]
    book, theirs = (
        prose(ROOT / "book" / task.notebook),
        prose(edition / "book" / task.notebook),
    )
    for formula in WITHHELD[task_id]:
        assert formula in book, (task_id, formula)  # the full book keeps it
        assert formula not in theirs, (task_id, formula)
    assert notebooks.ANSWER_TEXT in theirs


# --- the edition's rough edges --------------------------------------------------------


def test_the_readme_installs_pytorchs_cpu_build_on_linux(edition):
    readme = (edition / "README.md").read_text(encoding="utf-8")
    lock = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    torch = next(line for line in lock if line.startswith("torch=="))
    assert (
        f"pip install {torch} --index-url https://download.pytorch.org/whl/cpu"
        in readme
    )
    assert "{torch}" not in readme and "{tasks}" not in readme


BUGGY_UNBROADCAST = '''
def unbroadcast(g, shape):
    """Sums the axes broadcasting added in front, and forgets the stretched ones."""
    lead = g.ndim - len(shape)
    return g.sum(axis=tuple(range(lead))) if lead > 0 else g
'''


def copy_of(edition, folder):
    subprocess.run(["cp", "-r", str(edition), str(folder)], check=True)
    return folder


def test_check_task_with_the_graders_seed_gives_the_graders_verdicts(
    edition, tmp_path, capsys
):
    """The README says how: the grade prints its seed, check_task takes it."""
    readme = (edition / "README.md").read_text(encoding="utf-8")
    assert "seed=N" in readme and "cases seeded for" in readme
    folder = copy_of(edition, tmp_path / "ada")
    write(folder, "unbroadcast", BUGGY_UNBROADCAST)
    report = grading.grade(
        folder, only=["T5"], integration=False, allow_unprotected=True
    )
    seed = report["seed"]
    assert seed == grading.student_seed("ada") and seed != 0
    assert f"seed {seed})" in grading.results_json(report)["output"]
    wrong = sorted(m for _, ok, m in report["tasks"][0]["verdicts"] if not ok)
    assert wrong  # the bug shows on some cases, not all
    assert len(wrong) < len(report["tasks"][0]["verdicts"])

    namespace = {}
    exec(BUGGY_UNBROADCAST, namespace)
    capsys.readouterr()
    assert check_task(namespace["unbroadcast"], seed=seed) is False
    said = capsys.readouterr().out.splitlines()
    assert sorted(line[4:] for line in said if line.startswith("  - ")) == wrong


def test_the_students_pytest_says_not_implemented_once_per_case(edition, tmp_path):
    """Untouched T15 and T17 read as not implemented (their checks used to fail before
    reaching a stub: a thread swallowed it, a check caught it); a failing task's cases
    are listed once each."""
    folder = copy_of(edition, tmp_path / "student")
    write(folder, "unbroadcast", BUGGY_UNBROADCAST)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-k", "T05 or T15 or T17"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin"},
    )
    out = run.stdout
    assert "T15 is not implemented yet" in out and "T17 is not implemented yet" in out
    assert "T5: 4 of 10 cases wrong" in out, out[-3000:]
    labels = [c.label for c in checks.cases(tasks.BY_ID["T5"], 0)]
    for label in labels:
        assert out.count(f"{label}:") <= 1, (label, out[-3000:])
    assert "assert not [" not in out


def test_a_task_that_ends_its_process_is_said_to_have_exited(edition, tmp_path):
    folder = copy_of(edition, tmp_path / "student")
    write(
        folder,
        "unbroadcast",
        "def unbroadcast(g, shape):\n    import os\n    os._exit(3)\n",
    )
    report = grading.grade(
        folder, seed=0, only=["T5"], integration=False, allow_unprotected=True
    )
    verdicts = report["tasks"][0]["verdicts"]
    first, *rest = [message for _, _, message in verdicts]
    assert first == (
        "the task's process exited with code 3 without a result (it printed nothing)"
    ), first
    assert all(
        m.startswith("not run: the task's process exited with code 3") for m in rest
    )
    assert verdicts[0][0] in rest[0]


GLUE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+)")


def test_every_value_the_prose_quotes_is_in_the_edition(edition):
    """The edition keeps the glued values of its unchanged cells, and nothing else of
    their outputs: its book builds without a warning for each value it quotes."""
    for path in sorted((edition / "book").glob("*.ipynb")):
        cells = notebooks.read_notebook(path)["cells"]
        outputs = [o for cell in cells for o in cell.get("outputs", [])]
        assert all("scrapbook" in o.get("metadata", {}) for o in outputs), path.name
        glued = {o["metadata"]["scrapbook"]["name"] for o in outputs}
        quoted = {
            key
            for cell in cells
            if cell.get("cell_type") == "markdown"
            for key in GLUE.findall(notebooks.source_of(cell))
        }
        assert quoted <= glued, (path.name, sorted(quoted - glued))


@pytest.mark.slow
def test_the_untouched_editions_book_builds_without_glue_warnings(edition, tmp_path):
    folder = copy_of(edition, tmp_path / "student")
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    built = subprocess.run(
        [str(jupyter_book), "build", str(folder), "--keep-going"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(folder), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert built.returncode == 0, built.stdout[-3000:]
    said = built.stdout + built.stderr
    assert "glue" not in said.lower(), [
        line for line in said.splitlines() if "glue" in line.lower()
    ][:10]
