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
_CARRY_SIZE = 16
_lock = threading.Lock()
_table: "OrderedDict[Any, dict]" = OrderedDict()
#: values carried over (see :func:`inherit`) to states that have asked nothing yet. A state made on the way
#: to another one (an action's steps: a unit moved, then its marks changed, then the phase) never asks, so
#: it takes no place in ``_table`` and pushes out no state still in play; the first question of a state
#: moves its carried values into its place in ``_table``
_carried: "OrderedDict[Any, dict]" = OrderedDict()


def _slot(state) -> dict:
    d = _table.get(state)              # a lookup is atomic; only changing the table takes the lock
    if d is None:
        with _lock:
            d = _table.get(state)
            if d is None:
                d = _carried.pop(state, None)
                if d is None:
                    d = {}
                _table[state] = d
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
    for ``new`` too (see engine.n20.game.state.with_units: what one side's units alone decide). Until
    ``new`` asks a question they wait in a small side table (``_carried``), not in the memo's own."""
    d = _table.get(old)
    if d is None:
        d = _carried.get(old)          # ``old`` itself a step on the way: what it was carried passes on
    if not d:
        return
    found = [(k, d[k]) for k in keys if k in d]
    if not found:
        return
    nd = _table.get(new)
    if nd is None:
        with _lock:
            nd = _table.get(new)
            if nd is None:
                nd = _carried.get(new)
                if nd is None:
                    nd = _carried[new] = {}
                    if len(_carried) > _CARRY_SIZE:
                        _carried.popitem(last=False)
    for k, v in found:
        nd.setdefault(k, v)


def clear() -> None:
    with _lock:
        _table.clear()
        _carried.clear()
