"""The autograder: each task's function checked with the book's own oracles.

    pytest autograder               # every task, then a score
    pytest autograder -m task2_1    # one task

A failure names the case, the entries that are wrong and by how much."""
import numpy as np
import pytest

from engine.check import numerical_gradient
from engine.tensor import Tensor

RNG = np.random.default_rng(0)


def verdict(case, got, expected, tolerance=1e-6):
    """None if `got` matches `expected` to `tolerance`; otherwise what is wrong, in words."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return f"{case}: got shape {got.shape}, expected {expected.shape}"
    error = np.abs(got - expected)
    bad = np.argwhere(error > tolerance * (1 + np.abs(expected)))
    if bad.size == 0:
        return None
    worst = np.unravel_index(error.argmax(), error.shape)
    return (f"{case}: {len(bad)} of {error.size} entries are off, e.g. at {[tuple(b) for b in bad[:4]]}; "
            f"worst at {tuple(int(i) for i in worst)}: got {got[worst]:.6g}, "
            f"expected {expected[worst]:.6g} (|difference| {error[worst]:.2g})")


def gradient_check(case, f, *arrays):
    """backward() on sum(f(*inputs) * G) against central differences, for every input."""
    tensors = [Tensor(a) for a in arrays]
    out = f(*tensors)
    G = np.random.default_rng(1).normal(size=out.shape)
    (out * G).sum().backward()
    problems = []
    for i, (t, a) in enumerate(zip(tensors, arrays)):
        def projected(v, i=i):
            inputs = [Tensor(v) if j == i else Tensor(b) for j, b in enumerate(arrays)]
            return float((f(*inputs).data * G).sum())
        problems.append(verdict(f"{case}, gradient of input {i} (shape {np.shape(a)})",
                                t.grad, numerical_gradient(projected, a)))
    return [p for p in problems if p]


def uniform(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape)


# Task 1.1 -------------------------------------------------------------------------------------

@pytest.mark.task1_1
@pytest.mark.parametrize("case", ["chain", "diamond", "deep chain of 20,000"])
def test_topological_order(case):
    from engine.tensor import topological_order
    x = Tensor(0.5)
    if case == "chain":
        root = ((x * 2.0).exp() + 1.0).tanh()
    elif case == "diamond":
        v = x.tanh()
        root = v * v + v.exp()
    else:
        root = x
        for _ in range(20_000):
            root = root * 1.0
    order = topological_order(root)
    position = {id(node): k for k, node in enumerate(order)}
    assert len(position) == len(order), f"{case}: a node appears twice in the order"
    assert order[-1] is root, f"{case}: the root must come last"
    late = [k for k, node in enumerate(order)
            for parent in node.parents if position.get(id(parent), len(order)) > k]
    assert not late, f"{case}: nodes at positions {late[:5]} come before one of their parents"


# Task 1.2 -------------------------------------------------------------------------------------

SWEEP_CASES = {
    "tanh(w x + b)": (lambda w, x, b: (w * x + b).tanh(), (uniform(3), uniform(3), uniform(3))),
    "x * x (one node used twice)": (lambda x: x * x, (uniform(4),)),
    "x * tanh(x)": (lambda x: x * x.tanh(), (uniform(4),)),
    "exp(x) / (1 + exp(x)) - x": (lambda x: x.exp() / (x.exp() + 1.0) - x, (uniform(5),)),
}


@pytest.mark.task1_2
@pytest.mark.parametrize("case", SWEEP_CASES)
def test_backward_matches_finite_differences(case):
    f, arrays = SWEEP_CASES[case]
    problems = gradient_check(case, f, *arrays)
    assert not problems, "\n".join(problems)


@pytest.mark.task1_2
def test_backward_accumulates_into_grad():
    x = Tensor(np.array([1.0, 2.0]))
    (x * x).sum().backward()
    (x * x).sum().backward()
    problem = verdict("two backward() calls add up", x.grad, 2 * 2 * x.data)
    assert problem is None, problem


# Tasks 2.1 and 2.2 ----------------------------------------------------------------------------

MATMUL_SHAPES = [((3, 3), (3, 3)), ((4,), (4,)), ((4,), (4, 3)), ((3, 4), (4,)), ((3, 4), (4, 2)),
                 ((5, 3, 4), (4, 2)), ((3, 4), (5, 4, 2)), ((2, 1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("operand", [pytest.param(0, marks=pytest.mark.task2_1, id="dA"),
                                     pytest.param(1, marks=pytest.mark.task2_2, id="dB")])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_vjp(operand, shapes):
    arrays = [uniform(*s) for s in shapes]
    other = arrays[1 - operand]           # a constant, so that only one of the two rules runs
    f = (lambda a: a @ other) if operand == 0 else (lambda b: other @ b)
    case = f"{shapes[0]} @ {shapes[1]}, d/d{'AB'[operand]}"
    problems = gradient_check(case, f, arrays[operand])
    assert not problems, "\n".join(problems)


# Task 3.1 -------------------------------------------------------------------------------------

UNBROADCAST = [((2, 4, 3), (4, 3)), ((2, 4, 3), (3,)), ((2, 4, 3), (1, 3)), ((2, 4, 3), (4, 1)),
               ((2, 4, 3), (2, 1, 1)), ((2, 4, 3), ()), ((4, 3), (4, 3))]


@pytest.mark.task3_1
@pytest.mark.parametrize("shapes", UNBROADCAST, ids=str)
def test_unbroadcast(shapes):
    from engine.tensor import unbroadcast
    big, small = shapes
    g = np.arange(float(np.prod(big))).reshape(big)
    lead = len(big) - len(small)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(small) if n == 1 and big[lead + i] != 1)
    expected = g.sum(axis=axes, keepdims=True).reshape(small) if axes else g
    problem = verdict(f"unbroadcast(g of shape {big}, {small})", unbroadcast(g, small), expected)
    assert problem is None, problem


@pytest.mark.task3_1
@pytest.mark.parametrize("shapes", [((4, 3), (3,)), ((2, 1, 3), (4, 1)), ((), (2, 3))], ids=str)
def test_broadcasting_ops(shapes):
    arrays = [uniform(*s) for s in shapes]
    problems = gradient_check(f"x * y + x with shapes {shapes}", lambda x, y: x * y + x, *arrays)
    assert not problems, "\n".join(problems)


# Task 3.2 -------------------------------------------------------------------------------------

@pytest.mark.task3_2
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)], ids=str)
def test_max(axis):
    x = uniform(2, 3, 4)
    problems = gradient_check(f"max over axis {axis}", lambda t: t.max(axis=axis), x)
    assert not problems, "\n".join(problems)


@pytest.mark.task3_2
def test_max_ties_share_the_gradient():
    x = Tensor(np.array([[1.0, 5.0, 5.0], [7.0, 2.0, 3.0]]))
    x.max(axis=1).sum().backward()
    problem = verdict("max over rows with a tie", x.grad, [[0, 0.5, 0.5], [1, 0, 0]])
    assert problem is None, problem


# Task 3.3 -------------------------------------------------------------------------------------

@pytest.mark.task3_3
@pytest.mark.parametrize("key", [np.array([0, 2, 2, 1]), (slice(1, None), slice(None, None, 2)),
                                 np.array([3, 3, 3])], ids=["repeats", "slices", "one row thrice"])
def test_indexing(key):
    x = uniform(5, 3)
    problems = gradient_check(f"x[{key}]", lambda t: t[key], x)
    assert not problems, "\n".join(problems)


@pytest.mark.task3_3
def test_scatter_add_adds_repeats():
    from engine.tensor import scatter_add_forward
    got = scatter_add_forward(np.ones(3), np.array([2, 2, 0]), (4,))
    problem = verdict("scatter_add_forward(ones(3), [2, 2, 0], (4,))", got, [1, 0, 2, 0])
    assert problem is None, problem


# Task 4.1 -------------------------------------------------------------------------------------

@pytest.mark.task4_1
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (6,)], ids=str)
def test_log_softmax(shape):
    from engine.nn import log_softmax
    problems = gradient_check(f"log_softmax on shape {shape}", log_softmax, uniform(*shape))
    assert not problems, "\n".join(problems)


@pytest.mark.task4_1
def test_log_softmax_against_pytorch():
    torch = pytest.importorskip("torch")   # the second oracle, where PyTorch is installed
    from engine.nn import log_softmax
    x0, G = uniform(4, 3), uniform(4, 3)
    x = Tensor(x0)
    (log_softmax(x) * G).sum().backward()
    witness = torch.tensor(x0, requires_grad=True)
    (witness.log_softmax(-1) * torch.tensor(G)).sum().backward()
    problem = verdict("log_softmax's gradient against PyTorch's", x.grad, witness.grad.numpy(),
                      tolerance=1e-12)
    assert problem is None, problem


@pytest.mark.task4_1
def test_cross_entropy_gradient_is_softmax_minus_one_hot():
    from engine.nn import cross_entropy
    logits = Tensor(uniform(4, 3))
    targets = np.array([0, 2, 1, 2])
    cross_entropy(logits, targets).backward()
    softmax = np.exp(logits.data) / np.exp(logits.data).sum(axis=1, keepdims=True)
    expected = (softmax - np.eye(3)[targets]) / 4
    problem = verdict("d cross_entropy / d logits = (softmax - one-hot) / n", logits.grad, expected,
                      tolerance=1e-12)
    assert problem is None, problem


# Tasks 9.1 and 9.2 ----------------------------------------------------------------------------

def directional_check(case, f, arrays, directions):
    """jvp's J u against the central difference (f(x + h u) - f(x - h u)) / 2h."""
    from engine import jvp
    _, tangent = jvp(f, arrays, directions)
    h = 1e-6
    plus = f(*[Tensor(a + h * u) for a, u in zip(arrays, directions)]).data
    minus = f(*[Tensor(a - h * u) for a, u in zip(arrays, directions)]).data
    return verdict(f"{case}: J u", tangent, (plus - minus) / (2 * h))


JVP_ELEMENTWISE = {
    "tanh(x)": (lambda x: x.tanh(), [(5,)]),
    "x * y with broadcasting": (lambda x, y: x * y, [(4, 3), (3,)]),
    "x / y": (lambda x, y: x / y, [(2, 3), (2, 3)]),
    "exp(x) - x ** 3": (lambda x: x.exp() - x ** 3, [(4,)]),
}


@pytest.mark.task9_1
@pytest.mark.parametrize("case", JVP_ELEMENTWISE)
def test_jvp_of_elementwise_ops(case):
    f, shapes = JVP_ELEMENTWISE[case]
    arrays = [uniform(*s, low=0.5) for s in shapes]
    problem = directional_check(case, f, arrays, [uniform(*s) for s in shapes])
    assert problem is None, problem


@pytest.mark.task9_2
@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 3)), ((2, 3, 4), (4,))],
                         ids=str)
def test_jvp_of_matmul_in_its_first_operand(shapes):
    B = uniform(*shapes[1])
    problem = directional_check(f"a @ B, a of shape {shapes[0]}", lambda a: a @ B,
                                [uniform(*shapes[0])], [uniform(*shapes[0])])
    assert problem is None, problem


# Task 10.1 ------------------------------------------------------------------------------------

@pytest.mark.task10_1
def test_third_derivative_of_tanh():
    from engine import grad
    x = Tensor(np.array([-1.5, -0.3, 0.0, 0.8, 2.0]))
    (first,) = grad(x.tanh().sum(), [x], create_graph=True)
    (second,) = grad(first.sum(), [x], create_graph=True)
    (third,) = grad(second.sum(), [x])
    t = np.tanh(x.data)
    for order, got, exact in [(1, first.data, 1 - t**2), (2, second.data, -2 * t * (1 - t**2)),
                              (3, third, -2 * (1 - t**2) * (1 - 3 * t**2))]:
        problem = verdict(f"derivative {order} of tanh", got, exact, tolerance=1e-12)
        assert problem is None, problem


@pytest.mark.task10_1
def test_grad_leaves_dot_grad_alone():
    from engine import grad
    x = Tensor(np.array([1.0, 2.0]))
    (g,) = grad((x * x).sum(), [x])
    assert x._grad is None or not np.any(x.grad), "grad() must not write into x.grad"
    problem = verdict("grad((x * x).sum(), [x])", g, 2 * x.data)
    assert problem is None, problem
