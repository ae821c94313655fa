"""Correctness at the edges, each against PyTorch where PyTorch has an answer: 0-d inputs in forward
mode, empty axes, 0-d transposes, NaN and infinite inputs, zero exponents and the derivatives
they feed, and optimisers given parameters that received no gradient."""
import warnings

import numpy as np
import pytest
import torch

from engine import SGD, Adam, Tensor, grad, jvp
from engine.nn import log_softmax


@pytest.mark.parametrize("reduce", [lambda x: x.sum(), lambda x: x.mean(), lambda x: x.max(),
                                    lambda x: x.sum(axis=0), lambda x: x.max(axis=-1),
                                    lambda x: x.sum(keepdims=True)],
                         ids=["sum", "mean", "max", "sum axis 0", "max axis -1", "keepdims"])
def test_forward_mode_of_a_reduction_of_a_0d_input(reduce):
    value, tangent = jvp(reduce, (np.array(2.0),), (np.array(3.0),))
    assert value == 2.0 and tangent == 3.0


def test_log_softmax_over_an_empty_last_axis():
    x = Tensor(np.zeros((3, 0)))
    out = log_softmax(x)
    assert out.shape == (3, 0) == tuple(torch.log_softmax(torch.zeros(3, 0), -1).shape)
    out.sum().backward()
    assert x.grad.shape == (3, 0)
    assert log_softmax(Tensor(np.zeros(0))).shape == (0,)


@pytest.mark.parametrize("swap", [(0, 0), (0, -1), (-1, -1)])
def test_swapaxes_of_a_0d_tensor(swap):
    x = Tensor(2.0)
    y = x.swapaxes(*swap)
    assert y.shape == () and y.data == 2.0 == float(torch.tensor(2.0).swapaxes(*swap))
    (y * 3.0).backward()
    assert x.grad == 3.0
    assert x.transpose().shape == () and x.T.shape == ()


def test_relu_at_nan_passes_the_gradient_as_pytorch_does():
    values = [np.nan, -1.0, 0.0, 2.0]
    x = Tensor(values)
    out = x.relu()
    out.sum().backward()
    witness = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    expected = torch.relu(witness)
    expected.sum().backward()
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    np.testing.assert_array_equal(x.grad, witness.grad.numpy())


@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1, 2.5, 0, 1, -0.5])
def test_power_at_zero_and_infinities(exponent):
    """Against PyTorch wherever the two compute the same value (at -inf with a fractional
    exponent NumPy's power gives 0 where PyTorch's gives NaN for p < 0); and never a
    finite slope beside a NaN value."""
    values = [-np.inf, -1.0, 0.0, 1.0, np.inf]
    x = Tensor(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = x ** exponent
        out.sum().backward()
    witness = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    expected = witness ** exponent
    expected.sum().backward()
    same = (out.data == expected.detach().numpy()) | (np.isnan(out.data)
                                                     & np.isnan(expected.detach().numpy()))
    assert same.sum() >= 4
    got, want = x.grad[same], witness.grad.numpy()[same]
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    assert np.all(np.isnan(x.grad[np.isnan(out.data)]))


def test_the_third_derivative_of_z_squared_at_zero_is_zero():
    z = Tensor(0.0)
    (first,) = grad(z ** 2, [z], create_graph=True)
    (second,) = grad(first, [z], create_graph=True)
    (third,) = grad(second, [z])
    assert (first.data, second.data, third) == (0.0, 2.0, 0.0)


@pytest.mark.parametrize("make, witness", [
    (lambda ps: SGD(ps, lr=0.1), lambda ps: torch.optim.SGD(ps, lr=0.1)),
    (lambda ps: Adam(ps, lr=0.1), lambda ps: torch.optim.Adam(ps, lr=0.1)),
], ids=["SGD", "Adam"])
def test_an_optimiser_skips_parameters_that_received_no_gradient(make, witness):
    rng = np.random.default_rng(0)
    start = [rng.normal(size=3), rng.normal(size=2)]
    grads = [[rng.normal(size=3), rng.normal(size=2)], [rng.normal(size=3), None],
             [None, rng.normal(size=2)], [rng.normal(size=3), rng.normal(size=2)]]
    ours = [Tensor(p.copy()) for p in start]
    theirs = [torch.tensor(p, requires_grad=True) for p in start]
    optimiser, reference = make(ours), witness(theirs)
    for step in grads:
        for p, q, g in zip(ours, theirs, step):
            p.grad = None if g is None else g.copy()
            q.grad = None if g is None else torch.tensor(g)
        optimiser.step()
        reference.step()
        for p, q in zip(ours, theirs):
            np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_a_leaf_has_no_gradient_until_a_sweep_reaches_it():
    x, unused = Tensor([1.0, 2.0]), Tensor([3.0])
    assert x.grad is None and unused.grad is None
    (x * x).sum().backward()
    assert unused.grad is None and np.array_equal(x.grad, [2.0, 4.0])
