"""The engine and course packages are generated from the book: they must be exactly what
the notebooks export, and the engine never imports the course."""

from pathlib import Path
import subprocess
import sys

import pytest

from course import export


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [["tools/export_engine.py", "--check"], ["-m", "course.export", "--check"]],
)
def test_engine_matches_the_notebooks(command):
    result = subprocess.run(
        [sys.executable, *command], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("package", ["engine", "course"])
def test_the_check_detects_a_stale_module(tmp_path, monkeypatch, package):
    changed = {
        module: text.replace("d(xy)/dx = y", "d(xy)/dx = x").replace(
            "|<v, J u> - <Jᵀ v, u>|", "|<v, J u>|"
        )
        for module, text in export.exported_modules().items()
    }
    assert any(
        changed[m] != text
        for m, text in export.exported_modules().items()
        if m.startswith(package + ".")
    )
    written = {
        m: (changed[m] if m.startswith(package + ".") else text)
        for m, text in export.exported_modules().items()
    }
    export.write_modules(tmp_path, written)
    monkeypatch.setattr(export, "ROOT", tmp_path)
    monkeypatch.setattr(
        export,
        "exported_modules",
        lambda real=export.exported_modules: real(ROOT / "book"),
    )
    assert export.main(["--check"]) == 1


def test_a_module_no_cell_exports_any_more_is_stale(tmp_path, monkeypatch):
    export.write_modules(tmp_path, export.exported_modules())
    (tmp_path / "engine" / "gone.py").write_text(
        export.HEADER.format(sources="x") + "x = 1\n"
    )
    monkeypatch.setattr(export, "ROOT", tmp_path)
    monkeypatch.setattr(
        export,
        "exported_modules",
        lambda real=export.exported_modules: real(ROOT / "book"),
    )
    assert export.main(["--check"]) == 1
    assert export.main([]) == 0 and not (tmp_path / "engine" / "gone.py").exists()


def test_the_engine_may_not_import_the_course(tmp_path):
    book = write_book(
        tmp_path / "book",
        [
            [
                "#| export course.helpers\ndef helper(): return 1",
                "#| export core\ndef f(): return helper()",
            ]
        ],
    )
    with pytest.raises(SystemExit, match="engine.core would import course"):
        export.exported_modules(book)
    book = write_book(
        tmp_path / "book2",
        [
            [
                "#| export core\ndef f(): return 1",
                "#| export course.helpers\ndef g(): return f()",
            ]
        ],
    )
    text = export.exported_modules(book)["course.helpers"]
    assert "from engine.core import f" in text


def test_import_engine_loads_no_course_module_and_no_torch():
    code = (
        "import sys, engine; print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('course', 'autograder', 'torch')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_engine_exports_only_the_engine():
    import engine

    assert not {"OP_CASES", "case", "torch_check", "torch_error"} & set(engine.__all__)
    assert all(hasattr(engine, name) for name in engine.__all__)


def exporter():
    return export


def write_book(folder, chapters):
    """A book of notebooks, one per chapter, each a list of code cell sources."""
    import json

    folder.mkdir()
    for number, cells in enumerate(chapters, 1):
        notebook = {
            "cells": [
                {
                    "cell_type": "code",
                    "source": source,
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                }
                for source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        (folder / f"{number:02d}_chapter.ipynb").write_text(json.dumps(notebook))
    return folder


def test_a_grown_definition_takes_the_place_of_the_first(tmp_path):
    book = write_book(
        tmp_path / "book",
        [
            [
                "#| export m\nclass Tensor:\n    small = True\n\n\n"
                "def op():\n    return Tensor()",
                "#| export m\ndef sweep(): return 1",
            ],
            [
                "#| export m (replaces Tensor, sweep)\n"
                "class Tensor:\n    small = False\n\n\n"
                "def sweep(): return 2"
            ],
        ],
    )
    text = exporter().exported_modules(book)["engine.m"]
    assert text.count("class Tensor") == 1 and "small = False" in text
    assert text.count("def sweep") == 1 and "return 2" in text
    assert text.index("class Tensor") < text.index(
        "def op"
    )  # where the first one stood
    assert (
        "02_chapter.ipynb, cell 0 (grown from the version in book/01_chapter.ipynb"
        in text
    )
    namespace = {}
    exec(text, namespace)
    assert namespace["op"]().small is False and namespace["sweep"]() == 2


def test_a_name_defined_twice_without_saying_so_is_an_error(tmp_path):
    import pytest

    book = write_book(
        tmp_path / "book",
        [["#| export m\ndef f(): return 1"], ["#| export m\ndef f(): return 2"]],
    )
    with pytest.raises(SystemExit, match="f is already defined"):
        exporter().exported_modules(book)
    book = write_book(
        tmp_path / "book2",
        [
            ["#| export m\ndef f(): return 1"],
            ["#| export m (replaces g)\ndef g(): return 2"],
        ],
    )
    with pytest.raises(SystemExit, match="replaces g, which no earlier cell defines"):
        exporter().exported_modules(book)


def test_the_engines_public_api_carries_type_hints():
    """Every function in engine.__all__, and every class's constructor, call and
    user-facing methods, annotates its parameters and its result; `make lint` runs mypy
    over them. (The methods that the chapters attach to Tensor at run time, such as
    backward and sum, are declared for type checkers: the next test; the mode layers'
    protocol is written as the chapters write it.)"""
    import inspect

    import engine

    user_facing = {
        "__init__",
        "__call__",
        "step",
        "zero_grad",
        "item",
        "shape",
        "ndim",
        "size",
    }
    missing, seen = [], 0
    for name in engine.__all__:
        thing = getattr(engine, name)
        functions = (
            [(name, thing)]
            if inspect.isfunction(thing)
            else [
                (f"{name}.{key}", getattr(value, "fget", value))
                for key, value in vars(thing).items()
                if key in user_facing
            ]
        )
        for label, function in functions:
            seen += 1
            signature = inspect.signature(function)
            unannotated = [
                p
                for p in list(signature.parameters)[("." in label) :]
                if signature.parameters[p].annotation is inspect.Parameter.empty
            ]
            if unannotated or signature.return_annotation is inspect.Signature.empty:
                missing.append(f"{label}{signature}")
    assert not missing, missing
    assert seen >= 30


def test_what_the_chapters_attach_to_tensor_is_declared_with_type_hints():
    """Methods reach Tensor at run time (tensor_methods), where a type checker cannot
    see them: Tensor declares each public one, with its types, for type checkers
    (`if TYPE_CHECKING:` in engine/core.py), so that mypy checks t.sum(axis=...)
    and t.backward(...)."""
    import ast

    from engine import Tensor

    tree = ast.parse((ROOT / "engine" / "core.py").read_text(encoding="utf-8"))
    tensor = next(
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"
    )
    block = next(
        n
        for n in tensor.body
        if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    declared = {}
    for node in block.body:
        if isinstance(node, ast.FunctionDef):
            arguments = node.args.args[1:] + node.args.kwonlyargs
            arguments += [a for a in (node.args.vararg,) if a]
            typed = node.returns is not None and all(a.annotation for a in arguments)
            declared[node.name] = typed
    attached = {  # defined in a chapter's group of methods, not in Tensor itself
        name
        for name, member in vars(Tensor).items()
        if not name.startswith("_")
        and (callable(member) or isinstance(member, property))
        and not getattr(member, "fget", member).__qualname__.startswith("Tensor.")
    }
    assert attached, "no method attached at run time?"
    assert attached <= set(declared), attached - set(declared)
    assert all(declared.values()), [n for n, typed in declared.items() if not typed]


def test_the_formatter_leaves_exactly_the_exported_modules_alone():
    """pyproject's [tool.ruff.format] exclude lists the generated modules, and only
    them."""
    import fnmatch
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["ruff"]["format"]["exclude"]
    generated = {str(export.module_path(m)) for m in export.exported_modules()}
    for package in export.PACKAGES:
        for path in (ROOT / package).glob("*.py"):
            name = str(path.relative_to(ROOT))
            excluded = any(fnmatch.fnmatch(name, p) for p in patterns)
            assert excluded == (name in generated), name
