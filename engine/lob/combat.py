"""Combat (rule 5): the whole of 5.1-5.3 for one attack (or a 5.3.1 cavalry charge), as one procedure.

Pre-combat (leads 5.1.1, retreat before combat 5.1.2, defensive artillery 5.1.3, the feint 5.1.4), then
the rounds (:mod:`.rounds`), then the result. Decisions are :class:`~engine.core.procedure.Choose`
requests whose ``context`` is a :class:`~.fight.Decision` (role, kind, the fight); play answers them
from a player or bot, odds from a named policy (:mod:`.policies`). The values are in :mod:`.fight`.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Sub

from .fight import ATTACKER, DEFENDER, CombatContext, CombatResult, Decision, Fight, by_id, drop_unit, replace_unit
from .fire import FireSetup, artillery_fire
from .retreats import attacker_retreat, choose_lead, defender_retreat, finish_defender_gone, pull_back
from .rounds import combat_rounds
from .steps import Steps
from .units import ART, CAV, INF, Unit

__all__ = ["check_combat", "combat"]


def check_combat(ctx: CombatContext, attackers: tuple[Unit, ...], defenders: tuple[Unit, ...]) -> None:
    """Refuse an illegal combat before anything happens (5, 5.1.1, 1.1)."""
    if not attackers:
        raise RuleViolation("5", "a combat needs at least one attacking unit")
    if not any(u.is_combat for u in defenders) and not any(u.kind == ART for u in defenders):
        raise RuleViolation("5", f"area {ctx.target} holds no enemy unit to attack")
    for u in attackers:
        if not u.is_combat:
            raise RuleViolation("5", f"{u.uid} is artillery: only infantry and cavalry attack")
        if u.strength < 1:
            raise RuleViolation("4.2.2", f"{u.uid} has strength {u.strength}: attackers need strength 1 or more")
        if u.side != ctx.attacker_side:
            raise RuleViolation("5", f"{u.uid} is not on the attacking side ({ctx.attacker_side})")
        if u.kind == INF and u.approach not in (None, ctx.target):
            raise RuleViolation("4.2.2", f"{u.uid} is on the approach facing {u.approach}; it may join a group "
                                         f"only when the group's first move is to that area")
    for u in defenders:
        if u.side != ctx.defender_side:
            raise RuleViolation("1.1", f"{u.uid} is not on the defending side: an area holds one side only")
        if u.area != ctx.target:
            raise RuleViolation("5", f"{u.uid} is not in area {ctx.target}")
    if ctx.approach is False and any(u.approach == ctx.origin for u in defenders):
        raise RuleViolation("1.1", f"no approach between {ctx.origin} and {ctx.target}, yet a unit stands on it")
    ids = [u.uid for u in attackers + defenders]
    if len(set(ids)) != len(ids):
        raise RuleViolation("5", "a unit is listed twice in the combat")


def combat(ctx: CombatContext, attackers: tuple[Unit, ...], defenders: tuple[Unit, ...]) -> Steps[CombatResult]:
    """Rule 5 from the declaration to the morale: returns a :class:`CombatResult`."""
    check_combat(ctx, attackers, defenders)
    if set(ctx.approach_holders) - {u.uid for u in attackers + defenders}:
        # 1.1: the approach is held by a unit outside this fight; nobody can be put onto it
        ctx = replace(ctx, approach=False, approach_holders=())
    f = Fight(by_id(attackers), by_id(defenders), None, None, True)
    gone: list[Unit] = []

    def result(end_units, winner, stage, capture=True):
        return CombatResult(by_id(end_units), winner, stage, ctx.target, ctx.attacker_side,
                            ctx.defender_side, capture)

    # 5.1.1 leads: attacker first, then defender
    f = yield from choose_lead(ctx, f, ATTACKER)
    f, lost = yield from choose_lead(ctx, f, DEFENDER)
    gone.extend(lost)
    only_art = f.dfn_lead is None

    if not ctx.charge and not only_art and ctx.defender_retreats and "foaming" not in ctx.dfn_traits:
        # 5.1.2 retreat before combat: all defenders or none
        go = yield Choose(("fight", "retreat"), rule="5.1.2", player=ctx.defender_side,
                          label="defender: retreat before combat?", context=Decision(DEFENDER, "rbc", ctx, f))
        if go == "retreat":
            pure_cav = all(u.kind == CAV or (u.kind == ART and u.arty == "horse") for u in f.dfn)
            moved = yield from defender_retreat(ctx, f, f.dfn, f.dfn_lead, "5.1.2")
            end = yield from finish_defender_gone(ctx, replace(f, dfn=()), gone + list(moved), lead_hit=True)
            # 5.3: no point for an area given up by cavalry alone (7.2.1: or with horse artillery)
            return result(end.units, ATTACKER, "retreat-before-combat", capture=not pure_cav)

    # 5.1.3 defensive artillery (not in a charge, 5.3.1; not in rain, scenario option 5)
    if not ctx.charge and not ctx.rain:
        for gun in [u for u in f.dfn if u.kind == ART and u.deployed]:
            if not f.att:
                break
            target_uid = f.att[0].uid if len(f.att) == 1 else (yield Choose(
                tuple(u.uid for u in f.att), rule="5.1.3", player=ctx.defender_side,
                label=f"{gun.uid} fires at", context=Decision(DEFENDER, "fire-target", ctx, f)))
            tgt = f.unit(target_uid)
            setup = FireSetup(arty=gun.arty, target_kind=tgt.kind, target_square=tgt.square,
                              target_on_approach=tgt.approach == ctx.target,
                              # 5.1.3 reading: the attackers are fired on as they come on, out of
                              # their area's cover: no town -2, no wood ban (docs/lob.md)
                              target_in_town=False,
                              can_retreat=True, target_hits_left=tgt.strength + 1)
            out = yield Sub(("fire", setup, ctx.tables.fingerprint, ctx.attacker_side),
                            partial(artillery_fire, setup, ctx.tables, ctx.attacker_side,
                                    f"defensive fire of {gun.uid} at {tgt.uid}"),
                            rule="5.1.3", label=f"{gun.uid} fires at {tgt.uid}")
            hit = tgt.hit(out.hits)
            if hit.eliminated or out.retreated:
                if out.retreated and not hit.eliminated:
                    (hit,) = yield from attacker_retreat(ctx, f, (hit,), to_origin=True)
                gone.append(hit)
                f = replace(f, att=drop_unit(f.att, tgt.uid))
                if f.att_lead == tgt.uid:
                    f = replace(f, att_lead=None)
                    f = yield from choose_lead(ctx, f, ATTACKER)
            else:
                f = replace(f, att=replace_unit(f.att, hit))
        if not f.att:
            # 5.1.3: the guns broke the attack up
            return result(gone + list(f.dfn), DEFENDER, "repulsed", capture=False)

    if only_art:
        # 5.1.1 / 5.1.3: lone artillery must retreat; no hit on the lead attacker for taking it
        arts = [u for u in f.dfn if u.kind == ART]
        end = yield from finish_defender_gone(ctx, f, gone, lead_hit=False)
        # 7.2.1: horse artillery that retreats on its own gives the attacker no point for the area
        escaped = any(u.uid == a.uid and not u.eliminated for u in end.units for a in arts)
        horse_only = bool(arts) and all(a.arty == "horse" for a in arts)
        return result(end.units, ATTACKER, "artillery", capture=not (horse_only and escaped))

    # 5.1.4 feint (only against an infantry lead; never in a charge)
    if not ctx.charge and f.d.kind == INF and "foaming" not in ctx.att_traits:
        feint = yield Choose(("attack", "feint"), rule="5.1.4", player=ctx.attacker_side,
                             label="attacker: press the attack or feint?",
                             context=Decision(ATTACKER, "feint", ctx, f))
        if feint == "feint":
            back = tuple(u.moved(ctx.origin, None, u.square) for u in f.att)
            f2 = yield from pull_back(ctx, f, "5.1.4", f.a.kind == CAV)
            return result(gone + list(back) + list(f2.dfn), DEFENDER, "feint", capture=False)

    # 5.2 the rounds
    end = yield combat_rounds(ctx, f)
    return result(gone + list(end.units), end.winner, "rounds")
