"""Leads and retreats of a combat (5.1.1, 5.1.2, 5.1.4, 5.2.2, 5.2.3), written as procedures.

Nominating a lead, retreating defenders (with the artillery retreat roll) and attackers, the lead
defender's step onto the approach or into square when the attackers go back, and the end of a combat
when one side is gone. Each may ask (:class:`~engine.core.procedure.Choose`) or roll.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from itertools import combinations

from engine.core.procedure import Choose, Log, Roll

from .fight import ATTACKER, DEFENDER, CombatContext, Decision, End, Fight, Retreat, by_id, drop_unit, replace_unit
from .steps import Steps
from .units import ART, CAV, INF, Unit

__all__ = ["choose_lead", "defender_retreat", "attacker_retreat", "pull_back", "finish_defender_gone",
           "finish_attacker_gone", "retreat_sets", "retreat_set", "retreat_options", "MAX_RETREAT_SET_OTHERS"]


def choose_lead(ctx: CombatContext, f: Fight, role: str):
    """5.1.1: nominate a lead. Returns (fight, note). Attacker: the unit on the approach facing the
    defender if any, else any. Defender: by the priority order 1-4."""
    if role == ATTACKER:
        pool = f.combat_units(ATTACKER)
        if not pool:
            return replace(f, att_lead=None)
        forced = [u for u in pool if u.kind == INF and u.approach == ctx.target]
        opts = forced or sorted(pool, key=lambda u: (-u.strength, u.uid))
        if len(opts) == 1:
            return replace(f, att_lead=opts[0].uid)
        uid = yield Choose(tuple(u.uid for u in opts), rule="5.1.1", player=ctx.attacker_side,
                           label="attacker nominates a lead unit", context=Decision(ATTACKER, "lead", ctx, f))
        return replace(f, att_lead=uid)
    pool = f.combat_units(DEFENDER)
    if not pool:
        return (replace(f, dfn_lead=None), ())
    tiers = [
        ("5.1.1 priority 1", [u for u in pool if u.approach == ctx.origin]),
        ("5.1.1 priority 2", [u for u in pool if (u.kind == INF and u.approach is None and not u.square)
                              or u.kind == CAV]),
        ("5.1.1 priority 3", [u for u in pool if u.kind == INF and u.approach is None and u.square]),
        ("5.1.1 priority 4", [u for u in pool if u.kind == INF and u.approach not in (None, ctx.origin)]),
    ]
    for i, (rule, opts) in enumerate(tiers):
        if not opts:
            continue
        opts = sorted(opts, key=lambda u: (-u.strength, u.uid))
        if len(opts) == 1:
            uid = opts[0].uid
        else:
            uid = yield Choose(tuple(u.uid for u in opts), rule="5.1.1", player=ctx.defender_side,
                               label=f"defender nominates a lead unit ({rule})",
                               context=Decision(DEFENDER, "lead", ctx, f))
        if i == 3:
            # priority 4: caught on another approach, it steps into the area and takes a hit
            u = f.unit(uid)
            moved = u.moved(ctx.target).hit(ctx.tables.retreat.wrong_approach_hits)
            yield Log("5.1.1", f"{uid} leaves its approach to lead and takes a hit")
            if moved.eliminated:
                f = replace(f, dfn=drop_unit(f.dfn, uid))
                nf, more = yield from choose_lead(ctx, f, DEFENDER)
                return (nf, (moved,) + tuple(more))
            return (replace(f, dfn=replace_unit(f.dfn, moved), dfn_lead=uid), ())
        return (replace(f, dfn_lead=uid), ())
    return (replace(f, dfn_lead=None), ())


def _pick_dest(ctx: CombatContext, f: Fight | None, role: str, unit: Unit, options: tuple[Retreat, ...]
               ) -> Steps[Retreat]:
    if len(options) == 1:
        return options[0]
    side = ctx.attacker_side if role == ATTACKER else ctx.defender_side
    area = yield Choose(tuple(r.area for r in options), rule="5.1.2" if role == DEFENDER else "5.2.2",
                        player=side, label=f"retreat {unit.uid} to",
                        context=Decision(role, "retreat-to", ctx, f, (unit.uid, unit.kind, options)))
    return next(r for r in options if r.area == area)


def defender_retreat(ctx: CombatContext, f: Fight, units: tuple[Unit, ...], lead_uid: str | None,
                     rule: str) -> Steps[tuple[Unit, ...]]:
    """Retreat defending units as in 5.1.2 (also 5.2.3). Returns the units' new states."""
    r, terr, opt = ctx.tables.retreat, ctx.tables.terrain, ctx.tables.optional
    att_lead_cav = f.att_lead is not None and f.a.kind == CAV
    out = []
    for u in units:
        dests = f.routes(ctx, DEFENDER)
        if not dests:
            # nowhere to go: artillery is eliminated (5.2.3); others cannot be ordered to retreat
            out.append(u.hit(1) if u.kind == ART else u)
            continue
        dest = yield from _pick_dest(ctx, f, DEFENDER, u, dests)
        if u.kind == ART:
            roll = yield Roll("d6", rule=rule, label=f"artillery {u.uid} retreat roll")
            m = 0
            if not u.deployed:
                m += r.artillery_limbered                              # 5.1.2: +2 limbered
            if att_lead_cav:
                m += r.artillery_vs_cavalry_lead                       # 5.1.2: -2 lead attacker cavalry
            if dest.close:
                m += r.artillery_to_close                              # 5.1.2: -2 into close terrain
            if dest.water and dest.crossing:
                m += terr.crossing_artillery_retreat                   # Albuera terrain 8
            elif dest.water == "river":
                m += terr.river_artillery_retreat                      # Albuera terrain 6
            elif dest.water == "stream":
                m += terr.stream_artillery_retreat                     # Albuera terrain 7
            if u.arty == "horse":
                m += opt.horse_artillery_retreat                       # 7.2.1
            if u.arty == "heavy":
                m += opt.heavy_artillery_retreat                       # 7.2.2
            survives = roll + m >= r.artillery_survives_from
            yield Log(rule, f"{u.uid} retreat roll {roll}{m:+d} = {roll + m}: "
                            f"{'limbers and escapes' if survives else 'is lost'}")
            out.append(replace(u, area=dest.area, deployed=False) if survives else u.hit(1))
            continue
        hits = 0
        if u.approach is not None and u.approach != ctx.origin:
            hits += r.wrong_approach_hits                              # 5.1.2: caught on another approach
        if u.kind == CAV and dest.close:
            hits += r.cavalry_to_close_hits                            # 5.1.2: cavalry into close terrain
        if u.uid == lead_uid:
            lead = r.lead_hits                                         # 5.1.2: the lead takes 1 hit
            if att_lead_cav:
                lead += r.lead_hits_if_attacker_cavalry                #   +1 against a cavalry lead
            if u.kind == CAV:
                lead += r.lead_hits_if_lead_cavalry                    #   -1 when the lead is cavalry
            hits += max(0, lead)
        if dest.water == "river" and not dest.crossing:
            hits += 1                                                  # Albuera terrain 6 (not at a bridge/ford, 8)
        square = u.square and not dest.close
        out.append(u.hit(hits).moved(dest.area, None, square) if not u.hit(hits).eliminated else u.hit(hits))
    return tuple(out)


def attacker_retreat(ctx: CombatContext, f: Fight, units: tuple[Unit, ...], to_origin: bool = False
                     ) -> Steps[tuple[Unit, ...]]:
    """5.2.2: infantry go back to the origin, cavalry anywhere free (hit if close); 5.1.3: back to the origin."""
    out = []
    for u in units:
        if u.kind == CAV and f.routes(ctx, ATTACKER) and not to_origin:
            dest = yield from _pick_dest(ctx, f, ATTACKER, u, f.routes(ctx, ATTACKER))
        else:
            assert ctx.origin_retreat is not None, "a combat's context has its way back (made with it)"
            dest = ctx.origin_retreat
        hits = 0
        if u.kind == CAV and dest.close:
            hits += ctx.tables.retreat.cavalry_to_close_hits           # 5.2.2: cavalry into close terrain
        if dest.water == "river" and not dest.crossing:
            hits += 1                                                  # Albuera terrain 6
        v = u.hit(hits)
        out.append(v if v.eliminated else v.moved(dest.area, None, u.square and not dest.close))
    return tuple(out)


def pull_back(ctx: CombatContext, f: Fight, rule: str, a_cav: bool) -> Steps[Fight]:
    """All attackers gone back (feint 5.1.4, break-off 5.2.2): the lead defender, if infantry, goes onto
    the approach facing the attackers' area, or forms square against a cavalry lead. Returns the new defender lead unit."""
    d = f.d if f.dfn_lead else None
    if d is None or d.kind != INF:
        return f
    options = []
    if ctx.approach:
        options.append("approach")       # onto the approach facing the attackers' area
    if a_cav and ctx.target_open:
        options.append("square")         # only against a cavalry lead, only in open terrain
    if rule == "5.2.2" and not ctx.approach and options:
        options.insert(0, "stay")        # 5.2.2: the square is optional
    if not options:
        return f
    if len(options) == 1:
        choice = options[0]
    else:
        choice = yield Choose(tuple(options), rule=rule, player=ctx.defender_side,
                              label="lead defender takes the approach, forms square, or stays",
                              context=Decision(DEFENDER, "pull-back", ctx, f))
    if choice == "approach":
        nd = replace(d, approach=ctx.origin, square=False)
    elif choice == "square":
        nd = replace(d, approach=None, square=True)
    else:
        return f
    return replace(f, dfn=replace_unit(f.dfn, nd))


def finish_defender_gone(ctx: CombatContext, f: Fight, gone: list[Unit], lead_hit: bool) -> Steps[End]:
    """The defenders' combat units are all gone: artillery left must retreat (5.1.2, 5.2.3); the
    attackers occupy the area; the lead attacker takes a hit unless only artillery was left."""
    arts = tuple(u for u in f.dfn if u.kind == ART)
    if arts:
        moved = yield from defender_retreat(ctx, f, arts, None, "5.2.3")
        gone.extend(moved)
    att = []
    for u in f.att:
        v = u
        if lead_hit and u.uid == f.att_lead:
            v = v.hit(ctx.tables.retreat.lead_hits)                  # 5.1.2: occupying costs the lead a hit
        if not v.eliminated:
            v = v.moved(ctx.target, None, v.square and ctx.target_open)
        att.append(v)
    return End(by_id(gone + att), ATTACKER)


def finish_attacker_gone(ctx: CombatContext, f: Fight, gone: list[Unit]) -> End:
    """No attackers left: the defenders keep the area (and the lead defender may step forward)."""
    return End(by_id(gone + list(f.dfn)), DEFENDER)


# 5.2.2 / 5.2.3: beyond this many units besides the lead, only the lead alone, the lead with one other
# unit, or everyone are offered (2**6 = 64 sets at most; an Albuera area holds 6 units)
MAX_RETREAT_SET_OTHERS = 6


def retreat_sets(others: tuple[str, ...]) -> tuple[str, ...]:
    """The retreat choices of 5.2.2 / 5.2.3 besides "stay": every set of units that includes the lead.

    "lead" is the lead alone, "all" every unit of the side, and "lead+X+Y" the lead with X and Y (ids
    sorted); sets are listed smallest first."""
    others = tuple(sorted(others))
    if not others:
        return ("all",)
    sizes = range(1, len(others)) if len(others) <= MAX_RETREAT_SET_OTHERS else (1,)
    mixed = tuple("lead+" + "+".join(c) for k in sizes for c in combinations(others, k)
                  if k < len(others))
    return ("lead",) + mixed + ("all",)


def retreat_set(choice: str, lead: str | None, units: tuple[Unit, ...]) -> tuple[Unit, ...]:
    """The units a 5.2.2 / 5.2.3 answer sends back (the lead first)."""
    if choice == "all":
        return units
    names = {lead} | (set(choice.split("+")[1:]) if choice.startswith("lead+") else set())
    return tuple(u for u in units if u.uid in names)


@lru_cache(maxsize=4096)         # asked after every roll of every combat with the same few arguments
def retreat_options(traits: frozenset, others: tuple[str, ...], first_round: bool) -> tuple[str, ...]:
    """5.2.2 / 5.2.3 choices (stay, or any set with the lead), narrowed by 7.1.2: foaming leaders never
    retreat; fearful ones always pull back after the first round."""
    opts = ("stay",) + retreat_sets(others)
    if "foaming" in traits:
        return ("stay",)
    if "fearful" in traits and first_round:
        return tuple(o for o in opts if o != "stay")
    return opts
