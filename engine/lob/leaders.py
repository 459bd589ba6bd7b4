"""Optional rule 7.1: leaders. The loss roll (7.1.1) as a procedure, a leader's own move (7.1), and the
leader housekeeping the game needs after combat, fire and movement (lone leaders pushed away or captured,
wounded leaders stepping back).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll, Sub

from .steps import Steps
from .actions import Action
from .state import Game
from .units import Leader, LeaderStatus

__all__ = ["loss_roll", "LOSS_OUTCOMES", "step_away", "apply_loss", "split_leaders", "leader_path_cost",
           "leader_step_cost", "check_leader_move", "move_leader", "lone_leaders", "leader_losses"]

LOSS_OUTCOMES = ("unhurt", "killed", "wounded", "slight")


def loss_roll(leader: Leader) -> Steps[str]:
    """7.1.1: a d6; on a 1 (1-2 if foolhardy, 7.1.2) a second d6 decides: 1 killed, 2 badly wounded,
    3 slightly wounded (moves one area away), 4-6 unhurt."""
    first = yield Roll("d6", rule="7.1.1", label=f"{leader.name}: leader loss roll")
    threshold = 2 if "foolhardy" in leader.attributes else 1
    if first > threshold:
        return "unhurt"
    second = yield Roll("d6", rule="7.1.1", label=f"{leader.name}: what befalls the leader")
    return {1: "killed", 2: "wounded", 3: "slight"}.get(second, "unhurt")


def step_away(g: Game, leader: Leader, rule: str, anywhere: bool = False) -> Steps[Leader]:
    """Move ``leader`` (on the map) to a free area (adjacent; with ``anywhere`` the nearest free ones), else
    capture it. Returns the new leader value. 'Free' means no enemy units."""
    board = g.board
    here = leader.area
    assert here is not None, "a leader who steps away stands on the map"
    enemy = {a for a, s in g.occupied().items() if s != leader.side}
    options = [n for n in sorted(board.neighbours(here)) if n not in enemy]
    if not options and anywhere:
        dist = board.graph.distances(here)
        free = [a for a in board.areas if a not in enemy and a != here]
        if free:
            best = min(dist.get(a, 10 ** 6) for a in free)
            options = sorted(a for a in free if dist.get(a, 10 ** 6) == best)
    if not options:
        yield Log(rule, f"{leader.name} has nowhere to go and is captured")
        return replace(leader, area=None, status=LeaderStatus.CAPTURED)
    dest = options[0] if len(options) == 1 else (yield Choose(
        tuple(options), rule=rule, player=leader.side, label=f"{leader.name} moves to",
        context=("leader-move", leader.name, tuple(options))))
    return replace(leader, area=dest)


def apply_loss(g: Game, leader: Leader, outcome: str) -> Steps[Leader]:
    """The result of a loss roll on the leader (a procedure: a slight wound asks where it goes)."""
    if outcome in ("killed", "wounded"):
        yield Log("7.1.1", f"{leader.name} is {'killed' if outcome == 'killed' else 'badly wounded'}")
        return replace(leader, area=None, status=LeaderStatus(outcome))
    if outcome == "slight":
        moved = yield from step_away(g, leader, "7.1.1")
        return moved if moved.status == LeaderStatus.CAPTURED else replace(moved)
    return leader


# ------------------------------------------------------------------------------------------------
# A leader's own move (7.1)
# ------------------------------------------------------------------------------------------------
def split_leaders(g: Game, names: Iterable[str]) -> tuple[list[str], list[Leader]]:
    """The names of an action split into unit ids and the side to act's leaders on the map (7.1)."""
    units: list[str] = []
    leaders: list[Leader] = []
    for n in names:
        ld = g.leader(n) if g.use_leaders else None
        if ld is not None:
            if ld.side != g.player or not ld.present:
                raise RuleViolation("7.1", f"{n} is not a {g.player} leader on the map")
            leaders.append(ld)
        else:
            units.append(n)
    return units, leaders


def leader_path_cost(g: Game, ld: Leader, path: Sequence[str]) -> int:
    """7.1: a leader (on the map) moves 4 and always pays the lowest terrain price (that of infantry)."""
    here, total = ld.area, 0
    assert here is not None, "a leader who moves stands on the map (split_leaders)"
    for i, nxt in enumerate(path):
        if not g.board.adjacent(here, nxt):
            raise RuleViolation("4.2.2", f"{here} and {nxt} do not border each other")
        c = g.board.crossing(here, nxt)
        if c.water == "river" and not c.crossing:
            if i != 0 or len(path) != 1:
                raise RuleViolation("Albuera terrain 6", "crossing the river takes a leader's whole move")
            return ld.movement
        total += 1 + (g.tables.terrain.stream_cost_infantry_cavalry if c.water == "stream" and not c.crossing else 0)
        here = nxt
    return total


def leader_step_cost(g: Game, ld: Leader, a: str, b: str) -> int | None:
    """7.1: what a leader pays to go from ``a`` to ``b`` (None: a river without a crossing)."""
    c = g.board.crossing(a, b)
    if c.water == "river" and not c.crossing:
        return None
    return 1 + (g.tables.terrain.stream_cost_infantry_cavalry if c.water == "stream" and not c.crossing else 0)


def check_leader_move(g: Game, a: Action, names: list[str], leaders: list[Leader]) -> None:
    """7.1: an activated leader moves on its own, along a path free of enemies, within its movement."""
    if names or len(leaders) != 1 or not a.path or a.end != "area":
        raise RuleViolation("7.1", "a leader moves on its own, along a path, to an area")
    for step in a.path:
        if step not in g.board:
            raise RuleViolation("4.2.2", f"no area {step!r} on the map")
        if g.holder(step) not in (None, g.player):
            raise RuleViolation("7.1", f"a leader may not enter {step}: enemy units are there")
    cost = leader_path_cost(g, leaders[0], a.path)
    if cost > leaders[0].movement:
        raise RuleViolation("7.1", f"{leaders[0].name} would need {cost} movement points; it has "
                                   f"{leaders[0].movement}")


def move_leader(g: Game, ld: Leader, a: Action) -> Game:
    """7.1: the leader goes to the path's last area and has acted."""
    return replace(g.with_leaders([replace(ld, area=a.path[-1])]), acted=g.acted | {ld.name})


def lone_leaders(g: Game) -> Steps[Game]:
    """7.1: a leader left alone where enemy units now stand takes a loss roll, then goes to a free area
    (captured when there is none)."""
    for ld in g.leaders:
        if not ld.present or ld.area is None:
            continue
        here = {u.side for u in g.in_area(ld.area)}
        if here and ld.side not in here:
            outcome = yield Sub(("loss", ld), partial(loss_roll, ld), rule="7.1.1", label=f"{ld.name} caught alone")
            new = yield from apply_loss(g, ld, outcome)
            if new.present and new.area == ld.area:
                new = yield from step_away(g, new, "7.1", anywhere=True)
            g = g.with_leaders([new])
    return g


def leader_losses(g: Game, leaders: Iterable[Leader], why: str) -> Steps[Game]:
    """7.1.1 for each leader given (combat past pre-combat, a hit from artillery fire), as he is in ``g``."""
    for was in leaders:
        ld = g.leader(was.name)
        if ld is None or not ld.present:
            continue
        outcome = yield Sub(("loss", ld), partial(loss_roll, ld), rule="7.1.1", label=f"{ld.name}: {why}")
        g = g.with_leaders([(yield from apply_loss(g, ld, outcome))])
    return g
