"""The rules a task's title states about how it is written, judged by the grader from
the submitted source (never from what the task's process says about itself).

T1 asks for the sweep's order "without recursion": its cell may define no function that
calls itself, directly or through other functions of the cell, and may not raise
Python's recursion limit (with a raised limit, a recursive order passes a chain of
20,000 ops)."""

import ast


def calls_in(function):
    """The names `function` calls: plain names and methods called on anything."""
    called = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = node.func
            name = (
                target.id
                if isinstance(target, ast.Name)
                else target.attr
                if isinstance(target, ast.Attribute)
                else None
            )
            if name is not None:
                called.setdefault(name, node.lineno)
    return called


def recursion_problem(source):
    """Why `source` (a task cell) breaks the no-recursion rule, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # reported elsewhere, as the cell that does not parse
    functions = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = calls_in(ast.Expression(node)).keys() & {"setrecursionlimit"}
            if name:
                return (
                    f"line {node.lineno} raises Python's recursion limit "
                    "(sys.setrecursionlimit): the order must be found without recursion"
                )
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            if not isinstance(node, ast.Lambda):
                functions.setdefault(node.name, node)
    graph = {name: calls_in(f) for name, f in functions.items()}
    for start in graph:  # a path of calls among the cell's functions back to start
        frontier, seen = [(start, [start])], set()
        while frontier:
            name, path = frontier.pop()
            for called, line in graph.get(name, {}).items():
                if called == start:
                    chain = " -> ".join([*path, start])
                    return (
                        f"{start} calls itself ({chain}, line {line}): the order "
                        "must be found without recursion"
                    )
                if called in graph and called not in seen:
                    seen.add(called)
                    frontier.append((called, [*path, called]))
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
