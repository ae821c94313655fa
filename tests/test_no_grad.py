"""no_grad (chapter 8): what runs under it records nothing, and it nests, restores,
survives errors and holds for its own thread only; the size of a recorded graph, and
detach."""

import threading

import numpy as np
import pytest

from engine.core import graph_footprint, modes, no_grad, Tensor
from engine.nn import MLP


def test_no_grad_results_are_constants():
    w = Tensor([1.0, 2.0])
    with no_grad():
        y = (w * 2.0).tanh()
    assert y.op is None and y.parents == () and not y.requires_grad
    (y * w).sum().backward()
    np.testing.assert_allclose(w.grad, np.tanh([2.0, 4.0]))


def test_no_grad_nests_and_restores():
    assert modes.current.records
    with no_grad():
        with no_grad():
            pass
        assert not modes.current.records
        assert (Tensor(1.0) * 2.0).op is None
    assert modes.current.records and (Tensor(1.0) * 2.0).op is not None


def test_no_grad_is_exception_safe():
    with pytest.raises(ZeroDivisionError):
        with no_grad():
            1 / 0  # noqa: B018
    assert modes.current.records


def test_no_grad_is_per_thread():
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def evaluate():
        with no_grad():
            inside.set()
            done.wait(10)
            seen["worker"] = (Tensor(1.0) * 2.0).op

    worker = threading.Thread(target=evaluate)
    worker.start()
    inside.wait(10)
    recorded = Tensor([1.0]) * 2.0
    done.set()
    worker.join()
    assert recorded.op is not None and modes.current.records
    assert seen["worker"] is None


def test_graph_footprint_and_detach():
    net = MLP([3, 5, 2], seed=0)
    out = net(np.ones((4, 3)))
    nodes, size = graph_footprint(out)
    # linear, relu (4x5); linear (4x2)
    assert nodes == 3 and size == 8 * (4 * 5 * 2 + 4 * 2)
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
