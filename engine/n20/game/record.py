"""Game records (:class:`engine.core.record.GameRecord`): save, load, replay every state, undo -- the core
ones (:func:`engine.core.game.replay`, :func:`engine.core.game.undo`) with the n20 rules.

A record is the scenario id, edition, options, seed and the ordered events; each event is an action
with the side that made it and every answer its procedure got (the raw die faces, the cards, the
choices) and the notes with the modified rolls. Replaying re-runs the same procedures on the recorded
answers and checks each one fits its request: a record that does not replay raises :class:`RecordError`
naming the event's index. Records of the previous engine version (n20-game-3) still replay.
"""
from __future__ import annotations

from engine.core.game import apply_event as core_apply_event, new_record, replay, undo as core_undo
from engine.core.record import GameRecord

from .protocol import ENGINE_VERSION, OLD_VERSIONS, RULES, SHIPPED_TABLES, N20Rules
from .state import GameState

__all__ = ["make_record", "replay_record", "initial_state", "apply_event", "undo", "state_at_turn",
           "ENGINE_VERSION", "OLD_VERSIONS", "SHIPPED_TABLES"]

_SERVED = N20Rules(allow_paths=False)


def make_record(state: GameState, events, meta=None) -> GameRecord:
    rec = new_record(RULES, state, state.seed, meta)
    return rec.append(*events)


def initial_state(rec: GameRecord, allow_paths: bool = True) -> GameState:
    """The first state of a record. ``allow_paths=False`` (the served app) refuses a record that names a
    file (its ``scenario`` or ``options.tables``): only shipped scenarios and tables, by id."""
    return (RULES if allow_paths else _SERVED).initial_state(rec)


def apply_event(state: GameState, event: dict) -> GameState:
    return core_apply_event(RULES, state, event)


def replay_record(rec: GameRecord, upto: int | None = None, allow_paths: bool = True) -> list[GameState]:
    """Every state of the recorded game (the first state, then one after each event); ``allow_paths=False``
    refuses a record naming a file (see :func:`initial_state`)."""
    return replay(RULES if allow_paths else _SERVED, rec, upto)


def undo(rec: GameRecord, n: int = 1) -> tuple[GameRecord, GameState]:
    """The record without its last ``n`` events, and the state it leads to."""
    return core_undo(RULES, rec, n)


def state_at_turn(rec: GameRecord, turn: int) -> GameState:
    """The state at the start of game turn ``turn`` (the last state if the game ended before it)."""
    states = replay_record(rec)
    for s in states:
        if s.turn >= turn:
            return s
    return states[-1]
