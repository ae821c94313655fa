"""Forward mode, grad(create_graph=True) and Hessian-vector products, for every op, against PyTorch
(and the second-order rules against finite differences), on shapes that hypothesis generates."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from test_properties import CASES, shapes_for

from course.verification import (jvp_batch_error, jvp_vjp_consistency_error,
                                 second_order_error)
from engine.core import Tensor
from engine.forward import jvp
from engine.transforms import (grad, hvp, hvp_forward_over_reverse, jacobian_forward,
                               jacobian_reverse)
from course.witness import jvp_torch_error, second_order_torch_error

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
    np.testing.assert_allclose(d3, -2 * (1 - t**2) * (1 - 3 * t**2), rtol=1e-13, atol=1e-15)


def test_grad_leaves_dot_grad_alone_and_handles_unused_inputs():
    x, unused = Tensor([1.0, 2.0]), Tensor([5.0])
    (gx, gu) = grad((x * x).sum(), [x, unused])
    np.testing.assert_array_equal(gx, [2.0, 4.0])
    np.testing.assert_array_equal(gu, [0.0])
    assert x.grad is None
    with pytest.raises(ValueError, match="scalar"):
        grad(x * x, [x])


def network_loss(rng):
    W = rng.normal(size=(4, 5))
    X = rng.normal(size=(7, 4))

    def ours(w):
        return ((X @ (w.reshape(4, 5) * W)).tanh() ** 2).mean() + (w ** 4).sum() * 0.01

    def theirs(w):
        return ((torch.tensor(X) @ (w.reshape(4, 5) * torch.tensor(W))).tanh() ** 2).mean() + (w ** 4).sum() * 0.01

    return ours, theirs


def test_hvp_against_torch_both_ways():
    rng = np.random.default_rng(0)
    ours, theirs = network_loss(rng)
    x, v = rng.normal(size=20), rng.normal(size=20)
    expected = torch.autograd.functional.hvp(theirs, torch.tensor(x), torch.tensor(v))[1].numpy()
    np.testing.assert_allclose(hvp(ours, x, v), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hvp_forward_over_reverse(ours, x, v), expected, rtol=1e-12, atol=1e-14)


def test_jvp_of_a_function_closing_over_weights():
    rng = np.random.default_rng(1)
    W = Tensor(rng.normal(size=(3, 4)))
    x, u = rng.normal(size=4), rng.normal(size=4)
    value, tangent = jvp(lambda t: (W @ t).sigmoid() * t[1:], (x,), (u,))
    expected = torch.func.jvp(lambda t: (torch.tensor(W.data) @ t).sigmoid() * t[1:],
                              (torch.tensor(x),), (torch.tensor(u),))
    np.testing.assert_allclose(value, expected[0].numpy(), rtol=1e-15)
    np.testing.assert_allclose(tangent, expected[1].numpy(), rtol=1e-12, atol=1e-15)
    assert W.grad is None


def test_jacobians_both_ways_agree_and_count_passes():
    rng = np.random.default_rng(2)
    A = rng.normal(size=(5, 3))
    f = lambda t: (A @ t).tanh()
    x = rng.normal(size=3)
    (J1, n_forward), (J2, n_reverse) = jacobian_forward(f, x, batched=False), jacobian_reverse(f, x)
    J3, n_batched = jacobian_forward(f, x)
    expected = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    np.testing.assert_allclose(J1, expected, rtol=1e-13)
    np.testing.assert_allclose(J2, expected, rtol=1e-13)
    np.testing.assert_allclose(J3, expected, rtol=1e-13)
    assert (n_forward, n_reverse, n_batched) == (3, 5, 1)
