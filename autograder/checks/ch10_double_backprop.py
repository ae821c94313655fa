"""The checks of chapter 10, double backpropagation (T20 and T21): grad(...,
create_graph=True) differentiated again, three times for tanh against its exact
derivatives, a mixed second derivative, and grad leaving every .grad alone; and a
Gauss-Newton product from three passes against one built by torch.func from the Jacobian
and the Hessian."""

import numpy as np

from autograder.checks.toolkit import all_of, Case, cases_of, difference


@cases_of("grad")
def grad_cases(rng):
    """T20: three derivatives of tanh, grad's manners, and a mixed second
    derivative."""
    x0 = rng.uniform(-2, 2, 5)

    def derivatives(found):
        from engine import Tensor

        x = Tensor(x0)
        (first,) = found.grad(x.tanh().sum(), [x], create_graph=True)
        (second,) = found.grad(first.sum(), [x], create_graph=True)
        (third,) = found.grad(second.sum(), [x])
        return [first.data, second.data, third]

    def judge(got):
        t = np.tanh(x0)
        exact = [1 - t**2, -2 * t * (1 - t**2), -2 * (1 - t**2) * (1 - 3 * t**2)]
        return all_of(
            *[
                difference(f"derivative {k + 1} of tanh", g, e, rtol=1e-12, atol=1e-14)
                for k, (g, e) in enumerate(zip(got, exact))
            ]
        )

    def leaves_alone(found):
        from engine import Tensor

        x, unused = Tensor(x0), Tensor(np.ones(2))
        gx, gu = found.grad((x * x).sum(), [x, unused], allow_unused=True)
        try:
            found.grad((x * x).sum(), [x, unused])
            refused = None
        except NotImplementedError:
            raise
        except Exception as error:  # what PyTorch does too
            refused = type(error).__name__
        return {
            "x.grad untouched": x.grad is None,
            "gx": gx,
            "unused is None": gu is None,
            "arrays": isinstance(gx, np.ndarray),
            "refused": refused,
        }

    def judge_alone(got):
        if not got["x.grad untouched"]:
            return "grad() wrote into x.grad: it must leave every .grad as it was"
        if not got["arrays"]:
            return "without create_graph, grad() must return arrays"
        if not got["unused is None"]:
            return (
                "with allow_unused=True, an input the output does not depend on "
                "must get None"
            )
        if got["refused"] is None:
            return (
                "without allow_unused, an input the output does not depend on was "
                "accepted: grad() must refuse it with an error"
            )
        return difference("d sum(x²)/dx", got["gx"], 2 * x0)

    def mixed(found):
        from engine import Tensor

        x, y = Tensor(x0[:3]), Tensor(x0[3:4])
        (gx,) = found.grad((x * y).sum() * y, [x], create_graph=True)
        (gy,) = found.grad(gx.sum(), [y])
        return gy

    return [
        Case("three derivatives of tanh, each from the last", derivatives, judge),
        Case(
            "grad leaves .grad alone, refuses an unused input or gives it None",
            leaves_alone,
            judge_alone,
        ),
        Case(
            "a mixed second derivative",
            mixed,
            lambda got: difference(
                "d/dy of sum(d(sum(x y) y)/dx)", got, [2 * 3 * x0[3]]
            ),
        ),
    ]


@cases_of("gauss_newton_product")
def gauss_newton_cases(rng):
    """T21: J^T H J v for tanh(W x) under a quartic loss, for three sizes, against
    PyTorch."""
    made = []
    for n, m in [(3, 4), (5, 2), (4, 4)]:
        x0, v0 = rng.normal(size=n), rng.normal(size=n)
        W = rng.normal(size=(m, n))
        target = rng.normal(size=m)

        def model(x, W=W):
            return (x @ W.T).tanh()

        def loss(y, target=target):
            return ((y - target) ** 2).sum() + (y**4).sum() * 0.1

        def run(found, model=model, loss=loss, x0=x0, v0=v0):
            return found.gauss_newton_product(model, loss, x0, v0)

        def judge(got, x0=x0, v0=v0, W=W, target=target, n=n, m=m):
            import torch

            Wt, tt = torch.tensor(W), torch.tensor(target)
            J = torch.func.jacrev(lambda x: torch.tanh(x @ Wt.T))(torch.tensor(x0))
            y = torch.tanh(torch.tensor(x0) @ Wt.T)
            H = torch.func.hessian(
                lambda y: ((y - tt) ** 2).sum() + 0.1 * (y**4).sum()
            )(y)
            expected = (J.T @ H @ J @ torch.tensor(v0)).numpy()
            return difference(
                f"Gauss-Newton product, {n} inputs, {m} outputs",
                got,
                expected,
                rtol=1e-10,
                atol=1e-12,
            )

        made.append(Case(f"tanh(W x) with {n} inputs and {m} outputs", run, judge))
    return made
