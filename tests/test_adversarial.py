"""Issue 17, the adversary's part: random programs run by the engine and by PyTorch
(float64) side by side, with random op sequences over random broadcastable shapes (empty
arrays included), negative axes, repeated inputs and constants of every kind on either
side of every binary op."""

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, broadcastable_shapes
from hypothesis_profiles import examples
import numpy as np
import torch

from engine.core import Tensor
from engine.transforms import grad


SIDES = dict(min_side=0, max_side=3)
CONSTANT_KINDS = [
    "float",
    "int",
    "numpy scalar",
    "0-d array",
    "list",
    "tuple",
    "float64 array",
    "int array",
    "float32 array",
    "bool array",
]


def constant_of(kind, shape, rng):
    """A constant of `kind` whose value, as float64, broadcasts against `shape`."""
    values = np.round(rng.uniform(0.5, 2.0, size=shape), 2) * rng.choice(
        [-1, 1], size=shape
    )
    if kind == "float":
        return float(values.ravel()[0]) if values.size else 1.5
    if kind == "int":
        return int(rng.integers(1, 4))
    if kind == "numpy scalar":
        return np.float64(1.25)
    if kind == "0-d array":
        return np.array(-0.75)
    if kind in ("list", "tuple") and values.size:  # [] would lose the shape (0, 1)
        as_list = values.tolist()
        return (
            tuple(as_list) if kind == "tuple" and isinstance(as_list, list) else as_list
        )
    if kind in ("float64 array", "list", "tuple"):
        return values
    if kind == "int array":
        return np.rint(values * 2).astype(np.int64)
    if kind == "float32 array":
        return values.astype(np.float32)
    return values > 0


def as_torch(c):
    """The same constant for PyTorch: Python numbers stay numbers, everything else
    float64."""
    if isinstance(c, (float, int)) and not isinstance(c, bool):
        return c
    return torch.tensor(np.asarray(c, dtype=np.float64))


def safe(x, lib):
    """A positive version of x (for log, divide and fractional powers): x * x + 1."""
    return x * x + 1.0


UNARY = {
    "neg": lambda x, lib: -x,
    "exp": lambda x, lib: (
        x.tanh().exp() if lib == "engine" else torch.exp(torch.tanh(x))
    ),
    "log": lambda x, lib: (
        safe(x, lib).log() if lib == "engine" else torch.log(safe(x, lib))
    ),
    "tanh": lambda x, lib: x.tanh(),
    "sigmoid": lambda x, lib: x.sigmoid(),
    "relu": lambda x, lib: x.relu(),
    "square": lambda x, lib: x**2,
    "sqrt": lambda x, lib: safe(x, lib) ** 0.5,
    "reciprocal": lambda x, lib: safe(x, lib) ** -1,
}
BINARY = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
}


def random_axis(draw, ndim):
    """None, one axis (maybe negative) or a tuple of distinct axes (maybe negative)."""
    if ndim == 0:
        return None
    kind = draw(st.sampled_from(["none", "one", "tuple"]))
    if kind == "none":
        return None
    axes = draw(
        st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True)
    )
    axes = [a - ndim if draw(st.booleans()) else a for a in axes]
    return axes[0] if kind == "one" else tuple(axes)


@st.composite
def programs(draw):
    """(leaf arrays, steps): each step names an op and the pool positions or constants
    it uses."""
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    base = draw(array_shapes(min_dims=0, max_dims=3, **SIDES))
    shapes = [base] + draw(
        st.lists(
            broadcastable_shapes(base, min_dims=0, max_dims=3, **SIDES),
            min_size=0,
            max_size=2,
        )
    )
    leaves = [rng.normal(size=s) for s in shapes]
    pool = list(shapes)
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, len(pool) - 1))
        shape = pool[i]
        kind = draw(
            st.sampled_from(
                [
                    "unary",
                    "binary",
                    "constant",
                    "reduce",
                    "transpose",
                    "reshape",
                    "index",
                    "matmul",
                ]
            )
        )
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(sorted(UNARY))), i))
        elif kind == "binary":
            j = draw(st.integers(0, len(pool) - 1))  # may be i itself: a repeated input
            try:
                out = np.broadcast_shapes(shape, pool[j])
            except ValueError:
                continue
            steps.append(("binary", draw(st.sampled_from(sorted(BINARY))), i, j))
            pool.append(out)
            continue
        elif kind == "constant":
            name = draw(st.sampled_from(sorted(BINARY)))
            constant_kind = draw(st.sampled_from(CONSTANT_KINDS))
            cshape = draw(
                broadcastable_shapes(shape, min_dims=0, max_dims=len(shape), **SIDES)
            )
            cshape = (
                cshape
                if all(a == b or a == 1 for a, b in zip(cshape[::-1], shape[::-1]))
                else ()
            )
            constant = constant_of(constant_kind, cshape, rng)
            if name == "div" and constant_kind == "bool array":
                constant = constant_of("float64 array", cshape, rng)
            steps.append(("constant", name, i, constant, draw(st.booleans())))
            pool.append(np.broadcast_shapes(shape, np.shape(constant)))
            continue
        elif kind == "reduce":
            reduction = draw(st.sampled_from(["sum", "mean", "max"]))
            axis = random_axis(draw, len(shape))
            axes = (
                range(len(shape))
                if axis is None
                else np.atleast_1d(axis) % max(len(shape), 1)
            )
            if reduction == "max" and any(shape[a] == 0 for a in axes):
                continue
            keepdims = draw(st.booleans())
            steps.append(("reduce", reduction, i, axis, keepdims))
            pool.append(np.sum(np.zeros(shape), axis=axis, keepdims=keepdims).shape)
            continue
        elif kind == "transpose":
            axes = tuple(draw(st.permutations(range(len(shape)))))
            axes = tuple(a - len(shape) if draw(st.booleans()) else a for a in axes)
            steps.append(("transpose", axes, i))
            pool.append(np.zeros(shape).transpose(axes).shape)
            continue
        elif kind == "reshape":
            target = (-1,) if draw(st.booleans()) else shape[::-1]
            steps.append(("reshape", target, i))
            pool.append(np.zeros(shape).reshape(target).shape)
            continue
        elif kind == "index":
            if len(shape) == 0:
                continue
            key = draw(st.sampled_from([slice(None, None, -1), slice(1, None), 0, -1]))
            if isinstance(key, int) and shape[0] == 0:
                continue
            steps.append(("index", key, i))
            pool.append(np.zeros(shape)[key].shape)
            continue
        else:
            j = draw(st.integers(0, len(pool) - 1))
            try:
                out = np.matmul(np.zeros(shape), np.zeros(pool[j])).shape
            except ValueError:
                continue
            steps.append(("matmul", i, j))
            pool.append(out)
            continue
        pool.append(shape)
    return leaves, steps


def run(leaves, steps, lib):
    """The program's final value and its leaves, in the engine or in PyTorch."""
    if lib == "engine":
        xs = [Tensor(a) for a in leaves]
    else:
        xs = [torch.tensor(a, requires_grad=True) for a in leaves]
    pool = list(xs)
    for step in steps:
        kind = step[0]
        if kind == "unary":
            pool.append(UNARY[step[1]](pool[step[2]], lib))
        elif kind == "binary":
            x, y = pool[step[2]], pool[step[3]]
            if step[1] == "div":
                y = safe(y, lib)
            pool.append(BINARY[step[1]](x, y))
        elif kind == "constant":
            _, name, i, c, on_left = step
            c = c if lib == "engine" else as_torch(c)
            x = pool[i]
            if name == "div" and on_left:
                x = safe(x, lib)
            pool.append(BINARY[name](c, x) if on_left else BINARY[name](x, c))
        elif kind == "reduce":
            _, reduction, i, axis, keepdims = step
            x = pool[i]
            if lib == "engine":
                pool.append(getattr(x, reduction)(axis=axis, keepdims=keepdims))
            else:
                dims = tuple(range(x.ndim)) if axis is None else axis
                torch_name = {"sum": "sum", "mean": "mean", "max": "amax"}[reduction]
                pool.append(
                    getattr(x, torch_name)(dim=dims, keepdim=keepdims)
                    if x.ndim
                    else x * 1.0
                )
        elif kind == "transpose":
            x = pool[step[2]]
            pool.append(
                x.transpose(*step[1]) if lib == "engine" else x.permute(step[1])
            )
        elif kind == "reshape":
            pool.append(pool[step[2]].reshape(step[1]))
        elif kind == "index":
            x, key = pool[step[2]], step[1]
            if lib == "torch" and isinstance(key, slice) and key.step == -1:
                pool.append(x.flip(0))
            else:
                pool.append(x[key])
        else:
            pool.append(pool[step[1]] @ pool[step[2]])
    return pool[-1], xs


def close(a, b):
    """Equal up to rounding, NaN where the other is NaN."""
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True)


@settings(max_examples=examples(ci=200))
@given(programs(), st.integers(0, 2**16))
def test_random_programs_match_pytorch(program, seed):
    leaves, steps = program
    out, xs = run(leaves, steps, "engine")
    out_t, xs_t = run(leaves, steps, "torch")
    assert out.shape == tuple(out_t.shape)
    close(out.data, out_t.detach().numpy())
    G = np.random.default_rng(seed).normal(size=out.shape)
    (out * G).sum().backward(retain_graph=True)  # swept again by grad() below
    if out_t.requires_grad:
        (out_t * torch.tensor(G)).sum().backward()
    for x, x_t in zip(xs, xs_t):  # a leaf the sweep never reached has no gradient
        assert (x.grad is None) == (x_t.grad is None)
        if x.grad is not None:
            assert x.grad.shape == tuple(x_t.grad.shape)
            close(x.grad, x_t.grad.numpy())
    # the differentiable sweep (chapter 10) gives the same numbers as the plain one
    recorded = grad((out * G).sum(), xs, create_graph=True, allow_unused=True)
    for x, r in zip(xs, recorded):  # None where the sweep never reached, as in PyTorch
        assert (r is None) == (x.grad is None)
        if r is not None:
            close(r.data, x.grad)
