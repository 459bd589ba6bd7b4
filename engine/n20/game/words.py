"""Napoleonic 20 in a player's words, from one place: actions (what the play page lists and the walkthroughs
say), the answers of a record (dice with what they decided, event cards with their title and effect,
choices), the options a procedure offers (retreat paths with their hazards, advances, exchanges), the
optional rules, the figures a study follows, and the name a piece goes by.

Every text ends with, or names, the rule it rests on; none shows JSON, a Python repr or an identifier with
an underscore (tests/n20_game/test_n20_words.py plays random games to check it). :func:`describe` reads
only an action's fields, e.g. ``"move FRCV from 1011 to 0912 (6.0)"``; a unit is named as its counter's
label (:func:`piece_name`), the same on the board and in the lists. The text notation (``str(action)``) is
another thing: what the command line reads back.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from engine.core.procedure import Choose
from engine.core.values import spoken_list
from engine.core.words import identifier_words, plain, result_words as core_result_words
from engine.n20.advance import AdvanceResult
from engine.n20.battle import CrtResult
from engine.n20.retreat import RetreatResult

from .actions import KINDS, Action
from .exclusive import table_lookup
from .state import OPTIONS, GameState
from .types import HIDDEN, garrison_hex, is_garrison

__all__ = ["describe", "describe_answer", "describe_option", "describe_result", "result_words", "card_words",
           "crt_words", "retreat_words", "advance_words", "option_title", "metric_title", "piece_name", "unit_title",
           "RESULT_RULES"]


# ------------------------------------------------------------------------------------------------
# Pieces
# ------------------------------------------------------------------------------------------------
def piece_name(state: GameState | None, piece: str) -> str:
    """The label a piece goes by on its counter and in every list: a unit's designation (``FFER``), a
    face-down enemy counter's token (16.1), a garrison as "the garrison of 1902" (9.4.4)."""
    if is_garrison(piece):
        return f"the garrison of {garrison_hex(piece)}"
    return piece


def unit_title(state: GameState, piece: str) -> str:
    """What a counter says, for a tooltip: "Ferey (FFER), French infantry 2-2"; a face-down enemy counter
    says its side and nationality only (16.1)."""
    if is_garrison(piece):
        g = state.scenario.board.garrisons.get(garrison_hex(piece))
        return f"{piece_name(state, piece)} ({g.side}, strength {g.strength}, 9.4.4)" if g else piece_name(state, piece)
    d = state.scenario.units.get(piece)
    if d is None:
        return piece
    if d.type == HIDDEN:
        return f"a face-down {(d.nationality or d.side).capitalize()} counter ({piece}, 16.1)"
    kind = {"supply": "supply column"}.get(d.type, d.type)
    figures = f"{d.command_span}-{d.movement}" if d.type == "leader" else f"{d.strength}-{d.movement}"
    return f"{d.name} ({piece}), {d.nationality.capitalize()} {kind} {figures}"


def _names(ids) -> str:
    return spoken_list(piece_name(None, x) for x in ids)


# ------------------------------------------------------------------------------------------------
# Actions
# ------------------------------------------------------------------------------------------------
def _route(path) -> str:
    if len(path) < 2:
        return f"to {''.join(path)}"
    via = f" by {', '.join(path[1:-1])}" if len(path) > 2 else ""
    return f"from {path[0]} to {path[-1]}{via}"


def _move(a: Action) -> str:
    verb = {"move": "move", "night_move": "night move:", "penetrate": "reaction move:", "disengage": "disengage:"}
    return f"{verb[a.kind]} {piece_name(None, a.unit)} {_route(a.path) if a.path else 'to ' + str(a.hex)}"


def _countercharge(a: Action) -> str:
    against = [d for b in a.battles for d in b.defenders] + list(a.units)
    who = piece_name(None, a.unit) if a.unit else _names([x for b in a.battles for x in b.attackers])
    return f"{who} countercharges {_names(against)}" if against else f"{who} countercharges"


def _declare(a: Action) -> str:
    if not a.battles:
        return "declare no battles"
    return "declare " + "; ".join(f"{_names(b.attackers)} against {_names(b.defenders)}" for b in a.battles)


def _add_dummy(a: Action) -> str:
    if a.unit is None:                       # as the enemy knows it (16.1.3): a counter joins one in a hex
        return f"a face-down counter joins the one in {a.hex}"
    return f"bring a dummy in with {piece_name(None, a.unit)}"


_ACTION_WORDS = {
    "place": lambda a: f"set up {piece_name(None, a.unit)} in {a.hex}",
    "roll_bessieres": lambda a: "roll for Bessières' cooperation",
    "draw_event": lambda a: "draw this turn's event card",
    "pick_released": lambda a: "pick a Units Released counter: how many allied units may move this turn",
    "forced_march": lambda a: "forced march: one more Movement Point for every unit, for a Morale Point",
    "move": _move, "night_move": _move, "penetrate": _move, "disengage": _move,
    "add_dummy": _add_dummy,
    "form_square": lambda a: f"{piece_name(None, a.unit)} forms square",
    "breakdown": lambda a: f"break {piece_name(None, a.unit)} down into two Cadres",
    "fieldworks": lambda a: "build Fieldworks: roll for the number of markers",
    "place_fieldworks": lambda a: f"put a Fieldworks marker in {a.hex}",
    "orderly_withdrawal": lambda a: "begin the Orderly Withdrawal",
    "countercharge": _countercharge,
    "night_march": lambda a: "night march: roll for the number of units",
    "withdraw": lambda a: f"{piece_name(None, a.unit)} marches off the map",
    "declare": _declare,
    "resolve": lambda a: f"fight declared battle no. {(a.index or 0) + 1}",
    "rally": lambda a: f"rally {_names(a.units or ([a.unit] if a.unit else []))}"
                       + (" spending a Morale Point" if a.spend else ""),
    "roll_sudden_death": lambda a: "roll for sudden death",
    "end_phase": lambda a: "end this phase",
}
assert set(_ACTION_WORDS) == set(KINDS), "every action kind has its words"


def describe(a: Action) -> str:
    """The action as a sentence, with its rule."""
    rule = KINDS[a.kind].replace(" (", ", ").replace(")", "")      # "14.2 (Fuentes)" -> "14.2, Fuentes"
    return f"{_ACTION_WORDS[a.kind](a)} ({rule})"


# ------------------------------------------------------------------------------------------------
# Battle results (9.6), event cards (5.0), the exclusive tables
# ------------------------------------------------------------------------------------------------
#: each CRT result's rule, per edition: 9.6 [A]-[H] in the v3.0 rules (000), 9.6.1-9.6.8 in the older (001)
RESULT_RULES = {
    "v3": {"AB": "9.6 [A]", "AR": "9.6 [B]", "AW": "9.6 [C]", "DB": "9.6 [D]", "DR": "9.6 [E]", "DW": "9.6 [F]",
           "EX": "9.6 [G]", "N": "9.6 [H]"},
    "v2": {"AB": "9.6.1", "AR": "9.6.2", "AW": "9.6.3", "DB": "9.6.4", "DR": "9.6.5", "DW": "9.6.6",
           "EX": "9.6.7", "N": "9.6.8"},
}
_RESULT_WORDS = {"AB": "the attacker breaks", "AR": "the attacker is routed", "AW": "the attacker withdraws",
                 "DB": "the defender breaks", "DR": "the defender is routed", "DW": "the defender withdraws",
                 "EX": "an exchange: the defender breaks, the attacker loses as much strength",
                 "N": "engaged, no effect"}


def result_words(edition: str, code: str) -> str:
    """A CRT result named with its rule: ``"DR, the defender is routed (9.6 [E])"``; a bombardment's
    Exchange that counts as Engaged (16.3.2) says so."""
    rules = RESULT_RULES.get(edition, RESULT_RULES["v3"])
    if "->" in code:
        first, then = code.split("->", 1)
        return f"{first}, which bombardment alone makes {result_words(edition, then)} (16.3.2)"
    return f"{code}, {_RESULT_WORDS.get(code, 'a result of the chart')} ({rules.get(code, '9.6')})"


def crt_words(state: GameState | None, value: CrtResult) -> str:
    """Steps B-F of a battle (9.0) as the CRT result they came to, named with its rule, and whether a
    reliability check rolled the 6 that lapses the British reliability (16.9.2): "AR, the attacker is
    routed (9.6 [B])"."""
    code, lapsed = str(value[0]), bool(value[1])
    edition = state.scenario.edition if state is not None else "v3"
    return result_words(edition, code) + ("; British reliability lapsed (16.9.2)" if lapsed else "")


# ------------------------------------------------------------------------------------------------
# A battle's sub-procedures as a player says what they came to (a probability tree's answers)
# ------------------------------------------------------------------------------------------------
def _hexes(n: int) -> str:
    return f"{n} hex{'es' if n != 1 else ''}"


#: why a retreating unit broke, by the rule its result cites
_BROKE = {"9.6": "breaks", "16.7.5": "is a straggler and breaks", "17.1": "is caught in square by cavalry and breaks",
          "9.8.3": "breaks in an enemy ZOC", "9.8.4": "breaks before a river crossing",
          "9.8.7": "reaches its LOC and breaks", "9.8": "cannot finish its retreat and breaks"}


def retreat_words(state: GameState | None, r: RetreatResult) -> str:
    """One unit's rout or withdrawal (9.6-9.8) as it ended: "FLTC routs 3 hexes to 1012 (9.8)", "ASAN breaks
    in an enemy ZOC at 0109 after 3 hexes (9.8.3)", "FLTC breaks (9.6)"; a rout past the unit's printed
    movement allowance says so (it costs Morale, Morale Chart)."""
    name, rule = piece_name(state, r.unit), r.rule or "9.8"
    to = f" to {r.end_hex}" if r.end_hex else ""
    at = f" at {r.end_hex}" if r.end_hex else ""
    after = f" after {_hexes(r.hexes)}" if r.hexes else ""
    if r.fate == "withdrew":
        return f"{name} withdraws {_hexes(r.hexes)}{to} ({rule})"
    if r.fate == "routed" and r.hexes:
        beyond = ", beyond its movement allowance" if r.beyond_ma else ""
        return f"{name} routs {_hexes(r.hexes)}{to}{beyond} ({rule})"
    if r.fate == "routed":
        return f"{name} is routed but stays in its fortified hex ({rule})"
    if r.fate == "held":
        return f"{name} stays where it is ({rule})"
    if r.fate == "destroyed":
        how = "leaves the road and is destroyed" if rule == "16.7.6" else "is destroyed"
        return f"{name} {how}{at}{after} ({rule})"
    return f"{name} {_BROKE.get(rule, 'breaks')}{at}{after} ({rule})"


def advance_words(state: GameState | None, a: AdvanceResult) -> str:
    """The victor's advance after combat (9.9) as it went: "A5 advances 1 hex to 1311 (9.9)", with the
    Controlled Advance roll (9.9.3), reluctant units that hang back (16.7.4) and a garrison destroyed by the
    advance (9.4.4)."""
    moves = [(piece_name(state, u), _hexes(n) + (f" to {h}" if h else "")) for u, n, h in a.moves]
    if not moves:
        text = "no advance"
    else:                       # "A5 advances 1 hex to 1311 and FLTC 2 hexes to 1210"
        text = spoken_list([f"{who} advances {how}" if i == 0 else f"{who} {how}"
                            for i, (who, how) in enumerate(moves)])
    if a.control:
        text = f"control {a.control}: {text} (9.9.3)"
    else:
        text += " (9.9)"
    if a.refused:
        text += f"; {_names(a.refused)} hang{'s' if len(a.refused) == 1 else ''} back (16.7.4)"
    if a.garrison_destroyed:
        text += f"; the garrison of {a.garrison_destroyed} is destroyed (9.4.4)"
    return text


def describe_result(state: GameState, request, value) -> str:
    """What a sub-procedure of a battle came to, as a probability tree shows it: the CRT result of steps
    B-F (9.0, 9.6), a unit's retreat (9.8), the advance after combat (9.9); the option a choice took as
    :func:`describe_option` says it. Anything else in core's words."""
    if isinstance(request, Choose):
        return describe_option(state, request, value)
    if isinstance(value, CrtResult):
        return crt_words(state, value)
    if isinstance(value, RetreatResult):
        return retreat_words(state, value)
    if isinstance(value, AdvanceResult):
        return advance_words(state, value)
    return core_result_words(value)


def _effect_words(state: GameState, eff) -> str:
    if eff.effect == "morale":
        return f"{eff.amount:+d} Morale"
    if eff.effect == "reinforcement":
        return f"{piece_name(state, eff.unit)} may enter in area {' or '.join(eff.areas)}"
    if eff.effect == "free_forced_march":
        return "a forced march costs no Morale Point this turn"
    if eff.effect == "rally_on":
        return f"units may rally with or beside {piece_name(state, eff.leader)} (16.9.7)"
    return "no effect"


def card_words(state: GameState, card: str) -> str:
    """An event card by its title and effects (5.0: the drawer applies his own half)."""
    c = state.scenario.cards.get(card)
    if c is None:
        return f"event card {card}"
    return (f"event card {card}, “{c.title}”: French {_effect_words(state, c.french)}; "
            f"allied {_effect_words(state, c.allied)}")


_BESSIERES = {"no_nord": "the Armée du Nord cavalry does not come", "historical": "late, with token forces",
              "early": "on time: play starts on turn 1, the reinforcements two turns early",
              "guard_late": "late, with the Guard", "guard_early": "on time, with the Guard: play starts on turn 1"}
_RALLY = {"rallied": "rallied", "stays_broken": "stays broken", "cadre": "a Cadre may come back instead"}


# ------------------------------------------------------------------------------------------------
# Options of a choice (Choose) or a draw (Draw)
# ------------------------------------------------------------------------------------------------
_HAZARD = {"9.8.3": "an enemy ZOC", "9.8.4": "a river", "17.1": "enemy cavalry"}
_END = {"loc": "reaches its LOC early and breaks (9.8.7)", "blocked": "cannot finish and breaks (9.8)",
        "off_road": "leaves the road and is destroyed (16.7.6)"}


def _field(option, name, default=None):
    return option.get(name, default) if isinstance(option, Mapping) else getattr(option, name, default)


def _retreat_words(option) -> str:
    hexes = list(_field(option, "hexes", ()) or ())
    hazards = list(_field(option, "hazards", ()) or ())
    if not hexes:
        return "stay in place"
    risks = [f"{_HAZARD.get(r, 'a hazard')} at {h} ({r})" for h, hz in zip(hexes, hazards) for r in hz]
    text = f"retreat by {', '.join(hexes)}" + (f", rolling for {spoken_list(risks)}" if risks else ", no hazard")
    end = _field(option, "end", "ok")
    return text + (f"; it {_END[end]}" if end in _END else "")


def _advance_words(option) -> str:
    moves = _field(option, "moves", ()) or ()
    if not moves:
        return "no advance"
    parts = []
    for m in moves:
        uid, n = (m.get("unit"), m.get("hexes")) if isinstance(m, Mapping) else m
        parts.append(f"{piece_name(None, uid)} {n} hex{'es' if n != 1 else ''}")
    return f"advance {spoken_list(parts)} along retreat path {(_field(option, 'path', 0) or 0) + 1}"


def describe_option(state: GameState, request, option) -> str:
    """One option of a request in a player's words: a choice (reserves 12.5, a retreat path 9.8.2 with its
    hazards, a fortified hex 9.8.1, the units an Exchange breaks 9.6 [G], an advance 9.9.3, a rally hex 10.0,
    a Cadre 16.5.1) or what a draw may give (an event card 5.0, a Units Released counter 6.10). The option
    may be the value itself or its JSON (as a record keeps it)."""
    rule = getattr(request, "rule", "") if not isinstance(request, Mapping) else request.get("rule", "")
    if rule == "12.5":
        return "commit reserves: +1 for one Morale Point" if option else "no reserves"
    if rule == "9.8.2":
        return _retreat_words(option)
    if rule == "9.6 [G]":
        return f"break {_names(option)}" if option else "break no attacking unit"
    if rule == "9.9.3":
        return _advance_words(option)
    if rule == "10.0":
        return "leave it broken" if option == "stay broken" else f"place it in {option}"
    if rule == "16.5.1":
        return "take a Cadre instead" if option == "cadre" else "leave it broken"
    if rule == "5.0":
        return card_words(state, option)
    if rule == "6.10":
        return f"{option} allied units may move this turn"
    return plain(option)


# ------------------------------------------------------------------------------------------------
# Answers of a record event (Event.to_json)
# ------------------------------------------------------------------------------------------------
_COLUMN = re.compile(r"CRT column ([+-]?\d+)")


def _roll_words(state: GameState, rule: str, label: str, die) -> tuple[str, str]:
    """A die's words and the rule to cite (the CRT cites its result's rule)."""
    if rule == "9.0 F":
        m = _COLUMN.search(label)
        if m and isinstance(die, int):
            code = state.scenario.tables.crt_result(int(m.group(1)), die)
            return f"{label}: die {die}: {result_words(state.scenario.edition, code)}", ""
    if rule in ("9.8.3", "9.8.4", "17.1") and isinstance(die, int):
        return f"{label}: die {die}: {'breaks (1 to 3)' if die <= 3 else 'goes on (4 to 6)'}", rule
    if rule == "17.2" and isinstance(die, int):
        return f"{label}: die {die}: Bessières comes {_BESSIERES.get(table_lookup('bessieres', die), '')}", rule
    if rule == "4.0" and isinstance(die, int):
        m = re.search(r"(\d+) or less", label)
        if m:
            return f"sudden death: die {die}: " + ("the game ends" if die <= int(m.group(1)) else "play goes on"), rule
    return f"{label}: die {die}", rule


def describe_answer(state: GameState, answer: dict) -> str:
    """One answer or note of a record event in a player's words, with its rule: a die with what it decided
    (a CRT result named with its rule, e.g. "CRT column +2: die 4: DR, the defender is routed (9.6 [E])"),
    an event card with its title and effects (5.0), a choice as :func:`describe_option` words it, a note."""
    kind, rule = answer.get("kind", ""), str(answer.get("rule", ""))
    label, value = str(answer.get("label", "")), answer.get("value")
    if kind == "roll":
        text, cite = _roll_words(state, rule, label, value)
        return f"{text} ({cite})" if cite else text
    if kind == "draw":
        return f"{describe_option(state, {'rule': rule}, value)} ({rule})"
    if kind == "choose":
        return f"{_spoken(label)}: {describe_option(state, {'rule': rule}, value)} ({rule})"
    if kind == "log":
        return f"{_spoken(label)} ({rule})"
    return f"{_spoken(label)}: {plain(value)} ({rule})"


def _spoken(text: str) -> str:
    """Our own notes and labels, with the engine's result names said as words (``stays_broken``)."""
    for key, words in _RALLY.items():
        text = text.replace(f": {key}", f": {words}")
    return text.replace("_", " ")


# ------------------------------------------------------------------------------------------------
# Options of a game and the figures a study follows
# ------------------------------------------------------------------------------------------------
_OPTION_WORDS = {
    "fog_of_war": "Fog of war: hidden units and dummies", "penetration": "Cavalry penetration",
    "artillery_support": "Artillery support and bombardment", "rally_hexes": "More rally hexes",
    "unit_reduction": "Unit reduction: Cadres", "breakdown": "Breaking down and building up large units",
    "special_units": "Special units: light infantry, cossacks, unreliable troops and others", "fatigue": "Fatigue",
    "leaders": "Leaders", "squares": "Infantry squares", "bessieres": "Bessières' cooperation",
    "portuguese_reliability": "Portuguese reliability",
}
assert set(_OPTION_WORDS) == set(OPTIONS), "every option has its words"


def option_title(name: str) -> str:
    """A game option as a player names it, with its rule: "Fog of war: hidden units and dummies (16.1)"."""
    rule = OPTIONS.get(name)
    words = _OPTION_WORDS.get(name) or identifier_words(name).capitalize()
    return f"{words} ({rule.replace(' (', ', ').replace(')', '')})" if rule else words


_METRIC_WORDS = {"morale": "{side} Morale", "units_map": "{side} units on the map",
                 "units_broken": "{side} units broken (they may rally)", "units_gone": "{side} units gone for good"}


def metric_title(key: str) -> str:
    """A study's figure as a player names it: ``morale.french`` -> "French Morale"."""
    what, _, side = key.partition(".")
    pattern = _METRIC_WORDS.get(what)
    if pattern is None or side not in ("french", "allied"):
        return identifier_words(key)
    return pattern.format(side=side.capitalize())
