"""tools/check_platform.py: a clear message, before pip runs, where the lock cannot be
installed."""

from pathlib import Path
import sys


sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import check_platform  # noqa: E402


def test_supported_platforms_pass():
    for system, machine in [
        ("Linux", "x86_64"),
        ("Darwin", "arm64"),
        ("Windows", "AMD64"),
    ]:
        assert check_platform.problems((3, 11), system, machine) == []


def test_old_python_is_named_with_the_way_out():
    (message,) = check_platform.problems((3, 10), "Linux", "x86_64")
    assert "Python 3.10" in message and "3.11" in message and "PYTHON=" in message


def test_intel_mac_is_told_what_still_works():
    (message,) = check_platform.problems((3, 12), "Darwin", "x86_64")
    assert "Intel Mac" in message and "torch==2.13.0" in message
    assert (
        "Chapters 1 to 3 need only NumPy" in message and "grep -v '^torch=='" in message
    )
