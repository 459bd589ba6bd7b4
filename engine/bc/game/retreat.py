"""Retreats and withdrawals on the map (24.1-24.3) and Block losses (11.0, 26.0).

A retreat moves a Block one Zone at a time into the best Zones by the order of preference of 24.1 (the enemy
picks among them); Squares and Massed Columns take a hit instead; a blocked retreat costs a step; retreating
into an enemy Battle Zone costs a hit; ending overstacked hits the Zone's other Blocks. Cavalry Withdrawal
(24.2), Give Ground at the turn's end (24.3) and Surrender (26.0) are here too.
"""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log

from ..blocks import block_steps, hit_block, redoubt_cube
from ..checks import read_check
from ..deck import Deck, default_deck, draw_card
from .actions import GiveGround, Surrender
from .dry import dry_run
from .state import STACK_LIMIT, BcState, MapState, change_morale, set_block, stacking_ok
from .types import ENEMY
from .zones import enemy_battle_zones

__all__ = ["MAX_CHAIN", "retreat_options", "retreat_block", "settle_stacking", "cohesion_hit", "lose_step",
           "cavalry_withdrawal", "give_ground", "surrender", "check_give_ground", "do_give_ground",
           "check_surrender", "do_surrender"]


def retreat_options(st: MapState, uid: str, visited: tuple[str, ...] = ()) -> tuple[tuple[str, ...], str]:
    """Zones a Block may retreat into, best tier only (24.1): never into enemy-occupied Zones or across
    impassable terrain; avoid (1) empty enemy Battle Zones, (2) Zones next to enemy Blocks, (3) overstacks,
    in that order. Returns ``(zones, why)``; no zone means a blocked retreat (stay, lose a step)."""
    u = st.unit(uid)
    sc = st.scenario
    enemy = ENEMY[u.side]
    cands = [z for z in sc.graph.neighbours(u.zone)
             if not sc.impassable(u.zone, z) and st.side_of_zone(z) != enemy]
    if not cands:
        return (), "blocked"
    ebz = enemy_battle_zones(st, u.side)

    def empty_ebz(z):
        return z in ebz and not st.in_zone(z)

    def next_to_enemy(z):
        return any(st.side_of_zone(n) == enemy for n in sc.graph.neighbours(z))

    def overstack(z):
        return len(st.in_zone(z)) >= STACK_LIMIT

    def been_there(z):      # our tie-break: a chain of retreats does not go back where it came from
        return z in visited

    tiers = cands
    for test, why in ((empty_ebz, "empty enemy Battle Zone"), (next_to_enemy, "next to the enemy"),
                      (overstack, "overstack"), (been_there, "already left")):
        better = [z for z in tiers if not test(z)]
        if better:
            tiers = better
    return tuple(tiers), "priority 24.1"


MAX_CHAIN = 3   # our limit: a chain of hit-triggered retreats stops after three Zones (the rules set none)


def retreat_block(st: MapState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    """Procedure: retreat one Block one Zone (24.1); ``chooser_side`` picks among the best Zones (the enemy for
    a retreat, the owner for a withdrawal). Squares and Massed Columns take a hit instead; a blocked retreat
    costs a step; entering an enemy Battle Zone costs a hit (and a step if Disrupted and alone); ending
    overstacked hits the Zone's other Blocks (skill 3-4 excepted) and may push the retreating Block on.
    The whole chain ends with the stacking limits kept (:func:`settle_stacking`)."""
    st = yield from _retreat_block(st, uid, chooser_side, depth, visited)
    if depth == 0:
        st = yield from settle_stacking(st)
    return st


def settle_stacking(st: MapState):
    """Procedure: after a chain of retreats, every Zone still over its stacking limits (9.3) sheds its last
    arrived Block: the owner withdraws it one Zone where it fits (24.1 order of preference); with no such
    Zone it is eliminated (our reading, as a Garrison that cannot retreat, 28.3; one Morale, 26.0).
    Our rule for the engine's chain limit: the rules themselves never leave an overstack standing."""
    for _ in range(4 * len(st.units) + 1):
        over = [z for z in st.scenario.graph.areas if len(st.in_zone(z)) > STACK_LIMIT or not stacking_ok(st, z)]
        if not over:
            return st
        z = over[0]
        here = st.in_zone(z)
        u = here[-1] if here else None
        if u is None:               # two HQ markers: the one that came last steps back with its Block's owner
            return st
        zones, _ = retreat_options(st, u.id)
        fits = tuple(x for x in zones if stacking_ok(replace(st, units=tuple(y for y in st.units if y.id != u.id)
                                                               + (replace(u, zone=x),)), x))
        if fits:
            to = fits[0] if len(fits) == 1 else (
                yield Choose(fits, rule="24.1", player=u.side, label=f"withdraw {u.id} from the overstacked {z}"))
            yield Log("24.1", f"{u.id} withdraws from the overstacked {z} into {to}")
            st = replace(st, units=tuple(y for y in st.units if y.id != u.id) + (replace(u, zone=to),))
        else:
            yield Log("24.1", f"{u.id} finds no Zone to withdraw into from the overstacked {z}: eliminated")
            st = change_morale(replace(st, units=tuple(y for y in st.units if y.id != u.id)), u.side, -1)   # 26.0
    return st


def _retreat_block(st: MapState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    u = st.unit(uid)
    if u.block.redoubt_block:      # 28.5: it stays; an enemy advance into its Zone eliminates it
        yield Log("28.5", f"{uid} is a Redoubt Block: it stays in {u.zone}, eliminated if the enemy advances")
        return replace(st, redoubt_held=tuple(dict.fromkeys(st.redoubt_held + (uid,))))
    if u.block.square or u.block.formation == "massed_column":
        yield Log("24.1", f"{uid} never retreats in this formation: a Cohesion Hit instead")
        return (yield from cohesion_hit(st, uid, chooser_side, depth))
    zones, _ = retreat_options(st, uid, visited)
    if not zones:
        yield Log("24.1", f"{uid} cannot retreat: it stays and loses a step")
        return lose_step(st, uid)
    to = yield Choose(zones, rule="24.1", player=chooser_side, label=f"retreat {uid} from {u.zone}")
    visited = visited + (u.zone,)
    ebz = enemy_battle_zones(st, u.side)
    st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=to),))
    hq = st.hqs_in(u.zone, u.side)
    if hq and not st.in_zone(u.zone) and not st.hqs_in(to):   # HQs follow the Block (owner's option, taken)
        st = replace(st, hqs=tuple(replace(h, zone=to) if h.id == hq[0].id else h for h in st.hqs))
    if to in ebz:
        friends = [x for x in st.in_zone(to) if x.id != uid]
        if u.block.state == "disrupted" and not friends:
            yield Log("24.1", f"{uid} retreats Disrupted into an empty enemy Battle Zone: a hit and a step lost")
            st = lose_step(st, uid)
            if not any(x.id == uid for x in st.units):
                return st
            return (yield from cohesion_hit(st, uid, chooser_side, depth, visited))   # 9.2: hit while Disrupted
        yield Log("24.1", f"{uid} retreats into an enemy Battle Zone: a Cohesion Hit")
        st = yield from cohesion_hit(st, uid, chooser_side, depth, visited)
    if any(x.id == uid for x in st.units) and len(st.in_zone(to)) > STACK_LIMIT and depth < MAX_CHAIN:
        yield Log("24.1", f"{uid} ends its retreat overstacked in {to}")
        for other in [x for x in st.in_zone(to) if x.id != uid]:
            if other.block.skill >= 3:
                continue
            st = yield from cohesion_hit(st, other.id, u.side, depth + 1)   # a Disrupted one withdraws (owner)
        if any(x.id == uid for x in st.units) and len(st.in_zone(to)) > STACK_LIMIT:
            st = yield from retreat_block(st, uid, u.side, depth + 1, visited)
    return st


def cohesion_hit(st: MapState, uid: str, chooser_side: str, depth: int = 0, visited: tuple[str, ...] = ()):
    """Procedure: one Cohesion Hit on a Block on the map (9.2, same rules as in combat via ``hit_block``); a
    Disrupted Block hit retreats (24.1), the owner of the retreat chosen by ``chooser_side``."""
    u = st.unit(uid)
    saved = yield from redoubt_cube(u.block, u.side, uid)          # 28.5: a cube may absorb the hit
    if saved is not None:
        return set_block(st, uid, saved)
    nb, must_retreat, _ = hit_block(u.block)
    st = set_block(st, uid, nb)
    if must_retreat:
        if depth >= MAX_CHAIN:
            yield Log("24.1", f"{uid}: retreat chain stopped after {MAX_CHAIN} Zones (our limit)")
            return st
        st = yield from retreat_block(st, uid, chooser_side, depth + 1, visited)
        if depth == 0:
            st = yield from settle_stacking(st)
    return st


def lose_step(st: MapState, uid: str) -> MapState:
    """Block ``uid`` loses a step (11.0); its last one eliminates it, and its army loses one Morale (26.0)."""
    u = st.unit(uid)
    b = replace(u.block, steps_lost=u.block.steps_lost + 1)
    if b.steps_lost >= block_steps(b):
        st = replace(st, units=tuple(x for x in st.units if x.id != uid))
        return change_morale(st, u.side, -1)                            # 26.0
    return set_block(st, uid, b)


def cavalry_withdrawal(st: MapState, uid: str, attacker_zone: str):
    """Procedure: right after an Infantry or Artillery Lead declares an Assault on its Zone, a Cavalry or Horse
    Artillery there may withdraw one Zone (24.2); the owner picks the Zone."""
    u = st.unit(uid)
    lead = st.lead(attacker_zone)
    if lead is None or lead.side == u.side or not (lead.block.infantry or lead.block.artillery):
        raise RuleViolation("24.2", "only an Assault declared by an enemy Lead Infantry or Artillery allows it")
    if u.block.kind not in ("cavalry", "horse_artillery"):
        raise RuleViolation("24.2", f"a {u.block.kind} cannot make a Cavalry Withdrawal")
    return (yield from retreat_block(st, uid, u.side))


def give_ground(st: MapState, uid: str, deck: Deck | None = None):
    """Procedure: a Give Ground withdrawal at the last Black cube (24.3): an enemy-adjacent Block withdraws one
    Zone (owner's choice); if it started in an enemy Battle Zone it checks skill (21.2): Death Head = a hit and
    one Morale, other failures = a hit (a Disrupted Block hit withdraws again). Undisrupted skirmishers pass."""
    deck = deck or default_deck()
    u = st.unit(uid)
    sc = st.scenario
    if u.block.redoubt_block:
        raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: it never gives ground")
    if not any(st.side_of_zone(n) == ENEMY[u.side] for n in sc.graph.neighbours(u.zone)):
        raise RuleViolation("24.3", f"{uid} is not next to an enemy Block")
    started_in_ebz = u.zone in enemy_battle_zones(st, u.side)
    st = yield from retreat_block(st, uid, u.side)
    if not started_in_ebz or not any(x.id == uid for x in st.units):
        return st
    b = st.unit(uid).block
    if b.shots and b.kind in ("infantry", "long_infantry", "cavalry") and b.state != "disrupted":
        yield Log("24.3", "undisrupted skirmishers pass the check")
        return st
    face, pile = yield from draw_card(st.pile, deck, "24.3", f"give ground check for {uid}")
    st = replace(st, pile=pile.discarded(face))
    hq = st.hq_bonus_in(st.unit(uid).zone, u.side)
    out = read_check("general", deck.skill(face), b.skill + (1 if hq else 0), st.morale_of(u.side).good)
    if out.success:
        return st
    if out.icon == "death_head":
        st = change_morale(st, u.side, -1)
    yield Log("24.3", f"give ground check failed ({out.icon}): a Cohesion Hit")
    return (yield from cohesion_hit(st, uid, u.side))


def surrender(st: MapState, uid: str) -> MapState:
    """Surrender at the last Black cube (26.0): a non-Steady Block next to an enemy Block and not next to a
    friendly Steady Block leaves the game, with no Morale lost."""
    u = st.unit(uid)
    sc = st.scenario
    if u.block.state == "steady":
        raise RuleViolation("26.0", f"{uid} is Steady: only a non-Steady Block may surrender")
    near = [x for n in sc.graph.neighbours(u.zone) for x in st.in_zone(n)]
    if not any(x.side != u.side for x in near):
        raise RuleViolation("26.0", f"{uid} is not next to an enemy Block")
    if any(x.side == u.side and x.block.state == "steady" for x in near):
        raise RuleViolation("26.0", f"{uid} is next to a friendly Steady Block")
    return replace(st, units=tuple(x for x in st.units if x.id != uid), log=st.log + (f"{uid} surrenders",))


def check_give_ground(st: BcState, a: GiveGround, deck: Deck) -> None:
    if st.g.unit(a.block).side != a.side:
        raise RuleViolation("24.3", f"{a.block} is not {a.side}")
    dry_run(give_ground(st.g, a.block, deck), deck)


def do_give_ground(st: BcState, a: GiveGround, deck: Deck):
    g = yield from give_ground(st.g, a.block, deck)
    return replace(st, g=g, passes=0, actor=ENEMY[a.side])


def check_surrender(st: BcState, a: Surrender, deck: Deck) -> None:
    if a.side in st.surrendered:
        raise RuleViolation("26.0", "one Block only may surrender at a turn's end")
    if st.g.unit(a.block).side != a.side:
        raise RuleViolation("26.0", f"{a.block} is not {a.side}")
    surrender(st.g, a.block)


def do_surrender(st: BcState, a: Surrender, deck: Deck):
    g = surrender(st.g, a.block)
    yield Log("26.0", f"{a.block} surrenders")
    return replace(st, g=g, passes=0, actor=ENEMY[a.side], surrendered=st.surrendered + (a.side,))
