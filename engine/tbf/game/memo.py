"""Memoised pure functions of (scenario, position, ...): the enumerate driver re-runs a procedure from its
start for every branch, so set-ups and rout paths are worked out once per position, not once per branch."""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar, cast

__all__ = ["cached", "forget"]

_CACHES: dict[Callable[..., Any], Any] = {}       # function -> its lru_cache wrapper
_F = TypeVar("_F", bound=Callable[..., Any])


def cached(fn: _F) -> _F:
    """``fn`` memoised (one memo per function, shared by every caller; called as ``fn`` is)."""
    c = _CACHES.get(fn)
    if c is None:
        c = _CACHES[fn] = lru_cache(maxsize=4096)(fn)
    return cast(_F, c)


def forget() -> None:
    """Empty every memo made by :func:`cached` (answers are the same afterwards, only worked out again)."""
    for c in _CACHES.values():
        c.cache_clear()
