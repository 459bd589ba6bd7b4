"""A recorded game, phase by phase and in words: the one walker every system's walkthrough uses.

:func:`walk_record` replays a :class:`~engine.core.record.GameRecord` through the core protocol
(:func:`engine.core.game.replay`, the same check and procedure as play) and cuts it into phases: runs of
consecutive events whose state before them has the same key (by default the protocol's
:class:`~engine.core.game.Position`, turn and phase). Each phase carries its events told as sentences
(the action through ``rules.describe_action`` with its rule, then every die, card, choice and note its
procedure recorded), the metrics that changed over the phase (``rules.metrics``) and the states before and
after it, so a page or a notebook can draw the board once per phase. Nothing here draws or imports a UI.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .game import GameRules, replay
from .record import GameRecord

__all__ = ["Told", "PhaseWalk", "walk_record", "by_turn", "action_sentence", "answer_sentence",
           "metric_changes", "outcome_sentence", "turns_of"]


@dataclass(frozen=True)
class Told:
    """One recorded event in words: ``sentence`` for the action, ``notes`` for what its procedure asked
    and wrote (each with its depth: 0 for the action's own requests, more inside sub-procedures)."""

    index: int                          # the event's place in the record (0 = first)
    side: str
    rule: str
    action: str                         # the action in words (rules.describe_action, the side's name left out)
    sentence: str
    notes: tuple[tuple[int, str], ...] = ()
    kind: str = ""                      # the action's kind in words (its JSON "kind" or "type")


@dataclass(frozen=True)
class PhaseWalk:
    """Consecutive events of one phase: when, who acted, each event told, and the states around it."""

    turn: int
    phase: str
    sides: tuple[str, ...]              # the sides that acted, in the order they first did
    told: tuple[Told, ...]
    before: Any                         # the state the phase's first event was made on
    after: Any                          # the state after its last event
    changes: tuple[str, ...] = ()       # metrics that moved over the phase, in words
    key: Any = None                     # what the walk grouped the phase's events by

    @property
    def first(self) -> int:
        return self.told[0].index

    @property
    def last(self) -> int:
        return self.told[-1].index

    @property
    def title(self) -> str:
        who = f" ({', '.join(self.sides)})" if self.sides else ""
        return f"Turn {self.turn}, {self.phase}{who}"


# ------------------------------------------------------------------------------------------------
# Sentences
# ------------------------------------------------------------------------------------------------
def _cap(text: str) -> str:
    """Upper-case the first letter when the sentence opens on a plain word (never on an id like ci-1)."""
    first = text.split(" ", 1)[0] if text else ""
    return text[:1].upper() + text[1:] if first.rstrip(":,;.").isalpha() else text


def _value_words(v: Any) -> str:
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if v is None:
        return "nothing"
    if isinstance(v, dict):
        return ", ".join(f"{k} {_value_words(x)}" for k, x in v.items()) or "nothing"
    if isinstance(v, (list, tuple)):
        return ", ".join(_value_words(x) for x in v) or "nothing"
    return str(v)


def _rule(rule: str, text: str = "") -> str:
    """`` (rule R)`` after a sentence, unless the sentence already cites that rule."""
    return f" (rule {rule})" if rule and f"({rule}" not in text else ""


def answer_sentence(answer: dict[str, Any]) -> str:
    """One recorded answer or note as a sentence: a die with its face, a card drawn, a choice made, a
    note a procedure wrote; each with its rule, e.g. ``"CRT column -2: a 5 on the d6 (rule 9.0 F)."``."""
    kind = answer.get("kind")
    label = str(answer.get("label") or "").strip()
    rule = str(answer.get("rule") or "")
    value = answer.get("value")
    if kind == "roll":
        die = (answer.get("detail") or {}).get("die") if isinstance(answer.get("detail"), dict) else None
        on = f" on the {die}" if die else ""
        return _cap(f"{label or 'a die'}: a {_value_words(value)}{on}{_rule(rule)}.")
    if kind == "draw":
        return _cap(f"{label or 'a draw'}: {_value_words(value)} drawn{_rule(rule)}.")
    if kind == "choose":
        return _cap(f"{label or 'a choice'}: {_value_words(value)}{_rule(rule)}.")
    if kind == "chance":
        return _cap(f"{label or 'chance'}: {_value_words(value)}{_rule(rule)}.")
    # a note ("log") the procedure wrote while it ran
    text = (label if value is None else f"{label}: {_value_words(value)}").rstrip(" .")
    return _cap(f"{text}{_rule(rule, text)}.") if text else ""


def _strip_side(desc: str, side: str) -> str:
    low = desc.lower()
    s = (side or "").lower()
    if s and low.startswith(s):
        rest = desc[len(s):]
        if rest[:1] in (":", " ", ","):
            return rest.lstrip(":, ").strip()
    return desc


def _action_words(rules: GameRules[Any, Any], event: dict[str, Any]) -> tuple[str, bool]:
    """The event's action in a player's words without the side's name, and whether it passes."""
    side = str(event.get("side") or "")
    try:
        action = rules.action_from_json(event.get("action"))
        desc, passing = rules.describe_action(action), rules.is_pass(action)
    except Exception:                    # a record replays before it is walked; this is only the words
        desc, passing = str(event.get("action")), False
    desc = _strip_side(str(desc), side)
    verb, _, rest = desc.partition(" ")
    return (verb.replace("_", " ") + (" " + rest if rest else "")).strip(), bool(passing)


def _kind(event: dict[str, Any]) -> str:
    a = event.get("action")
    k = (a.get("kind") or a.get("type")) if isinstance(a, dict) else None
    return str(k).replace("_", " ").replace("-", " ") if k else ""


def action_sentence(rules: GameRules[Any, Any], event: dict[str, Any]) -> str:
    """The action of a recorded event as a sentence: who did what (``rules.describe_action``), and its
    rule, e.g. ``"French: move FFER 0713->0712 (rule 6.0)."``."""
    side = str(event.get("side") or "")
    rule = str(event.get("rule") or "")
    desc, passing = _action_words(rules, event)
    who = _cap(side) if side else "The game"
    if passing and " " not in desc:
        return f"{who} is done here ({desc}){_rule(rule, desc)}."
    return f"{who}: {desc.rstrip('.')}{_rule(rule, desc)}."


_METRIC_WORDS = {"morale": "Morale", "units_map": "units on the map", "units_lost": "units lost",
                 "units_broken": "units broken", "broken": "units broken", "eliminated": "units eliminated",
                 "hits": "hits carried", "losses": "losses", "level": "victory level", "flags": "flags held"}


def _metric_name(key: str) -> str:
    name, _, who = key.partition(".")
    words = _METRIC_WORDS.get(name, name.replace("_", " "))
    return f"{who} {words}" if who else words


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}"


def metric_changes(before: dict[str, float], after: dict[str, float]) -> list[str]:
    """What moved between two ``rules.metrics`` snapshots, e.g. ``"french Morale went from 12 to 11."``."""
    out = []
    for k in sorted(set(before) | set(after)):
        a, b = before.get(k), after.get(k)
        if a is None or b is None or a == b:
            continue
        out.append(_cap(f"{_metric_name(k)} went from {_num(a)} to {_num(b)}."))
    return out


def outcome_sentence(rules: GameRules[Any, Any], state: Any) -> str:
    """How the game ended, with the deciding rule, or where it stands if it did not end."""
    out = rules.outcome(state)
    if out is None:
        return f"The record stops at {rules.position(state)}, before the game is over."
    who = f"{_cap(out.winner)} win" if out.winner else "A draw"
    level = f" ({out.level})" if out.level else ""
    why = f": {out.reason}" if out.reason else ""
    return f"{who}{level}{why}{_rule(out.rule, why)}."


# ------------------------------------------------------------------------------------------------
# The walk
# ------------------------------------------------------------------------------------------------
def _safe_metrics(rules: GameRules[Any, Any], state: Any) -> dict[str, float]:
    try:
        return dict(rules.metrics(state))
    except Exception:
        return {}


def walk_record(rules: GameRules[Any, Any], record: GameRecord, key: Callable[[Any, Any], Hashable] | None = None,
                states: Sequence[Any] | None = None,
                notes: Callable[[Any, Any], Iterable[str]] | None = None) -> list[PhaseWalk]:
    """The record's phases in order. ``key(before, after)`` says which phase an event belongs to (events
    in a row with equal keys make one phase); by default the :class:`Position` of the state it was made
    on. ``states`` (from :func:`replay`) saves replaying twice; ``notes(before, after)`` adds a system's
    own sentences on what changed over a phase (beside the metrics). A record that does not replay raises
    the :class:`RecordError` naming its first bad event."""
    states = list(states) if states is not None else replay(rules, record)
    events = record.events
    if len(states) != len(events) + 1:
        raise ValueError(f"expected {len(events) + 1} states for {len(events)} events, got {len(states)}")
    keyf = key or (lambda before, _after: rules.position(before))
    groups: list[tuple[Hashable, list[int]]] = []
    for i in range(len(events)):
        k = keyf(states[i], states[i + 1])
        if groups and groups[-1][0] == k:
            groups[-1][1].append(i)
        else:
            groups.append((k, [i]))
    out = []
    for k, idx in groups:
        before, after = states[idx[0]], states[idx[-1] + 1]
        pos = rules.position(before)
        told = []
        sides: list[str] = []
        for i in idx:
            ev = events[i]
            side = str(ev.get("side") or "")
            if side and side not in sides:
                sides.append(side)
            said = tuple((int(a.get("depth", 0) or 0), answer_sentence(a)) for a in ev.get("answers", ())
                         if isinstance(a, dict))
            told.append(Told(i, side, str(ev.get("rule") or ""), _action_words(rules, ev)[0], action_sentence(rules, ev),
                             tuple(n for n in said if n[1]), _kind(ev)))
        changes = tuple(metric_changes(_safe_metrics(rules, before), _safe_metrics(rules, after)))
        if notes is not None:
            changes += tuple(str(n) for n in notes(before, after))
        out.append(PhaseWalk(pos.turn, pos.phase, tuple(sides), tuple(told), before, after, changes, k))
    return out


def by_turn(phases: Iterable[PhaseWalk]) -> dict[int, list[PhaseWalk]]:
    """The phases grouped by game turn, turns in the order the game played them."""
    out: dict[int, list[PhaseWalk]] = {}
    for p in phases:
        out.setdefault(p.turn, []).append(p)
    return out


def turns_of(rules: GameRules[Any, Any], states: Sequence[Any]) -> list[int]:
    """Every game turn in which a replayed record has an event (the positions of the states its events
    were made on: ``states[:-1]``), in order."""
    seen: list[int] = []
    for s in states[:-1]:
        t = rules.position(s).turn
        if t not in seen:
            seen.append(t)
    return seen
