"""The grader's child process: run one task's cases on one engine, write what they
returned.

    python run_task.py KIT SPEC.json      (the launcher the grader writes into its kit)

SPEC names the engine folder to import, the task, the seed, the descriptor to write to
(a file the grader opened: one JSON line per case, flushed at once, so that a timeout
keeps what finished) and, for a task
written in a notebook cell that is not part of the engine, that cell's code. Nothing
here judges: the grader reads the lines and judges them in its own process."""

import ast
import importlib
import importlib.util
import json
import os
from pathlib import Path
import pkgutil
import signal
import sys
import traceback
from types import SimpleNamespace


def encoded(value):
    """`value` as JSON-able data: arrays become {"array": nested lists, "dtype":
    kind}."""
    import numpy as np

    if isinstance(value, np.ndarray):
        kind = value.dtype.kind
        if kind not in "biuf":
            raise TypeError(f"an array of dtype {value.dtype}, not numbers")
        return {
            "array": value.astype(float if kind == "f" else value.dtype).tolist(),
            "dtype": kind,
            "shape": list(value.shape),
        }
    if isinstance(value, np.generic):
        return encoded(np.asarray(value))
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [encoded(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encoded(v) for k, v in value.items()}
    raise TypeError(f"a {type(value).__name__}, not numbers or arrays")


def decoded(data):
    """The inverse of `encoded` (arrays come back as float, int or bool ndarrays)."""
    import numpy as np

    if isinstance(data, dict) and set(data) == {"array", "dtype", "shape"}:
        kind = {"f": float, "b": bool}.get(data["dtype"], np.int64)
        return np.array(data["array"], dtype=kind).reshape(data["shape"])
    if isinstance(data, list):
        return [decoded(v) for v in data]
    if isinstance(data, dict):
        return {k: decoded(v) for k, v in data.items()}
    return data


def where_in_student_code(error, regions):
    """The innermost frame of `error` that lies in the student's code, as 'notebook,
    cell: the line', or None. `regions` maps a file name to [(first line, last line,
    origin)]."""
    found = None
    for frame in traceback.extract_tb(error.__traceback__):
        for first, last, origin in regions.get(frame.filename, ()):
            if first <= frame.lineno <= last:
                found = f"{origin}, in {frame.name}: `{(frame.line or '').strip()}`"
    return found


def said(error, regions):
    """An exception in student code as one report line: the book's checkers' words
    (course.exercises.said, with its hints) and where in the student's code it was."""
    from course.exercises import said as in_words

    if isinstance(error, NotImplementedError):
        return f"not implemented yet ({error})"
    where = where_in_student_code(error, regions)
    return in_words(error) + (f" (at {where})" if where else "")


def student_regions(engine_dir):
    """{file: [(first, last, origin)]}: the student's code in the engine the grader
    built, as the marker comments of autograder.notebooks.substitute frame it."""
    regions = {}
    for path in sorted(Path(engine_dir).glob("*/*.py")):
        start = origin = None
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("# >>> student code: "):
                start, origin = number, line[len("# >>> student code: ") :]
            elif line.startswith("# <<< end of student code") and start:
                regions.setdefault(str(path), []).append((start, number, origin))
                start = None
    return regions


def resolve(task, spec):
    """The task's definitions as a namespace, from the engine or from the task's
    cell."""
    found = {}
    if spec.get("cell") is not None:
        import linecache

        namespace = {"__name__": "student_cell"}
        for module in ["engine"] + spec.get("modules", []):
            space = vars(importlib.import_module(module))
            public = space.get("__all__") or [k for k in space if not k.startswith("_")]
            namespace.update({k: space[k] for k in public if k in space})
        for node in ast.parse(
            spec["preamble"]
        ).body:  # the chapter's earlier definitions
            try:
                exec(
                    compile(ast.Module([node], []), "<earlier cells>", "exec"),
                    namespace,
                )
            except NameError:  # it needs something the chapter computed
                pass
        linecache.cache[spec["cell_origin"]] = (
            len(spec["cell"]),
            None,
            spec["cell"].splitlines(True),
            spec["cell_origin"],
        )
        exec(compile(spec["cell"], spec["cell_origin"], "exec"), namespace)
        source = namespace
    else:
        module = importlib.import_module(spec["module"])
        source = vars(module)
    for name in task.names:
        top = name.split(".")[0]
        if top not in source:
            raise LookupError(f"{top} is not defined")
    found.update((k, v) for k, v in source.items() if not k.startswith("__"))
    return SimpleNamespace(**found)


def load_packages(folder, names=("engine", "course")):
    """Import the packages `names` from `folder` (the engine the grader assembled), in
    the place of any installed ones; their modules are then found in that folder too."""
    for name in names:
        where = Path(folder, name)
        spec = importlib.util.spec_from_file_location(
            name, where / "__init__.py", submodule_search_locations=[str(where)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


CASE_SECONDS = 20.0  # the budget of one case; the grader also limits the whole task


class CaseTimeout(BaseException):
    """A case ran out of its time (a BaseException, so that `except Exception` in a
    task's code does not swallow it)."""


def out_of_time(signum, frame):
    """SIGALRM's handler: the running case is over."""
    raise CaseTimeout


def main(spec_path):
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    load_packages(spec["engine"])
    import engine

    if not str(Path(engine.__file__).resolve()).startswith(
        str(Path(spec["engine"]).resolve())
    ):
        raise SystemExit(f"imported the wrong engine: {engine.__file__}")
    from autograder import checks, tasks

    task = tasks.BY_ID[spec["task"]]
    regions = student_regions(spec["engine"])
    if spec.get("cell") is not None:
        last = len(spec["cell"].splitlines())
        regions[spec["cell_origin"]] = [(1, last, spec["cell_origin"])]
    out = os.fdopen(spec["out_fd"], "w", encoding="utf-8")  # a file the grader opened

    def write(label, **result):
        out.write(json.dumps({"label": label, **result}) + "\n")
        out.flush()

    made = checks.cases(task, spec["seed"])
    used = set()
    watched = watched_code(tasks, spec.get("task_modules", {}), task)
    before = engine_state()
    try:
        found = resolve(task, spec)
    except BaseException as error:  # the cell itself fails to run
        for case in made:
            write(
                case.label,
                error=f"the task's definitions could not be loaded: "
                f"{said(error, regions)}",
            )
        return
    budget = float(spec.get("case_seconds", CASE_SECONDS))
    signal.signal(signal.SIGALRM, out_of_time)
    for case in made:
        write(case.label, started=True)
        changed = changed_engine(before)
        if changed:
            write(
                case.label,
                error=f"the task's code replaced {changed} of the engine: a task "
                "defines its own names and changes nothing else",
            )
            continue
        try:
            sys.setprofile(
                lambda frame, event, arg: (
                    event == "call"
                    and frame.f_code in watched
                    and used.add(watched[frame.f_code])
                )
            )
            signal.setitimer(signal.ITIMER_REAL, budget)
            try:
                result = case.run(found)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.setprofile(None)
            changed = changed_engine(before)
            if changed:  # during the case: what it measured is not the engine's
                write(
                    case.label,
                    error=f"the task's code replaced {changed} of the engine while "
                    "this case ran: a task defines its own names and changes nothing "
                    "else",
                )
                continue
            write(case.label, value=encoded(result))
        except CaseTimeout:
            write(
                case.label,
                error=f"timed out: this case ran out of its {budget:g} s "
                "(an endless loop, or far too slow)",
            )
        except RecursionError as error:
            write(
                case.label,
                error=f"RecursionError: {error} (the graph is deeper than "
                "Python's recursion limit: use a stack of your own)",
            )
        except BaseException as error:  # SystemExit and the like too
            write(case.label, error=said(error, regions))
    write("", needs=sorted(used))


def engine_state():
    """{(module, name[, attribute]): id} of everything the engine's and the course's
    modules and classes hold, taken before any of the task's code runs: a task that
    replaces a part of the engine (a class's method, a module's function) to change
    what a case measures is caught by changed_engine."""
    for folder in ("engine", "course"):  # every module, imported now
        package = sys.modules.get(folder)
        for info in pkgutil.iter_modules(getattr(package, "__path__", [])):
            importlib.import_module(f"{folder}.{info.name}")
    state = {}
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("engine", "course"):
            continue
        for key, value in list(vars(module).items()):
            state[(name, key)] = id(value)
            if isinstance(value, type) and value.__module__ == name:
                for attribute, member in list(vars(value).items()):
                    state[(name, key, attribute)] = id(member)
    return state


def changed_engine(before):
    """The first part of the engine whose object is not the one `before` saw, as
    'module.name', or ''."""
    now = engine_state()
    for key, identity in before.items():
        if now.get(key, identity) != identity:
            return ".".join(key)
    return ""


def watched_code(tasks, task_modules, task):
    """{code object: task id} for the definitions of every other task that lives in the
    engine: the runs record which of them they call, so the grader can say what a
    failure blocks."""
    watched = {}
    for other_id, module in task_modules.items():
        if other_id == task.id:
            continue
        space = vars(importlib.import_module(module))
        for name in tasks.BY_ID[other_id].names:
            obj = space.get(name.split(".")[0])
            if "." in name:
                obj = getattr(obj, name.split(".", 1)[1], None)
            functions = (
                [f for f in vars(obj).values() if callable(f)]
                if isinstance(obj, type)
                else [obj]
            )
            for function in functions:
                code = getattr(function, "__code__", None)
                if code is not None:
                    watched[code] = other_id
    return watched


if __name__ == "__main__":
    main(sys.argv[1])
