"""A red team's attempts on the graded track, each graded through tools/grade.py as a
student's submission would be.

Each asserts what the grader does (the attack earns nothing, the grader finishes). The
first group are the holes a red team found and that were closed (a link to the course's
notebooks, files the grader read by path, a replayed judge, a patched census, a
recursion hidden behind an alias, a seed known in advance, unbounded storage); the rest
were defended from the start."""

import json
import os
from pathlib import Path
import shutil
import subprocess
import sys
import time

import pytest
from test_grading import edition, scores, write

from autograder import grading, rules, tasks


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    return edition(tmp_path_factory.mktemp("redteam") / "student")


@pytest.fixture
def student(pristine, tmp_path):
    """A fresh copy of the untouched student edition."""
    return Path(shutil.copytree(pristine, tmp_path / "student", symlinks=True))


def graded(folder, only, timeout=10, outer=120, integration=False, secret=None):
    """Grade `folder` on the tasks `only` (a comma-separated list): (results.json as a
    dict, or None if none was written; what the grader printed; its exit status, or None
    if it had not finished after `outer` seconds, when it is killed). The grader's
    scratch folder is made beside `folder`, so that what a crashed or killed grader
    leaves goes with the test's temporary folder."""
    out = folder.parent / "results.json"
    scratch = folder.parent / "scratch"
    scratch.mkdir(exist_ok=True)
    argv = [sys.executable, "tools/grade.py", str(folder), "--json", str(out)]
    argv += ["--tasks", only, "--timeout", str(timeout)]
    if not integration:
        argv.append("--no-integration")
    process = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={
            **os.environ,
            "TMPDIR": str(scratch),
            **({"AUTOGRADER_SECRET": secret} if secret else {}),
        },
    )
    try:
        printed, _ = process.communicate(timeout=outer)
        status = process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        printed, _ = process.communicate()
        status = None
        for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/pids"):  # its pids cgroups
            for group in Path(base).glob(f"autodiff-grader-{process.pid}-*"):
                try:
                    group.rmdir()
                except OSError:
                    pass
    results = json.loads(out.read_text(encoding="utf-8")) if out.exists() else None
    return results, printed, status


def total(results):
    return sum(score for score, _ in scores(results).values())


def replace_in_cell(folder, notebook, old, new):
    """Replace the text `old` of a cell of the student's `notebook` by `new`."""
    path = folder / "book" / notebook
    book = json.loads(path.read_text(encoding="utf-8"))
    for cell in book["cells"]:
        source = "".join(cell["source"])
        if old in source:
            cell["source"] = source.replace(old, new).splitlines(True)
            path.write_text(json.dumps(book, indent=1), encoding="utf-8")
            return
    raise LookupError(old)


# --- attacks that succeed today -----------------------------------------------------


def test_notebooks_linked_to_the_course_earn_nothing(student):
    for path in (student / "book").glob("[0-9][0-9]_*.ipynb"):
        path.unlink()
        path.symlink_to(ROOT / "book" / path.name)
    results, printed, status = graded(student, "T1,T4", integration=True)
    assert status == 0, printed
    assert total(results) == 0, scores(results)


EXFILTRATE = '''
def topological_order(root):
    """Swap output.txt, in the task's own folder (its spec's), for a link to a file of
    the host, then end the process."""
    import os, sys
    folder = os.path.dirname(sys.argv[-1])
    try:
        os.remove(os.path.join(folder, "output.txt"))
        os.symlink("SECRET", os.path.join(folder, "output.txt"))
        print("ATTACK done", flush=True)
    except OSError as error:
        print(f"ATTACK refused: {error.strerror}", flush=True)
    os._exit(3)
'''


def test_a_symlinked_output_shows_no_file_of_the_grading_machine(student, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the answers: KEEP-OUT-7f3a\n")
    write(student, "topological_order", EXFILTRATE.replace("SECRET", str(secret)))
    results, printed, status = graded(student, "T1")
    assert status == 0, printed
    assert total(results) == 0
    assert "KEEP-OUT-7f3a" not in json.dumps(results)
    assert "ATTACK refused: Read-only file system" in json.dumps(results)


FIFO = '''
def topological_order(root):
    """Replace results.jsonl, in the task's own folder, by a named pipe that no one
    will ever write."""
    import os, sys
    results = os.path.join(os.path.dirname(sys.argv[-1]), "results.jsonl")
    try:
        os.remove(results)
        os.mkfifo(results)
        print("ATTACK done", flush=True)
    except OSError as error:
        print(f"ATTACK refused: {error.strerror}", flush=True)
    os._exit(0)
'''


def test_a_fifo_for_results_does_not_hang_the_grader(student):
    write(student, "topological_order", FIFO)
    results, printed, status = graded(student, "T1", timeout=5, outer=30)
    assert status == 0, "the grader hung: " + printed[-500:]
    assert total(results) == 0
    assert "ATTACK refused: Read-only file system" in json.dumps(results)


DEEP = '''
def topological_order(root):
    """One results line nested 100,000 deep, through the runner's own descriptor."""
    import json, os, sys
    spec = json.load(open(sys.argv[-1]))
    os.write(spec["out_fd"], ("[" * 100_000 + "]" * 100_000 + "\\n").encode())
    print("ATTACK done", flush=True)
    os._exit(0)
'''


def test_a_deeply_nested_results_line_does_not_crash_the_grader(student):
    write(student, "topological_order", DEEP)
    results, printed, status = graded(student, "T1,T4")
    assert status == 0 and results is not None, printed[-500:]
    assert total(results) == 0
    assert "ATTACK done" in json.dumps(results)  # the line was written, and skipped


def test_an_upload_cannot_choose_its_identity(student):
    (student / "submission_metadata.json").write_text(
        json.dumps({"users": [{"sid": "mallory"}]})
    )
    results, printed, status = graded(student, "T24")
    assert status == 0, printed
    assert "mallory" not in results["output"]


TABLE_STEP = """        import numpy as np
        table = TABLE
        if not hasattr(self, "played"):
            self.played = [repr(float(self.params[0].data.flat[0])), 0]
        key, t = self.played
        for p, value in zip(self.params, table[key][t]):
            p.data = np.array(value)
        self.played[1] += 1"""


def adam_table(seed):
    """What torch.optim.Adam gives on every case of T13 for `seed`: the cases come from
    the kit the student edition ships, the values from the judge run at home."""
    import numpy as np

    from autograder import checks

    table = {}
    for case in checks.cases(tasks.BY_ID["T13"], seed):
        closure = dict(
            zip(
                case.run.__code__.co_freevars,
                (c.cell_contents for c in case.run.__closure__),
            )
        )
        start, steps = closure["start"], closure["grads"]
        seen, space = [], case.judge.__globals__
        real = space["difference"]
        space["difference"] = lambda what, got, expected, seen=seen, **_: seen.append(
            np.asarray(expected).tolist()
        )
        try:
            case.judge([[np.zeros_like(p) for p in start] for _ in steps])
        finally:
            space["difference"] = real
        table[repr(float(start[0].flat[0]))] = [
            seen[t * len(start) : (t + 1) * len(start)] for t in range(len(steps))
        ]
    return table


def test_a_table_of_torch_results_for_a_known_seed_earns_nothing(student):
    pytest.importorskip("torch")
    seed = grading.student_seed(student.name)
    step = TABLE_STEP.replace("TABLE", repr(adam_table(seed)))
    replace_in_cell(
        student,
        "07_adam.ipynb",
        "        raise NotImplementedError(\"T13 is yours to write: Adam's step, "
        'pinned to torch.optim.Adam")',
        step,
    )
    results, printed, status = graded(student, "T13", secret="the instructor's own")
    assert status == 0, printed
    assert total(results) == 0, scores(results)


REPLAY = '''
def max_vjp(g, out, x, axis=None, keepdims=False):
    """Find the runner's case on the stack, run its judge (the kit holds it) with a spy
    on `difference`, and return the expected value the judge computed."""
    import sys
    import numpy as np
    frame = sys._getframe()
    while frame is not None and "case" not in frame.f_locals:
        frame = frame.f_back
    case = frame.f_locals["case"]
    space = case.judge.__globals__
    seen, real = [], space["difference"]
    space["difference"] = lambda what, got, expected, **kw: seen.append(expected)
    try:
        case.judge(np.zeros(np.shape(x)))
    finally:
        space["difference"] = real
    return np.asarray(seen[-1], dtype=float)
'''


def test_a_task_that_replays_its_judge_earns_nothing(student):
    write(student, "max_vjp", REPLAY)
    results, printed, status = graded(student, "T6")
    assert status == 0, printed
    assert total(results) == 0, scores(results)


ORACLE = '''
def graph_stats(root):
    """The judge's own oracle, which the task's engine ships."""
    from course.exercises import counted_stats
    return counted_stats(root)
'''


def test_the_judges_oracle_is_no_answer_to_T12(student):
    write(student, "graph_stats", ORACLE)
    results, printed, status = graded(student, "T12")
    assert status == 0, printed
    assert total(results) == 0, scores(results)


CENSUS = '''
def two_level(h, params, k):
    """No checkpoint at all: the plain forward, and a census told to count nothing."""
    from engine import ArrayCensus
    from engine.nn import linear
    ArrayCensus.born = lambda self, array: None
    for W, b in zip(params[::2], params[1::2]):
        h = h + linear(h, W, b).tanh()
    return h
'''


def test_a_census_patched_to_count_nothing_is_no_checkpoint_schedule(student):
    write(student, "two_level", CENSUS)
    results, printed, status = graded(student, "T23")
    assert status == 0, printed
    assert total(results) == 0, scores(results)


RECURSIVE = '''
def topological_order(root):
    """Recursive depth-first order, through an alias, with a raised limit."""
    import sys
    getattr(sys, "setrecursion" + "limit")(100_000)
    order, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parents:
            again(parent)
        order.append(node)

    again = visit
    visit(root)
    return order
'''


def test_a_recursive_order_through_an_alias_breaks_the_rule(student):
    assert rules.recursion_problem(RECURSIVE) is not None
    write(student, "topological_order", RECURSIVE)
    results, printed, status = graded(student, "T1")
    assert status == 0, printed
    assert total(results) < tasks.BY_ID["T1"].points, scores(results)


FILL = '''
def topological_order(root):
    """17 files of 64 MiB each (RLIMIT_FSIZE caps one file, not their number) in the
    sandbox's /dev/shm, host memory outside RLIMIT_AS, and in the task's own folder,
    host disk."""
    import os
    block, done = bytes(2**20), {}
    for place in ("/dev/shm", "."):
        try:
            for k in range(17):
                with open(f"{place}/fill{k}", "wb") as f:
                    for _ in range(64):
                        f.write(block)
            done[place] = "stored 1088 MiB"
        except OSError as error:
            done[place] = f"refused: {error.strerror}"
        finally:
            for k in range(17):
                if os.path.exists(f"{place}/fill{k}"):
                    os.remove(f"{place}/fill{k}")
    raise RuntimeError(f"FILLED {done}")
'''


def test_a_task_cannot_store_gigabytes(student):
    write(student, "topological_order", FILL)
    results, printed, status = graded(student, "T1", timeout=30)
    assert status == 0, printed
    output = results["tests"][0]["output"]
    assert "FILLED" in output, output[:500]
    assert "stored" not in output, output[:500]


# --- attacks the grader defends against ---------------------------------------------


PROBE = '''
def topological_order(root):
    """Report what the task's process can reach, in the error its student reads."""
    import json, os, socket
    found = {}

    def attempt(name, action):
        try:
            action()
            found[name] = "succeeded"
        except BaseException as error:
            found[name] = type(error).__name__

    attempt("read the course", lambda: open("ROOT/engine/core.py").read())
    attempt("list the course", lambda: os.listdir("ROOT/book"))
    attempt("write the course", lambda: open("ROOT/autograder/x.py", "w"))
    attempt("use torch", lambda: __import__("torch").optim.Adam)
    attempt("reach 127.0.0.1", lambda: socket.create_connection(("127.0.0.1", 22), 2))
    attempt("write /etc", lambda: open("/etc/redteam-probe", "w"))
    found["processes seen"] = len([p for p in os.listdir("/proc") if p.isdigit()])
    raise RuntimeError("PROBE" + json.dumps(found) + "EBORP")
'''


def test_a_task_reaches_neither_the_course_nor_torch_nor_the_network(student):
    write(student, "topological_order", PROBE.replace("ROOT", str(ROOT)))
    results, printed, status = graded(student, "T1")
    assert status == 0, printed
    output = results["tests"][0]["output"]
    found = json.loads(output.split("PROBE", 1)[1].split("EBORP", 1)[0])
    assert found.pop("processes seen") <= 3
    assert all(outcome != "succeeded" for outcome in found.values()), found
    assert total(results) == 0
    assert grading.changed_files(grading.course_fingerprint()) == []


FORGED_LINES = '''
def matmul_vjp_a(g, out, a, b):
    """Write a result line for every case (the runner's own format), then leave."""
    import json, os, sys
    spec = json.load(open(sys.argv[-1]))
    from autograder import checks, tasks
    lines = []
    for case in checks.cases(tasks.BY_ID["T4"], spec["seed"]):
        value = {"array": [[1.0]], "dtype": "f", "shape": [1, 1]}
        for got in ([value, value], value):
            lines.append(json.dumps({"label": case.label, "value": got}) + "\\n")
    os.write(spec["out_fd"], "".join(lines).encode())
    os._exit(0)
'''


def test_forged_result_lines_are_judged_in_the_grader(student):
    write(student, "matmul_vjp_a", FORGED_LINES)
    results, printed, status = graded(student, "T4")
    assert status == 0, printed
    assert total(results) == 0, scores(results)
    assert "shape (1, 1)" in json.dumps(results)  # the forged values were judged


ENDLESS = '''
def topological_order(root):
    """Ignore the case's alarm, block what signals we may, fork, and sleep."""
    import os, signal, time
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {
        signal.SIGKILL, signal.SIGSTOP})
    if os.fork() == 0:
        os.setsid()
        time.sleep(1000)
    time.sleep(1000)
'''


def test_a_task_that_ignores_its_alarm_ends_with_its_budget(student):
    write(student, "topological_order", ENDLESS)
    started = time.monotonic()
    results, printed, status = graded(student, "T1,T24", timeout=5, outer=90)
    assert status == 0, printed
    assert time.monotonic() - started < 60
    assert "timed out" in results["tests"][0]["output"]
    assert total(results) == 0


def test_the_no_recursion_rule_catches_direct_and_mutual_recursion():
    direct = "def order(n):\n    return [order(p) for p in n.parents]\n"
    mutual = "def a(n):\n    return b(n)\n\n\ndef b(n):\n    return [a(p) for p in n]\n"
    method = (
        "class W:\n    def visit(self, n):\n"
        "        return [self.visit(p) for p in n.parents]\n"
    )
    limit = "import sys\nsys.setrecursionlimit(10**6)\n"
    for source in (direct, mutual, method, limit):
        assert rules.recursion_problem(source) is not None, source
