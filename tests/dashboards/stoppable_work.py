"""Work for the calculation workers' tests of stopping (tests/dashboards/test_dash_background_stop.py), in a
module of its own so that a worker process can import it: work that looks at
:func:`dashboards.server.background.stop_requested` as an enumeration does, and work that looks once and
then does not end."""
from __future__ import annotations

import os
import time

from dashboards.server.background import stop_requested
from engine.core.errors import VedetteError


def count_until_stopped(limit: int = 10**10, every: int = 256) -> int:
    """Count to ``limit`` (minutes of work), looking at ``stop_requested`` every ``every`` steps, as an exact
    enumeration does (engine.core.odds); stopped, it raises a one-line error naming this worker."""
    for i in range(limit):
        if not i % every and stop_requested():
            raise VedetteError(f"stopped in worker {os.getpid()} after {i} steps")
    return limit


def look_once_then_sleep(seconds: float = 600.0) -> int:
    """Look at ``stop_requested`` once, then sleep without looking again (work that does not end when told)."""
    stop_requested()
    time.sleep(seconds)
    return os.getpid()
