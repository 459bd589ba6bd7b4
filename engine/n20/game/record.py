"""Game records (:class:`engine.core.record.GameRecord`): save, load, replay every state, undo.

A record is the scenario id, edition, options, seed and the ordered events; each event is an action
with every answer its procedure got (the raw die faces, the cards, the choices) and the notes with the
modified rolls. Replaying re-runs the same procedures on the recorded answers and checks each one fits
its request: a record that does not replay raises :class:`RecordError` naming the event's index.
"""
from __future__ import annotations

from engine.core.errors import RecordError, VedetteError
from engine.core.record import GameRecord, replay_states

from .actions import Action
from .engine import apply_logged, new_game
from .state import GameState

__all__ = ["make_record", "replay_record", "initial_state", "apply_event", "undo", "state_at_turn", "ENGINE_VERSION"]

ENGINE_VERSION = "n20-game-3"


def make_record(state: GameState, events, meta=None) -> GameRecord:
    return GameRecord(game="n20", scenario=state.scenario_id, edition=state.scenario.edition,
                      options={"options": list(state.options), "tables": state.tables_file},
                      seed=state.seed, events=tuple(events), engine_version=ENGINE_VERSION, meta=meta or {})


def initial_state(rec: GameRecord) -> GameState:
    if rec.game != "n20":
        raise RecordError(f"field 'game': expected 'n20', got {rec.game!r}")
    if rec.engine_version and rec.engine_version != ENGINE_VERSION:
        raise RecordError(f"field 'engine_version': this engine replays {ENGINE_VERSION} records, the record was "
                          f"made by {rec.engine_version!r}; it cannot be replayed by this version")
    opts = rec.options or {}
    try:
        return new_game(rec.scenario, options=tuple(opts.get("options", ())), seed=rec.seed or 0,
                        tables=opts.get("tables"))
    except VedetteError as exc:
        raise RecordError(f"the record's scenario cannot be set up: {exc}") from None


def apply_event(state: GameState, event: dict) -> GameState:
    if event.get("kind") != "action" or "action" not in event:
        raise RecordError(f"expected an action event, got kind {event.get('kind')!r}")
    try:
        new, _ = apply_logged(state, Action.from_json(event["action"]), answers=event.get("answers", []))
    except RecordError as exc:
        # the index core.replay gives is the answer's position inside the event: name it, and let
        # replay_states name the event
        inner = f"answer {exc.index}: " if exc.index is not None else ""
        msg = str(exc).split(": ", 1)[1] if exc.index is not None and ": " in str(exc) else str(exc)
        raise RecordError(inner + msg) from None
    return new


def replay_record(rec: GameRecord, upto: int | None = None) -> list[GameState]:
    """Every state of the recorded game (the first state, then one after each event)."""
    return replay_states(rec, initial_state, apply_event, upto)


def undo(rec: GameRecord, n: int = 1) -> tuple[GameRecord, GameState]:
    """The record without its last ``n`` events, and the state it leads to."""
    short = rec.truncated(max(0, len(rec.events) - n))
    return short, replay_record(short)[-1]


def state_at_turn(rec: GameRecord, turn: int) -> GameState:
    """The state at the start of game turn ``turn`` (the last state if the game ended before it)."""
    states = replay_record(rec)
    for s in states:
        if s.turn >= turn:
            return s
    return states[-1]
