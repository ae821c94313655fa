"""The checks of chapter 9, forward mode (T17 to T19): the elementwise ops' forward
rules, through engine.jvp, against central differences along the same directions (one or
k at once), and refused by name where an op has none; the matrix product's batched
forward rules against one product per direction; and the maximum's forward rule over
every axis, its ties sharing the tangent equally."""

import numpy as np

from autograder.checks.toolkit import (
    all_of,
    Case,
    cases_of,
    CENTRAL,
    difference,
    directional,
    max_settings,
    tied,
)


def jvp_case(rng, label, engine_f, numpy_f, shapes, k=None, low=-2.0, high=2.0):
    """A case: engine.jvp of engine_f (k directions at once if k is given) against
    central differences of numpy_f along the same directions."""
    arrays = [rng.uniform(low, high, s) for s in shapes]
    directions = [rng.normal(size=((k,) if k else ()) + s) for s in shapes]

    def run(found):
        from engine import jvp

        return jvp(engine_f, arrays, directions, batched=k is not None)

    def judge(got):
        value, tangent = got
        if k is None:
            expected = directional(numpy_f, arrays, directions)
        else:
            expected = np.stack(
                [
                    directional(numpy_f, arrays, [d[j] for d in directions])
                    for j in range(k)
                ]
            )
        return all_of(
            difference(f"{label}, value", value, numpy_f(*arrays)),
            difference(f"{label}, tangent", tangent, expected, **CENTRAL),
        )

    return Case(label, run, judge)


@cases_of("forward_rule")
def forward_rule_cases(rng):
    """T17: five compositions of elementwise ops (jvp_case), then an op without a
    forward rule."""

    def no_rule(found):
        from engine import jvp, Op

        cos = Op("cos", np.cos, lambda g, out, x: -g * np.sin(x))
        try:
            jvp(lambda x: cos(x), (np.ones(3),), (np.ones(3),))
        except NotImplementedError as error:
            if "cos" in str(error):
                return True
            raise  # another NotImplementedError: a task's stub, still to write
        return "no error"

    return [
        jvp_case(
            rng, "tanh(x) * x", lambda x: x.tanh() * x, lambda x: np.tanh(x) * x, [(5,)]
        ),
        jvp_case(
            rng,
            "x * y, broadcast",
            lambda x, y: x * y,
            lambda x, y: x * y,
            [(4, 3), (3,)],
        ),
        jvp_case(
            rng,
            "x / y - exp(x)",
            lambda x, y: x / y - x.exp(),
            lambda x, y: x / y - np.exp(x),
            [(2, 3), (2, 3)],
            low=0.5,
        ),
        jvp_case(
            rng,
            "sigmoid(x) ** 3, 4 directions",
            lambda x: x.sigmoid() ** 3,
            lambda x: (1 / (1 + np.exp(-x))) ** 3,
            [(3, 2)],
            k=4,
        ),
        jvp_case(
            rng,
            "log(x) + relu(y), 3 directions",
            lambda x, y: x.log() + y.relu(),
            lambda x, y: np.log(x) + np.maximum(y, 0),
            [(4,), ()],
            k=3,
            low=0.5,
        ),
        Case(
            "an op that declares no forward rule is refused by name",
            no_rule,
            lambda got: (
                None
                if got is True
                else f"jvp through an op with no rule and not elementwise: expected a "
                f"NotImplementedError naming the op, got {got!r}"
            ),
        ),
    ]


def per_direction(function, t, other, first):
    """function applied direction by direction: the oracle of the batched matmul
    rules."""
    return np.stack([function(tj, other) if first else function(other, tj) for tj in t])


@cases_of("tangents_times")
def matmul_rule_cases(rng):
    """T18: tangents_times and times_tangents on 1-D, 2-D and batched operands, with one
    and with three directions."""
    made = []
    shapes = [
        ((3, 4), (4, 2)),
        ((4,), (4, 3)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (2, 4, 5)),
        ((4,), (2, 4, 3)),
        ((3, 4), (2, 4, 5)),
        ((2, 3, 4), (4, 5)),
    ]
    for a_shape, b_shape in shapes:
        for k in (1, 3):
            a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
            ta, tb = rng.normal(size=(k,) + a_shape), rng.normal(size=(k,) + b_shape)

            def run(found, a=a, b=b, ta=ta, tb=tb):
                return [found.tangents_times(ta, b), found.times_tangents(a, tb)]

            def judge(
                got, a=a, b=b, ta=ta, tb=tb, label=f"{a_shape} @ {b_shape}, k={k}"
            ):
                return all_of(
                    difference(
                        f"{label}, tangents_times (dA B)",
                        got[0],
                        per_direction(np.matmul, ta, b, True),
                    ),
                    difference(
                        f"{label}, times_tangents (A dB)",
                        got[1],
                        per_direction(np.matmul, tb, a, False),
                    ),
                )

            made.append(
                Case(
                    f"A {a_shape} @ B {b_shape}, {k} direction{'s' * (k > 1)}",
                    run,
                    judge,
                )
            )
    return made


@cases_of("max_jvp")
def max_jvp_cases(rng):
    """T19: the maximum's tangent over every axis setting of max_settings, against
    central differences, then rows with ties."""
    made = []
    for axis, keepdims, x, label in max_settings(rng):
        u = rng.normal(size=(2, 3, 4))

        def run(found, x=x, u=u, axis=axis, keepdims=keepdims):
            from engine import jvp

            return jvp(lambda t: t.max(axis=axis, keepdims=keepdims), (x,), (u,))[1]

        def judge(got, x=x, u=u, axis=axis, keepdims=keepdims, what=label):
            expected = directional(
                lambda v: np.max(v, axis=axis, keepdims=keepdims), [x], [u]
            )
            return difference(what, got, expected, **CENTRAL)

        made.append(Case(label, run, judge))
    ties = tied()
    u = rng.normal(size=(3, 3))

    def tie_run(found):
        from engine import jvp

        return jvp(lambda t: t.max(axis=1), (ties,), (u,))[1]

    expected = np.array([(u[0, 1] + u[0, 2]) / 2, u[1, 0], u[2].mean()])
    made.append(
        Case(
            "ties share the tangent equally",
            tie_run,
            lambda got: difference("max over rows with ties", got, expected),
        )
    )
    return made
