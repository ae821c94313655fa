"""conv2d and max_pool2d against PyTorch and central differences, across shapes, strides
and paddings (each given as a number or a pair), on one unbatched image, and the misuses
each names."""

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
import numpy as np
import pytest
import torch

from course.catalogue import CONVOLUTION_CASES
from course.verification import finite_difference_error
from course.witness import second_order_torch_error, torch_error
from engine import numerical_gradient
from engine.core import Tensor
from engine.nn import conv2d, max_pool2d


@settings(max_examples=examples(ci=30))
@given(
    n=st.integers(1, 2),
    c=st.integers(1, 3),
    o=st.integers(1, 3),
    h=st.integers(3, 7),
    w=st.integers(3, 7),
    kh=st.integers(1, 3),
    kw=st.integers(1, 3),
    stride=st.sampled_from([1, 2]),
    padding=st.sampled_from([0, 1]),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_conv2d_matches_torch(n, c, o, h, w, kh, kw, stride, padding, bias, seed):
    rng = np.random.default_rng(seed)
    x0, w0, b0 = (
        rng.normal(size=(n, c, h, w)),
        rng.normal(size=(o, c, kh, kw)),
        rng.normal(size=o),
    )
    x, weight, b = Tensor(x0), Tensor(w0), Tensor(b0)
    out = conv2d(x, weight, b if bias else None, stride=stride, padding=padding)
    G = rng.normal(size=out.shape)
    (out * G).sum().backward()
    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x0, w0, b0))
    out_t = torch.nn.functional.conv2d(
        xt, wt, bt if bias else None, stride=stride, padding=padding
    )
    (out_t * torch.tensor(G)).sum().backward()
    np.testing.assert_allclose(out.data, out_t.detach().numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(x.grad, xt.grad.numpy(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(weight.grad, wt.grad.numpy(), rtol=0, atol=1e-9)
    if bias:
        np.testing.assert_allclose(b.grad, bt.grad.numpy(), rtol=0, atol=1e-9)


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("padding", [0, 1])
def test_conv2d_against_finite_differences(stride, padding):
    rng = np.random.default_rng(stride * 10 + padding)
    x0, w0, b0 = (
        rng.normal(size=(2, 2, 5, 6)),
        rng.normal(size=(3, 2, 3, 2)),
        rng.normal(size=3),
    )
    G = rng.normal(
        size=conv2d(Tensor(x0), Tensor(w0), stride=stride, padding=padding).shape
    )
    x, w, b = Tensor(x0), Tensor(w0), Tensor(b0)
    (conv2d(x, w, b, stride=stride, padding=padding) * G).sum().backward()
    for t, index in ((x, 0), (w, 1), (b, 2)):

        def projected(v, index=index):
            args = [x0, w0, b0]
            args[index] = v
            return (
                conv2d(
                    Tensor(args[0]),
                    Tensor(args[1]),
                    Tensor(args[2]),
                    stride=stride,
                    padding=padding,
                )
                * G
            ).sum()

        np.testing.assert_allclose(
            t.grad,
            numerical_gradient(projected, [x0, w0, b0][index]),
            rtol=1e-7,
            atol=1e-8,
        )


@settings(max_examples=examples(ci=20))
@given(
    n=st.integers(1, 2),
    c=st.integers(1, 3),
    h=st.sampled_from([2, 4, 6]),
    w=st.sampled_from([2, 4, 8]),
    seed=st.integers(0, 2**16),
)
def test_max_pool2d_matches_torch(n, c, h, w, seed):
    x0 = np.random.default_rng(seed).normal(size=(n, c, h, w))
    x = Tensor(x0)
    out = max_pool2d(x, 2)
    G = np.random.default_rng(seed + 1).normal(size=out.shape)
    (out * G).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    out_t = torch.nn.functional.max_pool2d(xt, 2)
    (out_t * torch.tensor(G)).sum().backward()
    np.testing.assert_array_equal(out.data, out_t.detach().numpy())
    np.testing.assert_allclose(x.grad, xt.grad.numpy(), rtol=0, atol=1e-15)


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


@pytest.mark.parametrize(
    "stride, padding", [((1, 2), 0), (2, (1, 0)), ((2, 1), (0, 2)), ([1, 3], [2, 1])]
)
def test_conv2d_takes_pairs_like_pytorch(stride, padding):
    rng = np.random.default_rng(0)
    conv_both(
        rng.normal(size=(2, 2, 6, 7)),
        rng.normal(size=(3, 2, 3, 2)),
        rng.normal(size=3),
        stride=stride,
        padding=padding,
    )


def test_conv2d_and_max_pool2d_take_one_unbatched_image_like_pytorch():
    rng = np.random.default_rng(1)
    conv_both(
        rng.normal(size=(2, 5, 5)), rng.normal(size=(3, 2, 3, 3)), None, padding=1
    )
    x0 = rng.normal(size=(3, 4, 6))
    x = Tensor(x0)
    max_pool2d(x, 2).sum().backward()
    xt = torch.tensor(x0, requires_grad=True)
    out_t = torch.nn.functional.max_pool2d(xt, 2)
    out_t.sum().backward()
    np.testing.assert_array_equal(max_pool2d(x, 2).data, out_t.detach().numpy())
    np.testing.assert_array_equal(x.grad, xt.grad.numpy())


@pytest.mark.parametrize("case", CONVOLUTION_CASES, ids=lambda c: c.name)
def test_convolution_cases_in_every_column(case):
    for shapes in case.shapes:
        assert finite_difference_error(case, shapes) < 1e-8
        assert torch_error(case, shapes) <= 1e-14
        assert second_order_torch_error(case, shapes) <= 1e-14


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match=r"\(1, 3, 5, 5\) and \(2, 2, 3, 3\)"):
        conv2d(Tensor(np.ones((1, 3, 5, 5))), Tensor(np.ones((2, 2, 3, 3))))
    with pytest.raises(ValueError, match="does not fit"):
        conv2d(Tensor(np.ones((1, 1, 2, 2))), Tensor(np.ones((1, 1, 3, 3))))
    with pytest.raises(ValueError, match=r"divisible by 2, got shape \(1, 1, 3, 4\)"):
        max_pool2d(Tensor(np.ones((1, 1, 3, 4))))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda x, w: conv2d(x, w, stride=0),
            ValueError,
            r"conv2d: stride must be at least 1, got 0",
        ),
        (
            lambda x, w: conv2d(x, w, padding=-1),
            ValueError,
            r"conv2d: padding must be at least 0",
        ),
        (
            lambda x, w: conv2d(x, w, stride=1.5),
            TypeError,
            r"conv2d: stride must be an int or a pair",
        ),
        (lambda x, w: conv2d(x, w, stride=(1, 2, 3)), TypeError, r"conv2d: stride"),
        (
            lambda x, w: conv2d(x, w, Tensor(np.ones(4))),
            ValueError,
            r"conv2d: the bias must have shape \(3,\).*got shape \(4,\)",
        ),
        (
            lambda x, w: max_pool2d(Tensor(np.ones((4, 4)))),
            ValueError,
            r"max_pool2d needs x of shape \(N, C, H, W\) or \(C, H, W\), "
            r"got shape \(4, 4\)",
        ),
        (
            lambda x, w: max_pool2d(x, 0),
            ValueError,
            r"max_pool2d: size must be at least 1, got 0",
        ),
    ],
)
def test_conv2d_and_max_pool2d_misuse_is_named(call, error, match):
    x, w = Tensor(np.ones((1, 2, 6, 6))), Tensor(np.ones((3, 2, 3, 3)))
    with pytest.raises(error, match=match):
        call(x, w)


@settings(max_examples=examples(ci=10))
@given(
    n=st.integers(1, 2),
    c=st.integers(1, 2),
    o=st.integers(1, 2),
    h=st.integers(3, 6),
    w=st.integers(3, 6),
    kh=st.integers(1, 3),
    kw=st.integers(1, 3),
    stride=st.sampled_from([1, 2, (2, 1)]),
    padding=st.sampled_from([0, 1, (1, 0)]),
)
def test_the_convolution_ops_in_every_column_for_any_geometry(
    n, c, o, h, w, kh, kw, stride, padding
):
    # conv2d, conv_transpose2d and conv2d_weight, each the others' local rules: values,
    # gradients, forward mode and second derivatives against PyTorch
    import torch.nn.functional as F

    from course.catalogue import case
    from course.witness import jvp_torch_error
    from engine.nn import conv2d_weight, conv_transpose2d

    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    x_shape, w_shape, g_shape = (n, c, h, w), (o, c, kh, kw), (n, o, oh, ow)
    extra = (h + 2 * ph - kh) % sh, (w + 2 * pw - kw) % sw
    cases = [
        case(
            "conv2d",
            lambda x, k: conv2d(x, k, stride=stride, padding=padding),
            [(x_shape, w_shape)],
            lambda x, k: F.conv2d(x, k, stride=stride, padding=padding),
        ),
        case(
            "conv_transpose2d",
            lambda g, k: conv_transpose2d(
                g, k, stride=(sh, sw), padding=(ph, pw), shape=x_shape
            ),
            [(g_shape, w_shape)],
            lambda g, k: F.conv_transpose2d(
                g, k, stride=stride, padding=padding, output_padding=extra
            ),
        ),
        case(
            "conv2d_weight",
            lambda x, g: conv2d_weight(
                x, g, kernel=(kh, kw), stride=(sh, sw), padding=(ph, pw)
            ),
            [(x_shape, g_shape)],
            lambda x, g: F.conv2d(
                F.pad(x, (pw, pw, ph, ph)).transpose(0, 1),
                g.transpose(0, 1),
                dilation=(sh, sw),
            )[:, :, :kh, :kw].transpose(0, 1),
        ),
    ]
    for each in cases:
        shapes = each.shapes[0]
        assert torch_error(each, shapes) <= 1e-13, each.name
        assert jvp_torch_error(each, shapes) <= 1e-13, each.name
        assert second_order_torch_error(each, shapes) <= 1e-13, each.name


def test_max_pool2d_is_one_op_whose_rule_shares_ties_as_max_does():
    from engine.core import topological_order

    x0 = np.array([[[[1.0, 2.0, 0.0, 0.0], [2.0, 0.5, 0.0, -1.0]]]])
    third = 5.0 * (1 / 3)  # g = 5 times the share of three tied winners
    G = np.array([[[[3.0, 5.0]]]])
    x, reference = Tensor(x0), Tensor(x0)
    out = max_pool2d(x, 2)
    out.backward(G)
    reshaped = reference.reshape(1, 1, 1, 2, 2, 2).max(axis=(3, 5))
    reshaped.backward(G)
    assert [node.op.name for node in topological_order(out) if node.op] == [
        "max_pool2d"
    ]
    np.testing.assert_array_equal(out.data, reshaped.data)
    np.testing.assert_array_equal(x.grad, reference.grad)
    np.testing.assert_array_equal(
        x.grad[0, 0], [[0, 1.5, third, third], [1.5, 0, third, 0]]
    )
