"""Property-based tests: every op of the engine's catalogue against PyTorch and central
differences, on shapes that hypothesis draws from the case's shape family
(course.catalogue.ShapeFamily: broadcasting pairs, matmul signatures, arrays of a given
rank; the strategy is helpers.shapes_for); a case without a family is drawn from its
listed shapes."""

from helpers import CASES, shapes_for
from hypothesis import given
from hypothesis import strategies as st
import pytest

from course.verification import finite_difference_error
from course.witness import torch_error


@pytest.mark.parametrize("name", CASES)
def test_op_against_finite_differences(name):
    case = CASES[name]

    @given(shapes_for(case), st.integers(0, 2**16))
    def check(shapes, seed):
        assert finite_difference_error(case, shapes, seed) < 1e-7

    check()


@pytest.mark.parametrize("name", CASES)
def test_op_against_pytorch(name):
    case = CASES[name]

    @given(shapes_for(case), st.integers(0, 2**16))
    def check(shapes, seed):
        assert torch_error(case, shapes, seed) <= 1e-14

    check()
