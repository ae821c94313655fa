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
from engine.nn import conv2d, linear, max_pool2d
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
    "linear, a bias that adds rows": (
        lambda: linear(
            Tensor(np.ones(3)), Tensor(np.ones((3, 2))), Tensor(np.ones((5, 2)))
        ),
        ValueError,
        r"linear: b of shape \(5, 2\) must broadcast to the shape \(2,\) of x @ W, "
        r"not stretch it to \(5, 2\)",
    ),
    "linear, a bias with batch axes of its own": (
        lambda: linear(
            np.ones((4, 3)), Tensor(np.ones((3, 2))), Tensor(np.ones((2, 4, 2)))
        ),
        ValueError,
        r"linear: b of shape \(2, 4, 2\) .* \(4, 2\) of x @ W",
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
    # issue 32, categories 4 and 5
    "Tensor.data replaced by a list": (
        lambda: replaced_data([3.0, 4.0]) * 2.0,
        TypeError,
        r"multiply: input 0 is a Tensor whose \.data is a list, not a float64 array: "
        r"assign arrays only, t\.data = np\.asarray",
    ),
    "Tensor.data replaced by float32": (
        lambda: 2.0 - replaced_data(np.ones(2, np.float32)),
        TypeError,
        r"subtract: input 1 is a Tensor whose \.data is a ndarray of dtype float32",
    ),
    "Tensor of an integer beyond float64": (
        lambda: Tensor([1, 10**400]),
        ValueError,
        r"Tensor data: an integer of 401 digits is beyond float64",
    ),
    "Adam, betas a number": (
        lambda: Adam([Tensor(1.0)], betas=0.9),
        TypeError,
        r"Adam: betas must be a pair \(beta1, beta2\), such as \(0\.9, 0\.999\), "
        r"got 0\.9",
    ),
    "Adam, three betas": (
        lambda: Adam([Tensor(1.0)], betas=(0.9, 0.99, 0.999)),
        ValueError,
        r"Adam: betas must be two numbers in \[0, 1\)",
    ),
    "Adam, betas of 1": (
        lambda: Adam([Tensor(1.0)], betas=(0.9, 1.0)),
        ValueError,
        r"Adam: betas must be two numbers in \[0, 1\)",
    ),
    **{
        f"conv2d, kernel of shape {shape}": (
            lambda shape=shape: conv2d(np.ones((1, shape[1], 4, 4)), np.ones(shape)),
            ValueError,
            r"conv2d: w \(.*\) must have at least one output channel, one input "
            r"channel and a kernel of at least 1 x 1",
        )
        for shape in [
            (2, 1, 0, 0),
            (2, 1, 0, 3),
            (2, 1, 3, 0),
            (0, 1, 2, 2),
            (2, 0, 2, 2),
        ]
    },
}


def replaced_data(value):
    """A Tensor whose .data a careless caller replaced."""
    t = Tensor([1.0, 2.0])
    t.data = value
    return t


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


# issue 32, categories 4 and 5: a custom Op whose local rule returns what no input can
# receive; the error names the op and the rule, and the engine raises it


def twice(x):
    return x * 2.0


RULES = {  # name: (the rule, the input's shape, exception, a regex)
    "a float": (
        lambda g, out, x: 2.0,
        (2,),
        TypeError,
        r"returned a float, not an array",
    ),
    "None": (lambda g, out, x: None, (2,), TypeError, r"returned a NoneType"),
    "a list": (lambda g, out, x: [1.0, 1.0], (2,), TypeError, r"returned a list"),
    "a wrong shape": (
        lambda g, out, x: np.ones(5),
        (2,),
        ValueError,
        r"returned a gradient of shape \(5,\); a rule must return",
    ),
    "a scalar for a vector": (
        lambda g, out, x: np.float64(1.0),
        (2,),
        ValueError,
        r"returned a gradient of shape \(\)",
    ),
    "an extra leading axis": (
        lambda g, out, x: np.ones((3, 2)),
        (2,),
        ValueError,
        r"returned a gradient of shape \(3, 2\), which the op's output \(2,\) does "
        r"not explain \(only the axes the op broadcast input 0 "
        r"over may be summed\)",
    ),
    "extra axes on a matrix": (
        lambda g, out, x: np.ones((4, 2, 3)),
        (2, 3),
        ValueError,
        r"returned a gradient of shape \(4, 2, 3\), which the op's output "
        r"\(2, 3\) does not explain",
    ),
    "a stretched axis": (
        lambda g, out, x: np.ones((2, 4)),
        (2, 1),
        ValueError,
        r"returned a gradient of shape \(2, 4\), which the op's output "
        r"\(2, 1\) does not explain",
    ),
}


def named_rule(g, out, x):
    return np.ones((2,) + x.shape)


@pytest.mark.parametrize("name", RULES)
def test_a_rule_that_returns_a_wrong_gradient_is_named(name):
    rule, shape, kind, message = RULES[name]
    op = engine_op("careless", twice, rule)
    with pytest.raises(
        kind, match=r"^careless: its local rule for input 0 \(<lambda>\) " + message
    ) as caught:
        op(Tensor(np.ones(shape))).sum().backward()
    innermost = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert Path(innermost.filename).resolve().parent == ENGINE
    assert f"the input's shape {shape}" in str(caught.value)


def test_a_rule_is_named_by_its_function_name():
    op = engine_op("wide", twice, named_rule)
    with pytest.raises(
        ValueError, match=r"wide: its local rule for input 0 \(named_rule\)"
    ):
        op(Tensor([1.0, 2.0])).sum().backward()


def test_the_ops_own_broadcasting_is_still_summed():
    # the extra leading axes of a rule's gradient are summed where the op's output has
    # them: a broadcast, a matmul over a batch, linear's bias
    from engine.nn import linear
    from engine.ops import broadcast_to

    x = Tensor([1.0, 2.0])
    broadcast_to(x, shape=(3, 2)).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    a, b = Tensor(np.ones(4)), Tensor(np.ones((5, 4, 2)))
    (a @ b).sum().backward()
    assert a.grad.tolist() == [10.0] * 4
    bias = Tensor(np.zeros(2))
    linear(np.ones((6, 3)), Tensor(np.ones((3, 2))), bias).sum().backward()
    assert bias.grad.tolist() == [6.0, 6.0]
    op = engine_op(
        "tile", lambda x: np.broadcast_to(x, (3,) + x.shape), lambda g, out, x: g
    )  # its output has the extra axis
    y = Tensor([1.0, 2.0])
    op(y).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]


def engine_op(name, forward, rule):
    from engine import Op

    return Op(name, forward, rule)


@pytest.mark.parametrize("value", [2**63, 2**70, -(2**80), [2**70, 1.5, 3], 2**1000])
def test_integers_beyond_int64_are_converted_as_pytorch_float64_does(value):
    torch = pytest.importorskip("torch")
    expected = torch.tensor(value, dtype=torch.float64).numpy()
    assert np.array_equal(Tensor(value).data, expected)
