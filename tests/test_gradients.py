"""Every op of the engine against central finite differences, over shapes that broadcast."""
import numpy as np
import pytest

from engine import Tensor, numerical_gradient
from engine.tensor import backpropagate

BROADCAST_PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((4, 3), (3,)), ((4, 3), (1, 3)),
                   ((4, 1), (1, 3)), ((2, 4, 3), (4, 1)), ((2, 1, 3), (5, 1)), ((1,), (2, 3))]
BINARY = {"add": lambda x, y: x + y, "subtract": lambda x, y: x - y,
          "multiply": lambda x, y: x * y, "divide": lambda x, y: x / y}
UNARY = {"negative": lambda x: -x, "exp": lambda x: x.exp(), "log": lambda x: x.log(),
         "tanh": lambda x: x.tanh(), "sigmoid": lambda x: x.sigmoid(), "relu": lambda x: x.relu(),
         "square": lambda x: x ** 2, "cube": lambda x: x ** 3, "sqrt": lambda x: x ** 0.5,
         "reciprocal": lambda x: x ** -1}
NUMPY_UNARY = {"negative": np.negative, "exp": np.exp, "log": np.log, "tanh": np.tanh,
               "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "relu": lambda v: np.maximum(v, 0),
               "square": np.square, "cube": lambda v: v ** 3, "sqrt": np.sqrt,
               "reciprocal": lambda v: 1 / v}


def assert_gradient(f_tensor, f_numpy, *arrays, tol=1e-7, seed=0):
    """Check every input's gradient of <G, f(inputs)> against central differences."""
    G = np.random.default_rng(seed + 1).normal(size=np.shape(f_numpy(*arrays)))
    tensors = [Tensor(a) for a in arrays]
    out = f_tensor(*tensors)
    assert out.shape == np.shape(f_numpy(*arrays))
    np.testing.assert_allclose(out.data, f_numpy(*arrays), rtol=1e-12, atol=1e-12)
    (out * G).sum().backward()
    for i, (t, a) in enumerate(zip(tensors, arrays)):
        def projected(v, i=i):
            args = list(arrays)
            args[i] = v
            return np.sum(f_numpy(*args) * G)
        numeric = numerical_gradient(projected, a)
        assert t.grad.shape == np.shape(a)
        np.testing.assert_allclose(t.grad, numeric, rtol=tol, atol=tol)


def positive(shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("shape_x, shape_y", BROADCAST_PAIRS)
def test_binary_ops_broadcast(name, shape_x, shape_y):
    op = BINARY[name]
    assert_gradient(op, op, positive(shape_x, 1), positive(shape_y, 2))


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_unary_ops(name, shape):
    x = np.random.default_rng(3).uniform(-2, 2, size=shape)
    if name in ("log", "sqrt", "reciprocal"):
        x = np.abs(x) + 0.5
    if name == "relu":
        x = np.where(np.abs(x) < 0.1, 0.5, x)   # keep away from the kink at 0
    assert_gradient(UNARY[name], NUMPY_UNARY[name], x)


@pytest.mark.parametrize("shape_a, shape_b", [
    ((4,), (4,)), ((4,), (4, 3)), ((3, 4), (4,)), ((3, 4), (4, 2)), ((5, 3, 4), (4, 2)),
    ((3, 4), (5, 4, 2)), ((4,), (5, 4, 2)), ((5, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2)),
    ((2, 5, 3, 4), (1, 5, 4, 2))])
def test_matmul_follows_np_matmul(shape_a, shape_b):
    rng = np.random.default_rng(4)
    assert_gradient(lambda a, b: a @ b, np.matmul, rng.normal(size=shape_a), rng.normal(size=shape_b))


def test_ndarray_on_the_left_gives_a_tensor():
    rng = np.random.default_rng(5)
    W, c = rng.normal(size=(2, 3)), rng.normal(size=3)
    assert_gradient(lambda v: W @ v, lambda v: W @ v, rng.normal(size=3))
    assert_gradient(lambda v: c + v, lambda v: c + v, rng.normal(size=3))
    assert_gradient(lambda v: c - v, lambda v: c - v, rng.normal(size=3))
    assert_gradient(lambda v: c / v, lambda v: c / v, positive(3))
    assert isinstance(W @ Tensor(np.ones(3)), Tensor) and isinstance(c * Tensor(1.0), Tensor)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (-1, 0)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("reduction", ["sum", "mean", "max"])
def test_reductions(reduction, axis, keepdims):
    x = np.random.default_rng(6).permutation(24).reshape(2, 3, 4) / 7.0   # distinct: no ties
    assert_gradient(lambda t: getattr(t, reduction)(axis=axis, keepdims=keepdims),
                    lambda v: getattr(v, reduction)(axis=axis, keepdims=keepdims), x)


def test_max_splits_the_gradient_between_ties():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x.max(axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


@pytest.mark.parametrize("shape, axes", [((2, 3), ()), ((2, 3), ((1, 0),)), ((2, 3, 4), (2, 0, 1)),
                                         ((2, 3, 4), ((1, 2, 0),))])
def test_transpose(shape, axes):
    x = np.random.default_rng(7).normal(size=shape)
    assert_gradient(lambda t: t.transpose(*axes), lambda v: v.transpose(*axes), x)


def test_T_swapaxes_reshape():
    x = np.random.default_rng(8).normal(size=(2, 3, 4))
    assert_gradient(lambda t: t.T, lambda v: v.T, x)
    assert_gradient(lambda t: t.swapaxes(0, -1), lambda v: v.swapaxes(0, -1), x)
    assert_gradient(lambda t: t.reshape(4, 6), lambda v: v.reshape(4, 6), x)
    assert_gradient(lambda t: t.reshape((-1,)), lambda v: v.reshape((-1,)), x)


@pytest.mark.parametrize("key", [
    1, slice(1, 3), (slice(None), 2), np.array([0, 2, 2, 1, 2]), (np.array([0, 0, 1]), np.array([1, 1, 1])),
    (Ellipsis, 0), np.array([[True, False, True, True], [False, False, True, False], [True] * 4])],
    ids=["int", "slice", "column", "repeated", "pairs", "ellipsis", "mask"])
def test_indexing(key):
    x = np.random.default_rng(9).normal(size=(3, 4))
    assert_gradient(lambda t: t[key], lambda v: v[key], x)


def test_repeated_indices_add_up():
    t = Tensor([10.0, 20.0, 30.0])
    t[np.array([2, 2, 0, 2])].sum().backward()
    np.testing.assert_array_equal(t.grad, [1, 0, 3])


def test_a_composite_network_layer():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(6, 3))
    def layer(W, b):
        return ((X @ W + b).tanh() ** 2).mean(axis=0)
    assert_gradient(layer, lambda W, b: (np.tanh(X @ W + b) ** 2).mean(axis=0),
                    rng.normal(size=(3, 2)), rng.normal(size=2))


@pytest.mark.parametrize("depth", [20_000, 100_000])
def test_deep_chain(depth):
    x = Tensor(1.0)
    y = x
    for _ in range(depth):
        y = y * 1.00001
    y.backward()
    assert np.isclose(x.grad, 1.00001 ** depth, rtol=1e-9)


def test_backward_twice_accumulates():
    x = Tensor([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])


def test_grad_is_zeros_before_backward_and_leaves_only_after():
    x = Tensor([[1.0, 2.0]])
    np.testing.assert_array_equal(x.grad, [[0.0, 0.0]])
    h = x * 3.0
    h.sum().backward()
    np.testing.assert_array_equal(x.grad, [[3.0, 3.0]])
    grads = {id(node): g for node, g in backpropagate(h.sum(), 1.0)}
    np.testing.assert_array_equal(grads[id(h)], [[1.0, 1.0]])


def test_a_gradient_is_not_shared_between_leaves():
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    (x + y).sum().backward()
    x.grad *= 10
    np.testing.assert_array_equal(y.grad, [1.0, 1.0])


def test_backward_uses_the_values_the_forward_saw():
    w, x = Tensor([2.0, 3.0]), Tensor([5.0, 7.0])
    loss = (w * x).sum()
    w.data = w.data - 1.0          # an optimiser step between the forward and the backward pass
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 3.0])   # d(w·x)/dx = w as it was in the forward


def test_data_is_float64_and_constants_do_not_record():
    t = Tensor([1, 2, 3])
    assert t.data.dtype == np.float64
    c = Tensor([1.0], requires_grad=False) * 2.0
    assert c.op is None and not c.requires_grad


def test_backward_on_a_non_scalar_needs_a_seed():
    with pytest.raises(ValueError, match=r"shape \(3,\) needs a seed gradient"):
        (Tensor([1.0, 2.0, 3.0]) * 2.0).backward()
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        (Tensor([1.0, 2.0, 3.0]) * 2.0).backward(np.ones(2))


def test_matmul_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(3, 4\)"):
        Tensor(np.ones((3, 4))) @ np.ones((3, 4))
    with pytest.raises(ValueError, match=r"\(2, 3, 4\) and \(5, 4, 2\)"):
        Tensor(np.ones((2, 3, 4))) @ np.ones((5, 4, 2))


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(4,3\) \(4,\)"):
        Tensor(np.ones((4, 3))) + Tensor(np.ones(4))


@pytest.mark.parametrize("bad", ["abc", ["a", "b"], {"x": 1}, None, 1 + 2j])
def test_non_numeric_data_is_a_type_error(bad):
    with pytest.raises(TypeError, match="real numbers"):
        Tensor(bad)


def test_exponent_must_be_a_number():
    with pytest.raises(TypeError, match="exponent"):
        Tensor(2.0) ** Tensor(3.0)
