"""Where a Battle Commander action happens, for boards (core's :class:`~engine.core.game.Places`): the Blocks and
HQ markers it concerns, the Zones they stand in, the Zones it goes to, attacks or affects, and a move's path.

One function per kind in :data:`PLACES`. Zones are the map's Zone ids, pieces the Block and HQ marker ids the
board shows. An action that names an unknown Block or Zone (a candidate the check refuses) still gets its
places from what it names: this never raises.
"""
from __future__ import annotations

from collections.abc import Callable

from engine.core.errors import RuleViolation
from engine.core.game import Places

from .actions import (Advance, Attack, BcAction, ChangeFormation, CombatMove, Face, GiveGround, Kind, Move, Rally,
                      Reinforce, Surrender, Swap)
from .movement import move_path
from .reinforcements import due_reinforcements
from .retreat import retreat_options
from .state import BcState, MapState

__all__ = ["places", "PLACES"]


def _zone_of(g: MapState, piece: str) -> str | None:
    """The Zone of a Block or an HQ marker on the map, None when it is not there."""
    for u in g.units:
        if u.id == piece:
            return u.zone
    h = g.hq(piece)
    return h.zone if h is not None else None


def _zones(g: MapState, pieces) -> tuple[str, ...]:
    return tuple(dict.fromkeys(z for z in (_zone_of(g, p) for p in pieces) if z is not None))


def _in_zone(g: MapState, zone: str, side: str) -> tuple[str, ...]:
    return tuple(u.id for u in g.in_zone(zone) if u.side == side) + tuple(h.id for h in g.hqs_in(zone, side))


def _nothing(st: BcState, a: BcAction) -> Places:
    """start_turn, draw, ready_arms, in_reserve, pass, gold, purchase, army_rally, done: nothing on the map."""
    return Places()


def _move(st: BcState, a: Move) -> Places:
    """19.0-19.3: the Blocks and HQ markers moved, their Zones, where each ends, the Zones passed through."""
    pieces = tuple(p for p, _ in a.moves) + tuple(h for h, _ in a.hqs)
    paths = [move_path(to) for _, to in a.moves + a.hqs]
    ends = tuple(dict.fromkeys(p[-1] for p in paths if p))
    path = tuple(dict.fromkeys(z for p in paths for z in p))
    return Places(pieces=pieces, origin=_zones(st.g, pieces) or tuple(a.zones), targets=ends, path=path)


def _reinforce(st: BcState, a: Reinforce) -> Places:
    """18.0: the Blocks and HQs due, the Zones they enter, then where their free moves take them."""
    g = st.g
    chosen = dict(p.split(":", 1) for p in a.units if ":" in p)
    due = due_reinforcements(g, a.side)
    entry = {u: (z if z is not None else chosen.get(u)) for u, z in due.items()}
    enters = tuple(dict.fromkeys(z for z in entry.values() if z))
    paths = [move_path(to) for _, to in a.moves]
    ends = tuple(dict.fromkeys(p[-1] for p in paths if p))
    path = tuple(dict.fromkeys(enters + tuple(z for p in paths for z in p)))
    return Places(pieces=tuple(entry), targets=tuple(dict.fromkeys(enters + ends)), path=path)


def _rally(st: BcState, a: Rally) -> Places:
    """20.0: the Blocks and HQs of the rallied Zone, in that Zone."""
    return Places(pieces=_in_zone(st.g, a.frm, a.side), origin=(a.frm,), targets=(a.frm,))


def _attack(st: BcState, a: Attack) -> Places:
    """23.1: the Lead Attacker (and its second line), its Zone, the Zone attacked."""
    return Places(pieces=tuple(u.id for u in st.g.in_zone(a.frm) if u.side == a.side), origin=(a.frm,),
                  targets=(a.to,))


def _step(st: BcState, a: CombatMove | Advance) -> Places:
    """19.4 Combat Move, 25.0 advance: the Blocks that go (an advance names them), from one Zone to the next."""
    pieces = a.units if isinstance(a, Advance) else tuple(u.id for u in st.g.in_zone(a.frm) if u.side == a.side)
    return Places(pieces=tuple(pieces), origin=(a.frm,), targets=(a.to,), path=(a.to,))


def _face(st: BcState, a: Face) -> Places:
    """9.4: the Artillery or Massed Column, its Zone, the Zones it faces."""
    return Places(pieces=(a.block,), origin=_zones(st.g, (a.block,)), targets=tuple(a.facing))


def _zone_reform(st: BcState, a: Swap | ChangeFormation) -> Places:
    """9.2, 9.4: the Blocks of the Zone that swap or change formation, in that Zone."""
    return Places(pieces=tuple(u.id for u in st.g.in_zone(a.frm) if u.side == a.side), origin=(a.frm,),
                  targets=(a.frm,))


def _give_ground(st: BcState, a: GiveGround) -> Places:
    """24.3: the Block, its Zone, the Zones it may withdraw into (24.1)."""
    try:
        zones, _ = retreat_options(st.g, a.block)
    except (RuleViolation, KeyError):
        zones = ()
    return Places(pieces=(a.block,), origin=_zones(st.g, (a.block,)), targets=tuple(zones))


def _surrender(st: BcState, a: Surrender) -> Places:
    """26.0: the Block that surrenders, in its Zone."""
    return Places(pieces=(a.block,), origin=_zones(st.g, (a.block,)))


#: kind -> where its actions happen
PLACES: dict[str, Callable[[BcState, BcAction], Places]] = {
    Kind.START_TURN: _nothing, Kind.DRAW: _nothing, Kind.MOVE: _move, Kind.READY_ARMS: _nothing,
    Kind.IN_RESERVE: _nothing, Kind.PASS: _nothing, Kind.GOLD: _nothing, Kind.REINFORCE: _reinforce,
    Kind.PURCHASE: _nothing, Kind.RALLY: _rally, Kind.ARMY_RALLY: _nothing, Kind.ATTACK: _attack,
    Kind.COMBAT_MOVE: _step, Kind.ADVANCE: _step, Kind.FACE: _face, Kind.SWAP: _zone_reform,
    Kind.FORMATION: _zone_reform, Kind.DONE: _nothing, Kind.GIVE_GROUND: _give_ground, Kind.SURRENDER: _surrender,
}
assert set(PLACES) == set(Kind), "every action kind has its places"


def places(st: BcState, a: BcAction) -> Places:
    """The pieces and Zones ``a`` concerns in ``st`` (for boards: a pick on the board finds its actions here)."""
    return PLACES[a.kind](st, a)
