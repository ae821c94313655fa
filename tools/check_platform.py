"""Say, before anything is installed, whether this platform can install the course's
lock file.

    python tools/check_platform.py  # exit 0 if it can; otherwise explain, and exit 1

Run by `make setup` (and so by `make test`) before it creates the virtual environment,
so that an unsupported platform gets a clear message and an alternative instead of a
resolver error from pip."""

import platform
import sys


NUMPY_ONLY = """\
Chapters 1 to 3 need only NumPy. To read and run them without PyTorch:

    python3 -m venv .venv
    grep -v '^torch==' requirements.txt > requirements-numpy-only.txt
    .venv/bin/pip install -r requirements-numpy-only.txt
    .venv/bin/jupyter lab book/

(the README's "Platforms" section says more)."""

# this platform, as problems() sees it by default (read once, when the module loads)
SYSTEM = platform.system()
MACHINE = platform.machine()


def problems(version=sys.version_info, system=SYSTEM, machine=MACHINE):
    """What stands in the way of `pip install -r requirements.txt` here, in words."""
    found = []
    if version < (3, 11):
        found.append(
            f"Python {version[0]}.{version[1]} is too old: the lock pins NumPy 2.4, "
            "which needs Python 3.11 or newer. Install Python 3.11+ and run "
            "`make setup PYTHON=python3.11`."
        )
    if system == "Darwin" and machine.lower() in ("x86_64", "i386"):
        found.append(
            "This is an Intel Mac: PyTorch publishes no wheels for it after version "
            "2.2, so the lock's torch==2.13.0 cannot be installed. PyTorch is only "
            "the second oracle (chapter 4 on); the engine never imports it.\n"
            + NUMPY_ONLY
        )
    return found


def main():
    found = problems()
    for message in found:
        print(f"setup: {message}\n", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
