"""Each op's values, gradients and tangents beyond the catalogue's rows, against PyTorch
where PyTorch has an answer: special values (NaN, infinities, zero, the sigmoid's far
tails), constants of every kind beside matmul, empty and negative axes, 0-d tensors,
ties and repeated indices, and the errors an op raises for shapes and exponents it
cannot take."""

import warnings

import numpy as np
import pytest
import torch

from engine.core import Tensor
from engine.forward import jvp
from engine.ops import picks_once, scatter_add_forward
from engine.transforms import grad


def torch_grads(f, *arrays):
    """f's value and the gradients of its sum, computed by PyTorch in float64."""
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = f(*xs)
    out.sum().backward()
    return out.detach().numpy(), [x.grad.numpy() for x in xs]


# Elementwise ops at special values


def test_relu_at_nan_passes_the_gradient_as_pytorch_does():
    values = [np.nan, -1.0, 0.0, 2.0]
    x = Tensor(values)
    out = x.relu()
    out.sum().backward()
    witness = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    expected = torch.relu(witness)
    expected.sum().backward()
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    np.testing.assert_array_equal(x.grad, witness.grad.numpy())


@pytest.mark.parametrize("x", [-30.0, -40.0, -100.0, -700.0])
def test_sigmoid_keeps_precision_for_very_negative_x(x):
    t = Tensor(x)
    y = t.sigmoid().log()
    y.backward()
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = torch.log(torch.sigmoid(xt))
    yt.backward()
    assert np.isfinite(y.item()) and abs(y.item() - yt.item()) <= 1e-15 * abs(yt.item())
    assert abs(t.grad - xt.grad.item()) <= 1e-15


def test_sigmoid_matches_torch_over_the_whole_range():
    x0 = np.concatenate([np.linspace(-700, 750, 2901), [-np.inf, np.inf, 0.0]])
    t = Tensor(x0)
    t.sigmoid().sum().backward()
    value, (gradient,) = torch_grads(torch.sigmoid, x0)
    np.testing.assert_allclose(t.sigmoid().data, value, rtol=4e-16, atol=0)
    np.testing.assert_allclose(t.grad, gradient, rtol=1e-15, atol=1e-300)
    # below -709 PyTorch's 1 / (1 + e^-x) rounds to 0; e^x / (1 + e^x) still has a
    # subnormal value
    assert 0 < Tensor(-740.0).sigmoid().item() < 1e-320


@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1, 2.5, 0, 1, -0.5])
def test_power_at_zero_and_infinities(exponent):
    """Against PyTorch wherever the two compute the same value (at -inf with a
    fractional exponent NumPy's power gives 0 where PyTorch's gives NaN for p < 0); and
    never a finite slope beside a NaN value."""
    values = [-np.inf, -1.0, 0.0, 1.0, np.inf]
    x = Tensor(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = x**exponent
        out.sum().backward()
    witness = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    expected = witness**exponent
    expected.sum().backward()
    same = (out.data == expected.detach().numpy()) | (
        np.isnan(out.data) & np.isnan(expected.detach().numpy())
    )
    assert same.sum() >= 4
    got, want = x.grad[same], witness.grad.numpy()[same]
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])
    assert np.all(np.isnan(x.grad[np.isnan(out.data)]))


def test_exponent_must_be_a_number():
    with pytest.raises(TypeError, match="exponent"):
        Tensor(2.0) ** Tensor(3.0)


# Binary ops and matmul: constants of every kind, shapes that do not fit


@pytest.mark.parametrize(
    "constant",
    [
        [[1.0, 2.0], [3.0, 4.0]],
        ((1, 2), (3, 4)),
        np.array([[1, 2], [3, 4]]),
        np.float32([[1, 2], [3, 4]]),
    ],
    ids=["list", "tuple", "int array", "float32 array"],
)
@pytest.mark.parametrize("side", ["left", "right"])
def test_a_list_constant_of_matmul_works_both_ways(constant, side):
    x0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    c = np.asarray(constant, dtype=np.float64)
    x = Tensor(x0)
    out = x @ constant if side == "right" else constant @ x
    out.sum().backward()
    expected = (x0 @ c) if side == "right" else (c @ x0)
    np.testing.assert_array_equal(out.data, expected)
    G = np.ones(expected.shape)
    np.testing.assert_array_equal(x.grad, G @ c.T if side == "right" else c.T @ G)
    (second,) = grad(
        (
            grad(
                (x @ constant).sum() if side == "right" else (constant @ x).sum(),
                [x],
                create_graph=True,
            )[0]
            * x
        ).sum(),
        [x],
    )
    assert second.shape == x0.shape


def test_matmul_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(3, 4\) and \(3, 4\)"):
        Tensor(np.ones((3, 4))) @ np.ones((3, 4))
    with pytest.raises(ValueError, match=r"\(2, 3, 4\) and \(5, 4, 2\)"):
        Tensor(np.ones((2, 3, 4))) @ np.ones((5, 4, 2))


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"\(4,3\) \(4,\)"):
        Tensor(np.ones((4, 3))) + Tensor(np.ones(4))


# Reductions: empty axes, 0-d inputs, ties


@pytest.mark.parametrize(
    "shape, axis", [((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((2, 0), -1), ((0,), 0)]
)
def test_mean_over_empty_axes_matches_torch(shape, axis):
    x0 = np.ones(shape)
    x = Tensor(x0)
    out = x.mean(axis=axis)
    out.sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    out_t = xt.mean() if axis is None else xt.mean(dim=axis)
    out_t.sum().backward()
    np.testing.assert_array_equal(out.data, out_t.detach().numpy())
    assert x.grad.shape == shape and np.array_equal(x.grad, xt.grad.numpy())


@pytest.mark.parametrize(
    "reduce",
    [
        lambda x: x.sum(),
        lambda x: x.mean(),
        lambda x: x.max(),
        lambda x: x.sum(axis=0),
        lambda x: x.max(axis=-1),
        lambda x: x.sum(keepdims=True),
    ],
    ids=["sum", "mean", "max", "sum axis 0", "max axis -1", "keepdims"],
)
def test_forward_mode_of_a_reduction_of_a_0d_input(reduce):
    value, tangent = jvp(reduce, (np.array(2.0),), (np.array(3.0),))
    assert value == 2.0 and tangent == 3.0


def test_max_splits_the_gradient_between_ties():
    x = Tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x.max(axis=1).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


# transpose and swapaxes: negative axes, 0-d tensors


@pytest.mark.parametrize("axes", [(-1, 0), (1, -2), (-1, -2), (-2, -1, 0), (0, -1, 1)])
def test_transpose_with_negative_axes(axes):
    shape = (3, 3) if len(axes) == 2 else (2, 3, 4)
    x0 = np.random.default_rng(0).normal(size=shape)
    G = np.random.default_rng(1).normal(size=np.transpose(x0, axes).shape)
    x = Tensor(x0)
    (x.transpose(*axes) * G).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    (xt.permute(*axes) * torch.tensor(G)).sum().backward()
    np.testing.assert_array_equal(x.grad, xt.grad.numpy())


def test_jvp_of_transpose_with_negative_axes():
    x0 = np.arange(9.0).reshape(3, 3)
    u = np.random.default_rng(0).normal(size=(3, 3))
    value, tangent = jvp(lambda t: t.transpose(-1, 0), (x0,), (u,))
    np.testing.assert_array_equal(value, x0.T)
    np.testing.assert_array_equal(tangent, u.T)


@pytest.mark.parametrize("swap", [(0, 0), (0, -1), (-1, -1)])
def test_swapaxes_of_a_0d_tensor(swap):
    x = Tensor(2.0)
    y = x.swapaxes(*swap)
    assert y.shape == () and y.data == 2.0 == float(torch.tensor(2.0).swapaxes(*swap))
    (y * 3.0).backward()
    assert x.grad == 3.0
    assert x.transpose().shape == () and x.T.shape == ()


# Indexing


def test_repeated_indices_add_up():
    t = Tensor([10.0, 20.0, 30.0])
    t[np.array([2, 2, 0, 2])].sum().backward()
    np.testing.assert_array_equal(t.grad, [1, 0, 3])


@pytest.mark.parametrize(
    "key",
    [np.array([0, 2, 3, 5]), slice(1, 5), np.array([1, 0, 1, 1, 0, 1], dtype=bool)],
)
def test_scatter_add_assigns_where_nothing_repeats(key):
    """A key that picks_once accepts gives np.add.at's sums (inf and NaN included) by an
    assignment, which keeps a -0 of g where np.add.at gives +0."""
    g = np.array([-0.0, 1.5, np.nan, -np.inf])
    added = np.zeros(6)
    np.add.at(added, key, g)
    assigned = scatter_add_forward(g, key, (6,))
    assert picks_once(key) and np.array_equal(assigned, added, equal_nan=True)
    where = np.arange(6)[key][0]  # where g's -0 lands
    assert np.signbit(assigned[where]) and not np.signbit(added[where])
    assert not picks_once(np.array([2, 2])) and not picks_once(np.array([-1, 3]))
