"""How many examples a costly property test runs: sized for the default run, more under the ``slow``
hypothesis profile (``HYPOTHESIS_PROFILE=slow``; tests/conftest.py registers both profiles).

    @settings(max_examples=examples(25), deadline=None)     # 25 in the default run, 100 with slow
"""
from __future__ import annotations

import os

#: the hypothesis profile of this run: "ci" (the default) or "slow"
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
#: how many times the default run's examples the slow profile runs
SLOW_FACTOR = 4


def examples(n: int) -> int:
    """``n`` examples in the default run, ``SLOW_FACTOR * n`` under the slow profile."""
    return n * SLOW_FACTOR if PROFILE == "slow" else n
