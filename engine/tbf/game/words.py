"""These Brave Fellows in a player's words, from this one module: the actions (what the play page lists and
the walkthroughs say), the options of a question asked during an action, a recorded answer, a piece's name
(the name its counter shows, so the list and the board agree), the game's options and the numbers a study
follows. No JSON, no Python repr, no identifier with an underscore.

:func:`describe` starts with the side and ends with the rule, e.g. ``"Coalition: move NOV 1 bn to 2113 by
2412, 2312 (4 MP) (6.2)"``. The text notation (``format_action``) is unchanged: it is what the command line
reads back.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from engine.core.values import spoken_list

from ..scenario import Scenario
from .actions import (Activate, ActivateCommand, Attach, CavalryRetreat, Charge, EndSegment, Face, Fire, Melee, Move,
                      OutOfCommand, Pass, Place, TbfAction)
from .options import GAME_OPTIONS

__all__ = ["describe", "piece_name", "side_name", "describe_option", "describe_answer", "option_title",
           "metric_title", "named"]

_SIDE = {"french": "French", "coalition": "Coalition"}
_THE_SIDE = {"french": "the French", "coalition": "the Coalition"}
_KIND = {"activate": "activate", "activate_command": "activate a leaderless command", "pass": "pass",
         "move": "move", "face": "change facing", "charge": "charge", "out_of_command": "out of command check",
         "attach": "take a unit along", "fire": "fire", "melee": "melee", "end": "end the segment",
         "cavalry_retreat": "fall back before combat", "place": "set up"}


def side_name(side: str) -> str:
    """``"french"`` -> ``"French"``."""
    return _SIDE.get(str(side), str(side).capitalize())


def piece_name(sc: Scenario, pid: str) -> str:
    """The name on a unit's or leader's counter (``ci-1`` -> ``"NOV 1 bn"``); a Grand Battery hex by its
    place; anything else as it is."""
    pid = str(pid)
    if pid.startswith("gb:"):
        return f"the Grand Battery in {pid[3:]}"
    d = sc.units.get(pid) or sc.leaders.get(pid)
    return d.name if d is not None else pid


_TOKEN = re.compile(r"gb:\d+|[A-Za-z0-9][A-Za-z0-9-]*")


def named(sc: Scenario, text: str) -> str:
    """``text`` with every piece id in it replaced by the piece's name (hexes, rules and words left)."""
    return _TOKEN.sub(lambda m: piece_name(sc, m.group(0)) if _is_piece(sc, m.group(0)) else m.group(0), str(text))


def _is_piece(sc: Scenario, token: str) -> bool:
    return token in sc.units or token in sc.leaders or (token.startswith("gb:") and token[3:].isdigit())


def _names(sc: Scenario, ids: Iterable[str]) -> str:
    return spoken_list(piece_name(sc, x) for x in ids)


def _facing(direction_names: Sequence[str] | None, f: object) -> str:
    names = direction_names or ()
    return names[f] if isinstance(f, int) and 0 <= f < len(names) else str(f)


def describe(a: TbfAction, rule: str, direction_names: Sequence[str] | None = None,
             sc: Scenario | None = None) -> str:
    """The action as a sentence, with its side and rule (``direction_names``: the map's facing names; ``sc``:
    the scenario whose counters name the pieces)."""
    def n(pid: str) -> str:
        return piece_name(sc, pid) if sc is not None else str(pid)

    def ns(ids: Iterable[str]) -> str:
        return _names(sc, ids) if sc is not None else spoken_list(ids)

    k = a.kind
    if isinstance(a, Activate):
        text = f"activate {n(a.leader)}"
    elif isinstance(a, ActivateCommand):
        text = f"activate command {a.command} through {n(a.unit)}"
    elif isinstance(a, Pass):
        text = "pass this impulse"
    elif isinstance(a, EndSegment):
        text = "end this segment"
    elif isinstance(a, Move):
        steps = [h for h in a.path[1:] if h != a.to]
        via = f" by {', '.join(steps)}" if steps else ""
        cost = f" ({a.mp} MP)" if a.mp >= 0 else ""
        text = f"move {n(a.unit)} to {a.to}{via}{cost}"
    elif isinstance(a, Face):
        text = f"turn {n(a.unit)} to face {_facing(direction_names, a.facing)}"
    elif isinstance(a, Charge):
        then = f", then on to {', '.join(a.next)}" if a.next else ""
        text = f"{n(a.unit)} charges {a.path[-1] if a.path else 'nowhere'} along {', '.join(a.path)}{then}"
    elif isinstance(a, OutOfCommand):
        text = f"{n(a.unit)} acts out of command"
    elif isinstance(a, Attach):
        text = f"attach {n(a.unit)} to the activated leader"
    elif isinstance(a, Fire):
        text = f"{ns(a.units)} {'fires' if len(a.units) == 1 else 'fire'} at {a.target}"
    elif isinstance(a, Melee):
        text = f"{ns(a.units)} {'attacks' if len(a.units) == 1 else 'attack'} {a.target} in melee"
    elif isinstance(a, Place):
        text = f"set {n(a.unit)} up in {a.hex} facing {_facing(direction_names, a.facing)}"
    elif isinstance(a, CavalryRetreat):
        text = f"{n(a.unit)} falls back by {', '.join(a.path)}"
    else:
        text = _KIND.get(k, str(k).replace("_", " "))
    return f"{side_name(a.side)}: {text} ({rule})"


#: the words of the fixed options of the questions the rules ask (by rule where a word has two senses)
_OPTION = {"advance": "advance", "stay": "stay", "go": "go with it", "counter": "counter charge",
           "stand": "stand", "react": "try a reaction charge", "hold": "hold", "none": "none",
           "done": "no more", "disband": "disband the Elite battalion", "activate": "activate him too"}
_OPTION_BY_RULE = {("8.3 B", "keep"): "keep the Elite battalion", ("6.1.1 B", "keep"): "keep him back",
                   ("6.1.1 C", "keep"): "keep him back", ("6.1.2 A", "keep"): "keep him back",
                   ("6.1.2 B", "keep"): "keep him back"}


def describe_option(sc: Scenario, rule: str, option: object) -> str:
    """One option of a question asked during an action (a unit to eliminate or advance, a hex to retreat
    into, a side to open the turn, go or stay ...) in a player's words."""
    o = str(option)
    if (rule, o) in _OPTION_BY_RULE:
        return _OPTION_BY_RULE[(rule, o)]
    if o in _SIDE:
        return _THE_SIDE[o]
    if _is_piece(sc, o):
        return piece_name(sc, o)
    if o.isdigit() and len(o) == 4:
        return f"hex {o}"
    if o in _OPTION:
        return _OPTION[o]
    return named(sc, o.replace("_", " "))


def describe_answer(sc: Scenario, answer: dict) -> str:
    """One recorded answer or note (a die, a choice, a chance, a note): its label with the pieces named as
    their counters are, the value in words, the rule."""
    kind = answer.get("kind")
    label = named(sc, str(answer.get("label") or "").strip()).replace("_", " ")
    rule = str(answer.get("rule") or "")
    value = answer.get("value")
    cite = f" (rule {rule})" if rule and f"({rule}" not in label else ""
    if kind == "roll":
        detail = answer.get("detail")
        die = detail.get("die") if isinstance(detail, dict) else None
        return f"{label or 'a die'}: {value}{' on the ' + die if die else ''}{cite}"
    if kind in ("choose", "chance", "draw"):
        return f"{label or 'a choice'}: {describe_option(sc, rule, value)}{cite}"
    if value is None:
        return f"{label}{cite}"
    return f"{label}: {describe_option(sc, rule, value)}{cite}"


def option_title(name: str) -> str:
    """A game option as a player names it ("Cavalry Fire Ability (11.1)")."""
    return GAME_OPTIONS.get(name, str(name).replace("_", " "))


_METRIC = {"losses.french": "French losses (battalions, 10.2.2)", "losses.coalition": "Coalition units lost",
           "level.french": "French victory level (10.2.1)", "level.coalition": "Coalition victory level (10.2.3)"}


def metric_title(key: str) -> str:
    """A number a study follows, as a player names it."""
    return _METRIC.get(key, str(key).replace("_", " ").replace(".", " "))
