"""Issue 17: every public function given wrong types, wrong shapes and wrong values.
Each error names the function, the argument and the shapes or values involved, and is
raised by the engine itself: the innermost frame of its traceback is engine code, never
NumPy's."""

from pathlib import Path
import traceback

import numpy as np
import pytest

from course.data import spiral
from engine import (
    Adam,
    backpropagate,
    cross_entropy,
    gradcheck,
    MLP,
    numerical_gradient,
    SGD,
    Tensor,
    topological_order,
)
from engine.nn import conv2d, max_pool2d
from engine.viz import draw


ENGINE = Path(__file__).resolve().parent.parent / "engine"
COURSE = ENGINE.parent / "course"  # the toy data (spiral) is the course's
x = Tensor(np.ones((2, 3)))

CASES = {  # name: (call, exception, a regex the message must match)
    "Tensor of text": (
        lambda: Tensor("abc"),
        TypeError,
        r"Tensor data must be real numbers, got str",
    ),
    "Tensor of None": (lambda: Tensor(None), TypeError, r"Tensor data.*NoneType"),
    "Tensor of a ragged list": (
        lambda: Tensor([[1, 2], [3]]),
        ValueError,
        r"Tensor data must be a regular array",
    ),
    "+ text": (
        lambda: x + "a",
        TypeError,
        r"add: input 1 must be a Tensor or real numbers, got str",
    ),
    "+ None": (lambda: x + None, TypeError, r"add: input 1 .* got NoneType"),
    "- dict": (lambda: {"a": 1} - x, TypeError, r"subtract: input 0 .* got dict"),
    "* complex": (lambda: x * 1j, TypeError, r"multiply: input 1 .* got complex"),
    "/ ragged list": (
        lambda: x / [[1, 2], [3]],
        ValueError,
        r"divide: input 1 is not a regular array",
    ),
    "+ wrong shape": (
        lambda: x + np.ones(4),
        ValueError,
        r"add: operands could not be broadcast together with shapes \(2,3\) \(4,\)",
    ),
    "array + wrong shape": (
        lambda: np.ones((4, 2)) + x,
        ValueError,
        r"add: .*\(4,2\) \(2,3\)",
    ),
    "@ wrong shape": (
        lambda: x @ np.ones((2, 2)),
        ValueError,
        r"matmul: shapes \(2, 3\) and \(2, 2\)",
    ),
    "@ a number": (
        lambda: x @ 2.0,
        ValueError,
        r"matmul: needs operands with at least one axis",
    ),
    "an op given too many inputs": (
        lambda: __import__("engine.ops").ops.exp(x, x),
        TypeError,
        r"exp: takes 1 input \(one per local rule\), got 2",
    ),
    "an op with a rule missing": (
        lambda: __import__("engine").Op("pair", np.add, lambda g, out, a, b: g)(x, x),
        TypeError,
        r"pair: takes 1 input \(one per local rule\), got 2",
    ),
    "nll, targets as an input": (
        lambda: __import__("engine").nn.nll(x, np.array([0, 1])),
        TypeError,
        r"nll: takes 1 input .* targets are keyword",
    ),
    "** Tensor": (
        lambda: x**x,
        TypeError,
        r"power: the exponent must be a Python number, got Tensor",
    ),
    "** list": (lambda: x ** [1, 2], TypeError, r"power: .* got list"),
    "sum, axis out of range": (
        lambda: x.sum(axis=5),
        ValueError,
        r"sum: axis 5 is out of bounds",
    ),
    "sum, float axis": (lambda: x.sum(axis=1.0), TypeError, r"sum: 'float'"),
    "mean, axis out of range": (
        lambda: x.mean(axis=5),
        ValueError,
        r"mean: axis 5 is out of bounds",
    ),
    "mean, repeated axis": (
        lambda: x.mean(axis=(0, 0)),
        ValueError,
        r"mean: duplicate value in 'axis'",
    ),
    "max, axis out of range": (
        lambda: x.max(axis=-3),
        ValueError,
        r"max: axis -3 is out of bounds",
    ),
    "max of nothing": (
        lambda: Tensor(np.ones((0, 3))).max(axis=0),
        ValueError,
        r"max: zero-size array",
    ),
    "transpose, repeated axes": (
        lambda: x.transpose(0, 0),
        ValueError,
        r"transpose: axes \(0, 0\) are not a permutation",
    ),
    "transpose, axis out of range": (
        lambda: x.transpose(0, 2),
        ValueError,
        r"transpose: axis 2 is out of range for a Tensor with 2 axes",
    ),
    "transpose, text axes": (
        lambda: x.transpose("a", 0),
        TypeError,
        r"transpose: axes must be integers",
    ),
    "swapaxes, axis out of range": (
        lambda: x.swapaxes(0, 5),
        ValueError,
        r"swapaxes: axis 5",
    ),
    "reshape, wrong size": (
        lambda: x.reshape(4, 2),
        ValueError,
        r"reshape: cannot reshape array of size 6 into shape \(4, ?2\)",
    ),
    "reshape, text": (lambda: x.reshape("a"), TypeError, r"reshape: "),
    "index out of range": (
        lambda: x[5],
        IndexError,
        r"index: index 5 is out of bounds .* size 2",
    ),
    "index by a float": (lambda: x[1.5], IndexError, r"index: only integers"),
    "too many indices": (lambda: x[0, 0, 0], IndexError, r"index: too many indices"),
    "item of many": (lambda: x.item(), ValueError, r"item\(\): .* got shape \(2, 3\)"),
    "float of many": (lambda: float(x), ValueError, r"item\(\): .* got shape \(2, 3\)"),
    "backward of many, no seed": (
        lambda: (x * 2).backward(),
        ValueError,
        r"backward\(\) on a Tensor of shape \(2, 3\) needs a seed",
    ),
    "backward, wrong seed shape": (
        lambda: (x * 2).backward(np.ones(3)),
        ValueError,
        r"backward\(\): the seed gradient has shape \(3,\) .* \(2, 3\)",
    ),
    "backward, text seed": (
        lambda: (x * 2).backward("a"),
        TypeError,
        r"backward\(\): gradient must be real numbers of shape \(2, 3\), got str",
    ),
    "backward without a graph": (
        lambda: Tensor(1.0, requires_grad=False).backward(),
        RuntimeError,
        r"backward\(\): this Tensor has requires_grad=False",
    ),
    "topological_order of an array": (
        lambda: topological_order(np.ones(3)),
        TypeError,
        r"topological_order: root must be a Tensor, got ndarray",
    ),
    "backpropagate from an array": (
        lambda: next(backpropagate(np.ones(3), 1.0)),
        TypeError,
        r"backpropagate: root must be a Tensor, got ndarray",
    ),
    "numerical_gradient of a vector": (
        lambda: numerical_gradient(lambda v: v * 2, np.ones(3)),
        ValueError,
        r"numerical_gradient: f must return a scalar, "
        r"got shape \(3,\)",
    ),
    "gradcheck of arrays": (
        lambda: gradcheck(lambda: (x * x).sum(), [np.ones(3)]),
        TypeError,
        r"gradcheck: params\[0\] must be a Tensor, got ndarray",
    ),
    "MLP of one width": (
        lambda: MLP([2]),
        ValueError,
        r"MLP: sizes must be two or more .* \[2\]",
    ),
    "MLP of fractional widths": (
        lambda: MLP([2.5, 3]),
        ValueError,
        r"MLP: sizes .* \[2.5, 3\]",
    ),
    "MLP on the wrong width": (
        lambda: MLP([2, 3])(np.ones((4, 5))),
        ValueError,
        r"linear: matmul: shapes \(4, 5\) and \(2, 3\)",
    ),
    "cross_entropy, labels (N, 1)": (
        lambda: cross_entropy(x, [[0], [1]]),
        ValueError,
        r"cross_entropy: targets must have shape \(2,\).*\(2, 1\)",
    ),
    "cross_entropy, 1-D scores": (
        lambda: cross_entropy(Tensor(np.ones(3)), [0]),
        ValueError,
        r"cross_entropy: the scores must have shape \(batch, classes\), "
        r"got \(3,\)",
    ),
    "cross_entropy, float labels": (
        lambda: cross_entropy(x, [0.0, 1.0]),
        TypeError,
        r"cross_entropy: targets must be integer class indices, "
        r"got dtype float64",
    ),
    "SGD of one Tensor": (
        lambda: SGD(x, lr=0.1),
        TypeError,
        r"SGD: params must be a list of Tensors",
    ),
    "SGD, text lr": (
        lambda: SGD([x], lr="a"),
        TypeError,
        r"SGD: lr must be a number, got str",
    ),
    "SGD of arrays": (
        lambda: SGD([np.ones(3)], lr=0.1),
        TypeError,
        r"SGD: params\[0\] must be a Tensor, got ndarray",
    ),
    "SGD of nothing": (lambda: SGD([], lr=0.1), ValueError, r"SGD: params is empty"),
    "SGD, one Tensor twice": (
        lambda: SGD([x, x], lr=0.1),
        ValueError,
        r"SGD: a Tensor appears twice",
    ),
    "Adam, one beta": (
        lambda: Adam([x], betas=(0.9,)),
        ValueError,
        r"Adam: betas must be two numbers in \[0, 1\), got \(0.9,\)",
    ),
    "Adam, negative eps": (
        lambda: Adam([x], eps=-1.0),
        ValueError,
        r"Adam: eps must be >= 0",
    ),
    "conv2d, stride 0": (
        lambda: conv2d(
            Tensor(np.ones((1, 1, 4, 4))), Tensor(np.ones((1, 1, 2, 2))), stride=0
        ),
        ValueError,
        r"conv2d: stride must be at least 1",
    ),
    "conv2d, wrong channels": (
        lambda: conv2d(Tensor(np.ones((1, 3, 4, 4))), Tensor(np.ones((1, 2, 2, 2)))),
        ValueError,
        r"conv2d needs .* \(1, 3, 4, 4\) and \(1, 2, 2, 2\)",
    ),
    "max_pool2d of a matrix": (
        lambda: max_pool2d(Tensor(np.ones((4, 4)))),
        ValueError,
        r"max_pool2d needs .* got shape \(4, 4\)",
    ),
    "max_pool2d, float size": (
        lambda: max_pool2d(Tensor(np.ones((1, 1, 4, 4))), 1.5),
        TypeError,
        r"max_pool2d: size must be an int, got 1.5",
    ),
    "spiral, negative points": (
        lambda: spiral(points_per_class=-1),
        ValueError,
        r"spiral: points_per_class must be an integer >= 1, got -1",
    ),
    "draw an array": (
        lambda: draw(np.ones(3)),
        TypeError,
        r"draw: root must be a Tensor, got ndarray",
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_misuse_gives_a_clear_error_raised_by_the_engine(name):
    call, kind, message = CASES[name]
    with pytest.raises(kind, match=message) as caught:
        call()
    innermost = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert Path(innermost.filename).resolve().parent in (ENGINE, COURSE), (
        f"the error comes from {innermost.filename}:{innermost.lineno}, "
        "not from the engine"
    )
    assert caught.value.__cause__ is None  # no NumPy error chained behind it
