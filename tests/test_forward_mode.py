"""Forward mode on dual numbers (chapter 9): ops without forward rules, the switch of
Op.__call__, memory that does not grow with depth, jvp of functions that close over
weights or return constants and losses, Jacobians column by column, in one batched pass
and row by row in reverse mode, forward-over-reverse Hessians, and threads, each against
PyTorch or the engine's reverse mode. What jvp refuses is in test_transforms.py."""

import threading
import tracemalloc

import numpy as np
import pytest
import torch

import engine.core
from engine.core import modes, Op, Tensor
from engine.forward import Dual, jvp
import engine.nn
import engine.ops
from engine.transforms import gradient_of_dual, jacobian_forward, jacobian_reverse


def test_an_op_without_forward_rule_is_named_not_silently_wrong():
    cos = Op("cos", np.cos, lambda g, out, x: -g * np.sin(x))
    with pytest.raises(
        NotImplementedError, match="cos has no forward rule for input 0"
    ):
        jvp(lambda x: cos(x), (np.ones(3),), (np.ones(3),))
    assert not modes.current.layers and modes.current.records  # restored after it


def test_every_op_of_the_engine_has_forward_rules():
    ops = {
        op.name: op
        for module in (engine.core, engine.ops, engine.nn)
        for op in vars(module).values()
        if isinstance(op, Op)
    }
    ruled = {
        name: op.elementwise or (op.jvps is not None and len(op.jvps) == len(op.vjps))
        for name, op in ops.items()
    }
    assert ops and all(ruled.values()), [name for name, ok in ruled.items() if not ok]


def test_jvp_is_a_mode_of_its_block_and_records_nothing_inside():
    W = Tensor(np.arange(6.0).reshape(2, 3))  # requires_grad, closed over: a constant
    seen = []

    def f(x):
        out = (W @ x).tanh()
        seen.append(
            (bool(modes.current.layers), type(out) is Dual, out.op, out.requires_grad)
        )
        return out

    jvp(f, (np.ones(3),), (np.ones(3),))
    assert not modes.current.layers and seen == [(True, True, None, False)]
    assert W.grad is None


def test_the_dual_keeps_every_field_of_a_recorded_tensor():
    # as_dual copies the tape's fields by name: a new Tensor slot must go there too
    assert set(Tensor.__slots__) == {
        "data",
        "grad",
        "requires_grad",
        "op",
        "inputs",
        "arrays",
        "params",
        "parents",
        "positions",
    }


def test_memory_does_not_grow_with_depth():
    x0 = np.ones(5_000)

    def peak(depth):
        tracemalloc.start()
        jvp(lambda x: chain(x, depth), (x0,), (x0,))
        result = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return result

    def chain(x, depth):
        for _ in range(depth):
            x = (x * 0.999).tanh()
        return x

    assert peak(3_000) < 1.5 * peak(100)


def test_jvp_of_a_function_closing_over_weights():
    rng = np.random.default_rng(1)
    W = Tensor(rng.normal(size=(3, 4)))
    x, u = rng.normal(size=4), rng.normal(size=4)
    value, tangent = jvp(lambda t: (W @ t).sigmoid() * t[1:], (x,), (u,))
    expected = torch.func.jvp(
        lambda t: (torch.tensor(W.data) @ t).sigmoid() * t[1:],
        (torch.tensor(x),),
        (torch.tensor(u),),
    )
    np.testing.assert_allclose(value, expected[0].numpy(), rtol=1e-15)
    np.testing.assert_allclose(tangent, expected[1].numpy(), rtol=1e-12, atol=1e-15)
    assert W.grad is None


def test_jvp_of_a_constant_and_of_a_cross_entropy_loss():
    value, tangent = jvp(lambda x: Tensor(np.ones(2)), (np.ones(3),), (np.ones(3),))
    np.testing.assert_array_equal(tangent, np.zeros(2))
    rng = np.random.default_rng(2)
    logits, u = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    targets = np.array([0, 2, 1, 1])
    _, ours = jvp(lambda z: engine.nn.cross_entropy(z, targets), (logits,), (u,))
    _, theirs = torch.func.jvp(
        lambda z: torch.nn.functional.cross_entropy(z, torch.tensor(targets)),
        (torch.tensor(logits),),
        (torch.tensor(u),),
    )
    assert abs(float(ours) - theirs.item()) <= 1e-14


def test_jacobians_both_ways_agree_and_count_passes():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(5, 3))
    f = lambda t: (A @ t).tanh()
    x = rng.normal(size=3)
    (J1, n_forward), (J2, n_reverse) = (
        jacobian_forward(f, x, batched=False),
        jacobian_reverse(f, x),
    )
    J3, n_batched = jacobian_forward(f, x)
    expected = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    np.testing.assert_allclose(J1, expected, rtol=1e-13)
    np.testing.assert_allclose(J2, expected, rtol=1e-13)
    np.testing.assert_allclose(J3, expected, rtol=1e-13)
    assert (n_forward, n_reverse, n_batched) == (3, 5, 1)


def test_batched_tangents_give_the_columns_of_the_jacobian():
    rng = np.random.default_rng(0)
    A, C = rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    f = lambda x: ((Tensor(A) @ x).tanh().T @ Tensor(C)).sum(axis=0)  # noqa: E731
    x = rng.normal(size=(4, 2))
    J_batched, one = jacobian_forward(f, x)
    J_columns, n = jacobian_forward(f, x, batched=False)
    J_rows, m = jacobian_reverse(f, x)
    assert (one, n, m) == (1, 8, 3) and J_batched.shape == (3, 4, 2)
    np.testing.assert_allclose(J_batched, J_rows, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(J_columns, J_rows, rtol=1e-13, atol=1e-15)


def test_forward_over_reverse_gives_the_hessian_in_one_batched_pass():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(5, 4))
    x0 = rng.normal(size=4)

    def f(x):
        return ((A @ x).sigmoid().log() ** 2).sum() + (x**3).sum()

    def f_torch(x):
        return ((torch.tensor(A) @ x).sigmoid().log() ** 2).sum() + (x**3).sum()

    expected = torch.autograd.functional.hessian(f_torch, torch.tensor(x0)).numpy()
    H = jvp(lambda t: gradient_of_dual(f, t), (x0,), (np.eye(4),), batched=True)[1]
    np.testing.assert_allclose(H, expected, rtol=1e-12, atol=1e-14)


def test_concurrent_jvps_in_threads_are_correct_and_restore_the_call():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(6, 6))
    expected = {}
    results, errors = {}, []

    def work(k):
        try:
            x, u = np.full(6, 0.1 * k), np.ones(6)
            for _ in range(50):
                results[k] = jvp(lambda t: (Tensor(A) @ t).tanh(), (x,), (u,))[1]
                (Tensor(np.ones(3)) * 2.0).sum()  # tape ops in this thread meanwhile
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    for k in range(4):
        expected[k] = (1 - np.tanh(A @ np.full(6, 0.1 * k)) ** 2) * (A @ np.ones(6))
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and not modes.current.layers
    for k in range(4):
        np.testing.assert_allclose(results[k], expected[k], rtol=1e-13)


def test_jvp_in_one_thread_leaves_other_threads_on_the_tape():
    """The mode is per thread: ops another thread runs meanwhile record as usual, and a
    census in this thread counts the ops inside its jvp."""
    from engine.memory import ArrayCensus

    inside, done, seen = threading.Event(), threading.Event(), {}

    def f(x):
        inside.set()
        done.wait(10)
        return (x * 2.0).exp()

    def forward_in_background():
        seen["tangent"] = jvp(f, (np.ones(2),), (np.ones(2),))[1]

    worker = threading.Thread(target=forward_in_background)
    worker.start()
    inside.wait(10)
    recorded = Tensor([1.0, 2.0]) * 3.0  # this thread, while the other is in jvp
    done.set()
    worker.join()
    assert recorded.op is not None and type(recorded) is Tensor
    np.testing.assert_allclose(seen["tangent"], 2 * np.exp(2.0) * np.ones(2))
    with ArrayCensus() as census:
        jvp(lambda x: (x * 2.0).exp().sum(), (np.ones(3),), (np.ones(3),))
    assert census.ops == 3
