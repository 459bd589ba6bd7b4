"""A game being played (issue 27.6: split from :mod:`engine.core.game`): the one :class:`Session` the
page, the CLI, bots and studies drive."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, cast

from .errors import VedetteError
from .game_values import A, Chooser, Dice, EventDice, Options, Outcome, S, first_option
from .procedure import ChanceRequest
from .protocol import GameRules, Pending
from .record import GameRecord
from .replay import new_record, replay
from .tables import GameTables, rules_for

__all__ = ["Session"]


class Session(Generic[S, A]):
    """A game being played: its record, every state so far, and the action under way (if any).

    Every completed action appends one event to the record; an illegal action or a wrong die raises
    and changes nothing. ``dice="random"`` rolls with the one seeding rule, ``"typed"`` waits for
    :meth:`answer`."""

    def __init__(self, rules: GameRules[S, A], record: GameRecord, states: list[S] | None = None,
                 pending: Pending[S, A] | None = None, on_commit: Callable[[dict[str, Any], int], None] | None = None,
                 on_undo: Callable[[int, int], None] | None = None) -> None:
        self.rules = rules_for(rules, record)          # the record's own tables, if it keeps any
        self.record = record
        self.states = states if states is not None else replay(self.rules, record)
        self.pending = pending
        #: called with (event, its index) before a finished action is recorded (a page's store saves it
        #: there); if it raises, nothing is recorded, the action under way is dropped and the error goes on
        self.on_commit = on_commit
        #: called with (events kept, events now) before an undo; if it raises, nothing is undone
        self.on_undo = on_undo

    @classmethod
    def new(cls, rules: GameRules[S, A], scenario: str | None = None, options: Options = (),
            seed: int = 0, meta: dict[str, Any] | None = None, tables: GameTables | None = None) -> Session[S, A]:
        """A new game; ``tables``: a player's printed values to play it with (the record keeps them)."""
        rules = rules.with_tables(tables) if tables is not None else rules
        state = rules.new_game(scenario or rules.default_scenario, options, seed)
        return cls(rules, new_record(rules, state, seed, meta), [state])

    @property
    def state(self) -> S:
        return self.states[-1]

    @property
    def index(self) -> int:
        """The index the next event will have."""
        return len(self.record.events)

    def legal_actions(self) -> list[A]:
        return [] if self.pending is not None else self.rules.legal_actions(self.state)

    def begin(self, action: A | dict[str, Any] | str) -> Pending[S, A]:
        """Start ``action`` and stop at its first request (typed dice, a person's choice)."""
        if self.pending is not None:
            raise VedetteError(f"an action is under way ({self.rules.describe_action(self.pending.action)}): "
                               "answer its request first or cancel it")
        p = self.rules.begin(self.state, action)
        self.pending = p
        self._commit_if_done()
        return p

    def answer(self, value: Any) -> Pending[S, A]:
        if self.pending is None:
            raise VedetteError("no action is waiting for an answer")
        self.pending = self.pending.answer(value)
        done = self.pending
        self._commit_if_done()
        return done

    def cancel(self) -> None:
        """Drop the action under way (nothing of it was recorded)."""
        self.pending = None

    def dice(self) -> EventDice:
        """The computer's dice for the action under way (or the next one): the one seeding rule's stream
        for this event, past the dice this action has already rolled (:meth:`EventDice.resumed`)."""
        return EventDice.resumed(self.record.seed or 0, self.index, self.pending)

    def roll_pending(self, chooser: Chooser | None = None) -> Pending[S, A]:
        """Answer the dice of the action under way with the computer's dice (:meth:`dice`: the stream goes
        on where this action's dice stopped), and its questions with ``chooser``; without a chooser, stop at
        the first question (a player's choice) and leave it waiting. Returns the action as it stands (done
        once recorded)."""
        if self.pending is None:
            raise VedetteError("no action is waiting for an answer")
        p: Pending[S, A] = self.pending
        dice: EventDice | None = None
        if chooser is not None:
            p = p.run(self.dice(), chooser)
        else:
            while not p.done:
                req = p.request
                if not isinstance(req, ChanceRequest):
                    break                          # a player's choice: it waits
                dice = dice or self.dice()
                p = p.answer(dice(req))
        self.pending = p
        self._commit_if_done()
        return p

    def act(self, action: A | dict[str, Any] | str, dice: Dice | None = None, chooser: Chooser | None = None) -> S:
        """Play ``action`` through: dice from ``dice`` (default: the game's seeded dice for this event)."""
        if self.pending is not None:
            raise VedetteError("an action is under way: answer its request first or cancel it")
        p = self.rules.begin(self.state, action)
        p = p.run(dice if dice is not None else EventDice(self.record.seed or 0, self.index), chooser or first_option)
        self.pending = p
        self._commit_if_done()
        return self.state

    def _commit_if_done(self) -> None:
        p = self.pending
        if p is not None and p.done:
            event = p.event()
            if self.on_commit is not None:
                try:
                    self.on_commit(event, self.index)
                except BaseException:
                    self.pending = None
                    raise
            self.record = self.record.append(event)
            self.states.append(cast(S, p.state))
            self.pending = None

    def undo(self, n: int = 1) -> S:
        """Drop the action under way, or else the last ``n`` events."""
        if self.pending is not None:
            self.pending = None
            return self.state
        if n < 1 or len(self.record.events) < n:
            raise VedetteError("nothing to undo" if not self.record.events else
                               f"cannot undo {n} events: the game has {len(self.record.events)}")
        if self.on_undo is not None:
            self.on_undo(len(self.record.events) - n, len(self.record.events))
        self.record = self.record.truncated(len(self.record.events) - n)
        del self.states[len(self.states) - n:]
        return self.state

    def outcome(self) -> Outcome | None:
        return self.rules.outcome(self.state)

    def to_json(self) -> dict[str, Any]:
        """The record plus the action under way, so a half-answered action survives a save."""
        d = self.record.to_json()
        if self.pending is not None:
            d["pending"] = self.pending.to_json()
        return d

    @classmethod
    def from_json(cls, rules: GameRules[S, A], data: Any, file: str | None = None) -> Session[S, A]:
        rec = GameRecord.from_json(data, file=file)
        s = cls(rules, rec)
        if isinstance(data, dict) and data.get("pending"):
            s.pending = Pending.from_json(s.rules, s.state, data["pending"])
        return s
