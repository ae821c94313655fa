"""The sandbox around every process in which the grader runs a submission's code.

Threat model. A submission is hostile code: a task cell runs with the student's choice
of Python, in a process the grader starts. It may try to
- read the answers: the course's notebooks and engine, the grader's scratch copy of the
  reference engine, another task's folder;
- write the grader: its judging code, the course's files, results.json (now, or later
from a detached process that outlives the grader);
- attack the grader's process (signals, ptrace), leave processes behind, or exhaust the
machine (memory, processes, disk, CPU);
- reach the network.

What stops it, with bubblewrap (`bwrap`, Debian's package `bubblewrap`) and the standard
library's `resource` limits:
- files: the whole file system is read-only; the course's folder, the grader's scratch
folder and the results folder are replaced by empty ones, so that the task sees only
the Python it runs on and its own folder, read-only, which holds its spec and the
engine assembled for it; it writes only into /tmp, /var/tmp and /dev/shm, each a fresh
tmpfs of at most 256 MiB, and reports its results through a file descriptor the grader
opened (the grader reads nothing by a path the task could have replaced);
- processes: a new PID namespace whose first process dies with the grader's child, so
that every process the task starts, detached or not, is killed when the task ends; the
grader's processes are not visible from inside; no capabilities; a new session (no
terminal);
- network: a new network namespace with no interface but a loopback that is down;
- limits: address space, CPU seconds, file size, number of processes, no core files.

The grader also loads all of its judging code before any task runs, judges in its own
process from what the task returned (never from what the task says about itself), checks
at the end that no course file changed, and writes results.json last, atomically. In
detail:
- oracles: the packages that compute what the tasks ask for (PyTorch, the witness of
  the optimiser, pooling and second-order tasks) are withheld from the task's Python
  (an empty folder where they were), and the task's engine is the reference with the
  student's definitions in the place of the task's own;
- facts: what a verdict depends on is computed by the grader: a graph's structure from
  the program that built it (the run reports only the order of its nodes), the rules a
  title states from the submitted source (autograder/rules.py), exactness where a rule
  could be approximated (T4's operands near 1e12); the cases run in an order drawn
  from the student's seed, so that a submission cannot answer by position;
- what stays observed inside the task's process: behaviour that only exists there (the
  flags of a tensor made under no_grad, the ops a counter saw) is read by the runner's
  code, which a determined submission could patch; those verdicts are checked against
  values it cannot know in advance (random inputs of its own seed, in its own order).

Where bubblewrap cannot run (not installed, or user namespaces are forbidden), `Sandbox`
falls back to the limits and a process group alone and says which protections are off
(`Sandbox.off`). A grader running as root (Gradescope, CI) refuses that fallback unless
told otherwise: there, an unprotected grade cannot be defended."""

import functools
import os
from pathlib import Path
import resource
import shutil
import subprocess
import sys
import time


MEMORY_BYTES = 6 * 2**30  # address space of one task process (PyTorch maps much)
FILE_BYTES = 64 * 2**20  # the largest file a task may write
SCRATCH_BYTES = 256 * 2**20  # each of the task's /tmp, /var/tmp and /dev/shm
COVER_BYTES = 2**20  # the empty, read-only folders over what a task may not see
SPARE_PROCESSES = 256  # processes a task may add to its user's count
PROTECTIONS = {
    "files": "the course's files, the grader's scratch folder and other tasks' folders "
    "are hidden, and everything but the task's own folder is read-only",
    "processes": "every process a task starts ends with it; the grader cannot be "
    "signalled",
    "network": "no network",
}


@functools.cache
def bubblewrap():
    """The path of a bwrap that can make the namespaces we need here, or None."""
    found = shutil.which("bwrap")
    if found is None:
        return None
    probe = [
        found,
        "--ro-bind",
        "/",
        "/",
        "--unshare-all",
        "--die-with-parent",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "true",
    ]
    try:
        ran = subprocess.run(probe, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return found if ran.returncode == 0 else None


def processes_of_this_user():
    """How many processes the current real user has now (Linux), or 0 if unknown."""
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.stat().st_uid == uid:
                count += 1
        except OSError:
            continue
    return count


def pids_cgroup(limit):
    """A new cgroup (v1 or v2) that holds at most `limit` processes, or None where this
    machine lets us make none (not root, or no writable pids controller)."""
    name = f"autodiff-grader-{os.getpid()}-{next(_numbers)}"
    for base in (
        Path("/sys/fs/cgroup/pids"),
        Path("/sys/fs/cgroup/unified"),
        Path("/sys/fs/cgroup"),
    ):
        group = base / name
        try:
            group.mkdir()
        except OSError:
            continue
        try:
            (group / "pids.max").write_text(str(limit))
            return group
        except OSError:
            group.rmdir()
    return None


_numbers = __import__("itertools").count()


def limited(cpu_seconds, processes, group=None):
    """A function for subprocess's preexec_fn that sets the task's resource limits (and
    puts it into the pids cgroup `group`, where there is one)."""

    def apply():
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))
        for limit, value in (
            (resource.RLIMIT_AS, MEMORY_BYTES),
            (resource.RLIMIT_CPU, int(cpu_seconds)),
            (resource.RLIMIT_FSIZE, FILE_BYTES),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(limit, (value, value))
        if processes:
            resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))

    return apply


class Sandbox:
    """How the grader starts a task's process: `command` wraps its argv, `start` runs
    it."""

    def __init__(self, hidden, allow_unprotected=None, withheld=()):
        """`hidden`: the folders no task may see (the course, the grader's scratch, the
        results folder); `withheld`: folders of the Python a task runs on that it must
        not use either (the packages of the grader's oracles, PyTorch). A grader running
        as root refuses to run unprotected unless `allow_unprotected` is True."""
        self.hidden = [Path(p).resolve() for p in hidden if p is not None]
        self.withheld = [Path(p).resolve() for p in withheld if p is not None]
        self.bwrap = bubblewrap()
        if allow_unprotected is None:
            allow_unprotected = os.geteuid() != 0
        if self.bwrap is None and not allow_unprotected:
            raise RuntimeError(
                "the grader runs as root but bubblewrap cannot run here, so task code "
                "could read the answers and write the grader: install it (apt-get "
                "install bubblewrap) and allow user namespaces, or pass "
                "--unsafe-no-sandbox"
            )

    @property
    def off(self):
        """The protections that are off here, as sentences (none with bubblewrap and a
        pids cgroup)."""
        off = (
            []
            if self.bwrap
            else [f"{name}: off (no bubblewrap)" for name in PROTECTIONS]
        )
        if os.geteuid() == 0 and not self.counts_processes:
            off.append(
                "process count: off (no pids cgroup, and root is exempt from "
                "RLIMIT_NPROC)"
            )
        return off

    @functools.cached_property
    def counts_processes(self):
        """Whether a pids cgroup can be made here."""
        group = pids_cgroup(1)
        if group is None:
            return False
        group.rmdir()
        return True

    def describe(self):
        """One line for the grade's output: which sandbox held the tasks."""
        if not self.off:
            return "sandbox: bubblewrap (" + "; ".join(PROTECTIONS.values()) + ")"
        if self.bwrap:
            return "sandbox: bubblewrap, but " + "; ".join(self.off)
        return (
            "sandbox: OFF, resource limits and a process group only ("
            + "; ".join(self.off)
            + ")"
        )

    def command(self, argv, workdir, visible=()):
        """argv wrapped so that it runs in the sandbox, in `workdir` (writable);
        `visible`: further folders it may read."""
        if not self.bwrap:
            return list(argv)
        workdir = Path(workdir).resolve()
        wrapped = [
            self.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-all",
            "--uid",
            "65534",
            "--gid",
            "65534",
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ]
        for scratch in ("/tmp", "/var/tmp", "/dev/shm"):  # writable, and bounded
            wrapped += ["--size", str(SCRATCH_BYTES), "--tmpfs", scratch]
        home = Path.home().resolve()
        # only the outermost of nested folders: a tmpfs over /a hides /a/b already, and
        # /a/b would then be no mount point to make read-only
        covers = []
        for folder in sorted(
            {f for f in [*self.hidden, home] if f.exists() and f != Path("/")},
            key=lambda p: len(p.parts),
        ):
            if not any(folder.is_relative_to(outer) for outer in covers):
                covers.append(folder)
        for folder in covers:
            wrapped += ["--size", str(COVER_BYTES), "--tmpfs", str(folder)]
        # what the task needs, put back where a hidden folder covered it: the Python it
        # runs on (a virtual environment may live in the course's folder, Python in
        # $HOME)
        needed = {
            Path(sys.prefix).resolve(),
            Path(sys.base_prefix).resolve(),
            Path(sys.executable).resolve().parent.parent,
            *map(Path, visible),
        }
        for folder in sorted(needed, key=lambda p: len(p.parts)):
            covered = any(
                folder.is_relative_to(h) for h in [*self.hidden, home, Path("/tmp")]
            )
            if covered and folder.exists():
                wrapped += ["--ro-bind", str(folder), str(folder)]
        # the task's folder (its spec and engine) read-only: it writes only into the
        # bounded /tmp, its home, and reports through a descriptor the grader holds
        wrapped += ["--ro-bind", str(workdir), str(workdir)]
        withheld = [f for f in self.withheld if f.exists()]
        for folder in withheld:  # over the Python put back above
            wrapped += ["--size", str(COVER_BYTES), "--tmpfs", str(folder)]
        for folder in covers + withheld:  # empty, and read-only too
            wrapped += ["--remount-ro", str(folder)]
        wrapped += ["--chdir", "/tmp", "--"]
        return wrapped + list(argv)

    def start(
        self, argv, workdir, stdout, environment, cpu_seconds, visible=(), pass_fds=()
    ):
        """Start argv in the sandbox, with the descriptors `pass_fds` open in it; the
        caller waits for it and calls `end`."""
        group = pids_cgroup(SPARE_PROCESSES)
        # without a cgroup, RLIMIT_NPROC (which root, and a user namespace mapped to
        # root, is exempt from)
        spare = 0 if group else processes_of_this_user() + SPARE_PROCESSES
        process = subprocess.Popen(
            self.command(argv, workdir, visible),
            cwd=workdir,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=environment,
            start_new_session=True,
            pass_fds=pass_fds,
            preexec_fn=limited(cpu_seconds, spare, group),
        )
        process.cgroup = group
        return process

    @staticmethod
    def end(process):
        """Kill what is left of a task's process: its group, every process of its
        cgroup, and (with bubblewrap) every process of its PID namespace, which dies
        with it."""
        try:
            os.killpg(process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        group = getattr(process, "cgroup", None)
        if group is not None:
            for _ in range(50):
                members = (group / "cgroup.procs").read_text().split()
                if not members:
                    break
                for pid in members:
                    try:
                        os.kill(int(pid), 9)
                    except ProcessLookupError:
                        pass
                time.sleep(0.05)
            try:
                group.rmdir()
            except OSError:
                pass
