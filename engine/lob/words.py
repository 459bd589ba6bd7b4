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

from engine.core.procedure import Choose
from engine.core.values import spoken_list as _list
from engine.core.words import result_words as core_result_words

from .actions import Action
from .fight import ATTACKER, AfterRoll, CombatContext, CombatResult, End, NextRound
from .fire import FireOutcome
from .units import Unit

__all__ = ["describe", "area", "option_title", "metric_title", "choice_words", "describe_option", "describe_answer",
           "describe_result", "OPTION_TITLES", "RESULT_CHARS"]

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


_MORALE_NOTE = re.compile(r"'(?P<side>[A-Za-z]+)': (?P<n>-?\d+)")


def describe_note(rule: str, text: str) -> str:
    """A note a procedure logged (a tree node's note), in the words a record's answer gets: the end of a
    combat (5.3) with each side's morale change, an activation, a combat round; else the note itself (the
    tree shows its rule beside it)."""
    m = _COMBAT_END.match(text)
    if m:
        _, _, morale = text.partition("; morale ")
        detail = {x["side"]: int(x["n"]) for x in _MORALE_NOTE.finditer(morale)}
        return describe_answer({"kind": "log", "rule": rule, "label": text[:m.end()], "detail": detail})
    said = describe_answer({"kind": "log", "rule": "", "label": text})
    return said


# ------------------------------------------------------------------------------------------------
# What a sub-procedure came to, as a probability tree shows it (the combat 5, its rounds 5.2, one roll
# 5.2.1, the decisions after it 5.2.2-5.2.5, artillery fire 4.2.1 / 5.1.3, a leader's loss roll 7.1.1)
# ------------------------------------------------------------------------------------------------
#: the longest result said in full; a longer one says each side's losses as counts
RESULT_CHARS = 118

_STAGE_SHORT = {"retreat-before-combat": ("the defender retreated before combat", "5.1.2"),
                "repulsed": ("the defending guns broke the attack up", "5.1.3"),
                "feint": ("the attacker feinted", "5.1.4"),
                "artillery": ("only artillery stood there", "5.1.1")}
_LEADER_LOSS = {"unhurt": "the leader is unhurt", "killed": "the leader is killed",
                "wounded": "the leader is badly wounded", "slight": "the leader is slightly wounded and steps away"}


def _hits(n: int) -> str:
    return f"{n} hit{'s' if n != 1 else ''}"


def _fight_hits(fight_key: tuple) -> dict[str, int]:
    """Each unit's hits in a fight as :meth:`~.fight.Fight.key` gives it (attackers then defenders, each unit
    as ``(uid, side, kind, cav, rating, hits, ...)``)."""
    return {t[0]: t[5] for t in tuple(fight_key[0]) + tuple(fight_key[1])}


def _start(request: Any) -> tuple[dict[str, int], CombatContext | None]:
    """Where a combat sub-procedure started, from its key (the values it was asked with): each unit's hits
    (an id missing: not known) and the combat's context."""
    key = getattr(request, "key", None)
    if not isinstance(key, tuple) or len(key) < 3 or not isinstance(key[1], CombatContext):
        return {}, None
    kind, ctx = key[0], key[1]
    if kind == "combat":                          # ("combat", ctx, attackers, defenders)
        return {u.uid: u.hits for u in tuple(key[2]) + tuple(key[3])}, ctx
    if kind in ("rounds", "roll"):                # (kind, ctx, fight key)
        return _fight_hits(key[2]), ctx
    if kind in ("after", "decide"):               # (kind, ctx, (fight key, gone, winner, first round))
        hits = _fight_hits(key[2][0])
        hits.update({u.uid: u.hits for u in key[2][1]})
        return hits, ctx
    return {}, ctx


def _changes(units: tuple[Unit, ...], start: dict[str, int], ctx: CombatContext | None) -> list[str]:
    """What befell each unit since ``start`` (1.2 hits and elimination; a move out of the two areas of the
    combat is a retreat): "A-KGL takes 1 hit", "F-Dulong eliminated", "A-Hoghton falls back to area 10"."""
    out = []
    for u in units:
        took = u.hits - start.get(u.uid, u.hits)
        if u.eliminated:
            if took > 0 or u.uid not in start:
                out.append(f"{u.uid} eliminated")
            continue                              # (eliminated before this step: nothing new)
        bits = [f"takes {_hits(took)}"] if took > 0 else []
        if ctx is not None and u.area is not None and u.area not in (ctx.origin, ctx.target):
            bits.append(f"falls back to {area(u.area)}")
        if bits:
            out.append(f"{u.uid} " + " and ".join(bits))
    return out


def _counts(units: tuple[Unit, ...], start: dict[str, int], attacker_side: str) -> list[str]:
    """Each side's losses as counts (when naming every unit would not fit): "attacker loses 3 hits and
    1 unit"."""
    out = []
    for role, mine in (("attacker", True), ("defender", False)):
        us = [u for u in units if (u.side == attacker_side) == mine]
        hits = sum(max(0, u.hits - start.get(u.uid, u.hits)) for u in us if not u.eliminated)
        gone = sum(1 for u in us if u.eliminated and (u.uid not in start or u.hits > start[u.uid]))
        bits = ([_hits(hits)] if hits else []) + ([f"{gone} unit{'s' if gone != 1 else ''}"] if gone else [])
        if bits:
            out.append(f"{role} loses {' and '.join(bits)}")
    return out


def _said(head: str, units: tuple[Unit, ...], start: dict[str, int], ctx: CombatContext | None, rule: str,
          attacker_side: str, quiet: str = "no losses", tail: str = "") -> str:
    """``head: what befell the units (rule)tail``, each unit named, or each side's counts when that is too
    long for one line."""
    for said in (_changes(units, start, ctx), _counts(units, start, attacker_side)):
        text = f"{head}: {', '.join(said)} ({rule}){tail}" if said else f"{head}, {quiet} ({rule}){tail}"
        if len(text) <= RESULT_CHARS:
            return text
    return f"{head} ({rule}){tail}"


def _morale(changes: dict[str, int]) -> str:
    bits = [f"{side} {n:+d}" for side, n in changes.items() if n]
    return f"; morale {', '.join(bits)} (5.3)" if bits else ""


def _combat_words(res: CombatResult, start: dict[str, int], ctx: CombatContext | None, rule: str) -> str:
    """A whole combat (5): who holds the area, how (5.1.1-5.1.4, 5.2), the losses and the morale (5.3)."""
    where = area(res.target)
    if res.winner == ATTACKER:
        head = f"the attacker takes {where}" if res.taken else f"the attacker wins at {where}"
    else:
        head = f"the defender holds {where}"
    how, cite = _STAGE_SHORT.get(res.stage, ("", "5.2"))
    if how:
        head += f", {how}"
    return _said(head, res.units, start, ctx, cite, res.attacker_side, tail=_morale(res.morale()))


def _round_words(winner: str, units: tuple[Unit, ...], start: dict[str, int], ctx: CombatContext | None,
                 rule: str) -> str:
    side = ctx.attacker_side if ctx is not None else ""
    return _said(f"the {winner} wins the round", units, start, ctx, rule, side, quiet="no hits")


def _end_words(end: End, start: dict[str, int], ctx: CombatContext | None, rule: str) -> str:
    where = area(ctx.target) if ctx is not None else "the area"
    head = f"the attacker takes {where}" if end.winner == ATTACKER else f"the defender holds {where}"
    return _said(head, end.units, start, ctx, rule, ctx.attacker_side if ctx is not None else "")


def _next_round_words(nxt: NextRound, start: dict[str, int], ctx: CombatContext | None) -> str:
    f = nxt.fight
    head = f"another round, {f.att_lead} against {f.dfn_lead}"
    said = _changes(nxt.gone, start, ctx)
    text = f"{head}; {', '.join(said)} (5.2.5)" if said else f"{head} (5.2.5)"
    return text if len(text) <= RESULT_CHARS else f"{head} (5.2.5)"


def _dice_words(key: tuple, value: tuple) -> str:
    """One combat roll's dice (5.2.1): ``(hits on the attacking lead, hits on the defending lead, winner)``,
    the leads named by the roll's key ``("dice", attacking lead, its kind, defending lead, ...)``."""
    ha, hd, winner = value
    hits = [f"{who} takes {_hits(n)}" for who, n in ((key[1], ha), (key[3], hd)) if n]
    return f"the {winner} wins the round: {', '.join(hits) or 'no hits'} (5.2.1)"


def _fire_words(out: FireOutcome, request: Any) -> str:
    """Artillery fire (4.2.1, 5.1.3): the hits and whether the target retreated instead of one more hit;
    hits the target cannot take eliminate it (1.2)."""
    rule = getattr(request, "rule", "") or "4.2.1"
    key = getattr(request, "key", None)
    setup = key[1] if isinstance(key, tuple) and len(key) > 1 else None
    left = getattr(setup, "target_hits_left", None)
    hits = "no hit" if not out.hits else _hits(out.hits)
    if left is not None and out.hits >= left:
        return f"{hits}: the target is eliminated ({rule}, 1.2)"
    return f"{hits}, {'the target retreats' if out.retreated else 'no retreat'} ({rule})"


def describe_result(request: Any, value: Any) -> str:
    """What a sub-procedure of a combat or a fire came to, in a player's words with its rule, e.g. "the
    attacker wins the round: A-KGL takes 1 hit (5.2.1)", "2 hits, no retreat (4.2.1)"; the option a choice
    took as :func:`describe_option` says it; anything else in core's words."""
    rule = str(getattr(request, "rule", "") or "")
    if isinstance(request, Choose):
        return describe_option(request.rule, request.label, value)
    key = getattr(request, "key", None)
    kind = key[0] if isinstance(key, tuple) and key else None
    if isinstance(value, FireOutcome):
        return _fire_words(value, request)
    start, ctx = _start(request)
    if isinstance(value, CombatResult):
        return _combat_words(value, start, ctx, rule)
    if isinstance(value, AfterRoll):
        units = value.fight.att + value.fight.dfn + value.gone
        return _round_words(value.winner, units, start, ctx, rule or "5.2.1")
    if isinstance(value, End):
        return _end_words(value, start, ctx, rule or "5.2")
    if isinstance(value, NextRound):
        return _next_round_words(value, start, ctx)
    if kind == "dice" and isinstance(key, tuple) and isinstance(value, tuple) and len(value) == 3:
        return _dice_words(key, value)
    if kind == "loss" and value in _LEADER_LOSS:
        return f"{_LEADER_LOSS[value]} ({rule})"
    if kind == "rain" and isinstance(value, bool):
        return f"{'a rain squall' if value else 'no rain squall'} ({rule})"
    if kind == "cp" and isinstance(value, int):
        return f"{value} command point{'s' if value != 1 else ''} ({rule})"
    return core_result_words(value)
