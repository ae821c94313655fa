"""The bug museum: every planted bug is caught by some check, and no check fires on the real engine."""
from course.museum import BUGS, bug_museum, museum_checks, outcome


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
    import engine
    import engine.core as core
    import engine.ops as ops
    before = (core.unbroadcast, core.accumulate, core.topological_order, ops.matmul.vjps,
              engine.topological_order)
    bug_museum()
    assert before == (core.unbroadcast, core.accumulate, core.topological_order,
                      ops.matmul.vjps, engine.topological_order)


def test_a_planted_function_reaches_every_name_the_engine_holds_it_by():
    """topological_order is a name of engine.core and of the package engine: both see the bug."""
    import engine
    import engine.core as core
    from course.museum import planted, preorder
    with planted("order that does not wait"):
        assert core.topological_order is preorder and engine.topological_order is preorder
    assert engine.topological_order is core.topological_order is not preorder
