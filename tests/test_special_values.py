"""Special values (issue 32, category 3): every elementwise op, its local rule and its
forward rule on a grid of 0, -0, ±1e308, ±inf and NaN, with upstream gradients and
tangents of 1, 0, ±inf and NaN, against PyTorch float64. Where a slope is exactly 0 the
rule selects rather than multiplies (inf * 0 is NaN). The disagreements that remain are
listed in KNOWN, each with its reason, and the tests check that no other one appears."""

import warnings

import numpy as np
import pytest

from engine import jvp, max_pool2d, Tensor
from engine.core import Op
from engine.nn import layer_norm
import engine.ops as ops


torch = pytest.importorskip("torch")
F = torch.nn.functional

GRID = [0.0, -0.0, 1.0, -2.5, 0.5, np.inf, -np.inf, np.nan, 1e308, -1e308, 1e-308]
SEEDS = [1.0, 0.0, np.inf, -np.inf, np.nan]

UNARY = {
    "negative": lambda x: -x,
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    **{
        f"power {p}": (lambda q: lambda x: x**q)(p)
        for p in (0, 1, 2, 3, 0.5, -1, -2, 1.5, -0.5)
    },
}
BINARY = {
    "add": lambda x, y: x + y,
    "subtract": lambda x, y: x - y,
    "multiply": lambda x, y: x * y,
    "divide": lambda x, y: x / y,
}
# the elementwise ops tested elsewhere in this file or not user-facing arithmetic
OTHER_ELEMENTWISE = {"broadcast_to", "masked", "seen"}

# (case, x): why the engine's answer differs from PyTorch's there
KNOWN = {
    # d√x/dx at x = -0.0: the engine gives +inf, the limit from the right, as
    # 0.5 * (-0.0) ** -0.5 evaluates; PyTorch divides by 2√x = -0.0 and gives -inf
    ("power 0.5", -0.0): "sign of an infinite slope at -0.0",
    ("power -0.5", -0.0): "sign of an infinite slope at -0.0",
    ("power 1.5", -0.0): "sign of a zero slope at -0.0",
    # the values themselves: NumPy's power follows C's pow, (-0.0) ** -0.5 = +inf and
    # (-inf) ** -0.5 = 0; PyTorch computes x ** -0.5 as 1 / √x: -inf and NaN. The slopes
    # there follow the values
    ("power -0.5", -np.inf): "C's pow against 1 / √x at -inf",
}


def agree(ours, theirs):
    """Entrywise: both NaN, equal (infinities with their sign), or within 1e-13 relative
    (the last bits of finite values are not this file's subject). -0.0 equals 0.0."""
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    assert ours.shape == theirs.shape
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.isclose(ours, theirs, rtol=1e-13, atol=0)
    return (ours == theirs) | (np.isnan(ours) & np.isnan(theirs)) | close


def torch_of(array, requires_grad=False):
    return torch.tensor(
        np.asarray(array, float), dtype=torch.float64, requires_grad=requires_grad
    )


def test_every_elementwise_op_is_on_the_grid():
    elementwise = {
        op.name for op in vars(ops).values() if isinstance(op, Op) and op.elementwise
    }
    covered = {name.split()[0] for name in UNARY} | set(BINARY) | OTHER_ELEMENTWISE
    assert elementwise <= covered, elementwise - covered


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_value_and_gradient_as_in_pytorch(name, seed):
    f, x = UNARY[name], np.array(GRID)
    t = Tensor(x.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = f(t)
        out.backward(np.full(x.shape, seed))
    w = torch_of(x, True)
    expected = f(w)
    expected.backward(torch.full(x.shape, seed, dtype=torch.float64))
    same = agree(out.data, expected.detach().numpy())
    assert {(name, v) for v, fine in zip(x, same) if not fine} <= set(KNOWN)
    ok = agree(t.grad, w.grad.numpy())
    bad = {(name, v) for v, fine in zip(x, ok) if not fine}
    assert bad <= set(KNOWN), [
        (v, t.grad[x == v], w.grad.numpy()[x == v]) for _, v in bad - set(KNOWN)
    ]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_value_and_gradients_as_in_pytorch(name, seed):
    f = BINARY[name]
    xs = np.array([a for a in GRID for _ in GRID])
    ys = np.array([b for _ in GRID for b in GRID])
    t, u = Tensor(xs.copy()), Tensor(ys.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = f(t, u)
        out.backward(np.full(xs.shape, seed))
    wt, wu = torch_of(xs, True), torch_of(ys, True)
    expected = f(wt, wu)
    expected.backward(torch.full(xs.shape, seed, dtype=torch.float64))
    assert agree(out.data, expected.detach().numpy()).all()
    for ours, theirs in ((t.grad, wt.grad), (u.grad, wu.grad)):
        ok = agree(ours, theirs.numpy())
        assert ok.all(), list(zip(xs[~ok], ys[~ok], ours[~ok], theirs.numpy()[~ok]))


@pytest.mark.parametrize("tangent", SEEDS)
@pytest.mark.parametrize("name", UNARY)
def test_unary_forward_rule_as_in_pytorch(name, tangent):
    f, x = UNARY[name], np.array(GRID)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, ours = jvp(f, (x,), (np.full(x.shape, tangent),))
    _, theirs = torch.func.jvp(
        f, (torch_of(x),), (torch_of(np.full(x.shape, tangent)),)
    )
    same = agree(value, f(torch_of(x)).numpy())
    assert {(name, v) for v, fine in zip(x, same) if not fine} <= set(KNOWN)
    ok = agree(ours, theirs.numpy())
    bad = {(name, v) for v, fine in zip(x, ok) if not fine}
    assert bad <= set(KNOWN), [
        (v, ours[x == v], theirs.numpy()[x == v]) for _, v in bad - set(KNOWN)
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_masked_selects(seed):
    g = np.full(4, seed)
    mask = np.array([True, False, True, False])
    assert agree(ops.masked(g, mask=mask), np.where(mask, g, 0.0)).all()
    t = Tensor(g)
    ops.masked(t, mask=mask).backward(np.full(4, seed))
    assert agree(t.grad, np.where(mask, seed, 0.0)).all()


ROWS = [
    [1.0, 2.0, 2.0],
    [np.inf, 1.0, np.inf],
    [-np.inf, -np.inf, 0.0],
    [1.0, np.nan, 2.0],
    [1e308, -1e308, 0.0],
    [0.0, -0.0, 0.0],
]


def by_hand(x, seed):
    """max's gradient as the rule states it: seed / (number of winners) for each entry
    equal to the maximum, exactly 0 elsewhere; NaN everywhere if the maximum is NaN."""
    top = np.max(x)
    if np.isnan(top):
        return np.full(x.shape, np.nan)
    winners = x == top
    return np.where(winners, seed / winners.sum(), 0.0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("row", ROWS, ids=str)
def test_max_as_in_pytorch(row, seed):
    x = np.array(row)
    t = Tensor(x)
    t.max().backward(seed)
    assert agree(t.grad, by_hand(x, seed)).all(), t.grad
    w = torch_of(x, True)
    w.amax().backward(torch.tensor(seed, dtype=torch.float64))
    if np.isfinite(seed):  # amax's rule: g * (x == max) / count
        assert agree(t.grad, w.grad.numpy()).all(), (t.grad, w.grad)
    elif len(set(row)) == len(row) and not np.isnan(x).any():
        # KNOWN: amax multiplies, inf * 0 = NaN off the winner; max over an axis
        # selects, as the engine does
        w = torch_of(x, True)
        w.max(dim=0).values.backward(torch.tensor(seed, dtype=torch.float64))
        assert agree(t.grad, w.grad.numpy()).all(), (t.grad, w.grad)


WINDOWS = [
    [1.0, 2.0, 3.0, 0.5],
    [np.inf, 1.0, -np.inf, 0.5],
    [-np.inf, -np.inf, 0.0, 0.5],
    [1e308, -1e308, 0.0, 0.5],
    [0.0, -1.0, -2.0, -3.0],
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("window", WINDOWS, ids=str)
def test_max_pool2d_as_in_pytorch(window, seed):
    x = np.array(window).reshape(1, 1, 2, 2)
    t = Tensor(x)
    max_pool2d(t, 2).backward(np.full((1, 1, 1, 1), seed))
    w = torch_of(x, True)
    F.max_pool2d(w, 2).backward(torch.full((1, 1, 1, 1), seed, dtype=torch.float64))
    assert agree(t.grad, w.grad.numpy()).all(), (t.grad, w.grad)


@pytest.mark.parametrize("seed", SEEDS)
def test_max_pool2d_shares_ties(seed):
    # KNOWN: PyTorch's max_pool2d sends g to one of tied maxima, the engine shares it
    # equally (as max and torch.amax do): the sum over the window is the same
    x = np.array([[[[1.0, 2.0], [2.0, 0.5]]]])
    t = Tensor(x)
    max_pool2d(t, 2).backward(np.full((1, 1, 1, 1), seed))
    assert agree(t.grad.ravel(), by_hand(x.ravel(), seed)).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_max_pool2d_of_nan_refuses_nothing_silently(seed):
    # PyTorch picks the NaN as the maximum and sends it g alone; the engine's max is NaN
    # too, and its gradient NaN for the whole window: NaN either way, never a silent 0
    x = np.array([[[[1.0, np.nan], [2.0, 0.5]]]])
    t = Tensor(x)
    max_pool2d(t, 2).backward(np.full((1, 1, 1, 1), seed))
    assert np.isnan(t.grad).all()


@pytest.mark.parametrize("scale", [1e150, 1e200, 1e300, 1e307])
def test_layer_norm_of_huge_rows(scale):
    base = np.array([[1.0, -2.0, 0.5, 0.25], [3.0, 3.0, 3.0, 3.0]])
    g = np.array([[1.0, 0.5, -1.0, 2.0], [1.0, 0.5, -1.0, 2.0]])
    small, big = Tensor(base), Tensor(base * scale)
    layer_norm(small, eps=0.0 + 1e-300).backward(g)
    out = layer_norm(big, eps=1e-300)
    out.backward(g)
    np.testing.assert_allclose(
        out.data[0], layer_norm(Tensor(base[0]), eps=1e-300).data, rtol=1e-13
    )
    assert out.data[1].tolist() == [0.0] * 4  # a constant row
    np.testing.assert_allclose(big.grad[0] * scale, small.grad[0], rtol=1e-12)
    assert np.isfinite(big.grad).all()


def test_layer_norm_of_ordinary_rows_is_unchanged_to_the_last_bit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5, 7)) * 100
    centred = x - x.mean(axis=-1, keepdims=True)
    plain = centred / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + 1e-5)
    assert np.array_equal(layer_norm(Tensor(x)).data, plain)


@pytest.mark.parametrize("value", [np.inf, np.nan])
def test_layer_norm_of_non_finite_rows_is_nan_as_in_pytorch(value):
    x = np.array([[value, 1.0, 2.0], [1.0, 2.0, 4.0]])
    t = Tensor(x)
    out = layer_norm(t)
    out.backward(np.ones(x.shape))
    w = torch_of(x, True)
    F.layer_norm(w, (3,)).backward(torch.ones(x.shape, dtype=torch.float64))
    assert agree(out.data, F.layer_norm(torch_of(x), (3,)).numpy()).all()
    assert np.isnan(t.grad[0]).all() and np.isfinite(t.grad[1]).all()
    np.testing.assert_allclose(t.grad[1], w.grad.numpy()[1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("tangent", [np.inf, np.nan])
def test_max_forward_rule_selects(tangent):
    x = np.array([1.0, 3.0, 2.0])
    t = np.array([tangent, 1.0, tangent])
    _, ours = jvp(lambda v: v.max(), (x,), (t,))
    _, theirs = torch.func.jvp(
        lambda v: v.max(dim=0).values, (torch_of(x),), (torch_of(t),)
    )
    assert agree(ours, theirs.numpy()).all()


@pytest.mark.parametrize("exponent", [2, 3, -1, -2])
def test_power_keeps_the_sign_of_a_zero_slope_beside_a_nan(exponent):
    # the NaN guard of power's rule adds an array to the slope: it must not turn a -0.0
    # slope elsewhere into +0.0 (PyTorch keeps the sign)
    values = [np.nan, -0.0, 0.0, -np.inf, np.inf, -1.0]
    x = Tensor(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (x**exponent).sum().backward()
    t = torch_of(values, requires_grad=True)
    (t**exponent).sum().backward()
    theirs = t.grad.numpy()
    assert agree(x.grad, theirs).all()
    zeros = theirs == 0
    assert zeros.any()
    assert np.array_equal(np.signbit(x.grad[zeros]), np.signbit(theirs[zeros]))
