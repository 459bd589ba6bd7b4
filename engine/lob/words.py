"""Lines of Battle in a player's words, from one place: actions, options, the choices a procedure asks, the
answers a record keeps (dice, choices, notes), the metrics a study follows (issue 25).

:func:`describe` reads only an action's fields and ends with the action's rule, e.g.
``"move F-Konopka to area 17 by 19 (4.2.2)"``. The text notation (``format_action``) is unchanged. Nothing
here returns JSON, a Python repr or an identifier with an underscore; the rule of each choice and answer
is given with it. Ids of units and leaders are the counters' ids; areas are "area 17" (named ones, such
as Albuera, by name).
"""
from __future__ import annotations

import re
from typing import Any

from engine.core.values import spoken_list as _list

from .actions import Action

__all__ = ["describe", "area", "option_title", "metric_title", "choice_words", "describe_option", "describe_answer",
           "OPTION_TITLES"]

#: each optional rule (setup.OPTION_RULES) as a player names it
OPTION_TITLES = {
    "bid": "Bid for victory (Albuera option 1)",
    "kemmis": "Kemmis's brigade present (Albuera option 2)",
    "madden": "Madden's cavalry present (Albuera option 3)",
    "spanish-no-show": "The Spanish stay away (Albuera option 4)",
    "rain": "Rain squalls (Albuera option 5)",
    "setup": "Free set-up for both sides (Albuera option 6)",
    "setup-allied": "Free set-up for the Allies (Albuera option 6)",
    "setup-french": "Free set-up for the French (Albuera option 6)",
    "leaders": "Leaders (7.1)",
    "light-cavalry": "Light cavalry activated without a leader (7.1.3)",
}

_METRICS = {"morale": "{side} morale", "units_map": "{side} units on the map", "units_lost": "{side} units eliminated",
            "hits": "{side} hits carried"}


def area(a: Any) -> str:
    """``"17"`` -> ``"area 17"``; a named area (``"Albuera"``) by its name."""
    text = str(a)
    return f"area {text}" if text.isdigit() else text


def _ending(end: str) -> str:
    """Where a move leaves its units (4.2.2)."""
    if end.startswith("approach:"):
        return f", ending on the approach to {area(end[len('approach:'):])}"
    return {"area": "", "square": ", ending in square", "line": ", ending in line",
            "deploy": ", ending deployed"}.get(end, f", ending {end}")


def describe(a: Action, rule: str) -> str:
    """The action as a sentence, with its rule."""
    t, us = a.kind, _list(a.units)
    if t == "move":
        if a.path:
            via = f" by {', '.join(a.path[:-1])}" if len(a.path) > 1 else ""
            text = f"move {us} to {area(a.path[-1])}{via}{_ending(a.end)}"
        else:
            text = f"{us}: stay in the area{_ending(a.end)}"
    elif t == "attack":
        via = f" by {', '.join(a.path)}" if a.path else ""
        text = f"attack {area(a.target)} with {us}{via}"
    elif t == "fire":
        text = f"{us} fires at {a.target}"
    elif t == "place":
        text = f"set up {us} in {area(a.area)}"
    elif t == "rally":
        text = f"rally {us}"
    elif t == "toggle":
        text = f"switch {us} between limbered and deployed"
    elif t == "activate":
        text = f"activate {area(a.area)}" + (f" with {us}" if a.units else "")
    elif t == "end-setup":
        text = "end the set-up"
    elif t == "end-admin":
        text = "end the administration phase"
    elif t == "end-phase":
        text = "end this phase"
    else:
        text = a.describe()
    return f"{text} ({rule})"


def option_title(name: str) -> str:
    """An optional rule as a player names it, with its rule."""
    return OPTION_TITLES.get(name, name.replace("-", " ").replace("_", " ").capitalize())


def metric_title(key: str) -> str:
    """A study's metric (``protocol.metrics``): ``"morale.French"`` -> ``"French morale"``,
    ``"holds_28.Allied"`` -> ``"Allied holds area 28"``."""
    name, _, side = str(key).partition(".")
    if name.startswith("holds_"):
        return f"{side} holds {area(name[len('holds_'):])}".strip()
    pattern = _METRICS.get(name)
    if pattern is None:
        return " ".join(str(key).replace("_", " ").replace(".", " ").split())
    return pattern.format(side=side).strip()


# ------------------------------------------------------------------------------------------------
# Choices inside the procedures, and the answers a record keeps
# ------------------------------------------------------------------------------------------------
_ROLE = re.compile(r"^(attacker|defender)\b")


def _retreat_set(option: str, role: str) -> str:
    """5.2.2 / 5.2.3: stay, the lead alone, the lead with some others, or everyone."""
    if option == "stay":
        return "stay and fight on"
    if option == "lead":
        return "pull back the lead unit alone"
    if option.startswith("lead+"):
        return f"pull back the lead unit with {_list(option.split('+')[1:])}"
    if option == "all":
        return "break off: every unit pulls back" if role == "attacker" else "give up the area: every unit retreats"
    return option


def choice_words(rule: str, label: str, option: Any) -> str:
    """One option of a choice the rules ask (the request's rule and label say which choice it is)."""
    o = str(option)
    label = label or ""
    role_match = _ROLE.match(label)
    role = role_match.group(1) if role_match else ""
    if rule in ("5.2.2", "5.2.3") and "stay, pull back" in label:
        return _retreat_set(o, role)
    if "retreat before combat" in label:
        return {"fight": "stand and fight", "retreat": "retreat before combat"}.get(o, o)
    if "press the attack or feint" in label:
        return {"attack": "press the attack", "feint": "feint and fall back"}.get(o, o)
    if "more hit" in label:
        return {"hit": "take the extra hit", "retreat": "retreat instead"}.get(o, o)
    if "keep the lead or replace" in label:
        return "keep the lead unit" if o == "keep" else f"put {o} in as the lead unit"
    if "takes the approach, forms square" in label:
        return {"approach": "step onto the approach facing the attackers", "square": "form square",
                "stay": "stay as it is"}.get(o, o)
    if "charge an adjacent area" in label:
        return "no charge" if o == "none" else f"charge {area(o)}"
    if "join the charge" in label:
        return {"charge": "join the charge", "hold": "hold back", "join": "ride with the charge",
                "stay": "stay behind"}.get(o, o)
    if "nominates a lead" in label:
        return f"{o} leads"
    if label.endswith(" fires at"):
        return f"at {o}"
    if label.endswith(" to") or "retreats to" in label or "moves to" in label:
        return area(o)
    return o.replace("_", " ")


def describe_option(rule: str, label: str, option: Any) -> str:
    """An option as a list of choices shows it (with the choice's rule)."""
    return f"{choice_words(rule, label, option)} ({rule})" if rule else choice_words(rule, label, option)


_COMBAT_END = re.compile(r"^combat at (?P<area>\S+): (?P<winner>attacker|defender) holds it \((?P<stage>[\w-]+)\)")
_STAGES = {"retreat-before-combat": "after the defender retreated before combat (5.1.2)",
           "repulsed": "the defensive artillery broke the attack up (5.1.3)",
           "feint": "the attacker feinted (5.1.4)",
           "artillery": "only artillery stood in the area (5.1.1)",
           "rounds": "after the combat rounds (5.2)"}
_ACTIVATED = re.compile(r"^area (?P<area>\S+) activated(?P<units>.*)$")
_ROUND = re.compile(r"^(?P<a>\S+) (?P<ra>\d+) -> (?P<ta>-?\d+), (?P<d>\S+) (?P<rd>\d+) -> (?P<td>-?\d+): "
                    r"(?P<winner>attacker|defender) wins")


def _signed(n: Any) -> str:
    return f"{int(n):+d}" if isinstance(n, (int, float)) else str(n)


def describe_answer(answer: dict) -> str:
    """One answered request or note of a record event (a die, a choice, a note) in a player's words, with
    its rule. The words come from the answer's kind, rule, label and detail, never its JSON."""
    kind, rule = answer.get("kind", ""), str(answer.get("rule", "") or "")
    label, value, detail = str(answer.get("label", "") or ""), answer.get("value"), answer.get("detail")
    tail = f" ({rule})" if rule else ""
    if kind == "roll":
        return f"{label}: the d6 shows {value}{tail}"
    if kind == "choose":
        return f"{label.rstrip('?')}: {choice_words(rule, label, value)}{tail}"
    m = _COMBAT_END.match(label)
    if m:
        text = f"combat at {area(m['area'])}: the {m['winner']} holds it, {_STAGES.get(m['stage'], m['stage'])}"
        if isinstance(detail, dict) and detail:
            text += "; " + ", ".join(f"{side} morale {_signed(n)}" for side, n in detail.items())
        return text
    m = _ACTIVATED.match(label)
    if m:
        return f"{area(m['area'])} activated{m['units']}{tail}"
    m = _ROUND.match(label)
    if m:
        return (f"{m['a']} rolls {m['ra']}, {m['ta']} with its modifiers; {m['d']} rolls {m['rd']}, {m['td']} with "
                f"its modifiers: the {m['winner']} wins the round{tail}")
    return f"{label}{tail}" if label else (f"rule {rule}" if rule else "-")
