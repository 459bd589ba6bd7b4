"""Values derived from a game state, kept in a side table beside the states (never inside them).

A :class:`~engine.n20.game.state.GameState` is a value: what is computed from it (reachable hexes, zones
of control, a bot's distance maps) depends on nothing else, so it is memoised here keyed by the state
value and a key naming the computation. The table keeps the most recent states only, and is guarded by
a lock, so simulations running games in several threads share it safely (at worst a value is computed
twice; values are never changed once stored).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["memo", "clear", "inherit"]

_SIZE = 48
_lock = threading.Lock()
_table: "OrderedDict[Any, dict]" = OrderedDict()


def _slot(state) -> dict:
    d = _table.get(state)              # a lookup is atomic; only changing the table takes the lock
    if d is None:
        with _lock:
            d = _table.get(state)
            if d is None:
                d = _table[state] = {}
                if len(_table) > _SIZE:
                    _table.popitem(last=False)
    return d


def memo(state, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()`` for ``state``, computed once per (state value, key)."""
    d = _table.get(state)
    if d is None:
        d = _slot(state)
    v = d.get(key, _MISSING)
    if v is _MISSING:
        v = d[key] = compute()
    return v


_MISSING = object()


def inherit(old, new, keys) -> None:
    """Copy to ``new`` the values held for ``old`` under ``keys``, where the caller knows that they hold
    for ``new`` too (see engine.n20.game.state.with_units: what one side's units alone decide)."""
    d = _table.get(old)
    if not d:
        return
    found = [(k, d[k]) for k in keys if k in d]
    if found:
        nd = _slot(new)
        for k, v in found:
            nd.setdefault(k, v)


def clear() -> None:
    with _lock:
        _table.clear()
