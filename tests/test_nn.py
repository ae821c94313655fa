"""The network pieces: MLP, cross-entropy, SGD and the spiral data, against PyTorch where it applies."""
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import torch

from engine import Tensor
from engine.check import gradcheck, torch_check
from engine.data import spiral
from engine.nn import MLP, cross_entropy
from engine.optim import SGD


def test_engine_never_imports_torch():
    code = "import sys, engine, engine.check, engine.nn, engine.optim, engine.data; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_mlp_structure():
    net = MLP([2, 16, 8, 3], seed=0)
    assert [p.shape for p in net.params] == [(2, 16), (16,), (16, 8), (8,), (8, 3), (3,)]
    assert net(Tensor(np.ones((5, 2)))).shape == (5, 3)
    assert all(np.array_equal(a.data, b.data) for a, b in zip(net.params, MLP([2, 16, 8, 3], seed=0).params))
    assert not np.array_equal(net.params[0].data, MLP([2, 16, 8, 3], seed=1).params[0].data)


def test_zero_grad():
    net = MLP([2, 4, 3], seed=0)
    cross_entropy(net(np.ones((2, 2))), [0, 1]).backward()
    net.zero_grad()
    assert all(not p.grad.any() for p in net.params)


@pytest.mark.parametrize("scale", [1.0, 1000.0])
def test_cross_entropy_matches_torch_and_is_stable(scale):
    rng = np.random.default_rng(0)
    logits0 = scale * np.sign(rng.normal(size=(6, 4)))
    logits0[0, 1] = -scale
    targets = np.array([0, 1, 2, 3, 1, 0])
    logits = Tensor(logits0)
    loss = cross_entropy(logits, targets)
    loss.backward()
    witness = torch.tensor(logits0, requires_grad=True)
    torch_loss = torch.nn.functional.cross_entropy(witness, torch.tensor(targets))
    torch_loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(logits.grad).all()
    assert abs(loss.item() - torch_loss.item()) <= 1e-12 * max(1.0, abs(torch_loss.item()))
    np.testing.assert_allclose(logits.grad, witness.grad.numpy(), rtol=0, atol=1e-15)


def test_gradcheck_and_torch_check_on_the_seed_configurations():
    X20, y20 = spiral(points_per_class=20, seed=0)
    net = MLP([2, 16, 16, 3], seed=0)
    assert gradcheck(lambda: cross_entropy(net(X20), y20), net.params).max_relative_error <= 1e-8
    X40, y40 = spiral(points_per_class=40, seed=0)
    loss_difference, grad_difference = torch_check(MLP([2, 32, 16, 3], seed=0), X40, y40)
    assert loss_difference <= 1e-15 and grad_difference <= 1e-15


def test_gradcheck_reports_a_kink_instead_of_failing():
    w = Tensor([0.0, 1.0])   # relu(0) sits exactly on the kink
    report = gradcheck(lambda: (w.relu() * 3.0).sum(), [w])
    assert report.kinks == 1 and report.checked == 1 and report.max_relative_error < 1e-9


@pytest.mark.parametrize("lr", [0.5, 0.3])
def test_sgd_matches_torch(lr):
    """Bit-for-bit when lr * g is exact; otherwise PyTorch rounds p - lr*g once (a fused multiply-add)."""
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
            rounded_once = [float(Fraction(x) - Fraction(lr) * Fraction(g)) for x, g in zip(b.ravel(), p.grad.ravel())]
            np.testing.assert_array_equal(w.detach().numpy().ravel(), rounded_once)
            w.data = torch.tensor(p.data)   # continue both from the same point
    if lr == 0.5:
        assert all(np.array_equal(p.data, w.detach().numpy()) for p, w in zip(params, witness))
    ours.zero_grad()
    assert all(not p.grad.any() for p in params)


def test_spiral_is_seeded():
    X, y = spiral(points_per_class=50, seed=3)
    X2, y2 = spiral(points_per_class=50, seed=3)
    assert X.shape == (150, 2) and np.array_equal(X, X2) and np.array_equal(np.bincount(y), [50, 50, 50])
    assert not np.array_equal(X, spiral(points_per_class=50, seed=4)[0])
