"""Command (rules 3 and 4.2): command points and the D3 (rule 1), and the activation of an area.

A D3 is a d6 halved, rounding up: the procedure rolls the d6 the players actually throw, so a typed-in
or recorded die is the face they saw. An activation (4.2) spends a command point on an area (with leaders,
7.1, through the leader who stands there) and wakes its units for the go.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any

from engine.core.dist import Dist
from engine.core.errors import RuleViolation
from engine.core.procedure import Log, Roll, distribution

from .actions import Action
from .state import Game
from .steps import Steps
from .tables import CommandStep, Tables, default_tables
from .units import CAV, Leader, Unit

__all__ = ["d3_of", "command_points", "cp_step", "cp_schedule", "rain_squall", "own_unit", "need_active", "activatable",
           "activation", "check_activate", "activate"]


def d3_of(d6: int) -> int:
    """Rule 1: 1-2 -> 1, 3-4 -> 2, 5-6 -> 3."""
    return (d6 + 1) // 2


def cp_step(side: str, turn: int, tables: Tables | None = None) -> CommandStep:
    tables = tables or default_tables()
    steps = {"French": tables.command.French, "Allied": tables.command.Allied}[side]
    return [s for s in steps if s.from_turn <= turn][-1]


def command_points(side: str, turn: int, tables: Tables | None = None) -> Steps[int]:
    """Rule 3 with the scenario's schedule: fixed on some turns, D3 (+k) on others."""
    step = cp_step(side, turn, tables)
    if step.fixed is not None:
        yield Log("Albuera scenario play", f"{side} turn {turn}: {step.fixed} command points (fixed)")
        return step.fixed
    plus = step.d3_plus
    assert plus is not None, "a step of the schedule gives fixed points or D3 plus a number"
    roll = yield Roll("d6", rule="3", label=f"{side} command points (D3{plus:+d})")
    cp = d3_of(roll) + plus
    yield Log("1", f"d6 {roll} gives D3 {d3_of(roll)}, {cp} command points", {"roll": roll, "cp": cp})
    return cp


def cp_schedule(turns: int = 25, tables: Tables | None = None) -> dict[str, Any]:
    """Per side and turn, the exact distribution of command points; plus the expected total."""
    tables = tables or default_tables()
    out: dict[str, Any] = {}
    for side in ("French", "Allied"):
        rows = []
        total: Fraction | int = 0
        for t in range(1, turns + 1):
            d: Dist = distribution(partial(command_points, side, t, tables))
            total += d.expect()
            rows.append({"turn": t, "distribution": {str(k): v for k, v in sorted(d.items())},
                         "expected": d.expect()})
        out[side] = {"turns": rows, "expected_total": total}
    return out


def rain_squall(side: str, tables: Tables | None = None) -> Steps[bool]:
    """Scenario option 5: a d6 at the start of a player's go; the table's number makes it a squall."""
    tables = tables or default_tables()
    roll = yield Roll("d6", rule="Albuera option 5", label=f"{side}: rain squall roll")
    return roll >= tables.optional.rain_squall_on


# ------------------------------------------------------------------------------------------------
# Activation (4.2, with leaders 7.1)
# ------------------------------------------------------------------------------------------------
def own_unit(g: Game, uid: str) -> Unit:
    """The unit ``uid`` of the side to act, still on the map (4: a player acts with its own units)."""
    u = g.unit(uid)
    if u.side != g.player:
        raise RuleViolation("4", f"{uid} belongs to the {u.side}; it is the {g.player} player's go")
    if u.area is None:
        raise RuleViolation("4.1", f"{uid} has been eliminated")
    return u


def need_active(g: Game, u: Unit, fire: bool = False) -> None:
    """Refuse a unit that was not activated this go, or has already acted (4, 4.2, 7.2.1)."""
    if u.uid not in g.activated:
        raise RuleViolation("4.2", f"{u.uid} has not been activated this turn (activate its area first)")
    if u.uid in g.acted:
        raise RuleViolation("4", f"{u.uid} has already moved, fired or fought this turn")
    if u.uid in g.horse_moved and not fire:
        raise RuleViolation("7.2.1", f"{u.uid} has made its one-point move; it may still fire, not move again")


def activatable(g: Game, area: str) -> tuple[Unit, ...]:
    """The side to act's units in ``area`` an activation may wake (4.2: not rallied, moved in, already
    activated, nor hit by a charge this turn, 5.3.1)."""
    return tuple(u for u in g.in_area(area) if u.side == g.player and u.uid not in g.rallied
                 and u.uid not in g.moved_in and u.uid not in g.activated and u.uid not in g.frozen)


def activation(g: Game, area: str, leader_name: str | None) -> tuple[tuple[Unit, ...], Leader | None, int]:
    """Which units an activation of ``area`` wakes, through which leader, for how many CPs (4.2, 7.1)."""
    units = activatable(g, area)
    if not g.use_leaders:
        if leader_name:
            raise RuleViolation("7.1", "leaders are an optional rule that is not in use in this game")
        return units, None, 1
    if leader_name is None:
        if "light-cavalry" in g.setup.options:
            # 7.1.3: light cavalry may be activated without a leader
            return tuple(u for u in units if u.kind == CAV and u.cav == "light"), None, 1
        raise RuleViolation("7.1", "with leaders, name the leader who spends the command point "
                                   "(units: [leader name])")
    ld = g.leader(leader_name)
    if ld is None or ld.side != g.player or not ld.present:
        raise RuleViolation("7.1", f"{leader_name!r} is not a {g.player} leader on the map")
    if ld.area != area:
        fine = ("fine-rider" in ld.attributes and ld.area is not None and g.board.adjacent(ld.area, area)
                and not g.board.is_close(area))
        if not fine:
            raise RuleViolation("7.1", f"{ld.name} is in {ld.area}: command points are spent in the leader's area"
                                       " (7.1.2 fine riders: also an adjacent open area)")
    cost = 2 if "imbecile" in ld.attributes else 1                      # 7.1.2 imbecile
    return tuple(u for u in units if ld.can_command(u)), ld, cost


def check_activate(g: Game, a: Action) -> None:
    """4.2: an area on the map with units that may be activated, and the command points it costs."""
    if a.area is None or a.area not in g.board:
        raise RuleViolation("4.2", f"no area {a.area!r} on the map")
    units, leader, cost = activation(g, a.area, a.units[0] if a.units else None)
    if g.cp < cost:
        raise RuleViolation("4" if cost == 1 else "7.1.2", f"{cost} command point(s) needed, {g.cp} left")
    if not units:
        raise RuleViolation("4.2", f"area {a.area} has no {g.player} unit that may be activated now "
                                   f"(rallied, moved in, already activated or charged units cannot be"
                                   f"{', nor units the leader may not command' if leader else ''})")


def activate(g: Game, a: Action) -> Steps[Game]:
    """4.2: spend the point(s) and wake the area's units (7.1.2 marcher / disorganised leaders change
    their pace for the turn). ``a`` passed :func:`check_activate`."""
    assert a.area is not None, "an activation names its area (check_activate)"
    us, ld, cost = activation(g, a.area, a.units[0] if a.units else None)
    woken = {u.uid for u in us} | ({ld.name} if ld is not None and ld.area == a.area else set())
    g = replace(g, cp=g.cp - cost, activated=g.activated | woken)
    if ld is not None:
        step = ("marcher" in ld.attributes) - ("disorganised" in ld.attributes)
        if step:
            g = replace(g, pace=g.pace + tuple((u.uid, step) for u in us))
    yield Log("4.2", f"area {a.area} activated{' by ' + ld.name if ld else ''}: {', '.join(u.uid for u in us)}")
    return g
