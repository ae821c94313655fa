"""Issue 17: every silent wrong result and crash the adversarial pass found, one test each (each
fails on the engine before the fix), compared with PyTorch where PyTorch has an answer."""
import threading

import re

import numpy as np
import pytest
import torch

from engine.nn import conv2d, cross_entropy, max_pool2d
from engine.optim import SGD, Adam
from engine.core import modes, no_grad, Tensor
from engine.forward import jvp
from engine.transforms import grad


def torch_grads(f, *arrays):
    """f's value and the gradients of its sum, computed by PyTorch in float64."""
    xs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = f(*xs)
    out.sum().backward()
    return out.detach().numpy(), [x.grad.numpy() for x in xs]


# Silent wrong results

@pytest.mark.parametrize("axes", [(-1, 0), (1, -2), (-1, -2), (-2, -1, 0), (0, -1, 1)])
def test_transpose_with_negative_axes(axes):
    shape = (3, 3) if len(axes) == 2 else (2, 3, 4)
    x0 = np.random.default_rng(0).normal(size=shape)
    G = np.random.default_rng(1).normal(size=np.transpose(x0, axes).shape)
    x = Tensor(x0)
    (x.transpose(*axes) * G).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    (xt.permute(*axes) * torch.tensor(G)).sum().backward()
    np.testing.assert_array_equal(x.grad, xt.grad.numpy())


def test_jvp_of_transpose_with_negative_axes():
    x0 = np.arange(9.0).reshape(3, 3)
    u = np.random.default_rng(0).normal(size=(3, 3))
    value, tangent = jvp(lambda t: t.transpose(-1, 0), (x0,), (u,))
    np.testing.assert_array_equal(value, x0.T)
    np.testing.assert_array_equal(tangent, u.T)


@pytest.mark.parametrize("x", [-30.0, -40.0, -100.0, -700.0])
def test_sigmoid_keeps_precision_for_very_negative_x(x):
    t = Tensor(x)
    y = t.sigmoid().log()
    y.backward()
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = torch.log(torch.sigmoid(xt))
    yt.backward()
    assert np.isfinite(y.item()) and abs(y.item() - yt.item()) <= 1e-15 * abs(yt.item())
    assert abs(t.grad - xt.grad.item()) <= 1e-15


def test_sigmoid_matches_torch_over_the_whole_range():
    x0 = np.concatenate([np.linspace(-700, 750, 2901), [-np.inf, np.inf, 0.0]])
    t = Tensor(x0)
    t.sigmoid().sum().backward()
    value, (gradient,) = torch_grads(torch.sigmoid, x0)
    np.testing.assert_allclose(t.sigmoid().data, value, rtol=4e-16, atol=0)
    np.testing.assert_allclose(t.grad, gradient, rtol=1e-15, atol=1e-300)
    # below -709 PyTorch's 1 / (1 + e^-x) rounds to 0; e^x / (1 + e^x) still has a subnormal
    assert 0 < Tensor(-740.0).sigmoid().item() < 1e-320


def test_editing_a_leaf_in_place_between_forward_and_backward_is_refused():
    x = Tensor([1.0, 2.0, 3.0])
    loss = (x * x).sum()
    with pytest.raises(ValueError, match="read-only"):
        x.data[0] = 10.0
    with pytest.raises(ValueError, match="read-only"):
        x.data += 1.0
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 4.0, 6.0])


def test_the_callers_array_stays_writeable_and_independent():
    a = np.array([1.0, 2.0, 3.0])
    x = Tensor(a)
    loss = (x * x).sum()
    a[0] = 10.0                                     # the caller's array: theirs to edit
    loss.backward()
    np.testing.assert_array_equal(x.grad, [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(x.data, [1.0, 2.0, 3.0])
    base = np.arange(6.0)
    view = Tensor(base[1:4])                        # a view: the copy owns its memory
    (view * 2.0).sum().backward()
    base[1] = 100.0
    np.testing.assert_array_equal(view.data, [1.0, 2.0, 3.0])


@pytest.mark.parametrize("replace", [False, True])
def test_both_sweeps_use_the_values_the_forward_saw(replace):
    w, x = Tensor([2.0, 3.0]), Tensor([5.0, 7.0])
    loss = (w * x * x).sum()
    if replace:
        w.data = w.data - 1.0       # an optimiser step between the forward and the backward pass
        x.data = x.data * 10.0
    plain = grad(loss, [w, x])
    recorded = grad(loss, [w, x], create_graph=True)
    for a, b in zip(plain, recorded):
        np.testing.assert_array_equal(a, b.data)
    np.testing.assert_array_equal(plain[0], [25.0, 49.0])
    np.testing.assert_array_equal(plain[1], [20.0, 42.0])
    # the recorded gradient still differentiates with respect to the leaves: d²/dx² = 2w
    (second,) = grad(recorded[1].sum(), [x])
    np.testing.assert_array_equal(second, [4.0, 6.0])


def test_no_grad_is_per_thread():
    inside, done = threading.Event(), threading.Event()
    seen = {}

    def evaluate():
        with no_grad():
            inside.set()
            done.wait(10)
            seen["worker"] = (Tensor(1.0) * 2.0).op

    worker = threading.Thread(target=evaluate)
    worker.start()
    inside.wait(10)
    recorded = Tensor([1.0]) * 2.0
    done.set()
    worker.join()
    assert recorded.op is not None and modes.current.records
    assert seen["worker"] is None


def test_backward_without_a_graph_names_the_likely_cause():
    w = Tensor([1.0, 2.0])
    with no_grad():
        loss = (w * w).sum()
    with pytest.raises(RuntimeError, match=r"backward\(\).*requires_grad=False.*no_grad\(\)"):
        loss.backward()
    constants = Tensor([1.0], requires_grad=False) * 2.0
    with pytest.raises(RuntimeError, match="constants"):
        constants.sum().backward()


# Crashes that must become answers or clear errors

@pytest.mark.parametrize("constant", [[[1.0, 2.0], [3.0, 4.0]], ((1, 2), (3, 4)),
                                      np.array([[1, 2], [3, 4]]), np.float32([[1, 2], [3, 4]])],
                         ids=["list", "tuple", "int array", "float32 array"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_a_list_constant_of_matmul_works_both_ways(constant, side):
    x0 = np.array([[0.5, -1.0], [2.0, 0.25]])
    c = np.asarray(constant, dtype=np.float64)
    x = Tensor(x0)
    out = x @ constant if side == "right" else constant @ x
    out.sum().backward()
    expected = (x0 @ c) if side == "right" else (c @ x0)
    np.testing.assert_array_equal(out.data, expected)
    G = np.ones(expected.shape)
    np.testing.assert_array_equal(x.grad, G @ c.T if side == "right" else c.T @ G)
    (second,) = grad((grad((x @ constant).sum() if side == "right" else (constant @ x).sum(),
                           [x], create_graph=True)[0] * x).sum(), [x])
    assert second.shape == x0.shape


@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), 1), ((0, 3), None), ((2, 0), -1),
                                         ((0,), 0)])
def test_mean_over_empty_axes_matches_torch(shape, axis):
    x0 = np.ones(shape)
    x = Tensor(x0)
    out = x.mean(axis=axis)
    out.sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    out_t = xt.mean() if axis is None else xt.mean(dim=axis)
    out_t.sum().backward()
    np.testing.assert_array_equal(out.data, out_t.detach().numpy())
    assert x.grad.shape == shape and np.array_equal(x.grad, xt.grad.numpy())


def test_backward_takes_a_tensor_seed():
    x = Tensor([1.0, 2.0])
    (x * 3.0).backward(Tensor([1.0, 10.0]))
    np.testing.assert_array_equal(x.grad, [3.0, 30.0])
    with pytest.raises(TypeError, match=r"backward\(\): gradient must be real numbers"):
        (x * 3.0).backward("ones")


@pytest.mark.parametrize("flip_to", [False, True])
def test_flipping_requires_grad_after_the_forward_follows_the_recorded_graph(flip_to):
    # The graph is what the forward recorded: a leaf switched off afterwards still gets its
    # gradient (PyTorch leaves such a leaf's .grad at None: chapter 16's table), and one
    # switched on afterwards was never part of the graph
    x, y = Tensor([1.0, 2.0], requires_grad=not flip_to), Tensor([3.0, 4.0])
    loss = (x * y).sum()
    x.requires_grad = flip_to
    loss.backward()
    np.testing.assert_array_equal(y.grad, [1.0, 2.0])
    if flip_to:                  # not part of the recorded graph: never reached
        assert x.grad is None
    else:
        np.testing.assert_array_equal(x.grad, [3.0, 4.0])


# Labels and optimisers (chapters 4, 5 and 7)



@pytest.mark.parametrize("targets, match", [
    (np.array([[0], [1], [2]]), r"targets must have shape \(3,\).*got shape \(3, 1\)"),
    (np.array([0, 1]), r"targets must have shape \(3,\).*got shape \(2,\)"),
    (np.array([0, -1, 2]), r"in \[0, 4\).*from -1 to 2"),
    (np.array([0, 4, 2]), r"in \[0, 4\).*from 0 to 4"),
])
def test_cross_entropy_refuses_labels_pytorch_refuses(targets, match):
    logits = Tensor(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"cross_entropy: .*" + match):
        cross_entropy(logits, targets)
    with pytest.raises((ValueError, RuntimeError, IndexError)):
        torch.nn.functional.cross_entropy(torch.zeros(3, 4), torch.tensor(targets))


@pytest.mark.parametrize("targets, match", [
    (np.array([0.0, 1.0, 2.0]), r"integer class indices, got dtype float64"),
    (Tensor([0.0, 1.0, 2.0]), r"got a Tensor"),
])
def test_cross_entropy_float_and_tensor_labels_are_clear_errors(targets, match):
    with pytest.raises(TypeError, match=r"cross_entropy: .*" + match):
        cross_entropy(Tensor(np.zeros((3, 4))), targets)


def test_cross_entropy_takes_a_list_and_an_empty_batch():
    logits = Tensor(np.array([[1.0, 2.0], [0.5, -1.0]]))
    loss = cross_entropy(logits, [1, 0])
    expected = torch.nn.functional.cross_entropy(torch.tensor(logits.data), torch.tensor([1, 0]))
    assert abs(loss.item() - expected.item()) <= 1e-15
    empty = cross_entropy(Tensor(np.zeros((0, 3))), [])
    assert np.isnan(empty.item())


@pytest.mark.parametrize("optimiser", [SGD, Adam])
def test_an_optimiser_given_one_tensor_says_so(optimiser):
    p = Tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=optimiser.__name__ + r": params must be a list of Tensors, "
                                         r"got a single Tensor of shape \(2,\)"):
        optimiser(p, lr=0.1)
    with pytest.raises(ValueError, match="not a leaf"):
        optimiser([p * 2.0], lr=0.1)
    with pytest.raises(ValueError, match="lr must be >= 0, got -0.1"):
        optimiser([p], lr=-0.1)




# conv2d and max_pool2d (chapter 11)

def conv_both(x0, w0, b0, **options):
    x, w = Tensor(x0), Tensor(w0)
    b = None if b0 is None else Tensor(b0)
    out = conv2d(x, w, b, **options)
    out.sum().backward()
    xt, wt = torch.tensor(x0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    bt = None if b0 is None else torch.tensor(b0, requires_grad=True)
    out_t = torch.nn.functional.conv2d(xt, wt, bt, **options)
    out_t.sum().backward()
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(x.grad, xt.grad.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(w.grad, wt.grad.numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("stride, padding", [((1, 2), 0), (2, (1, 0)), ((2, 1), (0, 2)), ([1, 3], [2, 1])])
def test_conv2d_takes_pairs_like_pytorch(stride, padding):
    rng = np.random.default_rng(0)
    conv_both(rng.normal(size=(2, 2, 6, 7)), rng.normal(size=(3, 2, 3, 2)), rng.normal(size=3),
              stride=stride, padding=padding)


def test_conv2d_and_max_pool2d_take_one_unbatched_image_like_pytorch():
    rng = np.random.default_rng(1)
    conv_both(rng.normal(size=(2, 5, 5)), rng.normal(size=(3, 2, 3, 3)), None, padding=1)
    x0 = rng.normal(size=(3, 4, 6))
    x = Tensor(x0)
    max_pool2d(x, 2).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    out_t = torch.nn.functional.max_pool2d(xt, 2)
    out_t.sum().backward()
    np.testing.assert_array_equal(max_pool2d(x, 2).data, out_t.detach().numpy())
    np.testing.assert_array_equal(x.grad, xt.grad.numpy())


@pytest.mark.parametrize("call, error, match", [
    (lambda x, w: conv2d(x, w, stride=0), ValueError, r"conv2d: stride must be at least 1, got 0"),
    (lambda x, w: conv2d(x, w, padding=-1), ValueError, r"conv2d: padding must be at least 0"),
    (lambda x, w: conv2d(x, w, stride=1.5), TypeError, r"conv2d: stride must be an int or a pair"),
    (lambda x, w: conv2d(x, w, stride=(1, 2, 3)), TypeError, r"conv2d: stride"),
    (lambda x, w: conv2d(x, w, Tensor(np.ones(4))), ValueError,
     r"conv2d: the bias must have shape \(3,\).*got shape \(4,\)"),
    (lambda x, w: max_pool2d(Tensor(np.ones((4, 4)))), ValueError,
     r"max_pool2d needs x of shape \(N, C, H, W\) or \(C, H, W\), got shape \(4, 4\)"),
    (lambda x, w: max_pool2d(x, 0), ValueError, r"max_pool2d: size must be at least 1, got 0"),
])
def test_conv2d_and_max_pool2d_misuse_is_named(call, error, match):
    x, w = Tensor(np.ones((1, 2, 6, 6))), Tensor(np.ones((3, 2, 3, 3)))
    with pytest.raises(error, match=match):
        call(x, w)


# Drawing

def test_a_long_recurrence_is_drawn_without_a_hub():
    """One box with an edge to each of 200 steps made Graphviz's layout take minutes: a Tensor
    used more than max_uses times is drawn again beside each op that uses it, so no box of
    the drawing feeds more than max_uses ops."""
    from engine.viz import draw
    W, h = Tensor(np.eye(3) * 0.5), Tensor(np.ones(3))
    x0 = (W @ h).tanh()
    for _ in range(200):   # a recurrent weight, and a residual stream that every step reuses
        h = (W @ h).tanh() + x0
    dot = draw(h.sum(), max_uses=3)
    tails = re.findall(r"^\s*(\w+) -> ", dot.source, flags=re.MULTILINE)
    assert max(tails.count(t) for t in set(tails)) <= 3
    assert dot.source.count("(used 200x)") == 200 and dot.source.count("(used 201x)") == 201
    assert dot.pipe(format="svg").decode().count('class="node"') > 600
