"""Every op of the engine against central finite differences and PyTorch, on every shape case of
the op catalogue (course.catalogue: shapes that broadcast, every parameter variant), plus the
sweep's own guarantees."""
import numpy as np
import pytest

from engine import Tensor, numerical_gradient
from course.catalogue import OP_CASES, PARAMETER_CASES
from course.verification import finite_difference_error
from engine.core import backpropagate
from course.witness import torch_error

SHAPE_CASES = [pytest.param(case, shapes, id=f"{case.name}: {shapes}")
               for case in OP_CASES + PARAMETER_CASES for shapes in case.shapes]


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


def test_the_catalogue_names_each_case_once():
    names = [case.name for case in OP_CASES + PARAMETER_CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case, shapes", SHAPE_CASES)
def test_op_against_finite_differences(case, shapes):
    assert finite_difference_error(case, shapes) < 1e-8


@pytest.mark.parametrize("case, shapes", SHAPE_CASES)
def test_op_value_and_gradient_against_pytorch(case, shapes):
    assert torch_error(case, shapes) <= 1e-14


def test_ndarray_on_the_left_gives_a_tensor():
    rng = np.random.default_rng(5)
    W, c = rng.normal(size=(2, 3)), rng.normal(size=3)
    assert_gradient(lambda v: W @ v, lambda v: W @ v, rng.normal(size=3))
    assert_gradient(lambda v: c + v, lambda v: c + v, rng.normal(size=3))
    assert_gradient(lambda v: c - v, lambda v: c - v, rng.normal(size=3))
    assert_gradient(lambda v: c / v, lambda v: c / v, positive(3))
    assert isinstance(W @ Tensor(np.ones(3)), Tensor) and isinstance(c * Tensor(1.0), Tensor)


def test_max_splits_the_gradient_between_ties():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x.max(axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


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


def test_grad_is_none_before_backward_and_leaves_only_after():
    x = Tensor([[1.0, 2.0]])
    assert x.grad is None
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
