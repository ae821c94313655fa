"""Gradient checkpointing (chapter 12): the same gradients as the plain sweep, in every
way the engine differentiates, and memory that grows sublinearly with depth, asserted by
counting live arrays and recorded nodes (never bytes or times)."""

import numpy as np
import pytest

from engine import ArrayCensus, checkpoint, grad, jvp, no_grad, Tensor
from engine.core import graph_footprint, modes
from engine.nn import linear


WIDTH = 6
X = np.random.default_rng(1).normal(size=(8, WIDTH))


def residual_params(depth, seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for _ in range(depth):
        params += [
            Tensor(rng.normal(size=(WIDTH, WIDTH)) / np.sqrt(WIDTH)),
            Tensor(rng.normal(size=WIDTH) * 0.1),
        ]
    return params


def blocks(h, *params):
    for W, b in zip(params[::2], params[1::2]):
        h = h + linear(h, W, b).tanh()
    return h


def segmented(h, params, every):
    for start in range(0, len(params), 2 * every):
        h = checkpoint(blocks, h, *params[start : start + 2 * every])
    return h


def two_level(h, params, k):
    def outer(h, *segment):
        return segmented(h, segment, k)

    for start in range(0, len(params), 2 * k * k):
        h = checkpoint(outer, h, *params[start : start + 2 * k * k])
    return h


def mean_square(h):
    return (h * h).mean()


def assert_close(got, want, tol=1e-12):
    for g, w in zip(got, want):
        g = g.data if isinstance(g, Tensor) else g
        assert np.shape(g) == np.shape(w)
        assert np.abs(g - w).max() <= tol * max(1.0, np.abs(w).max())


@pytest.mark.parametrize("every", [1, 2, 3, 5, 12, 20])
def test_grad_matches_the_plain_sweep(every):
    params, x = residual_params(12), Tensor(X)
    plain = grad(mean_square(blocks(x, *params)), [x] + params)
    assert_close(grad(mean_square(segmented(x, params, every)), [x] + params), plain)


def test_backward_matches_and_can_run_twice():
    params = residual_params(9)
    plain = grad(mean_square(blocks(X, *params)), params)
    loss = mean_square(segmented(X, params, 3))
    loss.backward(retain_graph=True)
    assert_close([p.grad for p in params], plain)
    loss.backward()  # the graph was kept: a second sweep replays again
    assert_close([p.grad for p in params], [2 * g for g in plain])


def test_create_graph_second_derivatives_match():
    params, x = residual_params(6, seed=2), Tensor(X)
    directions = [np.random.default_rng(3).normal(size=p.shape) for p in params]

    def hessian_times_directions(build):
        gradients = grad(mean_square(build(x, params)), params, create_graph=True)
        assert all(isinstance(g, Tensor) for g in gradients)
        inner = sum((g * v).sum() for g, v in zip(gradients, directions))
        return grad(inner, [x] + params)

    plain = hessian_times_directions(lambda h, p: blocks(h, *p))
    assert_close(
        hessian_times_directions(lambda h, p: segmented(h, p, 2)), plain, tol=1e-10
    )


def test_nested_checkpoints_match():
    params = residual_params(16)
    plain = grad(mean_square(blocks(X, *params)), params)
    assert_close(grad(mean_square(two_level(X, params, 2)), params), plain)


def test_repeated_and_constant_inputs():
    x = Tensor([1.0, 2.0, 3.0])
    y = checkpoint(lambda a, c, b: (a * b * c).exp(), x, 0.5, x)
    (g,) = grad(y.sum(), [x])
    expected = (
        2 * 0.5 * np.array([1.0, 2.0, 3.0]) * np.exp(0.5 * np.array([1.0, 4.0, 9.0]))
    )
    assert np.allclose(g, expected, rtol=1e-13)


def test_an_input_that_needs_no_gradient_gets_none_asked():
    x, w = Tensor(X, requires_grad=False), Tensor(np.ones(WIDTH))
    out = checkpoint(lambda a, b: (a * b).tanh(), x, w)
    (gw,) = grad(out.sum(), [w])
    assert np.allclose(gw, (X * (1 - np.tanh(X) ** 2)).sum(axis=0), rtol=1e-13)


def test_a_closed_over_parameter_is_an_error():
    (W, b) = residual_params(1)
    out = checkpoint(lambda h: h + linear(h, W, b).tanh(), Tensor(X))
    with pytest.raises(ValueError, match="not one of its inputs"):
        grad(mean_square(out), [W, b])


def test_f_must_return_a_tensor():
    with pytest.raises(TypeError, match="must return a Tensor"):
        checkpoint(lambda a: a.data * 2, Tensor([1.0, 2.0]))


def test_without_a_tape_it_just_calls_f():
    params = residual_params(4)
    with no_grad():
        out = checkpoint(blocks, Tensor(X), *params)
    assert out.op is None and not out.requires_grad
    f = lambda x: checkpoint(lambda h: (h * h).tanh(), x).sum()
    value, tangent = jvp(f, (X,), (np.ones_like(X),))
    assert np.isclose(value, np.tanh(X * X).sum(), rtol=1e-13)
    assert np.isclose(tangent, (2 * X * (1 - np.tanh(X * X) ** 2)).sum(), rtol=1e-12)


def test_recorded_nodes_are_one_per_segment():
    for depth in (16, 64):
        params, k = residual_params(depth), int(np.sqrt(depth))
        assert graph_footprint(mean_square(blocks(X, *params)))[0] == 3 * depth + 3
        assert (
            graph_footprint(mean_square(segmented(X, params, k)))[0] == depth // k + 3
        )


def peak_live_arrays(depth, build):
    params = residual_params(depth)
    with ArrayCensus() as census:
        loss = mean_square(build(X, params))
        grad(loss, params)
        del loss
    assert census.alive == 0  # everything the step made is freed afterwards
    return census.peak, census.ops


def test_live_arrays_grow_like_sqrt_depth():
    depths = (16, 64, 256)
    plain = {d: peak_live_arrays(d, lambda h, p: blocks(h, *p))[0] for d in depths}
    sqrt = {
        d: peak_live_arrays(d, lambda h, p, d=d: segmented(h, p, int(np.sqrt(d))))[0]
        for d in depths
    }
    for d in depths:
        k = int(np.sqrt(d))
        assert plain[d] == 3 * d + 3
        assert sqrt[d] == d // k + 3 * k + 3
        assert sqrt[d] <= 5 * np.sqrt(d)
    # 16 times the depth: the plain peak grows about 16 times, the checkpointed one
    # about 4
    assert plain[256] / plain[16] > 14 and sqrt[256] / sqrt[16] < 4.5


def test_the_price_is_one_more_forward_pass():
    depth, k = 64, 8
    _, plain_ops = peak_live_arrays(depth, lambda h, p: blocks(h, *p))
    _, ops = peak_live_arrays(depth, lambda h, p: segmented(h, p, k))
    assert plain_ops == 3 * depth + 3 and ops == 2 * 3 * depth + depth // k + 3


def test_two_levels_use_less_memory_and_one_more_pass():
    peak, ops = peak_live_arrays(64, lambda h, p: two_level(h, p, 4))
    assert peak == 4 + 4 + 3 * 4 + 3 < 8 + 3 * 8 + 3
    assert ops == 3 * 3 * 64 + 4 + 16 + 3


def test_census_restores_the_mode_even_after_an_error():
    before = modes.current
    with pytest.raises(RuntimeError):
        with ArrayCensus() as census:
            assert census in modes.current.layers
            raise RuntimeError("inside the census")
    assert modes.current is before
