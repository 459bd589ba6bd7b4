"""Movement (4.2.2, with the Albuera terrain rules 3, 6-9 and 7.1.2 / 7.2.1): movement points, the cost of a
path, the checks and the move itself, and where a unit can go (:func:`reach`, for bots and boards).
"""
from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from engine.core.errors import RuleViolation
from engine.core.graph import dijkstra

from .actions import Action, Kind
from .command import need_active, own_unit
from .leaders import check_leader_move, move_leader, split_leaders
from .state import Game
from .units import ART, CAV, INF, Phase, Unit

__all__ = ["allowance", "points_left", "step_cost", "move_cost", "approach_taken", "check_step_back",
           "check_group", "check_move", "check_move_end", "move", "do_move", "reach", "search_reach",
           "clear_reach_cache", "REACH_CACHE", "Reach", "reachable", "can_move"]


def allowance(g: Game, u: Unit) -> int:
    mv = g.tables.movement
    by_arm: dict[str, int] = {INF: mv.infantry, CAV: mv.cavalry, ART: mv.artillery}
    base = by_arm[u.kind]
    if g.rain and u.kind in (INF, ART):
        base = min(base, g.tables.optional.rain_infantry_artillery_movement)   # option 5
    return max(0, base + sum(d for uid, d in g.pace if uid == u.uid))          # 7.1.2 marcher / disorganised


def points_left(g: Game, u: Unit) -> int:
    """4.2.2: the allowance less the points already used this go by formation changes in place."""
    return allowance(g, u) - sum(n for uid, n in g.spent if uid == u.uid)


def step_cost(g: Game, u: Unit, a: str, b: str) -> int | None:
    """Cost for ``u`` to cross from ``a`` to ``b``; None for a river without bridge/ford (all points)."""
    t = g.tables.terrain
    c = g.board.crossing(a, b)
    if c.water == "river" and not c.crossing:
        return None                                              # Albuera terrain 6
    cost = 1                                                     # 4.2.2
    if g.board.terrain(b) == "wood" and u.kind in (CAV, ART) and not c.road:
        cost += t.woods_entry_cavalry_artillery                  # Albuera terrain 3, 9
    if c.water == "stream" and not c.crossing:
        cost += t.stream_cost_artillery if u.kind == ART else t.stream_cost_infantry_cavalry   # terrain 7
    if c.water and c.crossing and u.kind in (CAV, ART):
        cost += t.crossing_cost_cavalry_artillery                # Albuera terrain 8
    if u.square:
        cost += g.tables.movement.square_extra                   # 4.2.2: squares pay +1
    return cost


def move_cost(g: Game, u: Unit, path: tuple[str, ...], end: str = "area", attack: str | None = None) -> int:
    """Movement points ``u`` spends along ``path`` (then ``end``, or an attack into ``attack``).

    Raises RuleViolation for an impossible route."""
    mv = g.tables.movement
    here: str | None = u.area
    total = 0
    steps = list(path) + ([attack] if attack else [])
    on_approach = u.approach is not None
    if on_approach and steps and steps[0] == u.area:
        # 4.2.2 NB: alone, it may step back off the approach into its own area and go on from there
        total += mv.approach_step
        steps, on_approach = steps[1:], False
    if on_approach and steps and steps[0] != u.approach:
        raise RuleViolation("4.2.2", f"{u.uid} is on the approach facing {u.approach}: its first move is into "
                                     f"{u.approach}, or back into its own area (a path starting with {u.area})")
    if on_approach and not steps and (end in ("area", "square") or end.startswith("approach:")):
        total += mv.approach_step                                # off the approach into its own area
    square = u.square
    for i, nxt in enumerate(steps):
        if here is None or not g.board.adjacent(here, nxt):
            raise RuleViolation("4.2.2", f"{here} and {nxt} do not border each other")
        c = step_cost(g, u if u.square == square else replace(u, square=square), here, nxt)   # 4.2.2: +1 only in square
        if g.board.is_close(nxt):
            square = False                                       # 4.2.2: close terrain breaks the square
        if c is None:
            if i != 0 or len(steps) != 1 or attack:
                raise RuleViolation("Albuera terrain 6", f"crossing the river between {here} and {nxt} takes all "
                                                         f"of a unit's movement (no attack across it)")
            c = allowance(g, u)
        total += c
        here = nxt
    if attack:
        total += mv.enter_enemy_area                              # 4.2.2: +1 to enter an enemy area
    if end.startswith("approach:"):
        total += mv.approach_step
    elif end in ("square", "line"):
        total += mv.square_change
    elif end == "deploy":
        total += mv.deploy
    return total


def approach_taken(g: Game, area: str, facing: str, except_uid: str | None = None) -> bool:
    """1.1: a unit (other than ``except_uid``) already stands on the approach between the two areas."""
    return any(v.area in (area, facing) and v.approach in (area, facing) and v.uid != except_uid
               and {v.area, v.approach} == {area, facing} for v in g.units)


def check_group(g: Game, a: Action) -> tuple[Action, list[Unit]] | None:
    """What a move and an attack check alike (4.2.2, 7.1): units named, leaders activated, the group our
    own, activated, from one area, along a path free of enemies. Returns the action without its leaders
    and the units; ``None`` for a leader's own move (checked here too)."""
    if not a.units:
        raise RuleViolation("4.2.2", "name the unit(s) to move")
    names, leaders = split_leaders(g, a.units)
    for ld in leaders:
        if ld.name not in g.activated or ld.name in g.acted:
            raise RuleViolation("7.1", f"{ld.name} has not been activated this turn, or has moved already")
    if a.kind == Kind.MOVE and leaders:
        check_leader_move(g, a, names, leaders)
        return None
    if leaders and not names:
        raise RuleViolation("7.1", "a leader is not a combat unit: it can only join an attack")
    if any(ld.area != g.unit(names[0]).area for ld in leaders):
        raise RuleViolation("7.1", "a leader joins an attack from the attackers' area")
    us = [own_unit(g, uid) for uid in names]
    if len(set(a.units)) != len(a.units):
        raise RuleViolation("4.2.2", "a unit is named twice")
    if leaders:
        a = replace(a, units=tuple(names))
    starts = {u.area for u in us}
    if len(starts) != 1:
        raise RuleViolation("4.2.2", "a group moves from one area together")
    for u in us:
        need_active(g, u)
    for step in a.path:
        if step not in g.board:
            raise RuleViolation("4.2.2", f"no area {step!r} on the map")
        if g.holder(step) not in (None, g.player):
            raise RuleViolation("4.2.2", f"area {step} holds enemy units: entering it is an attack")
    return a, us


def check_move(g: Game, a: Action) -> None:
    """4.2.2: the group's checks (:func:`check_group`), then its ending and the points it spends."""
    group = check_group(g, a)
    if group is not None:
        check_move_end(g, *group)


def check_move_end(g: Game, a: Action, us: list[Unit]) -> None:
    end = a.end
    final = a.path[-1] if a.path else us[0].area
    assert final is not None, "the group stands in an area (own_unit)"
    if end.startswith("approach:"):
        facing = end.split(":", 1)[1]
        if len(us) != 1 or us[0].kind != INF:
            raise RuleViolation("1.1", "only a single infantry unit may occupy an approach")
        if facing not in g.board or not g.board.adjacent(final, facing):
            raise RuleViolation("1.1", f"area {final} has no border with {facing!r}")
        if not g.board.has_approach(final, facing):
            raise RuleViolation("1.1", f"no approach between {final} and {facing}: approaches lie only between "
                                       f"two open areas")
        if approach_taken(g, final, facing, us[0].uid):
            raise RuleViolation("1.1", f"the approach between {final} and {facing} is already occupied")
    elif end == "square":
        if any(u.kind != INF for u in us):
            raise RuleViolation("4.2.2", "only infantry may form square")
        if g.board.is_close(final):
            raise RuleViolation("4.2.2", "only infantry in open terrain may form square")
        if any(u.square for u in us) and not a.path:
            raise RuleViolation("4.2.2", "already in square")
    elif end == "line":
        if any(not u.square for u in us):
            raise RuleViolation("4.2.2", "only a square can leave square")
    elif end == "deploy":
        if any(u.kind != ART for u in us):
            raise RuleViolation("4.2.2", "only artillery deploys")
        if g.board.is_close(final):
            raise RuleViolation("Albuera terrain 2-3", f"artillery in {final} must stay limbered")
    elif end != "area":
        raise RuleViolation("4.2.2", f"unknown move ending {end!r} (area, approach:X, square, line, deploy)")
    if not a.path and end == "area" and not all(u.approach for u in us):
        raise RuleViolation("4.2.2", "a move needs a path (or an ending such as square, approach:X, deploy)")
    check_step_back(a, us)
    for u in us:
        cost = move_cost(g, u, a.path, end)
        if cost > points_left(g, u):
            raise RuleViolation("4.2.2", f"{u.uid} would need {cost} movement points; it has {points_left(g, u)} left")


def check_step_back(a: Action, us: list[Unit]) -> None:
    """4.2.2 NB: a path that starts in the group's own area is infantry stepping off its approach, alone."""
    if a.path and a.path[0] == us[0].area:
        if len(us) != 1 or us[0].approach is None:
            raise RuleViolation("4.2.2", f"a path starting in {us[0].area}, the group's own area, is only for a "
                                         f"single infantry unit stepping back off its approach")


def move(g: Game, a: Action) -> Game:
    """4.2.2 (7.1: a leader's own move)."""
    names, leaders = split_leaders(g, a.units)
    if leaders:
        return move_leader(g, leaders[0], a)
    return do_move(g, a)


def do_move(g: Game, a: Action) -> Game:
    final = a.path[-1] if a.path else g.unit(a.units[0]).area
    assert final is not None, "the group stands in an area (check_move)"
    changed = []
    close = any(g.board.is_close(x) for x in a.path) or g.board.is_close(final)
    costs = {uid: move_cost(g, g.unit(uid), a.path, a.end) for uid in a.units}
    for uid in a.units:
        u = g.unit(uid)
        approach = None
        square = u.square and not close
        deployed = u.deployed if not a.path else False          # 4.2.2: artillery that moves limbers
        if a.end.startswith("approach:"):
            approach, square = a.end.split(":", 1)[1], False
        elif a.end == "square":
            square = True
        elif a.end == "line":
            square = False
        elif a.end == "deploy":
            deployed = True
        changed.append(replace(u, area=final, approach=approach, square=square, deployed=deployed))
    # 7.2.1: horse artillery may move one movement point and still fire (it stays ready to fire)
    horse = {uid for uid in a.units if g.unit(uid).kind == ART and g.unit(uid).arty == "horse"
             and g.unit(uid).deployed and a.path and a.end == "area" and not g.board.is_close(final)
             and move_cost(g, g.unit(uid), a.path) <= 1}
    changed = [replace(c, deployed=True) if c.uid in horse else c for c in changed]
    # 4.2.2: a formation change in place (square, line, onto or off an approach) uses points but is not
    # the unit's move: it may still move with what is left (1 to unform + 2 areas = 3)
    in_place = {uid for uid in a.units if not a.path and a.end != "deploy" and costs[uid] >= 1}
    g = replace(g.with_units(changed), acted=g.acted | (set(a.units) - horse - in_place),
                horse_moved=g.horse_moved | horse,
                spent=g.spent + tuple((uid, costs[uid]) for uid in sorted(in_place)))
    if a.path:
        g = replace(g, moved_in=g.moved_in | set(a.units))
    if a.end == "deploy":
        g = replace(g, deployed_now=g.deployed_now | set(a.units))
    return g


# ------------------------------------------------------------------------------------------------
# Where a unit can go (for the legal actions, bots and boards)
# ------------------------------------------------------------------------------------------------
# ------------------------------------------------------------------------------------------------
#: the searches of reach kept by what they read (map, tables, the unit's kind, place and formation, the
#: enemy-held areas, its points): a bot lists every unit's moves at each decision, most unchanged since
_REACH: dict = {}
REACH_CACHE = 20_000


def reach(g: Game, u: Unit) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Areas ``u`` can move to (free of enemies), with cost and path: a shortest-path search
    (engine.core.graph) over places (area, still in square, still on the approach, crossed the river).
    The answer is shared: read it, do not change it."""
    budget = points_left(g, u)
    full = allowance(g, u)
    enemy = frozenset(a for a, s in g.occupied().items() if s != u.side)
    key = (g.board.fingerprint, g.tables.fingerprint, u.kind, u.area, u.square, u.approach, enemy, budget, full)
    best = _REACH.get(key)
    if best is None:
        if len(_REACH) > REACH_CACHE:
            _REACH.clear()
        best = _REACH[key] = search_reach(g, u, budget, full, enemy)
    return best


def search_reach(g: Game, u: Unit, budget: int, full: int, enemy: frozenset) -> dict:
    start = (u.area, u.square, u.approach is not None, False)
    price: dict = {}
    plain, squared = u if not u.square else replace(u, square=False), u if u.square else replace(u, square=True)

    def neighbours(p):
        here, sq, on_app, _crossed = p
        out = []
        if on_app:
            # 4.2.2 NB: step back off the approach into its own area, then go on
            q = (here, sq, False, False)
            price[p, q] = g.tables.movement.approach_step
            out.append(q)
        for n in g.board.neighbours(here):
            if n in enemy or (on_app and n != u.approach):
                continue
            c = step_cost(g, squared if sq else plain, here, n)
            if c is None:
                # Albuera terrain 6: a river without a crossing takes the whole allowance, from the start
                if p != start or budget < full:
                    continue
                q = (n, sq, False, True)
                price[p, q] = full if not sq else full + 1
            else:
                q = (n, sq and not g.board.is_close(n), False, False)    # 4.2.2: close terrain breaks squares
                price[p, q] = c
            out.append(q)
        return out

    found = dijkstra(start, neighbours, lambda p, q: price[p, q], budget, stops=lambda p: p[3])
    best: dict[str, tuple[int, tuple[str, ...]]] = {}
    for place, r in found.items():
        area = place[0]
        if area == u.area or place == start:
            continue
        if area not in best or r.cost < best[area][0]:
            best[area] = (int(r.cost), tuple(p[0] for p in r.path[1:]))
    return best


def clear_reach_cache() -> None:
    """Forget the kept searches (a benchmark measures from cold)."""
    _REACH.clear()


class Reach(NamedTuple):
    """Where a unit can go this go: the movement points it spends (4.2.2) and the areas it goes through."""

    cost: int
    path: tuple[str, ...]


def can_move(g: Game, uid: str) -> bool:
    """The unit may move now: ours, activated, not yet acted (4, 4.2; 7.2.1 horse artillery after its
    one-point move may only fire)."""
    try:
        need_active(g, own_unit(g, uid))
    except RuleViolation:
        return False
    return g.phase == Phase.COMMAND and not g.over


def reachable(g: Game, uid: str) -> dict[str, Reach]:
    """The areas free of enemies ``uid`` can move to now, each with its cheapest cost and path (4.2.2,
    Albuera terrain 3, 6-9); empty when the unit may not move now. For boards and bots."""
    if not can_move(g, uid):
        return {}
    return {area: Reach(cost, path) for area, (cost, path) in sorted(reach(g, g.unit(uid)).items())}
