"""Hypothesis profiles: `ci` (the default) runs a fixed, derandomised number of examples."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=25, derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
