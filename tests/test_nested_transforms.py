"""Issue 32, part A: the transforms give PyTorch's answer or refuse with a clear error.

- Nested forward mode keeps its levels apart (no perturbation confusion) and
  differentiates the inner pass's tangents: jvp of jvp against torch.func.jvp nested,
  through every kind of forward rule (elementwise, linear, bilinear, the others).
- jvp's arguments and results: tuples of primals and tangents (a bare array refused),
  tangents that are real numbers (None refused, not read as NaN), a tuple or list of
  outputs (a tangent for each), a value taken out of a Tensor refused.
- grad of what was not recorded: an output computed under no_grad or inside jvp, an
  unused input, an input that needs no gradient, each refused as PyTorch refuses, or
  None with allow_unused=True; create_graph=True records even under no_grad.
- hvp records f even under no_grad (torch.func's answer), is zero for a linear f, and
  names itself when f is not scalar or an argument is not real numbers."""

from functools import partial

import numpy as np
import pytest
import torch

from engine import checkpoint, enable_grad, grad, hvp, jvp, no_grad, Tensor
from engine.forward import Dual
from engine.nn import cross_entropy, log_softmax
import engine.ops as ops
from engine.transforms import gradient_of_dual, hvp_forward_over_reverse


def t64(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


# nested jvp


def nested(jvp_function, lift, inner_body, x, y, u, w):
    """d/dx along u of [the JVP of y -> inner_body(x, y) along w]: jvp of jvp."""

    def outer(x):
        return jvp_function(lambda y: inner_body(x, y), (lift(y),), (lift(w),))[1]

    return jvp_function(outer, (lift(x),), (lift(u),))


def test_perturbation_confusion_is_gone():
    # d/dx [x d/dy (x + y)] = 1; untagged dual numbers give 2
    def outer(x):
        return x * jvp(lambda y: x + y, (2.0,), (1.0,))[1]

    assert float(jvp(outer, (3.0,), (1.0,))[1]) == 1.0
    # d/dx d/dy (x y) = 1, and the inner JVP is x itself (a Dual of the outer level)
    inner = []

    def outer2(x):
        value, tangent = jvp(lambda y: x * y, (2.0,), (1.0,))
        inner.append((value, tangent))
        return tangent

    assert float(jvp(outer2, (0.5,), (1.0,))[1]) == 1.0
    value, tangent = inner[0]
    assert (
        type(value) is Dual and float(value.data) == 1.0 and float(tangent.data) == 0.5
    )


NESTED_BODIES = {
    "elementwise": (lambda x, y: (x * y).tanh() * x + (y / (x * x + 1.0)).exp(), 3, 3),
    "matmul": (
        lambda x, y: (x.reshape(3, 1) @ y.reshape(1, 3)).sigmoid().sum(axis=0),
        3,
        3,
    ),
    "matrix by vector": (lambda x, y: x.reshape(2, 3) @ y.tanh(), 6, 3),
    "sum, max, mean": (
        lambda x, y: (x * y).max(axis=0) + (x + y).mean() * x.sum(),
        3,
        3,
    ),
    "index, transpose": (
        lambda x, y: (x[[0, 2, 2]] * y[::-1]).reshape(3, 1).T ** 2,
        3,
        3,
    ),
    "log_softmax": (lambda x, y: log_softmax((x * y).reshape(1, 3)) * x, 3, 3),
    "cross_entropy": (
        lambda x, y: cross_entropy((x * y + x).reshape(1, 3), np.array([1])),
        3,
        3,
    ),
    "scatter_add": (
        lambda x, y: (
            ops.scatter_add(x * y, key=np.array([0, 1, 0]), shape=(2,)) * x[:2]
        ),
        3,
        3,
    ),
    "broadcast_to": (lambda x, y: ops.broadcast_to(x * y, shape=(2, 3)) * x, 3, 3),
}
TORCH_BODIES = {
    "elementwise": lambda x, y: (x * y).tanh() * x + (y / (x * x + 1.0)).exp(),
    "matmul": lambda x, y: (x.reshape(3, 1) @ y.reshape(1, 3)).sigmoid().sum(axis=0),
    "matrix by vector": lambda x, y: x.reshape(2, 3) @ y.tanh(),
    "sum, max, mean": lambda x, y: (x * y).amax(dim=0) + (x + y).mean() * x.sum(),
    "index, transpose": lambda x, y: (x[[0, 2, 2]] * y.flip(0)).reshape(3, 1).T ** 2,
    "log_softmax": lambda x, y: (x * y).reshape(1, 3).log_softmax(-1) * x,
    "cross_entropy": lambda x, y: torch.nn.functional.cross_entropy(
        (x * y + x).reshape(1, 3), torch.tensor([1])
    ),
    "scatter_add": lambda x, y: (
        x.new_zeros(2).index_add(0, torch.tensor([0, 1, 0]), x * y) * x[:2]
    ),
    "broadcast_to": lambda x, y: (x * y).broadcast_to((2, 3)) * x,
}


@pytest.mark.parametrize("name", NESTED_BODIES)
def test_jvp_of_jvp_matches_torch_func(name):
    body, n, m = NESTED_BODIES[name]
    rng = np.random.default_rng(len(name))
    x, u = rng.uniform(0.5, 1.5, size=n), rng.normal(size=n)
    y, w = rng.uniform(0.5, 1.5, size=m), rng.normal(size=m)
    ours = nested(jvp, np.asarray, body, x, y, u, w)
    theirs = nested(torch.func.jvp, t64, TORCH_BODIES[name], x, y, u, w)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), b.numpy(), rtol=1e-12, atol=1e-14)


def test_nested_jvp_with_batched_directions_at_both_levels():
    rng = np.random.default_rng(5)
    x, y = rng.uniform(0.5, 1.5, size=3), rng.uniform(0.5, 1.5, size=3)

    def mixed(x):  # the 3x3 block of mixed second derivatives of sum(tanh(x y))
        return jvp(lambda y: (x * y).tanh().sum(), (y,), (np.eye(3),), batched=True)[1]

    ours = jvp(mixed, (x,), (np.eye(3),), batched=True)[1]
    H = torch.autograd.functional.hessian(
        lambda z: (z[:3] * z[3:]).tanh().sum(), t64(np.concatenate([x, y]))
    ).numpy()
    np.testing.assert_allclose(ours, H[:3, 3:].T, rtol=1e-12, atol=1e-14)


def test_inner_primals_and_tangents_may_be_outer_duals():
    # the inner jvp's primal is x itself and its tangent depends on x
    def outer(x):
        return jvp(lambda y: y**3, (x,), (x * 2.0,))[1]

    def outer_torch(x):
        return torch.func.jvp(lambda y: y**3, (x,), (x * 2.0,))[1]

    x, u = np.array([0.3, -1.2]), np.array([1.0, 0.5])
    ours = jvp(outer, (x,), (u,))
    theirs = torch.func.jvp(outer_torch, (t64(x),), (t64(u),))
    np.testing.assert_allclose(ours[0], theirs[0].numpy(), rtol=1e-14)
    np.testing.assert_allclose(ours[1], theirs[1].numpy(), rtol=1e-14)


def test_a_dual_that_escaped_an_earlier_jvp_carries_nothing_into_a_later_one():
    escaped = []
    jvp(lambda x: escaped.append(x) or x * 1.0, (np.array(3.0),), (np.array(1.0),))
    _, tangent = jvp(lambda y: y * escaped[0], (np.array(2.0),), (np.array(1.0),))
    assert float(tangent) == 3.0  # d(3 y)/dy, not 3 + 2


def test_third_order_forward_over_forward_over_reverse():
    # d/dx of the Hessian-vector product of sum(x ** 4): 24 x u v elementwise
    x, u, v = np.array([0.5, -1.0]), np.array([1.0, 2.0]), np.array([3.0, -1.0])
    _, third = jvp(
        lambda s: jvp(
            lambda t: gradient_of_dual(lambda z: (z**4).sum(), t), (s,), (v,)
        )[1],
        (x,),
        (u,),
    )
    np.testing.assert_allclose(third, 24 * x * u * v, rtol=1e-14)


# what jvp takes and returns


def test_jvp_of_a_tuple_or_list_of_outputs_gives_each_its_tangent():
    x, u = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, -1.0])
    values, tangents = jvp(lambda t: (t * t, t.sum(), Tensor(1.0)), (x,), (u,))
    expected = torch.func.jvp(
        lambda t: (t * t, t.sum(), t.new_tensor(1.0)), (t64(x),), (t64(u),)
    )
    assert isinstance(values, tuple) and isinstance(tangents, tuple)
    for ours, theirs in zip(values + tangents, expected[0] + expected[1]):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-15)
    values, tangents = jvp(lambda t: [t.exp()], (x,), (u,))
    assert isinstance(values, list) and isinstance(tangents, list)
    np.testing.assert_allclose(tangents[0], np.exp(x) * u, rtol=1e-15)


@pytest.mark.parametrize(
    "primals, tangents",
    [
        (np.ones(3), (np.ones(3),)),
        ((np.ones(3),), np.ones(3)),
        (np.ones(3), np.ones(3)),
        (Tensor(np.ones(3)), (np.ones(3),)),
        (2.0, (1.0,)),
    ],
)
def test_primals_and_tangents_must_be_tuples_as_in_torch_func(primals, tangents):
    with pytest.raises(TypeError, match=r"jvp: (primals|tangents) must be a tuple"):
        jvp(lambda x: x * 2.0, primals, tangents)


@pytest.mark.parametrize("bad", [None, "1.0", 1j, [[1.0], [1.0, 2.0]], object()])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_a_tangent_that_is_not_real_numbers_is_refused(bad, shape):
    with pytest.raises(TypeError, match=r"jvp: tangents\[0\] must be real numbers"):
        jvp(lambda x: x * 2.0, (np.ones(shape),), (bad,))
    with pytest.raises(TypeError, match=r"jvp: primals\[1\] must be real numbers"):
        jvp(lambda x, y: x * y, (np.ones(shape), bad), (np.ones(shape), np.ones(shape)))


@pytest.mark.parametrize(
    "escape",
    [
        lambda x: x.data * 2.0,
        lambda x: float(x.sum()),
        lambda x: np.sin(x.data),
        lambda x: {"y": x},
    ],
)
def test_a_value_taken_out_of_a_tensor_is_refused(escape):
    with pytest.raises(TypeError, match="jvp: f must return a Tensor"):
        jvp(escape, (np.ones(3),), (np.ones(3),))


def test_jvp_of_a_function_that_calls_grad_is_refused_with_the_way_out():
    def gradient(x):
        return grad((x**3).sum(), [x], create_graph=True)[0]

    with pytest.raises(RuntimeError, match=r"inputs\[0\] has requires_grad=False.*hvp"):
        jvp(gradient, (np.ones(3),), (np.ones(3),))
    W = Tensor(np.ones(3))  # a closed-over weight: nothing is recorded in jvp

    def gradient_of_weight(x, create_graph):
        return grad((W * x).sum(), [W], create_graph=create_graph)[0]

    for create_graph, message in (
        (False, "inside jvp.*carries a tangent"),
        (True, "no graph.*inside jvp"),
    ):
        with pytest.raises(RuntimeError, match=message):
            jvp(
                partial(gradient_of_weight, create_graph=create_graph),
                (np.ones(3),),
                (np.ones(3),),
            )
    # the way that works: record f, as gradient_of_dual does (forward over reverse)
    x, v = np.array([0.5, 2.0, -1.0]), np.array([1.0, -1.0, 0.5])
    np.testing.assert_allclose(
        jvp(lambda t: gradient_of_dual(lambda z: (z**3).sum(), t), (x,), (v,))[1],
        6 * x * v,
        rtol=1e-15,
    )


# grad of what was not recorded


def test_grad_refuses_an_output_with_no_graph_as_pytorch_does():
    x = Tensor([1.0, 2.0])
    with no_grad():
        frozen = (x * x).sum()
    constant = Tensor(3.0, requires_grad=False) * 2.0
    for output in (frozen, constant):
        with pytest.raises(
            RuntimeError, match="requires_grad=False.*no graph.*no_grad"
        ):
            grad(output, [x])
        assert grad(output, [x], allow_unused=True) == [None]
    x_t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with torch.no_grad():
        frozen_t = (x_t * x_t).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(frozen_t, [x_t])


def test_grad_refuses_an_unused_input_and_gives_none_with_allow_unused():
    x, y, z = Tensor([1.0, 2.0]), Tensor(3.0), Tensor([4.0])
    loss = (x * y).sum()
    with pytest.raises(RuntimeError, match=r"does not depend on inputs\[2\]"):
        grad(loss, [x, y, z])
    gx, gy, gz = grad(loss, [x, y, z], allow_unused=True)
    xt, yt, zt = (torch.tensor(a.data, requires_grad=True) for a in (x, y, z))
    expected = torch.autograd.grad((xt * yt).sum(), [xt, yt, zt], allow_unused=True)
    np.testing.assert_array_equal(gx, expected[0].numpy())
    np.testing.assert_array_equal(gy, expected[1].numpy())
    assert gz is None and expected[2] is None
    # a node of the graph that does not lead to the output is unused too
    side = x * 2.0
    with pytest.raises(RuntimeError, match=r"does not depend on inputs\[1\]"):
        grad(loss, [x, side], create_graph=True)


def test_grad_refuses_an_input_that_needs_no_gradient_even_with_allow_unused():
    x, c = Tensor([1.0, 2.0]), Tensor([1.0, 1.0], requires_grad=False)
    for allow in (False, True):
        with pytest.raises(RuntimeError, match=r"inputs\[1\] has requires_grad=False"):
            grad((x * c).sum(), [x, c], allow_unused=allow)


def test_create_graph_records_even_under_no_grad_as_in_pytorch():
    x = Tensor([0.5, -1.0])
    loss = (x**3).sum()
    with no_grad():
        (first,) = grad(loss, [x], create_graph=True)
    (second,) = grad(first.sum(), [x])
    np.testing.assert_allclose(second, 6 * x.data, rtol=1e-15)


def test_hvp_under_no_grad_gives_the_hvp_as_torch_func_does():
    rng = np.random.default_rng(0)
    x, v = rng.normal(size=4), rng.normal(size=4)

    def f(z):
        return (z.tanh() ** 3).sum() * (z * z).sum()

    expected = torch.func.jvp(torch.func.grad(f), (t64(x),), (t64(v),))[1].numpy()
    for transform in (hvp, hvp_forward_over_reverse):
        with no_grad():
            under_no_grad = transform(f, x, v)
        with enable_grad():
            np.testing.assert_allclose(transform(f, x, v), expected, rtol=1e-13)
        np.testing.assert_allclose(under_no_grad, expected, rtol=1e-13)


@pytest.mark.parametrize(
    "f",
    [
        lambda z: (z * 3.0).sum(),
        lambda z: Tensor(2.0),
        lambda z: z.sum() + Tensor(1.0, requires_grad=False),
    ],
)
@pytest.mark.parametrize("transform", [hvp, hvp_forward_over_reverse])
def test_hvp_of_a_linear_or_constant_function_is_zero(f, transform):
    x, v = np.array([1.0, -2.0]), np.array([0.5, 0.5])
    assert np.array_equal(transform(f, x, v), np.zeros(2))


def test_a_no_grad_inside_f_gives_what_pytorch_gives_the_same_way():
    """Reverse over reverse treats what f computes under no_grad as a constant, as
    torch.autograd.functional.hvp does; forward mode does not stop at no_grad (in the
    engine as in PyTorch), so forward over reverse gives torch.func's jvp of grad."""
    x, v = np.array([1.0, -2.0]), np.array([0.5, 0.25])

    def f(z):
        with no_grad():
            frozen = z * z
        return (frozen * z).sum() + (z**3).sum()

    def f_torch(z):
        with torch.no_grad():
            frozen = z * z
        return (frozen * z).sum() + (z**3).sum()

    reverse = torch.autograd.functional.hvp(f_torch, t64(x), t64(v))[1].numpy()
    forward = torch.func.jvp(torch.func.grad(f_torch), (t64(x),), (t64(v),))[1].numpy()
    np.testing.assert_allclose(hvp(f, x, v), reverse, rtol=1e-14)
    np.testing.assert_allclose(hvp_forward_over_reverse(f, x, v), forward, rtol=1e-14)
    assert not np.allclose(reverse, forward)  # two answers; each is PyTorch's


# errors that name what was done


@pytest.mark.parametrize("transform", [hvp, hvp_forward_over_reverse])
def test_hvp_errors_name_hvp(transform):
    x = np.ones(3)
    with pytest.raises(ValueError, match=r"hvp: f must return a scalar.*shape \(3,\)"):
        transform(lambda z: z * z, x, x)
    with pytest.raises(TypeError, match="hvp: f must return a Tensor, got float"):
        transform(lambda z: float((z * z).sum()), x, x)
    with pytest.raises(TypeError, match="hvp: the direction must be real numbers"):
        transform(lambda z: (z * z).sum(), x, None)
    with pytest.raises(TypeError, match="hvp: the point must be real numbers"):
        transform(lambda z: (z * z).sum(), None, x)
    with pytest.raises(ValueError, match=r"hvp: a direction of shape \(\)"):
        transform(lambda z: (z * z).sum(), x, 1.0)


def test_checkpointed_functions_under_every_transform():
    def block(x):
        return (x * x).tanh() * x

    def plain(x):
        return block(x).sum()

    def segmented(x):
        return checkpoint(block, x).sum()

    x, v = np.array([0.3, -0.7, 1.2]), np.array([1.0, 0.5, -2.0])
    expected = hvp(plain, x, v)
    with no_grad():
        under_no_grad = hvp(segmented, x, v)
    for found in (
        hvp(segmented, x, v),
        under_no_grad,
        hvp_forward_over_reverse(segmented, x, v),
    ):
        np.testing.assert_allclose(found, expected, rtol=1e-14)

    def outer(a):
        return jvp(
            lambda b: checkpoint(lambda p, q: (p * q).tanh(), a, b).sum(), (x,), (v,)
        )[1]

    def outer_torch(a):
        return torch.func.jvp(lambda b: (a * b).tanh().sum(), (t64(x),), (t64(v),))[1]

    np.testing.assert_allclose(
        jvp(outer, (x,), (v,))[1],
        torch.func.jvp(outer_torch, (t64(x),), (t64(v),))[1],
        rtol=1e-14,
    )


def test_gradients_as_arrays_inside_jvp_are_refused_not_cut_off():
    """Arrays carry no tangent: grad without create_graph, or hvp, on Duals of a running
    jvp would hand the outer pass a constant; create_graph=True carries the tangent."""

    def recorded_cube(x):
        with enable_grad():
            x.requires_grad = True
            return (x**3).sum()

    def with_array_gradient(x):
        return x * grad(recorded_cube(x), [x])[0]

    def with_tensor_gradient(x):
        return x * grad(recorded_cube(x), [x], create_graph=True)[0]

    x, u = np.array([1.0, 2.0]), np.array([1.0, -0.5])
    with pytest.raises(RuntimeError, match="inside jvp.*create_graph=True"):
        jvp(with_array_gradient, (x,), (u,))
    np.testing.assert_allclose(
        jvp(with_tensor_gradient, (x,), (u,))[1], 9 * x**2 * u, rtol=1e-15
    )  # d(3x³)/dx = 9x²
    with pytest.raises(TypeError, match="hvp: the point carries a tangent"):
        jvp(lambda t: Tensor(hvp(lambda z: (z**3).sum(), t, u)), (x,), (u,))
    with pytest.raises(TypeError, match="hvp: the direction carries a tangent"):
        jvp(
            lambda t: Tensor(hvp_forward_over_reverse(lambda z: (z**3).sum(), x, t)),
            (x,),
            (u,),
        )
