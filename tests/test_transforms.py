"""What grad, jvp and the two hvps take and give back: grad's fresh writeable arrays
(one per input, even for an input given twice), .grad left alone, an unused input
refused (None with allow_unused=True, as in PyTorch), and a clear error for an input
that is not a Tensor, a non-scalar output, or a tangent or direction whose shape does
not match its point."""

import numpy as np
import pytest

from engine.core import Tensor
from engine.forward import jvp
from engine.transforms import grad, hvp, hvp_forward_over_reverse


# grad


def test_grad_returns_fresh_writeable_arrays_even_for_one_input_twice():
    x, y = Tensor([1.0, 2.0]), Tensor([[3.0, 4.0], [5.0, 6.0]])
    gx, gy = grad((x + y).sum(), [x, y])
    gx[0] = 100.0  # was a read-only broadcast view
    gy[0, 0] = 100.0
    a, b = grad((x * 3.0).sum(), [x, x])  # the second one used to be zeros
    assert (
        a is not b and np.array_equal(a, [3.0, 3.0]) and np.array_equal(b, [3.0, 3.0])
    )
    (u,) = grad((x + x).sum(), [x])
    assert np.array_equal(u, [2.0, 2.0]) and not np.shares_memory(u, x.data)
    with pytest.raises(
        TypeError, match=r"grad\(\): inputs\[0\] must be a Tensor, got ndarray"
    ):
        grad((x * x).sum(), [np.ones(2)])


def test_grad_leaves_dot_grad_alone_and_refuses_unused_inputs():
    x, unused = Tensor([1.0, 2.0]), Tensor([5.0])
    with pytest.raises(RuntimeError, match=r"not depend on inputs\[1\].*allow_unused"):
        grad((x * x).sum(), [x, unused])
    (gx, gu) = grad((x * x).sum(), [x, unused], allow_unused=True)  # None, as PyTorch
    np.testing.assert_array_equal(gx, [2.0, 4.0])
    assert gu is None and x.grad is None
    with pytest.raises(ValueError, match="scalar"):
        grad(x * x, [x])


# jvp and hvp


def test_a_tangent_of_the_wrong_shape_is_refused_with_both_shapes():
    with pytest.raises(
        ValueError, match=r"tangent of shape \(2, 3\).*primal of shape \(3,\)"
    ):
        jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones((2, 3)),))
    with pytest.raises(ValueError, match=r"\(4, 2\).*\(3,\).*\(k,\) \+ \(3,\)"):
        jvp(lambda x: x * 2.0, (np.ones(3),), (np.ones((4, 2)),), batched=True)
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        jvp(lambda x, y: x * y, (np.ones(3), np.ones(3)), (np.ones(3),))
    with pytest.raises(ValueError, match="different numbers of directions"):
        jvp(
            lambda x, y: x * y,
            (np.ones(3), np.ones(3)),
            (np.ones((2, 3)), np.ones((5, 3))),
            batched=True,
        )


@pytest.mark.parametrize("function", [hvp, hvp_forward_over_reverse])
def test_an_hvp_direction_of_the_wrong_shape_is_refused_with_both_shapes(function):
    with pytest.raises(
        ValueError, match=r"direction of shape \(5,\).*point of shape \(6,\)"
    ):
        function(lambda x: (x * x).sum(), np.ones(6), np.ones(5))
