"""What a position says, asked over and over by every chapter of the rules: the live units in a hex, a
unit's current FV and MA (4.2.4 B), its front (4.3 C, 4.2.4 E, 8.4 B) and the enemy's fronts a side must
reckon with (6.2.5 A), the leaders whose CV helps a check (4.2.2 C), where retreats and routs head
(6.6 A, 6.7 C), the hexes each side holds, who controls a town (6.6 A). Pure functions of the scenario and
the position (memoised by value)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace as dc_replace
from itertools import compress
from operator import is_not

from engine.core.errors import RuleViolation
from engine.core.hexgrid import HexGrid

from ..board import frontal_hexes
from ..scenario import Scenario
from .state import GameState, Piece
from .types import LIVE, Side, Status, other

__all__ = ["occupants", "current_fv", "current_ma", "frontal", "enemy_front", "fronts_of", "leader_cvs", "refuges",
           "nearest", "distance_to", "occupied", "acting_side", "occupy", "leaders_in"]


def occupants(sc: Scenario, st: GameState, hex_: str, side: str | None = None, units_only: bool = True) -> list[Piece]:
    out: list[Piece] = []
    for p in st.in_hex(hex_):
        if p.status not in LIVE:
            continue
        if units_only and sc.is_leader(p.id):
            continue
        if side is not None and sc.side(p.id) != side:
            continue
        out.append(p)
    return out


def current_fv(sc: Scenario, p: Piece) -> int:
    u = sc.units[p.id]
    return u.fv if p.status == Status.NORMAL else u.fv_f


def current_ma(sc: Scenario, p: Piece) -> int:
    u = sc.units[p.id]
    return u.ma if p.status == Status.NORMAL else u.ma_f      # 4.2.4 B


def frontal(sc: Scenario, st: GameState, p: Piece) -> frozenset[str]:
    """Hexes in the unit's front (4.3 C, 4.2.4 E, 8.4 B)."""
    if p.hex is None or sc.is_leader(p.id) or p.status not in LIVE:
        return frozenset()
    u = sc.units[p.id]
    all_round = (p.id == "elite" and p.hex == sc.board.data.strong_point
                 and "strong_point_removed" not in st.flags)                 # 8.4 B-C
    return frontal_hexes(sc.board.grid, p.hex, p.facing, u.kind, p.status, all_round)


def enemy_front(sc: Scenario, st: GameState, side: str) -> frozenset[str]:
    """Every hex in the front of a unit of the side opposed to ``side``."""
    memo = sc.front_memo                                 # the Scenario is a loaded object, not a value
    key = (st, side)                                     # states keep their hash (scenario.GameState)
    got = memo.get(key)
    if got is None:
        if len(memo) > 256:
            memo.clear()
        got = memo[key] = fronts_of(sc, st, side)
    return got


def fronts_of(sc: Scenario, st: GameState, side: str) -> frozenset[str]:
    """The union of the enemy units' fronts, counted hex by hex: worked out from the last position asked
    about for this side, where only the pieces that differ from it (a move, a facing, a status) change the
    counts; afresh when none was asked yet, when the Strong Point's state differs (8.4 B-C) or when many
    pieces changed. The last answer is replaced whole, never written in place."""
    fronts = _FRONTS.get(sc.key)
    if fronts is None or len(fronts) > 20_000:
        fronts = _FRONTS[sc.key] = {}
    kept = "strong_point_removed" not in st.flags
    on = st.placed
    key = (sc.key, side)
    last = _FRONT_LAST.get(key)
    if last is not None and last[1] == kept and len(last[0]) == len(on):
        was, _, counts, front = last
        # the places where the two lists of pieces on the map hold different pieces: the counts lose the
        # fronts of the pieces that were there and gain those of the pieces there now (any order of the
        # pieces gives the right counts; positions made one from another keep it, so few places differ)
        changed = list(compress(range(len(on)), map(is_not, was, on)))
        if not changed:
            return front
        if len(changed) <= 8:
            counts = dict(counts)
            for i in changed:
                for h in _piece_front(sc, fronts, was[i], side, kept):
                    n = counts[h] - 1
                    if n:
                        counts[h] = n
                    else:
                        del counts[h]
                for h in _piece_front(sc, fronts, on[i], side, kept):
                    counts[h] = counts.get(h, 0) + 1
            front = frozenset(counts)
            _FRONT_LAST[key] = (on, kept, counts, front)
            return front
    counts = {}
    for p in st.placed:
        for h in _piece_front(sc, fronts, p, side, kept):
            counts[h] = counts.get(h, 0) + 1
    front = frozenset(counts)
    _FRONT_LAST[key] = (on, kept, counts, front)
    return front


_NO_FRONT: frozenset[str] = frozenset()


# (scenario, side) -> (pieces on the map, Strong Point kept, hex -> fronts on it, union)
_FRONT_LAST: dict[tuple[str, str], tuple[tuple[Piece, ...], bool, dict[str, int], frozenset[str]]] = {}


def _piece_front(sc: Scenario, fronts: Fronts, p: Piece, side: str, kept: bool) -> frozenset[str]:
    """The hexes of a piece's front that ``side`` must reckon with (4.3 C): none for a leader, a piece of
    ``side`` or a unit out of play; the Elite in the Strong Point faces all round while it is kept (8.4 B-C,
    as :func:`frontal`)."""
    pid = p.id
    if pid in sc.leaders or sc.side_of[pid] == side or p.status not in LIVE:
        return _NO_FRONT
    all_round = kept and pid == "elite" and p.hex == sc.board.data.strong_point
    f = fronts.get((p, all_round))
    if f is None:               # a piece's front follows from the piece (a value) alone: made once
        f = fronts[(p, all_round)] = frontal_hexes(sc.board.grid, p.hex, p.facing, sc.units[pid].kind, p.status,
                                                   all_round)
    return f


#: (piece, all round) -> the hexes in its front (4.3 C)
Fronts = dict[tuple[Piece, bool], frozenset[str]]
_FRONTS: dict[str, Fronts] = {}          # scenario -> its pieces' fronts


def leader_cvs(sc: Scenario, st: GameState, unit_id: str) -> tuple[int, ...]:
    """CVs that modify this unit's Fatigue Checks: leaders of its chain of command in or adjacent to its
    hex (4.2.2 C), the best one per hex (4.1.3)."""
    p = st.piece(unit_id)
    if p.hex is None:
        return ()
    best: dict[str, int] = {}
    g = sc.board.grid
    for lid in sc.chain_of_command(unit_id):
        lp = st.piece(lid)
        if lp.hex is None or lp.status != Status.NORMAL:
            continue
        if g.distance(lp.hex, p.hex) <= 1:
            best[lp.hex] = max(best.get(lp.hex, 0), sc.leaders[lid].cv)
    return tuple(sorted(best.values(), reverse=True))


def refuges(sc: Scenario, st: GameState, side: str) -> frozenset[str]:
    """Friendly-controlled town hexes and friendly entry hexes: where retreats and routs head (6.6 A, 6.7 C)."""
    towns = {h for name, owner in st.control if owner == side for h in sc.board.data.towns.get(name, [])}
    entries = set(getattr(sc.board.data.entry_hexes, side))
    if side == Side.COALITION:                     # 11.6.1: A 0801 and B 1901 are French (Klein) entries
        entries -= set(sc.board.data.named_entries.values())
    return frozenset(towns | entries)


_NEAREST: dict[tuple[HexGrid, str, frozenset[str]], int] = {}


def nearest(g: HexGrid, h: str, hexes: frozenset[str]) -> int:
    """Distance from ``h`` to the nearest of ``hexes`` (99 when none), memoised by value."""
    key = (g, h, hexes)
    got = _NEAREST.get(key)
    if got is None:
        if len(_NEAREST) > 100_000:
            _NEAREST.clear()
        got = _NEAREST[key] = min((g.distance(h, t) for t in hexes), default=99)
    return got


def distance_to(sc: Scenario, h: str, targets: frozenset[str]) -> int:
    g = sc.board.grid
    return min((g.distance(h, t) for t in targets), default=99)


_OCCUPIED: dict[tuple[str, GameState, str], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}


def occupied(sc: Scenario, st: GameState, side: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Hexes of live enemy units, of live friendly units, and of those friendly hexes holding two or more
    (leaders left out), for ``side`` in position ``st`` (memoised by value)."""
    key = (sc.key, st, side)
    got = _OCCUPIED.get(key)
    if got is None:
        if len(_OCCUPIED) > 1024:
            _OCCUPIED.clear()
        # one pass for both sides: each side's hexes, and those holding two or more of its units
        hexes: dict[str, set] = {Side.FRENCH: set(), Side.COALITION: set()}
        crowded: dict[str, set] = {Side.FRENCH: set(), Side.COALITION: set()}
        leaders, side_of = sc.leaders, sc.side_of
        for q in st.placed:
            if q.status not in LIVE or q.id in leaders:
                continue
            s_ = side_of[q.id]
            hs = hexes[s_]
            if q.hex in hs:
                crowded[s_].add(q.hex)
            else:
                hs.add(q.hex)
        for sd in (Side.FRENCH, Side.COALITION):
            enemy = frozenset().union(*[hs for k, hs in hexes.items() if k != sd])
            _OCCUPIED[(sc.key, st, sd)] = (enemy, frozenset(hexes[sd]), frozenset(crowded[sd]))
        got = _OCCUPIED[key]
    return got



def acting_side(sc: Scenario, ids: Iterable[str]) -> str:
    sides = {Side.COALITION if i.startswith("gb:") else sc.side(i) for i in ids}
    if len(sides) != 1:
        raise RuleViolation("6.3.7 A", "all acting units must belong to one side")
    return sides.pop()


def occupy(sc: Scenario, st: GameState, hex_: str, side: str) -> GameState:
    """Entering a town hex gives its control to the side, unless the enemy still holds another of its hexes
    (control = friendly-occupied or last to occupy, 6.6 A)."""
    town = sc.board.town_of.get(hex_)
    if town is None or st.controller(town) == side:
        return st
    enemy = other(side)
    if any(occupants(sc, st, h, enemy) for h in sc.board.data.towns[town]):
        return st
    return dc_replace(st, control=tuple(sorted((t, side if t == town else o) for t, o in st.control)))


def leaders_in(sc: Scenario, st: GameState, hex_: str) -> tuple[str, ...]:
    return tuple(p.id for p in st.in_hex(hex_) if p.id in sc.leaders and p.status == Status.NORMAL)

