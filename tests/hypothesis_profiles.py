"""The hypothesis profiles, chosen by HYPOTHESIS_PROFILE: `ci` (the default) runs a
fixed, derandomised number of examples per property; `thorough` runs 500 per property.

A property that needs another number of examples in the quick `ci` run than the
profile's 25 asks for it with `@settings(max_examples=examples(ci=N))`: N under `ci`,
and under every other profile that profile's own count, so that `thorough` means 500 for
every property."""

import os

from hypothesis import HealthCheck, settings


PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")

settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(PROFILE)


def examples(ci):
    """The number of examples for a property that runs `ci` of them in the default
    profile."""
    return ci if PROFILE == "ci" else settings.get_profile(PROFILE).max_examples
