"""Combat on the map (23.1, 25.0, 27.2, 27.5, 27.10): a combat set up from the Zones, its outcome put back on
the map, the advance after an Assault, the Cavalry Grand Charge and an HQ marker's elimination.

The set-up (:func:`combat_from_map`, :func:`bombardment_from_map`) reads the lead and second-line Blocks, HQs,
wing supports with their restrictions (23.1 step 5), flank conditions (9.4), terrain and interval (23.3) from
the map; the combat itself is the calculators' procedure (:func:`engine.bc.combat.resolve`); its outcome goes
back on the map with :func:`apply_outcome` (retreats chosen by the enemy, 24.1).
"""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log

from ..blocks import BattleState, Formation
from ..checks import read_check
from ..combat import CombatOutcome, resolve
from ..deck import Deck, default_deck, draw_card
from ..tally import CombatSetup, CombatSide, Wing
from ..terrain import Terrain, default_terrain
from .scenario import Scenario
from .state import MapState, change_morale, set_block
from .retreat import lose_step, retreat_block
from .types import ENEMY
from .zones import enemy_battle_zones, flanked_zones, redoubt_zones

__all__ = ["combat_from_map", "defender_higher", "bombard_line_of_sight", "bombardment_from_map", "map_combat",
           "map_bombardment", "apply_outcome", "advance", "grand_charge", "eliminate_hq"]


def combat_from_map(st: MapState, attacker_zone: str, target_zone: str, attack: str,
                    engaged: tuple[str, ...] = ()) -> CombatSetup:
    """Build the combat set-up from the map: lead and second-line Blocks, HQs, wing supports with their
    restrictions (23.1 step 5), flank conditions (9.4), terrain and interval (23.3)."""
    sc = st.scenario
    att, dfn = st.in_zone(attacker_zone), st.in_zone(target_zone)
    if not att or not dfn:
        raise RuleViolation("23.1", "both Zones need Blocks")
    side = att[0].side
    if dfn[0].side == side:
        raise RuleViolation("23.1", "the target Zone holds friendly Blocks")
    if not sc.graph.adjacent(attacker_zone, target_zone):
        raise RuleViolation("23.1", "the target must be next to the Lead Attacker")
    if attacker_zone in engaged:
        raise RuleViolation("23.1", "this Zone already has an Attack Token")
    lead_a = att[0]
    if lead_a.block.artillery:                   # 23.1: a Lead Artillery attacks into the Zones it faces
        faced = (redoubt_zones(st, lead_a) if lead_a.block.redoubt_block          # 28.5
                 else set(lead_a.facing or sc.graph.neighbours(attacker_zone)))
        if target_zone not in faced:             # (faced Zones count even across impassable terrain)
            raise RuleViolation("23.1", f"a Lead Artillery attacks only into its Battle Zones "
                                        f"({', '.join(sorted(faced))})")
    lead_d = dfn[0]
    ebz = enemy_battle_zones(st, side, exclude_engaged=tuple(u.id for u in st.units if u.zone in engaged))
    fz = flanked_zones(st, lead_d)
    wings = []
    fort_of = sc.zone(target_zone).fort_of
    # 28.5: around a Fort, wing supports come from the Zones next to the Zone that encircles it
    wing_zones = sc.graph.neighbours(fort_of) if fort_of else sc.graph.neighbours(target_zone)
    for z in wing_zones:
        if z in (attacker_zone, target_zone):
            continue
        here = st.in_zone(z)
        if not here or here[0].side != side:
            continue
        w = here[0]
        others = ebz.get(z, set()) - {lead_d.id}
        wings.append(Wing(w.block, adjacent_to_attacker=sc.graph.adjacent(z, attacker_zone),
                          in_flanked_zone=z in fz, engaged=z in engaged, in_other_enemy_battle_zone=bool(others),
                          across_impassable=sc.impassable(z, target_zone)))

    def side_of(units, zone, s):
        hq = st.hqs_in(zone, s)
        m = st.morale_of(s)
        return CombatSide(units[0].block, units[1].block if len(units) > 1 else None, hq[0].hq if hq else None,
                          tuple(wings) if s == side else (), "good" if m.good else "bad",
                          in_flanked_zone=(attacker_zone in fz) if s == side else False,
                          terrain=sc.zone(zone).terrain,
                          no_retreat=None,                                           # 24.1: the owner's choice
                          redoubt=(s != side and attacker_zone in sc.zone(zone).redoubt))     # 28.5
    foe = dfn[0].side
    return CombatSetup(attack, side_of(att, attacker_zone, side), side_of(dfn, target_zone, foe),
                       interval=sc.interval(attacker_zone, target_zone),
                       defender_higher=defender_higher(sc, attacker_zone, target_zone),
                       initiative="attacker" if st.initiative == side else "defender",
                       **_abilities(st, side, foe), square_attempt=None, players=(side, foe))


def _abilities(st: MapState, side: str, foe: str) -> dict:
    """What the two Army Commanders' abilities (28.9, scenario data) bring to a combat: the attacker's Artillery
    Expert (27.4, 27.6) and Disciplined Infantry firing when Disrupted (27.8), the defender's Disciplined
    Infantry in an Assault (27.8: once per Red cube, which the game's attack keeps count of), and the
    scenario's Large Battle (27.6)."""
    mine, theirs = st.commander(side).abilities, st.commander(foe).abilities
    return {"artillery_expert": "artillery_expert" in mine,
            "attacker_disciplined_infantry": "disciplined_infantry" in mine,
            "disciplined_infantry": "disciplined_infantry" in theirs,
            "large_battle": st.scenario.model.large_battle}


def defender_higher(sc: Scenario, attacker_zone: str, target_zone: str) -> bool:
    """Is the target Zone the higher one across a slope or cliff interval (23.3)? The scenario lists such a
    border as ``[lower, higher, up_slope]``. Borders without a slope: True (the defender keeps the interval)."""
    if not sc.graph.adjacent(attacker_zone, target_zone):
        return True
    higher = sc.graph.border(attacker_zone, target_zone).attrs.get("higher")
    if higher is None or sc.interval(attacker_zone, target_zone) not in ("up_slope", "up_cliff"):
        return True
    return higher == target_zone


def bombard_line_of_sight(st: MapState, art_zone: str, target_zone: str, terrain: Terrain | None = None
                          ) -> tuple[str, ...]:
    """The Zones that stop a two-Zone Bombardment (27.5): Zones next to both the Artillery and its target whose
    terrain has a Fire defence value, or that hold any Block. Empty when the line of sight is clear.
    Our reading: any one such Zone stops it, even when another common neighbour is open."""
    terrain = terrain or st.scenario.terrain or default_terrain()
    sc = st.scenario
    common = set(sc.graph.neighbours(art_zone)) & set(sc.graph.neighbours(target_zone))
    return tuple(sorted(z for z in common if terrain.zone(sc.zone(z).terrain).fire > 0 or st.in_zone(z)))


def bombardment_from_map(st: MapState, art_zone: str, target_zone: str, terrain: Terrain | None = None
                         ) -> CombatSetup:
    """A Bombardment Fire set up from the map (27.5): a Steady Lead Artillery fires at a Zone one or two Zones
    away. At one Zone it is the adjacent combat (no supports, area effect); at two Zones the line of sight
    must be clear (:func:`bombard_line_of_sight`) and, our reading of the facing rule (9.4), one of the Zones
    between must be a Zone the guns face. No interval terrain counts at two Zones (they share no border)."""
    sc = st.scenario
    sc.zone(art_zone)
    sc.zone(target_zone)
    att, dfn = st.in_zone(art_zone), st.in_zone(target_zone)
    if not att or not att[0].block.artillery:
        raise RuleViolation("27.5", f"Zone {art_zone} has no Lead Artillery to bombard with")
    if not dfn or dfn[0].side == att[0].side:
        raise RuleViolation("27.5", f"Zone {target_zone} holds no enemy Block")
    if att[0].block.state != "steady":
        raise RuleViolation("27.5", "only a Steady Artillery may bombard")
    if sc.graph.adjacent(art_zone, target_zone):
        return replace(combat_from_map(st, art_zone, target_zone, "fire"), special="bombardment", bombard_range=1)
    dist = sc.graph.distance(art_zone, target_zone)
    if dist != 2:
        raise RuleViolation("27.5", f"a Bombardment reaches one or two Zones; {target_zone} is "
                                    f"{dist if dist is not None else 'no'} Zones from {art_zone}")
    lead = att[0]
    between = set(sc.graph.neighbours(art_zone)) & set(sc.graph.neighbours(target_zone))
    if lead.facing and not between & set(lead.facing):
        raise RuleViolation("27.5", f"the guns in {art_zone} face {', '.join(lead.facing)}, not towards "
                                    f"{target_zone}")
    blocked = bombard_line_of_sight(st, art_zone, target_zone, terrain)
    if blocked:
        raise RuleViolation("27.5", f"no line of sight from {art_zone} to {target_zone}: blocked by "
                                    f"{', '.join(blocked)} (a Block, or terrain with a Fire value)")
    side, foe = lead.side, dfn[0].side

    def side_of(units, zone, s):
        hq = st.hqs_in(zone, s)
        return CombatSide(units[0].block, units[1].block if len(units) > 1 else None, hq[0].hq if hq else None,
                          (), "good" if st.morale_of(s).good else "bad", terrain=sc.zone(zone).terrain,
                          no_retreat=None)                                           # 24.1: the owner's choice
    return CombatSetup("fire", side_of(att, art_zone, side), side_of(dfn, target_zone, foe), special="bombardment",
                       bombard_range=2, interval="none",
                       initiative="attacker" if st.initiative == side else "defender",
                       **_abilities(st, side, foe), players=(side, foe))


def map_bombardment(st: MapState, art_zone: str, target_zone: str, deck: Deck | None = None,
                    terrain: Terrain | None = None):
    """Procedure: a Bombardment on the map (27.5), resolved by the combat procedure and applied."""
    deck = deck or default_deck()
    setup = bombardment_from_map(st, art_zone, target_zone, terrain)
    out = yield from resolve(setup, deck, st.pile, terrain)
    return (yield from apply_outcome(st, art_zone, target_zone, out))


def map_combat(st: MapState, attacker_zone: str, target_zone: str, attack: str, deck: Deck | None = None,
               engaged: tuple[str, ...] = ()):
    """Procedure: a whole combat on the map: resolve it (same procedure as the calculators), then apply it."""
    deck = deck or default_deck()
    setup = combat_from_map(st, attacker_zone, target_zone, attack, engaged)
    out = yield from resolve(setup, deck, st.pile)
    return (yield from apply_outcome(st, attacker_zone, target_zone, out))


def apply_outcome(st: MapState, attacker_zone: str, target_zone: str, out: CombatOutcome):
    """Procedure: put a combat outcome on the map: Block states and steps, Morale, then retreats one Zone at a
    time chosen by the enemy (24.1)."""
    att, dfn = st.in_zone(attacker_zone), st.in_zone(target_zone)
    st = replace(st, redoubt_held=())        # 28.5: only the last combat's retreat may let an advance eliminate
    roles = {"attacker_lead": att[0], "attacker_second": att[1] if len(att) > 1 else None,
             "defender_lead": dfn[0], "defender_second": dfn[1] if len(dfn) > 1 else None}
    a_side, d_side = att[0].side, dfn[0].side
    for f in out.blocks:
        u = roles[f.role]
        if u is None:
            continue
        if f.eliminated:
            st = replace(st, units=tuple(x for x in st.units if x.id != u.id))
            continue
        formation = f.formation
        if formation == "roadway" and f.role.startswith("defender"):
            formation = "none"       # 19.3: attacked, it loses the Roadway marker and stays Disrupted
        b = replace(u.block, state=f.state, formation=formation, square_hits=f.square_hits,
                    steps_lost=u.block.steps_lost + f.steps_lost, skill=f.skill, redoubt_cubes=f.redoubt_cubes)
        st = set_block(st, u.id, b)
    st = change_morale(st, a_side, out.attacker_morale)
    st = change_morale(st, d_side, out.defender_morale)
    for who, what in out.hq_fates:                 # 27.11: an HQ hit flips it to Disrupted
        if what.startswith("HQ hit"):
            zone = attacker_zone if who == "attacker" else target_zone
            side = a_side if who == "attacker" else d_side
            for h in st.hqs_in(zone, side):
                if h.hq.state == "disrupted":
                    st = eliminate_hq(st, h.id)        # 27.10 (our reading: no side left below Disrupted)
                else:
                    st = replace(st, hqs=tuple(replace(x, hq=replace(x.hq, state=BattleState.DISRUPTED)) if x.id == h.id
                                               else x for x in st.hqs))
    if out.pile is not None:
        st = replace(st, pile=out.pile)
    for s_, lost in ((a_side, out.attacker_tokens_lost), (d_side, out.defender_tokens_lost)):
        if lost:                                   # 23.5 Death Head: Attack Tokens off the Army Mat
            st = replace(st, tokens=tuple((x, max(0, n - lost) if x == s_ else n) for x, n in st.tokens))
    for f in out.blocks:
        u = roles[f.role]
        if u is None or f.eliminated:
            continue
        for _ in range(f.retreats):
            if not any(x.id == u.id for x in st.units):
                break
            st = yield from retreat_block(st, u.id, ENEMY[u.side])
    return replace(st, log=st.log + (f"combat {attacker_zone} -> {target_zone}: {out.result}",))


def advance(st: MapState, attacker_zone: str, target_zone: str, uids: tuple[str, ...],
            retreated_artillery: str | None = None, deck: Deck | None = None):
    """Procedure: Advance after an Assault (25.0) into the emptied target Zone: the Lead Attacker, its second
    line only with it, never Foot Artillery or wing supports; then the capture check for a Lead Artillery that
    just retreated from there (a Skill Check, one lower for Foot Artillery; failure costs a step)."""
    deck = deck or default_deck()
    held = [u for u in st.in_zone(target_zone) if u.id in st.redoubt_held]
    if len(held) < len(st.in_zone(target_zone)):
        raise RuleViolation("25.0", f"{target_zone} is not empty of Blocks")
    here = st.in_zone(attacker_zone)
    if not here:
        raise RuleViolation("25.0", f"no Blocks in {attacker_zone}")
    lead, second = here[0], (here[1] if len(here) > 1 else None)
    hq_ids = tuple(h.id for h in st.hqs_in(attacker_zone, lead.side) if h.id in uids)   # 25.0: HQs may go too
    if hq_ids and lead.id not in uids:
        raise RuleViolation("25.0", "an HQ marker advances with the Lead Attacker (our reading)")
    if hq_ids and st.hqs_in(target_zone):
        raise RuleViolation("9.3", f"{target_zone} already holds an HQ marker")
    uids = tuple(u for u in uids if u not in hq_ids)
    for uid in uids:
        if uid not in [x.id for x in here]:
            raise RuleViolation("25.0", f"{uid} is not in the assaulting Zone (wing supports never advance)")
        if st.unit(uid).block.kind == "artillery":
            raise RuleViolation("25.0", "Foot Artillery does not advance after combat")
    if second is not None and second.id in uids and lead.id not in uids:
        raise RuleViolation("25.0", "the second line advances only with the Lead Attacker")
    if not st.scenario.graph.adjacent(attacker_zone, target_zone):
        raise RuleViolation("25.0", "the target Zone must be next to the attacker's")
    if uids:
        for r in held:           # 28.5: a Redoubt Block that had to retreat is eliminated by the advance
            yield Log("28.5", f"{r.id} could not retreat from its Redoubt and the enemy advances: eliminated")
            st = replace(st, units=tuple(x for x in st.units if x.id != r.id),
                         redoubt_held=tuple(x for x in st.redoubt_held if x != r.id))
            st = change_morale(st, r.side, -1)                                     # 26.0
    for uid in uids:
        u = st.unit(uid)
        st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=target_zone),))
    if hq_ids:
        st = replace(st, hqs=tuple(replace(h, zone=target_zone) if h.id in hq_ids else h for h in st.hqs))
    if uids and retreated_artillery and any(x.id == retreated_artillery for x in st.units):   # 25.0: only on an advance
        art = st.unit(retreated_artillery)
        skill = art.block.skill - (1 if art.block.kind == "artillery" else 0)
        face, pile = yield from draw_card(st.pile, deck, "25.0", f"capture check for {art.id}")
        st = replace(st, pile=pile.discarded(face))
        ok = read_check("general", deck.skill(face), max(skill, 0), st.morale_of(art.side).good).success
        yield Log("25.0", f"capture check {deck.skill(face)}: {'guns saved' if ok else 'guns lost, one step'}")
        if not ok:
            st = lose_step(st, art.id)
    return replace(st, log=st.log + (f"advance {uids} into {target_zone}",))


def grand_charge(st: MapState, attacker_zone: str, target_zone: str, deck: Deck | None = None,
                 card_shifts: int = 0):
    """Procedure: a whole Cavalry Grand Charge (27.2), triggered by an event card.

    The Steady Cavalry of the Zone (a Lead and a second line Cavalry) take Grand Charge markers and assault
    with no wing support; the card's shifts apply to both assaults. If the target Zone is emptied the Lead
    must advance (the second line with it). Then, if the Lead is not Disrupted, a second assault with the
    same Attack Token: the attacker decides (a Choose); declining needs a passed Skill Check of the Lead
    (21.2), a failed one means the second assault is made anyway. Without an advance only the same Zone may
    be assaulted again; after one, any adjacent enemy Zone (a Choose). At the end every charging Block still
    on the map becomes Disrupted; one that already was withdraws one Zone and leaves the map, to come back as
    a Steady reinforcement two turns later (recorded in ``returning``). Returns the new state.
    """
    deck = deck or default_deck()
    here = st.in_zone(attacker_zone)
    if not here or here[0].block.kind != "cavalry":
        raise RuleViolation("27.2", f"a Grand Charge is led by Cavalry; {attacker_zone} has none in the lead")
    side = here[0].side
    charging = tuple(u.id for u in here if u.block.kind == "cavalry")
    for uid in charging:
        if st.unit(uid).block.state != "steady":
            raise RuleViolation("27.2", f"only Steady Cavalry joins a Grand Charge ({uid} is "
                                        f"{st.unit(uid).block.state})")
    for uid in charging:
        st = set_block(st, uid, replace(st.unit(uid).block, formation=Formation.GRAND_CHARGE))
    zone, target = attacker_zone, target_zone

    def on_map(uid):
        return any(x.id == uid for x in st.units)

    for n in (1, 2):
        setup = combat_from_map(st, zone, target, "assault")
        lead_block = setup.attacker.lead
        special = "grand_charge" if lead_block.formation == "grand_charge" else "none"
        setup = replace(setup, special=special, card_shifts=card_shifts,
                        attacker=replace(setup.attacker, wings=()))          # 27.2: no wing support
        yield Log("27.2", f"Grand Charge, assault {n}: {zone} -> {target}")
        out = yield from resolve(setup, deck, st.pile)
        st = yield from apply_outcome(st, zone, target, out)
        movers = tuple(u for u in charging if on_map(u) and st.unit(u).zone == zone)
        advanced = False
        if movers and movers[0] == st.in_zone(zone)[0].id and out.zone_emptied and not st.in_zone(target):
            yield Log("27.2", "the Lead Cavalry must advance")
            st = yield from advance(st, zone, target, movers, deck=deck)
            zone, advanced = target, True
        if n == 2:
            break
        alive = [u for u in charging if on_map(u) and st.unit(u).zone == zone]
        if not alive or st.unit(alive[0]).block.state == "disrupted" or st.lead(zone).id != alive[0]:
            break
        if advanced:
            targets = tuple(z for z in st.scenario.graph.neighbours(zone)
                            if st.side_of_zone(z) == ENEMY[side] and not st.scenario.impassable(zone, z))
        else:
            targets = (target,) if st.side_of_zone(target) == ENEMY[side] else ()
        if not targets:
            break
        again = yield Choose((True, False), rule="27.2", player=side, label="Grand Charge: assault a second time?")
        if not again:
            face, pile = yield from draw_card(st.pile, deck, "27.2", "check to call off the second assault")
            st = replace(st, pile=pile.discarded(face))
            lead = st.unit(alive[0])
            ok = read_check("general", deck.skill(face), lead.block.skill + (1 if st.hq_bonus_in(zone, side) else 0),
                            st.morale_of(side).good).success
            yield Log("27.2", f"{deck.skill(face)}: " + ("the charge stops" if ok else "it must charge again"))
            if ok:
                break
        target = targets[0] if len(targets) == 1 else (
            yield Choose(targets, rule="27.2", player=side, label="Grand Charge: second target"))
    returning = list(st.returning)
    for uid in charging:                         # 27.2: end of the charge
        if not on_map(uid):
            continue
        u = st.unit(uid)
        if u.block.state == "disrupted":
            yield Log("27.2", f"{uid} was already Disrupted: it withdraws and leaves the map for two turns")
            st = replace(st, units=tuple(x for x in st.units if x.id != uid))
            back = replace(u.block, state=BattleState.STEADY, formation=Formation.NONE)
            returning.append((replace(u, block=back), st.turn + 2))
        else:
            st = set_block(st, uid, replace(u.block, state=BattleState.DISRUPTED, formation=Formation.NONE))
    return replace(st, returning=tuple(returning),
                   log=st.log + (f"grand charge from {attacker_zone} ends",))


def eliminate_hq(st: MapState, hq_id: str) -> MapState:
    """An HQ marker is eliminated (27.10): it leaves the map, its army loses one Morale as for a Block (26.0),
    and it is due back the next turn as a reinforcement, Disrupted, in a Zone holding a friendly Block."""
    h = next((x for x in st.hqs if x.id == hq_id), None)
    if h is None:
        raise RuleViolation("27.10", f"no HQ marker {hq_id!r} on the map")
    st = replace(st, hqs=tuple(x for x in st.hqs if x.id != hq_id),
                 hqs_out=st.hqs_out + ((replace(h, hq=replace(h.hq, state=BattleState.DISRUPTED)), st.turn + 1),),
                 log=st.log + (f"{hq_id} eliminated: back on turn {st.turn + 1} (27.10)",))
    return change_morale(st, h.side, -1)

