"""Build the Gradescope autograder: a zip with `setup.sh`, `run_autograder` and the
course.

    python tools/gradescope.py [--out _build/gradescope/autograder.zip]   # `make gradescope`

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

SETUP = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
set -euo pipefail
top="${AUTOGRADER_ROOT:-/autograder}"
cd "$top/source"
apt-get update -qq
apt-get install -y -qq --no-install-recommends bubblewrap python3-venv python3-dev >/dev/null
python=$(command -v python3.13 || command -v python3.12 || command -v python3.11 || true)
if [ -z "$python" ]; then
  apt-get install -y -qq --no-install-recommends python3.11 python3.11-venv >/dev/null
  python=$(command -v python3.11)
fi
"$python" -m venv "$top/venv"
# PyTorch's CPU build first (PyPI's Linux wheel is the CUDA build, several GB more)
"$top/venv/bin/pip" install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
grep -v '^-e \.' requirements.txt > /tmp/requirements-locked.txt
"$top/venv/bin/pip" install -q -r /tmp/requirements-locked.txt
"$top/venv/bin/pip" install -q --no-deps .
# the course's files: readable by root only (the sandbox hides them as well)
chmod -R go-rwx "$top/source"
"""

RUN = r"""#!/usr/bin/env bash
# Gradescope runs this for every submission. It always leaves a results.json.
top="${AUTOGRADER_ROOT:-/autograder}"
results="$top/results/results.json"
python="${AUTOGRADER_PYTHON:-$top/venv/bin/python}"
mkdir -p "$top/results"
rm -f "$results"
cd "$top/source"
"$python" tools/grade.py "$top/submission" --json "$results" \
    > "$top/results/grader-output.txt" 2>&1
status=$?
if [ ! -s "$results" ]; then
  # any Python will do to write it (the course's may be what failed)
  fallback=$(command -v python3 || echo "$python")
  "$fallback" - "$results" "$status" "$top/results/grader-output.txt" <<'PY' || \
    printf '{"score": 0, "output": "The grader failed and could not say why."}\n' > "$results"
import json, sys
path, status, log = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    said = open(log, encoding="utf-8", errors="replace").read()[-3000:]
except OSError:
    said = ""
json.dump({"score": 0, "output": "The grader stopped before it could grade this "
           f"submission (exit status {status}); this is the course's fault, not yours. "
           "Tell your instructor. What it printed last:\n" + said}, open(path, "w"))
PY
fi
cat "$top/results/grader-output.txt"
"""


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
        for script, text in (("setup.sh", SETUP), ("run_autograder", RUN)):
            info = zipfile.ZipInfo(script)
            info.external_attr = 0o755 << 16  # executable when unpacked
            archive.writestr(info, text)
        for path, name in files():
            archive.write(path, name)
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
