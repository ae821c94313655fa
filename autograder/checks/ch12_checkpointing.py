"""The checks of chapter 12, checkpointing (T23): a two-level checkpoint schedule over
residual tanh blocks must give the plain sweep's gradients to the last bits and keep no
more arrays alive at its peak (engine.ArrayCensus) than two levels of segments need."""

from autograder.checks.toolkit import Case, cases_of, difference


@cases_of("two_level")
def two_level_cases(rng):
    """T23: three depths, each in segments of k blocks within segments of k * k."""
    made = []
    for depth, k in [(16, 2), (64, 4), (27, 3)]:
        width = 3
        X = rng.normal(size=(5, width))
        params = [
            rng.normal(size=s) * 0.5
            for _ in range(depth)
            for s in [(width, width), (width,)]
        ]

        def run(found, X=X, params=params, k=k):
            from engine import ArrayCensus, grad, Tensor
            from engine.nn import linear

            def blocks(h, *ps):
                for W, b in zip(ps[::2], ps[1::2]):
                    h = h + linear(h, W, b).tanh()
                return h

            tensors = [Tensor(p) for p in params]
            with ArrayCensus() as census:
                loss = (
                    found.two_level(Tensor(X, requires_grad=False), tensors, k) ** 2
                ).mean()
                gradients = grad(loss, tensors)
            plain = grad(
                (blocks(Tensor(X, requires_grad=False), *tensors) ** 2).mean(), tensors
            )
            return {"gradients": gradients, "plain": plain, "peak": census.peak}

        def judge(got, depth=depth, k=k):
            what = f"depth {depth}, k = {k}"
            for i, (a, b) in enumerate(zip(got["gradients"], got["plain"])):
                problem = difference(
                    f"{what}, gradient of parameter {i}", a, b, rtol=1e-12, atol=1e-14
                )
                if problem:
                    return problem
            # outer boundaries + inner boundaries + one inner segment (3 arrays a block)
            # + the loss's 3; the plain sweep keeps 3 arrays a block
            bound = depth // (k * k) + k + 3 * k + 3 + 2
            if got["peak"] > bound:
                return (
                    f"{what}: {got['peak']} arrays alive at the peak; two levels of "
                    f"segments of {k} blocks need at most about {bound}"
                )
            return None

        made.append(
            Case(
                f"depth {depth}, segments of {k} blocks in segments of {k * k}",
                run,
                judge,
            )
        )
    return made
