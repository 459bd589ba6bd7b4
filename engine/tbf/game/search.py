"""6.2 Movement, the search: every hex a unit or leader can reach this Movement Segment and its cheapest path
(6.2.1-6.2.7, the Level 2/3 roll 6.2.3, enemy fronts 6.2.5 A, 4.1.4 road stacking, the dark blue line 9.5.1,
the Strong Point 8.4 A), as one exact search over tables made once per map. The moves themselves, their
checks and the MPs a unit has left are in :mod:`.movement`."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from engine.core import graph
from engine.core.errors import RuleViolation
from engine.core.procedure import Roll

from ..board import Board
from ..scenario import Scenario
from ..steps import Steps
from ..tables import Tables
from .position import current_ma, enemy_front, occupied
from .state import GameState, Piece
from .types import Side, Status

__all__ = ["Reach", "reachable", "min_step_mp", "dark_blue_north", "crosses_dark_blue", "north_hexes", "level_roll",
           "search_rows", "plain_row", "NO_ALT", "forget", "reach_memo_entries"]

#: hex -> (MPs spent, cheapest path), the answer of a movement search (6.2)
Reach = dict[str, tuple[int, tuple[str, ...]]]
#: what one step costs (a step cost of :class:`~engine.tbf.board.Board` without its road flag)
Cost = int | tuple[str, int] | None


def dark_blue_north(sc: Scenario) -> dict[int, int]:
    """9.5.1: for each hex column the dark blue line crosses, the last row number on its north side (the
    line is stored as one (south hex, north hex) hexside per column; the slanted hexsides between two
    columns belong to it too, so a diagonal step cannot slip through between them)."""
    g = sc.board.grid
    out: dict[int, int] = {}
    for south, north in sc.board.data.dark_blue_line:
        c, r = g.parse(north)
        out[c] = max(out.get(c, 0), r)
    return out


_NORTH: dict[str, frozenset[str]] = {}      # board -> the hexes north of its dark blue line (never changes)


def north_hexes(sc: Scenario) -> frozenset[str]:
    """9.5.1: every hex on the north side of the dark blue line (made once per map)."""
    b = sc.board
    got = _NORTH.get(b.key)
    if got is None:
        rows = dark_blue_north(sc)
        g = b.grid
        got = _NORTH[b.key] = frozenset(h for h in b.hexes() if g.parse(h)[0] in rows
                                        and g.parse(h)[1] <= rows[g.parse(h)[0]])
    return got


def crosses_dark_blue(sc: Scenario, here: str, nxt: str, north_rows: dict[int, int] | None = None) -> bool:
    """9.5.1: does the step ``here -> nxt`` go from the south side of the dark blue line to its north side?"""
    north = north_hexes(sc)
    return nxt in north and here not in north


_STEP_TABLES: dict[tuple[str, str, bool], tuple[Board, Tables, _Lazy]] = {}


def _step_table(sc: Scenario, bridge_intact: bool) -> _Lazy:
    """For each hex, its neighbours with what never changes during a game: the step cost on the road and
    off it (6.2.2, 6.2.6-6.2.7), whether the neighbour is on the west edge road (6.2.5 C) or the Strong
    Point (8.4 A). Kept per board, tables and bridge state (the board and tables are loaded once)."""
    key = (sc.board.key, sc.tables.key, bridge_intact)      # by content: equal files share the table
    got = _STEP_TABLES.get(key)
    if got is not None:
        return got[2]
    b, g, t = sc.board, sc.board.grid, sc.tables
    west, strong = set(b.data.west_edge_road), b.data.strong_point

    def row_of(h: str) -> tuple[tuple[str, Cost, bool, Cost, bool, bool], ...]:
        row = []
        for n in g.neighbours(h):
            # (each pair is asked once here, so Board.step_cost's memo is not needed)
            cost, on_road = b.fresh_step_cost(h, n, t, True, bridge_intact)
            off = b.fresh_step_cost(h, n, t, False, bridge_intact)[0] if on_road else cost
            row.append((n, cost, on_road, off, n in west, n == strong))
        return tuple(row)

    table = _Lazy(row_of, frozenset(b.hexes()))
    _STEP_TABLES[key] = (sc.board, sc.tables, table)
    return table


class _Lazy(dict):
    """A table by hex whose rows are made when first asked for (a movement search reaches only part of
    the map; the rows are the same as made all at once). Only the rows made so far are listed."""

    __slots__ = ("make", "hexes", "whole_mps")
    make: Callable[[str], Any]
    hexes: frozenset[str]
    whole_mps: bool

    def __init__(self, make: Callable[[str], Any], hexes: frozenset[str], whole_mps: bool = False) -> None:
        super().__init__()
        self.make, self.hexes, self.whole_mps = make, hexes, whole_mps

    def __missing__(self, h: str) -> Any:
        if h not in self.hexes:
            raise KeyError(h)
        row = self[h] = self.make(h)
        return row


def reachable(sc: Scenario, st: GameState, unit_id: str, level_hexes: dict[int, int] | None = None,
              bridge_intact: bool = False, mp_left: int | None = None) -> Reach:
    """Hexes the unit (or leader) can reach this Movement Segment: hex -> (MPs spent, path).

    MA (fatigued side when fatigued, 4.2.4 B; ``mp_left`` when part of it is spent already); TEC costs and
    roads (6.2.2, 6.2.6); walled road (6.2.7); level 2/3 hexes limited by the Level 2/3 roll and only when
    starting in or next to that level (6.2.3); stop on entering an enemy front (6.2.5 A); no enemy-occupied
    hex (6.2.5 B); Coalition never in 0107-0109 (6.2.5 C); French at-start units stay south of the dark
    blue line until the Alert (9.5.1); road movement never into a friendly-occupied hex (4.1.4).
    Shortest paths by :func:`engine.core.graph.search_parents` over (hex, level 2 hexes used, level 3 hexes used).
    Leaders move like cavalry on the Level 2/3 chart (our reading: they are mounted).
    """
    p = st.piece(unit_id)
    if p.hex is None:
        raise RuleViolation("6.2.1", f"{unit_id} is not on the map")
    if p.status == Status.ROUTED:
        raise RuleViolation("6.7 F", f"{unit_id} is routed: it rout-moves instead (6.7)")
    is_leader = sc.is_leader(unit_id)
    side = sc.side(unit_id)
    level_hexes = level_hexes or {}
    enemy_hexes, friends, crowded = occupied(sc, st, side)
    # leaders ignore friendly units (4.1.4 limits units on roads), so they see none
    friend_hexes = frozenset() if is_leader else (friends if p.hex in crowded else friends - {p.hex})
    front = enemy_front(sc, st, side)
    restricted = (side == Side.FRENCH and "alert" not in st.flags and unit_id in sc.file.setup.french)
    elite_blocks = ("elite" in sc.units and unit_id != "elite" and "strong_point_removed" not in st.flags)
    # The search depends on these values, and on the enemy, friendly and front hexes only where it looked
    # (:func:`_reach_search` says where): a position that agrees with an earlier one on those hexes gets
    # the same answer without searching again (an exact memo, by value). The mover itself enters only by
    # its hex, the MPs it may spend (its MA, 4.2.4 B, or what is left of it, 6.2.1), whether it is a
    # leader, its side and the restrictions above: two movers alike in those share the answer.
    # 6.2.3 B-C: a Level 2/3 allowance counts only for a level found in or next to the start hex (the search
    # never asks for any other), so one left unused there is keyed as none
    near = _start_levels(sc, p.hex)
    levels = tuple(sorted((k, v if k in near else 0) for k, v in level_hexes.items()))
    ma = sc.leaders[unit_id].ma if is_leader else current_ma(sc, p)
    budget = ma if mp_left is None else min(ma, mp_left)
    key = (sc.key, p.hex, budget, is_leader, side, levels, bridge_intact, restricted, elite_blocks and not is_leader)
    seen = _REACH.get(key)
    if seen is not None:
        for looked_e, looked_f, looked_s, sig, out in seen:
            if sig == (enemy_hexes & looked_e, friend_hexes & looked_f, front & looked_s):
                return dict(out)
    else:
        if len(_REACH) > 4096:
            _REACH.clear()
        seen = _REACH[key] = []
    out, looked_e, looked_f, looked_s = _reach_search(sc, p, p.hex, is_leader, side, level_hexes, bridge_intact,
                                                      mp_left, enemy_hexes, friend_hexes, front, restricted,
                                                      elite_blocks)
    seen.insert(0, (looked_e, looked_f, looked_s,
                    (enemy_hexes & looked_e, friend_hexes & looked_f, front & looked_s), out))
    del seen[8:]
    return dict(out)


#: the movers' searches: what decides a search -> its latest answers, each with the hexes it looked at
_REACH: dict[tuple[Any, ...], list[tuple[frozenset[str], frozenset[str], frozenset[str], tuple[frozenset[str], ...],
                                         Reach]]] = {}


_START_LEVELS: dict[tuple[str, str], frozenset[int]] = {}


def _start_levels(sc: Scenario, h: str) -> frozenset[int]:
    """6.2.3 B-C: the levels of hex ``h`` and of its neighbours (the map never changes: kept per board)."""
    key = (sc.board.key, h)
    got = _START_LEVELS.get(key)
    if got is None:
        if len(_START_LEVELS) > 20_000:
            _START_LEVELS.clear()
        board = sc.board
        got = _START_LEVELS[key] = frozenset([board.level(h)] + [board.level(n) for n in board.grid.neighbours(h)])
    return got


NO_ALT = object()          # a road step whose cost off the road is the same (friends there change nothing)


_SEARCH_ROWS: dict[tuple[str, bool, bool, bool, bool], _Lazy] = {}


def search_rows(sc: Scenario, bridge_intact: bool, coalition: bool, elite_blocks: bool, restricted: bool) -> _Lazy:
    """:func:`_step_table` with the steps this mover may never take left out (6.2.5 C: the Coalition off
    the west edge road; 8.4 A: the Strong Point while the Elite holds it; 9.5.1: north across the dark blue
    line before the Alert), each step as ``(next hex, (MPs, level) or None, cost off the road or NO_ALT)``
    (a Level 2/3 step costs no MP, counting against the Level 2/3 roll instead, 6.2.3 A)."""
    key = (sc.key, bridge_intact, coalition, elite_blocks, restricted)
    got = _SEARCH_ROWS.get(key)
    if got is not None:
        return got

    def norm(cost):
        if cost is None:
            return None
        return (0, cost[1]) if isinstance(cost, tuple) else (cost, 0)

    north = north_hexes(sc) if restricted else frozenset()
    static = _step_table(sc, bridge_intact)

    def row_of(here):
        steps = []
        for nxt, cost, on_road, off_road, west, strong in static[here]:
            if coalition and west:
                continue                                              # 6.2.5 C
            if elite_blocks and strong:
                continue                                              # 8.4 A
            if restricted and nxt in north and here not in north:
                continue                                              # 9.5.1 (crosses_dark_blue)
            alt = norm(off_road) if on_road and off_road != cost else NO_ALT
            steps.append((nxt, norm(cost), alt))
        return tuple(steps)

    table = _Lazy(row_of, static.hexes, whole_mps=_whole_mps(sc.tables))
    _SEARCH_ROWS[key] = table
    _SEARCH_PLAIN[key] = _Lazy(lambda h: plain_row(table[h]), static.hexes)
    return table


_SEARCH_PLAIN: dict[tuple[str, bool, bool, bool, bool], _Lazy] = {}


def plain_row(steps: tuple[Any, ...]) -> tuple[frozenset[str], tuple[Any, ...], tuple[tuple[str, int], ...]] | None:
    """A row of :func:`_search_rows` whose every step is an ordinary one (a whole MP price, no Level 2/3
    hex, the same price on and off the road): (its next hexes, its steps as ``((hex, 0, 0), MPs)`` in the
    row's order, its steps as ``(hex, MPs)``); None for any other row. The search takes the made-up
    steps as they are when no enemy stands next to the hex and no Level 2/3 hex has been used yet."""
    plain = []
    for nxt, step, alt in steps:
        if step is None:
            continue                                                  # (never entered: left out)
        if alt is not NO_ALT or step[1]:
            return None
        plain.append((nxt, step[0]))
    return (frozenset(r[0] for r in steps), tuple(((n, 0, 0), mp) for n, mp in plain), tuple(plain))


def _whole_mps(t: Tables) -> bool:
    """Whether every MP cost a step can have (the road's, each terrain's: 6.2.2, 6.2.6) is a whole number."""
    return type(t.terrain.road_mp) is int and all(x.mp is None or type(x.mp) is int for x in t.terrain.terrain.values())


def _reach_search(sc: Scenario, p: Piece, here: str, is_leader: bool, side: str, level_hexes: dict[int, int],
                  bridge_intact: bool, mp_left: int | None, enemy_hexes: frozenset[str], friend_hexes: frozenset[str],
                  front: frozenset[str], restricted: bool, elite_blocks: bool
                  ) -> tuple[Reach, frozenset[str], frozenset[str], frozenset[str]]:
    """The cheapest-path search behind :func:`reachable`, from the values it depends on: its answer, and
    the hexes it asked about: whether enemy-occupied (every neighbour of a hex it reached), whether
    friendly-occupied (the road neighbours), whether in an enemy front (the hexes it reached). ``here``: the
    mover's hex."""
    start_levels = _start_levels(sc, here)
    ma = sc.leaders[p.id].ma if is_leader else current_ma(sc, p)
    if mp_left is not None:
        ma = min(ma, mp_left)
    rows = search_rows(sc, bridge_intact, side == Side.COALITION, elite_blocks and not is_leader, restricted)
    plain_rows = _SEARCH_PLAIN[(sc.key, bridge_intact, side == Side.COALITION, elite_blocks and not is_leader, restricted)]
    lvl2, lvl3 = level_hexes.get(2, 0), level_hexes.get(3, 0)
    no_alt = NO_ALT
    free = enemy_hexes.isdisjoint

    def successors(place, _spent):
        here, l2, l3 = place
        plain = plain_rows[here]
        if plain is not None:               # the same steps as the loop below, in the same order
            if not l2 and not l3 and free(plain[0]):
                return plain[1]
            return [((nxt, l2, l3), mp) for nxt, mp in plain[2] if nxt not in enemy_hexes]
        out = []
        for nxt, step, alt in rows[here]:
            if nxt in enemy_hexes:
                continue                                              # 6.2.5 B
            if alt is not no_alt and nxt in friend_hexes:
                step = alt                                            # 4.1.4: no road into friends
            if step is None:
                continue
            mp, lvl = step
            if lvl:
                if lvl not in start_levels:
                    continue                                          # 6.2.3 B-C
                if lvl == 2:
                    if l2 >= lvl2:
                        continue                                      # 6.2.3 A
                    out.append(((nxt, l2 + 1, l3), 0))
                else:
                    if l3 >= lvl3:
                        continue                                      # 6.2.3 A
                    out.append(((nxt, l2, l3 + 1), 0))
            else:
                out.append(((nxt, l2, l3), mp))
        return out

    # No Level 2/3 hex can be entered at all (none at or next to the start, or none allowed by the roll,
    # 6.2.3 A-C): every state is (hex, 0, 0), so the search runs on the hexes themselves, the same states
    # in the same order with the same costs, parents and ties (the steps below are those of
    # ``successors`` with the level steps, never taken, left out)
    flat = (2 not in start_levels or lvl2 <= 0) and (3 not in start_levels or lvl3 <= 0)

    def flat_successors(here, spent):
        plain = plain_rows[here]
        if plain is not None:
            if free(plain[0]):
                return plain[2]
            return [step for step in plain[2] if step[0] not in enemy_hexes]      # 6.2.5 B, as above
        # the step rules are those of ``successors`` (one loop): from (hex, 0, 0) they can only lead to
        # (hex, 0, 0) states here, the Level 2/3 steps being closed
        return [(nxt[0], mp) for nxt, mp in successors((here, 0, 0), spent)]

    start: Hashable
    step_fn: Callable[[Any, int], Iterable[tuple[Hashable, int]]]
    halts: Callable[[Any], bool]
    if flat:
        start, step_fn, halts = here, flat_successors, front.__contains__        # 6.2.5 A: must stop
    else:
        start, step_fn, halts = (here, 0, 0), successors, (lambda place: place[0] in front)
    best: Mapping[Any, tuple[float, Hashable]]
    if type(ma) is int and ma >= 0 and rows.whole_mps:
        best = graph.search_parents_whole(start, step_fn, ma, halts)
    else:
        best = graph.search_parents(((start, 0),), step_fn, ma, halts=halts)
    paths: dict = {None: ()}                    # state -> the hexes of its path (prefixes shared)
    out: dict[str, tuple[int, tuple[str, ...]]] = {}
    if flat:
        for h, (cost, parent) in best.items():
            if h in paths:                      # (met already as the parent of a hex before it)
                out[h] = (int(cost), paths[h])
                continue
            chain, cur = [h], parent
            while cur not in paths:             # up the parents to a hex whose path is known
                chain.append(cur)
                cur = best[cur][1]
            path = paths[cur]
            for x in reversed(chain):
                path = paths[x] = path + (x,)
            out[h] = (int(cost), path)
    else:
        cheapest: dict[str, tuple] = {}         # hex -> its cheapest state (ties: the first reached)
        for place, (cost, _) in best.items():
            h = place[0]
            got = cheapest.get(h)
            if got is None or cost < got[0]:
                cheapest[h] = (cost, place)
        for h, (cost, place) in cheapest.items():
            chain, cur = [], place
            while cur not in paths:             # up the parents to a state whose path is known
                chain.append(cur)
                cur = best[cur][1]
            path = paths[cur]
            for st in reversed(chain):
                path = paths[st] = path + (st[0],)
            out[h] = (int(cost), paths[place])
    reached = frozenset(out)
    around, roads = _around(sc, bridge_intact)
    looked_e = frozenset().union(*[around[h] for h in reached])
    # a friend matters only on a road step whose cost off the road differs (4.1.4)
    looked_f = frozenset().union(*[roads[h] for h in reached]) if not is_leader else frozenset()
    return out, looked_e, looked_f, reached


_MIN_STEP: dict[tuple[str, bool], int] = {}


def min_step_mp(sc: Scenario, bridge_intact: bool = False) -> int:
    """At most the fewest MPs any step into a hex of Level 0/1 costs with these tables: a step costs the
    road's MPs or the entered terrain's (6.2.2, 6.2.6; a Level 2/3 hex counts against the Level 2/3 roll
    instead, 6.2.3 A). 0 when some step may be free."""
    key = (sc.tables.key, bridge_intact)
    got = _MIN_STEP.get(key)
    if got is None:
        t = sc.tables.terrain
        costs = [t.road_mp] + [x.mp for x in t.terrain.values() if x.mp is not None]
        got = _MIN_STEP[key] = max(0, min(costs))
    return got


_AROUND: dict[tuple[str, bool], tuple[_Lazy, _Lazy]] = {}


def _around(sc: Scenario, bridge_intact: bool) -> tuple[_Lazy, _Lazy]:
    """For each hex: its neighbours, and those entered by a road step whose cost off the road differs."""
    key = (sc.key, bridge_intact)
    got = _AROUND.get(key)
    if got is None:
        static = _step_table(sc, bridge_intact)
        got = _AROUND[key] = (_Lazy(lambda h: frozenset(r[0] for r in static[h]), static.hexes),
                              _Lazy(lambda h: frozenset(r[0] for r in static[h] if r[2] and r[3] != r[1]), static.hexes))
    return got


def level_roll(sc: Scenario, kind: str) -> Steps[tuple[int, int]]:
    """6.2.3 A: the Level 2/3 Movement Chart roll at the start of a Movement Segment."""
    r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
    ch = sc.tables.levels
    return (getattr(ch.level2[r], kind), getattr(ch.level3[r], kind))



def forget() -> None:
    """Empty the search's memos (the answers are the same afterwards, only worked out again)."""
    _REACH.clear()
    _SEARCH_ROWS.clear()
    _SEARCH_PLAIN.clear()


def reach_memo_entries() -> int:
    """How many movers' searches the reach memo holds (movers alike in what decides share one)."""
    return len(_REACH)
