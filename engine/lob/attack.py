"""Combat in the game (rule 5, 5.3.1, with leaders 7.1): an attack's checks, the combat procedure run in
the position (:func:`~.combat.combat`), its result applied, and the cavalry charges that may follow.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from .actions import Action
from .analysis import make_context
from .combat import combat
from .fight import CombatContext, CombatResult
from .leaders import leader_losses, split_leaders, step_away
from .movement import check_group, check_step_back, move_cost, points_left
from .state import Game
from .steps import Steps
from .units import Leader, Unit, other_side
from .victory import sudden_check

__all__ = ["COMBAT_TRAITS", "combat_context", "apply_result", "run_combat", "check_attack", "check_attack_target",
           "attack", "do_attack"]


def check_attack(g: Game, a: Action) -> None:
    """5 and 4.2.2: the group's checks (:func:`~.movement.check_group`), then the target and the points."""
    group = check_group(g, a)
    assert group is not None, "only a leader's own move has no group of units (7.1)"
    a, us = group
    check_attack_target(g, a, us)


def check_attack_target(g: Game, a: Action, us: list[Unit]) -> None:
    """5: an enemy-held area next to where the attack starts, combat units of strength 1+, the points."""
    if a.target is None or a.target not in g.board:
        raise RuleViolation("5", f"no target area {a.target!r} on the map")
    if g.holder(a.target) in (None, g.player):
        raise RuleViolation("5", f"area {a.target} holds no enemy unit")
    origin = a.path[-1] if a.path else us[0].where
    if not g.board.adjacent(origin, a.target):
        raise RuleViolation("5", f"area {origin} does not border {a.target}")
    check_step_back(a, us)
    for u in us:
        if not u.is_combat:
            raise RuleViolation("5", f"{u.uid} is artillery: only infantry and cavalry attack")
        if u.strength < 1:
            raise RuleViolation("4.2.2", f"{u.uid} has strength {u.strength}: attackers need strength 1 or more")
        cost = move_cost(g, u, a.path, "area", attack=a.target)
        if cost > points_left(g, u):
            raise RuleViolation("5", f"{u.uid} would need {cost} movement points to attack; it has "
                                     f"{points_left(g, u)} left")


def attack(g: Game, a: Action) -> Steps[Game]:
    """5: the attack, with the leaders named among its units joining it (7.1)."""
    names, leaders = split_leaders(g, a.units)
    return (yield from do_attack(g, replace(a, units=tuple(names)), tuple(leaders)))


COMBAT_TRAITS = frozenset({"inspiring", "demoralising", "foaming", "fearful"})


def combat_context(g: Game, target: str, origin: str, attacker_side: str, charge: bool = False,
                   joining: tuple[Leader, ...] = ()) -> CombatContext:
    """The fixed facts of a combat at ``target`` from ``origin`` in this position (5; 7.1.2 traits of the
    leaders joining the attack and of those with the defenders): what bots and the odds ask too."""
    holders = tuple(u.uid for u in g.units if u.area is not None and u.approach is not None
                    and {u.area, u.approach} == {target, origin})
    att_traits = frozenset(t for ld in joining for t in ld.attributes) & COMBAT_TRAITS
    dfn_traits = frozenset(t for ld in g.leaders_in(target, other_side(attacker_side))
                           for t in ld.attributes) & COMBAT_TRAITS
    return make_context(g.board, target, origin, attacker_side, g.occupied(), charge=charge, rain=g.rain,
                        tables=g.tables, approach_holders=holders, att_traits=att_traits, dfn_traits=dfn_traits)


def apply_result(g: Game, res: CombatResult) -> Game:
    """5.3: the combat's units as they ended, each side's morale change, units that moved have moved in."""
    before = {u.uid: u for u in g.units}
    g = g.with_units(res.units).add_morale(res.morale())
    moved = {u.uid for u in res.units if u.area is not None and u.area != before[u.uid].area}
    return replace(g, moved_in=g.moved_in | moved)


def run_combat(g: Game, target: str, origin: str, attackers: tuple[Unit, ...], side: str, charge: bool,
               joining: tuple[Leader, ...] = ()) -> Steps[tuple[Game, CombatResult]]:
    ctx = combat_context(g, target, origin, side, charge, joining)
    dfn = g.in_area(target)
    defending_leaders = g.leaders_in(target, other_side(side))
    res = yield Sub(("combat", ctx, attackers, dfn), partial(combat, ctx, attackers, dfn),
                    rule="5.3.1" if charge else "5", label=f"{'charge' if charge else 'combat'} at {target}")
    yield Log("5.3", f"combat at {target}: {res.winner} holds it ({res.stage}); morale {res.morale()}",
              res.morale())
    if charge and side != g.player:
        # 5.3.1: the phasing player's units hit by a charge lose their activation this turn
        g = replace(g, frozen=g.frozen | {u.uid for u in dfn if u.uid not in g.activated})
    g = apply_result(g, res)
    if g.use_leaders:
        if res.taken:
            g = g.with_leaders([replace(now, area=target) for ld in joining if (now := g.leader(ld.name)) is not None])
        if res.stage == "rounds":
            g = yield from leader_losses(g, tuple(joining) + tuple(defending_leaders), "in the combat (7.1)")
        # a defending leader left alone with the enemy retreats with its side (7.1)
        for was in defending_leaders:
            ld = g.leader(was.name)
            if ld is not None and ld.present and ld.area == target and g.holder(target) == side:
                g = g.with_leaders([(yield from step_away(g, ld, "7.1"))])
    return g, res


def do_attack(g: Game, a: Action, joining: tuple[Leader, ...] = ()) -> Steps[Game]:
    """5: the attackers move up to their origin and fight (leaders 7.1 joining); then 5.3 / 5.3.1 the
    winner's fresh cavalry may charge on, again and again. ``a`` passed :func:`check_attack`."""
    assert a.target is not None, "an attack names its target area (check_attack_target)"
    us = [g.unit(uid) for uid in a.units]
    origin = a.path[-1] if a.path else us[0].where
    moved = [u.moved(origin, u.approach if not a.path else None,
                     u.square and not any(g.board.is_close(x) for x in (origin,) + tuple(a.path)))
             for u in us]
    g = replace(g.with_units(moved), acted=g.acted | set(a.units) | {ld.name for ld in joining})
    joining = tuple(replace(ld, area=origin) for ld in joining)
    g = g.with_leaders(joining)
    g, res = yield from run_combat(g, a.target, origin, tuple(g.unit(uid) for uid in a.units), g.player, False,
                                    joining)
    # 5.3 / 5.3.1 the winner may charge with its fresh cavalry, again and again
    for _ in range(20):
        if g.over or sudden_check(g):
            break
        side = res.winner_side()
        cav = tuple(g.unit(u.uid) for u in res.charge_units())
        cav = tuple(u for u in cav if u.area == res.target and u.strength >= 1)
        if not cav:
            break
        targets: list[str] = []
        for n in sorted(g.board.neighbours(res.target)):
            c = g.board.crossing(res.target, n)
            if g.holder(n) not in (None, side) and not (c.water == "river" and not c.crossing):
                targets.append(n)
        if not targets:
            break
        pick = yield Choose(("none",) + tuple(targets), rule="5.3.1", player=side,
                            label=f"{side} cavalry in {res.target}: charge an adjacent area?",
                            context=("charge", res.target, tuple(u.uid for u in cav), g))
        if pick == "none":
            break
        # 5.3.1: any number of the eligible cavalry charge together (at least one)
        group = list(cav)
        if len(cav) > 1:
            group = []
            for i, u in enumerate(cav):
                if i == len(cav) - 1 and not group:
                    group.append(u)          # somebody must go: the charge was declared
                    break
                ans = yield Choose(("charge", "hold"), rule="5.3.1", player=side,
                                   label=f"{u.uid}: join the charge on {pick}?", context=("charge-unit", pick, u.uid))
                if ans == "charge":
                    group.append(u)
        # 7.1: leaders in the area may join the charge
        riders: list[Leader] = []
        for ld in (g.leaders_in(res.target, side) if g.use_leaders else ()):
            ans = yield Choose(("join", "stay"), rule="7.1", player=side, label=f"{ld.name}: join the charge on {pick}?",
                               context=("charge-leader", pick, ld.name))
            if ans == "join":
                riders.append(ld)
        g, res = yield from run_combat(g, pick, res.target, tuple(group), side, True, tuple(riders))
    return g
