"""Build the Gradescope autograder: a zip with `setup.sh`, `run_autograder` and the
course.

    python tools/gradescope.py [--out _build/gradescope/autograder.zip]
    make gradescope                                          # the same

Gradescope unpacks the zip into /autograder/source, runs setup.sh once when the image is
built (as root), and run_autograder for every submission, with the upload in
/autograder/submission; it reads /autograder/results/results.json. setup.sh installs
bubblewrap (the sandbox, autograder/sandbox.py), Python's packages from the course's
lock with PyTorch's CPU build, and the course itself; run_autograder grades the
notebooks wherever they are in the upload, and writes a results.json that says what went
wrong even when the grader dies. AUTOGRADER_ROOT (default /autograder) moves the whole
layout, for the tests."""

import argparse
from pathlib import Path
import secrets
import sys
import zipfile


ROOT = Path(__file__).resolve().parent.parent
INCLUDED = [
    "book",
    "engine",
    "course",
    "autograder",
    "tools/grade.py",
    "pyproject.toml",
    "requirements.txt",
    "LICENSE",
    "LICENSE-TEXT.md",
]
LEFT_OUT = {"__pycache__", ".ipynb_checkpoints", "_build"}

# Gradescope's two scripts, kept as files beside this one
SCRIPTS = Path(__file__).resolve().parent / "gradescope"


def files():
    """(path in the repository, path in the zip) for everything the autograder needs."""
    for name in INCLUDED:
        path = ROOT / name
        paths = (
            [path]
            if path.is_file()
            else sorted(p for p in path.rglob("*") if p.is_file())
        )
        for found in paths:
            if not LEFT_OUT & set(found.relative_to(ROOT).parts):
                yield found, found.relative_to(ROOT).as_posix()


def build(out):
    """Write the autograder zip to `out`; return its path."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for script in ("setup.sh", "run_autograder"):
            info = zipfile.ZipInfo(script)
            info.external_attr = 0o755 << 16  # executable when unpacked
            archive.writestr(info, (SCRIPTS / script).read_text(encoding="utf-8"))
        for path, name in files():
            if name != "autograder/secret.txt":
                archive.write(path, name)
        # a new secret for each autograder: its students' cases cannot be computed
        # before a submission is graded (autograder.grading.grading_secret)
        archive.writestr("autograder/secret.txt", secrets.token_hex(32) + "\n")
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", default=str(ROOT / "_build" / "gradescope" / "autograder.zip")
    )
    args = parser.parse_args(argv)
    print(f"wrote {build(args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
