"""Arrays kept by reference (issue 32, category 2): what an op's rules read later (an
index array, a mask, class targets, a constant array or a constant Tensor) is the value
the forward pass saw, whatever the caller does to their array afterwards."""

import numpy as np
import pytest

from engine import conv2d, cross_entropy, grad, no_grad, Tensor, topological_order
from engine.nn import attention, layer_norm, linear, log_softmax, nll
from engine.ops import scatter_add


RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 3))
C = RNG.normal(size=(4, 3)) + 3.0  # away from 0, for divide
M = RNG.normal(size=(3, 2))

# name: (function of (x, c) with x the Tensor differentiated and c the caller's array
# or constant, the constant c)
CASES = {
    "add c": (lambda x, c: (x + c).sum(), C),
    "c add": (lambda x, c: (c + x).sum(), C),
    "multiply c": (lambda x, c: (x * c).sum(), C),
    "c multiply": (lambda x, c: (c * x).sum(), C),
    "divide by c": (lambda x, c: (x / c).sum(), C),
    "c divided": (lambda x, c: (c / (x * x + 1.0)).sum(), C),
    "subtract c": (lambda x, c: ((x - c) ** 2).sum(), C),
    "matmul c": (lambda x, c: ((x @ c) ** 2).sum(), M),
    "c matmul": (
        lambda x, c: (
            ((c.T @ x) ** 2).sum() if isinstance(c, Tensor) else ((c.T @ x) ** 2).sum()
        ),
        C,
    ),
    "linear x const": (lambda x, c: (linear(c, x[:3, :2], x[0, :2]) ** 2).sum(), C),
    "linear W const": (lambda x, c: (linear(x, c, x[0, :2]) ** 2).sum(), M),
    "linear b const": (lambda x, c: (linear(x, M, c) ** 2).sum(), M[0]),
    "index int array": (lambda x, c: (x[c] ** 2).sum(), np.array([0, 2, 2, 3])),
    "index mask": (lambda x, c: (x[c] ** 2).sum(), X > 0),
    "index pair": (
        lambda x, c: (x[c, np.array([1, 1, 0])] ** 2).sum(),
        np.array([0, 0, 3]),
    ),
    "index list": (lambda x, c: (x[c] ** 2).sum(), [0, 2, 2]),
    "index nested list": (lambda x, c: (x[c] ** 2).sum(), [[0, 1], [3, 3]]),
    "index tuple of arrays": (
        lambda x, c: (x[c] ** 2).sum(),
        (np.array([0, 1]), np.array([2, 2])),
    ),
    "scatter_add key": (
        lambda x, c: (scatter_add(x, key=c, shape=(5, 3)) ** 2).sum(),
        np.array([0, 4, 4, 1]),
    ),
    "nll targets": (
        lambda x, c: nll(log_softmax(x), targets=c),
        np.array([0, 2, 1, 1]),
    ),
    "cross_entropy targets": (lambda x, c: cross_entropy(x, c), np.array([0, 2, 1, 1])),
    "cross_entropy list targets": (lambda x, c: cross_entropy(x, c), [0, 2, 1, 1]),
    "layer_norm gain": (lambda x, c: (layer_norm(x, c) ** 2).sum(), C[0]),
    "conv2d image": (
        lambda x, c: (conv2d(c, x.reshape(1, 1, 3, 4)) ** 2).sum(),
        RNG.normal(size=(1, 1, 5, 6)),
    ),
    "conv2d kernel": (
        lambda x, c: (conv2d(x.reshape(1, 1, 3, 4), c) ** 2).sum(),
        RNG.normal(size=(2, 1, 2, 2)),
    ),
    "conv2d bias": (
        lambda x, c: (
            conv2d(x.reshape(1, 1, 3, 4), M.T.reshape(1, 1, 2, 3), c) ** 2
        ).sum(),
        np.array([0.5]),
    ),
}


def mutate(value):
    """Change the caller's object in place, as a careless caller might."""
    if isinstance(value, Tensor):
        value.data[...] = 0.0 if value.data.dtype.kind == "f" else 1
    elif isinstance(value, np.ndarray):
        if value.dtype == bool:
            value[...] = ~value
        elif value.dtype.kind in "iu":
            value[...] = value[::-1].copy()
        else:
            value[...] = -7.5
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, list):
                v[0] = v[-1]
            else:
                value[i] = value[-1]
    elif isinstance(value, tuple):
        for v in value:
            mutate(v)


def copy_of(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [copy_of(v) for v in value]
    if isinstance(value, tuple):
        return tuple(copy_of(v) for v in value)
    return value


def reference(f, c):
    """f's value and gradient at X, with a private copy of c nobody edits."""
    x = Tensor(X.copy())
    out = f(x, copy_of(c))
    out.backward()
    return out.item(), x.grad


@pytest.mark.parametrize("name", CASES)
def test_editing_the_callers_array_after_the_forward_pass_changes_nothing(name):
    f, c = CASES[name]
    value, expected = reference(f, c)
    mine = copy_of(c)
    x = Tensor(X.copy())
    out = f(x, mine)
    mutate(mine)
    out.backward()
    assert out.item() == value
    np.testing.assert_array_equal(x.grad, expected)


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, (f, c) in CASES.items()
        if isinstance(c, np.ndarray) and c.dtype.kind == "f"
    ],
)
def test_editing_a_constant_tensors_data_after_the_forward_pass(name):
    f, c = CASES[name]
    value, expected = reference(f, c)
    constant = Tensor(c.copy(), requires_grad=False)
    x = Tensor(X.copy())
    out = f(x, constant)
    try:
        mutate(constant)  # a constant an op recorded now holds a read-only copy
    except ValueError as error:
        assert "read-only" in str(error)
    else:  # used only through another op (c.T, a reshape): a copy
        assert name in ("c matmul", "conv2d image", "conv2d kernel", "conv2d bias")
    out.backward()
    np.testing.assert_array_equal(x.grad, expected)


@pytest.mark.parametrize(
    "name",
    [
        n
        for n, (f, c) in CASES.items()
        if isinstance(c, np.ndarray) and c.dtype.kind == "f"
    ],
)
def test_the_callers_array_stays_theirs(name):
    f, c = CASES[name]
    mine = c.copy()
    f(Tensor(X.copy()), mine).backward()
    assert mine.flags.writeable  # copied, not frozen under the caller's feet
    mutate(mine)


def test_a_second_order_sweep_reads_the_kept_arrays():
    mask = X > 0
    x = Tensor(X.copy())
    y = (x[mask] ** 3).sum()
    (g,) = grad(y, [x], create_graph=True)
    mask[...] = ~mask
    (h,) = grad((g * g).sum(), [x])
    keep = X > 0
    np.testing.assert_allclose(h, np.where(keep, 36 * X**3, 0.0), rtol=1e-12)


def test_attention_mask_is_kept():
    rng = np.random.default_rng(1)
    h = rng.normal(size=(1, 3, 4))
    ws = [
        Tensor(rng.normal(size=shape) * 0.5)
        for shape in [(4, 4), (4,), (4, 4), (4, 4), (4,), (4, 4), (4,)]
    ]
    mask = np.triu(np.full((3, 3), -np.inf), k=1)

    def loss(m):
        return (attention(Tensor(h, False), *ws, heads=2, mask=m) ** 2).sum()

    loss(mask.copy()).backward()
    expected = [w.grad for w in ws]
    for w in ws:
        w.grad = None
    out = loss(mask)
    mask[...] = 0.0
    out.backward()
    for w, e in zip(ws, expected):
        np.testing.assert_array_equal(w.grad, e)


def test_read_only_arrays_of_their_own_are_not_copied():
    c = C.copy()
    c.setflags(write=False)
    x = Tensor(X.copy())
    out = x * c
    assert out.arrays[1] is c
    key = np.array([0, 1])
    key.setflags(write=False)
    assert x[key].params["key"] is key


@pytest.mark.parametrize("name", CASES)
def test_every_recorded_result_is_read_only(name):
    # a later node's rule may read any result: none can be edited in place
    loss, c = CASES[name]
    out = loss(Tensor(X.copy()), c)
    results = [node for node in topological_order(out) if node.op is not None]
    assert results and not any(node.data.flags.writeable for node in results)


def test_editing_a_result_in_place_is_refused_and_the_gradient_stays_right():
    x = Tensor([1.0, 2.0, 3.0])
    z = x * 2.0
    y = (z * z).sum()
    for edit in (z.data, z.detach().data, z.reshape((3,)).data, z[1:].data):
        with pytest.raises(ValueError, match="read-only"):
            edit[...] = 0.0
    y.backward()
    np.testing.assert_array_equal(x.grad, 8.0 * np.array([1.0, 2.0, 3.0]))  # 2z * 2


def test_results_computed_under_no_grad_stay_writeable():
    x = Tensor([1.0, 2.0])
    with no_grad():
        z = x * 2.0
    z.data[0] = 5.0  # a constant, recorded nowhere: its owner's to edit
    assert z.data.tolist() == [5.0, 4.0]
