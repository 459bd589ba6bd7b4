"""Battle Commander combat (23.1 step 6 to 27.11): the combat procedure the calculators and the game share.

:func:`resolve` is the combat procedure: Square attempt (23.1 step 6), the combat card (23.2/23.3), neutral
shifts chosen after the draw (23.4), the exceptions (skirmishers, Burst, Cavalry Battle), Critical Combat Table
(23.5), No Retreat! (24.1), HQs fate (27.10-27.11). It returns a :class:`CombatOutcome`: what happened to each
Block in the two Zones, the Morale changes, Attack Tokens lost and how many Zones each Block must retreat.
Moving the retreating Blocks is the map's business (:mod:`engine.bc.game.retreat`). The set-up and its tally
(who may attack, Combat Points, column, shifts) are in :mod:`engine.bc.tally`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any

from engine.core.procedure import Choose, Log, Sub, chain

from .blocks import INFANTRY, BattleState, Block, Formation, block_steps, hit_block, redoubt_cube
from .checks import critical_effect, read_check, read_fate
from .deck import Deck, Pile, draw_card, read_icon
from .odds_piles import ClassDraw
from .readings import card_readings, effects_readings, fate_reading, icon_classes, results_of, square_readings
from .tally import CombatSetup, CombatSide, prepare
from .terrain import Terrain, default_terrain

__all__ = ["ROLES", "BlockFate", "CombatOutcome", "square_outcome", "best_for", "neutral_policy", "resolve",
           "combat_procedure", "fire_redraw", "read_combat_card", "draw_combat_card", "as_the_redraw_reads", "hq_fate_checks"]


ROLES = ("attacker_lead", "attacker_second", "defender_lead", "defender_second")


@dataclass(frozen=True)
class BlockFate:
    role: str
    state: str
    formation: str
    square_hits: int
    hits: int
    steps_lost: int
    retreats: int
    eliminated: bool
    skill: int
    redoubt_cubes: int = 0      # 28.5: cubes left on an Artillery Redoubt Block's rear

    def to_json(self):
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class CombatOutcome:
    result: str                 # final CRT result, after shifts and exceptions
    table: str                  # CRT line used (an Ordre Mixte redraw may switch to fire)
    critical: str | None        # Critical Combat Table icon, if checked
    attacker_morale: int
    defender_morale: int
    attacker_tokens_lost: int
    defender_tokens_lost: int
    blocks: tuple[BlockFate, ...]
    hq_fates: tuple[tuple[str, str], ...] = ()   # (side, what happened)
    zone_emptied: bool = False  # every defender left or died: the attacker may advance (25.0)
    advance_morale: bool = False  # Retreat Flag: +1 Morale if the attacker advances (23.5)
    square_formed: bool = False
    pile: Pile | None = None

    def fate(self, role: str) -> BlockFate | None:
        for f in self.blocks:
            if f.role == role:
                return f
        return None

    def to_json(self) -> dict:
        d = {"result": self.result, "table": self.table, "critical": self.critical,
             "attacker_morale": self.attacker_morale, "defender_morale": self.defender_morale,
             "attacker_tokens_lost": self.attacker_tokens_lost, "defender_tokens_lost": self.defender_tokens_lost,
             "blocks": [b.to_json() for b in self.blocks], "hq_fates": [list(h) for h in self.hq_fates],
             "zone_emptied": self.zone_emptied, "advance_morale": self.advance_morale,
             "square_formed": self.square_formed}
        if self.pile is not None:
            d["pile"] = self.pile.to_json()
        return d


def square_outcome(s: CombatSetup, icon: str) -> dict[str, Block]:
    """What the Square check card (23.1 step 6, 27.3) does to each eligible defender: forms Square on a
    pass, one hit on a failure. Also used to foresee, before the card, every possible odds column."""
    d = s.defender
    out = {}
    for r, b in (("defender_lead", d.lead), ("defender_second", d.second)):
        if b is None or not b.infantry or b.state == "disrupted" or b.square or \
                b.formation in ("massed_column", "roadway"):
            continue
        ok = read_check("general", icon, b.skill + (1 if d.steady_hq else 0), d.good_morale_for(b)).success
        out[r] = (replace(b, formation=Formation.SQUARE, state=BattleState.STEADY, square_hits=0) if ok
                  else hit_block(b)[0])
    return out


def best_for(deck: Deck, table: str, player: str):
    """Ranking used by the calculators' default policy: the attacker prefers results further along the
    table's order (worst-for-attacker first), the defender the reverse."""
    def key(result: str) -> int:
        r = deck.rank(table, result)
        return r if player == "attacker" else -r
    return key


def neutral_policy(request: Choose):
    """Default policy for neutral shifts (23.4): each side picks what is best for it; the player who chooses
    first anticipates the last chooser's reply. ``request.context`` carries, for each possible final net
    shift, the rank of the result it gives (worst for the attacker first)."""
    ctx = request.context
    if not ctx or ctx[0] != "neutral":
        return request.options[0]
    _, ranks, fixed, order = ctx          # order: ((player, n), ...) from this chooser on
    rank_of = dict(ranks)

    def value(net: int, rest) -> int:
        if not rest:
            return rank_of[net]
        player, n = rest[0]
        vals = [value(net + k, rest[1:]) for k in range(-n, n + 1, 2)]
        return max(vals) if player == "attacker" else min(vals)

    player, n = order[0]
    scored = [(value(fixed + k, order[1:]), k) for k in request.options]
    pick = max(scored) if player == "attacker" else min(scored)
    return pick[1]


def fire_redraw(pile, deck: Deck, column: int, net: int, summarised: bool):
    """27.6: the Ordre Mixte (or Artillery Assault) redraw: one card drawn (15.0) and read on the Fire line at
    the same column and net shift. Returns the result and the pile, the card discarded; for odds
    (``summarised``) the pile kept as icons only, as every later draw reads them."""
    face, p = yield from draw_card(pile, deck, "27.6", f"redraw card (fire, column {column:+d})")
    p = p.discarded(face)
    result = deck.results(face, "fire", ((column, net),))[0][1]
    return result, (p.summarise(deck, ()) if summarised else p)


def read_combat_card(deck: Deck, pile, table: str, column: int, fixed: int, order: tuple, redraw_on: tuple | None):
    """The combat card (23.2 / 23.3) read at ``column`` after the fixed and neutral shifts (23.4), and, where
    ``redraw_on`` lists the results an Ordre Mixte or Artillery Assault may redraw (27.6), the redraw on the Fire
    line. Returns ``(result, table, pile)``: the final result, the CRT line it was read on and the pile, the
    card(s) discarded; for odds (a summarised pile) the pile as icons only, as every later draw reads them."""
    draw = partial(draw_combat_card, deck, pile, table, column, fixed, order, redraw_on)
    if redraw_on is None:
        result, net, redraw, p = yield from draw()
    else:
        # an inline step of its own: in odds, the cards that lead to a redraw meet by what the redraw reads of
        # the pile (each card's icon and Fire result), whatever Assault result they showed
        result, net, redraw, p = yield Sub(("bc-combat-card-draw", deck, pile, table, column, fixed, order, redraw_on),
                                           draw, rule="23.2" if table == "fire" else "23.3",
                                           label=f"combat card ({table}, column {column:+d}) and the shifts",
                                           inline=True)
    if redraw:
        result, p = yield from fire_redraw(p, deck, column, net, not p.tracked)
        table = "fire"
        yield Log("27.6", f"redraw on the Fire line: {result}")
    return result, table, p


def draw_combat_card(deck: Deck, pile, table: str, column: int, fixed: int, order: tuple, redraw_on: tuple | None):
    """The combat card drawn (23.2 / 23.3), the neutral shifts chosen after the draw (23.4: non-initiative player
    first, ``order``) and, where ``redraw_on`` is given, the attacker's choice of an Ordre Mixte redraw (27.6).
    Returns ``(result, net shift, redraw, pile)``, the card discarded. For odds (a summarised pile) only what the
    rest reads is kept: after a redraw, each card's icon and Fire result at this read (the drawn card's Assault
    result no longer counts); else the icons."""
    rule = "23.2" if table == "fire" else "23.3"
    face, p = yield from draw_card(pile, deck, rule, f"combat card ({table}, column {column:+d})")
    p = p.discarded(face)
    nets = _net_range(fixed, order)
    outcomes = tuple((n, r) for (c, n), r in deck.results(face, table, tuple((column, n) for n in nets)))
    net = fixed
    for i, (player, n) in enumerate(order):
        pick = yield Choose(tuple(range(-n, n + 1, 2)), rule="23.4", player=player,
                            label=f"net direction of {n} neutral shift(s)",
                            context=("neutral", tuple((k, deck.rank(table, r)) for k, r in outcomes), net,
                                     tuple(order[i:])))
        net += pick
    result = dict(outcomes)[net]
    yield Log("23.4", f"column {column:+d}, net shift {net:+d}: {result}")
    redraw = False
    if redraw_on is not None:
        redraw = yield Choose((result in redraw_on, not (result in redraw_on)), rule="27.6", player="attacker",
                              label=f"redraw and use the Fire line instead of {result}?")
    if p.tracked:
        return result, net, redraw, p
    if redraw:
        return None, net, True, as_the_redraw_reads(p, deck, column, net)
    return result, None, False, p.summarise(deck, ())


def as_the_redraw_reads(pile, deck: Deck, column: int, net: int):
    """Odds: each card of a summarised pile as an Ordre Mixte redraw reads it (27.6): its icon and its Fire
    result at the combat's column and net shift."""
    return pile.project_results(deck, "fire", ((column, net),))


@lru_cache(maxsize=1024)
def _fate_classes(checks: tuple, assault: bool) -> tuple[tuple[str, ...], ...]:
    """The Skill Check icons (21.0) grouped by what the Fate of War table (27.11) gives each HQ of ``checks``
    ((side, HQ, good Morale), ...), the 29.1 redraw included (it follows a Commander struck): icons of one
    group are alike to :func:`hq_fate_checks`."""
    return icon_classes(frozenset(("fate", hq.skill, good, hq.kind, assault) for _, hq, good in checks))


def hq_fate_checks(deck: Deck, pile, checks: tuple, assault: bool):
    """27.10, 27.11: each HQ in a Zone that took hits (``checks``: (side, HQ, good Morale) in order, attacker
    first) draws a Fate of War card; 29.1: a card that would strike a Commander in Command Perspective is drawn
    again, once. Returns ((side, what happened), ...), the Morale changes ((side, n), ...) and the pile, the
    cards discarded (``None`` for odds: nothing after the combat reads it)."""
    fated, changes = [], []
    for who, hq, good in checks:
        face, pile = yield from draw_card(pile, deck, "27.10", f"{who} HQ fate of war")
        pile = pile.discarded(face)
        read_icon(deck, face, partial(fate_reading, skill=hq.skill, good=good, kind=hq.kind, assault=assault))
        f = read_fate(deck.skill(face), hq.skill, good, hq_kind=hq.kind, assault=assault)
        if f.commander_hors_de_combat and hq.perspective and hq.kind == "hq":
            # 29.1 safety bonus: a card that would strike the Commander is drawn again, once
            yield Log("29.1", f"{who} Commander in Command Perspective: the Fate of War card is redrawn")
            face, pile = yield from draw_card(pile, deck, "29.1", f"{who} HQ fate of war, redrawn")
            pile = pile.discarded(face)
            read_icon(deck, face, partial(fate_reading, skill=hq.skill, good=good, kind=hq.kind, assault=assault))
            f = read_fate(deck.skill(face), hq.skill, good, hq_kind=hq.kind, assault=assault)
        changes.append((who, f.morale))
        what = "no effect"
        if f.hq_hit:
            what = "HQ hit" + (", one Morale lost" if f.morale else "") + \
                (" and the Army Commander is Hors de Combat" if f.commander_hors_de_combat else "")
        fated.append((who, what))
        yield Log("27.11", f"{who} HQ: {' or '.join(face.alike) if getattr(face, 'alike', ()) else f.icon}: {what}")
    return tuple(fated), tuple(changes), (pile if pile.tracked else None)


def resolve(s: CombatSetup, deck: Deck, pile: Pile, terrain: Terrain | None = None, _resume=None,
            _scenarios: tuple | None = None, critical_icon: bool = True):
    """The combat procedure (23.1 step 6 to 27.11). Yields card draws and choices; returns a CombatOutcome.

    ``critical_icon``: the caller reads the Critical Combat Table's icon of the outcome (the calculators show it).
    A game's odds do not (what it did is in the Blocks, Morale and Attack Tokens): there the icon is left out of
    the outcome (``critical`` None), so that card is read only by what it does, as every other card of the
    combat in odds is read only by what decides the rest (:func:`icon_classes`). Played cards keep it."""
    terrain = terrain or default_terrain()
    a, d = s.attacker, s.defender
    blocks: dict[str, Block | None] = {"attacker_lead": a.lead, "attacker_second": a.second,
                                       "defender_lead": d.lead, "defender_second": d.second}
    hits = {r: 0 for r in ROLES}
    steps = {r: 0 for r in ROLES}
    retreats = {r: 0 for r in ROLES}
    gone = {r: False for r in ROLES}
    morale = {"attacker": 0, "defender": 0}
    tokens = {"attacker": 0, "defender": 0}
    side_hit = {"attacker": False, "defender": False}
    hq_fates: list[tuple[str, str]] = []
    no_retreat_paid = {"attacker": False, "defender": False}
    square_formed = False

    def side_of(role: str) -> CombatSide:
        return a if role.startswith("attacker") else d

    def owner(role: str) -> str:
        return "attacker" if role.startswith("attacker") else "defender"

    def present(role: str) -> bool:
        return blocks[role] is not None and not gone[role]

    def lose_step(role: str, rule: str):
        b = blocks[role]
        steps[role] += 1
        if b.steps_lost + steps[role] >= block_steps(b):
            gone[role] = True
            morale[owner(role)] -= 1                 # 26.0: an eliminated Block costs one Morale
            yield Log(rule, f"{role.replace('_', ' ')} eliminated: its army loses one Morale (26.0)")
        else:
            yield Log(rule, f"{role.replace('_', ' ')} loses a step (11.0)")

    def cohesion_hit(role: str, rule: str):
        """One combat Cohesion Hit (9.2); a Disrupted Block hit retreats a Zone (24.1)."""
        if not present(role):
            return
        b = blocks[role]
        if s.special == "bombardment" and role == "attacker_lead" and not d.lead.artillery:
            yield Log("27.5", "bombarding artillery is immune to the hit")
            return
        saved = yield from redoubt_cube(b, owner(role), role.replace("_", " "))   # 28.5
        if saved is not None:
            blocks[role] = saved
            return
        hits[role] += 1
        side_hit[owner(role)] = True
        nb, must_retreat, note = hit_block(b)
        blocks[role] = nb
        if note:
            yield Log(note[0], f"{role.replace('_', ' ')}: {note[1]}")
        if must_retreat:                              # 24.1 retreat trigger
            yield from retreat(role, "24.1", by_hit=True)

    def retreat(role: str, rule: str, by_hit: bool = False):
        b = blocks[role]
        if b.square or b.formation == "massed_column":   # 24.1: they never retreat, a hit instead
            yield Log("24.1", f"{role.replace('_', ' ')} cannot retreat: takes a hit instead")
            yield from cohesion_hit(role, "24.1")
            return
        if b.redoubt_block:          # 28.5: it stays; the map eliminates it if the enemy advances (25.0)
            yield Log("28.5", f"{role.replace('_', ' ')}: the Redoubt Block must retreat but cannot move; "
                              "it is eliminated if the enemy advances")
            retreats[role] += 1
            return
        me = side_of(role)
        who = owner(role)
        eligible = b.infantry and (b.skill >= 3 or b.russian)
        want = me.no_retreat if by_hit and eligible else False
        if want is None:                              # 24.1: the owner may try, in a game
            want = yield Choose((False, True), rule="24.1", player=s.players[0 if who == "attacker" else 1],
                                label=f"No Retreat! for the {role.replace('_', ' ')}: a Skill Check to stay, one "
                                      "Morale for the Zone if it holds?")
        if want:                                      # 24.1 No Retreat!
            skill = b.skill + (1 if me.steady_hq else 0) + (1 if b.russian else 0)
            chk = yield from check("general", skill, me.good_morale_for(b), "24.1",
                                   f"No Retreat! check for {role.replace('_', ' ')}")
            if chk.success:
                if not no_retreat_paid[who]:
                    morale[who] -= 1
                    no_retreat_paid[who] = True
                yield Log("24.1", f"{role.replace('_', ' ')} holds: retreat cancelled, one Morale paid for the Zone")
                return
        retreats[role] += 1

    piles: dict[str, Any] = {"p": pile}      # odds: None once nothing after reads it

    def draw(rule: str, label: str):
        face, p = yield from draw_card(piles["p"], deck, rule, label)
        piles["p"] = p.discarded(face)
        return face

    def check(table: str, skill: int, good: bool, rule: str, label: str):
        face = yield from draw(rule, label)
        read_icon(deck, face, lambda icon: read_check(table, icon, skill, good).success)   # what the caller reads
        return read_check(table, deck.skill(face), skill, good)

    def passes(b, icon, me: CombatSide) -> bool:
        """A block's General Skill Check on a drawn icon (21.2), with the HQ +1."""
        return read_check("general", icon, b.skill + (1 if me.steady_hq else 0), me.good_morale_for(b)).success

    def checks_or_hits(roles: list, me: CombatSide, label: str):
        """23.5: one card drawn for the group; each block that fails its check takes a Cohesion Hit."""
        face = yield from draw("23.5", label)
        read_icon(deck, face, lambda icon: tuple(passes(blocks[r], icon, me) for r in roles))
        icon = deck.skill(face)
        for r in roles:
            if not passes(blocks[r], icon, me):
                yield from cohesion_hit(r, "23.5")

    def effects(result: str, table: str):
        """Everything after the final result is known (23.5-27.11): a memoised sub-procedure."""
        nonlocal square_formed
        A, D = blocks["attacker_lead"], blocks["defender_lead"]
        critical: str | None = None

        def critical_check(who: str):
            nonlocal critical
            me = a if who == "attacker" else d
            role = f"{who}_lead"
            face = yield from draw("23.5", f"Critical Combat Table ({who})")
            b = blocks[role]
            what = read_icon(deck, face, partial(critical_effect, skill=b.skill, artillery=b.artillery,
                                                 hq_bonus=1 if me.steady_hq else 0, good=me.good_morale_for(b),
                                                 wavering=s.wavering_troops))
            # the icon itself, where the caller reads it (the calculators show it) or the cards are played
            critical = deck.skill(face) if critical_icon or piles["p"].tracked else None
            if what == "officer":
                morale[who] += 1
                yield Log("23.5", "Officer: the Morale loss is cancelled")
            elif what == "militia removed":
                gone[role] = True
                yield Log("29.7", "wavering militia removed from the game")
            elif what == "skill drops":
                blocks[role] = replace(b, skill=b.skill - 1)
                yield Log("29.7", f"wavering troops: lead skill drops to {b.skill - 1}")
            elif what == "step lost":
                yield from lose_step(role, "23.5")
            elif what == "death head":
                tokens[who] += 1
                yield Log("23.5", "Death Head: one Attack Token discarded from the Army Mat")
                if blocks[role].state == "disrupted" and present(role):
                    yield from lose_step(role, "23.5")

        zone = ("attacker_lead", "attacker_second")
        target = ("defender_lead", "defender_second")
        area = s.special == "bombardment" and s.bombard_range == 1      # 27.5 area effect

        if table == "fire":
            if result == "muskets_shot":
                yield from cohesion_hit("attacker_lead", "23.5")
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
            elif result == "round_shot":
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
            elif result == "skull_bones":
                morale["defender"] -= 1
                yield from critical_check("defender")
                for r in (target if area else ("defender_lead",)):
                    yield from cohesion_hit(r, "23.5")
        else:
            if result == "black_cross":
                morale["attacker"] -= 1
                yield from critical_check("attacker")
                for r in zone:
                    yield from cohesion_hit(r, "23.5")
            elif result == "horse_head":
                def steady_cav(b):
                    return b is not None and b.kind == "cavalry" and not b.shots and (b.steady or
                                                                                     b.formation == "grand_charge")
                if steady_cav(A) or steady_cav(D):
                    yield Log("23.5", "Cavalry Battle")
                    for side_roles, me in ((zone, a), (target, d)):
                        cav = [r for r in side_roles if present(r) and blocks[r].kind == "cavalry"]
                        if cav:
                            yield from checks_or_hits(cav, me, f"cavalry skill check ({owner(cav[0])})")
                    if steady_cav(A):
                        for r in target:
                            b = blocks[r] if present(r) else None
                            if b is None or b.kind == "cavalry":
                                continue
                            if b.infantry and b.steady and not b.square and b.formation != "massed_column":
                                blocks[r] = replace(b, formation=Formation.SQUARE, square_hits=0)
                                square_formed = True
                                yield Log("23.5", f"{r.replace('_', ' ')} forms Square automatically")
                            elif not b.square:
                                yield from cohesion_hit(r, "23.5")
                    if steady_cav(D):
                        for r in zone:
                            b = blocks[r] if present(r) else None
                            if b is None or b.kind == "cavalry" or b.square:
                                continue
                            yield from cohesion_hit(r, "23.5")
            elif result == "bayonets":
                for r in zone + target:
                    yield from cohesion_hit(r, "23.5")
            elif result == "bayonets_burst":
                for r in target:
                    yield from cohesion_hit(r, "23.5")
                here = [r for r in zone if present(r)]
                if here:
                    yield from checks_or_hits(here, a, "attackers' skill check (Bayonets & Burst)")
            elif result == "burst":
                for r in target:
                    yield from cohesion_hit(r, "23.5")
                still = [r for r in target if present(r)]
                if still and all(retreats[r] > 0 for r in still):
                    face = yield from draw("23.5", "retreating defenders' skill check (Burst)")
                    if read_icon(deck, face, lambda icon: any(not passes(blocks[r], icon, d) for r in still)):
                        morale["defender"] -= 1
                        yield Log("23.5", "a retreating defender failed: one Morale lost")
            elif result == "retreat_flag":
                morale["defender"] -= 1
                yield from critical_check("defender")
                for r in target:
                    if present(r):
                        yield from retreat(r, "23.5")
                for r in target:
                    yield from cohesion_hit(r, "23.5")

        if not piles["p"].tracked:
            # odds: the HQs' Fate of War is the next step of the combat's chain (27.10, 27.11), worked out once
            # for each distinct position the effects leave; of the pile it keeps what that step reads (each
            # card as the class of icons the Fate of War table tells apart), or nothing when no HQ draws
            checks = fate_checks()
            piles["p"] = piles["p"].by_icons(deck, _fate_classes(checks, table == "assault")) if checks else None
            return freeze(result, table, critical)
        return (yield from fates(result, table, critical))

    def fate_checks() -> tuple:
        """27.10: (side, HQ, good Morale) of each HQ in a Zone that took hits, the attacker first."""
        return tuple((who, me.hq, me.morale == "good") for who, me in (("attacker", a), ("defender", d))
                     if me.hq is not None and side_hit[who])

    def fates(result: str, table: str, critical: str | None):
        """27.10, 27.11: the HQs in a Zone that took hits check their fate, then the combat's outcome."""
        # the last cards of a combat: an inline step keyed by the pile and the HQs; in odds, where the pile
        # left is not kept, the cards alike in their effect on the HQs meet as one branch
        checks = fate_checks()
        if checks:
            fated, changes, left = yield Sub(("bc-hq-fates", deck, piles["p"], checks, table),
                                             partial(hq_fate_checks, deck, piles["p"], checks, table == "assault"),
                                             rule="27.10", label="HQs' fate of war", inline=True)
            hq_fates.extend(fated)
            for who, n in changes:
                morale[who] += n
            if left is not None:
                piles["p"] = left

        target = ("defender_lead", "defender_second")
        kept = []
        for r in ROLES:
            b = blocks[r]
            if b is None:
                continue
            kept.append(BlockFate(r, b.state, b.formation, b.square_hits, hits[r], steps[r], retreats[r], gone[r],
                                   b.skill, b.redoubt_cubes))
        emptied = table == "assault" and all(not present(r) or retreats[r] > 0 for r in target)
        out = CombatOutcome(result, table, critical, morale["attacker"], morale["defender"], tokens["attacker"],
                            tokens["defender"], tuple(kept), tuple(hq_fates), emptied,
                            emptied and result == "retreat_flag", square_formed,
                            piles["p"] if piles["p"] is not None and piles["p"].tracked else None)
        return out

    def freeze(*extra):
        return (s, square_formed, piles["p"], tuple(blocks.items()), tuple(hits.items()), tuple(steps.items()),
                tuple(retreats.items()), tuple(gone.items()), tuple(morale.items()), tuple(tokens.items()),
                tuple(side_hit.items())) + extra

    stage = None
    try_square = False
    if _resume is not None:               # a step of the combat: carry on from a frozen state
        stage, snap = _resume
        (s, square_formed, piles["p"], b_items, h_items, st_items, r_items, g_items, m_items, t_items,
         sh_items) = snap[:11]
        a, d = s.attacker, s.defender
        for target_dict, items in ((blocks, b_items), (hits, h_items), (steps, st_items), (retreats, r_items),
                                   (gone, g_items), (morale, m_items), (tokens, t_items), (side_hit, sh_items)):
            target_dict.update(items)
        if stage == "effects":
            result, table = snap[11:]
            return (yield from effects(result, table))
        if stage == "fates":
            result, table, critical = snap[11:]
            return (yield from fates(result, table, critical))
        if stage == "square":
            (try_square,) = snap[11:]

    redraw_rule = s.special in ("ordre_mixte", "artillery_assault")
    summarised = not piles["p"].tracked
    if stage is None:
        if s.clash_of_wills != "none":          # 27.7: declaring it costs the declaring army one Morale at once
            morale[s.clash_of_wills] -= 1
            yield Log("27.7", f"Clash of Wills declared by the {s.clash_of_wills}: one Morale lost")
        if summarised:          # odds: keep only what the draws below look at (icons, this table's rows)
            piles["p"] = piles["p"].summarise(deck, (s.attack, "fire") if redraw_rule else (s.attack,))
        # ---- 23.1 step 6: Square attempt against a Lead Cavalry assault --------------------------------
        try_square = (s.attack == "assault" and a.lead.kind == "cavalry" and s.square_attempt is not False
                      and bool(square_outcome(s, "officer")))
        if try_square and s.square_attempt is None:   # 23.1 step 6: the defender may try, in a game
            try_square = yield Choose((True, False), rule="23.1", player=s.players[1],
                                      label="form Square against the Lead Cavalry (one Skill Check for the Zone)?")
        if summarised:
            if try_square and not redraw_rule:
                # odds: foresee the column and shifts after every possible Square check, and keep of each card
                # only its icon and the results it can give; alike cards then share one branch
                piles["p"] = piles["p"].project_results(deck, s.attack, _scenarios or _square_scenarios(s, terrain))
            if try_square:
                # odds: each card's icon as the class of icons the Square check and everything after it tell
                # apart (whatever the check gives, the Blocks read their icons alike), so alike cards share a branch
                results = results_of(piles["p"], s.attack, redraw_rule)
                piles["p"] = piles["p"].classed(deck, icon_classes(
                    square_readings(s) | card_readings(s, tuple(blocks.items()), results, critical_icon)))
                # the Square check reads only that class: one branch per class, the pile after it each pile the
                # cards of the class would leave, weighed (the combat card reads them whole, 23.2-23.4)
                piles["p"] = ClassDraw(piles["p"])
            # odds: the rest as a chain of steps (23.1 step 6 Square check, 23.2-23.4 combat card and 23.5
            # exceptions, 23.5-24.1 effects, 27.10-27.11 HQs' fate): each step worked out once for each distinct
            # position the one before leaves, the ways that reach it added up (play runs the same code in place)
            return (yield chain(("bc-combat-steps", deck, terrain, critical_icon), freeze(try_square),
                                _combat_steps(deck, terrain, critical_icon),
                                rule="23.1", label="the combat card and its effects"))
    if try_square:
        face = yield from draw("23.1", "square formation check (one card for the Zone)")
        read_icon(deck, face, partial(square_outcome, s))
        icon = deck.skill(face)
        for r, nb in square_outcome(s, icon).items():
            if nb.square:
                blocks[r] = nb
                square_formed = True
                yield Log("27.3", f"{r.replace('_', ' ')} forms a Square")
            else:
                yield Log("27.3", f"{r.replace('_', ' ')} fails to form a Square and takes a hit")
                yield from cohesion_hit(r, "23.1")
        s = replace(s, defender=replace(d, lead=blocks["defender_lead"], second=blocks["defender_second"]))
        d = s.defender

    tally = _declared_tally(s, terrain)
    table = tally.table
    # neutral shifts (23.4): decided after the draw, non-initiative player first, initiative player last
    order = [(p, n) for p, n in (("attacker", s.neutral_attacker), ("defender", s.neutral_defender)) if n]
    order.sort(key=lambda pn: pn[0] == s.initiative)
    nets = _nets(s, tally.net_shift)
    if stage == "square":
        # odds: each card now only matters by its icon and the result it gives at this column for each
        # possible net shift (and, where an Ordre Mixte redraw may read it, the Fire line's, 27.6); cards
        # alike in all count as one branch
        reads = tuple((tally.column, n) for n in nets)
        p = piles["p"].project_results(deck, table, reads, reads if redraw_rule else ())
        # and of its icon only the class the rest of the combat tells apart, whatever result the card gives
        piles["p"] = p.classed(deck, icon_classes(card_readings(s, tuple(blocks.items()),
                                                                 results_of(p, table, redraw_rule), critical_icon)))
        return freeze()

    # ---- the combat card (23.2 / 23.3), the neutral shifts (23.4), an Ordre Mixte redraw (27.6) ------------
    # an inline step keyed by what it reads: in odds, cards alike in what they leave (the final result and
    # the pile, as icons) meet as one branch before the effects; play and replay record the same events
    redraw_on = tuple(s.ordre_mixte_redraw) if redraw_rule else None
    card = (table, tally.column, tally.net_shift, tuple(order), redraw_on)
    result, table, piles["p"] = yield Sub(("bc-combat-card-read", deck, piles["p"]) + card,
                                          partial(read_combat_card, deck, piles["p"], *card),
                                          rule="23.2" if table == "fire" else "23.3",
                                          label=f"combat card ({table}, column {tally.column:+d})", inline=True)

    # ---- exceptions (23.5) ----------------------------------------------------------------------------
    A, D = blocks["attacker_lead"], blocks["defender_lead"]
    if table == "fire" and result == "muskets_shot":
        shots = [r for r in ("attacker_lead", "defender_lead") if blocks[r].shots
                 and blocks[r].kind in INFANTRY + ("cavalry",)]
        other = {"attacker_lead": D, "defender_lead": A}
        if len(shots) == 1 and other[shots[0]].infantry:
            who = owner(shots[0])
            change = yield Choose((s.skirmish_gun_smoke, not s.skirmish_gun_smoke), rule="23.5", player=who,
                                  label="skirmishers: change Muskets & Shot to Gun Smoke?")
            if change:
                result = "gun_smoke"
                yield Log("23.5", "skirmishers turn the exchange into Gun Smoke")
    if table == "assault" and result == "bayonets_burst":
        if D.burst and D.steady and not A.burst:
            result = "bayonets"
            yield Log("23.5", "defender's Burst: Bayonets & Burst becomes Bayonets")
        elif A.burst and A.steady and not D.burst:
            result = "burst"
            yield Log("23.5", "attacker's Burst: Bayonets & Burst becomes Burst")

    if summarised:
        # odds: the effects are the chain's next step; of the pile (icons now) it keeps the classes of icons they
        # and the HQs' Fate of War tell apart for this result
        piles["p"] = piles["p"].classed(deck, icon_classes(effects_readings(s, tuple(blocks.items()), result, table,
                                                                             critical_icon)))
        return freeze(result, table)
    snap = freeze(result, table)
    out = yield Sub(("bc-combat-effects", deck, terrain, snap),
                    partial(resolve, s, deck, piles["p"], terrain, _resume=("effects", snap),
                            critical_icon=critical_icon),
                    rule="23.5", label=f"effects of {result}")
    return out


@lru_cache(maxsize=4096)
def _declared_tally(s: CombatSetup, terrain: Terrain):
    """The combat's tally once declared (23.1-23.6): a value, worked out once for each set-up (odds resume the
    combat from a step many times over)."""
    return prepare(s, terrain, declared=True)


def _combat_step(stage: str, deck: Deck, terrain: Terrain, critical_icon: bool, snap: tuple):
    """One step of the combat's chain in odds (:func:`resolve` carried on from ``snap`` at ``stage``)."""
    return resolve(snap[0], deck, snap[2], terrain, _resume=(stage, snap), critical_icon=critical_icon)


def _combat_steps(deck: Deck, terrain: Terrain, critical_icon: bool) -> tuple:
    return tuple(partial(_combat_step, stage, deck, terrain, critical_icon)
                 for stage in ("square", "card", "effects", "fates"))


def _nets(s: CombatSetup, fixed: int) -> tuple[int, ...]:
    return _net_range(fixed, ((p, n) for p, n in (("attacker", s.neutral_attacker), ("defender", s.neutral_defender))))


def _net_range(fixed: int, order) -> tuple[int, ...]:
    """Every net shift the neutral shifts of ``order`` ((player, n), ...) may give from ``fixed`` (23.4)."""
    nets = {fixed}
    for _, n in order:
        if n:
            nets = {x + k for x in nets for k in range(-n, n + 1, 2)}
    return tuple(sorted(nets))


def _square_scenarios(s: CombatSetup, terrain: Terrain) -> tuple[tuple[int, int], ...]:
    """Every (column, net shift) the combat card may be read at, whatever the Square check gives."""
    out = set()
    for icon in ("officer", "flags_1", "flags_2", "flags_3", "flags_4", "crossed_flags", "death_head"):
        d = s.defender
        new = square_outcome(s, icon)
        s2 = replace(s, defender=replace(d, lead=new.get("defender_lead", d.lead),
                                         second=new.get("defender_second", d.second)))
        t = prepare(s2, terrain, declared=True)
        out |= {(t.column, n) for n in _nets(s2, t.net_shift)}
    return tuple(sorted(out))


def combat_procedure(setup: CombatSetup, deck: Deck, pile: Pile, terrain: Terrain | None = None):
    """Validate now (a bad set-up raises before anything is drawn) and return the factory for the drivers."""
    terrain = terrain or default_terrain()
    prepare(setup, terrain)
    scen = None
    if setup.attack == "assault" and setup.attacker.lead.kind == "cavalry" and setup.square_attempt:
        scen = _square_scenarios(setup, terrain)
    return partial(resolve, setup, deck, pile, terrain, _scenarios=scen)
