"""Shared test settings: hypothesis profiles sized for CI's two cores."""
import os

from hypothesis import HealthCheck, settings

import engine.systems  # noqa: F401  (the shipped systems in core's registry, as the CLI and the pages have them)

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
