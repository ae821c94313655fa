"""Every exercise checker, run on the book's hidden solution (it must pass) and on a planted
wrong answer (it must fail, and its report must say what is wrong).

An entry names the notebook and the solution cell (the code cell whose first line starts with
`# Solution N.M`), a replacement that plants one mistake in that cell's source, and phrases the
checker's report must contain for the planted mistake. The solution cell runs after the
notebook's first code cell (its imports); it must call its checker (without assert: the printed ✓ is compared by nbval).
"""
import contextlib
import io
import json
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent / "book"

# (notebook, solution label, (old, new) planting a mistake, phrases its report must contain)
EXERCISES = [
    ("16_exercise_checkers.ipynb", "Demo",
     ("2 * g * x", "g * x"), ["✗ square", "gradient of input 0", "entries wrong"]),
]


def solution_cells(notebook, label):
    """(the notebook's first code cell, the cell whose first line starts `# Solution label`)."""
    cells = [c for c in json.loads((BOOK / notebook).read_text())["cells"]
             if c["cell_type"] == "code"]
    setup = "".join(cells[0]["source"])
    for cell in cells:
        source = "".join(cell["source"])
        if source.startswith(f"# Solution {label}"):
            return setup, source
    raise LookupError(f"{notebook}: no code cell starts with '# Solution {label}'")


def run(notebook, label, replace=None):
    """Run the setup and the solution cell (with `replace` applied); return what it printed."""
    setup, solution = solution_cells(notebook, label)
    if replace:
        old, new = replace
        assert old in solution, f"the planted mistake's text {old!r} is not in the solution"
        solution = solution.replace(old, new)
    namespace, printed = {"__name__": "exercise"}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(setup, f"{notebook}:setup", "exec"), namespace)
        exec(compile(solution, f"{notebook}:{label}", "exec"), namespace)
    return printed.getvalue()


def ids(entry):
    return f"{entry[0][:2]}-{entry[1]}"


@pytest.mark.parametrize("notebook, label, mistake, phrases", EXERCISES, ids=map(ids, EXERCISES))
def test_the_solution_passes(notebook, label, mistake, phrases):
    printed = run(notebook, label)
    assert "✓" in printed and "✗" not in printed, printed


@pytest.mark.parametrize("notebook, label, mistake, phrases", EXERCISES, ids=map(ids, EXERCISES))
def test_a_planted_mistake_is_named(notebook, label, mistake, phrases):
    printed = run(notebook, label, mistake)
    assert "✗" in printed, f"the checker passed a wrong answer:\n{printed}"
    for phrase in phrases:
        assert phrase in printed, f"the report does not say {phrase!r}:\n{printed}"


def test_every_checker_is_exercised():
    """Each check_* function of engine.exercises is called by some solution in the table."""
    import engine.exercises
    checkers = {name for name in dir(engine.exercises) if name.startswith("check_")}
    called = {name for notebook, label, _, _ in EXERCISES
              for name in checkers if name + "(" in solution_cells(notebook, label)[1]}
    assert checkers <= called | {"check_op"}, f"untested checkers: {checkers - called}"
