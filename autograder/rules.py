"""The rules a task's title states about how it is written, judged by the grader from
the submitted source (never from what the task's process says about itself).

T1 asks for the sweep's order "without recursion". Its cell may not reach Python's
recursion limit in any way (`sys.setrecursionlimit`, by name, through getattr or a
string, or `sys.__dict__`), and none of its functions may reach itself: a function
that names a function (calls it, passes it, stores it under another name) is linked to
it, and a chain of links back to where it started is recursion, however it is called.
Anonymous self-application (a lambda handed to itself) is refused as well."""

import ast


FORBIDDEN = "recursionlimit"


def names_in(node):
    """{name: first line} of every name `node` loads or calls, attributes included."""
    found = {}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            found.setdefault(inner.id, inner.lineno)
        elif isinstance(inner, ast.Attribute):
            found.setdefault(inner.attr, inner.lineno)
    return found


def limit_problem(tree):
    """How the cell reaches the recursion limit, or None."""
    for node in ast.walk(tree):
        text = (
            node.value
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else getattr(node, "attr", None) or getattr(node, "id", None)
        )
        if isinstance(text, str) and FORBIDDEN in text.lower().replace("_", ""):
            return f"line {node.lineno} reaches Python's recursion limit"
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
            "getattr",
            "vars",
        ):
            if node.args and getattr(node.args[0], "id", None) == "sys":
                return (
                    f"line {node.lineno} looks up sys's attributes by a computed name"
                )
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return f"line {node.lineno} reads a module's or object's __dict__"
    return None


def recursion_problem(source):
    """Why `source` (a task cell) breaks the no-recursion rule, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # reported elsewhere, as the cell that does not parse
    problem = limit_problem(tree)
    if problem:
        return f"{problem}: the order must be found without recursion"
    links = {}  # a function's (or an alias's) name -> {name it links to: line}
    functions = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = ast.Module(body=node.body, type_ignores=[])
            links.setdefault(node.name, {}).update(names_in(body))
            functions.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in names_in(target):
                    links.setdefault(name, {}).update(names_in(node.value))
                    if isinstance(node.value, ast.Lambda):
                        functions.add(name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Lambda):
            if any(isinstance(a, ast.Lambda) for a in node.args):
                return (
                    f"line {node.lineno} hands a lambda to a lambda (recursion "
                    "without a name): the order must be found without recursion"
                )
    for start in sorted(functions):  # a chain of links back to a function
        frontier, seen = [(start, [start])], set()
        while frontier:
            name, path = frontier.pop()
            for linked, line in links.get(name, {}).items():
                if linked == start:
                    chain = " -> ".join([*path, start])
                    return (
                        f"{start} reaches itself ({chain}, line {line}): the order "
                        "must be found without recursion"
                    )
                if linked in links and linked not in seen:
                    seen.add(linked)
                    frontier.append((linked, [*path, linked]))
    return None


RULES = {"T1": ("the rule: no recursion", recursion_problem)}


def rule_verdicts(task, source, verdicts):
    """[(label, passed, message)] for the rules of `task`'s title, judged from
    `source`, the student's cell, once the task's `verdicts` show it does something
    (a stub keeps no rule); [] for a task without such a rule."""
    if task.id not in RULES:
        return []
    label, problem_of = RULES[task.id]
    if source is None or not any(ok for _, ok, _ in verdicts):
        return [(label, False, "judged once a case of the task is correct")]
    problem = problem_of(source)
    return [(label, problem is None, problem or "correct")]
