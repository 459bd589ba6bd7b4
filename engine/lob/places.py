"""Where a Lines of Battle action happens, for boards (core's :class:`~engine.core.game.Places`): the units
or leaders it concerns, the areas they stand in, the areas it goes to or affects, and a move's path.

One function per kind in :data:`PLACES`. Areas are the map's area ids, pieces the unit ids and leader
names the board shows. An action that names an unknown unit or area (a candidate the check refuses)
still gets its places from what it names: this never raises.
"""
from __future__ import annotations

from collections.abc import Callable

from engine.core.errors import RuleViolation
from engine.core.game import Places

from .actions import Action, Kind
from .command import activation
from .state import Game

__all__ = ["places", "PLACES"]


def _area_of(g: Game, name: str) -> str | None:
    """The area of a unit or a leader (7.1), None when it is off the map or unknown."""
    for u in g.units:
        if u.uid == name:
            return u.area
    ld = g.leader(name)
    return ld.area if ld is not None else None


def _origin(g: Game, a: Action) -> tuple[str, ...]:
    return tuple(sorted({x for x in (_area_of(g, n) for n in a.units) if x is not None}))


def _nothing(g: Game, a: Action) -> Places:
    """end-setup, end-admin, end-phase: no piece, no place."""
    return Places()


def _place(g: Game, a: Action) -> Places:
    """Albuera option 6: the unit, where it stands, the area it is set up in."""
    to = (a.area,) if a.area is not None else ()
    return Places(pieces=a.units, origin=_origin(g, a), targets=to, path=to)


def _in_place(g: Game, a: Action) -> Places:
    """toggle (3), rally (4.1): the unit and its area."""
    return Places(pieces=a.units, origin=_origin(g, a))


def _activate(g: Game, a: Action) -> Places:
    """4.2 (7.1): the units the activation wakes, from the leader's area (or the area itself), to the area."""
    if a.area is None:
        return Places(pieces=a.units)
    try:
        woken, leader, _ = activation(g, a.area, a.units[0] if a.units else None)
    except RuleViolation:
        woken, leader = (), None
    pieces = tuple(u.uid for u in woken) + ((leader.name,) if leader is not None else ())
    origin = (leader.area,) if leader is not None and leader.area is not None else (a.area,)
    return Places(pieces=pieces, origin=origin, targets=(a.area,))


def _move(g: Game, a: Action) -> Places:
    """4.2.2 (7.1 a leader's own move): the group, its area, its path; it ends in the path's last area
    (in its own area for a change of formation in place)."""
    origin = _origin(g, a)
    end = a.path[-1] if a.path else (origin[0] if origin else None)
    return Places(pieces=a.units, origin=origin, targets=(end,) if end is not None else (), path=a.path)


def _attack(g: Game, a: Action) -> Places:
    """5: the attackers (and leaders joining), their area, the path to where the attack starts, the area
    attacked."""
    to = (a.target,) if a.target is not None else ()
    return Places(pieces=a.units, origin=_origin(g, a), targets=to, path=a.path)


def _fire(g: Game, a: Action) -> Places:
    """4.2.1: the gun, its area, the area of the unit fired at."""
    area = _area_of(g, a.target) if a.target is not None else None
    return Places(pieces=a.units, origin=_origin(g, a), targets=(area,) if area is not None else ())


PLACES: dict[str, Callable[[Game, Action], Places]] = {
    Kind.PLACE: _place, Kind.END_SETUP: _nothing, Kind.TOGGLE: _in_place, Kind.END_ADMIN: _nothing,
    Kind.RALLY: _in_place, Kind.ACTIVATE: _activate, Kind.MOVE: _move, Kind.ATTACK: _attack, Kind.FIRE: _fire,
    Kind.END_PHASE: _nothing,
}
assert set(PLACES) == set(Kind), "every action kind has its places"


def places(g: Game, a: Action) -> Places:
    """The typed pieces and places of ``a`` in ``g`` (an unknown kind: none)."""
    fn = PLACES.get(a.kind)
    return fn(g, a) if fn is not None else Places()
