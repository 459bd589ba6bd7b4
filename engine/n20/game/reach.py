"""Where a unit can move this phase: movement allowances (6.2, 12.3, 14.0, 16.8.3, exclusive 6.10), the
cost of each step (TEC, 6.5 rugged stops, 6.6 roads, 16.7.1-16.7.2 light infantry and cossacks, 16.9.2
leaders), the searches over (hex, must stop) states with their enemy-ZOC stops (6.7-6.8, 7.6 / 14.0 at
night, 9.6.3 Routed! units), reinforcement entry (11.1-11.4) and the Guard's commitment (12.2.1).

Everything here reads a :class:`~engine.n20.game.state.GameState` and returns values; nothing changes it.
Searches are kept by value (:func:`_by_looked`) and per immutable board and tables file.
"""
from __future__ import annotations

import operator
import threading
from dataclasses import dataclass
from functools import lru_cache

from engine.core.errors import RuleViolation
from engine.core.graph import search_places, search_places_whole

from ..board import Board, RUGGED
from .state import GameState, other
from .zoc import combat_adjacent, distance, enemy_hexes, enemy_zoc, friendly_hexes, neighbours_map, on_map_units, \
    stackers

__all__ = ["Reach", "movement_allowance", "search_moves", "entry_options", "cadre_meets_cadre", "path_cost"]


@dataclass(frozen=True)
class Reach:
    """A hex a unit can reach this phase: Movement Points spent and the hexes entered (start first;
    a reinforcement's path starts at its entry hex)."""

    hex: str
    cost: int
    path: tuple[str, ...]
    entry: str | None = None      # the entry hex for a reinforcement (11.1)
    road: bool = False            # the whole move was along a road (6.6)
    guard_cost: bool = False      # moving here commits the Guard (12.2.1)

    def to_json(self) -> dict:
        d = {"hex": self.hex, "cost": self.cost, "path": list(self.path)}
        if self.entry:
            d["entry"] = self.entry
        if self.road:
            d["road"] = True
        if self.guard_cost:
            d["guard_cost"] = True
        return d


def _reach_value(hex_: str, cost: int, path: tuple, entry: str | None, road: bool) -> Reach:
    """``Reach(hex_, cost, path, entry, road)`` made without the frozen dataclass's field-by-field
    ``__init__`` (the same value: a Reach has nothing derived)."""
    r = object.__new__(Reach)
    r.__dict__.update(hex=hex_, cost=cost, path=path, entry=entry, road=road, guard_cost=False)
    return r

def movement_allowance(state: GameState, uid: str) -> int:
    """The unit's allowance this phase: printed value (16.9.2 leaders move like cavalry, as printed),
    1 at night (14.0; 0 for the Fuentes supply column, exclusive 6.10), +1 forced march (12.3) unless
    Tired or worse (16.8.3), -1 when Weary or Spent (16.8.3). In the French night march (Fuentes 14.1)
    the forced march that counts is the French one made for it, never the allied one of the phase before."""
    sc = state.scenario
    d = sc.units[uid]
    u = state.unit(uid)
    ma = d.movement
    if state.night:
        ma = 0 if (d.id == sc.spec.exclusive.supply_column) else min(ma, 1)
    fatigue = u.fatigue if state.has("fatigue") else 0
    forced = state.night_march_forced if state.night_march_left is not None else state.forced_march
    if forced and fatigue < 2:
        ma += 1
    if fatigue >= 3:
        ma -= 1
    return max(ma, 0)


def _rugged_stop(state: GameState, d, board: Board, a: str | None, b: str) -> bool:
    """6.5: entering Forest, Rough or Marsh stops the mover, except along a road (6.6), for light
    infantry (16.7.1) and cossack cavalry (16.7.2, which pay two points instead: :func:`_cossack_surcharge`)
    with special units, and for leaders (16.9.2)."""
    if board.terrain(b) not in RUGGED:
        return False
    if d.type == "leader":
        return False
    if a is not None and board.is_road_link(a, b):
        return False
    if _light_through_rugged(state, d):
        return False      # 16.7.1
    if state.has("special_units") and d.has("cossack") and d.type == "cavalry":
        return False      # 16.7.2
    return True


def _light_through_rugged(state: GameState, d) -> bool:
    """16.7.1: with special units, light infantry need not stop in a rugged hex; not in the older edition,
    whose Light Division only disengages (Bussaco exclusive 16.8)."""
    return state.has("special_units") and d.has("light") and d.type == "infantry" \
        and state.scenario.tables.rules.light_infantry_through_rugged


def _cossack_surcharge(state: GameState, d, board: Board, a: str | None, b: str) -> int:
    """16.7.2: a cossack goes on through a rugged hex (off the road) by spending two Movement Points on
    it; the points it pays beyond the hex's own cost. With too few points left for that it may still enter
    at the usual cost, and then it stops there (see :func:`_successors`)."""
    if not (state.has("special_units") and d.has("cossack") and d.type == "cavalry"):
        return 0
    if board.terrain(b) not in RUGGED or (a is not None and board.is_road_link(a, b)):
        return 0
    c = _step_cost(state, board, a, b)
    return 0 if c is None else max(0, 2 - c)


def _may_pay_surcharge(state: GameState, d) -> bool:
    """Whether :func:`_cossack_surcharge` can be more than 0 for this unit (16.7.2)."""
    return state.has("special_units") and d.has("cossack") and d.type == "cavalry"


def _step_cost(state: GameState, board: Board, a: str | None, b: str) -> int | None:
    """Movement Points to enter ``b`` from ``a`` (TEC of the tables file); None when prohibited."""
    return _step_cost_cached(board, state.scenario.tables, a, b)


@lru_cache(maxsize=64)
def _step_costs(board: Board, tables) -> dict:
    """(a, b) -> cost of the step, filled in as asked, for one board and tables file (bounded in number)."""
    return {}


_NO_COST = object()


def _step_cost_cached(board: Board, tables, a: str | None, b: str) -> int | None:
    table = _step_costs(board, tables)
    c = table.get((a, b), _NO_COST)
    if c is _NO_COST:
        c = table[(a, b)] = _compute_step_cost(board, tables, a, b)
    return c


def _compute_step_cost(board: Board, tables, a: str | None, b: str) -> int | None:
    if b in board.prohibited:
        return None
    tm = tables.terrain_movement(board.terrain(b))
    if tm.prohibited:
        return None
    cost = tm.cost
    if a is not None:
        feats = board.hexside_features(a, b)
        if feats:
            if not board.crossing_allowed(a, b):
                return None
            for f in feats:
                if f in ("bridge", "ford") or (f == "major_river" and feats & {"bridge", "ford"}):
                    continue
                hm = tables.hexside(f).movement
                if hm.prohibited:
                    return None
                cost += hm.extra
    return cost


@lru_cache(maxsize=64)
def _edges(board: Board, tables) -> dict:
    """hex -> ((neighbour, Movement Points to enter it, along a road link, rugged), ...) for every step
    the TEC allows (prohibited ones left out), once per board and tables file (bounded in number).
    A board with terrain changed from its map's (Fuentes 14.2 Fieldworks) takes its map's rows and works
    out again only the steps into a changed hex (a step's cost and rugged flag read the hex entered)."""
    nbrs = neighbours_map(board)
    rows = nbrs.keys()
    out = {}
    if board.base is not board:
        out = dict(_edges(board.base, tables))
        changed = board.terrain_changed
        rows = {a for h in changed for a in nbrs.get(h, ())}
    for a in rows:
        ns = nbrs[a]
        row = []
        for b in ns:
            c = _step_cost_cached(board, tables, a, b)
            if c is not None:
                row.append((b, c, board.is_road_link(a, b), board.terrain(b) in RUGGED))
        out[a] = tuple(row)
    return out


@lru_cache(maxsize=64)
def _whole_steps(board: Board, tables) -> bool:
    """Whether every step :func:`_edges` allows costs a whole number of Movement Points (so does the
    16.7.2 surcharge, 2 less a whole cost): then the searches run in whole-number buckets. A board with
    changed terrain (14.2) asks its map's answer and the rows :func:`_edges` made again."""
    edges = _edges(board, tables)
    rows = edges.values()
    if board.base is not board:
        if not _whole_steps(board.base, tables):
            return False
        base_edges = _edges(board.base, tables)
        rows = [row for h, row in edges.items() if row is not base_edges.get(h)]
    return all(type(c) is int for row in rows for _, c, _, _ in row)


class _Within(dict):
    """hex -> a tuple whose item ``k`` is the set of neighbours one step of ``k`` points or less away (the
    steps :func:`_edges` allows; along road links only when ``road``), the last item all of them; filled
    in as asked."""

    def __init__(self, edges: dict, road: bool, base: "_Within | None" = None):
        super().__init__()
        self.edges, self.road, self.base = edges, road, base

    def __missing__(self, h):
        row = self.edges[h]
        base = self.base
        if base is not None and row is base.edges.get(h):
            v = self[h] = base[h]               # a row a Fieldworks board (14.2) took from its map's
            return v
        steps = [(b, c) for b, c, road, _ in row if road or not self.road]
        top = max((c for _, c in steps), default=0)
        v = self[h] = tuple(frozenset(b for b, c in steps if c <= k) for k in range(max(top, 0) + 1))
        return v


@lru_cache(maxsize=128)
def _within(board: Board, tables, road: bool) -> _Within:
    """:class:`_Within` per board, tables file and road flag (bounded in number); a board with changed
    terrain (14.2) takes its map's sets for the rows :func:`_edges` took from the map."""
    base = _within(board.base, tables, road) if board.base is not board else None
    return _Within(_edges(board, tables), road, base)


def _rugged_free(state: GameState, d) -> bool:
    """Movers a rugged hex does not stop (6.5): leaders (16.9.2), light infantry (16.7.1; not Bussaco's,
    16.8 of 001) and cossacks (16.7.2, who pay for it instead) with the special units rule."""
    if d.type == "leader":
        return True
    return _light_through_rugged(state, d) or (state.has("special_units") and d.has("cossack")
                                               and d.type == "cavalry")


def _successors(edges, road_only: bool, blocked, stop_in, rugged_free: bool, road_bound: bool,
                cossack_budget, onward=None, leader_ezoc=None, board=None, tables=None):
    """The steps open from a search state (hex, must stop) when ``c`` points are spent (6.3-6.7, 16.7):
    ``blocked`` hexes may not be entered; entering one of ``stop_in`` (enemy ZOC, 6.7), or a rugged hex
    off the road unless ``rugged_free`` (6.5/6.6), stops the mover; a road-bound unit keeps to road links
    (16.7.6); ``cossack_budget`` (16.7.2): the budget within which a cossack pays two points for a rugged
    hex off the road to go on (None for everyone else); ``onward(a, b)`` False forbids a step (9.6.3);
    ``leader_ezoc``: a leader may not step from one of these hexes straight into another (16.9.2);
    ``board``/``tables``: what ``edges`` was made from (:func:`_edges`), for the plain movers' shortcut."""
    if not (road_only or road_bound) and cossack_budget is None and onward is None and leader_ezoc is None \
            and board is not None:
        # the common mover: only blocked hexes, ZOC stops and (unless rugged_free) rugged stops matter;
        # a hex with no blocked or ZOC hex next to it has the same steps in every search (made once)
        free_steps, near = _plain_steps(board, tables, rugged_free)
        if rugged_free:
            def plain(node, c):
                here = node[0]
                if near[here].isdisjoint(blocked) and near[here].isdisjoint(stop_in):
                    return free_steps[here]
                return [((b, b in stop_in), step) for b, step, _, _ in edges[here] if b not in blocked]
        else:
            def plain(node, c):
                here = node[0]
                if near[here].isdisjoint(blocked) and near[here].isdisjoint(stop_in):
                    return free_steps[here]
                return [((b, (rugged and not road) or b in stop_in), step)
                        for b, step, road, rugged in edges[here] if b not in blocked]
        return plain

    def successors(node, c):
        here = node[0]
        out = []
        add = out.append
        lz = leader_ezoc is not None and here in leader_ezoc
        for b, step, road, rugged in edges[here]:
            if (road_only or road_bound) and not road:
                continue
            if b in blocked:
                continue
            if onward is not None and not onward(here, b):
                continue
            if lz and b in leader_ezoc:
                continue
            stop = b in stop_in
            if rugged and not road:
                if cossack_budget is not None:
                    extra = 2 - step
                    if extra > 0:
                        if c + step + extra <= cossack_budget:
                            step += extra
                        else:
                            stop = True
                elif not rugged_free:
                    stop = True
            add(((b, stop), step))
        return out
    return successors


@lru_cache(maxsize=64)
def _plain_steps(board: Board, tables, rugged_free: bool) -> tuple[dict, dict]:
    """For the plain movers of :func:`_successors`, per hex of the board: the steps open from it when no
    neighbour is blocked or in an enemy ZOC (a rugged hex off the road stops the mover unless
    ``rugged_free``, 6.5/6.6), and the neighbours its steps go to (per board and tables file, bounded)."""
    edges = _edges(board, tables)
    rows = edges
    free: dict = {}
    near: dict = {}
    if board.base is not board:
        # a board with changed terrain (Fuentes 14.2): its map's rows, and those :func:`_edges` made again
        base_free, base_near = _plain_steps(board.base, tables, rugged_free)
        free, near = dict(base_free), dict(base_near)
        base_edges = _edges(board.base, tables)
        rows = {h: row for h, row in edges.items() if row is not base_edges.get(h)}
    for h, row in rows.items():
        free[h] = tuple(((b, bool(rugged and not road and not rugged_free)), step) for b, step, road, rugged in row)
        near[h] = frozenset(b for b, _, _, _ in row)
    return free, near


def _run_search(start: str, base: int, budget: int, successors, moved_on: list | None = None,
                whole: bool = False) -> dict:
    """Cheapest ways within ``budget`` by :func:`engine.core.graph.search` over states (hex, must stop
    there): hex -> (cost, path of hexes). Whether a mover stops in a hex depends on the step that brought
    it there (6.5/6.6 road or not, 6.7, 16.7.2), so one hex can be two states, and a way that lets the
    mover go on is kept beside a cheaper one that stops it (ties: the way found first). Whole-number
    costs (``whole``: :func:`_whole_steps`, true of every TEC in data/n20) take the list-per-cost form of
    the same search; ``moved_on`` gets the (state, cost) pairs the search went on from."""
    if whole and type(base) is int and type(budget) is int:
        return search_places_whole((start, False), base, successors, budget, _must_stop, _hex_of_node, moved_on)
    if moved_on is not None:
        inner, note = successors, moved_on.append

        def successors(node, c):
            note((node, c))
            return inner(node, c)
    return search_places((((start, False), base),), successors, budget, _must_stop, _hex_of_node)


_hex_of_node = operator.itemgetter(0)         # a search state (hex, must stop) -> its hex


def search_moves(state: GameState, uid: str, end_on_friends: bool = False) -> dict[str, Reach]:
    """Every hex the unit may end its move in this phase, with the cheapest legal path (6.x, 7.x, 11.x).

    ``end_on_friends``: also the hexes a friendly unit holds (a movement phase judges 6.9 at its end, so a
    move may end on a friend that moves on: :func:`engine.n20.game.movement.destinations` decides which).
    Rules applied: 6.2 (allowance, one hex always), 6.3 (no enemy hex), 6.5/6.6 (rugged stop, road),
    6.7/6.8 (EZOC stop, stuck; leaders 16.9.2), 6.9 (no ending stacked; leaders stack-free), 7.6/14.0
    (night: v3 EZOC hexes prohibited and exits free; v2 no ZOCs), 9.6.3 (a Routed! unit only moves on
    away toward its LOC), 11.1-11.4 (reinforcement entry, march order, blocked entry), 12.2.1 (Guard
    commitment flagged), 16.7.6 / 6.10 (road-bound), 16.8.3 (Spent units avoid EZOCs), 17.1 (leaving a
    square costs the first point).
    """
    sc = state.scenario
    board = state.board
    d = sc.units[uid]
    u = state.unit(uid)
    side = d.side
    rules = sc.tables.rules
    night_v3 = state.night and rules.night_zoc == "reversed"
    ezoc = enemy_zoc(state, side) if not (state.night and rules.night_zoc == "none") else frozenset()
    if u.status != "map":
        return {}       # a reinforcement enters by entry_options (11.1)
    leader = d.type == "leader"
    road_bound = d.has("road_bound")
    spent = state.has("fatigue") and u.fatigue >= 4
    ma = movement_allowance(state, uid)
    if u.square:
        ma -= 1   # 17.1: the first point removes the In Square marker
    if not night_v3 and u.hex in ezoc and not leader:
        return {}       # 6.8: stuck in an enemy ZOC by day
    start = u.hex
    routed = bool(u.routed and rules.routed_markers)
    key = (board, sc.tables, start, ma, night_v3, spent, leader, road_bound, _rugged_free(state, d),
           _may_pay_surcharge(state, d), side if routed else None)
    merged, extra = _reach_looked(key, enemy_hexes(state, side), ezoc)
    if not leader and not end_on_friends:
        # 6.9: no ending stacked. The hexes reached never include the start, so a hex is taken when a unit
        # of the side that counts for stacking stands there (what friendly_hexes(exclude=uid) holds),
        # asked of the hexes reached only
        occ = state.occupants.get
        stacking = stackers(sc, side)
        out = {h: r for h, r in merged if (ids := occ(h)) is None or stacking.isdisjoint(ids)
               or cadre_meets_cadre(state, d, h)}
        for n, r in extra:
            if (ids := occ(n)) is None or stacking.isdisjoint(ids):
                out[n] = r
    else:
        out = dict(merged)
        out.update(extra)
    if d.has("guard") and out:
        out = _guard_flags(state, uid, out)
    return out


_REACH_KEYS = 8192          # (unit's start and movement inputs) keys kept; each keeps its last 8 searches
_REACH: dict = {}
_REACH_LOCK = threading.Lock()


def _reach_looked(key: tuple, enemies: frozenset, ezoc: frozenset) -> tuple[tuple, tuple]:
    """:func:`_reach_search` for ``key`` (its arguments but the enemy and enemy-ZOC hexes), by value
    (:func:`_by_looked`)."""
    return _by_looked(key, enemies, ezoc, lambda: _reach_search(*key[:4], enemies, ezoc, *key[4:]))


def _by_looked(key: tuple, enemies: frozenset, ezoc: frozenset, search):
    """``search()`` (an answer and the hexes it looked at) for ``key`` (every other value it reads), by
    value: a search reads the enemy and enemy-ZOC hexes only at the hexes it looked at, so an earlier
    search of the same key whose looked-at hexes hold the same enemy and ZOC hexes gave this answer too.
    Bounded (the oldest keys go first) and safe under threads (an entry list is replaced whole; at worst
    two threads search the same thing)."""
    seen = _REACH.get(key)
    if seen is not None:
        for looked, e, z, out in seen:
            if enemies & looked == e and ezoc & looked == z:
                return out
    out, looked = search()
    entry = (looked, enemies & looked, ezoc & looked, out)
    with _REACH_LOCK:
        seen = _REACH.get(key)
        if seen is None and len(_REACH) >= _REACH_KEYS:
            del _REACH[next(iter(_REACH))]
        _REACH[key] = (entry,) + (seen[:7] if seen else ())
    return out


def _looked_at(board: Board, tables, moved_on: list, budget: int, road: bool, looked: set) -> None:
    """Add to ``looked`` the hexes a search read: those a step within the budget from a state it went on
    from (each state but the start was such a hex of the state before it, so it is among them); along road
    links only for a road move (``road``: the other steps are skipped before any hex is read)."""
    within = _within(board, tables, road)
    for node, c in moved_on:
        t = within[node[0]]
        left = budget - c
        looked |= t[left] if left < len(t) else t[-1]


def _reach_search(board: Board, tables, start: str, ma: int, enemies: frozenset, ezoc: frozenset,
                  night_v3: bool, spent: bool, leader: bool, road_bound: bool, rugged_free: bool,
                  cossack: bool, routed_side: str | None) -> tuple[tuple[tuple, tuple], frozenset]:
    """The searches of :func:`search_moves` from ``start`` (6.2-6.8, 7.6/14.0, 9.6.3, 16.7, 16.8.3, 16.9.2)
    (``enemies``/``ezoc``: the enemy and enemy-ZOC hexes; ``routed_side``: the side whose LOC a Routed!
    unit moves away toward, 9.6.3, or None). Returns the hexes reached, in the order found, before the
    6.9 stacking filter (the caller applies it, it depends on the friendly units), and the one-hex moves
    6.2 grants beside them; and the hexes whose place in ``enemies`` or ``ezoc`` the answer depends on:
    the start, its neighbours (6.2's one hex), every hex the searches moved on from and every hex a step
    from one of those within the budget (a step past the budget is dropped unread, whatever is there)."""
    edges = _edges(board, tables)
    blocked = enemies | ezoc if (night_v3 or spent) else enemies     # 6.3; 7.6/14.0 (v3); 16.8.3
    stop_in = ezoc if not night_v3 else frozenset()                  # 6.7
    onward = None
    loc_dist = None
    if routed_side is not None:
        locs = board.loc_hexes(routed_side)

        def loc_dist(h):
            return min((distance(board, h, l) for l in locs), default=0)
        ld: dict = {}

        def onward(a, b):                                           # 9.6.3
            da = ld.get(a)
            if da is None:
                da = ld[a] = loc_dist(a)
            db = ld.get(b)
            if db is None:
                db = ld[b] = loc_dist(b)
            return db < da

    def can_enter(a, b) -> int | None:
        if b in enemies:
            return None
        c = _step_cost_cached(board, tables, a, b)
        if c is None:
            return None
        if night_v3 and b in ezoc:
            return None   # 7.6 / 14.0 (v3): EZOC hexes are prohibited at night
        if spent and b in ezoc:
            return None   # 16.8.3
        if road_bound and (a is None or not board.is_road_link(a, b)) and a is not None:
            return None   # 16.7.6 / 6.10
        if loc_dist is not None and a is not None and loc_dist(b) >= loc_dist(a):
            return None   # 9.6.3: only onward, away toward the LOC (9.8.6)
        if leader and a is not None and a in ezoc and b in ezoc:
            return None   # 16.9.2: not straight from one EZOC into another
        return c

    out: dict[str, Reach] = {}
    nbrs = neighbours_map(board)
    looked = {start, *nbrs[start]}                     # 6.2's one hex reads each neighbour (can_enter)
    whole = _whole_steps(board, tables)
    for road_only in (False, True):
        if road_only and not any(road for _, _, road, _ in edges[start]):
            continue     # no road step leaves the start hex: a road-only move (6.6) goes nowhere
        budget = ma + (1 if road_only else 0)
        succ = _successors(edges, road_only, blocked, stop_in, rugged_free, road_bound,
                           budget if cossack else None, onward, ezoc if leader else None, board, tables)
        moved_on: list = []
        res = _run_search(start, 0, budget, succ, moved_on, whole)
        _looked_at(board, tables, moved_on, budget, road_only or road_bound, looked)
        for h, (cost, path) in res.items():
            if h == start:
                continue
            if h not in out or (not road_only and out[h].road) or cost < out[h].cost:
                if h in out and not out[h].road and road_only:
                    continue
                out[h] = _reach_value(h, cost, path, None, road_only)
    # 6.2: one hex is always possible (unless prohibited)
    extra = []
    for n in nbrs[start]:
        if n in out:
            continue
        c = can_enter(start, n)
        if c is not None:
            extra.append((n, _reach_value(n, c, (start, n), None, False)))
    return (tuple(out.items()), tuple(extra)), frozenset(looked)


def cadre_meets_cadre(state: GameState, d, h: str) -> bool:
    """16.6.2: with the breakdown rule a Cadre may end its move on a lone Cadre of its nationality."""
    if not state.has("breakdown") or d.type != "cadre" or state.step != "movement":
        return False    # only a movement phase ends with the build-up (not a night march, 14.1)
    sc = state.scenario
    others = [x for x in state.occupants.get(h, ()) if sc.units[x].type != "leader"]
    if not (len(others) == 1 and sc.units[others[0]].type == "cadre"
            and sc.units[others[0]].nationality == d.nationality and sc.units[others[0]].side == d.side):
        return False
    # the pair must be able to combine: an eliminated large infantry unit of their nationality
    return any(u.status == "gone" and (x := sc.units[u.id]).side == d.side and x.type == "infantry"
               and x.strength >= 2 and not x.has("cadre") and x.nationality == d.nationality for u in state.units)


_must_stop = operator.itemgetter(1)           # a search state (hex, must stop) -> whether the mover stops there


def _guard_flags(state: GameState, uid: str, out: dict[str, Reach]) -> dict[str, Reach]:
    """12.2.1: moving the Guard into a hex from which it could attack an enemy unit costs a Morale Point
    (free when either side has 1 point left); already able to attack from where it stands: no cost (a
    reinforcement stands nowhere yet, so entering next to an enemy commits it)."""
    if min(m for _, m in state.morale) <= 1:
        return out
    side = state.scenario.units[uid].side
    enemy = [u.hex for u in on_map_units(state, other(side))]
    start = state.unit(uid).hex

    def can_attack(h):
        return h is not None and any(combat_adjacent(state, h, e) for e in enemy)

    if can_attack(start):
        return out
    return {h: (Reach(r.hex, r.cost, r.path, r.entry, r.road, True) if can_attack(h) else r) for h, r in out.items()}


def entry_options(state: GameState, uid: str, areas: tuple[str, ...], end_on_friends: bool = False) \
        -> dict[str, Reach]:
    """Where a reinforcement can get to this phase (11.1-11.4): it enters at a hex of its areas, paying
    that hex's cost plus one more point for each unit that already entered there this phase (11.2);
    it may not enter an enemy-occupied hex (11.4); entering an EZOC stops it (6.7)."""
    sc = state.scenario
    board = state.board
    d = sc.units[uid]
    side = d.side
    entered = dict(state.entered)
    out: dict[str, Reach] = {}
    hexes = [h for a in areas for h in board.entry_areas.get(a, ())]
    enemies = enemy_hexes(state, side)
    friends = friendly_hexes(state, side, exclude=uid) if not end_on_friends else frozenset()
    night_v3 = state.night and sc.tables.rules.night_zoc == "reversed"
    ezoc = enemy_zoc(state, side) if not (state.night and sc.tables.rules.night_zoc == "none") else frozenset()
    ma = movement_allowance(state, uid)
    for e in hexes:
        if e in enemies:
            continue   # 11.4
        if night_v3 and e in ezoc:
            continue
        if d.has("road_bound") and e not in board.road_hexes:
            continue   # 16.7.6 / exclusive 6.10: a road-bound unit stays on the road
        first = _step_cost(state, board, None, e)
        if first is None:
            continue
        first += entered.get(e, 0)     # 11.2 march order
        road_start = e in board.road_hexes
        # 6.2: a unit can always enter one hex, even when the march-order cost exceeds its allowance
        if e not in friends or d.type == "leader":
            cand = Reach(e, first, (e,), e, road_start)
            if e not in out or cand.cost < out[e].cost:
                out[e] = cand
        if e in ezoc or _rugged_stop(state, d, board, None, e) and not road_start:
            continue
        if not road_start:
            first += _cossack_surcharge(state, d, board, None, e)    # 16.7.2: two points to go on from it
        for road_only in (False, True):
            if road_only and not road_start:
                continue
            budget = ma + (1 if road_only else 0)
            if first > budget:
                continue
            # the same search for every reinforcement moving alike, by value (:func:`_by_looked`)
            key = ("entry", state.board, sc.tables, e, first, budget, road_only, night_v3, _rugged_free(state, d),
                   d.has("road_bound"), _may_pay_surcharge(state, d))
            tmp = _by_looked(key, enemies, ezoc, lambda: _entry_search(state, uid, e, first, budget, road_only,
                                                                       enemies, ezoc, night_v3))
            for h, (cost, path) in tmp:
                if h == e or (h in friends and d.type != "leader"):
                    continue
                if h not in out or cost < out[h].cost:
                    out[h] = Reach(h, cost, path, e, road_only)
    if d.has("guard") and out:
        out = _guard_flags(state, uid, out)      # 12.2.1: entering next to an enemy commits the Guard too
    return out


def _entry_search(state, uid, e, first, budget, road_only, enemies, ezoc, night_v3):
    sc = state.scenario
    d = sc.units[uid]
    blocked = enemies | ezoc if night_v3 else enemies        # 11.4 / 6.3; 7.6 (v3 night)
    succ = _successors(_edges(state.board, sc.tables), road_only, blocked, ezoc, _rugged_free(state, d),
                       d.has("road_bound"), budget if _may_pay_surcharge(state, d) else None,
                       board=state.board, tables=sc.tables)
    moved_on: list = []
    res = _run_search(e, first, budget, succ, moved_on, _whole_steps(state.board, sc.tables))
    looked = {e}
    _looked_at(state.board, sc.tables, moved_on, budget, road_only or d.has("road_bound"), looked)
    return tuple(res.items()), frozenset(looked)


# ------------------------------------------------------------------------------------------------
# A move's path, step by step (6.0)
# ------------------------------------------------------------------------------------------------
def path_cost(state: GameState, uid: str, path: tuple[str, ...]) -> int:
    """The Movement Points ``uid`` spends along ``path`` (its hex first; a reinforcement's entry hex first,
    11.1), every step checked by the rules of the search itself (:func:`_successors`: 6.3, 6.5-6.7, 7.6,
    9.6.3, 16.7, 16.8.3, 16.9.2) and the whole within the allowance (6.2, +1 wholly along a road 6.6; one
    hex always). Raises :class:`RuleViolation` naming the rule of the first step that breaks one (6.0)."""
    sc = state.scenario
    board = state.board
    d = sc.units[uid]
    u = state.unit(uid)
    rules = sc.tables.rules
    night_v3 = state.night and rules.night_zoc == "reversed"
    ezoc = enemy_zoc(state, d.side) if not (state.night and rules.night_zoc == "none") else frozenset()
    enemies = enemy_hexes(state, d.side)
    leader, road_bound = d.type == "leader", d.has("road_bound")
    spent = state.has("fatigue") and u.fatigue >= 4
    ma = movement_allowance(state, uid) - (1 if u.square else 0)           # 17.1
    edges = _edges(board, sc.tables)
    if not path or any(h not in edges for h in path):
        raise RuleViolation("6.0", f"a path of hexes on the map, from where {uid} stands")
    if u.status == "map":
        if path[0] != u.hex:
            raise RuleViolation("6.0", f"{uid}'s move starts in {u.hex}, not {path[0]}")
        base, road_start, onward, lz = 0, True, _onward(board, d.side) if u.routed and rules.routed_markers else None, \
            ezoc if leader else None
        blocked = enemies | ezoc if (night_v3 or spent) else enemies           # 6.3; 7.6/14.0; 16.8.3
        stop_in = ezoc if not night_v3 else frozenset()                        # 6.7
    else:
        e = path[0]                                                            # 11.1 the entry hex
        if e not in {h for a in u.areas for h in board.entry_areas.get(a, ())}:
            raise RuleViolation("11.1", f"{uid} enters at a hex of its entry areas ({', '.join(u.areas)}), not {e}")
        if e in enemies or (night_v3 and e in ezoc) or (road_bound and e not in board.road_hexes) \
                or _step_cost(state, board, None, e) is None:
            raise RuleViolation("11.4", f"{uid} may not enter at {e}")
        base = _step_cost(state, board, None, e) + dict(state.entered).get(e, 0)   # 11.2 march order
        road_start, onward, lz = e in board.road_hexes, None, None
        if len(path) > 1 and (e in ezoc or (_rugged_stop(state, d, board, None, e) and not road_start)):
            raise RuleViolation("6.7" if e in ezoc else "6.5", f"{uid} must stop in {e}, where it enters")
        if not road_start:
            base += _cossack_surcharge(state, d, board, None, e)                 # 16.7.2
        blocked, stop_in = (enemies | ezoc if night_v3 else enemies), ezoc
    roads = road_start and all(board.is_road_link(a, b) for a, b in zip(path, path[1:]))
    problem = None
    for road_only in ((False, True) if roads else (False,)):
        budget = ma + (1 if road_only else 0)
        succ = _successors(edges, road_only, blocked, stop_in, _rugged_free(state, d), road_bound,
                           budget if _may_pay_surcharge(state, d) else None, onward, lz, board, sc.tables)
        node, cost = (path[0], False), base
        for a, b in zip(path, path[1:]):
            step = None if node[1] else next((((n, stop), c) for (n, stop), c in succ(node, cost) if n == b), None)
            if node[1]:
                problem = ("6.7" if a in stop_in else "6.5", f"{uid} must stop in {a}: it may not go on to {b}")
            elif step is None:
                problem = _step_refused(state, d, a, b, enemies, ezoc, night_v3, spent, road_bound, onward, lz)
            else:
                node, cost = step[0], cost + step[1]
                continue
            break
        else:
            if cost <= budget or len(path) == (2 if u.status == "map" else 1):
                return cost                                                    # 6.2: one hex always
            problem = problem or ("6.2", f"the path costs {cost} Movement Points, more than {uid}'s {budget}")
    raise RuleViolation(*problem)


def _onward(board: Board, side: str):
    """9.6.3: a Routed! unit moves only onward, away toward its LOC (the rule :func:`_reach_search` reads)."""
    locs = board.loc_hexes(side)

    def onward(a, b):
        return min((distance(board, b, x) for x in locs), default=0) < min((distance(board, a, x) for x in locs),
                                                                        default=0)
    return onward


def _step_refused(state, d, a, b, enemies, ezoc, night_v3, spent, road_bound, onward, lz) -> tuple[str, str]:
    """The rule that refuses the step from ``a`` to ``b`` (for :func:`path_cost`'s message)."""
    uid = d.id
    if b not in neighbours_map(state.board)[a]:
        return "6.0", f"{a} and {b} are not next to each other"
    if b in enemies:
        return "6.3", f"{b} holds an enemy unit or garrison: {uid} may not enter it"
    if _step_cost(state, state.board, a, b) is None:
        return "6.0", f"the terrain chart prohibits {uid} stepping from {a} into {b}"
    if (night_v3 or spent) and b in ezoc:
        return ("7.6" if night_v3 else "16.8.3"), f"{b} is in an enemy ZOC, which {uid} may not enter now"
    if road_bound and not state.board.is_road_link(a, b):
        return "16.7.6", f"{uid} keeps to the road: {a} to {b} is not along it"
    if onward is not None and not onward(a, b):
        return "9.6.3", f"{uid} is Routed!: it moves only onward, away toward its LOC"
    if lz is not None and a in lz and b in lz:
        return "16.9.2", f"{uid} may not move straight from one enemy ZOC ({a}) into another ({b})"
    return "6.0", f"{uid} may not step from {a} into {b}"
