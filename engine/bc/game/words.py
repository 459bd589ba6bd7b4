"""Battle Commander in a player's words, from one place: every identifier of the rules as the rulebook names it
(:data:`WORDS`: results, icons, Block types, states, formations, attacks, phases, cubes), actions as short
sentences (what the play page lists and the logs say), the options and answers of a procedure's questions, an
attack's outcomes as the odds panel groups them, the figures a study follows, and the position value bots weigh
(the protocol's ``describe_action``, ``describe_option``, ``describe_answer``, ``piece_name``, ``option_title``,
``metric_title``, ``odds_label``, ``metrics``, ``evaluate``). The text notation (``format_action``) is not here:
it is what the command line reads back. Nothing here writes JSON, a repr or an identifier with an underscore.
"""
from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from engine.core.game import GameRules
from engine.core.procedure import ChanceRequest
from engine.core.values import spoken_list
from engine.core.words import identifier_words, plain, result_words

from ..deck import Deck
from .actions import BcAction, Kind
from .types import ENEMY, SIDES

__all__ = ["WORDS", "word", "words_in", "describe", "describe_option", "describe_answer", "piece_name",
           "option_title", "metric_title", "bc_label", "bc_metrics", "bc_value", "HITS", "map_changes", "bc_step",
           "bc_result", "combat_words", "face_words"]

#: each identifier of the rules in the words of the rulebook
WORDS: dict[str, str] = {
    # sides (7.2)
    "french": "French", "coalition": "Coalition",
    # Fire and Assault results (23.5)
    "gun_smoke": "Gun Smoke", "muskets_shot": "Muskets & Shot", "round_shot": "Round Shot",
    "skull_bones": "Skull & Bones", "black_cross": "Black Cross", "horse_head": "Horse Head", "bayonets": "Bayonets",
    "bayonets_burst": "Bayonets & Burst", "burst": "Burst", "retreat_flag": "Retreat Flag",
    # Skill Check icons (21.0)
    "officer": "Officer", "flags_1": "1 Flag", "flags_2": "2 Flags", "flags_3": "3 Flags", "flags_4": "4 Flags",
    "crossed_flags": "Crossed Flags", "death_head": "Death Head",
    # Blocks (9.0, 28.3), Battle States (9.2), formations (9.2, 19.3, 27.2-27.4, 28.2)
    "long_infantry": "Long Infantry", "infantry": "Infantry", "cavalry": "Cavalry", "artillery": "Artillery",
    "horse_artillery": "Horse Artillery", "garrison": "Garrison", "steady": "Steady", "shaken": "Shaken",
    "disrupted": "Disrupted", "square": "Square", "massed_column": "Massed Column", "roadway": "Roadway",
    "grand_charge": "Grand Charge", "grand_battery": "Grand Battery",
    # attacks (23.0, 27.5, 27.6)
    "fire": "Fire", "assault": "Assault", "bombard": "Bombardment", "bombardment": "Bombardment",
    "ordre_mixte": "Ordre Mixte", "artillery_assault": "Artillery Assault",
    # order cubes (8.0)
    "blue": "Blue", "white": "White", "gold": "Gold", "yellow": "Yellow", "red": "Red", "black": "Black",
    # purchases (18.0), commander abilities (28.9), optional rules
    "tokens": "Attack Tokens", "cubes": "order cubes", "artillery_expert": "Artillery Expert",
    "disciplined_infantry": "Disciplined Infantry", "unsteady": "Unsteady",
    "leader_assist": "Leader-assisted Skill Checks (29.6, with Wavering Troops 29.7)",
}
#: the phases of the turn (16.0-18.0, 23.0, 24.3) in a player's words
PHASE_WORDS: dict[str, str] = {
    "prepare": "Turn Preparation", "draw": "cube draw", "order": "order cube", "reaction": "Reaction",
    "gold": "Gold cube", "yellow_reinf": "reinforcements", "yellow_buy": "purchases", "yellow_rally": "rallies",
    "red": "combats", "advance": "advance after combat", "reform": "reforming", "give_ground": "Give Ground",
    "over": "game over"}
_FORMATION = {"square": "Square", "massed_column": "Massed Column", "none": "no special formation"}
_IDENT = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
_MAPPING = re.compile(r"\{[^{}]*\}")


def word(x: Any) -> str:
    """One identifier (a result, an icon, a side ...) in the rulebook's words."""
    if isinstance(x, str):
        return WORDS.get(x) or identifier_words(x)
    return plain(x)


def _mapping_words(m: re.Match) -> str:
    try:
        d = ast.literal_eval(m.group(0))
    except (ValueError, SyntaxError):
        return m.group(0)
    if not isinstance(d, dict):
        return m.group(0)
    return ", ".join(f"{word(k)} {v}" for k, v in d.items())


def words_in(text: str) -> str:
    """A note of the rules procedures in a player's words: each identifier replaced by its word, each small
    mapping (``{'blue': 6}``) written as ``Blue 6``."""
    text = _MAPPING.sub(_mapping_words, str(text))
    return _IDENT.sub(lambda m: word(m.group(0)), text)


def _step(path: str) -> str:
    return " then ".join(path.split(">"))


def _side(side: str) -> str:
    return str(side)


_SAY: dict[str, Callable[[Any], str]] = {
    Kind.START_TURN: lambda a: "start the turn: fill the cup, cut the hands and draw the cards (16.1, 15.0)",
    Kind.DRAW: lambda a: "draw an order cube from the cup (16.2)",
    Kind.MOVE: lambda a: (f"Move Order in {spoken_list(a.zones)}: "
                          f"{spoken_list([f'{b} to {_step(d)}' for b, d in a.moves] + [f'HQ {h} to {_step(d)}' for h, d in a.hqs]) or 'nothing moves'}"
                          + (f"; in Roadway formation: {spoken_list(a.roadway)}" if a.roadway else "") + " (19.0)"),
    Kind.READY_ARMS: lambda a: "Ready Arms with this cube (18.0)",
    Kind.IN_RESERVE: lambda a: "keep this cube In Reserve (18.0)",
    Kind.PASS: lambda a: "pass",
    Kind.GOLD: lambda a: ("take a card with the Gold cube (18.0)" if a.colour == "card"
                          else f"name the {word(a.colour)} cube with the Gold cube (18.0)"),
    Kind.REINFORCE: lambda a: (("bring on the reinforcements due: "
                                + spoken_list(u.replace(":", " enters at ") for u in a.units)) if a.units
                               else "bring on the reinforcements due") + " (18.0)",
    Kind.PURCHASE: lambda a: (f"spend card{'s' if len(a.cards) > 1 else ''} {spoken_list(str(c) for c in a.cards)} "
                              f"on {WORDS.get(a.buy, a.buy or 'a purchase')} (18.0)"),
    Kind.RALLY: lambda a: f"Rally in {a.frm} (20.0)" + (f", discarding the Leader card {a.leader} for an Officer "
                                                        "(29.6)" if a.leader else ""),
    Kind.ARMY_RALLY: lambda a: "Army Rally (20.0)" + (f", with the Leader card {a.leader} for an Officer (29.6)"
                                                      if a.leader else ""),
    Kind.ATTACK: lambda a: (f"{word(a.attack)} from {a.frm} at {a.to}"
                            + ("" if a.special in ("", "none") else f", {word(a.special)}") + " (23.1)"),
    Kind.COMBAT_MOVE: lambda a: f"Combat Move from {a.frm} to {a.to} (19.4)",
    Kind.ADVANCE: lambda a: f"advance from {a.frm} into {a.to}: {spoken_list(a.units) if a.units else 'nobody'} (25.0)",
    Kind.FACE: lambda a: f"face {a.block} toward {spoken_list(a.facing) or 'no Zone'} (9.4)",
    Kind.SWAP: lambda a: f"swap the lead and second line in {a.frm} (9.4)",
    Kind.FORMATION: lambda a: f"Blocks in {a.frm}: {_FORMATION.get(a.formation, word(a.formation))} (9.2)",
    Kind.DONE: lambda a: "done reforming (9.4)",
    Kind.GIVE_GROUND: lambda a: f"{a.block} gives ground (24.3)",
    Kind.SURRENDER: lambda a: f"{a.block} surrenders (26.0)",
}
assert set(_SAY) == set(Kind), "every action kind has its words"


def describe(a: BcAction) -> str:
    """The action as a sentence, with its rule, after its side (``"coalition: Move Order in E2: C1 to E1
    (19.0)"``)."""
    return f"{_side(a.side)}: {_SAY[a.kind](a)}"


def piece_name(st, piece: str) -> str:
    """A Block or HQ marker as its counter shows it: its scenario name, else its id and its type
    (``"F1 (Long Infantry)"``, ``"FHQ (HQ)"``)."""
    g = st.g
    for u in g.units:
        if u.id == piece:
            return u.block.name or f"{piece} ({word(u.block.kind)})"
    h = g.hq(piece)
    if h is not None:
        return f"{piece} ({h.hq.kind.upper()})"
    return str(piece)


def option_title(name: str) -> str:
    """A game option as a player names it."""
    return WORDS.get(name) or identifier_words(name).capitalize()


_METRICS = {"morale": "Morale", "blocks": "Blocks on the map", "hits": "hits carried"}


def metric_title(key: str) -> str:
    """``"morale.french"`` -> ``"French Morale"``."""
    name, _, side = key.partition(".")
    return f"{word(side)} {_METRICS.get(name, identifier_words(name))}".strip()


def describe_option(st, request, option, deck: Deck) -> str:
    """One option of a question inside an action, in a player's words: yes or no, a Zone, a card, a number of
    cubes, a direction of neutral shifts (23.4)."""
    rule = getattr(request, "rule", "")
    if isinstance(option, bool):
        return "yes" if option else "no"
    if rule == "23.4" and isinstance(option, int):
        if option == 0:
            return "no shift"
        return f"{abs(option)} shift{'s' if abs(option) > 1 else ''} {'right' if option > 0 else 'left'}"
    if rule == "16.1" and "reserve" in getattr(request, "label", "") and isinstance(option, int):
        return f"{option} cube{'s' if option != 1 else ''} into the cup"
    if rule in ("15.0", "16.1") and isinstance(option, int):
        return card_words(deck, option)
    if isinstance(option, str) and option in st.g.scenario.model.zones:
        return f"Zone {option}"
    return word(option)


def card_words(deck: Deck, number: int) -> str:
    """``"card 7, Officer (French Leader)"``."""
    try:
        c = deck.card(number)
    except Exception:  # noqa: BLE001 - an unknown number is still said, not raised
        return f"card {number}"
    who = word(c.side) if c.side != "shared" else "shared"
    return f"card {number}, {word(c.skill) if c.skill else 'the reshuffle card'} ({who}{' Leader' if c.leader else ''})"


def describe_answer(st, answer: dict, deck: Deck) -> str:
    """One answered question or note of a record event in a player's words (a card face down when masked)."""
    kind = answer.get("kind")
    label = words_in(answer.get("label") or "")
    value = answer.get("value")
    if kind == "draw" and answer.get("rule") == "16.2":
        return f"{label}: {word(value)}"
    if kind == "draw":
        return f"{label}: {'a card, face down' if value is None else card_words(deck, value)}"
    if kind == "choose":
        return f"{label} {('yes' if value else 'no') if isinstance(value, bool) else word(value)}"
    if kind == "log":
        return label
    return f"{label}: {word(value)}"


#: hits a Block carries by its state (9.1: Steady, Shaken, Disrupted), as the labels count them
HITS = {"steady": 0, "shaken": 1, "disrupted": 2}


def _hits(n: int) -> str:
    return f"{n} hit{'s' if n != 1 else ''}"


def _block_words(u0, u1, role: str, target: str) -> tuple[str, tuple[str, ...]] | None:
    """``("defender", ("takes 1 hit",))``, ``("attacker", ("eliminated",))``, ``("defender", ("retreats to
    M3",))``: what became of one Block, by role."""
    if u1 is None:
        return role, ("eliminated",)
    bits = []
    d = HITS.get(u1.block.state, 0) - HITS.get(u0.block.state, 0) + (u1.block.steps_lost - u0.block.steps_lost)
    if u1.block.square_hits > u0.block.square_hits:
        d += u1.block.square_hits - u0.block.square_hits
    if d > 0:
        bits.append(f"takes {_hits(d)}")
    elif d < 0:
        bits.append("recovers")
    if u1.block.formation != u0.block.formation and u0.block.formation == "square":
        bits.append("square broken")
    if u1.zone != u0.zone:
        bits.append(f"advances into {u1.zone}" if u1.zone == target else f"retreats to {u1.zone}")
    return (role, tuple(bits)) if bits else None


#: each thing a Block does in a label, said of several Blocks
_MANY = {"takes": "take", "recovers": "recover", "advances": "advance", "retreats": "retreat"}


def _said(role: str, bits: tuple[str, ...], n: int) -> str:
    """``"defender block takes 1 hit"``; the same said of ``n`` Blocks: ``"2 defender blocks take 1 hit each"``."""
    if n == 1:
        return f"{role} block " + " and ".join(bits)
    many = [" ".join([_MANY.get(b.split(" ")[0], b.split(" ")[0])] + b.split(" ")[1:]) for b in bits]
    each = " each" if any(b.startswith("take") for b in many) else ""
    return f"{n} {role} blocks " + " and ".join(many) + each


def bc_label(rules, before, after, a) -> tuple[str, str]:
    """E.g. ``"defender block takes 1 hit"``, ``"defender block retreats to M3; attacker block advances
    into M2"``, ``"2 attacker blocks take 1 hit each"``, ``"no effect"`` (rule 23.0), with morale changes (13.0)
    and the end of the game."""
    if a.kind != "attack":
        return GameRules.odds_label(rules, before, after, a), rules.rule_of(a)
    parts = map_changes(before.g, after.g, a.frm, a.to, a.side)
    if after.winner is not None and before.winner is None:
        parts.append(f"game over: {after.winner}")
    return "; ".join(parts) or "no effect", "23.0"


def map_changes(g0, g1, frm: str, to: str, side: str) -> list[str]:
    """What an attack from ``frm`` on ``to`` by ``side`` did on the map (23.0, 24.0, 13.0): each Block of the two
    Zones by its role (the same said of several Blocks said once, counted), then each Morale change."""
    now = {u.id: u for u in g1.units}
    seen: dict[tuple[str, tuple[str, ...]], int] = {}
    for u0 in g0.units:
        if u0.zone not in (frm, to):
            continue
        w = _block_words(u0, now.get(u0.id), "attacker" if u0.side == side else "defender", to)
        if w:
            seen[w] = seen.get(w, 0) + 1            # the same said of several Blocks is said once, counted
    parts: list[str] = [_said(role, bits, n) for (role, bits), n in seen.items()]
    for s in SIDES:
        d = g1.morale_of(s).value - g0.morale_of(s).value
        if d:
            parts.append(f"{s} morale {d:+d}")
    return parts


def bc_metrics(st) -> dict[str, float]:
    """Each side's Morale (13.0), its Blocks on the map and the hits they carry (9.1)."""
    g = st.g
    out: dict[str, float] = {}
    for side in SIDES:
        mine = [u for u in g.units if u.side == side]
        out[f"morale.{side}"] = float(g.morale_of(side).value)
        out[f"blocks.{side}"] = float(len(mine))
        out[f"hits.{side}"] = float(sum(HITS.get(u.block.state, 0) + u.block.steps_lost for u in mine))
    return out


def bc_value(rules, st, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else (our weights) 3 points a Block on the map more than
    the enemy, half a point a hit the enemy carries more than we do, and the Morale balance (13.0)."""
    out = rules.outcome(st)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    m = bc_metrics(st)
    foe = ENEMY[side]
    return (3.0 * (m[f"blocks.{side}"] - m[f"blocks.{foe}"]) + 0.5 * (m[f"hits.{foe}"] - m[f"hits.{side}"])
            + (m[f"morale.{side}"] - m[f"morale.{foe}"]))


# ------------------------------------------------------------------------------------------------
# An attack's probability tree in a player's words (issue 25 point 1)
# ------------------------------------------------------------------------------------------------
#: a result said in the tree is at most this long (core cuts longer ones: quick_odds.RESULT_CHARS is 120)
LONGEST = 119
#: the Blocks of a combat by their place in it (9.4 Lead and second line)
_ROLE = {"attacker_lead": "attacking Lead", "attacker_second": "attacker's second line",
         "defender_lead": "defending Lead", "defender_second": "defender's second line"}
_EFFECTS_LABEL = re.compile(r"\beffects of ([a-z_]+)")
_ATTACK_LABEL = re.compile(r"^(fire|assault|bombard|bombardment|ordre_mixte|artillery_assault) from ")


def _fit(head: str, extras: list[str], rule: str) -> str:
    """``head: extra; extra (rule)`` with as many extras, in order, as keep it at most :data:`LONGEST` long."""
    tail = f" ({rule})" if rule else ""
    out = head
    for i, e in enumerate(extras):
        cand = f"{out}{': ' if i == 0 else '; '}{e}"
        if len(cand) + len(tail) > LONGEST:
            break
        out = cand
    return out + tail


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def bc_step(request) -> str:
    """A question of the tree in the rulebook's words: ``"effects of Gun Smoke"``, ``"Fire from E2 on M2"``,
    ``"combat card (fire, column +2)"``."""
    text = request.describe() if isinstance(request, ChanceRequest) else str(request.label)
    text = _ATTACK_LABEL.sub(lambda m: f"{word(m.group(1))} from ", text)
    text = _EFFECTS_LABEL.sub(lambda m: f"effects of {word(m.group(1))}", text)
    return words_in(text)


def _setup_side(side) -> str:
    b = side.lead
    return f"{b.name or word(b.kind)} (skill {b.skill}, {word(str(b.state))})"


def _setup_words(s) -> str:
    """The attack set-up (23.1, 23.6): the two Leads, then the supports counted."""
    extras = []
    for who, side in (("attacker", s.attacker), ("defender", s.defender)):
        if side.second is not None:
            extras.append(f"{who}'s second line {side.second.name or word(side.second.kind)}")
        if side.steady_hq:
            extras.append(f"{who}'s HQ +1 Skill")
    if s.attacker.wings:
        extras.append(_n(len(s.attacker.wings), "Wing support"))
    if s.special not in ("", "none"):
        extras.insert(0, word(s.special))
    return _fit(f"{word(s.attack)}, {_setup_side(s.attacker)} against {_setup_side(s.defender)}", extras, "23.1")


def _fate_words(f) -> str | None:
    if f.eliminated:
        bits = ["eliminated"]
    else:
        bits = ([f"takes {_n(f.hits, 'hit')}"] if f.hits else []) + \
               ([f"loses {_n(f.steps_lost, 'step')}"] if f.steps_lost else []) + \
               ([f"retreats {_n(f.retreats, 'Zone')}"] if f.retreats else [])
    if not bits:
        return None
    return f"{_ROLE.get(f.role, identifier_words(f.role))} " + " and ".join(bits)


def combat_words(o) -> str:
    """A combat's outcome (23.5): the result, then what it did: ``"Skull & Bones: defender loses 1 Morale; critical
    icon 4 Flags; defending Lead takes 1 hit (23.5)"``."""
    bits = []
    for who, d in (("attacker", o.attacker_morale), ("defender", o.defender_morale)):
        if d:
            bits.append(f"{who} {'loses' if d < 0 else 'gains'} {abs(d)} Morale")
    if o.critical:
        bits.append(f"critical icon {word(o.critical)}")
    bits += [w for w in (_fate_words(f) for f in o.blocks) if w]
    for who, n in (("attacker", o.attacker_tokens_lost), ("defender", o.defender_tokens_lost)):
        if n:
            bits.append(f"{who} loses {_n(n, 'Attack Token')}")
    if o.square_formed:
        bits.append("a Square formed")
    bits += [f"{word(side)} HQ {words_in(what)}" for side, what in o.hq_fates]
    if o.advance_morale:
        bits.append("+1 Morale on an advance")
    head = word(o.result) + ("" if o.table in ("fire", "assault") and o.table == _TABLE.get(o.result, o.table)
                             else f" on the {word(o.table)} line")
    return _fit(head, bits or ["no effect"], "23.5")


#: the CRT line each result is read on (23.2 Fire, 23.3 Assault)
_TABLE = {"gun_smoke": "fire", "muskets_shot": "fire", "round_shot": "fire", "skull_bones": "fire",
          "black_cross": "assault", "horse_head": "assault", "bayonets": "assault", "bayonets_burst": "assault",
          "burst": "assault", "retreat_flag": "assault"}


def _read(shifted) -> str:
    """A card's CRT results at the column read: one, or one for each net shift (23.4)."""
    if not shifted:
        return ""
    if len(shifted) == 1:
        return word(shifted[0][1])
    return ", ".join(f"{word(r)} at shift {k:+d}" for (_, k), r in shifted)


def face_words(request, face) -> str:
    """A card drawn, as the question that drew it reads it: the reshuffle card (15.0); a combat card's result
    and icon (23.2, 23.3); an icon on the Critical Combat Table (23.5); a Skill Check icon (21.0)."""
    if face.reshuffle:
        return "the reshuffle card: the discards go back into the pile (15.0)"
    label = str(getattr(request, "label", "")).lower()
    icon = " or ".join(word(i) for i in face.alike) if face.alike else word(face.skill) if face.skill else "no icon"
    if "critical combat table" in label:
        return f"Critical Combat Table: {icon} (23.5)"
    read = _read(face.shifted)
    if read or "combat card" in label:
        fire = _read(face.fire_shifted)
        rule = "23.2" if "fire" in label and "assault" not in label else "23.3"
        return _fit(read or "a card", [f"card icon {icon}"] + ([f"Fire line {fire} (27.6)"] if fire else []), rule)
    return f"Skill Check icon: {icon} (21.0)"


def bc_result(st, request, value) -> str:
    """A sub-procedure's result or a card drawn, in the tree, as a player says it (dispatched on its type, or on
    the key of the sub-procedure that gave it)."""
    from ..combat import CombatOutcome
    from ..deck import Face
    from ..tally import CombatSetup
    from .state import MapState
    got = getattr(request, "key", None)
    key: tuple[Any, ...] = got if isinstance(got, tuple) else ()
    kind = key[0] if key and isinstance(key[0], str) else ""
    if isinstance(value, CombatOutcome):
        return combat_words(value)
    if isinstance(value, CombatSetup):
        return _setup_words(value)
    if isinstance(value, Face):
        return face_words(request, value)
    if isinstance(value, MapState) and kind == "bc-apply" and len(key) > 3:
        g0, frm, to = key[1], key[2], key[3]
        lead = g0.lead(frm)
        side = lead.side if lead is not None else ENEMY.get(g0.side_of_zone(to) or "", "")
        return _fit("on the map", map_changes(g0, value, frm, to, side) or ["no change"], "24.1")
    if kind == "bc-fire-redraw" and isinstance(value, tuple) and value:
        return f"Fire line: {word(value[0])} (27.6)"
    rule = str(getattr(request, "rule", "") or "")
    if kind == "bc-combat-card-read" and isinstance(value, tuple) and len(value) == 3:
        # (result, CRT line, pile): the pile left is bookkeeping, not news
        result, table, _ = value
        return f"{word(result)} on the {word(table)} line ({'27.6' if table == 'fire' and rule == '23.3' else rule})"
    if kind == "bc-combat-card-draw" and isinstance(value, tuple) and len(value) == 4:
        # (result, net shift, redraw, pile): a card the attacker redraws for (27.6) or its result at the net shift
        result, net, redraw, _ = value
        shift = "" if net is None else f", net shift {net:+d} (23.4)"
        if redraw:
            return f"the attacker redraws on the Fire line (27.6){shift}"
        return f"{word(result)}{shift} ({rule})"
    if kind == "bc-hq-fates" and isinstance(value, tuple) and len(value) == 3:
        fated, _, _ = value
        return _fit("Fate of War", [f"{word(side)} HQ: {what}" for side, what in fated] or ["no HQ draws"], "27.11")
    return words_in(result_words(value))
