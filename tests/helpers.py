"""What several test files share. The hypothesis profiles, and `examples` for a property
that asks for its own number of examples, are in hypothesis_profiles.py.

- CASES, the ops of the catalogue (course.catalogue.OP_CASES) by name, and shapes_for, a
  hypothesis strategy for the input shapes a case accepts: test_properties.py and
  test_higher_order.py run every op on them.
- assert_gradient: a function's value against NumPy, and every input's gradient against
  central differences (test_core.py, test_gradients.py).
- run_quick_benchmark: a script of benchmarks/ run with --quick; its JSON output read
  back, and what it printed (test_benchmarks.py, test_conv_benchmark.py,
  test_transformer.py)."""

import json
from pathlib import Path
import subprocess
import sys

from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
import numpy as np

from course.catalogue import OP_CASES
from engine import numerical_gradient, Tensor


CASES = {case.name: case for case in OP_CASES}


def shapes_for(case):
    """A strategy for input shapes that `case` accepts: its shape family, else its
    listed shapes."""
    family = case.family
    if family is None:
        return st.sampled_from(case.shapes)
    (min_dims, max_dims), (min_side, max_side) = family.dims, family.sides
    sizes = dict(min_side=min_side, max_side=max_side)
    if family.kind == "broadcast":
        return mutually_broadcastable_shapes(
            num_shapes=len(case.shapes[0]),
            min_dims=min_dims,
            max_dims=max_dims,
            **sizes,
        ).map(lambda s: s.input_shapes)
    if family.kind == "matmul":
        return mutually_broadcastable_shapes(
            signature=np.matmul.signature, min_dims=min_dims, max_dims=max_dims, **sizes
        ).map(lambda s: s.input_shapes)
    assert family.kind == "array", family
    arrays = array_shapes(min_dims=min_dims, max_dims=max_dims, **sizes)
    if family.rows is not None:
        arrays = arrays.map(lambda s: (family.rows,) + s[1:])
    return arrays.map(lambda s: (s,))


def assert_gradient(f_tensor, f_numpy, *arrays, tol=1e-7, seed=0):
    """Check every input's gradient of <G, f(inputs)> against central differences."""
    G = np.random.default_rng(seed + 1).normal(size=np.shape(f_numpy(*arrays)))
    tensors = [Tensor(a) for a in arrays]
    out = f_tensor(*tensors)
    assert out.shape == np.shape(f_numpy(*arrays))
    np.testing.assert_allclose(out.data, f_numpy(*arrays), rtol=1e-12, atol=1e-12)
    (out * G).sum().backward()
    for i, (t, a) in enumerate(zip(tensors, arrays)):

        def projected(v, i=i):
            args = list(arrays)
            args[i] = v
            return np.sum(f_numpy(*args) * G)

        numeric = numerical_gradient(projected, a)
        assert t.grad.shape == np.shape(a)
        np.testing.assert_allclose(t.grad, numeric, rtol=tol, atol=tol)


def run_quick_benchmark(script, tmp_path, timeout=600):
    """Run benchmarks/<script> --quick in a fresh Python, writing into tmp_path: (the
    results it wrote, what it printed), after asserting that it exited cleanly."""
    output = tmp_path / Path(script).with_suffix(".json").name
    benchmarks = Path(__file__).resolve().parent.parent / "benchmarks"
    result = subprocess.run(
        [sys.executable, str(benchmarks / script), "--quick", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(output.read_text(encoding="utf-8")), result.stdout
