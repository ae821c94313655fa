"""The checks of chapter 11, convolutions (T22): average pooling as an op of its own,
its value, its gradient and its forward-mode tangent against PyTorch's avg_pool2d over
several shapes and window sizes, and its local rule differentiated again (second
derivatives against torch.autograd)."""

from autograder.checks.toolkit import all_of, Case, cases_of, difference


@cases_of("avg_pool2d_forward")
def avg_pool_cases(rng):
    """T22: avg_pool2d on five shapes and sizes, then its second derivatives."""
    made = []
    settings = [
        ((2, 3, 4, 6), 2),
        ((1, 2, 6, 6), 3),
        ((3, 4, 4), 2),
        ((1, 1, 5, 5), 5),
        ((2, 1, 4, 4), 1),
    ]
    for shape, size in settings:
        x = rng.normal(size=shape)
        out_shape = shape[:-2] + (shape[-2] // size, shape[-1] // size)
        g = rng.normal(size=out_shape)
        u = rng.normal(size=shape)

        def run(found, x=x, g=g, u=u, size=size):
            from engine import jvp, Tensor

            t = Tensor(x)
            out = found.avg_pool2d(t, size)
            (out * g).sum().backward()
            tangent = jvp(lambda v: found.avg_pool2d(v, size), (x,), (u,))[1]
            return [out.data, t.grad, tangent]

        def judge(got, x=x, g=g, u=u, size=size, shape=shape):
            import torch

            what = f"avg_pool2d of shape {shape}, size {size}"
            witness = torch.tensor(x, requires_grad=True)
            expected = torch.nn.functional.avg_pool2d(witness, size)
            (expected * torch.tensor(g)).sum().backward()
            _, tangent = torch.func.jvp(
                lambda v: torch.nn.functional.avg_pool2d(v, size),
                (torch.tensor(x),),
                (torch.tensor(u),),
            )
            return all_of(
                difference(f"{what}, value", got[0], expected.detach().numpy()),
                difference(f"{what}, gradient", got[1], witness.grad.numpy()),
                difference(f"{what}, forward mode", got[2], tangent.numpy()),
            )

        made.append(Case(f"shape {shape}, size {size}", run, judge))

    def second_order(found):
        from engine import grad, Tensor

        x = Tensor(rng_x)
        (first,) = grad((found.avg_pool2d(x, 2) ** 2).sum(), [x], create_graph=True)
        return grad((first * first).sum(), [x])[0]

    rng_x = rng.normal(size=(1, 1, 4, 4))

    def judge_second(got):
        import torch

        x = torch.tensor(rng_x, requires_grad=True)
        (first,) = torch.autograd.grad(
            (torch.nn.functional.avg_pool2d(x, 2) ** 2).sum(), [x], create_graph=True
        )
        (expected,) = torch.autograd.grad((first * first).sum(), [x])
        return difference(
            "second derivatives through avg_pool2d", got, expected.numpy()
        )

    made.append(
        Case("its rule runs on Tensors: second derivatives", second_order, judge_second)
    )
    return made
