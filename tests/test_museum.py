"""The bug museum: every planted bug is caught by some check, and no check fires on the
real engine."""

from course.museum import bug_museum, BUGS, museum_checks, outcome


def test_every_planted_bug_is_caught():
    results = bug_museum()
    assert set(results) == set(BUGS)
    for bug, outcomes in results.items():
        assert any(o.startswith("caught") for o in outcomes.values()), (bug, outcomes)
        assert outcomes["finite differences (ops)"].startswith("caught"), (
            bug,
            outcomes,
        )


def test_no_check_fires_without_a_bug():
    assert {
        name: outcome(check) for name, check in museum_checks().items()
    } == dict.fromkeys(museum_checks(), "missed")


def test_planting_is_undone():
    import engine
    import engine.core as core
    import engine.ops as ops

    before = (
        core.unbroadcast,
        core.accumulate,
        core.topological_order,
        ops.matmul.vjps,
        engine.topological_order,
    )
    bug_museum()
    assert before == (
        core.unbroadcast,
        core.accumulate,
        core.topological_order,
        ops.matmul.vjps,
        engine.topological_order,
    )


def test_a_planted_bug_is_what_every_sweep_calls_and_only_for_the_while():
    """The museum's hook: the sweep's helpers by their names in engine.core, an op's
    rules in its vjps. Under a plant, backward() and grad() compute the bug's gradient;
    after it, the engine's own again, and no other name of the engine was touched."""
    import numpy as np

    from course.museum import planted
    import engine
    from engine import grad, Tensor
    import engine.core as core

    x = Tensor(np.array([1.5, -2.0]))
    with planted("assigned, not accumulated"):
        (x * x).sum().backward()  # x used twice: only one product kept
        assert np.array_equal(x.grad, x.data)
        (gx,) = grad((x * x).sum(), [x])
        assert np.array_equal(gx, x.data)
        assert engine.topological_order is core.topological_order
    x.grad = None
    (x * x).sum().backward()
    assert np.array_equal(x.grad, 2 * x.data)
    a, b = Tensor(np.eye(2) + 1), Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with planted("missing transpose"):
        (a @ b).sum().backward()
    assert np.array_equal(a.grad, np.ones((2, 2)) @ b.data)  # G B, not G Bᵀ
