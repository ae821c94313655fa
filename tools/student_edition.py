"""Write the student edition of the book and its engine: chosen functions become tasks.

    python tools/student_edition.py [--out student]     # what `make student` runs

Each task is a function of the engine, written in an exported notebook cell. In the student edition
its body is replaced by its docstring and `raise NotImplementedError("Task N.M: ...")`, its
signature kept; the hidden exercise solutions are withheld; outputs are cleared. The edition gets
its own `engine/`, exported from the stubbed notebooks by the same exporter, so every later chapter
runs on the student's own code, and the autograder (`autograder/`, `pytest -m task1_2`) grades it.
"""
import argparse
import ast
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import export_engine  # noqa: E402

# (task, function in an exported cell, what the student implements)
TASKS = [
    ("1.1", "topological_order", "the order of the reverse sweep, without recursion"),
    ("1.2", "backpropagate", "the reverse sweep: accumulate each node's gradient"),
    ("2.1", "matmul_vjp_a", "matmul's VJP for its first operand, dL/dA = G Bᵀ"),
    ("2.2", "matmul_vjp_b", "matmul's VJP for its second operand, dL/dB = Aᵀ G"),
    ("3.1", "unbroadcast", "undo broadcasting: sum g back to an input's shape"),
    ("3.2", "max_vjp", "the VJP of a max reduction (ties share the gradient)"),
    ("3.3", "scatter_add_forward", "scatter-add, the VJP of indexing"),
    ("4.1", "log_softmax_vjp", "the local rule of log_softmax"),
    ("9.1", "diagonal_rule", "an elementwise op's forward rule, from its VJP rule"),
    ("9.2", "matmul_jvp_a", "matmul's forward rule for its first operand, t @ b"),
    ("10.1", "grad", "grad(), with create_graph=True recording the sweep itself"),
]
WITHHELD = ("# The solution is withheld in the student edition: try the exercise, then ask your "
            "instructor.\n")


def stub_function(source, name, task, title):
    """`source` with the body of top-level function `name` replaced by a NotImplementedError."""
    tree = ast.parse(source)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if node is None:
        return source
    lines = source.splitlines()
    first = node.body[0]
    has_doc = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))
    keep_until = first.end_lineno if has_doc else node.body[0].lineno - 1
    indent = " " * (first.col_offset)
    stub = f'{indent}raise NotImplementedError("Task {task}: {title}")'
    return "\n".join(lines[:keep_until] + [stub] + lines[node.end_lineno:])


def student_notebook(notebook):
    """The student edition of one notebook (a dict) and the tasks it contains."""
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        if source.startswith(export_engine.MARKER):
            for task, name, title in TASKS:
                stubbed = stub_function(source, name, task, title)
                if stubbed != source:
                    found.append(task)
                    source = stubbed
        elif "hide-cell" in tags and source.lstrip().startswith("# Solution"):
            source = WITHHELD
        cell["source"] = source.splitlines(True)
        cell["outputs"], cell["execution_count"] = [], None
    return notebook, found


def write_edition(out):
    """Write the student edition into folder `out`; return {task: notebook name}."""
    if out.exists():
        shutil.rmtree(out)
    (out / "book").mkdir(parents=True)
    located = {}
    for path in sorted((ROOT / "book").iterdir()):
        if path.suffix == ".ipynb":
            notebook, found = student_notebook(json.loads(path.read_text()))
            located.update(dict.fromkeys(found, path.name))
            (out / "book" / path.name).write_text(json.dumps(notebook, indent=1,
                                                             ensure_ascii=False) + "\n")
        elif path.is_file():
            shutil.copy(path, out / "book" / path.name)
        elif path.is_dir():
            shutil.copytree(path, out / "book" / path.name)
    missing = [task for task, _, _ in TASKS if task not in located]
    if missing:
        raise SystemExit(f"tasks not found in any exported cell: {missing}")
    for name in ["tools/export_engine.py", "pyproject.toml", "requirements.txt", "_config.yml",
                 "_toc.yml", "engine/__init__.py", "LICENSE", "LICENSE-TEXT.md"]:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, out / name)
    shutil.copytree(ROOT / "autograder", out / "autograder")
    for module, text in export_engine.exported_modules(out / "book").items():
        (out / "engine" / module).write_text(text)
    (out / "README.md").write_text(README.format(tasks="\n".join(
        f"| {task} | `{name}` | {located[task]} | {title} |" for task, name, title in TASKS)))
    return located


README = """# Autodiff from Scratch: student edition

Your engine is built from your notebooks, as in the book: implement each task in its notebook cell,
run `python tools/export_engine.py` to write `engine/`, and run the autograder:

    pip install -e .                  # once: every notebook and the autograder import your engine
    python tools/export_engine.py     # after every change to an exported cell
    pytest autograder -m task1_2      # one task; `pytest autograder` grades all, with a score

| task | function | notebook | what to implement |
|---|---|---|---|
{tasks}

Each task's function keeps its signature and docstring; its body raises NotImplementedError until
you write it. Later chapters use your code, so do the tasks in order. The autograder checks your
engine with the book's own oracles (central finite differences, the PyTorch witness where PyTorch is
installed, the shape catalogue) and tells you which case failed, which entries, and by how much.
"""


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "student"), help="folder to write")
    args = parser.parse_args(argv)
    located = write_edition(Path(args.out))
    print(f"wrote the student edition to {args.out}: {len(located)} tasks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
