"""Random programs against PyTorch in float64 (issue 32): compositions of the
catalogue's shape-preserving ops (course.catalogue, each with its PyTorch expression, so
no op's math is written here) on two inputs of shape (2, 3) whose entries include
special values (0, ±inf, NaN, huge and tiny numbers, an argument where exp overflows,
one where it nearly underflows). For each program P(x, y), seeded and bounded:

- the value and the gradient (grad) against torch.autograd.grad,
- the JVP against torch.func.jvp,
- jvp of jvp (d/dx along u of the JVP in y along w, the inner function closing over x)
  against torch.func.jvp nested, and reverse over reverse,
- grad of grad (hvp, reverse over reverse) against torch.autograd.functional.hvp,
- jvp of grad (forward over reverse) against torch.func.jvp of torch.func.grad.

Non-finite entries must agree exactly (NaN with NaN, inf with inf of the same sign),
finite ones to rounding. What rounding can do is measured, not guessed: PyTorch computes
each quantity a second way (the gradient by forward mode, the JVP from the gradient, the
Hessian-vector product and the mixed derivative by both compositions), and again with
its inputs and every op's result moved by two units in the last place; an entry whose
PyTorch answers differ (a difference of nearly equal terms, as 1 - tanh(x)² where tanh
saturates) gets ten times that difference of slack, and where they differ on NaN or inf,
either is accepted. No refusal is expected here: any error fails the test."""

from helpers import CASES
import numpy as np
import pytest
import torch

from engine import grad, hvp, jvp, Tensor
from engine.transforms import hvp_forward_over_reverse


SHAPE = (2, 3)
# the catalogue's cases that keep a (2, 3) array's shape (or a broadcastable one)
UNARY = [
    name
    for name, case in CASES.items()
    if case.family is not None
    and case.family.kind == "array"
    and case.family.dims == (0, 3)
    and len(case.shapes[0]) == 1
]
UNARY += ["softmax", "log_softmax", "layer_norm", "sum keepdims"]
# x * tanh(x) and tanh(x) * x hide a tanh whose result the jitter (below) cannot reach:
# where tanh saturates, 1 - tanh(x)² carries the last bit of tanh(x), in which NumPy and
# PyTorch may differ, and nothing would measure it. The programs build them from tanh,
# multiply and a reused node themselves.
UNARY = [name for name in UNARY if "tanh(x)" not in name]
BINARY = [
    name
    for name, case in CASES.items()
    if case.family is not None and case.family.kind == "broadcast"
]
# Left out: -0.0, where PyTorch's x ** 0.5 has the slope 0.5 / √-0 = -inf and the
# engine's (NumPy's power) +inf, a convention for a slope that does not exist; and
# arguments that make subnormal numbers (exp(-745) = 5e-324), which have no relative
# precision left: a tangent computed from one (5e-324 w) is rounding alone.
SPECIAL = [0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 1e-300, 1e-150, 710.0, -700.0]
# the engine's layer_norm rescales a row of huge spread (chapter 13) where PyTorch's
# squares overflow to NaN: a difference in the engine's favour, left out of the programs
# on special values (tests/test_nn.py checks it)
NOT_ON_SPECIAL = {"layer_norm"}


def program(seed, special, steps=5):
    """A random program: steps (op name, operand positions in the pool [x, y, ...])."""
    rng = np.random.default_rng(seed)
    unary = [name for name in UNARY if not (special and name in NOT_ON_SPECIAL)]
    plan = []
    for k in range(steps):
        pool = 2 + k
        if rng.random() < 0.45:
            plan.append(
                (
                    BINARY[rng.integers(len(BINARY))],
                    (int(rng.integers(pool)), int(rng.integers(pool))),
                )
            )
        else:
            plan.append((unary[rng.integers(len(unary))], (pool - 1,)))
    return plan


def inputs(seed, special):
    """x, y of SHAPE, directions u, w, v and an output weighting G: normal numbers, and
    with `special` each entry of x and y replaced by a special value with probability
    1/4."""
    rng = np.random.default_rng(10_000 + seed)
    x, y = rng.uniform(-2, 2, size=(2,) + SHAPE)
    if special:
        for a in (x, y):
            picks = rng.random(SHAPE) < 0.25
            a[picks] = rng.choice(SPECIAL, size=picks.sum())
    u, w, v, G = rng.normal(size=(4,) + SHAPE)
    return x, y, u, w, v, G


def scalar(plan, G, lib, jitter=None):
    """<G, P(x, y)> by the catalogue's engine or torch expressions (G cut to the shape
    of P, which is SHAPE or (2, 1)); with a generator `jitter`, every op's result is
    moved by about two units in its last place (as if it had been rounded otherwise)."""
    lift = (lambda a: a) if lib == "engine" else torch.as_tensor
    factors = [
        None if jitter is None else 1 + 4.5e-16 * jitter.choice([-1, 1], SHAPE)
        for _ in plan
    ]

    def f(x, y):
        pool = [x, y]
        for (name, positions), factor in zip(plan, factors):
            case = CASES[name]
            expression = case.engine if lib == "engine" else case.torch
            out = expression(*(pool[i] for i in positions))
            if factor is not None:
                out = out * lift(factor[tuple(slice(n) for n in out.shape)].copy())
            pool.append(out)
        out = pool[-1]
        return (out * lift(G[tuple(slice(n) for n in out.shape)].copy())).sum()

    return f


def t64(a):
    return torch.tensor(np.asarray(a, dtype=np.float64))


def zero_if_none(g, like):
    return torch.zeros_like(like) if g is None else g


def torch_answers(f, x, y, u, w, v):
    """Every quantity the test compares, by PyTorch, some of them two ways."""
    X, Y = t64(x).requires_grad_(), t64(y).requires_grad_()
    out = f(X, Y)
    answers = {"value": out.detach()}
    gx, gy = (
        torch.autograd.grad(out, [X, Y], allow_unused=True, create_graph=True)
        if out.requires_grad
        else (None, None)
    )
    answers["gradient"] = [zero_if_none(g, X).detach() for g in (gx, gy)]
    answers["jvp"] = torch.func.jvp(f, (t64(x), t64(y)), (t64(u), t64(w)))[1]
    # each also the other way: the gradient by forward mode, the JVP from the gradient
    answers["gradient, forward"] = torch.func.jacfwd(f, argnums=(0, 1))(t64(x), t64(y))
    answers["jvp, reverse"] = sum(
        (g * t64(d)).sum() for g, d in zip(answers["gradient"], (u, w))
    )

    def outer(a):
        return torch.func.jvp(lambda b: f(a, b), (t64(y),), (t64(w),))[1]

    answers["jvp of jvp"] = torch.func.jvp(outer, (t64(x),), (t64(u),))[1]
    mixed = None  # the same mixed derivative by reverse over reverse
    if gy is not None and gy.requires_grad:
        (mixed,) = torch.autograd.grad((gy * t64(w)).sum(), [X], allow_unused=True)
    answers["mixed, reverse"] = (
        0 * answers["jvp of jvp"] if mixed is None else (mixed * t64(u)).sum()
    )
    in_x = lambda a: f(a, t64(y))  # noqa: E731
    answers["hvp"] = torch.autograd.functional.hvp(in_x, t64(x), t64(v))[1]
    answers["jvp of grad"] = torch.func.jvp(
        torch.func.grad(in_x), (t64(x),), (t64(v),)
    )[1]
    return answers


def numpy(a):
    return a.detach().numpy() if torch.is_tensor(a) else np.asarray(a, dtype=np.float64)


def agree(ours, reference, others, what):
    """ours equal to PyTorch's reference: up to rounding where finite, identical where
    not; `others` are PyTorch's other answers for the same quantity (see the top)."""
    ours, first = numpy(ours), numpy(reference)
    others = [numpy(o) for o in others]
    assert ours.shape == first.shape, f"{what}: shape {ours.shape}, {first.shape}"
    same = (ours == first) | (np.isnan(ours) & np.isnan(first))
    spread = np.zeros(first.shape)
    finite = np.isfinite(first) & np.isfinite(ours)
    for other in others:
        same |= (ours == other) | (np.isnan(ours) & np.isnan(other))
        both = finite & np.isfinite(other)
        spread = np.maximum(
            spread, np.abs(first - other, where=both, out=np.zeros(first.shape))
        )
    scale = max(1.0, float(np.abs(first[np.isfinite(first)]).max(initial=0.0)))
    close = np.abs(ours - first, where=finite, out=np.full(first.shape, np.inf)) <= (
        1e-9 * np.abs(first) + 1e-12 * scale + 10 * spread
    )
    wrong = ~(same | (finite & close))
    assert not wrong.any(), (
        f"{what}: at {np.argwhere(wrong).tolist()}, engine {ours[wrong]}, PyTorch "
        f"{first[wrong]}, other answers {[o[wrong] for o in others]}"
    )


def nudged(a, rng):
    """a with each finite entry moved by about two units in the last place."""
    return np.where(np.isfinite(a), a * (1 + 4.5e-16 * rng.choice([-1, 1], a.shape)), a)


SEEDS = range(100)


@pytest.mark.parametrize("special", [False, True], ids=["normal", "special"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_and_its_transforms_match_pytorch(seed, special):
    plan = program(seed, special)
    x, y, u, w, v, G = inputs(seed, special)
    ours, theirs = scalar(plan, G, "engine"), scalar(plan, G, "torch")
    with np.errstate(all="ignore"):
        expected = torch_answers(theirs, x, y, u, w, v)
        rng = np.random.default_rng(seed)
        nearby = torch_answers(
            scalar(plan, G, "torch", jitter=rng),
            nudged(x, rng),
            nudged(y, rng),
            u,
            w,
            v,
        )
        X, Y = Tensor(x), Tensor(y)
        loss = ours(X, Y)
        gradients = (
            grad(loss, [X, Y], allow_unused=True)
            if loss.requires_grad
            else [None, None]
        )
        value, tangent = jvp(ours, (x, y), (u, w))

        def outer(a):
            return jvp(lambda b: ours(a, b), (y,), (w,))[1]

        Yc = Tensor(y, requires_grad=False)  # y closed over: a constant
        found = {
            "value": loss.data,
            "jvp value": value,
            "jvp": tangent,
            "jvp of jvp": jvp(outer, (x,), (u,))[1],
            "hvp": hvp(lambda a: ours(a, Yc), x, v),
            "jvp of grad": hvp_forward_over_reverse(lambda a: ours(a, Yc), x, v),
        }
    for name, g in zip("xy", gradients):
        found[f"gradient in {name}"] = np.zeros(SHAPE) if g is None else g
    for name, ours_now in found.items():
        key = {
            "jvp value": "value",
            "gradient in x": "gradient",
            "gradient in y": "gradient",
        }.get(name, name)
        ref, near = expected[key], nearby[key]
        if key == "gradient":
            ref, near = ref["xy".index(name[-1])], near["xy".index(name[-1])]
        others = [near] + {
            "jvp of jvp": [expected["mixed, reverse"]],
            "hvp": [expected["jvp of grad"]],
            "jvp of grad": [expected["hvp"]],
            "jvp": [expected["jvp, reverse"]],
            "gradient in x": [expected["gradient, forward"][0]],
            "gradient in y": [expected["gradient, forward"][1]],
        }.get(name, [])
        agree(ours_now, ref, others, f"{name} of {plan}")
