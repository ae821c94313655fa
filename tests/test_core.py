"""The Tensor and the sweep (engine.core): what a Tensor holds (float64 data, a
read-only copy of a leaf, the caller's array left alone), NumPy arrays on the left of an
operator, which leaves the sweep reaches and how their gradients accumulate, the values
a gradient is computed from, the graph as the forward pass recorded it, and backward()'s
seed and errors."""

from helpers import assert_gradient
import numpy as np
import pytest

from engine.core import backpropagate, no_grad, Tensor, topological_order
from engine.transforms import grad


def positive(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)


# What a Tensor holds


def test_data_is_float64_and_constants_do_not_record():
    t = Tensor([1, 2, 3])
    assert t.data.dtype == np.float64
    c = Tensor([1.0], requires_grad=False) * 2.0
    assert c.op is None and not c.requires_grad


@pytest.mark.parametrize("bad", ["abc", ["a", "b"], {"x": 1}, None, 1 + 2j])
def test_non_numeric_data_is_a_type_error(bad):
    with pytest.raises(TypeError, match="real numbers"):
        Tensor(bad)


def test_editing_a_leaf_in_place_between_forward_and_backward_is_refused():
    x = Tensor([1.0, 2.0, 3.0])
    loss = (x * x).sum()
    with pytest.raises(ValueError, match="read-only"):
        x.data[0] = 10.0
    with pytest.raises(ValueError, match="read-only"):
        x.data += 1.0
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 4.0, 6.0])


def test_the_callers_array_stays_writeable_and_independent():
    a = np.array([1.0, 2.0, 3.0])
    x = Tensor(a)
    loss = (x * x).sum()
    a[0] = 10.0  # the caller's array: theirs to edit
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(x.data, [1.0, 2.0, 3.0])
    base = np.arange(6.0)
    view = Tensor(base[1:4])  # a view: the copy owns its memory
    (view * 2.0).sum().backward()
    base[1] = 100.0
    np.testing.assert_array_equal(view.data, [1.0, 2.0, 3.0])


def test_ndarray_on_the_left_gives_a_tensor():
    rng = np.random.default_rng(5)
    W, c = rng.normal(size=(2, 3)), rng.normal(size=3)
    assert_gradient(lambda v: W @ v, lambda v: W @ v, rng.normal(size=3))
    assert_gradient(lambda v: c + v, lambda v: c + v, rng.normal(size=3))
    assert_gradient(lambda v: c - v, lambda v: c - v, rng.normal(size=3))
    assert_gradient(lambda v: c / v, lambda v: c / v, positive(3))
    assert isinstance(W @ Tensor(np.ones(3)), Tensor) and isinstance(
        c * Tensor(1.0), Tensor
    )


# The sweep: which leaves it reaches, and accumulation


def test_a_leaf_has_no_gradient_until_a_sweep_reaches_it():
    x, unused = Tensor([1.0, 2.0]), Tensor([3.0])
    assert x.grad is None and unused.grad is None
    (x * x).sum().backward()
    assert unused.grad is None and np.array_equal(x.grad, [2.0, 4.0])


def test_grad_is_none_before_backward_and_leaves_only_after():
    x = Tensor([[1.0, 2.0]])
    assert x.grad is None
    h = x * 3.0
    h.sum().backward(retain_graph=True)  # swept again below
    np.testing.assert_array_equal(x.grad, [[3.0, 3.0]])
    grads = {id(node): g for node, g in backpropagate(h.sum(), 1.0)}
    np.testing.assert_array_equal(grads[id(h)], [[1.0, 1.0]])


def test_backward_twice_needs_retain_graph_and_then_accumulates():
    """As in PyTorch: a graph is swept once unless the sweep is told to keep it."""
    x = Tensor([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])
    with pytest.raises(RuntimeError, match=r"retain_graph=True.*\.detach\(\)"):
        y.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])  # the refusal added nothing


def test_a_recurrent_state_carried_without_detach_is_refused_at_the_next_step():
    """The quadratic cliff: step t's sweep would walk back through every earlier step;
    the second step's backward() is refused, and with detach() every step's sweep
    reaches the same number of nodes."""
    W = Tensor(np.eye(3) * 0.5)
    h = Tensor(np.zeros((1, 3)), requires_grad=False)
    h = (h @ W + 1.0).tanh()
    (h * h).sum().backward()
    with pytest.raises(RuntimeError, match="detach"):
        ((h @ W + 1.0).tanh() ** 2).sum().backward()
    h, reached = Tensor(np.zeros((1, 3)), requires_grad=False), set()
    for _ in range(200):
        h = (h @ W + 1.0).tanh()
        loss = (h * h).sum()
        reached.add(len(topological_order(loss)))
        loss.backward()
        h = h.detach()
    assert len(reached) == 1


def test_a_gradient_is_not_shared_between_leaves():
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    (x + y).sum().backward()
    x.grad *= 10
    np.testing.assert_array_equal(y.grad, [1.0, 1.0])


@pytest.mark.parametrize("depth", [20_000, 100_000])
def test_deep_chain(depth):
    x = Tensor(1.0)
    y = x
    for _ in range(depth):
        y = y * 1.00001
    y.backward()
    assert np.isclose(x.grad, 1.00001**depth, rtol=1e-9)


# The values and the graph the forward pass saw


def test_backward_uses_the_values_the_forward_saw():
    w, x = Tensor([2.0, 3.0]), Tensor([5.0, 7.0])
    loss = (w * x).sum()
    w.data = w.data - 1.0  # an optimiser step between forward and backward pass
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 3.0])  # d(w·x)/dx = w as it was


@pytest.mark.parametrize("replace", [False, True])
def test_both_sweeps_use_the_values_the_forward_saw(replace):
    w, x = Tensor([2.0, 3.0]), Tensor([5.0, 7.0])
    loss = (w * x * x).sum()
    if replace:
        w.data = w.data - 1.0  # an optimiser step between forward and backward
        x.data = x.data * 10.0
    plain = grad(loss, [w, x])
    recorded = grad(loss, [w, x], create_graph=True)
    for a, b in zip(plain, recorded):
        np.testing.assert_array_equal(a, b.data)
    np.testing.assert_array_equal(plain[0], [25.0, 49.0])
    np.testing.assert_array_equal(plain[1], [20.0, 42.0])
    # the recorded gradient still differentiates with respect to the leaves: d²/dx² = 2w
    (second,) = grad(recorded[1].sum(), [x])
    np.testing.assert_array_equal(second, [4.0, 6.0])


@pytest.mark.parametrize("flip_to", [False, True])
def test_flipping_requires_grad_after_the_forward_follows_the_recorded_graph(flip_to):
    # The graph is what the forward recorded: a leaf switched off afterwards still gets
    # its gradient (PyTorch leaves such a leaf's .grad at None: chapter 16's table), and
    # one switched on afterwards was never part of the graph
    x, y = Tensor([1.0, 2.0], requires_grad=not flip_to), Tensor([3.0, 4.0])
    loss = (x * y).sum()
    x.requires_grad = flip_to
    loss.backward()
    np.testing.assert_array_equal(y.grad, [1.0, 2.0])
    if flip_to:  # not part of the recorded graph: never reached
        assert x.grad is None
    else:
        np.testing.assert_array_equal(x.grad, [3.0, 4.0])


# backward()'s seed and its errors


def test_backward_on_a_non_scalar_needs_a_seed():
    with pytest.raises(ValueError, match=r"shape \(3,\) needs a seed gradient"):
        (Tensor([1.0, 2.0, 3.0]) * 2.0).backward()
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        (Tensor([1.0, 2.0, 3.0]) * 2.0).backward(np.ones(2))


def test_backward_takes_a_tensor_seed():
    x = Tensor([1.0, 2.0])
    (x * 3.0).backward(Tensor([1.0, 10.0]))
    np.testing.assert_array_equal(x.grad, [3.0, 30.0])
    with pytest.raises(TypeError, match=r"backward\(\): gradient must be real numbers"):
        (x * 3.0).backward("ones")


def test_backward_without_a_graph_names_the_likely_cause():
    w = Tensor([1.0, 2.0])
    with no_grad():
        loss = (w * w).sum()
    with pytest.raises(
        RuntimeError, match=r"backward\(\).*requires_grad=False.*no_grad\(\)"
    ):
        loss.backward()
    constants = Tensor([1.0], requires_grad=False) * 2.0
    with pytest.raises(RuntimeError, match="constants"):
        constants.sum().backward()
