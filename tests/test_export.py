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


def exporter():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import export_engine
    finally:
        sys.path.pop(0)
    return export_engine


def write_book(folder, chapters):
    """A book of notebooks, one per chapter, each a list of code cell sources."""
    import json
    folder.mkdir()
    for number, cells in enumerate(chapters, 1):
        notebook = {"cells": [{"cell_type": "code", "source": source, "metadata": {},
                               "outputs": [], "execution_count": None} for source in cells],
                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        (folder / f"{number:02d}_chapter.ipynb").write_text(json.dumps(notebook))
    return folder


def test_a_grown_definition_takes_the_place_of_the_first(tmp_path):
    book = write_book(tmp_path / "book", [
        ["#| export m\nclass Tensor:\n    small = True\n\n\ndef op():\n    return Tensor()",
         "#| export m\ndef sweep(): return 1"],
        ["#| export m (replaces Tensor, sweep)\nclass Tensor:\n    small = False\n\n\n"
         "def sweep(): return 2"],
    ])
    text = exporter().exported_modules(book)["m.py"]
    assert text.count("class Tensor") == 1 and "small = False" in text
    assert text.count("def sweep") == 1 and "return 2" in text
    assert text.index("class Tensor") < text.index("def op")      # where the first one stood
    assert "02_chapter.ipynb, cell 0 (grown from the version in book/01_chapter.ipynb" in text
    namespace = {}
    exec(text, namespace)
    assert namespace["op"]().small is False and namespace["sweep"]() == 2


def test_a_name_defined_twice_without_saying_so_is_an_error(tmp_path):
    import pytest
    book = write_book(tmp_path / "book", [["#| export m\ndef f(): return 1"],
                                          ["#| export m\ndef f(): return 2"]])
    with pytest.raises(SystemExit, match="f is already defined"):
        exporter().exported_modules(book)
    book = write_book(tmp_path / "book2", [["#| export m\ndef f(): return 1"],
                                           ["#| export m (replaces g)\ndef g(): return 2"]])
    with pytest.raises(SystemExit, match="replaces g, which no earlier cell defines"):
        exporter().exported_modules(book)
