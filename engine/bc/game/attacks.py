"""The Red cube (23.0) in a game: attacks (23.1, 27.5, 27.6), Combat Moves (19.4) and the advance after an
Assault (25.0), as the actions of a position.

An attack's set-up is read from the map (:mod:`.combat`) and checked against table 23.6 (:func:`attack_setup`,
which is also the attack's check); the combat is the calculators' procedure and its outcome goes on the map,
both as inline sub-procedures keyed by value, so that exact enumeration works each out once.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from ..combat import resolve
from ..deck import Deck
from ..tally import CombatSetup, Tally, prepare
from ..terrain import default_terrain
from .actions import Advance, Attack, CombatMove
from .combat import advance, apply_outcome, bombardment_from_map, combat_from_map
from .dry import dry_run
from .phases import open_reform
from .retreat import cavalry_withdrawal
from .movement import combat_move
from .state import BcState, MapState, change_morale
from .types import ENEMY, LEADER_ASSIST, Phase, other
from .zones import needs_facing

__all__ = ["attack_setup", "check_attack", "do_attack", "check_combat_move", "do_combat_move", "check_advance",
           "do_advance"]


def attack_setup(st: BcState, a: Attack) -> tuple[CombatSetup, Tally]:
    """The attack's set-up from the map and its tally (23.1, table 23.6, 27.x); raises when it may not be made
    (no Attack Token, a Zone already engaged, a Lead that may not make this attack ...)."""
    g = st.g
    moved = bool(st.follow) and a.frm == st.follow          # 19.4: the token came with the Block
    if st.follow and not moved:
        raise RuleViolation("19.4", f"the Block that made a Combat Move to {st.follow} attacks now or stops")
    if not moved and g.tokens_of(a.side) < 1:
        raise RuleViolation("23.1", f"{a.side} has no Attack Token left (8.0)")
    if not moved and a.frm in st.engaged:
        raise RuleViolation("23.1", f"Zone {a.frm} already holds an Attack Token this Red cube: one attack per Zone")
    if g.side_of_zone(a.frm) != a.side:
        raise RuleViolation("23.1", f"Zone {a.frm} holds no {a.side} Lead Block")
    if a.special not in ("none", "ordre_mixte", "artillery_assault", "grand_charge"):
        raise RuleViolation("27.0", f"unknown special attack {a.special!r}")
    _check_special(st, a)
    if a.attack == "bombard":
        if a.special != "none":
            raise RuleViolation("27.5", "a Bombardment has no other special type")
        setup = bombardment_from_map(g, a.frm, a.to)
    elif a.attack in ("fire", "assault"):
        setup = combat_from_map(g, a.frm, a.to, a.attack,
                                tuple(z for z in st.engaged if z != a.frm) if moved else st.engaged)
        if a.special != "none":
            setup = replace(setup, special=a.special)
        setup = _used_abilities(st, a, setup)
    else:
        raise RuleViolation("23.1", f"the attack type is fire, assault or bombard, not {a.attack!r}")
    tally = prepare(setup)                  # table 23.6 and 27.x: may this Lead make this attack?
    return setup, tally


def _check_special(st: BcState, a: Attack) -> None:
    """27.6: an Ordre Mixte needs the Army Commander's ability (or a Grognard Lead, 29.8, which is outside the
    limit), an Artillery Assault the Artillery Expert's (the tally checks it); each once per Red cube draw."""
    if a.special == "ordre_mixte":
        if st.g.lead(a.frm).block.grognard:
            return
        if "ordre_mixte" not in st.g.commander(a.side).abilities:
            raise RuleViolation("27.6", f"the {a.side} Army Commander has no Ordre Mixte ability (28.9)")
    if a.special in ("ordre_mixte", "artillery_assault") and f"{a.side}:{a.special}" in st.specials:
        raise RuleViolation("27.6", f"one {a.special.replace('_', ' ')} per Red cube draw: {a.side} made one already")


def _used_abilities(st: BcState, a: Attack, setup: CombatSetup) -> CombatSetup:
    """27.8: the defender's Disciplined Infantry shift is used once per Red cube draw; 29.7 Wavering Troops comes
    with the optional rule 29.6."""
    if f"{other(a.side)}:disciplined_infantry" in st.specials:
        setup = replace(setup, disciplined_infantry=False)
    if LEADER_ASSIST in st.options:
        setup = replace(setup, wavering_troops=True)
    return setup


def _specials_used(st: BcState, a: Attack, setup: CombatSetup) -> tuple[str, ...]:
    """The once-per-Red-cube abilities this attack used (27.6, 27.8, 29.8: a Grognard's Ordre Mixte is free)."""
    used = []
    if a.special == "artillery_assault" or (a.special == "ordre_mixte" and not setup.attacker.lead.grognard):
        used.append(f"{a.side}:{a.special}")
    if any(sh.rule == "27.8" and sh.amount < 0 for sh in prepare(setup, declared=True).shifts):
        used.append(f"{other(a.side)}:disciplined_infantry")
    return tuple(dict.fromkeys(st.specials + tuple(used)))


def may_clash(g: MapState, setup: CombatSetup, who: str, side: str) -> bool:
    """27.7: may ``side`` (the ``who`` of the Assault) declare a Clash of Wills? A Steady Lead of higher skill
    than the enemy Lead, HQ bonus included (the tally's own check), a Commander without the Unsteady ability,
    an army whose Morale is not frozen at zero (28.6)."""
    if setup.attack != "assault" or "unsteady" in g.commander(side).abilities:
        return False
    m = g.morale_of(side)
    if m.resilient and m.value == 0:
        return False
    try:
        prepare(replace(setup, clash_of_wills=who))
    except RuleViolation:
        return False
    return True


def _clash_of_wills(g: MapState, a: Attack, setup: CombatSetup):
    """Procedure: the side that may declare a Clash of Wills (27.7) is asked, before the combat."""
    for who, side in (("attacker", a.side), ("defender", other(a.side))):
        if may_clash(g, setup, who, side) and (yield Choose(
                (False, True), rule="27.7", player=side,
                label=f"{side}: declare a Clash of Wills (one Morale now, the result one shift your way)?")):
            yield Log("27.7", f"{side} declares a Clash of Wills")
            return replace(setup, clash_of_wills=who)
    return setup


def check_attack(st: BcState, a: Attack, deck: Deck) -> None:
    attack_setup(st, a)


def _setup_proc(st: BcState, a: Attack):
    """Sub-procedure without a question: the attack's set-up from the map (23.1, table 23.6, 27.x)."""
    if False:                                # pragma: no cover - a generator that asks nothing
        yield
    return attack_setup(st, a)[0]


def do_attack(st: BcState, a: Attack, deck: Deck):
    """An attack (23.1): the Attack Token placed, a Cavalry Withdrawal (24.2) before an Assault, the combat and
    its outcome on the map, then the advance (25.0) or the enemy's turn to attack."""
    # an inline sub-procedure keyed by the position, so exact enumeration reads the map once
    setup = yield Sub(("bc-setup", st, a), partial(_setup_proc, st, a), rule="23.1",
                      label="attack set-up", inline=True)
    moved = bool(st.follow)
    st = replace(st, follow="")
    g = st.g
    d_lead = g.lead(a.to)
    if moved:
        yield Log("19.4", f"the Attack Token that moved with the Lead: {a.attack} on {a.to}")
    else:
        g = replace(g, tokens=tuple((s, n - 1 if s == a.side else n) for s, n in g.tokens))   # 8.0, 23.1
        yield Log("23.1", f"{a.side} places an Attack Token in {a.frm}: {a.attack} on {a.to}")
    lead_a = g.lead(a.frm).block
    if a.attack == "assault" and (lead_a.infantry or lead_a.artillery):
        for u in [x for x in g.in_zone(a.to) if x.block.kind in ("cavalry", "horse_artillery")]:
            go = yield Choose((False, True), rule="24.2", player=u.side,
                              label=f"{u.id}: withdraw from {a.to} before the assault?")
            if go:                           # 24.2 Cavalry Withdrawal, the owner picks the Zone
                g = yield from cavalry_withdrawal(g, u.id, a.frm)
        sc = g.scenario
        for h in g.hqs_in(a.to, ENEMY[a.side]):     # 24.2: an HQ marker there may withdraw too
            ways = tuple(z for z in sorted(sc.graph.neighbours(a.to)) if not sc.impassable(a.to, z)
                         and g.side_of_zone(z) != a.side and not g.hqs_in(z))
            if not ways or not (yield Choose((False, True), rule="24.2", player=h.side,
                                             label=f"{h.id}: withdraw from {a.to} before the assault?")):
                continue
            to = ways[0] if len(ways) == 1 else (
                yield Choose(ways, rule="24.2", player=h.side, label=f"{h.id} withdraws to"))
            yield Log("24.2", f"{h.id} withdraws to {to}")
            g = replace(g, hqs=tuple(replace(x, zone=to) if x.id == h.id else x for x in g.hqs))
        if not any(x.side != a.side for x in g.in_zone(a.to)):
            yield Log("24.2", f"{a.to} is empty: no combat, the token is spent, the attacker may advance")
            st = replace(st, g=g, engaged=tuple(dict.fromkeys(st.engaged + (a.frm,))), passes=0)
            if any(x.side == a.side for x in g.in_zone(a.frm)):
                return replace(st, phase=Phase.ADVANCE, actor=a.side, advance=(a.frm, a.to, "", ""))
            return replace(st, actor=ENEMY[a.side])
        d_lead = g.lead(a.to)
        setup = combat_from_map(g, a.frm, a.to, a.attack, st.engaged)
        if a.special != "none":
            setup = replace(setup, special=a.special)
        setup = _used_abilities(st, a, setup)
    specials = _specials_used(st, a, setup)
    setup = yield from _clash_of_wills(g, a, setup)
    out, g = yield from _combat(g, a, setup, deck)
    st = replace(st, g=g, engaged=tuple(dict.fromkeys(st.engaged + (a.frm,))), passes=0, specials=specials)
    fate = out.fate("defender_lead")
    art = ""
    if d_lead.block.artillery and fate is not None and fate.retreats and not fate.eliminated \
            and any(x.id == d_lead.id for x in g.units):
        art = d_lead.id                      # 25.0: a Lead Artillery that just retreated
    attackers = [u for u in g.in_zone(a.frm) if u.side == a.side]
    held = [u for u in g.in_zone(a.to) if u.id not in g.redoubt_held]
    if a.attack == "assault" and out.zone_emptied and not held and attackers:
        return replace(st, phase=Phase.ADVANCE, actor=a.side,
                       advance=(a.frm, a.to, art, "morale" if out.advance_morale else ""))
    return replace(st, actor=ENEMY[a.side])


def _combat(g: MapState, a: Attack, setup: CombatSetup, deck: Deck):
    """23.1 step 6 to 27.11, then 24.1 on the map: the combat procedure and its outcome put on the map.

    Both run as inline sub-procedures keyed by value: play and replay run them in place (the record is
    the same), and exact enumeration works out each one's outcomes once. The map part is keyed without
    the pile (its retreats draw no card), so every card sequence with the same effect shares it; the
    pile the combat leaves is then put on the map, as :func:`~engine.bc.game.combat.apply_outcome` does."""
    terrain = g.scenario.terrain or default_terrain()          # a game's own chart, else the shipped one
    # the map reads the combat's outcome, not the Critical Combat Table's icon: odds read that card by what it does
    out = yield Sub(("bc-combat", setup, deck, terrain, g.pile),
                    partial(resolve, setup, deck, g.pile, terrain, critical_icon=False),
                    rule="23.1", label=f"{setup.attack} from {a.frm} on {a.to}", inline=True)
    bare = replace(out, pile=None)
    g2 = yield Sub(("bc-apply", g, a.frm, a.to, bare), partial(apply_outcome, g, a.frm, a.to, bare),
                   rule="24.1", label="the combat outcome on the map", inline=True)
    if out.pile is not None:
        g2 = replace(g2, pile=out.pile)
    return out, g2


def check_combat_move(st: BcState, a: CombatMove, deck: Deck) -> None:
    """A Combat Move (19.4): an Attack Token, a Zone not yet engaged, a Lead that may make it."""
    g = st.g
    if st.follow:
        raise RuleViolation("19.4", f"the Block that moved to {st.follow} attacks now or stops")
    if g.tokens_of(a.side) < 1:
        raise RuleViolation("19.4", f"a Combat Move costs an Attack Token; {a.side} has none (8.0)")
    if a.frm in st.engaged:
        raise RuleViolation("23.1", f"Zone {a.frm} already holds an Attack Token this Red cube")
    if g.side_of_zone(a.frm) != a.side:
        raise RuleViolation("19.4", f"Zone {a.frm} holds no {a.side} Lead Block")
    combat_move(g, a.frm, a.to)


def do_combat_move(st: BcState, a: CombatMove, deck: Deck):
    g = replace(st.g, tokens=tuple((s, n - 1 if s == a.side else n) for s, n in st.g.tokens))
    g = combat_move(g, a.frm, a.to)
    yield Log("19.4", f"{a.side}: Combat Move from {a.frm} to {a.to} with an Attack Token")
    st = replace(st, g=g, engaged=tuple(dict.fromkeys(st.engaged + (a.to,))), follow=a.to, passes=0)
    need = [u for u in g.in_zone(a.to) if needs_facing(g, u)]
    if need:                                 # 9.4: a moved Horse Artillery is faced before it fires
        return open_reform(st, (a.to,), a.side, Phase.RED, a.side, deck)
    return st


def check_advance(st: BcState, a: Advance, deck: Deck) -> None:
    """Only after the Assault just made, into the Zone it emptied (25.0); the advance's own refusals."""
    if (a.frm, a.to) != tuple(st.advance[:2]):
        raise RuleViolation("25.0", f"only the Assault just made from {st.advance[0]} into {st.advance[1]} "
                                    "may advance")
    dry_run(advance(st.g, a.frm, a.to, a.units, st.advance[2] or None, deck), deck)


def do_advance(st: BcState, a: Advance, deck: Deck):
    frm, to, art, morale = st.advance
    g = yield from advance(st.g, frm, to, a.units, art or None, deck)
    engaged = st.engaged
    if a.units:
        if morale:
            yield Log("23.5", f"Retreat Flag and an advance: the {a.side} army gains one Morale")
            g = change_morale(g, a.side, +1)
        # 25.0: the Attack Token stays with the Lead Attacker: it leaves the Zone it attacked from
        engaged = tuple(dict.fromkeys(tuple(z for z in engaged if z != frm) + (to,)))
    st = replace(st, g=g, advance=(), engaged=engaged)
    if not a.units:
        return replace(st, phase=Phase.RED, actor=ENEMY[a.side])
    return open_reform(st, (to,), a.side, Phase.RED, ENEMY[a.side], deck)
