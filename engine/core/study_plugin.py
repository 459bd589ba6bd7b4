"""A Dask worker plugin for studies (engine/core/simulate.py), in its own module: it needs Dask's plugin
base class at import, and a study that plays in one process never imports Dask."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["AtWorkerStart"]


class AtWorkerStart(WorkerPlugin):
    """Calls ``fn()`` in every worker of a cluster: those there now, and any that starts later (one the
    nanny starts again after a crash). The balance page's worker uses it to lower its own priority before
    its first game. ``fn`` must be importable on the workers."""

    def __init__(self, fn: Callable[[], Any]):
        self.fn = fn

    def setup(self, worker: Any) -> None:
        self.fn()
