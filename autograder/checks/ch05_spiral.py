"""The checks of chapter 5, training on the spiral (T11): SGD with momentum, every
parameter after every step against torch.optim.SGD, over four settings and one run in
which a parameter misses its gradient now and then."""

from autograder.checks.toolkit import cases_of, optimiser_cases


@cases_of("Momentum")
def momentum_cases(rng):
    """T11: Momentum against torch.optim.SGD (optimiser_cases)."""
    return optimiser_cases(
        rng,
        "Momentum",
        "SGD",
        [
            dict(lr=0.1, momentum=0.9),
            dict(lr=0.01, momentum=0.5),
            dict(lr=0.3, momentum=0.0),
            dict(lr=0.05, momentum=0.99),
        ],
        dict(lr=0.1, momentum=0.9),
    )
