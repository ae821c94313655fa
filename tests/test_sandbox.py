"""The grader's sandbox (autograder/sandbox.py), attacked by category: each probe runs
in a sandboxed process as a task's code would, and reports what it managed to do.

Reading the course, writing the grader or results, reaching another task's folder, the
grader's processes or the network, outliving the task, and exhausting memory, disk or
the process table must all fail. Where bubblewrap cannot run and we are not root, the
sandbox says which protections are off and these tests are skipped; as root (CI,
Gradescope) they must run."""

import json
import os
from pathlib import Path
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import pytest

from autograder import grading, sandbox


ROOT = Path(__file__).resolve().parent.parent


def usable():
    """Whether the sandbox holds here; as root it must (a failure, not a skip)."""
    if sandbox.bubblewrap() is None and os.geteuid() != 0:
        pytest.skip(
            "bubblewrap cannot run here and we are not root: the sandbox is off"
        )
    return True


def probe(code, tmp_path, timeout=60, hidden=()):
    """Run `code` (Python, printing one JSON line) in the sandbox as the grader runs a
    task: the course, the grader's scratch folder and `hidden` hidden; its output as a
    dict."""
    usable()
    scratch = Path(tempfile.mkdtemp(prefix="grade-", dir=tmp_path))
    box = sandbox.Sandbox(
        [ROOT, scratch, *hidden],
        allow_unprotected=False,
        withheld=grading.oracle_packages(),
    )
    other = scratch / "isolation" / "T2"
    other.mkdir(parents=True)
    (other / "spec.json").write_text("the other task's secret")
    workdir = scratch / "isolation" / "T1"
    workdir.mkdir(parents=True)
    script = (
        textwrap.dedent(code)
        .replace("OTHER", str(other))
        .replace("ROOT", str(ROOT))
        .replace("WORKDIR", str(workdir))
    )
    with open(workdir / "output.txt", "wb") as output:
        child = box.start(
            [sys.executable, "-I", "-c", script],
            workdir,
            output,
            grading.task_environment(workdir),
            cpu_seconds=timeout,
        )
        try:
            child.wait(timeout=timeout)
        finally:
            box.end(child)
    said = (workdir / "output.txt").read_text(errors="replace")
    lines = [line for line in said.splitlines() if line.startswith("{")]
    assert lines, said
    return json.loads(lines[-1]), workdir


ATTEMPT = """
import json, os
done = {}
def attempt(name, action):
    try:
        action()
        done[name] = "succeeded"
    except BaseException as error:
        done[name] = type(error).__name__
"""


def test_task_code_cannot_read_or_write_the_course_or_another_task(tmp_path):
    got, _ = probe(
        ATTEMPT
        + """
attempt("read a reference notebook", lambda: open("ROOT/book/01_tape.ipynb").read())
attempt("read the grader's cases", lambda: open("ROOT/autograder/tasks.py").read())
attempt("list the course", lambda: os.listdir("ROOT/book"))
attempt("write the grader", lambda: open("ROOT/autograder/checks.py", "a").write("x"))
attempt("read another task's folder", lambda: open("OTHER/spec.json").read())
attempt("write /etc", lambda: open("/etc/autodiff-test", "w").write("x"))
attempt("write the home folder", lambda: open(os.path.expanduser("~root/x"), "w"))
attempt("write its own folder", lambda: open("WORKDIR/mine.txt", "w").write("x"))
attempt("write its home", lambda: open(os.path.expanduser("~/a"), "w").write("x"))
def fill(folder):  # files under the size limit, 300 MiB in all
    for k in range(5):
        with open(f"{folder}/part{k}", "wb") as part:
            part.write(bytes(60 * 2**20))
attempt("fill its home", lambda: fill("/tmp"))
attempt("fill shared memory", lambda: fill("/dev/shm"))
print(json.dumps(done))
""",
        tmp_path,
    )
    assert got.pop("write its home") == "succeeded"  # /tmp, a bounded tmpfs
    assert all(outcome != "succeeded" for outcome in got.values()), got
    assert not Path("/etc/autodiff-test").exists()


def test_task_code_cannot_use_the_graders_oracles(tmp_path):
    """PyTorch (the witness of the optimiser, convolution and second-order tasks) is
    installed beside the engine, but a task's process cannot import it: a task cannot
    hand in torch.optim.Adam as its Adam."""
    if not grading.oracle_packages():
        pytest.skip("no oracle package is installed here")
    got, _ = probe(
        ATTEMPT
        + """
attempt("import torch.optim", lambda: __import__("torch.optim"))
attempt("make a torch tensor", lambda: __import__("torch").tensor(1.0))
attempt("import numpy", lambda: __import__("numpy"))
print(json.dumps(done))
""",
        tmp_path,
    )
    assert got == {
        "import torch.optim": "ModuleNotFoundError",
        "make a torch tensor": "AttributeError",  # an empty folder where torch was
        "import numpy": "succeeded",
    }


def test_folders_hidden_inside_each_other_are_hidden_and_read_only(tmp_path):
    """The results folder may hold the course (grading the course's own notebooks with
    results.json beside it): the outer tmpfs hides both, and the task still runs."""
    got, _ = probe(
        ATTEMPT
        + """
attempt("list the course", lambda: os.listdir("ROOT/book"))
attempt("write beside the course", lambda: open("ROOT/../results.json", "w").write("x"))
attempt("write the course", lambda: open("ROOT/x.py", "w").write("x"))
print(json.dumps(done))
""",
        tmp_path,
        hidden=[ROOT.parent],
    )
    assert all(outcome != "succeeded" for outcome in got.values()), got


def test_task_code_cannot_reach_the_grader_the_network_or_outlive_its_task(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        got, workdir = probe(
            ATTEMPT
            + f"""
import signal, socket, time
attempt("signal the grader", lambda: os.kill({os.getpid()}, 0))
attempt("connect to the machine",
        lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))
if os.fork() == 0:                       # a detached grandchild that writes later
    os.setsid()
    if os.fork() == 0:
        time.sleep(3)
        print("still here", flush=True)  # into the output the grader reads
    os._exit(0)
print(json.dumps(done))
""",
            tmp_path,
        )
    finally:
        server.close()
    assert got == {
        "signal the grader": "ProcessLookupError",
        "connect to the machine": got["connect to the machine"],
    }
    assert got["connect to the machine"] != "succeeded"
    time.sleep(4)
    assert "still here" not in (workdir / "output.txt").read_text()  # died with it


def test_task_code_cannot_exhaust_memory_disk_or_the_process_table(tmp_path):
    got, _ = probe(
        ATTEMPT
        + """
import subprocess, sys
attempt("allocate 16 GiB", lambda: bytearray(16 * 2**30))
def big_file():
    with open("big", "wb") as f:
        for _ in range(200):
            f.write(bytes(2**20))
attempt("write 200 MiB", big_file)
children = []
def many_processes():
    for _ in range(2000):
        children.append(subprocess.Popen(["sleep", "30"]))
attempt("start 2000 processes", many_processes)
done["processes started"] = len(children)
print(json.dumps(done))
""",
        tmp_path,
        timeout=120,
    )
    assert got["allocate 16 GiB"] == "MemoryError"
    assert got["write 200 MiB"] == "OSError"
    assert got["start 2000 processes"] != "succeeded"
    assert got["processes started"] <= sandbox.SPARE_PROCESSES


def test_as_root_without_bubblewrap_the_grader_refuses_to_run_task_code(monkeypatch):
    monkeypatch.setattr(sandbox, "bubblewrap", lambda: None)
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    with pytest.raises(RuntimeError, match="bubblewrap"):
        sandbox.Sandbox([ROOT])
    unprotected = sandbox.Sandbox([ROOT], allow_unprotected=True)
    assert "OFF" in unprotected.describe() and len(unprotected.off) == 3


CHEAT = '''
def topological_order(root):
    """Correct, and on its first call an attack on the grader."""
    import os, time
    if not os.path.exists("attacked"):
        open("attacked", "w").write("1")
        for target in ("ROOT/autograder/checks.py", "ROOT/autograder/tasks.py",
                       "RESULTS"):
            try:
                open(target, "w").write("stolen")
            except OSError:
                pass
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(4)
                try:
                    open("RESULTS", "w").write('{"score": 999}')
                except OSError:
                    pass
            os._exit(0)
        try:
            os.kill(os.getppid(), 9)
        except OSError:
            pass
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    return order
'''


def test_an_attacking_task_changes_nothing_and_gets_only_what_it_computed(tmp_path):
    """A correct T1 whose first call tries to rewrite the grader and the results, leaves
    a process behind to forge results.json later, and kills its parent: the grade is
    T1's points alone, the course's files are as they were, and results.json stays the
    grader's."""
    usable()
    from test_grading import edition, grade, scores, write

    folder = edition(tmp_path / "student")
    results_path = folder.parent / f"{folder.name}-results.json"
    code = CHEAT.replace("ROOT", str(ROOT)).replace("RESULTS", str(results_path))
    write(folder, "topological_order", code)
    before = grading.course_fingerprint()
    results, printed = grade(folder, "--tasks", "T1", "--no-integration")
    time.sleep(5)
    assert grading.course_fingerprint() == before
    assert json.loads(results_path.read_text()) == results
    assert scores(results) == {"T1": (results["tests"][0]["max_score"],) * 2}, printed
    assert "sandbox: bubblewrap" in results["output"]


def test_results_json_is_written_last_and_whole(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import grade as command
    finally:
        sys.path.pop(0)
    path = tmp_path / "results.json"
    path.write_text("old")
    command.write_last(path, {"score": 1})
    assert json.loads(path.read_text()) == {"score": 1}
    assert not list(tmp_path.glob("*.partial"))


def test_grading_refuses_when_a_course_file_changed(tmp_path, monkeypatch):
    report = {
        "student": "s",
        "seed": 0,
        "tasks": [],
        "integration": None,
        "sandbox": "sandbox: test",
        "tampered": ["autograder/checks.py"],
    }
    refused = grading.results_json(report)
    assert refused["score"] == 0 and "Not graded" in refused["output"]
    assert grading.changed_files(grading.course_fingerprint()) == []


def test_a_cases_endless_loop_costs_that_case_only(tmp_path):
    """Per-case time budgets: the runner ends a case that runs past its budget and goes
    on with the next one."""
    code = textwrap.dedent("""
        import json, signal, sys, time
        sys.path[:0] = ["ROOT"]
        from autograder import runner
        signal.signal(signal.SIGALRM, runner.out_of_time)
        outcomes = []
        for seconds in (5, 0):
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                try:
                    time.sleep(seconds)
                except Exception:         # a task's own handler does not swallow it
                    outcomes.append("swallowed")
                outcomes.append("finished")
            except runner.CaseTimeout:
                outcomes.append("timed out")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        print(json.dumps(outcomes))
    """).replace("ROOT", str(ROOT))
    ran = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert json.loads(ran.stdout) == ["timed out", "finished"], ran.stderr
