"""Retreat after combat (9.7-9.8.7), rout distance (9.6 [B]/[E], 9.6.2, 9.8.1, 16.7.5-16.7.7), hazards.

Two ways to describe where a unit retreats:

* **on a map** (:class:`MapRetreat`): the legal retreat paths are searched on the :class:`~engine.n20.board.Board`
  with the rules' priorities -- friendly-occupied hexes only when no route avoids them, even one through
  enemy ZOCs (9.8.5 after 9.8.3), then vacant hexes outside enemy ZOCs (9.8.2), then no avoidable certain
  destruction (9.8, 9.8.7, 16.7.6), then every step closer to a friendly LOC hex (9.8.6); a retreat
  ending on a friend goes on (9.8.5). Among the paths the
  rules leave open, the owner's choice is a :class:`~engine.core.procedure.Choose` whose first option is
  the one with the least chance of breaking (ties: rule order, then hex labels); all are listable.
* **context-free** (:class:`PathSpec`): the player lists, per hex of the unit's path, how many hazard rolls
  it meets (``[1, 0, 2]``), and optionally where the road ends, where the LOC is, where the path is blocked.

Each hazard is one d6 (9.8.3 enemy ZOC, 9.8.4 river crossing): 1-3 breaks, 4-6 passes. The hazard roll is a
banded roll, so exact enumeration treats it as a two-way branch while play still records the real face.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from operator import add, itemgetter

from engine.core.values import cached_hash_repr, from_fields
from engine.core.procedure import Roll

from .board import Board

__all__ = ["RetreatOption", "RetreatResult", "PathSpec", "MapRetreat", "ContextFreeRetreat", "hazard_roll",
           "retreat_options", "HAZARD_EZOC", "HAZARD_RIVER", "HAZARD_ANY", "HAZARD_BANDS"]

HAZARD_EZOC = "9.8.3"
HAZARD_RIVER = "9.8.4"
HAZARD_ANY = "9.8.3-9.8.4"


#: 9.8.3 / 9.8.4: a hazard die breaks the unit on 1, 2 or 3 and lets it go on with 4, 5 or 6.
HAZARD_BANDS = ((1, 2, 3), (4, 5, 6))


def hazard_roll(rule: str, label: str = "hazard"):
    """One hazardous-retreat die (9.8.3 / 9.8.4, also 17.1). Returns ``"breaks"`` or ``"passes"``."""
    roll = yield Roll("d6", rule=rule, label=label, bands=HAZARD_BANDS)
    return "breaks" if roll <= 3 else "passes"


@cached_hash_repr
@dataclass(frozen=True)
class RetreatOption:
    """One way a unit can retreat: the hexes entered in order, the hazard rolls met entering each,
    and how the path ends: ``ok`` (full distance), ``loc`` (reached its LOC early: breaks there, 9.8.7),
    ``blocked`` (no legal hex further: breaks, 9.8), ``off_road`` (a road-bound unit leaving the road is
    destroyed, 16.7.6)."""

    hexes: tuple[str, ...]
    hazards: tuple[tuple[str, ...], ...]
    end: str = "ok"
    priority: tuple = ()      # (friendly-occupied hexes (9.8.5), EZOC hexes (9.8.2/9.8.3), certain break, steps not closer to LOC (9.8.6))
    through_friend_at: int | None = None   # index of the first friendly-occupied hex entered (9.9.1)

    @property
    def survival(self) -> Fraction:
        if self.end != "ok":
            return Fraction(0)
        n = sum(len(h) for h in self.hazards)
        return Fraction(1, 2 ** n)

    @property
    def break_chance(self) -> Fraction:
        return 1 - self.survival

    def to_json(self) -> dict:
        return {"hexes": list(self.hexes), "hazards": [list(h) for h in self.hazards], "end": self.end,
                "break_chance": f"{self.break_chance.numerator}/{self.break_chance.denominator}"}

    def __str__(self) -> str:
        path = "-".join(self.hexes) or "(in place)"
        return f"{path} [{self.end}, breaks {self.break_chance}]"


@cached_hash_repr
@dataclass(frozen=True)
class RetreatResult:
    """What happened to one retreating unit."""

    unit: str
    fate: str                  # withdrew / routed / broken / destroyed / held
    hexes: int = 0             # hexes actually retreated
    end_hex: str | None = None
    rout_distance: int | None = None   # the distance it had to rout (after modifiers)
    marker: bool = False       # receives a Routed! marker (9.6.3)
    beyond_ma: bool = False    # routed more hexes than its printed movement allowance (Morale Chart)
    routed: bool = False       # it suffered a rout (for the Morale Chart), even if it then broke
    advance_path: tuple = ()   # hexes the victor may advance into (map mode), battle hex first (9.9.1)
    advance_room: int = 0      # number of those hexes (context-free mode counts them)
    rule: str = ""

    def __str__(self) -> str:
        s = f"{self.unit} {self.fate}"
        if self.rout_distance is not None:
            s += f" (rout {self.rout_distance})"
        if self.hexes:
            s += f" after {self.hexes} hex{'es' if self.hexes > 1 else ''}"
        if self.end_hex:
            s += f" at {self.end_hex}"
        return s + (f" [{self.rule}]" if self.rule and self.fate in ("broken", "destroyed") else "")


@dataclass(frozen=True)
class PathSpec:
    """Context-free description of a retreat path: hazards per hex, and optional limits (hex numbers from 1)."""

    hazards: tuple[int, ...] = ()
    road: int | None = None         # hexes of the path that are on the road (16.7.6); None = all
    loc_at: int | None = None       # the path reaches the unit's LOC hex at this hex (9.8.7)
    blocked_after: int | None = None  # no legal hex beyond this many (9.8)
    friend_at: int | None = None    # a friendly unit stands in this hex of the path (9.8.5, 9.9.1)


class ContextFreeRetreat:
    """Retreat environment without a map: each unit's path comes from its :class:`PathSpec`."""

    def __init__(self, specs: dict[str, PathSpec], loc_breaks: bool):
        self.specs = specs
        self.loc_breaks = loc_breaks

    def key(self) -> tuple:
        return ("cf", self)          # the object itself (hashed by identity, kept alive by the key)

    def options(self, unit, start, distance, positions, tail=()) -> tuple[RetreatOption, ...]:
        spec = self.specs.get(unit.id, PathSpec())
        hexes, hazards, end = [], [], "ok"
        n = distance
        if spec.friend_at is not None and spec.friend_at == distance:
            n = distance + 1    # 9.8.5: a retreat ending on a friend goes one hex further
        for i in range(1, n + 1):
            if spec.blocked_after is not None and i > spec.blocked_after:
                end = "blocked"
                break
            if unit.road_bound and spec.road is not None and i > spec.road:
                hexes.append(f"#{i}")
                hazards.append(())
                end = "off_road"
                break
            hexes.append(f"#{i}")
            k = spec.hazards[i - 1] if i - 1 < len(spec.hazards) else 0
            hazards.append((HAZARD_ANY,) * k)
            if self.loc_breaks and spec.loc_at is not None and i == spec.loc_at and i < n:
                end = "loc"
                break
        through = spec.friend_at - 1 if spec.friend_at is not None and spec.friend_at <= len(hexes) else None
        return (RetreatOption(tuple(hexes), tuple(hazards), end, (), through),)


class MapRetreat:
    """Retreat environment on a map: paths searched on ``board`` around the units at their positions."""

    def __init__(self, board: Board, loc_breaks: bool):
        self.board = board
        self.loc_breaks = loc_breaks

    def key(self) -> tuple:
        return ("map", self.board, self.loc_breaks)

    def options(self, unit, start, distance, positions, tail=()) -> tuple[RetreatOption, ...]:
        # positions: ((unit id, (side, hex, has a ZOC[, not a stack-free leader])), ...); ``tail``: the end of
        # ``positions`` that is the same for every retreat of the battle (the bystanders, who stay put, with
        # neither the retreating unit nor its battle in it): its part of the sets is worked out once
        own, me = unit.side, unit.id
        n = len(positions) - len(tail)
        if tail and n >= 0 and positions[n:] == tail:
            head = positions[:n]
            friends, enemies, enemy_zoc_src = (set(x) for x in _side_sets(tail, own))
        else:
            head = positions
            friends, enemies, enemy_zoc_src = set(), set(), set()
        for uid, p in head:                  # one pass: friends' hexes (not stack-free leaders), enemies', ZOCs
            h = p[1]
            if not h:
                continue
            if p[0] == own:
                if uid != me and (len(p) < 4 or p[3]):
                    friends.add(h)
            else:
                enemies.add(h)
                if p[2]:
                    enemy_zoc_src.add(h)
        friends, enemies, enemy_zoc_src = frozenset(friends), frozenset(enemies), frozenset(enemy_zoc_src)
        ezoc = _ezoc(self.board, enemy_zoc_src, enemies, unit.side)
        # the paths read the map's grid, hexsides and roads only (not terrain): keyed by the loaded map,
        # so a board with Fieldworks (Fuentes 14.2) shares its searches
        return retreat_options(self.board.base, self.loc_breaks, unit.side, unit.road_bound, start, distance,
                               friends, enemies, ezoc)


@lru_cache(maxsize=1024)
def _side_sets(positions: tuple, own: str) -> tuple[frozenset, frozenset, frozenset]:
    """For units that all stay put (no retreating unit among them): the hexes of ``own``'s units (not
    stack-free leaders, 16.9.2), of the enemy's, and of the enemy's that have a ZOC (7.0), keyed by value."""
    friends, enemies, zoc = set(), set(), set()
    for _uid, p in positions:
        h = p[1]
        if not h:
            continue
        if p[0] == own:
            if len(p) < 4 or p[3]:
                friends.add(h)
        else:
            enemies.add(h)
            if p[2]:
                zoc.add(h)
    return frozenset(friends), frozenset(enemies), frozenset(zoc)


@lru_cache(maxsize=4096)
def _ezoc(board: Board, zoc_sources: frozenset, occupied: frozenset, side: str) -> frozenset:
    out: set[str] = set()
    for h in zoc_sources:
        out |= board.zoc_of(h)
    # 9.4.4: enemy garrisons in hexes no unit occupies exert a normal ZOC.
    for g in board.garrisons.values():
        if g.side != side and g.hex not in occupied:
            out |= board.zoc_of(g.hex)
    return frozenset(out)


class CutOptions(tuple):
    """Retreat options found before the search bound (:data:`_SEARCH_BUDGET`) stopped the search: the
    list may lack paths, and the battle procedure says so in a note (never a silent cut)."""

    cut = True


#: Upper bound on the hexes the path search visits for one retreat. Paths that cannot reach the best
#: rule-priority class are pruned first, so real maps stay far below it; it only guards degenerate maps
#: (e.g. a side without LOC hexes, where every path ranks alike).
_SEARCH_BUDGET = 20_000


@lru_cache(maxsize=65536)
def retreat_options(board: Board, loc_breaks: bool, side: str, road_bound: bool, start: str, distance: int,
                    friends: frozenset, enemies: frozenset, ezoc: frozenset) -> tuple[RetreatOption, ...]:
    """The retreat paths the rules leave open to a unit in ``start`` that must retreat ``distance`` hexes.

    The list is ordered by the owner's default policy: least chance of breaking first, then fewer
    steps away from the LOC, then hex labels. Only paths of the best rule-priority class are listed
    (fewest friendly-occupied hexes, 9.8.5, before fewest EZOC hexes, 9.8.2-9.8.3, before certain
    destruction before 9.8.6); when no path can be completed, the longest
    blocked ones (the unit breaks where it stands, 9.8).

    The search walks one path at a time (a list grown and shrunk in place) over the steps the map
    allows, read from :func:`_search_steps` (the map's part worked out once per board and side); a path
    found is kept as a plain tuple, and only the paths listed become :class:`RetreatOption` values.
    """
    if distance <= 0:
        return (RetreatOption((), (), "ok", (0, 0, False, 0)),)
    loc_set = frozenset(board.loc_hexes(side))
    complete: list[tuple] = []            # (hexes, hazards, end, priority, through) of the paths found
    blocked: list[tuple] = []
    # the best (friend hexes, EZOC hexes, steps not closer) among survivable complete paths found so far,
    # as one number ordered as those triples are (each count is below m: a path never repeats a hex, and
    # the search never takes more than _SEARCH_BUDGET steps)
    m = max(_SEARCH_BUDGET, len(board.hexes)) + 2
    mm = m * m
    best = [_NONE_YET]
    steps_of = _search_steps(board, side)
    free: dict = {}                       # hex -> its steps that do not enter an enemy hex (6.3)
    hot = friends | ezoc
    first = itemgetter(0)
    path = [start]
    hz: list = []
    budget = [_SEARCH_BUDGET]
    no_hz = ()
    ez_hz = (HAZARD_EZOC,)
    river_hz = (HAZARD_RIVER,)
    both_hz = (HAZARD_RIVER, HAZARD_EZOC)

    def finish(hexes: tuple, hazards: tuple, f: int, e: int, end: str, through: int | None, nc: int) -> None:
        # (f, e) = (friendly-occupied hexes entered, EZOC hexes entered): 9.8.5 allows a friend's hex only
        # when no other route is open, a route through enemy ZOCs (9.8.3) included, so it ranks first
        pr = (f, e, end != "ok", nc)
        if end == "blocked":
            blocked.append((hexes, hazards, end, pr, through))
            return
        complete.append((hexes, hazards, end, pr, through))
        if end == "ok" and f * mm + e * m + nc < best[0]:
            best[0] = f * mm + e * m + nc

    def dfs(f: int, e: int, through: int | None, counts: tuple) -> None:
        here = path[-1]
        steps = len(path) - 1
        nc = min(counts) if counts else 0
        if f * mm + e * m + nc > best[0]:
            return      # cannot reach the best rule-priority class found so far (all counts only grow)
        budget[0] -= 1
        if budget[0] < 0:
            return      # search bound (see _SEARCH_BUDGET)
        if steps >= distance and here not in friends:
            finish(tuple(path[1:]), tuple(hz), f, e, "ok", through, nc)
            return
        if loc_breaks and steps and here in loc_set and steps < distance:
            finish(tuple(path[1:]), tuple(hz), f, e, "loc", through, nc)   # 9.8.7: reached the LOC too early
            return
        # the steps the map allows (no prohibited hex, no forbidden hexside), minus enemy hexes and hexes
        # already on the path, already in the order (closer to a LOC, then hex label)
        out = free.get(here)
        if out is None:
            out = free[here] = [st for st in steps_of[here] if st[0] not in enemies]
        nxt = [st for st in out if st[0] not in path]
        if not nxt:
            if steps:
                finish(tuple(path[1:]), tuple(hz), f, e, "blocked", through, nc)
            return
        # explore promising hexes first: vacant non-EZOC, then closer to a LOC (a stable sort keeps the
        # map's order within each of the four kinds)
        if not hot.isdisjoint(map(first, nxt)):
            nxt.sort(key=lambda st: (st[0] in friends, st[0] in ezoc))
        last = steps + 1 >= distance
        for n, river, road, not_closer in nxt:
            # per LOC hex, one more step that does not get closer to it (9.8.6)
            c2 = tuple(map(add, counts, not_closer))
            if road_bound and not road:
                finish(tuple(path[1:]) + (n,), tuple(hz) + (no_hz,), f, e, "off_road", through,
                       min(c2) if c2 else 0)   # 16.7.6
                continue
            in_ez = n in ezoc
            in_f = n in friends
            h_n = (both_hz if in_ez else river_hz) if river else (ez_hz if in_ez else no_hz)
            if last and not in_f:
                # the full distance ends here, on a hex free of friends: the first steps of dfs() for that
                # hex, done without the call (the same pruning, bound and finish)
                key = f * mm + (e + in_ez) * m + (min(c2) if c2 else 0)
                if key > best[0]:
                    continue
                budget[0] -= 1
                if budget[0] < 0:
                    continue
                complete.append((tuple(path[1:]) + (n,), tuple(hz) + (h_n,), "ok",
                                 (f, e + in_ez, False, min(c2) if c2 else 0), through))
                if key < best[0]:
                    best[0] = key
                continue
            path.append(n)
            hz.append(h_n)
            dfs(f + in_f, e + in_ez, through if through is not None or not in_f else steps, c2)
            path.pop()
            hz.pop()

    dfs(0, 0, None, (0,) * len(board.loc_hexes(side)))
    found = _finish_options(complete, blocked)
    return CutOptions(found) if budget[0] < 0 else found


#: no survivable complete path found yet: nothing is pruned
_NONE_YET = float("inf")


@lru_cache(maxsize=64)
def _retreat_map(board: Board, side: str) -> tuple[dict, dict, dict]:
    """What a retreat search reads of the map alone, per board and side (boards are immutable), filled in
    as hexes are asked: hex -> the steps out of it the map allows ((hex, river crossed 9.8.4, along a
    road 16.7.6), in the board's neighbour order; prohibited hexes and uncrossable hexsides left out),
    hex -> its distances to each of ``side``'s LOC hexes, hex -> the nearest of them (0 without LOC
    hexes). A value once stored never changes (threads sharing it at worst work one out twice)."""
    locs = board.loc_hexes(side)

    def steps(h):
        return tuple((n, bool(board.river_crossing(h, n)), bool(board.is_road_link(h, n)))
                     for n in board.neighbours(h) if n not in board.prohibited and board.crossing_allowed(h, n))

    def dist(h):
        return tuple(board.distance(h, l) for l in locs)

    return _Filled(steps), (d := _Filled(dist)), _Filled(lambda h: min(d[h], default=0))


@lru_cache(maxsize=64)
def _not_closer(board: Board, side: str) -> dict:
    """(a, b) -> per LOC hex of ``side``, 1 when stepping from ``a`` to ``b`` does not bring the unit
    closer to it, else 0 (9.8.6), filled in as asked (per board and side, like :func:`_retreat_map`)."""
    _, dist, _ = _retreat_map(board, side)

    def make(key):
        a, b = key
        return tuple(1 if db >= da else 0 for da, db in zip(dist[a], dist[b]))
    return _Filled(make)


class _Filled(dict):
    """A dict whose missing entries are made by ``make(key)`` when first asked."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        v = self[key] = self.make(key)
        return v


@lru_cache(maxsize=64)
def _search_steps(board: Board, side: str) -> dict:
    """hex -> the steps a retreat search takes out of it, per board and side, filled in as hexes are asked:
    ``(hex, river crossed 9.8.4, along a road 16.7.6, per LOC hex 1 when the step gets no closer to it
    9.8.6)``, ordered by the nearest LOC hex's distance, then the hex label (the map's part of the order
    in which the search tries them)."""
    steps_from, _, nearest = _retreat_map(board, side)
    not_closer = _not_closer(board, side)

    def make(h):
        out = [(n, river, road, not_closer[h, n]) for n, river, road in steps_from[h]]
        out.sort(key=lambda st: (nearest[st[0]], st[0]))
        return tuple(out)
    return _Filled(make)


def _finish_options(complete: list, blocked: list) -> tuple[RetreatOption, ...]:
    # the paths as (hexes, hazards, end, priority, through)
    pool = complete or blocked
    if not pool:
        return (RetreatOption((), (), "blocked", (0, 0, True, 0)),)
    if complete:
        top = min(p[3] for p in pool)
        pool = [p for p in pool if p[3] == top]
    else:
        longest = max(len(p[0]) for p in pool)
        pool = [p for p in pool if len(p[0]) == longest]
    # by the chance of breaking on the way (1 - 1/2**hazards for a full retreat, 1 otherwise), told apart
    # without making the fractions: the order of (ends short, hazard dice) is the same
    pool.sort(key=lambda p: ((True, 0) if p[2] != "ok" else (False, sum(len(h) for h in p[1])), p[3], p[0]))
    # every path of the best class (no cut: the owner may pick any, 9.8), made with their fields at once
    # (the search's own values: RetreatOption(*p) without its field-by-field __init__)
    return tuple(from_fields(RetreatOption, dict(zip(_OPTION_FIELDS, p))) for p in pool)


_OPTION_FIELDS = tuple(RetreatOption.__dataclass_fields__)
