"""Who stands where, and zones of control (6.3 enemy hexes, 6.9 stacking, 7.0 ZOCs per edition, 7.6 /
14.0 at night, 9.4.4 garrisons, 9.2.2 combat adjacency): what movement, combat and the bots read of a
position. Everything here reads a :class:`~engine.n20.game.state.GameState` (or a board) and returns
values, memoised beside the state (:mod:`.memo`) or per immutable board; nothing changes a state.
"""
from __future__ import annotations

from functools import lru_cache

from ..board import Board
from .memo import memo
from .state import GameState, other

__all__ = ["on_map_units", "stackers", "exerts_zoc", "zoc_sources", "enemy_zoc", "in_enemy_zoc", "enemy_hexes",
           "friendly_hexes", "combat_adjacent", "neighbours_map", "neighbour_sets", "neighbour_set", "adjacent",
           "distance"]


def on_map_units(state: GameState, side: str | None = None) -> tuple:
    """The units on the map (of ``side``), in the state's order; memoised beside the state."""
    return memo(state, ("on_map", side), lambda: _on_map_units(state, side))


def _on_map_units(state: GameState, side: str | None) -> tuple:
    if side is None:
        return tuple([u for u in state.units if u.status == "map"])
    side_of = _sides_of(state.scenario)
    return tuple([u for u in state.units if u.status == "map" and side_of[u.id] == side])


@lru_cache(maxsize=64)
def stackers(sc, side: str) -> frozenset:
    """The ids of ``side``'s units that count for stacking (6.9; leaders are stack-free, 16.9.2), per
    scenario (immutable, compared by identity)."""
    return frozenset(uid for uid, d in sc.units.items() if d.side == side and d.type != "leader")


@lru_cache(maxsize=32)
def _sides_of(sc) -> dict:
    """unit id -> its side, per scenario (scenarios are immutable, compared by identity)."""
    return {uid: d.side for uid, d in sc.units.items()}


def exerts_zoc(state: GameState, u) -> bool:
    """7.0: every unit exerts a ZOC, except leaders (16.9), Routed! units (9.6.3), squares (17.1),
    stragglers (16.7.5); in the older edition nobody has one at night (7.6 of 001, 14.0)."""
    d = state.scenario.units[u.id]
    if d.type == "leader":
        return False
    if u.routed and state.scenario.tables.rules.routed_markers:
        return False
    if u.square or d.has("straggler"):
        return False
    return True


def _night_no_zoc(state: GameState) -> bool:
    return state.night and state.scenario.tables.rules.night_zoc == "none"


def zoc_sources(state: GameState, side: str) -> frozenset[str]:
    """Hexes from which ``side`` projects a ZOC: its ZOC-exerting units, and its garrisons whose hex
    no unit of its own occupies (9.4.4)."""
    if _night_no_zoc(state):
        return frozenset()
    return _zoc_sources(state, side)


def _zoc_sources(state: GameState, side: str) -> frozenset[str]:
    return memo(state, ("zs", side), lambda: _compute_zoc_sources(state, side))


def _compute_zoc_sources(state: GameState, side: str) -> frozenset[str]:
    out = {u.hex for u in on_map_units(state, side) if exerts_zoc(state, u)}
    sc = state.scenario
    occupied = set(state.occupants)
    for g in sc.board.garrisons.values():
        if g.side == side and g.hex not in occupied and not state.garrison_gone:
            out.add(g.hex)
    return frozenset(out)


def enemy_zoc(state: GameState, side: str) -> frozenset[str]:
    """Hexes in the ZOC of ``side``'s enemies (7.0), memoised beside the state (:mod:`.memo`)."""
    return memo(state, ("ez", side), lambda: _compute_enemy_zoc(state, side))


def _compute_enemy_zoc(state: GameState, side: str) -> frozenset[str]:
    return _zoc_union(state.board, zoc_sources(state, other(side)))


@lru_cache(maxsize=256)
def _zoc_union(board: Board, sources: frozenset) -> frozenset[str]:
    # keyed by value (the board and the ZOC sources): every state of a phase in which the other side does
    # not move shares it
    out: set[str] = set()
    for h in sources:
        out |= board.zoc_of(h)
    return frozenset(out)


class _BoardIndex:
    """What the rules look up again and again on one board (boards are immutable): on-map neighbours and
    cube coordinates made at once; combat adjacency filled in as it is asked (a value once stored never
    changes, so threads sharing it at worst compute one twice)."""

    __slots__ = ("nbrs", "nbr_sets", "cubes", "combat")

    def __init__(self, board: Board):
        self.nbrs = {h: tuple(board.neighbours(h)) for h in board.hexes}
        self.nbr_sets = {h: frozenset(n) for h, n in self.nbrs.items()}
        self.cubes = {h: board.grid.to_cube(h) for h in board.hexes}
        self.combat: dict = {}


def _index(board: Board) -> _BoardIndex:
    # what it holds does not depend on terrain, so a board with Fieldworks (Fuentes 14.2) shares its map's
    return _base_index(board.base)


@lru_cache(maxsize=64)
def _base_index(board: Board) -> _BoardIndex:
    return _BoardIndex(board)


def neighbours_map(board: Board) -> dict:
    """hex -> tuple of on-map neighbours, computed once per (immutable) board."""
    return _index(board).nbrs


def neighbour_sets(board: Board) -> dict:
    """hex -> frozenset of its on-map neighbours, computed once per (immutable) board."""
    return _index(board).nbr_sets


def neighbour_set(board: Board, h: str) -> frozenset[str]:
    return _index(board).nbr_sets[h]


def adjacent(board: Board, a: str, b: str) -> bool:
    return b in _index(board).nbr_sets[a]


def distance(board: Board, a: str, b: str) -> int:
    """Hex distance, with the label parsing done once per board (boards are immutable)."""
    cubes = _index(board).cubes
    qa, ra, sa = cubes[a]
    qb, rb, sb = cubes[b]
    return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))


def _combat_adjacent(board: Board, a: str, b: str, bridge: bool) -> bool:
    c = _index(board).combat
    key = (a, b, bridge)
    out = c.get(key)
    if out is None:
        out = c[key] = board.adjacent_for_combat(a, b, bridge)
    return out


def in_enemy_zoc(state: GameState, uid: str) -> bool:
    u = state.unit(uid)
    side = state.scenario.units[uid].side
    return u.status == "map" and u.hex in enemy_zoc(state, side)


def enemy_hexes(state: GameState, side: str) -> frozenset[str]:
    """Hexes a unit of ``side`` may not enter (6.3): enemy units, and enemy garrisons (9.4.4)."""
    return memo(state, ("eh", side), lambda: _compute_enemy_hexes(state, side))


def _compute_enemy_hexes(state: GameState, side: str) -> frozenset[str]:
    out = {u.hex for u in on_map_units(state, other(side))}
    if not state.garrison_gone:
        for g in state.board.garrisons.values():
            if g.side != side:
                out.add(g.hex)
    return frozenset(out)


def friendly_hexes(state: GameState, side: str, exclude: str | None = None, stacking_only: bool = True) -> frozenset:
    """Hexes holding a unit of ``side`` that counts for stacking (6.9; leaders are stack-free, 16.9.2)."""
    counts = memo(state, ("friend_counts", side, stacking_only),
                  lambda: _friend_counts(state, side, stacking_only))
    everyone = memo(state, ("friend_hexes", side, stacking_only), lambda: frozenset(counts))
    if exclude is None:
        return everyone
    u = state.by_id.get(exclude)
    # the hexes of the others: the excluded unit's own hex goes only when it is counted and alone there
    if u is None or u.status != "map" or counts.get(u.hex) != 1 or state.scenario.units[exclude].side != side \
            or (stacking_only and state.scenario.units[exclude].type == "leader"):
        return everyone
    return everyone - {u.hex}


def _friend_counts(state: GameState, side: str, stacking_only: bool) -> dict:
    """hex -> how many units of ``side`` there count for stacking (all of them if not ``stacking_only``)."""
    sc = state.scenario
    out: dict = {}
    for u in on_map_units(state, side):
        if not stacking_only or sc.units[u.id].type != "leader":
            out[u.hex] = out.get(u.hex, 0) + 1
    return out


def combat_adjacent(state: GameState, a: str, b: str) -> bool:
    """Can units in ``a`` and ``b`` fight each other (9.2.2)? Across an unbridged, unforded Major River no
    (7.0; only bombardment, 16.3.2); across a bridge or ford per ``major_river_bridge_adjacent`` of
    data/n20/parameters.yaml, the one reading the battle files use too (v3: yes, read from 9.4.2's
    example, 9.4.3 and the 12.2 example; ZOCs still stop at the river, so nobody is obliged to attack)."""
    board = state.board
    ns = _index(board).nbr_sets.get(a)
    if ns is not None and b not in ns:
        return False                    # not even next to each other on the grid
    return _combat_adjacent(board, a, b, state.scenario.tables.rules.major_river_bridge_adjacent)
