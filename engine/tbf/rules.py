"""Game rules over a scenario and a game state: facing and command (4.2.2 C, 4.3, 6.1), stacking (4.1),
movement (6.2), retreat (6.6), rout (6.7), recovery (7.0), initiative (3.2), reinforcement rolls
(5.3, 9.2, 9.5.2, 9.6.2, 11.x) and victory (10.0). Random ones are procedures (generators)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import compress
from operator import is_not

from engine.core.errors import RuleViolation
from engine.core.procedure import Chance, Choose, Log, Roll, Sub

from .board import frontal_hexes
from .fatigue import CheckSpec, check_sub
from .scenario import GameState, Piece, Scenario

__all__ = ["frontal", "enemy_front", "occupants", "leader_cvs", "stacking_problem", "activation_plan",
           "reachable", "retreat_options", "retreat", "rout_path", "RoutPath", "recovery", "initiative",
           "dupont_arrival", "second_group_delay", "column_muster", "mortier_alert", "regroup", "victory",
           "refuges", "current_fv", "current_ma", "ammo_shortage", "optional_arrival", "releases",
           "activation_allowed", "entry_mp", "OPTIONS", "victory_with_options", "level_roll", "factors",
           "regroup_hexes", "ELITE_PARENTS", "road_blocked", "column_iv_release", "leaderless_activation",
           "cavalry_retreat_before_combat", "muster_hexes", "setup_problems", "dark_blue_north", "crosses_dark_blue",
           "min_step_mp", "stacking_problem_with"]

LIVE = ("normal", "fatigued", "routed")


# ---------------------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------------------
def occupants(sc: Scenario, st: GameState, hex_: str, side: str | None = None, units_only: bool = True) -> list[Piece]:
    out = []
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
    return u.fv if p.status == "normal" else u.fv_f


def current_ma(sc: Scenario, p: Piece) -> int:
    u = sc.units[p.id]
    return u.ma if p.status == "normal" else u.ma_f      # 4.2.4 B


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
        got = memo[key] = _enemy_front(sc, st, side)
    return got


def _enemy_front(sc: Scenario, st: GameState, side: str) -> frozenset[str]:
    """The union of the enemy units' fronts, counted hex by hex: worked out from the last position asked
    about for this side, where only the pieces that differ from it (a move, a facing, a status) change the
    counts; afresh when none was asked yet, when the Strong Point's state differs (8.4 B-C) or when many
    pieces changed. The last answer is replaced whole, never written in place."""
    fronts = _FRONTS.get(sc.key)
    if fronts is None or len(fronts) > 20_000:
        fronts = _FRONTS[sc.key] = {}
    kept = "strong_point_removed" not in st.flags
    on = st._on_map
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
    counts: dict[str, int] = {}
    for p in st._on_map:
        for h in _piece_front(sc, fronts, p, side, kept):
            counts[h] = counts.get(h, 0) + 1
    front = frozenset(counts)
    _FRONT_LAST[key] = (on, kept, counts, front)
    return front


_NO_FRONT: frozenset = frozenset()
_FRONT_LAST: dict = {}      # (scenario, side) -> (pieces on the map, Strong Point kept, hex -> fronts on it, union)


def _piece_front(sc: Scenario, fronts: dict, p, side: str, kept: bool) -> frozenset:
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


_FRONTS: dict = {}          # scenario -> (piece, all round) -> the hexes in its front (4.3 C)


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
        if lp.hex is None or lp.status != "normal":
            continue
        if g.distance(lp.hex, p.hex) <= 1:
            best[lp.hex] = max(best.get(lp.hex, 0), sc.leaders[lid].cv)
    return tuple(sorted(best.values(), reverse=True))


_STACKS: dict = {}
_NOT_YET = object()


def stacking_problem(sc: Scenario, st: GameState, hex_: str) -> str | None:
    """What breaks the stacking limits in the hex (4.1.1-4.1.6), or None. It depends on the hex and the
    pieces in it only: kept by those (values), so each crowd of pieces is judged once."""
    here = st.in_hex(hex_)
    if len(here) <= 1:
        return None                                                          # one unit stacks anywhere
    return _stacking_of(sc, hex_, here)


def stacking_problem_with(sc: Scenario, st: GameState, hex_: str, pid: str) -> str | None:
    """:func:`stacking_problem` of ``hex_`` once the unit ``pid`` (elsewhere now) has entered it, asked
    without making that position."""
    here = st.in_hex(hex_)
    if not here:
        return None
    return _stacking_of(sc, hex_, here + (st.piece(pid),))


def _stacking_of(sc: Scenario, hex_: str, pieces: tuple) -> str | None:
    key = (sc.key, hex_, pieces)
    got = _STACKS.get(key, _NOT_YET)
    if got is _NOT_YET:
        if len(_STACKS) > 50_000:
            _STACKS.clear()
        got = _STACKS[key] = _stacking_problem(sc, hex_, pieces)
    return got


def _stacking_problem(sc: Scenario, hex_: str, pieces: tuple) -> str | None:
    """(The pieces' ids and states decide; where each piece is listed does not.)"""
    leaders = sc.leaders
    units = [sc.units[p.id] for p in pieces if p.status in LIVE and p.id not in leaders]      # as occupants()
    if len(units) <= 1:
        return None
    regs = {u.regiment for u in units if u.kind != "artillery"}
    if len(regs) == 1 and all(u.kind != "artillery" for u in units):
        return None                                                          # 4.1.2
    if hex_ in sc.board.data.grand_battery and any(u.side == "coalition" for u in units):
        return "4.1.6: one Coalition unit in a Grand Battery hex"
    kinds = [u.kind for u in units]
    if "cavalry" in kinds:
        if any(k == "artillery" for k in kinds):
            return "4.1.5: cavalry may not stack with non-horse artillery"
        return "4.1.1 A: a cavalry regiment stacks alone"
    inf, art = kinds.count("infantry"), kinds.count("artillery")
    if art == len(kinds) and art <= 2:
        return None                                                          # 4.1.1 B
    if inf <= 2 and art == 0:
        return None
    if inf == 1 and art == 1:
        return None
    return f"4.1.1 A: {inf} infantry and {art} artillery units exceed the limit"


def refuges(sc: Scenario, st: GameState, side: str) -> frozenset[str]:
    """Friendly-controlled town hexes and friendly entry hexes: where retreats and routs head (6.6 A, 6.7 C)."""
    towns = {h for name, owner in st.control if owner == side for h in sc.board.data.towns.get(name, [])}
    entries = set(getattr(sc.board.data.entry_hexes, side))
    if side == "coalition":                     # 11.6.1: A 0801 and B 1901 are French (Klein) entries
        entries -= set(sc.board.data.named_entries.values())
    return frozenset(towns | entries)


_NEAREST: dict = {}


def _nearest(g, h: str, hexes: frozenset) -> int:
    """Distance from ``h`` to the nearest of ``hexes`` (99 when none), memoised by value."""
    key = (g, h, hexes)
    got = _NEAREST.get(key)
    if got is None:
        if len(_NEAREST) > 100_000:
            _NEAREST.clear()
        got = _NEAREST[key] = min((g.distance(h, t) for t in hexes), default=99)
    return got


def _dist_to(sc: Scenario, h: str, targets: frozenset[str]) -> int:
    g = sc.board.grid
    return min((g.distance(h, t) for t in targets), default=99)


# ---------------------------------------------------------------------------------------------------
# 6.1 Activation
# ---------------------------------------------------------------------------------------------------
def activation_plan(sc: Scenario, st: GameState, leader_id: str) -> dict:
    """Which leaders and units a leader's activation reaches (6.1.1-6.1.3), and which units of his
    command are out of range and would need an Out of Command Fatigue Check (6.1.3 C)."""
    if leader_id not in sc.leaders:
        raise RuleViolation("6.1 B", f"{leader_id!r} is not a leader")
    lp = st.piece(leader_id)
    if lp.hex is None or lp.status != "normal":
        raise RuleViolation("6.1 B", f"{leader_id} is not on the map")
    if lp.activated:
        raise RuleViolation("6.1.3 E", f"{leader_id} has already activated this turn")
    key = (sc.key, st, leader_id)
    got = _PLANS.get(key)
    if got is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        got = _PLANS[key] = _activation_plan(sc, st, leader_id)
    leaders, in_cmd, out_cmd, extra = got
    return {"leader": leader_id, "leaders": list(leaders), "units": list(in_cmd), "out_of_command": list(out_cmd),
            "extra_units_allowed": sc.leaders[leader_id].cv, "extra_candidates": list(extra), "rule": "6.1.1-6.1.3"}


_PLANS: dict = {}           # (scenario, position, leader) -> his plan, as tuples (the answer's lists are copies)


def _activation_plan(sc: Scenario, st: GameState, leader_id: str) -> tuple:
    g = sc.board.grid
    lp = st.piece(leader_id)
    ldr = sc.leaders[leader_id]
    from .turn import turn_data
    td = turn_data()
    reach_leader = td.command_reach.leaders                     # 6.1.1 B-C, 6.1.2 A-B
    subs, owns = _command_tables(sc)
    leaders = [leader_id]
    frontier = [leader_id]
    while frontier:
        cur = frontier.pop()
        r = reach_leader[sc.leaders[cur].rank]
        for sub in subs.get(cur, ()):
            if sub not in leaders:
                sp = st.piece(sub)
                if sp.hex and sp.status == "normal" and not sp.activated and g.distance(sp.hex, st.piece(cur).hex) <= r:
                    leaders.append(sub)
                    frontier.append(sub)
    # each unit of his side that one of these leaders commands, in or out of that leader's reach
    ok: dict[str, bool] = {}
    units = sc.units
    for x in leaders:
        xh = st.piece(x).hex
        for uid, rng in owns[x]:
            if ok.get(uid):
                continue
            p = st.piece(uid)
            if p.hex is None or p.status not in LIVE or p.activated or units[uid].side != ldr.side:
                continue
            ok[uid] = g.distance(xh, p.hex) <= rng
    in_cmd = sorted(u for u, v in ok.items() if v)
    out_cmd = sorted(u for u, v in ok.items() if not v)
    reach = td.extra_units_reach.hexes
    extra = sorted(p.id for p in st._on_map if p.id in units and units[p.id].side == ldr.side and p.id not in ok
                   and p.status in LIVE and not p.activated and g.distance(p.hex, lp.hex) <= reach)   # 6.1.3 A
    return tuple(leaders), tuple(in_cmd), tuple(out_cmd), tuple(extra)


_COMMAND_TABLES: dict = {}


def _command_tables(sc: Scenario) -> tuple[dict, dict]:
    """From the order of battle alone (made once per scenario): each leader's direct subordinates (6.1.1
    B-C, 6.1.2), in the order of battle's order, and the units each leader commands with the reach he
    commands them at: (unit, hexes), 6.1.1 A, 6.1.2 A."""
    got = _COMMAND_TABLES.get(sc.key)
    if got is None:
        from .turn import turn_data
        reach_units = turn_data().command_reach.units
        subs: dict[str, list] = {}
        for x in sc.leaders.values():
            if x.superior:
                subs.setdefault(x.superior, []).append(x.id)
        owns: dict[str, list] = {}
        for x in sc.leaders.values():
            mine = []
            for uid, u in sc.units.items():
                if (x.command == u.command
                        or (x.rank == "division" and x.command == u.command.split("-")[0])
                        # 6.1.1 D: a division's own (black-factor) units answer to any leader of that division
                        or ("-" not in u.command and x.command.split("-")[0] == u.command and x.side == "french")
                        # 9.2 I: Column VI is directly under Kutusov (a column leader's 4-hex reach, 6.1.2 A)
                        or (u.command == "VI" and x.rank == "army")):
                    mine.append((uid, reach_units["column"] if (u.command == "VI" and x.rank == "army")
                                 else reach_units[x.rank]))
            owns[x.id] = tuple(mine)
        got = _COMMAND_TABLES[sc.key] = ({k: tuple(v) for k, v in subs.items()}, owns)
    return got


def leaderless_activation(sc: Scenario, st: GameState, command: str, designated: str) -> dict:
    """6.1.4: a command whose leaders are all gone activates around one designated unit: its units in or
    next to that unit's hex are in command, the others must pass the 6.1.3 C check."""
    if any(x.command == command and st.piece(x.id).status == "normal" and st.piece(x.id).hex
           for x in sc.leaders.values()):
        raise RuleViolation("6.1.4", f"command {command} still has a leader on the map")
    d = st.piece(designated)
    if designated not in sc.units or sc.units[designated].command != command or d.hex is None:
        raise RuleViolation("6.1.4 A", f"{designated} is not a unit of command {command} on the map")
    g = sc.board.grid
    inside, outside = [], []
    for uid, u in sc.units.items():
        p = st.piece(uid)
        if u.command != command or p.hex is None or p.status not in LIVE or p.activated:
            continue
        (inside if g.distance(p.hex, d.hex) <= 1 else outside).append(uid)
    return {"command": command, "designated": designated, "units": sorted(inside), "out_of_command": sorted(outside),
            "rule": "6.1.4 A"}


# ---------------------------------------------------------------------------------------------------
# 6.2 Movement
# ---------------------------------------------------------------------------------------------------
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


def _north_hexes(sc: Scenario) -> frozenset[str]:
    b = sc.board
    got = getattr(b, "_dark_blue_north_hexes", None)
    if got is None:
        rows = dark_blue_north(sc)
        g = b.grid
        got = frozenset(h for h in b.hexes() if g.parse(h)[0] in rows and g.parse(h)[1] <= rows[g.parse(h)[0]])
        b._dark_blue_north_hexes = got          # the board is loaded once and never changes
    return got


def crosses_dark_blue(sc: Scenario, here: str, nxt: str, north_rows: dict[int, int] | None = None) -> bool:
    """9.5.1: does the step ``here -> nxt`` go from the south side of the dark blue line to its north side?"""
    north = _north_hexes(sc)
    return nxt in north and here not in north


_STEP_TABLES: dict = {}


def _step_table(sc: Scenario, bridge_intact: bool) -> dict:
    """For each hex, its neighbours with what never changes during a game: the step cost on the road and
    off it (6.2.2, 6.2.6-6.2.7), whether the neighbour is on the west edge road (6.2.5 C) or the Strong
    Point (8.4 A). Kept per board, tables and bridge state (the board and tables are loaded once)."""
    key = (sc.board.key, sc.tables.key, bridge_intact)      # by content: equal files share the table
    got = _STEP_TABLES.get(key)
    if got is not None:
        return got[2]
    b, g, t = sc.board, sc.board.grid, sc.tables
    west, strong = set(b.data.west_edge_road), b.data.strong_point

    def row_of(h):
        row = []
        for n in g.neighbours(h):
            # (Board._step_cost itself: each pair is asked once here, so Board.step_cost's memo is not needed)
            cost, on_road = b._step_cost(h, n, t, True, bridge_intact)
            off = b._step_cost(h, n, t, False, bridge_intact)[0] if on_road else cost
            row.append((n, cost, on_road, off, n in west, n == strong))
        return tuple(row)

    table = _Lazy(row_of, frozenset(b.hexes()))
    _STEP_TABLES[key] = (sc.board, sc.tables, table)
    return table


class _Lazy(dict):
    """A table by hex whose rows are made when first asked for (a movement search reaches only part of
    the map; the rows are the same as made all at once). Only the rows made so far are listed."""

    __slots__ = ("make", "hexes", "whole_mps")

    def __init__(self, make, hexes: frozenset, whole_mps: bool = False):
        super().__init__()
        self.make, self.hexes, self.whole_mps = make, hexes, whole_mps

    def __missing__(self, h):
        if h not in self.hexes:
            raise KeyError(h)
        row = self[h] = self.make(h)
        return row


def reachable(sc: Scenario, st: GameState, unit_id: str, level_hexes: dict[int, int] | None = None,
              bridge_intact: bool = False, mp_left: int | None = None) -> dict[str, tuple[int, tuple[str, ...]]]:
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
    if p.status == "routed":
        raise RuleViolation("6.7 F", f"{unit_id} is routed: it rout-moves instead (6.7)")
    is_leader = sc.is_leader(unit_id)
    side = sc.side(unit_id)
    level_hexes = level_hexes or {}
    enemy_hexes, friends, crowded = _occupied(sc, st, side)
    # leaders ignore friendly units (4.1.4 limits units on roads), so they see none
    friend_hexes = frozenset() if is_leader else (friends if p.hex in crowded else friends - {p.hex})
    front = enemy_front(sc, st, side)
    restricted = (side == "french" and "alert" not in st.flags and unit_id in sc.file.setup.french)
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
    out, looked_e, looked_f, looked_s = _reach_search(sc, p, is_leader, side, level_hexes, bridge_intact, mp_left,
                                                      enemy_hexes, friend_hexes, front, restricted, elite_blocks)
    seen.insert(0, (looked_e, looked_f, looked_s,
                    (enemy_hexes & looked_e, friend_hexes & looked_f, front & looked_s), out))
    del seen[8:]
    return dict(out)


_REACH: dict = {}
_OCCUPIED: dict = {}
_START_LEVELS: dict = {}


def _start_levels(sc: Scenario, h: str) -> frozenset:
    """6.2.3 B-C: the levels of hex ``h`` and of its neighbours (the map never changes: kept per board)."""
    key = (sc.board.key, h)
    got = _START_LEVELS.get(key)
    if got is None:
        if len(_START_LEVELS) > 20_000:
            _START_LEVELS.clear()
        board = sc.board
        got = _START_LEVELS[key] = frozenset([board.level(h)] + [board.level(n) for n in board.grid.neighbours(h)])
    return got


def _occupied(sc: Scenario, st: GameState, side: str) -> tuple[frozenset, frozenset, frozenset]:
    """Hexes of live enemy units, of live friendly units, and of those friendly hexes holding two or more
    (leaders left out), for ``side`` in position ``st`` (memoised by value)."""
    key = (sc.key, st, side)
    got = _OCCUPIED.get(key)
    if got is None:
        if len(_OCCUPIED) > 1024:
            _OCCUPIED.clear()
        # one pass for both sides: each side's hexes, and those holding two or more of its units
        hexes: dict[str, set] = {"french": set(), "coalition": set()}
        crowded: dict[str, set] = {"french": set(), "coalition": set()}
        leaders, side_of = sc.leaders, sc.side_of
        for q in st._on_map:
            if q.status not in LIVE or q.id in leaders:
                continue
            s_ = side_of[q.id]
            hs = hexes[s_]
            if q.hex in hs:
                crowded[s_].add(q.hex)
            else:
                hs.add(q.hex)
        for s_ in ("french", "coalition"):
            enemy = frozenset().union(*[hs for k, hs in hexes.items() if k != s_])
            _OCCUPIED[(sc.key, st, s_)] = (enemy, frozenset(hexes[s_]), frozenset(crowded[s_]))
        got = _OCCUPIED[key]
    return got


_NO_ALT = object()          # a road step whose cost off the road is the same (friends there change nothing)
_SEARCH_ROWS: dict = {}


def _search_rows(sc: Scenario, bridge_intact: bool, coalition: bool, elite_blocks: bool, restricted: bool) -> dict:
    """:func:`_step_table` with the steps this mover may never take left out (6.2.5 C: the Coalition off
    the west edge road; 8.4 A: the Strong Point while the Elite holds it; 9.5.1: north across the dark blue
    line before the Alert), each step as ``(next hex, (MPs, level) or None, cost off the road or _NO_ALT)``
    (a Level 2/3 step costs no MP, counting against the Level 2/3 roll instead, 6.2.3 A)."""
    key = (sc.key, bridge_intact, coalition, elite_blocks, restricted)
    got = _SEARCH_ROWS.get(key)
    if got is not None:
        return got

    def norm(cost):
        if cost is None:
            return None
        return (0, cost[1]) if isinstance(cost, tuple) else (cost, 0)

    north = _north_hexes(sc) if restricted else frozenset()
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
            alt = norm(off_road) if on_road and off_road != cost else _NO_ALT
            steps.append((nxt, norm(cost), alt))
        return tuple(steps)

    table = _Lazy(row_of, static.hexes, whole_mps=_whole_mps(sc.tables))
    _SEARCH_ROWS[key] = table
    _SEARCH_PLAIN[key] = _Lazy(lambda h: _plain_row(table[h]), static.hexes)
    return table


_SEARCH_PLAIN: dict = {}


def _plain_row(steps: tuple):
    """A row of :func:`_search_rows` whose every step is an ordinary one (a whole MP price, no Level 2/3
    hex, the same price on and off the road): (its next hexes, its steps as ``((hex, 0, 0), MPs)`` in the
    row's order, its steps as ``(hex, MPs)``); None for any other row. The search takes the made-up
    steps as they are when no enemy stands next to the hex and no Level 2/3 hex has been used yet."""
    plain = []
    for nxt, step, alt in steps:
        if step is None:
            continue                                                  # (never entered: left out)
        if alt is not _NO_ALT or step[1]:
            return None
        plain.append((nxt, step[0]))
    return (frozenset(r[0] for r in steps), tuple(((n, 0, 0), mp) for n, mp in plain), tuple(plain))


def _whole_mps(t) -> bool:
    """Whether every MP cost a step can have (the road's, each terrain's: 6.2.2, 6.2.6) is a whole number."""
    return type(t.terrain.road_mp) is int and all(x.mp is None or type(x.mp) is int for x in t.terrain.terrain.values())


def _reach_search(sc, p, is_leader, side, level_hexes, bridge_intact, mp_left, enemy_hexes, friend_hexes, front,
                  restricted, elite_blocks):
    """The cheapest-path search behind :func:`reachable`, from the values it depends on: its answer, and
    the hexes it asked about: whether enemy-occupied (every neighbour of a hex it reached), whether
    friendly-occupied (the road neighbours), whether in an enemy front (the hexes it reached)."""
    from engine.core import graph
    start_levels = _start_levels(sc, p.hex)
    ma = sc.leaders[p.id].ma if is_leader else current_ma(sc, p)
    if mp_left is not None:
        ma = min(ma, mp_left)
    rows = _search_rows(sc, bridge_intact, side == "coalition", elite_blocks and not is_leader, restricted)
    plain_rows = _SEARCH_PLAIN[(sc.key, bridge_intact, side == "coalition", elite_blocks and not is_leader, restricted)]
    lvl2, lvl3 = level_hexes.get(2, 0), level_hexes.get(3, 0)
    no_alt = _NO_ALT
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

    if flat:
        start, step_fn, halts = p.hex, flat_successors, front.__contains__        # 6.2.5 A: must stop
    else:
        start, step_fn, halts = (p.hex, 0, 0), successors, (lambda place: place[0] in front)
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


_MIN_STEP: dict = {}


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


_AROUND: dict = {}


def _around(sc: Scenario, bridge_intact: bool) -> tuple[dict, dict]:
    """For each hex: its neighbours, and those entered by a road step whose cost off the road differs."""
    key = (sc.key, bridge_intact)
    got = _AROUND.get(key)
    if got is None:
        static = _step_table(sc, bridge_intact)
        got = _AROUND[key] = (_Lazy(lambda h: frozenset(r[0] for r in static[h]), static.hexes),
                              _Lazy(lambda h: frozenset(r[0] for r in static[h] if r[2] and r[3] != r[1]), static.hexes))
    return got


def level_roll(sc: Scenario, kind: str):
    """6.2.3 A: the Level 2/3 Movement Chart roll at the start of a Movement Segment."""
    r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
    ch = sc.tables.levels
    return (getattr(ch.level2[r], kind), getattr(ch.level3[r], kind))


# ---------------------------------------------------------------------------------------------------
# 6.6 Retreat
# ---------------------------------------------------------------------------------------------------
def retreat_options(sc: Scenario, st: GameState, unit_ids: tuple[str, ...], from_hex: str) -> list[tuple[str, int, str]]:
    """Hexes a retreating stack may enter, best first: (hex, rank, rule). Rank 0 = toward the nearest
    friendly town or entry hex and out of enemy fronts (6.6 A); then the order of 6.6 B: 1 = empty or
    friendly and out of enemy fronts, 2 = friendly-occupied in an enemy front, 3 = empty in an enemy front."""
    side = sc.side(unit_ids[0])
    g, board = sc.board.grid, sc.board
    front = enemy_front(sc, st, side)
    targets = refuges(sc, st, side)
    d0 = _dist_to(sc, from_hex, targets)
    out = []
    for h in g.neighbours(from_hex):
        if occupants(sc, st, h, "coalition" if side == "french" else "french"):
            continue
        cost, _ = board.step_cost(from_hex, h, sc.tables)
        if cost is None:
            continue
        friendly = bool([q for q in occupants(sc, st, h, side) if q.id not in unit_ids])
        toward = _dist_to(sc, h, targets) < d0
        if h not in front:
            rank, rule = (0, "6.6 A") if toward else (1, "6.6 B")
        elif friendly:
            rank, rule = 2, "6.6 B"
        else:
            rank, rule = 3, "6.6 B"
        out.append((h, rank, rule))
    out.sort(key=lambda x: (x[1], x[0]))
    return out


@dataclass(frozen=True)
class RetreatOutcome:
    hex: str | None                        # where the stack ends (None: did not move)
    units: tuple[tuple[str, str], ...]     # (unit, status afterwards)
    into_front: bool = False

    def __str__(self) -> str:
        where = f"to {self.hex}" if self.hex else "could not retreat"
        return f"{where}: " + ", ".join(f"{u} {s}" for u, s in self.units)


def retreat(sc: Scenario, st: GameState, unit_ids: tuple[str, ...], from_hex: str):
    """6.6 as a procedure: the owner picks among the best hexes; checks for an enemy front (6.6 D) or
    for being unable to retreat (6.6 C, after becoming fatigued)."""
    opts = retreat_options(sc, st, unit_ids, from_hex)
    results = []
    if not opts:
        for uid in unit_ids:
            p = st.piece(uid)
            status = "fatigued" if p.status == "normal" else p.status
            fv = sc.units[uid].fv_f
            out = yield check_sub(sc.tables, CheckSpec("unable_to_retreat", fv, status, leader_cvs(sc, st, uid),
                                                       unit=uid), rule="6.6 C")
            results.append((uid, out.status))
        return RetreatOutcome(None, tuple(results))
    best = opts[0][1]
    choices = tuple(h for h, r, _ in opts if r == best)
    h = yield Choose(choices, rule=opts[0][2], player=sc.side(unit_ids[0]), label="retreat into which hex?")
    into = best >= 2
    for uid in unit_ids:
        p = st.piece(uid)
        if into:
            out = yield check_sub(sc.tables, CheckSpec("retreat_into_enemy_front", current_fv(sc, p), p.status,
                                                       leader_cvs(sc, st, uid), unit=uid), rule="6.6 D")
            results.append((uid, out.status))
        else:
            results.append((uid, p.status))
    return RetreatOutcome(h, tuple(results), into)


# ---------------------------------------------------------------------------------------------------
# 6.7 Rout movement
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoutPath:
    path: tuple[str, ...]
    fate: str            # "safe" (next to a friendly town), "exited" (eliminated, 6.7 H), "eliminated" (6.7 D), "moving"
    entered_friends: tuple[str, ...] = ()   # hexes with friends it entered (6.7 K checks)


def rout_path(sc: Scenario, st: GameState, unit_id: str, just_routed: bool = True) -> RoutPath:
    """The rout move (6.7 C-H): twice the MA when it has just routed, else its MA; toward the nearest
    friendly town or entry hex; never into an enemy front; each step as far from the enemy as it can.
    Level 2/3 hexes cost 2 MPs here (our simplification of the 6.7 clarification)."""
    p = st.piece(unit_id)
    if p.hex is None:
        raise RuleViolation("6.7", f"{unit_id} is not on the map")
    side = sc.side(unit_id)
    g, board = sc.board.grid, sc.board
    front = enemy_front(sc, st, side)
    enemies = _occupied(sc, st, side)[0]                  # hexes of live enemy units
    towns = {h for name, owner in st.control if owner == side for h in board.data.towns.get(name, [])}
    targets = frozenset(refuges(sc, st, side))
    entries = set(getattr(board.data.entry_hexes, side))
    mp = 2 * sc.units[unit_id].ma_f if just_routed else sc.units[unit_id].ma_f
    here, path, friends = p.hex, [p.hex], []

    def far(h):
        return _nearest(g, h, enemies)

    if any(g.distance(here, t) <= 1 for t in towns) and not just_routed:
        return RoutPath(tuple(path), "safe")
    while mp > 0:
        cands = []
        for n in g.neighbours(here):
            if n in path or n in front or n in enemies:
                continue
            cost, _ = board.step_cost(here, n, sc.tables)
            if cost is None:
                continue
            c = 2 if isinstance(cost, tuple) else cost
            if c > mp:
                continue
            cands.append((_nearest(g, n, targets), -far(n), n, c))
        if not cands:
            if len(path) == 1:
                return RoutPath(tuple(path), "eliminated")            # 6.7 D
            break
        cands.sort()
        _, _, n, c = cands[0]
        here, mp = n, mp - c
        path.append(n)
        if occupants(sc, st, n, side):
            friends.append(n)
        if n in entries:
            return RoutPath(tuple(path), "exited", tuple(friends))   # 6.7 H
        if any(g.distance(n, t) <= 1 for t in towns):
            return RoutPath(tuple(path), "safe", tuple(friends))     # 6.7 G
    return RoutPath(tuple(path), "moving", tuple(friends))


# ---------------------------------------------------------------------------------------------------
# 7.0 Recovery, 3.2 Initiative
# ---------------------------------------------------------------------------------------------------
def recovery(sc: Scenario, st: GameState, unit_id: str):
    """7.0 for one unit: Remove Fatigue, or Rally from Rout (not next to an enemy, 7.0 G); charged
    cavalry may not remove fatigue (4.2.5, 7.0 C)."""
    p = st.piece(unit_id)
    g = sc.board.grid
    if p.status == "fatigued":
        if p.charged:
            raise RuleViolation("7.0 C", f"{unit_id} charged this turn and may not recover from fatigue")
        out = yield check_sub(sc.tables, CheckSpec("remove_fatigue", sc.units[unit_id].fv_f, "fatigued",
                                                   leader_cvs(sc, st, unit_id), unit=unit_id), rule="7.0 D")
        return out.status
    if p.status == "routed":
        side = sc.side(unit_id)
        if any(q.hex and g.distance(q.hex, p.hex) == 1 and sc.side(q.id) != side and q.status in LIVE
               and not sc.is_leader(q.id) for q in st.pieces):
            raise RuleViolation("7.0 G", f"{unit_id} is next to an enemy unit and cannot rally")
        out = yield check_sub(sc.tables, CheckSpec("rally_from_rout", sc.units[unit_id].fv_f, "routed",
                                                   leader_cvs(sc, st, unit_id), unit=unit_id), rule="7.0 D")
        return out.status
    raise RuleViolation("7.0 D", f"{unit_id} is {p.status}: only fatigued or routed units recover")


def initiative(turn: int, mortier_on_map: bool):
    """3.2: both roll a d6, the French +1 with Mortier on the map, ties rerolled; turn 1 the Coalition
    goes first without a roll. Returns the side with the initiative.

    A tie is settled by one chance event whose odds are those of rerolling until the dice differ
    (the same two d6 and the same comparison, conditioned on no tie), so the tree stays finite."""
    if turn == 1:
        return "coalition"
    from .turn import turn_data
    bonus = turn_data().rolls.initiative_mortier_drm if mortier_on_map else 0
    f = yield Roll("d6", rule="3.2 A", label="French initiative")
    c = yield Roll("d6", rule="3.2 A", label="Coalition initiative")
    if f + bonus != c:
        return "french" if f + bonus > c else "coalition"
    from engine.core.dist import die
    pairs = die("d6").product(die("d6")).given(lambda fc: fc[0] + bonus != fc[1])
    odds = pairs.map(lambda fc: "french" if fc[0] + bonus > fc[1] else "coalition")
    return (yield Chance(tuple(odds.items()), rule="3.2 A", label="tie: reroll until the dice differ"))


# ---------------------------------------------------------------------------------------------------
# Reinforcement Phase rolls
# ---------------------------------------------------------------------------------------------------
def dupont_arrival(sc: Scenario, turn: int):
    """9.6.2 A-B: from turn 6, a d6 each turn; the needed range widens each turn."""
    dp = sc.file.dupont
    if turn < dp.first_turn:
        raise RuleViolation("9.6.2 A", f"Dupont's Division is not rolled for before turn {dp.first_turn}")
    i = min(turn - dp.first_turn, len(dp.needs) - 1)
    r = yield Roll("d6", rule="9.6.2 B", label=f"Dupont arrival (needs {dp.needs[i]}+)")
    return r >= dp.needs[i]


def second_group_delay(sc: Scenario):
    """9.6.2 D: turns until Dupont's second group arrives."""
    r = yield Roll("d6", rule="9.6.2 D", label="second group delay")
    return sc.file.dupont.second_group_delay[r]


def column_muster(sc: Scenario, column: str, turn: int):
    """9.2 B: Columns II and III muster on a roll within the turn's range."""
    table = getattr(sc.file.mustering, column, None)
    if table is None:
        raise RuleViolation("9.2 B", f"only Columns II and III roll to muster, not {column!r}")
    if turn < 2:
        raise RuleViolation("9.2 A", "mustering rolls start on turn 2")
    rng = table.get(min(turn, max(table)), [])
    r = yield Roll("d6", rule="9.2 B", label=f"Column {column} mustering")
    return r in rng


def mortier_alert(sc: Scenario, turns_since_first: int):
    """9.5.2: 4+ (+1 per turn after the first roll) lifts the dark blue line restriction."""
    a = sc.file.alert
    r = yield Roll("d6", rule="9.5.2 A", label="Mortier's Alert")
    return r + a.drm_per_turn * turns_since_first >= a.need


def road_blocked(sc: Scenario, st: GameState, town: str = "Dürenstein") -> bool:
    """Is a Coalition unit on the Danube road between ``town`` and the west edge (0109)? (11.2 A; the same
    stretch of road 10.2.1 asks to be free.)"""
    road = [h for r in sc.board.data.roads if r.name.startswith("Danube") for h in r.hexes]
    hs = sc.board.data.towns.get(town, [])
    idx = max((road.index(h) for h in hs if h in road), default=len(road))
    seg = set(road[:idx + 1])
    return any(p.hex in seg and sc.side(p.id) == "coalition" and p.status in LIVE and not sc.is_leader(p.id)
               for p in st.on_map())


def regroup():
    """5.3 D: an eliminated infantry unit returns on a 1."""
    from .turn import turn_data
    r = yield Roll("d6", rule="5.3 D", label="Regroup")
    return r in turn_data().rolls.regroup_on


def column_iv_release(turn: int):
    """Optional 11.4.1: from turn 6 Column IV musters on a d6 inside the turn's range (``turn.yaml``)."""
    from .turn import turn_data
    c = turn_data().column_iv
    if turn < c.first_turn:
        raise RuleViolation("11.4.1", f"Column IV rolls from turn {c.first_turn}, not {turn}")
    rng = c.ranges.get(min(turn, max(c.ranges)), [])
    r = yield Roll("d6", rule="11.4.1", label="Column IV release")
    return r in rng


def ammo_shortage():
    """11.2 B (optional): on 3-6 Gazan's infantry fire at half FF."""
    from .turn import turn_data
    r = yield Roll("d6", rule="11.2 B", label="French ammunition")
    return r in turn_data().rolls.ammo_short_on


def optional_arrival(which: str, turn: int = 0):
    """Optional forces: Klein (11.6.1: a 6 then 1-4 entry A next turn, 5-6 entry B two turns later),
    Murat (11.7.1: a 6), Dumonceau (11.5.2: Dupont's progression). Returns (arrives, detail)."""
    from .turn import turn_data
    rolls = turn_data().rolls
    if which == "klein":
        r = yield Roll("d6", rule="11.6.1 A", label="Klein")
        if r not in rolls.klein_on:
            return (False, "")
        r2 = yield Roll("d6", rule="11.6.1 A", label="Klein entry")
        return (True, "A 0801, next turn" if r2 in rolls.klein_entry_a else "B 1901, in two turns")
    if which == "murat":
        r = yield Roll("d6", rule="11.7.1", label="Murat")
        ok = r in rolls.murat_on
        return (ok, "east edge road from Mautern 3620" if ok else "")
    if which == "dumonceau":
        needs = rolls.dumonceau_needs
        need = needs[min(max(turn, 0), len(needs) - 1)]
        r = yield Roll("d6", rule="11.5.2 A", label=f"Dumonceau (needs {need}+)")
        return (r >= need, "")
    raise RuleViolation("11.0", f"unknown optional force {which!r} (klein, murat, dumonceau)")


# ---------------------------------------------------------------------------------------------------
# 10.0 Victory
# ---------------------------------------------------------------------------------------------------
def victory(sc: Scenario, st: GameState, rear_guard_shortfall: int = 0) -> dict:
    """Victory levels at the end of turn 13 (10.1-10.2)."""
    def gone(pid):
        return st.piece(pid).status in ("eliminated", "surrendered", "killed", "captured")

    for ldr, winner in (("mortier", "coalition"), ("kutusov", "french")):
        if ldr in sc.leaders and gone(ldr):
            return {"winner": winner, "level": "strategic", "rule": "10.1", "automatic": True}
    eq = 0.0
    gazan_eq = 0.0
    drag = [u for u in sc.units.values() if u.side == "french" and u.kind == "cavalry" and u.command == "II"]
    arts_g = [u for u in sc.units.values() if u.side == "french" and u.kind == "artillery" and u.command == "II"]
    arts_d = [u for u in sc.units.values() if u.side == "french" and u.kind == "artillery" and u.command == "I"]
    for u in sc.units.values():
        if u.side != "french" or not gone(u.id):
            continue
        if u in drag:
            w = 1 / 3                                  # 10.2.2 A
        elif u in arts_g:
            w = 1 / 3                                  # 10.2.2 B
        elif u in arts_d:
            w = 1 / 2                                  # 10.2.2 C
        elif u.kind == "infantry":
            w = 1
        else:
            w = 0.5
        eq += w
        if u.command.startswith("II"):
            gazan_eq += w
    for lid, ldr in sc.leaders.items():
        if ldr.side == "french" and gone(lid):
            eq += 1                                    # 10.2.2 D
    v = sc.file.victory
    bump = rear_guard_shortfall                        # 9.2 G
    coal = "none"
    if gazan_eq >= v.coalition_strategic["gazan"] + bump or eq >= v.coalition_strategic["total"] + bump:
        coal = "strategic"
    elif gazan_eq >= v.coalition_tactical["gazan"] + bump or eq >= v.coalition_tactical["total"] + bump:
        coal = "tactical"
    g = sc.board.grid

    def bns(town, side):
        hs = sc.board.data.towns.get(town, [])
        return sum(1 for p in st.on_map() if p.hex in hs and sc.side(p.id) == side and not sc.is_leader(p.id)
                   and p.status in LIVE and sc.units[p.id].kind == "infantry")

    road = [h for r in sc.board.data.roads if r.name.startswith("Danube") for h in r.hexes]

    def road_free(from_town):
        hs = sc.board.data.towns.get(from_town, [])
        idx = max((road.index(h) for h in hs if h in road), default=len(road))
        seg = road[:idx + 1]
        return not any(p.hex in seg and sc.side(p.id) == "coalition" and p.status in LIVE for p in st.on_map())

    fr = "none"
    if (bns("Dürenstein", "french") >= 2 and bns("Unterloiben", "french") >= 1 and bns("Oberloiben", "french") >= 1
            and st.controller("Dürenstein") == "french" and road_free("Unterloiben")):
        fr = "strategic"                               # 10.2.1.1
    elif bns("Dürenstein", "french") >= 1 and bns("Oberloiben", "french") >= 1 and road_free("Oberloiben"):
        fr = "tactical"                                # 10.2.1.2
    rank = {"none": 0, "tactical": 1, "strategic": 2}
    if rank[fr] == 0 and rank[coal] == 0:
        winner, level = "draw", "none"                 # 10.2.5
    elif rank[fr] > rank[coal]:
        winner, level = "french", fr                   # 10.2.4 A
    else:
        winner, level = "coalition", coal              # 10.2.4 B: equal levels go to the Coalition
    return {"winner": winner, "level": level, "french_level": fr, "coalition_level": coal,
            "french_battalions_lost": round(eq, 2), "gazan_battalions_lost": round(gazan_eq, 2), "rule": "10.2"}


# ---------------------------------------------------------------------------------------------------
# 9.1 E, 9.2 H-I, 9.4: who may activate in the scenario
# ---------------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _zone(grid, centres: tuple[str, ...], radius: int) -> frozenset[str]:
    """Every hex within ``radius`` of one of ``centres``."""
    return frozenset(h for c in centres for h in grid.within(c, radius))


_RELEASES: dict = {}


def releases(sc: Scenario, st: GameState) -> GameState:
    """See :func:`_releases` (memoised by state: every activation check asks it)."""
    key = (sc.key, st)
    got = _RELEASES.get(key)
    if got is None:
        if len(_RELEASES) > 2048:
            _RELEASES.clear()
        got = _RELEASES[key] = (sc, _releases(sc, st))
    return got[1]


def _releases(sc: Scenario, st: GameState) -> GameState:
    """Flags the scenario's release conditions that now hold: Column V (9.2 H) and VI (9.2 I) when a
    French unit comes within three hexes of their set-up; the rest of Gazan's division when Column I
    reaches hex row 18XX or turn 4 (9.4 C); the Elite battalion when a Coalition unit is next to it, or
    from turn 6 with Mortier or Gazan with or next to it (9.4 B)."""
    flags = st.flags
    if _ALL_RELEASED <= flags:
        return st                                   # every release has happened
    act = sc.file.activation
    zone_v, zone_vi, column_i, west = _release_zones(sc)
    units, side_of, occ = sc.units, sc.side_of, st._in_hex

    def any_unit(hexes, ok) -> bool:
        """A live unit (not a leader) in one of ``hexes`` for which ``ok(piece)`` holds."""
        for h in hexes:
            for p in occ.get(h, ()):
                if p.id in units and p.status in LIVE and ok(p):
                    return True
        return False

    def french(p) -> bool:
        return side_of[p.id] == "french"

    # only the occupied hexes of each zone are looked at (the position's hexes with pieces in them)
    if "column_V_released" not in flags and any_unit(occ.keys() & zone_v, french):
        st = st.with_flag("column_V_released")
    if zone_vi is not None and "column_VI_deployed" not in flags and any_unit(occ.keys() & zone_vi, french):
        st = st.with_flag("column_VI_deployed")
    if "french_released" not in flags and (st.turn >= act.french_release_turn or any_unit(
            occ.keys() & west, lambda p: p.id in column_i)):    # a Column I unit in hex row 18XX or west of it
        st = st.with_flag("french_released")
    elite = st.piece("elite") if "elite" in units else None
    if elite is not None and elite.hex and "elite_released" not in flags:
        g = sc.board.grid
        if any_unit(g.neighbours(elite.hex), lambda p: side_of[p.id] == "coalition"):      # next to it
            st = st.with_flag("elite_released")
        if st.turn >= act.elite_release_turn and any(
                st.piece(l).hex and g.distance(st.piece(l).hex, elite.hex) <= 1 for l in ("mortier", "gazan")
                if l in sc.leaders):
            st = st.with_flag("elite_released")
    return st


_ALL_RELEASED = frozenset({"column_V_released", "column_VI_deployed", "french_released", "elite_released"})
_RELEASE_ZONES: dict = {}


def _release_zones(sc: Scenario) -> tuple:
    """What :func:`_releases` measures against, from the scenario alone (made once per scenario): the hexes
    within three of Column V's set-up (9.2 H) and of Column VI's (9.2 I; None without one), Column I's
    units, and the hexes of the hex rows up to the release row (9.4 C)."""
    got = _RELEASE_ZONES.get(sc.key)
    if got is None:
        g = sc.board.grid
        v_hexes = [h for pid, h in sc.file.setup.coalition.items() if pid.startswith("cv-") or pid == "kolloredo"]
        vi = sc.board.data.setup_numbers.get("VI")
        column_i = frozenset(u for u, d in sc.units.items() if d.command == "I" and d.side == "coalition")
        row = sc.file.activation.french_release_row
        west = frozenset(h for h in sc.board.hexes() if g.parse(h)[0] <= row)
        got = _RELEASE_ZONES[sc.key] = (_zone(g, tuple(v_hexes), 3), _zone(g, (vi,), 3) if vi else None, column_i,
                                        west)
    return got


def activation_allowed(sc: Scenario, st: GameState, pid: str) -> tuple[bool, str]:
    """May this leader or unit activate now under the scenario's limits? (allowed, rule and reason)."""
    act = sc.file.activation
    st = releases(sc, st)
    if sc.side(pid) == "coalition":
        d = sc.leaders.get(pid) or sc.units.get(pid)
        col = d.command if pid in sc.units else (d.command if d.rank == "column" else "army")
        if col == "army":
            return True, "6.1.2 B: Kutusov"
        if col in act.coalition_start:
            return True, "9.1 E"
        if col in ("II", "III") and f"column_{col}_mustered" in st.flags:
            return True, "9.2 B"
        if col == "V" and "column_V_released" in st.flags:
            return True, "9.2 H"
        if col == "VI":
            # 9.2 I: once deployed, Column VI may fire and melee under Kutusov, but never moves (the
            # game protocol refuses its moves and charges)
            return ("column_VI_deployed" in st.flags, "9.2 I: Column VI acts only once deployed, and never moves")
        if col == "IV":
            return ("optional_11.4" in st.flags, "11.4: Column IV only with the optional rule")
        return False, f"9.1 E / 9.2: Column {col} is not available yet"
    if pid == "elite":
        return ("elite_released" in st.flags, "9.4 B")
    if pid in act.french_start_units or pid in act.french_start_leaders:
        return True, "9.4 A"
    if pid in sc.file.setup.french:
        return ("french_released" in st.flags, "9.4 C")
    return True, "9.6.2: reinforcements activate once on the map"


def entry_mp(ma: int, k: int) -> int:
    """MPs left to the k-th unit or stack (1 = first) entering at the same hex (5.2 D, 9.6.2 C)."""
    if k < 1:
        raise RuleViolation("5.2 B", "entering stacks are counted from 1")
    return max(0, ma - (k - 1))


OPTIONS = {
    "11.1": "Cavalry Fire Ability", "11.2": "French Ammunition Shortage", "11.3": "Coalition Column's Impetus",
    "11.4": "Bagration's IV Column", "11.5": "Dumonceau's Dutch 3rd Division", "11.6": "Klein's 1st Dragoon Division",
    "11.7": "Murat's Relief Force", "11.8": "Cavalry Retreat Before Combat",
}


def victory_with_options(sc: Scenario, st: GameState, options: frozenset[str] = frozenset(),
                         forces_in_play: frozenset[str] = frozenset(), rear_guard_shortfall: int = 0,
                         klein_towns: int = 0) -> dict:
    """10.2 with the optional rules' victory changes: +2 battalions needed per level when Bagration's
    column came into play (11.4.2), -1 when Dumonceau entered (11.5.3), and one or two French levels for
    Scheibenhof and Egelsee held with Klein's division in play (11.6.2)."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise RuleViolation("11.0", f"unknown optional rule {sorted(unknown)[0]!r} (one of {', '.join(OPTIONS)})")
    bump = rear_guard_shortfall
    if "11.4" in options and "bagration" in forces_in_play:
        bump += 2
    if "11.5" in options and "dumonceau" in forces_in_play:
        bump -= 1
    v = victory(sc, st, bump)
    if v.get("automatic"):
        return v
    if "11.6" in options and "klein" in forces_in_play and klein_towns:
        order = ["none", "tactical", "strategic"]
        lvl = min(order.index(v["french_level"]) + min(klein_towns, 2), 2)
        v = dict(v, french_level=order[lvl])
        rank = {"none": 0, "tactical": 1, "strategic": 2}
        fr, co = v["french_level"], v["coalition_level"]
        if rank[fr] == 0 and rank[co] == 0:
            v.update(winner="draw", level="none")
        elif rank[fr] > rank[co]:
            v.update(winner="french", level=fr)
        else:
            v.update(winner="coalition", level=co)
    v["options"] = sorted(options)
    return v


# ---------------------------------------------------------------------------------------------------
# 8.3 Elite battalion, 5.3 E regroup placement
# ---------------------------------------------------------------------------------------------------
ELITE_PARENTS = ("100", "103")


def factors(sc: Scenario, st: GameState, uid: str) -> tuple[int, int]:
    """A unit's FF and MF as they fight now: the 100th and 103rd lose 1 FF and 2 MF while the Elite
    battalion exists or is eliminated and not regrouped (8.3 A-C)."""
    u = sc.units[uid]
    ff, mf = u.ff, u.mf
    if (u.side == "french" and u.regiment in ELITE_PARENTS and "elite" in sc.units
            and not st.flags & {"elite_disbanded", "elite_regrouped"}):
        ff, mf = max(0, ff - 1), max(0, mf - 2)
    return ff, mf


def regroup_hexes(sc: Scenario, st: GameState, uid: str) -> list[str]:
    """Where a regrouped unit may be placed (5.3 E): within two hexes of one of its commanding leaders,
    not within two hexes of an enemy unit (and on ground it could stand on)."""
    g, b = sc.board.grid, sc.board
    side = sc.side(uid)
    leaders = [st.piece(l).hex for l in sc.chain_of_command(uid) if st.piece(l).hex and st.piece(l).status == "normal"]
    enemies = [p.hex for p in st.on_map() if sc.side(p.id) != side and not sc.is_leader(p.id) and p.status in LIVE]
    out = set()
    for lh in leaders:
        for h in g.within(lh, 2):
            if b.terrain(h) == "river":
                continue
            if any(g.distance(h, e) <= 2 for e in enemies):
                continue
            out.add(h)
    return sorted(out)


def cavalry_retreat_before_combat(sc: Scenario, st: GameState, uid: str) -> list[tuple[str, ...]]:
    """Optional 11.8: at the start of the Defensive Fire Segment, non-phasing cavalry in Level 0/1, town or
    vineyard ground that sits in the front of an adjacent enemy infantry or artillery unit may fall back two
    hexes, following the retreat priorities (6.6); on a road in Level 2 only along the road. Returns the
    possible two-hex paths (empty when it may not)."""
    p = st.piece(uid)
    if uid not in sc.units or sc.units[uid].kind != "cavalry" or p.hex is None or p.status == "routed":
        return []
    b, g = sc.board, sc.board.grid
    side = sc.side(uid)
    threatened = any(q.hex and g.distance(q.hex, p.hex) == 1 and sc.side(q.id) != side and not sc.is_leader(q.id)
                     and sc.units[q.id].kind in ("infantry", "artillery") and p.hex in frontal(sc, st, q)
                     for q in st.on_map())
    if not threatened:
        return []
    on_level2_road = b.level(p.hex) == 2 and any(b.road(p.hex, n) for n in g.neighbours(p.hex))
    if b.level(p.hex) > 1 and not on_level2_road:
        return []
    paths = []
    for h1, r1, _ in retreat_options(sc, st, (uid,), p.hex):
        if on_level2_road and not b.road(p.hex, h1):
            continue
        st1 = st.with_piece(uid, hex=h1)
        for h2, r2, _ in retreat_options(sc, st1, (uid,), h1):
            if h2 == p.hex or (on_level2_road and not b.road(h1, h2)):
                continue
            paths.append(((r1, r2), (h1, h2)))
    if not paths:
        return []
    best = min(r for r, _ in paths)
    return sorted(path for r, path in paths if r == best)


def muster_hexes(sc: Scenario, column: str) -> list[str]:
    """Where a mustering column deploys (9.2 C-D): Column II within two hexes of 0805 on Level 1 or town
    hexes, Column III within two hexes of 1307 on Level 2 hexes only."""
    b, g = sc.board, sc.board.grid
    centre = b.data.setup_numbers.get(column)
    if column not in ("II", "III") or centre is None:
        raise RuleViolation("9.2", f"only Columns II and III muster onto the map, not {column!r}")
    if column == "II":
        ok = lambda h: b.terrain(h) == "town" or (b.level(h) == 1 and b.terrain(h) != "river")
    else:
        ok = lambda h: b.level(h) == 2
    return sorted(h for h in g.within(centre, 2) if ok(h))


def setup_problems(sc: Scenario, st: GameState) -> list[str]:
    """Check a set-up against 9.1 C-D (Coalition) and 9.3 B (French hexes): a list of problems."""
    g = sc.board.grid
    out = []
    col_i_area = {"2411", "2412", "2511", "2512", "2513"}
    v_centre = sc.board.data.setup_numbers.get("V", "2810")
    for p in st.on_map():
        d = sc.units.get(p.id) or sc.leaders.get(p.id)
        if d.side != "coalition":
            continue
        cmd = d.command if p.id in sc.units else d.command
        if cmd == "I" and p.hex not in col_i_area:
            out.append(f"9.1 C: {p.id} must set up in 2411-12 or 2511-13, not {p.hex}")
        if (cmd == "V" or p.id == "kutusov") and (g.distance(p.hex, v_centre) > 2 or g.parse(p.hex)[0] < 28):
            out.append(f"9.1 D: {p.id} must set up within two hexes of {v_centre}, not west of 28XX ({p.hex})")
    for pid, h in sc.file.setup.french.items():
        if st.piece(pid).hex != h:
            out.append(f"9.3 B: {pid} sets up in {h}, not {st.piece(pid).hex}")
    for h in sorted({p.hex for p in st.on_map()}):
        problem = stacking_problem(sc, st, h)
        if problem is not None:
            out.append(f"{problem.split(':')[0]}: the set-up overstacks {h} ({problem})")
    return out
