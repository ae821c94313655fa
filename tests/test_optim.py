"""The optimisers against torch.optim: SGD (chapter 5) and Adam (chapter 7), their
shared base class, parameters that received no gradient, and the params and lr they
refuse."""

from fractions import Fraction

import numpy as np
import pytest
import torch

from engine.core import Tensor
from engine.optim import Adam, Optimizer, SGD


@pytest.mark.parametrize("lr", [0.5, 0.3])
def test_sgd_matches_torch(lr):
    """Bit-for-bit when lr * g is exact; otherwise PyTorch rounds p - lr*g once (a fused
    multiply-add)."""
    rng = np.random.default_rng(0)
    params = [Tensor(rng.normal(size=s)) for s in [(3, 2), (2,)]]
    witness = [torch.tensor(p.data, requires_grad=True) for p in params]
    ours, theirs = SGD(params, lr=lr), torch.optim.SGD(witness, lr=lr)
    for _ in range(5):
        for p, w in zip(params, witness):
            p.grad = rng.normal(size=p.shape)
            w.grad = torch.tensor(p.grad)
        before = [p.data for p in params]
        ours.step()
        theirs.step()
        for b, p, w in zip(before, params, witness):
            np.testing.assert_array_equal(p.data, b - lr * p.grad)
            rounded_once = [
                float(Fraction(x) - Fraction(lr) * Fraction(g))
                for x, g in zip(b.ravel(), p.grad.ravel())
            ]
            np.testing.assert_array_equal(w.detach().numpy().ravel(), rounded_once)
            w.data = torch.tensor(p.data)  # continue both from the same point
    if lr == 0.5:
        assert all(
            np.array_equal(p.data, w.detach().numpy()) for p, w in zip(params, witness)
        )
    ours.zero_grad()
    assert all(p.grad is None for p in params)


@pytest.mark.parametrize(
    "lr, betas, eps", [(1e-3, (0.9, 0.999), 1e-8), (3e-2, (0.8, 0.99), 1e-6)]
)
def test_adam_matches_torch_over_many_steps(lr, betas, eps):
    rng = np.random.default_rng(0)
    params = [Tensor(rng.normal(size=s)) for s in [(4, 3), (3,)]]
    witness = [torch.tensor(p.data, requires_grad=True) for p in params]
    ours = Adam(params, lr=lr, betas=betas, eps=eps)
    theirs = torch.optim.Adam(witness, lr=lr, betas=betas, eps=eps)
    for _ in range(1500):
        for p, w in zip(params, witness):
            p.grad = rng.normal(size=p.shape) * 10.0 ** rng.integers(-3, 3)
            w.grad = torch.tensor(p.grad)
        ours.step()
        theirs.step()
    for p, w in zip(params, witness):
        np.testing.assert_allclose(p.data, w.detach().numpy(), rtol=0, atol=1e-12)


def test_adam_zero_grad():
    p = Tensor([1.0])
    p.grad = np.array([3.0])
    Adam([p]).zero_grad()
    assert p.grad is None


def test_sgd_and_adam_share_one_base_class():
    assert issubclass(SGD, Optimizer) and issubclass(Adam, Optimizer)
    assert "zero_grad" not in vars(SGD) and "zero_grad" not in vars(Adam)  # the base's
    with pytest.raises(NotImplementedError, match="Optimizer does not define step"):
        Optimizer([Tensor([1.0])], lr=0.1).step()


@pytest.mark.parametrize("optimiser", [SGD, Adam])
def test_an_optimiser_given_one_tensor_says_so(optimiser):
    p = Tensor([1.0, 2.0])
    with pytest.raises(
        TypeError,
        match=optimiser.__name__ + r": params must be a list of Tensors, "
        r"got a single Tensor of shape \(2,\)",
    ):
        optimiser(p, lr=0.1)
    with pytest.raises(ValueError, match="not a leaf"):
        optimiser([p * 2.0], lr=0.1)
    with pytest.raises(ValueError, match="lr must be >= 0, got -0.1"):
        optimiser([p], lr=-0.1)


@pytest.mark.parametrize(
    "make, witness",
    [
        (lambda ps: SGD(ps, lr=0.1), lambda ps: torch.optim.SGD(ps, lr=0.1)),
        (lambda ps: Adam(ps, lr=0.1), lambda ps: torch.optim.Adam(ps, lr=0.1)),
    ],
    ids=["SGD", "Adam"],
)
def test_an_optimiser_skips_parameters_that_received_no_gradient(make, witness):
    rng = np.random.default_rng(0)
    start = [rng.normal(size=3), rng.normal(size=2)]
    grads = [
        [rng.normal(size=3), rng.normal(size=2)],
        [rng.normal(size=3), None],
        [None, rng.normal(size=2)],
        [rng.normal(size=3), rng.normal(size=2)],
    ]
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
            np.testing.assert_allclose(
                p.data, q.detach().numpy(), rtol=1e-12, atol=1e-14
            )
