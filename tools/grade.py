"""Grade a student's submission: the instructor's side of the graded track.

    python tools/grade.py SUBMISSION_DIR --json results.json   # or: make grade
    SUBMISSION=DIR

SUBMISSION_DIR is a student edition folder, a folder of its notebooks, or an upload that
holds them somewhere below it. Run it from the course repository, with the course's
virtual environment: every task is graded in isolation, the student's definitions
dropped into the course's reference engine, then the student's whole engine is exported
from their notebooks and checked as a whole, each task in the sandbox of
autograder/sandbox.py. Only the notebooks are read; the submission's engine/, tests,
conftest.py and tools are never imported. Writes Gradescope's results.json (last,
atomically) and prints `score: X / Y points`."""

import argparse
import json
import os
from pathlib import Path
import sys


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout
from autograder import grading, tasks  # noqa: E402


def arguments(argv):
    """The command line, parsed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", type=Path, help="the student's folder")
    parser.add_argument("--json", type=Path, help="where to write results.json")
    parser.add_argument(
        "--seed",
        type=int,
        help="the random cases' seed (default: from "
        "the student's identity, Gradescope's submission_metadata.json or "
        "the folder's name)",
    )
    parser.add_argument("--tasks", help="grade only these, e.g. T1,T5")
    parser.add_argument(
        "--timeout",
        type=float,
        default=grading.DEFAULT_TIMEOUT,
        help="seconds each task may run (default %(default)g)",
    )
    parser.add_argument("--workers", type=int, default=2, help="tasks graded at once")
    parser.add_argument(
        "--no-integration",
        action="store_true",
        help="skip the check of the student's whole engine",
    )
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="grade even where the sandbox (bubblewrap) cannot run, as "
        "root too: task code can then read the answers and write the grader",
    )
    args = parser.parse_args(argv)
    if not args.submission.is_dir():
        parser.error(f"{args.submission} is not a folder")
    if args.tasks:
        unknown = [t for t in args.tasks.split(",") if t.strip() not in tasks.BY_ID]
        if unknown:
            parser.error(f"no such task: {', '.join(unknown)}")
    return args


def write_last(path, results):
    """results.json, written whole or not at all (a file beside it, then renamed)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_text(
        json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    os.replace(partial, path)


def main(argv):
    args = arguments(argv)
    only = [t.strip() for t in args.tasks.split(",")] if args.tasks else None
    hidden = [args.json.resolve().parent] if args.json else []
    report = grading.grade(
        args.submission,
        seed=args.seed,
        only=only,
        timeout=args.timeout,
        workers=args.workers,
        integration=not args.no_integration,
        hidden=hidden,
        allow_unprotected=args.unsafe_no_sandbox or None,
    )
    results = grading.results_json(report)
    for test in results["tests"]:
        print(f"{test['score']:>6g} / {test['max_score']:<3g} {test['name']}")
        if test["score"] < test["max_score"]:
            print(
                "\n".join(
                    "         " + line for line in test["output"].splitlines()[1:12]
                )
            )
    print(results["output"])
    if args.json:
        write_last(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
