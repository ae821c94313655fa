"""The checks of chapter 7, Adam (T13 and T14): Adam's step and AdamW, every parameter
after every step against torch.optim.Adam and torch.optim.AdamW, over several settings
and, for AdamW, one run in which a parameter misses its gradient now and then."""

from autograder.checks.toolkit import cases_of, optimiser_cases


@cases_of("Adam.step")
def adam_cases(rng):
    """T13: Adam against torch.optim.Adam (optimiser_cases)."""
    return optimiser_cases(
        rng,
        "Adam",
        "Adam",
        [
            dict(lr=1e-3),
            dict(lr=0.1, betas=(0.8, 0.99)),
            dict(lr=0.05, eps=1e-3),
            dict(lr=0.01, betas=(0.0, 0.9)),
        ],
    )


@cases_of("AdamW")
def adamw_cases(rng):
    """T14: AdamW against torch.optim.AdamW (optimiser_cases)."""
    return optimiser_cases(
        rng,
        "AdamW",
        "AdamW",
        [
            dict(lr=1e-3, weight_decay=1e-2),
            dict(lr=0.1, weight_decay=0.5),
            dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1),
            dict(lr=0.01, weight_decay=0.0),
        ],
        dict(lr=0.1, weight_decay=0.1),
    )
