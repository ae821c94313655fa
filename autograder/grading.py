"""Grading a submission: every task in isolation on the course's reference engine, then
the student's whole engine, each task in a process of its own with a time limit, every
verdict from the course's oracles in this process.

The submission is a folder of notebooks (a student edition, or the notebooks alone).
Nothing else in it is used: not its engine/, tests, conftest.py or tools. The student's
definitions of a task are taken from the task's notebook and put into a fresh copy of
the reference engine (assembled from the course's notebooks by the course's exporter),
so a task never fails because another is unfinished. The integration check exports the
student's own notebooks, with the course's exporter, and runs every task's cases on that
engine."""

import ast
from concurrent.futures import ThreadPoolExecutor
import hashlib
import hmac
import json
import os
from pathlib import Path
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from autograder import checks, notebooks, tasks
from autograder.rules import rule_verdicts
from autograder.runner import decoded
from autograder.sandbox import FILE_BYTES, Sandbox
from course import export

# all of the judging code is loaded before any task runs
import course.catalogue  # noqa: F401
import course.exercises  # noqa: F401
import course.museum  # noqa: F401
import course.verification  # noqa: F401
import course.witness  # noqa: F401


ROOT = Path(__file__).resolve().parent.parent

INTEGRATION_POINTS = 20
DEFAULT_TIMEOUT = 60.0


def student_seed(student, secret=None):
    """A seed from a student's identity (and the submission's, on Gradescope): the
    random cases differ from student to student. With the instructor's `secret` (an
    HMAC key no student has), nobody can compute a submission's cases before it is
    graded; without one, anybody who has the edition can."""
    if secret is None:
        return int(hashlib.sha256(student.encode("utf-8")).hexdigest()[:8], 16)
    digest = hmac.new(secret.encode("utf-8"), student.encode("utf-8"), "sha256")
    return int(digest.hexdigest()[:8], 16)


SECRET_FILE = ROOT / "autograder" / "secret.txt"  # never in git, nor in the edition


def grading_secret():
    """The instructor's secret: $AUTOGRADER_SECRET, else autograder/secret.txt (`make
    gradescope` writes a new one into each autograder it builds), else None."""
    secret = os.environ.get("AUTOGRADER_SECRET") or (
        SECRET_FILE.read_text(encoding="utf-8").strip() if SECRET_FILE.exists() else ""
    )
    return secret or None


def identity(submission):
    """Who submitted, and which submission: from Gradescope's
    submission_metadata.json beside the upload (never one inside it, which the student
    wrote), else the folder's name."""
    meta = submission.parent / "submission_metadata.json"
    if meta.is_file() and not meta.is_symlink():
        data = json.loads(meta.read_text(encoding="utf-8"))
        users = data.get("users", [])
        if users:
            who = ",".join(
                str(u.get("sid") or u.get("email") or u.get("name")) for u in users
            )
            return who + (f" (submission {data['id']})" if data.get("id") else "")
    return submission.resolve().name


def upload_file(path, upload, limit=64 * 2**20):
    """Whether `path` is a file the student uploaded: a regular file (no link, no pipe,
    no device) inside the folder `upload`, of at most `limit` bytes. The grader reads
    nothing else of an upload: a link to the course's own notebooks is not a
    submission."""
    try:
        status = path.lstat()
    except OSError:
        return False
    return (
        stat.S_ISREG(status.st_mode)
        and status.st_size <= limit
        and path.resolve().is_relative_to(upload.resolve())
    )


def notebook_folder(submission):
    """Where a submission's notebooks are: the folder, at any depth of the upload, that
    holds the most of the book's chapter notebooks (the shallowest of equals; hidden
    folders, __MACOSX and checkpoints aside). A student edition's is its book/
    folder."""
    names = {p.name for p in (ROOT / "book").glob("[0-9][0-9]_*.ipynb")}
    best, most = submission, 0
    for folder, subfolders, files in os.walk(submission):
        subfolders[:] = sorted(
            d for d in subfolders if not d.startswith((".", "_")) and d != "__MACOSX"
        )
        found = sum(
            upload_file(Path(folder) / name, submission) for name in names & set(files)
        )
        if found > most:
            best, most = Path(folder), found
    return best


def reference_cells():
    """The course's exported cells, as the exporter lists them."""
    return list(export.exported_cells(ROOT / "book"))


def engine_names(cells):
    """Every top-level name the reference engine defines."""
    return {name for cell in cells for name in export.defined_names(cell[3])}


def home(task, cells):
    """(position in `cells`, dotted module) of the reference cell that defines the task,
    or (None, None) for a task written in a cell that is not part of the engine."""
    for k, (module, notebook, _, code, _) in enumerate(cells):
        if notebook == task.notebook and notebooks.owner(
            task.names[0]
        ) in export.defined_names(code):
            return k, module
    return None, None


def write_engine(folder, modules):
    """Write the exported packages, engine and course (modules from the exporter, each
    package's __init__.py from the course), into `folder`."""
    for package in export.PACKAGES:
        (folder / package).mkdir(parents=True)
        shutil.copy(ROOT / package / "__init__.py", folder / package / "__init__.py")
    export.write_modules(folder, modules)
    return folder


def modules_or_error(cells):
    """The exporter's modules for `cells`, or its complaint as a LookupError."""
    try:
        return export.modules_from(cells)
    except SystemExit as complaint:
        raise LookupError(
            f"the course's exporter refused the code: {complaint}"
        ) from None


class Submission:
    """A student's notebooks, as the grader reads them."""

    def __init__(self, folder):
        self.upload = Path(folder)
        self.folder = notebook_folder(self.upload)

    def notebook(self, name):
        """The student's notebook `name` as a dict, or None if the upload has no such
        file (a link, or something that is no regular file, counts as none)."""
        path = self.folder / name
        if not upload_file(path, self.upload):
            return None
        try:
            return notebooks.read_notebook(path)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None

    def refusal(self):
        """A sentence naming the chapter notebooks of the upload that are not files of
        its own (links, pipes, files too large), which are graded as missing; or ''."""
        names = sorted(
            p.name
            for p in self.folder.glob("[0-9][0-9]_*.ipynb")
            if not upload_file(p, self.upload)
        )
        if not names:
            return ""
        return (
            f"Not graded, as if missing: {', '.join(names)} (a link, or not a regular "
            "file of the upload: upload the notebooks themselves)."
        )

    def source_of(self, task):
        """The source of the submission's cell that defines `task`, or None."""
        try:
            return self.task_cell(task)[1]
        except LookupError:
            return None

    def task_cell(self, task):
        """(index, source, origin) of the cell that defines the task; LookupError if
        none."""
        notebook = self.notebook(task.notebook)
        if notebook is None:
            raise LookupError(f"{task.notebook} is not in the submission")
        found = notebooks.find_cell(notebook, task.names)
        broken = (
            notebooks.unparsable_cell(notebook, task.names) if found is None else None
        )
        if broken is not None:
            index, error = broken
            raise LookupError(
                f"book/{task.notebook}, cell {index} is not valid Python ({error.msg}, "
                f"line {error.lineno}), so its {notebooks.owner(task.names[0])} "
                "cannot be read"
            )
        if found is None:
            raise LookupError(
                f"no cell of {task.notebook} defines {notebooks.owner(task.names[0])}"
            )
        index, source = found
        return index, source, f"book/{task.notebook}, cell {index}"

    def book(self, folder):
        """The student's notebooks in `folder`, a missing one replaced by the course's
        stubbed notebook (as the student edition has it)."""
        folder.mkdir(parents=True)
        for path in sorted((ROOT / "book").glob("[0-9][0-9]_*.ipynb")):
            theirs = self.notebook(path.name)
            if theirs is None:
                theirs = notebooks.student_notebook(
                    notebooks.read_notebook(path), tasks.TASKS
                )
            (folder / path.name).write_text(json.dumps(theirs), encoding="utf-8")
        return folder


def exported_from(notebook, cells):
    """The modules that a notebook's cells export into ('engine.core',
    'course.catalogue', ...): a task cell of that notebook sees their names, as the
    chapter's own cells do."""
    return list(dict.fromkeys(module for module, name, *_ in cells if name == notebook))


def preamble(task):
    """What the task's cell may use of its chapter: the course's own definitions and
    imports from the cells before the task's (never the student's)."""
    notebook = notebooks.read_notebook(ROOT / "book" / task.notebook)
    index, _ = notebooks.find_cell(notebook, task.names)
    return notebooks.preamble(notebook, index)


def isolated(task, submission, cells, known, reference, workdir):
    """The spec of a child run of `task`: the student's definitions in the reference
    engine."""
    index, source, origin = submission.task_cell(task)
    position, module = home(task, cells)
    spec = {"task": task.id}
    if position is None:  # a task cell outside the engine
        cell = notebooks.definitions_only(source, task.names)
        if cell is None:
            raise LookupError(f"{origin} is not valid Python")
        spec.update(
            cell=cell,
            cell_origin=origin,
            engine=str(reference),
            modules=exported_from(task.notebook, cells),
            preamble=preamble(task),
        )
        return spec
    kind, notebook, cell_index, code, replaces = cells[position]
    try:
        mixed = notebooks.substitute(code, source, task.names, origin, known)
    except SyntaxError as error:
        raise LookupError(f"{origin} is not valid Python: {error}") from None
    changed = (
        cells[:position]
        + [(kind, notebook, cell_index, mixed, replaces)]
        + cells[position + 1 :]
    )
    spec.update(
        module=module, engine=str(write_engine(workdir, modules_or_error(changed)))
    )
    return spec


def whole_engine(submission, folder):
    """The student's whole engine, exported from all of their notebooks by the course's
    exporter, in `folder`; a LookupError if the exporter refuses their cells."""
    book = submission.book(folder / "book")
    return write_engine(
        folder / "package", modules_or_error(list(export.exported_cells(book)))
    )


def whole(task, submission, cells, engine_dir):
    """The spec of a child run of `task` on the student's whole engine."""
    spec = {"task": task.id, "engine": str(engine_dir)}
    position, module = home(task, cells)
    if position is None:
        index, source, origin = submission.task_cell(task)
        spec.update(
            cell=notebooks.definitions_only(source, task.names) or "",
            cell_origin=origin,
            modules=exported_from(task.notebook, cells),
            preamble=preamble(task),
        )
    else:
        spec["module"] = module
    return spec


def write_kit(folder):
    """The grader's code that a task's process runs (the runner, the task table and the
    cases), copied into `folder`: the only part of the course's folder a task can
    see."""
    target = folder / "autograder"
    shutil.copytree(
        ROOT / "autograder",
        target,
        ignore=shutil.ignore_patterns("__pycache__", *KEPT_FROM_TASKS),
    )
    for module in (target / "checks").glob("*.py"):
        module.write_text(without_judges(module.read_text(encoding="utf-8")))
    # the task's Python runs isolated (-I: no script folder, no environment on its
    # path), so the launcher puts the kit first: `autograder` is the kit's copy
    (folder / LAUNCHER).write_text(
        "import sys\n\nsys.path.insert(0, sys.argv[1])\n"
        "from autograder.runner import main  # noqa: E402\n\nmain(sys.argv[2])\n",
        encoding="utf-8",
    )
    return folder


LAUNCHER = "run_task.py"


class _JudgeRemover(ast.NodeTransformer):
    """Case(label, run, judge) -> Case(label, run, None)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if getattr(node.func, "id", None) == "Case":
            if len(node.args) >= 3:
                node.args[2] = ast.Constant(None)
            for keyword in node.keywords:
                if keyword.arg == "judge":
                    keyword.value = ast.Constant(None)
        return node


def without_judges(source):
    """A checks module as the kit holds it: every case made without its judge, so that
    a task's process, which makes its cases to run them, holds no judge to replay (the
    judges run in the grader's process only)."""
    tree = _JudgeRemover().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


KEPT_FROM_TASKS = ("grading.py", "sandbox.py", "notebooks.py", "secret.txt")


ORACLES = ("torch", "functorch", "torchgen", "jax", "autograd")


def oracle_packages():
    """The folders of the installed packages that compute what the tasks ask for
    (PyTorch first: the grader's witness): withheld from every task's process, which
    needs only NumPy and the engine."""
    import importlib.util

    found = []
    for name in ORACLES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found.extend(spec.submodule_search_locations)
    return found


def task_environment(workdir, sandboxed=True):
    """The environment of a task's process: nothing of the grader's but the locale, one
    BLAS thread, and a home it may write: the sandbox's /tmp (its own folder, where
    no sandbox runs)."""
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "PATH")}
    return {
        **keep,
        "HOME": "/tmp" if sandboxed else str(workdir),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def run_child(spec, workdir, timeout, sandbox, kit):
    """Run one task's cases in a sandboxed child process: {label: result} and the tasks
    it called. What it wrote is read, once every process it started is gone, through
    the descriptors opened here before it started (never by a path the task could have
    replaced with a link or a pipe), and no more than its file size limit."""
    started = time.perf_counter()
    timed_out = False
    start = [str(kit / LAUNCHER), str(kit), str(workdir / "spec.json")]
    visible = [kit, Path(spec["engine"])]
    with (
        open(workdir / "results.jsonl", "w+b") as out,
        open(workdir / "output.txt", "w+b") as output,
    ):
        spec = dict(spec, out_fd=out.fileno())
        (workdir / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        child = sandbox.start(
            [sys.executable, "-I", *start],
            workdir,
            output,
            task_environment(workdir, sandbox.bwrap is not None),
            cpu_seconds=timeout + 5,
            visible=visible,
            pass_fds=(out.fileno(),),
        )
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        sandbox.end(child)
        out.seek(0)
        written = out.read(FILE_BYTES).decode("utf-8", "replace")
        output.seek(max(0, os.fstat(output.fileno()).st_size - 2000))
        said = output.read(2000).decode("utf-8", "replace")
    results, needs, running = {}, [], None
    for line in written.splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # not JSON, or nested beyond reason
            continue
        if not isinstance(record, dict) or not isinstance(record.get("label"), str):
            continue
        if "needs" in record:
            needs = (
                [n for n in record["needs"] if n in tasks.BY_ID]
                if isinstance(record["needs"], list)
                else []
            )
        elif record.get("started"):
            running = record["label"]
        else:
            results[record["label"]] = record
            running = None
    return {
        "results": results,
        "needs": needs,
        "running": running,
        "timed_out": timed_out,
        "exit": child.returncode,
        "output": said,
        "seconds": time.perf_counter() - started,
    }


def ended(run, label):
    """Why the case `label` has no result although the task did not time out: its
    process exited (os._exit, a crash, a signal), during that case or an earlier one."""
    printed = run["output"][-300:].strip()
    why = f"the task's process exited with code {run['exit']} without a result" + (
        f"; it printed: {printed}" if printed else " (it printed nothing)"
    )
    if run["running"] in (None, label):
        return why
    return f"not run: {why}, during the case '{run['running']}'"


def judged(task, seed, run, timeout):
    """[(label, passed, message)] for every case of `task`, from a child's results."""
    verdicts = []
    for case in checks.cases(task, seed):
        record = run["results"].get(case.label)
        if record is None:
            if run["timed_out"] and run["running"] == case.label:
                message = f"timed out: the task ran out of its {timeout:g} s here"
            elif run["timed_out"]:
                message = "not run: the task ran out of time on an earlier case"
            else:
                message = ended(run, case.label)
            verdicts.append((case.label, False, message))
        elif "error" in record:
            verdicts.append((case.label, False, record["error"]))
        else:
            try:
                problem = case.judge(decoded(record["value"]))
            except Exception as error:  # what the run returned cannot be judged
                problem = (
                    f"the result could not be judged: {type(error).__name__}: {error}"
                )
            verdicts.append((case.label, problem is None, problem or "correct"))
    return verdicts


def grade(
    submission,
    seed=None,
    only=None,
    timeout=DEFAULT_TIMEOUT,
    workers=2,
    integration=True,
    isolation=True,
    hidden=(),
    allow_unprotected=None,
):
    """Grade the submission folder: a report dict (see results_json). `hidden`: further
    folders no task may see (where results.json goes); `allow_unprotected`: grade even
    where the sandbox cannot run (autograder.sandbox; by default only when not root)."""
    before = course_fingerprint()
    student = identity(Path(submission))
    submission = Submission(Path(submission))
    secret = grading_secret()
    seed = student_seed(student, secret) if seed is None else seed
    chosen = [t for t in tasks.TASKS if only is None or t.id in only]
    cells = reference_cells()
    known = engine_names(cells)
    task_modules = {t.id: home(t, cells)[1] for t in tasks.TASKS if home(t, cells)[1]}
    scratch = Path(tempfile.mkdtemp(prefix="grade-"))
    sandbox = Sandbox(
        [ROOT, scratch, *hidden],
        allow_unprotected=allow_unprotected,
        withheld=oracle_packages(),
    )
    kit = write_kit(scratch / "kit")

    reference = write_engine(scratch / "reference", modules_or_error(cells))
    try:
        student_engine, refused = whole_engine(submission, scratch / "whole"), None
    except LookupError as error:
        student_engine, refused = None, str(error)

    def prepared(kind, task):
        """(task, workdir, spec) of one child run, or (task, None, {"error": ...})."""
        workdir = scratch / kind / task.id
        workdir.mkdir(parents=True)
        try:
            if kind == "isolation":
                spec = isolated(task, submission, cells, known, reference, workdir)
            elif refused:
                raise LookupError(f"your notebooks could not be exported: {refused}")
            else:
                spec = whole(task, submission, cells, student_engine)
        except LookupError as error:
            return task, None, {"error": str(error)}
        spec.update(seed=seed, task_modules=task_modules)
        return task, workdir, spec

    # the engines are assembled here, one after the other (ast.parse is not safe to call
    # from several threads at once); only the child processes run side by side
    jobs = [
        (kind, *prepared(kind, t))
        for kind, t in [("isolation", t) for t in chosen if isolation]
        + [("integration", t) for t in chosen if integration]
    ]
    runs = {"isolation": {}, "integration": {}}

    def finished(job):
        kind, task, workdir, spec = job
        return (
            spec if workdir is None else run_child(spec, workdir, timeout, sandbox, kit)
        )

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for (kind, task, _, _), run in zip(jobs, pool.map(finished, jobs)):
            runs[kind][task.id] = run
    report = {
        "student": student,
        "seed": seed,
        "tasks": [],
        "integration": None,
        "edition": edition_note(submission),
        "upload": submission.refusal(),
        "sandbox": sandbox.describe(),
        "cases": ""
        if secret
        else "cases: predictable from the student's identity (no instructor secret: "
        "set AUTOGRADER_SECRET or write autograder/secret.txt)",
        "tampered": changed_files(before),
    }
    needs = {t.id: set() for t in tasks.TASKS}
    for task in chosen:
        run = runs["isolation"].get(task.id)
        if run is None:
            continue
        if "error" in run:
            verdicts = [
                (case_label, False, run["error"])
                for case_label in [c.label for c in _cases(task, seed)]
            ]
        else:
            verdicts = judged(task, seed, run, timeout)
            for other in run["needs"]:
                needs[task.id].add(other)
        verdicts += rule_verdicts(task, submission.source_of(task), verdicts)
        report["tasks"].append({"task": task, "verdicts": verdicts})
    for entry in report["tasks"]:
        entry["blocks"] = sorted(
            (t for t, wanted in needs.items() if entry["task"].id in wanted),
            key=lambda t: int(t[1:]),
        )
    if integration:
        verdicts = []
        for task in chosen:
            run = runs["integration"][task.id]
            if "error" in run:
                verdicts += [
                    (f"{task.id}: {label}", False, run["error"])
                    for label in [c.label for c in _cases(task, seed)]
                ]
            else:
                verdicts += [
                    (f"{task.id}: {label}", ok, message)
                    for label, ok, message in judged(task, seed, run, timeout)
                ]
        report["integration"] = verdicts
    shutil.rmtree(scratch, ignore_errors=True)
    return report


def _cases(task, seed):
    return checks.cases(task, seed)


FINGERPRINTED = (
    "autograder",
    "course",
    "engine",
    "book",
    "tools",
    "pyproject.toml",
    "requirements.txt",
)  # what a grade depends on
SKIPPED = {"__pycache__", ".ipynb_checkpoints"}


def edition_note(submission):
    """A sentence if the submission's notebooks come from another edition of the graded
    track than the course's (or say none), else ''."""
    current = notebooks.edition_stamp(ROOT / "book")
    found = set()
    for task in tasks.TASKS:
        notebook = submission.notebook(task.notebook)
        if notebook is not None:
            found.add(notebook.get("metadata", {}).get(notebooks.STAMP))
    if found <= {current}:
        return ""
    named = ", ".join(sorted(str(s) for s in found - {current}))
    return (
        f"Warning: these notebooks come from another edition of the graded track "
        f"({named}); they were graded against the current one ({current}). If a task "
        "changed since, take the current student edition and move your code into it."
    )


def course_fingerprint(root=ROOT):
    """{file: sha256} for the course's files that a grade depends on (the grader's own
    code, the reference notebooks, the exporter)."""
    found = {}
    for top in FINGERPRINTED:
        if (root / top).is_file():
            found[top] = hashlib.sha256((root / top).read_bytes()).hexdigest()
        for folder, subfolders, files in os.walk(root / top):
            subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED)
            for name in files:
                path = Path(folder, name)
                found[str(path.relative_to(root))] = hashlib.sha256(
                    path.read_bytes()
                ).hexdigest()
    return found


def changed_files(before, root=ROOT):
    """The course's files that were added, removed or changed since `before`."""
    after = course_fingerprint(root)
    return sorted(
        name for name in set(before) | set(after) if before.get(name) != after.get(name)
    )


def points(verdicts, worth):
    """Partial credit: `worth` shared equally among the cases, rounded to 0.01."""
    if not verdicts:
        return 0.0
    return round(worth * sum(ok for _, ok, _ in verdicts) / len(verdicts), 2)


def task_output(entry):
    """The text a student reads for one task."""
    task, verdicts = entry["task"], entry["verdicts"]
    passed = sum(ok for _, ok, _ in verdicts)
    lines = [
        f"{task.id} ({task.notebook}, {' and '.join(task.names)}): {passed} of "
        f"{len(verdicts)} cases correct"
    ]
    messages = {message for ok, message in ((ok, m) for _, ok, m in verdicts) if not ok}
    if passed == 0 and len(messages) == 1:  # one cause: say it once
        lines.append(f"  ✗ every case: {messages.pop()}")
    else:
        lines += [
            f"  {'✓' if ok else '✗'} {label}" + ("" if ok else f": {message}")
            for label, ok, message in verdicts
        ]
    if passed < len(verdicts) and entry["blocks"]:
        lines.append(
            f"  Until it is right, your own engine also fails the checks of "
            f"{', '.join(entry['blocks'])}, which call it (each is graded here with "
            "the course's version)."
        )
    return "\n".join(lines)


def results_json(report):
    """Gradescope's results.json for a report: a score and one test per task."""
    tests = []
    for entry in report["tasks"]:
        task = entry["task"]
        tests.append(
            {
                "name": f"{task.id}: {task.title}",
                "number": task.id,
                "score": points(entry["verdicts"], task.points),
                "max_score": task.points,
                "output": task_output(entry),
            }
        )
    if report["integration"] is not None:
        verdicts = report["integration"]
        failed = [
            f"  ✗ {label}: {message}" for label, ok, message in verdicts if not ok
        ]
        passed = sum(ok for _, ok, _ in verdicts)
        tests.append(
            {
                "name": "Integration: your whole engine, exported from your notebooks",
                "score": points(verdicts, INTEGRATION_POINTS),
                "max_score": INTEGRATION_POINTS,
                "output": "\n".join(
                    [f"{passed} of {len(verdicts)} cases correct on your own engine"]
                    + failed[:40]
                ),
            }
        )
    worth = sum(t["max_score"] for t in tests)
    if report.get("tampered"):
        changed = ", ".join(report["tampered"][:10])
        return {
            "score": 0,
            "tests": [],
            "output": (
                "Not graded: the course's files changed while this submission ran "
                f"({changed}). The grade cannot be trusted; the instructor has to look "
                "at this submission."
            ),
        }
    score = round(sum(t["score"] for t in tests), 2)
    return {
        "score": score,
        "tests": tests,
        "output": "".join(
            f"{line}\n"
            for line in (
                report.get("edition"),
                report.get("upload"),
                report.get("sandbox"),
                report.get("cases"),
            )
            if line
        )
        + f"score: {score:g} / {worth:g} points (cases seeded for "
        f"{report['student']}; seed {report['seed']})",
    }
