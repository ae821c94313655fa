"""Every op of the engine against central finite differences and PyTorch, on every shape
case of the op catalogue (course.catalogue: shapes that broadcast, every parameter
variant), and a composite network layer against central differences."""

from helpers import assert_gradient
import numpy as np
import pytest

from course.catalogue import OP_CASES, PARAMETER_CASES
from course.verification import finite_difference_error
from course.witness import torch_error


SHAPE_CASES = [
    pytest.param(case, shapes, id=f"{case.name}: {shapes}")
    for case in OP_CASES + PARAMETER_CASES
    for shapes in case.shapes
]


def test_the_catalogue_names_each_case_once():
    names = [case.name for case in OP_CASES + PARAMETER_CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case, shapes", SHAPE_CASES)
def test_op_against_finite_differences(case, shapes):
    assert finite_difference_error(case, shapes) < 1e-8


@pytest.mark.parametrize("case, shapes", SHAPE_CASES)
def test_op_value_and_gradient_against_pytorch(case, shapes):
    assert torch_error(case, shapes) <= 1e-14


def test_a_composite_network_layer():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(6, 3))

    def layer(W, b):
        return ((X @ W + b).tanh() ** 2).mean(axis=0)

    assert_gradient(
        layer,
        lambda W, b: (np.tanh(X @ W + b) ** 2).mean(axis=0),
        rng.normal(size=(3, 2)),
        rng.normal(size=2),
    )
