"""Write engine/ and course/ from the book's notebooks (`--check`: only say if they are
stale).

The exporter is the module course.export; this script runs it from a checkout that is
not installed (the student edition's, which needs no virtual environment)."""

from pathlib import Path
import runpy
import sys


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    runpy.run_module("course.export", run_name="__main__")
