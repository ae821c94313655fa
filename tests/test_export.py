"""The engine package is generated from the book: it must be exactly what the notebooks export."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_matches_the_notebooks():
    result = subprocess.run([sys.executable, "tools/export_engine.py", "--check"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_detects_a_stale_engine(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import export_engine
    finally:
        sys.path.pop(0)
    (tmp_path / "engine").mkdir()
    for module, text in export_engine.exported_modules().items():
        (tmp_path / "engine" / module).write_text(text.replace("d(xy)/dx = y", "d(xy)/dx = x"))
    monkeypatch.setattr(export_engine, "ROOT", tmp_path)
    monkeypatch.setattr(export_engine, "exported_modules",
                        lambda real=export_engine.exported_modules: real(ROOT / "book"))
    assert export_engine.main(["--check"]) == 1
