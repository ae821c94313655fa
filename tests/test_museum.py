"""The bug museum: every planted bug is caught by some check, and no check fires on the real engine."""
from engine.check import BUGS, bug_museum, museum_checks, outcome


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
    import engine.tensor as ops
    before = (ops.unbroadcast, ops.backpropagate, ops.topological_order, ops.matmul.vjps)
    bug_museum()
    assert before == (ops.unbroadcast, ops.backpropagate, ops.topological_order, ops.matmul.vjps)
