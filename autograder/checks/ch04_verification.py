"""The checks of chapter 4, verification (T8 to T10): the local rules of log-softmax and
of the negative log-likelihood against central differences (log-softmax also against
PyTorch where it is installed), and a directional gradient check that must pass correct
gradients in few calls and report each of the bug museum's bugs when it is planted."""

import numpy as np

from autograder.checks.toolkit import (
    all_of,
    Case,
    cases_of,
    difference,
    is_array,
    numerical_gradient,
)


def torch_or_none():
    """PyTorch if it is installed (the second oracle), else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def log_softmax_numpy(x):
    """log-softmax over the last axis, in NumPy, shifted by the maximum."""
    z = x - x.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@cases_of("log_softmax_vjp")
def log_softmax_cases(rng):
    """T8: the rule on four shapes, against central differences, then PyTorch."""
    made = []
    for shape in [(4, 3), (2, 3, 5), (6,), (1, 7)]:
        x = rng.normal(size=shape) * 2
        out = log_softmax_numpy(x)
        g = rng.normal(size=shape)

        def judge(got, x=x, g=g, shape=shape):
            what = f"log_softmax's rule on shape {shape}"

            def loss(v):
                return float((log_softmax_numpy(v) * g).sum())

            problem = all_of(
                is_array(got, what), difference(what, got, numerical_gradient(loss, x))
            )
            torch = torch_or_none()
            if problem or torch is None:
                return problem
            witness = torch.tensor(x, requires_grad=True)
            (witness.log_softmax(-1) * torch.tensor(g)).sum().backward()
            return difference(
                f"{what}, against PyTorch",
                got,
                witness.grad.numpy(),
                rtol=1e-12,
                atol=1e-14,
            )

        made.append(
            Case(
                f"shape {shape}",
                lambda found, x=x, out=out, g=g: found.log_softmax_vjp(g, out, x),
                judge,
            )
        )
    return made


@cases_of("nll_vjp")
def nll_cases(rng):
    """T9: the rule for four sizes of batch and of class count, against central
    differences."""
    made = []
    for n, classes in [(4, 3), (1, 5), (7, 2), (6, 6)]:
        log_probs = -rng.uniform(0.1, 3.0, (n, classes))
        targets = rng.integers(0, classes, n)
        out = -log_probs[np.arange(n), targets].mean()
        g = float(rng.uniform(0.5, 2.0))

        def judge(got, log_probs=log_probs, targets=targets, g=g, n=n, classes=classes):
            what = f"nll's rule for {n} rows of {classes} classes"

            def loss(v):
                return g * float(-v[np.arange(len(targets)), targets].mean())

            return all_of(
                is_array(got, what),
                difference(what, got, numerical_gradient(loss, log_probs)),
            )

        made.append(
            Case(
                f"{n} rows, {classes} classes",
                lambda found, lp=log_probs, t=targets, out=out, g=g: found.nll_vjp(
                    np.float64(g), out, lp, targets=t
                ),
                judge,
            )
        )
    return made


def log_softmax_of(x):
    """The engine's log_softmax, imported when a run needs it."""
    from engine.nn import log_softmax

    return log_softmax(x)


@cases_of("directional_check")
def directional_check_cases(rng):
    """T10: five correct gradients (at most 3 calls of f, an error under 1e-6), then the
    museum's four bugs, each planted under the check."""

    def counted(f, calls):
        def wrapped(*args):
            calls.append(1)
            return f(*args)

        return wrapped

    def correct_run(name, f, shapes, low=-2.0, high=2.0):
        arrays = [rng.uniform(low, high, s) for s in shapes]
        seed = int(rng.integers(0, 1000))

        def run(found):
            calls = []
            error = found.directional_check(counted(f, calls), arrays, seed=seed)
            return {"error": float(error), "calls": len(calls)}

        def judge(got):
            if got["calls"] > 3:
                return (
                    f"{name}: f was called {got['calls']} times, at most 3 are needed"
                )
            if not got["error"] <= 1e-6:
                return (
                    f"{name}: a correct gradient gave a relative error of "
                    f"{got['error']:.1e}, above 1e-6"
                )
            return None

        return Case(f"a correct gradient: {name}", run, judge)

    def bug_run(bug, name, f, shapes):
        arrays = [rng.uniform(-2, 2, s) for s in shapes]

        def run(found):
            from course.museum import planted

            unplanted = float(found.directional_check(f, arrays, seed=1))
            with planted(bug):
                try:
                    error = float(found.directional_check(f, arrays, seed=1))
                except Exception as raised:  # a crash reports the bug too
                    return {"unplanted": unplanted, "raised": type(raised).__name__}
            return {"unplanted": unplanted, "error": error}

        def judge(got):
            if not got["unplanted"] <= 1e-6:
                return (
                    f"{name} without a bug gave a relative error of "
                    f"{got['unplanted']:.1e}: a check must pass a correct gradient "
                    "before its alarms count"
                )
            if "raised" in got or got["error"] > 1e-3:
                return None
            return (
                f"with the museum's '{bug}' planted, {name} gave a relative error of "
                f"{got['error']:.1e}: the bug went unreported"
            )

        return Case(f"the bug '{bug}' on {name}", run, judge)

    return [
        correct_run("tanh(x) * y", lambda x, y: x.tanh() * y, [(3, 4), (4,)]),
        correct_run("A @ B", lambda a, b: a @ b, [(3, 4), (4, 2)]),
        correct_run(
            "log_softmax(x), sum over rows",
            lambda x: log_softmax_of(x).sum(axis=0),
            [(4, 3)],
        ),
        correct_run("x * x, a reused node", lambda x: x * x, [(5,)]),
        correct_run(
            "an input that does not matter", lambda x, y: x.exp(), [(3,), (2,)]
        ),
        bug_run(
            "missing transpose", "A @ B, square", lambda a, b: a @ b, [(3, 3), (3, 3)]
        ),
        bug_run(
            "forgotten unbroadcast",
            "x + b, b broadcast",
            lambda x, b: x + b,
            [(4, 3), (3,)],
        ),
        bug_run("assigned, not accumulated", "x * x", lambda x: x * x, [(4,)]),
        bug_run(
            "order that does not wait", "tanh(x) * x", lambda x: x.tanh() * x, [(4,)]
        ),
    ]
