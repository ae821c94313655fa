"""The network pieces: MLP, cross-entropy and the spiral data, against PyTorch where it applies."""
import subprocess
import sys

import numpy as np
import pytest
import torch

from engine import Tensor
from engine.check import gradcheck
from course.data import spiral
from engine.nn import MLP, cross_entropy, log_softmax, nll
from course.witness import torch_check


def test_engine_never_imports_torch():
    code = ("import sys, engine, course.catalogue, engine.check, course.witness, course.museum, "
            "engine.nn, engine.optim, course.data; print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_mlp_structure():
    net = MLP([2, 16, 8, 3], seed=0)
    assert [p.shape for p in net.params] == [(2, 16), (16,), (16, 8), (8,), (8, 3), (3,)]
    assert net(Tensor(np.ones((5, 2)))).shape == (5, 3)
    assert all(np.array_equal(a.data, b.data) for a, b in zip(net.params, MLP([2, 16, 8, 3], seed=0).params))
    assert not np.array_equal(net.params[0].data, MLP([2, 16, 8, 3], seed=1).params[0].data)
    assert [(W.shape, b.shape) for W, b in net.layers] == [((2, 16), (16,)), ((16, 8), (8,)),
                                                            ((8, 3), (3,))]
    assert [id(p) for p in net.params] == [id(p) for layer in net.layers for p in layer]


def test_nll_takes_its_targets_as_a_keyword():
    logits = Tensor(np.random.default_rng(0).normal(size=(4, 3)))
    targets = np.array([0, 2, 2, 1])
    log_probs = log_softmax(logits)
    loss = nll(log_probs, targets=targets)
    assert loss.item() == cross_entropy(logits, targets).item()
    assert list(loss.params) == ["targets"] and loss.params["targets"] is targets
    assert len(loss.inputs) == 1 and loss.inputs[0] is log_probs


def test_zero_grad():
    net = MLP([2, 4, 3], seed=0)
    cross_entropy(net(np.ones((2, 2))), [0, 1]).backward()
    net.zero_grad()
    assert all(p.grad is None for p in net.params)


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


def test_spiral_is_seeded():
    X, y = spiral(points_per_class=50, seed=3)
    X2, y2 = spiral(points_per_class=50, seed=3)
    assert X.shape == (150, 2) and np.array_equal(X, X2) and np.array_equal(np.bincount(y), [50, 50, 50])
    assert not np.array_equal(X, spiral(points_per_class=50, seed=4)[0])
