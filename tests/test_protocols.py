"""Python's protocols on a Tensor (issue 32, category 1): ==, !=, bool, len, iteration,
membership and zero_grad behave as PyTorch's, or refuse with a clear error."""

import numpy as np
import pytest

from engine import Tensor, zero_grad
from engine.core import backpropagate


torch = pytest.importorskip("torch")

VALUES = [0.0, -0.0, 1.0, 2.5, np.nan, np.inf]
SHAPES = [(), (1,), (3,), (2, 3), (0,), (1, 1), (2, 0)]


def both(array):
    """The engine's Tensor and PyTorch's float64 tensor of one array."""
    return Tensor(array), torch.tensor(array, dtype=torch.float64)


def outcome(function, *args):
    """('value', result) or ('error', exception type) of function(*args)."""
    try:
        return "value", function(*args)
    except (TypeError, ValueError, RuntimeError) as error:
        return "error", type(error)


@pytest.mark.parametrize(
    "op", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]
)
@pytest.mark.parametrize("other", [1.0, np.nan, "tensor", "array"])
def test_comparisons_are_elementwise_as_in_pytorch(op, other):
    x = np.array([[0.0, 1.0, np.nan], [np.inf, -0.0, 1.0]])
    y = np.array([0.0, 1.0, np.nan])
    t, pt = both(x)
    if other == "tensor":
        ours, theirs = getattr(t, op)(Tensor(y)), getattr(pt, op)(torch.tensor(y))
    elif other == "array":
        ours, theirs = getattr(t, op)(y), getattr(pt, op)(torch.tensor(y))
    else:
        ours, theirs = getattr(t, op)(other), getattr(pt, op)(other)
    assert isinstance(ours, np.ndarray) and ours.dtype == bool
    assert ours.tolist() == theirs.tolist()


def test_hashing_is_by_identity():
    a, b = Tensor([1.0, 2.0]), Tensor([1.0, 2.0])
    assert len({a, b, a}) == 2 and {a: 1, b: 2}[a] == 1
    assert hash(a) != hash(b) and hash(a) == hash(a)


def test_equal_valued_inputs_are_distinct_parents():
    # two different Tensors with equal values: each gets its own gradient
    a, b = Tensor(2.0), Tensor(2.0)
    (a * 3.0 + b * 5.0).backward()
    assert (a.grad, b.grad) == (3.0, 5.0)
    c = Tensor(2.0)
    d = Tensor(2.0, requires_grad=False)
    (c * d).backward()  # d equals c but is no parent
    assert c.grad == 2.0 and d.grad is None


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("value", VALUES)
def test_bool_as_in_pytorch(shape, value):
    t, pt = both(np.full(shape, value))
    ours, theirs = outcome(bool, t), outcome(bool, pt)
    assert ours[0] == theirs[0]
    if ours[0] == "value":
        assert ours[1] is theirs[1]
    else:
        assert ours[1] is ValueError


def test_bool_error_says_what_to_do():
    with pytest.raises(
        ValueError,
        match=r"bool\(\) of a Tensor of shape \(3,\) is "
        r"ambiguous.*\.any\(\)",
    ):
        bool(Tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        if Tensor([1.0, 0.0]) > 0:  # noqa: SIM108 - a mask has no single truth
            pass


@pytest.mark.parametrize("shape", SHAPES)
def test_len_and_iteration_as_in_pytorch(shape):
    array = np.arange(float(np.prod(shape))).reshape(shape)
    t, pt = both(array)
    for function in (len, list):
        ours, theirs = outcome(function, t), outcome(function, pt)
        assert ours[0] == theirs[0], function
        if ours[0] == "error":
            assert ours[1] is TypeError and theirs[1] is TypeError
    if shape:
        assert len(t) == len(pt) == shape[0]
        rows = list(t)
        assert [r.shape for r in rows] == [tuple(r.shape) for r in pt]
        assert all(np.array_equal(r.data, p.numpy()) for r, p in zip(rows, pt))


def test_zero_d_refusals_name_the_cause():
    with pytest.raises(TypeError, match=r"len\(\) of a 0-d Tensor"):
        len(Tensor(1.0))
    with pytest.raises(TypeError, match=r"iteration over a 0-d Tensor.*item\(\)"):
        iter(Tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d Tensor"):
        (a,) = Tensor(1.0)


def test_iteration_is_differentiable():
    x = Tensor(np.arange(6.0).reshape(3, 2))
    total = sum((row * row).sum() for row in x)
    total.backward()
    assert np.array_equal(x.grad, 2 * x.data)
    a, b = Tensor([3.0, 4.0])  # unpacking a 1-D Tensor: two index ops
    assert (a.op.name, float(b)) == ("index", 4.0)


@pytest.mark.parametrize("value", [0.0, -0.0, 4.0, 4.5, np.nan, np.inf])
def test_membership_as_in_pytorch(value):
    array = np.array([[0.0, 4.0], [np.inf, 1.0]])
    t, pt = both(array)
    assert (value in t) == (value in pt)


def test_zero_grad_of_one_tensor_works():
    x = Tensor([1.0, 2.0])
    (x * x).sum().backward()
    zero_grad(x)
    assert x.grad is None
    y = Tensor(3.0)
    y.backward()
    zero_grad(y)  # a 0-d Tensor too
    assert y.grad is None


def test_zero_grad_refuses_what_is_not_a_tensor():
    x = Tensor(1.0)
    x.backward()
    with pytest.raises(
        TypeError,
        match=r"zero_grad: tensors\[1\] must be a Tensor, "
        "got ndarray",
    ):
        zero_grad([x, np.ones(2)])
    assert x.grad == 1.0  # refused before clearing anything
    with pytest.raises(TypeError):
        zero_grad(3.0)


def test_sweep_finds_parents_by_identity_not_by_value():
    # the sweep asks whether an input is a parent: with == elementwise, `in` would
    # compare values; a constant equal to a parent must still get nothing
    w = Tensor([1.0, 2.0])
    c = Tensor([1.0, 2.0], requires_grad=False)
    out = (w * c).sum()
    grads = {id(node): g for node, g in backpropagate(out, 1.0)}
    assert id(c) not in grads and np.array_equal(grads[id(w)], [1.0, 2.0])
