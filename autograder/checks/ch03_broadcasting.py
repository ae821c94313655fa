"""The checks of chapter 3, broadcasting (T5 to T7): unbroadcast and scatter-add judged
by the identities that define them (<unbroadcast(g), x> = <g, x broadcast> and
<scatter(g), x> = <g, x[key]>, on random probes x), and the maximum's local rule over
every axis against central differences, with its ties shared equally."""

import numpy as np

from autograder.checks.toolkit import (
    all_of,
    Case,
    cases_of,
    difference,
    is_array,
    max_settings,
    numerical_gradient,
)


def adjoint_problem(got, what, shape, probes, pairing, named):
    """What is wrong with `got`, an array of `shape` that one identity defines: for each
    probe x, <got, x> must equal pairing(x), the other side of the identity, which
    `named` writes out (an adjoint sums or adds, and does nothing else)."""
    problem = is_array(got, what, shape=shape)
    if problem:
        return problem
    for x in probes:
        problem = difference(
            f"{what}: <result, x> against {named}",
            float((got * x).sum()),
            pairing(x),
            rtol=1e-10,
        )
        if problem:
            return problem
    return None


def broadcast_pair(rng):
    """(big, small): a shape and one that broadcasts to it, with axes added and
    stretched."""
    big = tuple(int(n) for n in rng.integers(2, 5, rng.integers(1, 5)))
    keep = int(rng.integers(0, len(big) + 1))
    small = tuple(1 if rng.random() < 0.4 else n for n in big[len(big) - keep :])
    return big, small


@cases_of("unbroadcast")
def unbroadcast_cases(rng):
    """T5: five fixed pairs of shapes and five random ones (broadcast_pair), each with
    two probes."""
    pairs = [
        ((4, 3), (4, 3)),
        ((2, 4, 3), (3,)),
        ((2, 4, 3), (4, 1)),
        ((2, 4, 3), ()),
        ((2, 4, 3), (1, 1, 1)),
    ] + [broadcast_pair(rng) for _ in range(5)]
    made = []
    for big, small in pairs:
        g = rng.normal(size=big)
        probes = [rng.normal(size=small) for _ in range(2)]

        def judge(got, g=g, big=big, small=small, probes=probes):
            return adjoint_problem(  # <unbroadcast(g), x> = <g, x broadcast>
                got,
                f"unbroadcast(g of shape {big}, {small})",
                small,
                probes,
                lambda x: float((g * np.broadcast_to(x, big)).sum()),
                f"<g, x broadcast to {big}>",
            )

        made.append(
            Case(
                f"g of shape {big} back to {small}",
                lambda found, g=g, small=small: found.unbroadcast(g, small),
                judge,
            )
        )
    return made


@cases_of("max_vjp")
def max_vjp_cases(rng):
    """T6: the rule over every axis setting of max_settings, then rows with ties."""
    made = []
    for axis, keepdims, x, label in max_settings(rng):
        out = np.max(x, axis=axis, keepdims=keepdims)
        g = rng.normal(size=np.shape(out))

        def judge(got, x=x, g=g, axis=axis, keepdims=keepdims, what=label):
            expected = numerical_gradient(
                lambda v: float((np.max(v, axis=axis, keepdims=keepdims) * g).sum()), x
            )
            return all_of(is_array(got, what), difference(what, got, expected))

        made.append(
            Case(
                label,
                lambda found, x=x, out=out, g=g, axis=axis, keepdims=keepdims: (
                    found.max_vjp(g, out, x, axis=axis, keepdims=keepdims)
                ),
                judge,
            )
        )
    made += [tie_case(rng, *setting) for setting in TIE_SETTINGS]
    return made


# (what, x, axis, keepdims, each entry's share of its reduction's gradient): maxima
# tied two and three times, along every kind of reduction; the shares are written out
# by hand, since central differences say nothing at a tie
_ROWS = [[1.0, 5.0, 5.0], [7.0, 2.0, 3.0], [4.0, 4.0, 4.0]]
_ROW_SHARES = [[0, 1 / 2, 1 / 2], [1, 0, 0], [1 / 3, 1 / 3, 1 / 3]]
TIE_SETTINGS = [
    ("rows with ties", _ROWS, 1, False, _ROW_SHARES),
    ("rows with ties, keepdims", _ROWS, 1, True, _ROW_SHARES),
    ("columns with ties", np.transpose(_ROWS), 0, False, np.transpose(_ROW_SHARES)),
    (
        "the whole array, its maximum three times",
        [[5.0, 1.0, 5.0], [2.0, 5.0, 3.0]],
        None,
        False,
        [[1 / 3, 0, 1 / 3], [0, 1 / 3, 0]],
    ),
    (
        "the last axis of a stack, rows with ties",
        [_ROWS, _ROWS[::-1]],
        -1,
        False,
        [_ROW_SHARES, _ROW_SHARES[::-1]],
    ),
]


def tie_case(rng, what, x, axis, keepdims, shares):
    """The rule where maxima tie: each reduction's gradient shared equally by its
    maxima (as PyTorch's amax does), for a random g."""
    x, shares = np.array(x), np.array(shares, dtype=float)
    out = np.max(x, axis=axis, keepdims=keepdims)
    g = rng.uniform(0.5, 2.0, np.shape(out))

    def judge(got):
        spread = np.expand_dims(g, axis) if axis is not None and not keepdims else g
        expected = shares * spread
        label = f"max over {what}: each gradient shared equally by its maxima"
        return all_of(is_array(got, label, x.shape), difference(label, got, expected))

    return Case(
        f"ties: {what}",
        lambda found: found.max_vjp(g, out, x, axis=axis, keepdims=keepdims),
        judge,
    )


@cases_of("scatter_add_forward")
def scatter_add_cases(rng):
    """T7: keys with repeated rows, slices, pairs, a random mask and an ellipsis, into
    an array of shape (5, 3), each with two probes."""
    keys = [  # (what the key is, the key), random ones drawn in this order
        ("repeated rows", np.array([0, 2, 2, 1])),
        ("slices", (slice(1, None), slice(None, None, 2))),
        ("one row thrice", np.array([3, 3, 3])),
        ("pairs with repeats", (np.array([0, 0, 4]), np.array([1, 1, 2]))),
        ("random rows", rng.integers(0, 5, 7)),
        ("a random mask", rng.random((5, 3)) > 0.5),
        ("an ellipsis", (Ellipsis, 1)),
    ]
    made = []
    for name, key in keys:
        x_shape = (5, 3)
        g = rng.normal(size=np.zeros(x_shape)[key].shape)
        probes = [rng.normal(size=x_shape) for _ in range(2)]

        def judge(got, g=g, key=key, probes=probes, name=name):
            return adjoint_problem(  # <scatter(g), x> = <g, x[key]>
                got,
                f"scatter_add_forward with {name}",
                (5, 3),
                probes,
                lambda x: float((g * x[key]).sum()),
                "<g, x[key]>",
            )

        made.append(
            Case(
                f"key: {name}",
                lambda found, g=g, key=key: found.scatter_add_forward(g, key, (5, 3)),
                judge,
            )
        )
    return made
