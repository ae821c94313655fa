"""The network pieces: MLP, cross_entropy, log_softmax and nll, and the spiral data,
against PyTorch where it applies: the labels cross_entropy refuses (as PyTorch does), a
list of labels, an empty batch and an empty axis; gradcheck and torch_check on the seed
configurations; and that the engine never imports torch."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from course.data import spiral
from course.witness import torch_check
from engine import Tensor
from engine.check import gradcheck
from engine.nn import cross_entropy, log_softmax, MLP, nll


def test_engine_never_imports_torch():
    code = (
        "import sys, engine, course.catalogue, engine.check, course.witness, "
        "course.museum, engine.nn, engine.optim, course.data; "
        "print('torch' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_mlp_structure():
    net = MLP([2, 16, 8, 3], seed=0)
    assert [p.shape for p in net.params] == [
        (2, 16),
        (16,),
        (16, 8),
        (8,),
        (8, 3),
        (3,),
    ]
    assert net(Tensor(np.ones((5, 2)))).shape == (5, 3)
    assert all(
        np.array_equal(a.data, b.data)
        for a, b in zip(net.params, MLP([2, 16, 8, 3], seed=0).params)
    )
    assert not np.array_equal(
        net.params[0].data, MLP([2, 16, 8, 3], seed=1).params[0].data
    )
    assert [(W.shape, b.shape) for W, b in net.layers] == [
        ((2, 16), (16,)),
        ((16, 8), (8,)),
        ((8, 3), (3,)),
    ]
    assert [id(p) for p in net.params] == [id(p) for layer in net.layers for p in layer]


def test_nll_takes_its_targets_as_a_keyword():
    logits = Tensor(np.random.default_rng(0).normal(size=(4, 3)))
    targets = np.array([0, 2, 2, 1])
    log_probs = log_softmax(logits)
    loss = nll(log_probs, targets=targets)
    assert loss.item() == cross_entropy(logits, targets).item()
    assert list(loss.params) == ["targets"]
    # the tape keeps a read-only copy: editing `targets` changes nothing (issue 32)
    kept = loss.params["targets"]
    assert np.array_equal(kept, targets) and kept is not targets
    assert not kept.flags.writeable
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
    assert abs(loss.item() - torch_loss.item()) <= 1e-12 * max(
        1.0, abs(torch_loss.item())
    )
    np.testing.assert_allclose(logits.grad, witness.grad.numpy(), rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "targets, match",
    [
        (
            np.array([[0], [1], [2]]),
            r"targets must have shape \(3,\).*got shape \(3, 1\)",
        ),
        (np.array([0, 1]), r"targets must have shape \(3,\).*got shape \(2,\)"),
        (np.array([0, -1, 2]), r"in \[0, 4\).*from -1 to 2"),
        (np.array([0, 4, 2]), r"in \[0, 4\).*from 0 to 4"),
    ],
)
def test_cross_entropy_refuses_labels_pytorch_refuses(targets, match):
    logits = Tensor(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"cross_entropy: .*" + match):
        cross_entropy(logits, targets)
    with pytest.raises((ValueError, RuntimeError, IndexError)):
        torch.nn.functional.cross_entropy(torch.zeros(3, 4), torch.tensor(targets))


@pytest.mark.parametrize(
    "targets, match",
    [
        (np.array([0.0, 1.0, 2.0]), r"integer class indices, got dtype float64"),
        (Tensor([0.0, 1.0, 2.0]), r"got a Tensor"),
    ],
)
def test_cross_entropy_float_and_tensor_labels_are_clear_errors(targets, match):
    with pytest.raises(TypeError, match=r"cross_entropy: .*" + match):
        cross_entropy(Tensor(np.zeros((3, 4))), targets)


def test_cross_entropy_takes_a_list_and_an_empty_batch():
    logits = Tensor(np.array([[1.0, 2.0], [0.5, -1.0]]))
    loss = cross_entropy(logits, [1, 0])
    expected = torch.nn.functional.cross_entropy(
        torch.tensor(logits.data), torch.tensor([1, 0])
    )
    assert abs(loss.item() - expected.item()) <= 1e-15
    empty = cross_entropy(Tensor(np.zeros((0, 3))), [])
    assert np.isnan(empty.item())


def test_log_softmax_over_an_empty_last_axis():
    x = Tensor(np.zeros((3, 0)))
    out = log_softmax(x)
    assert out.shape == (3, 0) == tuple(torch.log_softmax(torch.zeros(3, 0), -1).shape)
    out.sum().backward()
    assert x.grad.shape == (3, 0)
    assert log_softmax(Tensor(np.zeros(0))).shape == (0,)


def test_gradcheck_and_torch_check_on_the_seed_configurations():
    X20, y20 = spiral(points_per_class=20, seed=0)
    net = MLP([2, 16, 16, 3], seed=0)
    assert (
        gradcheck(lambda: cross_entropy(net(X20), y20), net.params).max_relative_error
        <= 1e-8
    )
    X40, y40 = spiral(points_per_class=40, seed=0)
    loss_difference, grad_difference = torch_check(
        MLP([2, 32, 16, 3], seed=0), X40, y40
    )
    assert loss_difference <= 1e-15 and grad_difference <= 1e-15


def test_gradcheck_reports_a_kink_instead_of_failing():
    w = Tensor([0.0, 1.0])  # relu(0) sits exactly on the kink
    report = gradcheck(lambda: (w.relu() * 3.0).sum(), [w])
    assert (
        report.kinks == 1 and report.checked == 1 and report.max_relative_error < 1e-9
    )


def test_spiral_is_seeded():
    X, y = spiral(points_per_class=50, seed=3)
    X2, y2 = spiral(points_per_class=50, seed=3)
    assert (
        X.shape == (150, 2)
        and np.array_equal(X, X2)
        and np.array_equal(np.bincount(y), [50, 50, 50])
    )
    assert not np.array_equal(X, spiral(points_per_class=50, seed=4)[0])
