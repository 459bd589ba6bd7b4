"""Game records for Lines of Battle: save, load, replay, undo (on :class:`engine.core.record.GameRecord`).

Each record event is one action with the answers its procedure received (dice faces, choices):
``{"kind": "action", "rule": "4", "action": {...}, "answers": [...]}``. Replaying runs the same
procedures with those answers, so every state of a game can be rebuilt and audited.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from engine.core.errors import RecordError, VedetteError
from engine.core.procedure import Event, play, replay
from engine.core.record import GameRecord, replay_states

from .game import Action, Game, Setup, new_game, perform

__all__ = ["action_event", "apply_event", "initial_state", "replay_record", "Session"]

RULE_OF = {"place": "Albuera option 6", "end-setup": "Albuera option 6", "toggle": "3", "end-admin": "3", "rally": "4.1", "activate": "4.2", "move": "4.2.2",
           "attack": "5", "fire": "4.2.1", "end-phase": "6"}


def action_event(action: Action, events) -> dict:
    return {"kind": "action", "rule": RULE_OF.get(action.type, "4"), "action": action.to_json(),
            "answers": [e.to_json() for e in events if e.answers]}


def apply_event(g: Game, ev: dict) -> Game:
    if not isinstance(ev, dict) or ev.get("kind") != "action" or "action" not in ev:
        raise RecordError(f"expected an action event, got {repr(ev)[:60]}")
    action = Action.from_json(ev["action"])
    answers = ev.get("answers", [])
    if not isinstance(answers, list):
        raise RecordError("an action's 'answers' must be a list")
    try:
        return replay(partial(perform, g, action), answers).result
    except RecordError as exc:
        # the inner index counts answers within this action; the record's index is the action's
        where = f"answer {exc.index}: " if exc.index is not None else ""
        raise RecordError(f"{action.describe()}: {where}{exc}".replace(f"event {exc.index}: ", "")) from None


def initial_state(record: GameRecord, setup: Setup | None = None) -> Game:
    if record.game != "lob":
        raise RecordError(f"this is a record of game {record.game!r}, not Lines of Battle ('lob')")
    opts = record.options or {}
    options = opts.get("rules", [])
    bid = opts.get("bid")
    if not isinstance(options, list):
        raise RecordError("field 'options.rules': expected a list of option names")
    try:
        setup = setup or Setup(options=frozenset(options))
        return new_game(setup, morale_bid=bid)
    except VedetteError as exc:
        raise RecordError(f"cannot set the game up: {exc}") from None


def replay_record(record: GameRecord, upto: int | None = None) -> list[Game]:
    """Every state of a recorded game (a :class:`RecordError` names the first event that does not replay)."""
    return replay_states(record, initial_state, apply_event, upto)


@dataclass
class Session:
    """A game being played: its record and the list of states (undo = drop the last event)."""

    record: GameRecord
    states: list = field(default_factory=list)

    @classmethod
    def start(cls, options=(), seed: int | None = None, bid: dict | None = None) -> "Session":
        opts = {"rules": sorted(options)}
        if bid:
            opts["bid"] = bid
        rec = GameRecord(game="lob", scenario="albuera", options=opts, seed=seed)
        return cls(rec, [initial_state(rec)])

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        rec = GameRecord.load(path)
        return cls(rec, replay_record(rec))

    @property
    def state(self) -> Game:
        return self.states[-1]

    def do(self, action: Action, dice=None, chooser=None) -> Game:
        """Play ``action`` (dice from ``dice``, choices from ``chooser``); nothing changes if it is illegal."""
        played = play(partial(perform, self.state, action), dice=dice, chooser=chooser)
        self.record = self.record.append(action_event(action, played.events))
        self.states.append(played.result)
        return played.result

    def undo(self) -> Game:
        if len(self.states) <= 1:
            raise VedetteError("nothing to undo")
        self.record = self.record.truncated(len(self.record.events) - 1)
        self.states.pop()
        return self.state

    def save(self, path: str | Path) -> None:
        self.record.save(path)
