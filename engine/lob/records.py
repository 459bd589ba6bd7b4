"""Game records for Lines of Battle: the older entry points, now thin faces over core's one record,
one replay and one session (:mod:`engine.core.game` with :class:`engine.lob.protocol.LobRules`).

Each record event is one action with the answers its procedure received (dice faces, choices):
``{"kind": "action", "rule": "4", "side": "French", "action": {...}, "answers": [...]}``. Replaying runs
the same check and procedure with those answers, so every state of a game can be rebuilt and audited.
Records written before the protocol (no ``engine_version``, options as ``{"rules": [...], "bid": ...}``)
replay unchanged.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.core import game as core
from engine.core.errors import RecordError, VedetteError
from engine.core.game import Chooser, Dice
from engine.core.procedure import Event
from engine.core.record import GameRecord

from .actions import RULE_OF, Action
from .protocol import LobRules
from .setup import new_game, parse_options
from .state import Game, Setup

__all__ = ["action_event", "apply_event", "initial_state", "replay_record", "Session", "RULES"]

RULES = LobRules()


def action_event(action: Action, events: Iterable[Event], side: str | None = None) -> dict[str, Any]:
    """The record event of ``action`` with the answers of its procedure's ``events``."""
    ev = {"kind": "action", "rule": RULE_OF.get(action.kind, "4"), "action": action.to_json(),
          "answers": [e.to_json() for e in events if e.answers]}
    if side:
        ev["side"] = side
    return ev


def apply_event(g: Game, ev: dict) -> Game:
    """Replay one recorded event on ``g`` (core's :func:`~engine.core.game.apply_event`)."""
    return core.apply_event(RULES, g, ev)


def initial_state(record: GameRecord, setup: Setup | None = None) -> Game:
    """The first state of a recorded game (``setup``: a custom map, scenario or tables to play it on)."""
    if setup is None:
        return core.initial_state(RULES, record)
    if record.game != RULES.system:
        raise RecordError(f"field 'game': this is a record of {record.game!r}, not {RULES.system!r}")
    try:
        names, bid = parse_options(record.options or {})
        return new_game(Setup(board=setup.board, scenario=setup.scenario, tables=setup.tables, options=names),
                        morale_bid=bid or None)
    except VedetteError as exc:
        raise RecordError(f"the record's game cannot be set up: {exc}") from None


def replay_record(record: GameRecord, upto: int | None = None) -> list[Game]:
    """Every state of a recorded game (a :class:`RecordError` names the first event that does not replay)."""
    return core.replay(RULES, record, upto)


class Session:
    """A game being played (core's :class:`~engine.core.game.Session`): its record and its states."""

    def __init__(self, record: GameRecord | None = None, states: list[Game] | None = None, *,
                 core_session: core.Session[Game, Action] | None = None) -> None:
        if core_session is None:
            assert record is not None, "a session is made from its record (or from core's session)"
            core_session = core.Session(RULES, record, states)
        self.core = core_session

    @classmethod
    def start(cls, options=(), seed: int | None = None, bid: dict | None = None) -> "Session":
        opts: dict = {"options": sorted(options)}
        if bid:
            opts["bid"] = bid
        return cls(core_session=core.Session.new(RULES, "albuera", opts, seed or 0))

    @classmethod
    def load(cls, path: str | Path) -> "Session":
        return cls(GameRecord.load(path))

    @property
    def record(self) -> GameRecord:
        return self.core.record

    @property
    def states(self) -> list:
        return self.core.states

    @property
    def state(self) -> Game:
        return self.core.state

    def do(self, action: Action, dice: Dice | None = None, chooser: Chooser | None = None) -> Game:
        """Play ``action`` (dice from ``dice``, else the game's seeded dice; choices from ``chooser``);
        nothing changes if it is illegal."""
        return self.core.act(action, dice=dice, chooser=chooser)

    def undo(self) -> Game:
        return self.core.undo(1)

    def save(self, path: str | Path) -> None:
        self.record.save(path)
