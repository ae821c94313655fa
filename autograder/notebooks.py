"""The book's notebooks as the grader reads them: where a task's definitions are, how
they are stubbed for the student edition, and how they are put into another copy of the
engine.

Standard library only: `make student` runs without the course's virtual environment."""

import ast
import json
from pathlib import Path

from course.export import export_tag, span, top_level_definitions


def read_notebook(path):
    """A notebook file as a dict."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def source_of(cell):
    """A cell's source as one string."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def code_cells(notebook):
    """(index, source) of every code cell of a notebook (a dict)."""
    return [
        (index, source_of(cell))
        for index, cell in enumerate(notebook["cells"])
        if cell.get("cell_type") == "code"
    ]


def parsed(source):
    """The cell's syntax tree, or None if it does not parse (magics, a reader's
    typo)."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def owner(name):
    """The top-level name that holds `name`: 'Adam' for the method 'Adam.step'."""
    return name.split(".")[0]


def find_cell(notebook, names):
    """(index, source) of the code cell that defines the first of `names` at top level,
    or None. A cell exported into the engine comes first; among several, the last one
    counts, as it would in the kernel."""
    found = exported = None
    for index, source in code_cells(notebook):
        tree = parsed(source)
        if tree is not None and owner(names[0]) in top_level_definitions(tree):
            found = index, source
            if export_tag(source):
                exported = found
    return exported or found


def segment(source, node):
    """The source lines of one top-level definition."""
    first, last = span(node)
    return "\n".join(source.splitlines()[first - 1 : last])


def definitions_only(source, names=()):
    """The cell with every top-level statement blanked out but its imports, functions,
    classes, constants and the assignments to `names` (a task's), line numbers kept:
    what the grader runs of a reader's cell (their own calls to a checker, prints and
    experiments are left out)."""
    tree = parsed(source)
    if tree is None:
        return None
    lines = source.splitlines()
    kept = (
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
    )
    wanted = {owner(name) for name in names}

    def binds_task(node):
        return isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in wanted for t in node.targets
        )

    for node in tree.body:
        if not (
            isinstance(node, kept)
            or binds_task(node)
            or isinstance(node, ast.Assign)
            and is_constant(node)
        ):
            for k in range(node.lineno - 1, node.end_lineno):
                lines[k] = ""
    return "\n".join(lines) + "\n"


def is_constant(node):
    """Whether an assignment binds names to a literal (a number, a string, a
    tuple...)."""
    names = [
        t
        for target in node.targets
        for t in (
            target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        )
    ]
    if not all(isinstance(target, ast.Name) for target in names):
        return False
    try:
        ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return False
    return True


def preamble(notebook, index):
    """What a task cell may use without defining it: the imports, functions, classes and
    constants of the code cells before cell `index` that are not part of the engine (the
    engine's own names come from the engine), as source. Nothing else of those cells
    runs."""
    statements = []
    for k, source in code_cells(notebook):
        if k >= index:
            break
        tree = parsed(source)
        if tree is None or export_tag(source):
            continue
        for node in tree.body:
            kept = isinstance(
                node,
                (
                    ast.Import,
                    ast.ImportFrom,
                    ast.FunctionDef,
                    ast.AsyncFunctionDef,
                    ast.ClassDef,
                ),
            )
            if kept or isinstance(node, ast.Assign) and is_constant(node):
                statements.append(segment(source, node))
    return "\n\n\n".join(statements) + "\n"


def stub(source, names, message):
    """`source` (a cell) with each of `names` stubbed: a function keeps its signature
    and docstring and raises NotImplementedError(message); a class keeps its docstring
    and the signature and docstring of each method, whose bodies raise; 'Class.method'
    stubs one method. Comments inside a stubbed body go with it."""
    tree = ast.parse(source)
    defined = top_level_definitions(tree)
    cuts = []
    for name in names:
        node = defined[owner(name)]
        if "." in name:
            method = name.split(".", 1)[1]
            node = next(
                n
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == method
            )
            cuts.append(node)
        elif isinstance(node, ast.ClassDef):
            cuts += [
                n
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
        else:
            cuts.append(node)
    lines = source.splitlines()
    for node in sorted(cuts, key=lambda n: -n.lineno):
        first = node.body[0]
        documented = (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        keep = first.end_lineno if documented else first.lineno - 1
        indent = " " * first.col_offset
        lines[keep : node.end_lineno] = [
            f"{indent}raise NotImplementedError({message!r})"
        ]
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def substitute(reference, student, names, origin, known=()):
    """The reference cell `reference` with the definitions of `names` replaced by the
    student's, from the student's cell `student`; the student's own imports and the
    helper definitions of that cell that the reference engine does not have (`known`
    lists the names it has) come along. The student's code is framed by marker comments
    that name `origin`, so that an error in it can be traced back to the notebook."""
    ours, theirs = ast.parse(reference), ast.parse(student)
    ours_defined, theirs_defined = (
        top_level_definitions(ours),
        top_level_definitions(theirs),
    )
    owners = list(dict.fromkeys(owner(name) for name in names))
    missing = [name for name in owners if name not in theirs_defined]
    if missing:
        raise LookupError(f"{', '.join(missing)} is not defined in {origin}")
    helpers = [
        node
        for name, node in theirs_defined.items()
        if name not in ours_defined and name not in known and name not in owners
    ]
    imports = [
        node for node in theirs.body if isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    brought = [ast.get_source_segment(student, node) for node in imports]
    brought += [segment(student, node) for node in dict.fromkeys(helpers)]
    brought += [segment(student, theirs_defined[name]) for name in owners]
    block = "\n\n\n".join(
        [f"# >>> student code: {origin}"] + brought + ["# <<< end of student code"]
    )
    lines = reference.splitlines()
    places = sorted((span(ours_defined[name]) for name in owners), reverse=True)
    for k, (first, last) in enumerate(places):
        lines[first - 1 : last] = [block] if k == len(places) - 1 else []
    return "\n".join(lines)


WITHHELD_CODE = (
    "# The solution is withheld in the student edition: try the exercise, then "
    "ask your instructor.\n"
)
WITHHELD_TEXT = (
    "```{admonition} Withheld in this edition\n:class: note\nThe solution and its "
    "explanation are withheld in the student edition.\n```"
)


def stub_message(task):
    """What a stub says when it runs."""
    return f"{task.id} is yours to write: {task.title}"


def stub_cell(source, tasks):
    """A code cell's source with the definitions of `tasks` stubbed; a name bound by an
    assignment becomes `name = None`."""
    tree = parsed(source)
    if tree is None:
        return source
    defined = top_level_definitions(tree)
    for task in tasks:
        present = [name for name in task.names if owner(name) in defined]
        if not present:
            continue
        assigned = [
            n
            for n in present
            if isinstance(defined[owner(n)], (ast.Assign, ast.AnnAssign))
        ]
        source = stub(
            source, [n for n in present if n not in assigned], stub_message(task)
        )
        for name in assigned:
            tree = ast.parse(source)
            first, last = span(top_level_definitions(tree)[name])
            lines = source.splitlines()
            lines[first - 1 : last] = [f"{name} = None   # {stub_message(task)}"]
            source = "\n".join(lines) + "\n"
        defined = top_level_definitions(ast.parse(source))
    return source


ANSWER_CODE = (
    "# Withheld in the student edition: this cell shows what a graded task asks for.\n"
)
ANSWER_TEXT = "*(withheld in the student edition: a graded task asks for it)*"


def without_answers(text):
    """Markdown with every span marked <!-- answer --> ... <!-- /answer --> withheld."""
    while "<!-- answer -->" in text:
        start = text.index("<!-- answer -->")
        end = text.index("<!-- /answer -->", start) + len("<!-- /answer -->")
        text = text[:start] + ANSWER_TEXT + text[end:]
    return text


def is_solution_cell(cell):
    """A hidden cell that holds an exercise's solution."""
    tags = cell.get("metadata", {}).get("tags", [])
    return "hide-cell" in tags and source_of(cell).lstrip().startswith("# Solution")


def without_solutions(text):
    """Markdown with every `Solution ...` admonition (its explanation) withheld."""
    lines, out, k = text.splitlines(), [], 0
    while k < len(lines):
        line = lines[k]
        fence = line[: len(line) - len(line.lstrip("`"))]
        if len(fence) >= 3 and line[len(fence) :].startswith("{admonition} Solution"):
            k += 1
            while k < len(lines) and lines[k].strip() != fence:
                k += 1
            out.append(WITHHELD_TEXT)
        else:
            out.append(line)
        k += 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def unparsable_cell(notebook, names):
    """(index, SyntaxError) of a code cell that does not parse and seems to define the
    first of `names` (`def name` or `class name` in its text), or None."""
    wanted = owner(names[0])
    for index, source in code_cells(notebook):
        if f"def {wanted}(" in source or f"class {wanted}" in source:
            try:
                ast.parse(source)
            except SyntaxError as error:
                return index, error
    return None


def edition_stamp(book):
    """A short fingerprint of the graded track as the notebooks in folder `book` and the
    task table define it: the student edition records it in each notebook's metadata,
    and the grader says when a submission comes from another edition."""
    import hashlib
    import inspect

    from autograder import tasks as table

    digest = hashlib.sha256(inspect.getsource(table).encode("utf-8"))
    for task in table.TASKS:
        notebook = read_notebook(Path(book) / task.notebook)
        found = find_cell(notebook, task.names)
        digest.update((found[1] if found else "").encode("utf-8"))
    return digest.hexdigest()[:12]


STAMP = "autodiff_from_scratch_edition"


def student_notebook(notebook, tasks):
    """The student edition of one notebook (a dict, changed in place and returned): the
    definitions of `tasks` stubbed, solutions and their explanations withheld (a
    solution cell that defines a task keeps its code with the task stubbed), outputs
    cleared."""
    for cell in notebook["cells"]:
        source = source_of(cell)
        if cell.get("cell_type") == "code":
            stubbed = stub_cell(source, tasks)
            if "answer" in cell.get("metadata", {}).get("tags", []):
                stubbed = ANSWER_CODE
            elif is_solution_cell(cell) and stubbed == source:
                stubbed = WITHHELD_CODE
            elif is_solution_cell(cell):  # the reader writes the task here
                first, _, rest = stubbed.partition("\n")
                number = first.split()[2].rstrip(".:") if len(first.split()) > 2 else ""
                ids = [t.id for t in tasks if stub_message(t) in stubbed]
                stubbed = (
                    f"# Exercise {number}: your code (task {', '.join(ids)})\n{rest}"
                )
            if stubbed != source:  # a task to write: in plain view
                tags = cell.get("metadata", {}).get("tags", [])
                cell.setdefault("metadata", {})["tags"] = [
                    t for t in tags if t != "hide-cell"
                ]
            cell["source"] = stubbed.splitlines(True)
            cell["outputs"], cell["execution_count"] = [], None
        elif cell.get("cell_type") == "markdown":
            cell["source"] = without_answers(without_solutions(source)).splitlines(True)
    return notebook
