"""The bug museum: every planted bug is caught by some check, and no check fires on the real engine."""
from engine.museum import BUGS, bug_museum, museum_checks, outcome


def test_every_planted_bug_is_caught():
    results = bug_museum()
    assert set(results) == set(BUGS)
    for bug, outcomes in results.items():
        assert any(o.startswith("caught") for o in outcomes.values()), (bug, outcomes)
        assert outcomes["finite differences (ops)"].startswith("caught"), (bug, outcomes)


def test_no_check_fires_without_a_bug():
    assert {name: outcome(check) for name, check in museum_checks().items()} == dict.fromkeys(
        museum_checks(), "missed")


def test_planting_is_undone():
    import engine.nn as nn
    import engine.tensor as ops
    before = (ops.unbroadcast, ops.backpropagate, ops.topological_order, ops.matmul.vjps,
              nn.matmul_vjp_a)
    bug_museum()
    assert before == (ops.unbroadcast, ops.backpropagate, ops.topological_order, ops.matmul.vjps,
                      nn.matmul_vjp_a)


def test_a_planted_rule_reaches_the_ops_that_call_it_by_name():
    """linear calls matmul's rules by name: the missing transpose must reach it too."""
    import numpy as np

    import engine.nn as nn
    from engine.museum import planted
    from engine.tensor import Tensor
    x, W, b = Tensor(np.ones((3, 3))), Tensor(np.arange(9.0).reshape(3, 3)), Tensor(np.zeros(3))
    nn.linear(x, W, b).sum().backward()
    right = x.grad.copy()
    with planted("missing transpose"):
        x.grad = None
        nn.linear(x, W, b).sum().backward()
        assert not np.allclose(x.grad, right)
