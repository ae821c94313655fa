"""Forward mode, grad(create_graph=True) and Hessian-vector products, for every op,
against PyTorch (and the second-order rules against finite differences), on shapes that
hypothesis generates (helpers.shapes_for); third derivatives, and both ways of computing
a Hessian-vector product against PyTorch's."""

from helpers import CASES, shapes_for
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
import numpy as np
import pytest
import torch

from course.verification import (
    jvp_batch_error,
    jvp_vjp_consistency_error,
    second_order_error,
)
from course.witness import jvp_torch_error, second_order_torch_error
from engine.core import Tensor
from engine.transforms import grad, hvp, hvp_forward_over_reverse


HIGHER_ORDER_CHECKS = {
    "jvp vs torch.func.jvp": (jvp_torch_error, 1e-13),
    "<v, Ju> = <Jᵀv, u>": (jvp_vjp_consistency_error, 1e-12),
    "k directions = k passes": (jvp_batch_error, 1e-15),
    "second order vs torch": (second_order_torch_error, 1e-14),
    "second order vs finite differences": (second_order_error, 1e-7),
}


@pytest.mark.parametrize("check", HIGHER_ORDER_CHECKS)
@pytest.mark.parametrize("name", CASES)
def test_every_op(name, check):
    case = CASES[name]
    function, tolerance = HIGHER_ORDER_CHECKS[check]

    @settings(max_examples=examples(ci=8))
    @given(shapes_for(case), st.integers(0, 2**16))
    def run(shapes, seed):
        assert function(case, shapes, seed) <= tolerance

    run()


def test_third_derivative_of_tanh():
    x = Tensor(np.linspace(-2, 2, 9))
    (d1,) = grad(x.tanh().sum(), [x], create_graph=True)
    (d2,) = grad(d1.sum(), [x], create_graph=True)
    (d3,) = grad(d2.sum(), [x])
    t = np.tanh(x.data)
    np.testing.assert_allclose(
        d3, -2 * (1 - t**2) * (1 - 3 * t**2), rtol=1e-13, atol=1e-15
    )


def test_the_third_derivative_of_z_squared_at_zero_is_zero():
    z = Tensor(0.0)
    (first,) = grad(z**2, [z], create_graph=True)
    (second,) = grad(first, [z], create_graph=True)
    (third,) = grad(second, [z])
    assert (first.data, second.data, third) == (0.0, 2.0, 0.0)


def network_loss(rng):
    W = rng.normal(size=(4, 5))
    X = rng.normal(size=(7, 4))

    def ours(w):
        return ((X @ (w.reshape(4, 5) * W)).tanh() ** 2).mean() + (w**4).sum() * 0.01

    def theirs(w):
        return (
            (torch.tensor(X) @ (w.reshape(4, 5) * torch.tensor(W))).tanh() ** 2
        ).mean() + (w**4).sum() * 0.01

    return ours, theirs


def test_hvp_against_torch_both_ways():
    rng = np.random.default_rng(0)
    ours, theirs = network_loss(rng)
    x, v = rng.normal(size=20), rng.normal(size=20)
    expected = torch.autograd.functional.hvp(theirs, torch.tensor(x), torch.tensor(v))[
        1
    ].numpy()
    np.testing.assert_allclose(hvp(ours, x, v), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        hvp_forward_over_reverse(ours, x, v), expected, rtol=1e-12, atol=1e-14
    )
