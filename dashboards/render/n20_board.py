"""Napoleonic 20 map and units -> the generic hex map drawing (:mod:`dashboards.render.hexmap`)."""
from __future__ import annotations

import weakref
from typing import Iterable

from dashboards.render.hexmap import Counter, MapSpec

__all__ = ["spec_from_board", "counter_from_unit", "unit_markers"]

_FATIGUE = ("", "ready", "tired", "weary", "spent")


_SPECS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def spec_from_board(board) -> MapSpec:
    """A :class:`MapSpec` from an ``engine.n20.board.Board`` (every hex, with its terrain).

    Boards are immutable and shared by every game of a scenario, so the spec (and the drawing data
    :func:`~dashboards.render.hexmap.static_layers` caches on it) is made once per board, not per session.
    """
    try:
        return _SPECS[board]
    except (KeyError, TypeError):
        pass
    spec = _spec_from_board(board)
    try:
        _SPECS[board] = spec
    except TypeError:  # a board that cannot be weakly referenced: not cached
        pass
    return spec


def _spec_from_board(board) -> MapSpec:
    terrain = {h: board.terrain(h) for h in board.hexes}
    for h in board.prohibited:
        terrain[h] = "prohibited"
    hexsides = [(*sorted(k), tuple(sorted(v)), board.upslope.get(k)) for k, v in board.features.items()]
    roads = [sorted(link) for link in board.road_links]
    return MapSpec(grid=board.grid, terrain=terrain, names=dict(board.names), hexsides=hexsides, roads=roads,
                   loc={s: list(v) for s, v in board.loc.items()}, objectives=list(board.objectives),
                   garrisons={h: (g.side, g.strength) for h, g in board.garrisons.items()},
                   title=board.name, source=board.source, notes=board.notes)


def unit_markers(unit) -> tuple[str, ...]:
    marks = []
    if getattr(unit, "routed", False):
        marks.append("Routed!")
    if getattr(unit, "square", False):
        marks.append("square")
    f = getattr(unit, "fatigue", 0) or 0
    if f:
        marks.append(_FATIGUE[f] if f < len(_FATIGUE) else f"fatigue {f}")
    return tuple(marks)


def counter_from_unit(unit) -> Counter:
    return Counter(id=unit.id, hex=unit.hex, side=unit.side, kind=unit.type, strength=unit.strength,
                   movement=unit.movement, name=unit.name or unit.id, markers=unit_markers(unit),
                   elite=bool(getattr(unit, "elite", False)))


def counters(units: Iterable) -> list[Counter]:
    return [counter_from_unit(u) for u in units if getattr(u, "hex", None)]
