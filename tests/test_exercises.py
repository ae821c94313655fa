"""Every exercise checker, run on the book's hidden solution (it must pass) and on a
planted wrong answer (it must fail, and its report must say what is wrong).

An entry names the notebook and the solution cell (the code cell whose first line starts
with `# Solution N.M`), a replacement that plants one mistake in that cell's source, and
phrases the checker's report must contain for the planted mistake. The solution cell
runs after the notebook's first code cell (its imports), or, for an entry whose label
ends in "*", after every earlier code cell of the chapter's main line (not a solution,
an expected error or a timing); it must call its checker (without assert: the printed ✓
is compared by nbval)."""

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest


BOOK = Path(__file__).resolve().parent.parent / "book"

# (notebook, solution label, (old, new) planting a mistake, phrases its report must
# contain)
EXERCISES = [
    (
        "18_anatomy.ipynb",
        "A.1",
        ("g * sigmoid(x)", "g * sigmoid(-x)"),
        ["✗ softplus", "local rule vs central differences", "second derivatives"],
    ),
    (
        "01_tape.ipynb",
        "1.1*",
        ("g * x / out", "g / out"),
        ["✗ hypot", "gradient of input 0", "entries wrong"],
    ),
    (
        "02_matmul_vjp.ipynb",
        "2.1",
        ("-(out_t @ g @ out_t)", "-(out @ g @ out)"),
        ["✗ inv", "case 1 (shape (3, 3)), gradient of input 0", "entries wrong"],
    ),
    (
        "03_broadcasting.ipynb",
        "3.1",
        (
            "m = np.max(x, axis=axis, keepdims=True)",
            "m = 0 * np.max(x, axis=axis, keepdims=True)",
        ),
        ["✗ logsumexp", "near 1000, axis=-1, forward", "got inf"],
    ),
    (
        "03_broadcasting.ipynb",
        "3.1",
        ("exp(x - out.reshape(kept))", "exp(x)"),
        [
            "✗ logsumexp",
            "axis=(0, 2), keepdims=False), gradient of input 0",
            "entries wrong",
        ],
    ),
    (
        "06_tape_visualization.ipynb",
        "6.1",
        (
            "len(node.parents) for node in nodes",
            "len({id(p) for p in node.parents}) for node in nodes",
        ),
        [
            "✗ graph_stats",
            "'(v * v).sum(), a leaf used twice': edges: got 2, expected 3",
        ],
    ),
    (
        "06_tape_visualization.ipynb",
        "6.1",
        ("max((depth", "min((depth"),
        ["✗ graph_stats", "a skip connection': depth: got 1, expected 4"],
    ),
    (
        "06_tape_visualization.ipynb",
        "6.2",
        ("h.tanh() * h", "h * h.tanh()"),
        [
            "✗ bug finder",
            "MISSED",
            "missed 'order that does not wait'",
            "a node that two ops use",
        ],
    ),
    (
        "09_forward_mode.ipynb",
        "9.1",
        ("axis % x.ndim + 1", "axis"),
        [
            "✗ cumsum",
            "case 0 (shape (6,), axis=0), tangent of input 0 (one direction)",
            "entries wrong",
        ],
    ),
    (
        "09_forward_mode.ipynb",
        "9.1",
        ("- cumsum(g, axis=axis) + g", "- cumsum(g, axis=axis)"),
        [
            "✗ cumsum",
            "case 1 (shape (3, 4), axis=0), gradient of input 0",
            "entries wrong",
        ],
    ),
]


def solution_cells(notebook, label):
    """(the code to run first, the cell whose first line starts `# Solution label`)."""
    cells = [
        c
        for c in json.loads((BOOK / notebook).read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "code"
    ]
    whole_chapter, label = label.endswith("*"), label.rstrip("*")
    for index, cell in enumerate(cells):
        source = "".join(cell["source"])
        if source.startswith(f"# Solution {label}"):
            skip = {"hide-cell", "raises-exception"}
            earlier = [
                c
                for c in cells[:index]
                if not skip & set(c["metadata"].get("tags", []))
                and not "".join(c["source"]).startswith("# Timing")
            ]
            setup = earlier if whole_chapter else cells[:1]
            return "\n\n".join("".join(c["source"]) for c in setup), source
    raise LookupError(f"{notebook}: no code cell starts with '# Solution {label}'")


def run(notebook, label, replace=None):
    """Run the setup and the solution cell (with `replace` applied); return what it
    printed."""
    setup, solution = solution_cells(notebook, label)
    if replace:
        old, new = replace
        assert old in solution, (
            f"the planted mistake's text {old!r} is not in the solution"
        )
        solution = solution.replace(old, new)
    namespace, printed = {"__name__": "exercise"}, io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(setup, f"{notebook}:setup", "exec"), namespace)
        exec(compile(solution, f"{notebook}:{label}", "exec"), namespace)
    return printed.getvalue()


def ids(entry):
    return f"{entry[0][:2]}-{entry[1]}"


@pytest.mark.parametrize(
    "notebook, label, mistake, phrases", EXERCISES, ids=map(ids, EXERCISES)
)
def test_the_solution_passes(notebook, label, mistake, phrases):
    printed = run(notebook, label)
    assert "✓" in printed and "✗" not in printed, printed


@pytest.mark.parametrize(
    "notebook, label, mistake, phrases", EXERCISES, ids=map(ids, EXERCISES)
)
def test_a_planted_mistake_is_named(notebook, label, mistake, phrases):
    printed = run(notebook, label, mistake)
    assert "✗" in printed, f"the checker passed a wrong answer:\n{printed}"
    for phrase in phrases:
        assert phrase in printed, f"the report does not say {phrase!r}:\n{printed}"


def test_every_checker_is_exercised():
    """Each check_* function of course.exercises is called by some solution in the
    table."""
    import course.exercises

    checkers = {name for name in dir(course.exercises) if name.startswith("check_")}
    called = {
        name
        for notebook, label, _, _ in EXERCISES
        for name in checkers
        if name + "(" in solution_cells(notebook, label)[1]
    }
    assert checkers <= called | {"check_op"}, f"untested checkers: {checkers - called}"


WEEK_ONE = [entry for entry in EXERCISES if entry[0][:2] in ("01", "02", "03")]


@pytest.mark.parametrize(
    "notebook, label, mistake, phrases", WEEK_ONE, ids=map(ids, WEEK_ONE)
)
def test_a_chapters_checker_needs_no_later_task(
    notebook, label, mistake, phrases, monkeypatch
):
    """The checkers of chapters 1 to 3 judge a correct answer while the tasks of later
    chapters are still stubs, as in a student's edition: `grad` (chapter 10) and `jvp`
    (chapter 9) raise NotImplementedError wherever the engine holds them."""
    import sys

    def stub(*args, **kwargs):
        raise NotImplementedError("a later chapter's task, not done yet")

    for name, module in list(sys.modules.items()):
        if (name == "engine" or name.startswith("engine.")) and module is not None:
            for later in ("grad", "jvp"):
                if hasattr(module, later):
                    monkeypatch.setattr(module, later, stub)
    printed = run(notebook, label)
    assert "✓" in printed and "✗" not in printed, printed


# Local rules that fail on Tensors, each with the hint its report must give (or not).
# The hint to use the engine's ops belongs only to a rule that hands NumPy a Tensor or
# returns NumPy's arrays; a shape mistake is reported as the error it is.
USE_OPS = "use the engine's ops, not NumPy's functions"


def outer_with_a_broadcasting_mistake():
    """np.outer with a rule for b that multiplies g (3, 4) by a (3,): no broadcast."""
    from engine import Op

    return Op(
        "outer",
        np.outer,
        lambda g, out, a, b: g @ b,  # d(a bᵀ)/da: G b
        lambda g, out, a, b: g * a,  # wrong: should be aᵀ G
    )


def array_of(value):
    """The array inside a Tensor (what `.data` gives), or the array itself."""
    from engine import Tensor

    return value.data if isinstance(value, Tensor) else value


def square_with(rule):
    from engine import Op

    return Op("square", np.square, rule)


NUMPY_RULES = {
    "a ufunc on a Tensor": (
        lambda g, out, x: 2 * g * np.multiply(x, 1.0),
        "a NumPy ufunc was given a Tensor",
    ),
    "np.sum on a Tensor": (
        lambda g, out, x: 2 * g * x * np.sum(x) / np.sum(x),
        "NumPy's sum() was called on a Tensor",
    ),
    "the arrays inside the Tensors": (
        lambda g, out, x: 2 * array_of(g) * array_of(x),
        "a NumPy array (float64)",
    ),
}


def test_a_broadcasting_mistake_in_a_rule_is_reported_as_the_error_it_is():
    from course.exercises import check_op, rule_problems, second_sweep_problems
    from engine import Tensor

    op, arrays = outer_with_a_broadcasting_mistake(), [np.ones(3), np.ones(4)]
    for problems in (
        second_sweep_problems(op, arrays, "case 0"),
        rule_problems(op, arrays, "case 0", Tensor),
    ):
        (problem,) = problems
        assert "the local rule" in problem and "for input 1" in problem, problem
        assert "raised ValueError" in problem and "(3,4) (3,)" in problem, problem
        assert USE_OPS not in problem and "not written with Tensors" not in problem
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert not check_op("outer", op, np.outer, [((3,), (4,))])
    assert "could not be broadcast" in printed.getvalue()
    assert USE_OPS not in printed.getvalue(), printed.getvalue()


@pytest.mark.parametrize("kind", NUMPY_RULES)
def test_a_rule_that_uses_numpy_on_tensors_is_told_to_use_the_engines_ops(kind):
    from course.exercises import check_op, rule_problems, second_sweep_problems
    from engine import Tensor

    rule, evidence = NUMPY_RULES[kind]
    op, arrays = square_with(rule), [np.linspace(0.1, 1.0, 3)]
    for problems in (
        second_sweep_problems(op, arrays, "case 0"),
        rule_problems(op, arrays, "case 0", Tensor),
    ):
        (problem,) = problems
        assert evidence in problem and USE_OPS in problem, problem
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):  # right numbers on arrays: only the hint
        assert not check_op("square", op, np.square, [((3,),)])
    assert printed.getvalue().count("  - ") == 1 and USE_OPS in printed.getvalue()


def test_a_rule_written_with_the_engines_ops_gets_no_hint():
    from course.exercises import rule_problems, second_sweep_problems
    from engine import Tensor

    op, arrays = square_with(lambda g, out, x: 2 * g * x), [np.ones(3)]
    assert second_sweep_problems(op, arrays, "case 0") == []
    assert rule_problems(op, arrays, "case 0", Tensor) == []


def test_a_rule_that_returns_the_wrong_shape_is_reported_as_the_error_it_is():
    """g of shape (3, 4) returned as the gradient of a of shape (3,): the sweep's own
    error, named as it is, with no word of NumPy."""
    from course.exercises import second_sweep_problems
    from engine import Op

    op = Op(
        "outer",
        np.outer,
        lambda g, out, a, b: g,  # wrong: should be G b
        lambda g, out, a, b: a @ g,  # d(a bᵀ)/db: aᵀ G
    )
    (problem,) = second_sweep_problems(op, [np.ones(3), np.ones(4)], "case 0")
    assert "raised ValueError" in problem and "shape (3, 4)" in problem, problem
    assert USE_OPS not in problem and "not written with Tensors" not in problem
