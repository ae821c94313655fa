"""Property-based tests: every op of the engine's catalogue against PyTorch and central differences,
on shapes that hypothesis draws from the case's shape family (course.catalogue.ShapeFamily:
broadcasting pairs, matmul signatures, arrays of a given rank); a case without a family is drawn
from its listed shapes."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from course.catalogue import OP_CASES
from course.verification import finite_difference_error
from course.witness import torch_error

CASES = {case.name: case for case in OP_CASES}


def shapes_for(case):
    """A strategy for input shapes that `case` accepts: its shape family, else its listed shapes."""
    family = case.family
    if family is None:
        return st.sampled_from(case.shapes)
    (min_dims, max_dims), (min_side, max_side) = family.dims, family.sides
    sizes = dict(min_side=min_side, max_side=max_side)
    if family.kind == "broadcast":
        return mutually_broadcastable_shapes(
            num_shapes=len(case.shapes[0]), min_dims=min_dims, max_dims=max_dims,
            **sizes).map(lambda s: s.input_shapes)
    if family.kind == "matmul":
        return mutually_broadcastable_shapes(
            signature=np.matmul.signature, min_dims=min_dims, max_dims=max_dims,
            **sizes).map(lambda s: s.input_shapes)
    assert family.kind == "array", family
    arrays = array_shapes(min_dims=min_dims, max_dims=max_dims, **sizes)
    if family.rows is not None:
        arrays = arrays.map(lambda s: (family.rows,) + s[1:])
    return arrays.map(lambda s: (s,))


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
