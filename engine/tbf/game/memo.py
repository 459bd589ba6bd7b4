"""Memoised pure functions of (scenario, position, ...): the enumerate driver re-runs a procedure from its
start for every branch, so set-ups and rout paths are worked out once per position, not once per branch."""
from __future__ import annotations

from functools import lru_cache

__all__ = ["cached", "forget"]

_CACHES: dict = {}


def cached(fn):
    """``fn`` memoised (one memo per function, shared by every caller)."""
    c = _CACHES.get(fn)
    if c is None:
        c = _CACHES[fn] = lru_cache(maxsize=4096)(fn)
    return c


def forget() -> None:
    """Empty every memo made by :func:`cached` (answers are the same afterwards, only worked out again)."""
    for c in _CACHES.values():
        c.cache_clear()
