"""Shared test settings: hypothesis profiles sized for CI's two cores.

* ``ci`` (the default run): each property test runs the number of examples written beside it (for the
  costly ones, :func:`sizes.examples`), so the whole default run stays within CI's time;
* ``slow`` (``HYPOTHESIS_PROFILE=slow python -m pytest ...``): the costly property tests run several times
  as many examples (:data:`sizes.SLOW_FACTOR`), the others 200 where they say nothing themselves.
"""

from hypothesis import HealthCheck, settings

import engine.systems  # noqa: F401  (the shipped systems in core's registry, as the CLI and the pages have them)
from sizes import PROFILE

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("slow", parent=settings.get_profile("ci"), max_examples=200)
settings.load_profile(PROFILE)
