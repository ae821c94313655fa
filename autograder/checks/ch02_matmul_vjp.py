"""The checks of chapter 2, the matrix product's local rules (T4): matmul_vjp_a and
matmul_vjp_b on square, rectangular, 1-D and batched operands, each against central
differences of sum((A @ B) * g), and with one operand's entries near 1e12, where a rule
that takes differences itself instead of applying its formula loses every digit."""

import numpy as np

from autograder.checks.toolkit import (
    all_of,
    Case,
    cases_of,
    difference,
    is_array,
    numerical_gradient,
)


# no operand is broadcast against the other's batch axes (summing those back is
# unbroadcast's job, chapter 3), so the rules' results have their operand's shape
MATMUL_SHAPES = [
    ((3, 3), (3, 3)),
    ((4, 3), (3, 2)),
    ((4,), (4,)),
    ((4,), (4, 3)),
    ((3, 4), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((1, 3), (3, 1)),
    ((2, 2, 3, 4), (2, 2, 4, 2)),
]


@cases_of("matmul_vjp_a")
def matmul_cases(rng):
    """T4: one case for each pair of MATMUL_SHAPES, both rules on random A, B and g."""
    made = []
    for a_shape, b_shape in MATMUL_SHAPES:
        a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
        g = rng.normal(size=np.matmul(a, b).shape)

        def run(found, a=a, b=b, g=g):
            out = np.matmul(a, b)
            return [found.matmul_vjp_a(g, out, a, b), found.matmul_vjp_b(g, out, a, b)]

        def judge(got, a=a, b=b, g=g, label=f"{a_shape} @ {b_shape}"):
            da = numerical_gradient(lambda v: float((np.matmul(v, b) * g).sum()), a)
            db = numerical_gradient(lambda v: float((np.matmul(a, v) * g).sum()), b)
            return all_of(
                is_array(got[0], f"{label}, dL/dA"),
                is_array(got[1], f"{label}, dL/dB"),
                difference(f"{label}, dL/dA (matmul_vjp_a)", got[0], da),
                difference(f"{label}, dL/dB (matmul_vjp_b)", got[1], db),
            )

        made.append(Case(f"A @ B with A {a_shape}, B {b_shape}", run, judge))
    made += [huge_operand_case(rng, side) for side in ("A", "B")]
    return made


def huge_operand_case(rng, side):
    """One operand's entries near 1e12: dL/dA = g B^T does not depend on A (nor dL/dB on
    B), so the rules' results are judged against central differences at the operand
    drawn at unit size; differences taken inside a rule, at the huge operand, lose
    every digit to rounding."""
    small, big = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    g = rng.normal(size=(4, 2))
    huge = 1e12 * (1 + rng.uniform(size=(4, 3) if side == "A" else (3, 2)))
    a, b = (huge, big) if side == "A" else (small, huge)

    def run(found):
        out = np.matmul(a, b)
        rule = found.matmul_vjp_a if side == "A" else found.matmul_vjp_b
        return rule(g, out, a, b)

    def judge(got):
        if side == "A":
            expected = numerical_gradient(
                lambda v: float((np.matmul(v, b) * g).sum()), small
            )
        else:
            expected = numerical_gradient(
                lambda v: float((np.matmul(a, v) * g).sum()), big
            )
        what = f"dL/d{side} with {side}'s entries near 1e12"
        return all_of(
            is_array(got, what, expected.shape), difference(what, got, expected)
        )

    return Case(f"A @ B with {side}'s entries near 1e12", run, judge)
