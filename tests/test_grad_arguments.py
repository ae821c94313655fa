"""grad()'s arguments and results: fresh writeable arrays, one per input even when an input is
given twice, and a clear error for an input that is not a Tensor."""
import numpy as np
import pytest

from engine.core import Tensor
from engine.transforms import grad


def test_grad_returns_fresh_writeable_arrays_even_for_one_input_twice():
    x, y = Tensor([1.0, 2.0]), Tensor([[3.0, 4.0], [5.0, 6.0]])
    gx, gy = grad((x + y).sum(), [x, y])
    gx[0] = 100.0                               # was a read-only broadcast view
    gy[0, 0] = 100.0
    a, b = grad((x * 3.0).sum(), [x, x])       # the second one used to be zeros
    assert a is not b and np.array_equal(a, [3.0, 3.0]) and np.array_equal(b, [3.0, 3.0])
    u, v = grad((x + x).sum(), [x, Tensor([1.0])])
    assert np.array_equal(u, [2.0, 2.0]) and not np.shares_memory(u, v)
    with pytest.raises(TypeError, match=r"grad\(\): inputs\[0\] must be a Tensor, got ndarray"):
        grad((x * x).sum(), [np.ones(2)])
