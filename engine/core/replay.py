"""Records replayed (issue 27.6: split from :mod:`engine.core.game`): one recorded event applied with the
same check and procedure as play, every state of a record (naming the first event that no longer fits),
undo, and a new game's empty record."""
from __future__ import annotations

from typing import Any, cast

from .errors import RecordError, RuleViolation, VedetteError
from .game_values import A, S
from .protocol import GameRules, Pending, check_setup
from .procedure import Request
from .record import GameRecord
from .tables import check_tables

__all__ = ["apply_event", "replay", "undo", "new_record"]


def apply_event(rules: GameRules[S, A], state: S, event: Any) -> S:
    """Replay one recorded event on ``state``: the same check, the same procedure, the recorded answers."""
    if not isinstance(event, dict) or event.get("kind") != "action" or "action" not in event:
        raise RecordError("expected an object with kind 'action' and an 'action'")
    answers = event.get("answers", [])
    if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
        raise RecordError("field 'answers': expected a list of objects")
    action = rules.action_from_json(event["action"])
    p = Pending.start(rules, state, action)
    for i, ev in enumerate(a for a in answers if a.get("kind") in ("roll", "draw", "chance", "choose")):
        if p.done:
            raise RecordError(f"answer {i}: left over after the action ended")
        req = cast(Request, p.request)        # not done: a request waits
        if ev.get("kind") != req.kind or ev.get("rule") != req.rule:
            raise RecordError(f"answer {i}: recorded {ev.get('kind')} for rule {ev.get('rule')}, but the "
                              f"action asks for a {req.kind} for rule {req.rule}")
        try:
            p = p.answer(ev.get("value"))
        except RuleViolation as exc:
            raise RecordError(f"answer {i}: {exc}") from None
    if not p.done:
        waiting = cast(Request, p.request)
        raise RecordError(f"the record ends while rule {waiting.rule} still waits for a {waiting.kind}")
    return cast(S, p.state)


def replay(rules: GameRules[S, Any], record: GameRecord, upto: int | None = None) -> list[S]:
    """Every state of a recorded game: the first, then one after each event (``upto`` events at most).
    A :class:`RecordError` names the first event that no longer fits. A record that keeps its own tables
    replays with rules made for them (:func:`~engine.core.tables.rules_for`; a :class:`Session` takes them
    itself): rules made for other charts are refused (:func:`check_tables`), not used silently."""
    states = [rules.initial_state(record)]
    check_setup(rules, record, states[0])
    check_tables(rules, record, states[0])
    events = record.events if upto is None else record.events[:max(0, upto)]
    version = record.engine_version
    for i, ev in enumerate(events):
        try:
            if version and version != rules.engine_version:
                ev = rules.migrate_event(ev, version)
            states.append(apply_event(rules, states[-1], ev))
        except RecordError as exc:
            raise RecordError(str(exc), index=i, file=record.meta.get("file") if isinstance(record.meta, dict) else None) from None
        except VedetteError as exc:
            raise RecordError(f"does not replay: {exc}", index=i) from None
    return states


def undo(rules: GameRules[S, Any], record: GameRecord, n: int = 1) -> tuple[GameRecord, S]:
    """The record without its last ``n`` events, and the state it leads to."""
    if n < 0:
        raise VedetteError("undo: the number of events must not be negative")
    short = record.truncated(max(0, len(record.events) - n))
    return short, replay(rules, short)[-1]


def new_record(rules: GameRules[S, Any], state: S, seed: int, meta: dict[str, Any] | None = None) -> GameRecord:
    return GameRecord(game=rules.system, scenario=rules.scenario_of(state), edition=rules.edition(state),
                      options=rules.record_options(state), seed=int(seed), events=(),
                      engine_version=rules.engine_version, meta=dict(meta or {}))
