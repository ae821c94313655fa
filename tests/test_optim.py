"""Adam against torch.optim.Adam, and no_grad's semantics."""
import numpy as np
import pytest
import torch

from engine.nn import MLP
from engine.optim import Adam
from engine.tensor import Tensor, graph_footprint, no_grad, recording


@pytest.mark.parametrize("lr, betas, eps", [(1e-3, (0.9, 0.999), 1e-8), (3e-2, (0.8, 0.99), 1e-6)])
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
    assert p.grad.tolist() == [0.0]


def test_no_grad_results_are_constants():
    w = Tensor([1.0, 2.0])
    with no_grad():
        y = (w * 2.0).tanh()
    assert y.op is None and y.parents == () and not y.requires_grad
    (y * w).sum().backward()
    np.testing.assert_allclose(w.grad, np.tanh([2.0, 4.0]))


def test_no_grad_nests_and_restores():
    assert recording.on
    with no_grad():
        with no_grad():
            pass
        assert not recording.on
        assert (Tensor(1.0) * 2.0).op is None
    assert recording.on and (Tensor(1.0) * 2.0).op is not None


def test_no_grad_is_exception_safe():
    with pytest.raises(ZeroDivisionError):
        with no_grad():
            1 / 0
    assert recording.on


def test_graph_footprint_and_detach():
    net = MLP([3, 5, 2], seed=0)
    out = net(np.ones((4, 3)))
    nodes, size = graph_footprint(out)
    assert nodes == 3 and size == 8 * (4 * 5 * 2 + 4 * 2)   # linear, relu (4x5); linear (4x2)
    with no_grad():
        assert graph_footprint(net(np.ones((4, 3)))) == (0, 0)
    d = out.detach()
    assert d.op is None and not d.requires_grad and np.array_equal(d.data, out.data)


def test_backward_inside_no_grad():
    w = Tensor([1.0, 2.0])
    loss = (w * w).sum()
    with no_grad():
        loss.backward()
    np.testing.assert_array_equal(w.grad, [2.0, 4.0])
