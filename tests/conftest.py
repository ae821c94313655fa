"""Loads the hypothesis profile that HYPOTHESIS_PROFILE names
(tests/hypothesis_profiles.py): `ci`, the default, runs a fixed, derandomised number of
examples; `thorough` runs 500."""

import hypothesis_profiles  # noqa: F401  (registers the profiles and loads the chosen one)
