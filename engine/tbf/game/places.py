"""Where each action of a These Brave Fellows game happens, for boards (core :class:`~engine.core.game.Places`):
the pieces it concerns (unit and leader ids of the order of battle), the hexes they stand in (``origin``),
the hexes it moves to, fires at, melees, charges or faces (``targets``) and, for a move, a charge or a fall
back, the hexes entered in order (``path``: the start hex left out, the end included). Hexes are the map's
``XXYY`` labels. Worked out from the action and the position only; an action that is not legal gets its
places all the same (a board may ask about any candidate)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.core.errors import RuleViolation
from engine.core.game import Places

from .actions import (Activate, ActivateCommand, Attach, CavalryRetreat, Charge, EndSegment, Face, Fire, Melee, Move,
                      OutOfCommand, Pass, Place, TbfAction)
from .queries import Queries
from .state import TbfState

__all__ = ["places", "PLACES"]


def _hex(s: TbfState, pid: str) -> tuple[str, ...]:
    """The hex ``pid`` stands in now (none when it is off the map or not a piece of the game)."""
    try:
        h = s.game.piece(pid).hex
    except RuleViolation:
        return ()
    return (h,) if h else ()


def _hexes(s: TbfState, ids: Iterable[str]) -> tuple[str, ...]:
    """The hexes of ``ids``, each once, in the order of the ids."""
    return tuple(dict.fromkeys(h for pid in ids for h in _hex(s, pid)))


def _one(ctx: Queries, s: TbfState, a: Activate | ActivateCommand | OutOfCommand | Attach) -> Places:
    """Activate (6.1: the leader), ActivateCommand (6.1.4 A: the designated unit), OutOfCommand (6.1.3 C),
    Attach (6.1.3 A): one piece where it stands."""
    pid = a.leader if isinstance(a, Activate) else a.unit
    return Places((pid,), _hex(s, pid))


def _none(ctx: Queries, s: TbfState, a: Pass | EndSegment) -> Places:
    """Pass and end (3.3 B) concern no piece and no hex."""
    return Places()


def _move(ctx: Queries, s: TbfState, a: Move) -> Places:
    """6.2: the mover, its hex, its destination, and the hexes of its path (the listed path, else the cheapest
    path the movement search finds, else the destination alone)."""
    path = tuple(a.path)
    if not path:
        try:
            path = ctx.reach(s, a.unit)[a.to][1] if s.impulse is not None else ()
        except (RuleViolation, KeyError):
            path = ()
    here = _hex(s, a.unit)
    entered = path[1:] if path and here and path[0] == here[0] else path
    return Places((a.unit,), here, (a.to,), entered or (a.to,))


def _face(ctx: Queries, s: TbfState, a: Face) -> Places:
    """4.3: the unit, its hex, and the hex across the hexside it turns to face (none off the map's edge)."""
    here = _hex(s, a.unit)
    grid = ctx.sc.board.grid
    faced: tuple[str, ...] = ()
    if here and isinstance(a.facing, int) and not isinstance(a.facing, bool) and 0 <= a.facing <= 5:
        n = grid.neighbour(here[0], a.facing)
        faced = (n,) if n is not None and grid.in_bounds(n) else ()
    return Places((a.unit,), here, faced)


def _charge(ctx: Queries, s: TbfState, a: Charge) -> Places:
    """6.2.8: the charger, its hex, the target hexes (the charge line's last hex, then the next targets) and
    the charge line."""
    return Places((a.unit,), _hex(s, a.unit), tuple(a.path[-1:]) + tuple(a.next), tuple(a.path))


def _shot(ctx: Queries, s: TbfState, a: Fire | Melee) -> Places:
    """Fire (6.3) and melee (6.4): the units (and a lone firing leader, 6.3.5), their hexes, the target hex."""
    return Places(tuple(a.units), _hexes(s, a.units), (a.target,))


def _place(ctx: Queries, s: TbfState, a: Place) -> Places:
    """9.1, 9.3 B: the piece set up, where it stands and where it goes (the same hex for a facing change)."""
    return Places((a.unit,), _hex(s, a.unit), (a.hex,))


def _fall_back(ctx: Queries, s: TbfState, a: CavalryRetreat) -> Places:
    """11.8 B: the cavalry unit, its hex, where it ends and the two hexes it falls back through."""
    return Places((a.unit,), _hex(s, a.unit), tuple(a.path[-1:]), tuple(a.path))


#: action type -> how its places are found (one entry per kind)
PLACES: dict[type[TbfAction], Callable[[Queries, TbfState, Any], Places]] = {
    Activate: _one, ActivateCommand: _one, OutOfCommand: _one, Attach: _one, Pass: _none, EndSegment: _none,
    Move: _move, Face: _face, Charge: _charge, Fire: _shot, Melee: _shot, CavalryRetreat: _fall_back, Place: _place,
}


def places(ctx: Queries, s: TbfState, a: TbfAction) -> Places:
    """The pieces and hexes ``a`` concerns in ``s`` (empty for anything that is not a TBF action)."""
    fn = PLACES.get(type(a))
    return fn(ctx, s, a) if fn is not None else Places()
