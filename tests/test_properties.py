"""Property-based tests: every op of the engine's catalogue against PyTorch and central differences,
on shapes that hypothesis generates (broadcasting pairs, matmul signatures, reduction axes)."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

from engine.check import ELEMENTWISE, OP_CASES, finite_difference_error, torch_error

CASES = {case.name: case for case in OP_CASES}
SMALL = dict(min_side=1, max_side=4)


def shapes_for(case):
    """A strategy for input shapes that `case` accepts, broadcasting wherever the op allows."""
    if case.name in ("add", "subtract", "multiply", "divide"):
        return mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, **SMALL).map(
            lambda s: s.input_shapes)
    if case.name == "matmul":
        return mutually_broadcastable_shapes(signature=np.matmul.signature, max_dims=2, **SMALL).map(
            lambda s: s.input_shapes)
    if case.name in ("transpose", "swapaxes", "sum", "sum keepdims", "mean", "max"):
        return array_shapes(min_dims=3, max_dims=3, **SMALL).map(lambda s: (s,))
    if case.name in ("index (repeats)", "scatter_add"):
        return st.integers(1, 4).map(lambda n: ((4, n),) if case.name == "scatter_add" else ((3, n),))
    if case.name in ("index (slice)", "index (mask)"):
        return array_shapes(min_dims=2, max_dims=2, min_side=2, max_side=5).map(lambda s: (s,))
    if case.shapes == ELEMENTWISE:
        return array_shapes(min_dims=0, max_dims=3, **SMALL).map(lambda s: (s,))
    return st.sampled_from(case.shapes)   # ops whose shapes are tied to their parameters


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
