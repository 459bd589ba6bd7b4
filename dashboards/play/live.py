"""The live games of a server process (issue 28): the server holds the one game a saved game is.

A :class:`LiveGame` holds one saved game's core :class:`~engine.core.game.Session` (its record, every
state, the action under way) for every browser of this process open on it: the owner's, each side's, the
spectators of a public game. A browser's page model (:class:`~dashboards.play.model.GamePlayModel`) asks it
to begin an action, answer a request, roll, cancel or undo, on behalf of the role its link gives; the
session and the rules decide (one act / answer / commit / undo and one dice rule for the CLI, the page,
replay and bots). Each change is written to the store in the same call, in one transaction, only if the
game's change counter is still the one this process last read (:meth:`GameStore.change`), and then every
subscriber is told; a page draws from :meth:`LiveGame.snapshot`. An action waiting for a die or a choice
is saved too, so the side it asks sees it wherever its browser is.

Several processes (``vedette-serve --num-procs 2``): each holds its own LiveGame of a game, and the store
tells them of each other's changes: the :class:`Hub` looks every :data:`WATCH_S` seconds whether the file
changed at all (SQLite's ``PRAGMA data_version``, no table read), and if so reloads the games whose change
counter moved, applying only the new events.

Seats (point 3): a side is played by a person (by link; the owner's link plays every person's side) or by
a bot (``random``, ``greedy``, ``odds``: :meth:`GameRules.bots`). A bot's move is worked out off the event
loop, in a calculation worker process, with a budget per action (:data:`BOT_BUDGET_S`; past it the worker
is stopped and the bot plays a random legal action instead, saying so), one action at a time, each saved
and shown as it is made. A game of two bots is watched: it may be paused and stepped.

Undo (one policy, in docs/dashboards.md and on the page; as on Rally the Troops): in a live game (a bot
seated, or a side's link opened by a player) a side may take back its own last action, with the bot's
replies after it, until dice were rolled or cards drawn in them, hidden information was shown by them, or
the turn passed to the other player. A hotseat game (the owner's link, no bot, no side link opened) takes
back the last action, whatever it was: the players at the table agree.
"""
from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, cast

from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import GameRules, Pending, RandomBot, Session, apply_event
from engine.core.tables import rules_for
from engine.systems import system_of
from engine.core.procedure import ChanceRequest, Choose
from engine.core.record import GameRecord

from dashboards.play import bots as _bots
from dashboards.server.storage import OWNER, GameStore, StaleGame, StorageError

__all__ = ["LiveGame", "Snapshot", "Refused", "Hub", "HUB", "WATCH_S", "BOT_BUDGET_S", "BOT_PACE_S", "undo_plan",
           "hidden_amount"]

log = logging.getLogger("vedette.dashboards")


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        return default


#: seconds between two looks at the saved-games file for another process's changes
WATCH_S = _env_float("VEDETTE_WATCH_S", 0.2)
#: seconds a bot may think about one action (its worker is stopped past it)
BOT_BUDGET_S = _env_float("VEDETTE_BOT_BUDGET_S", 10.0)
#: seconds between two actions of a game of two bots, so that it can be watched (and paused)
BOT_PACE_S = _env_float("VEDETTE_BOT_PACE_S", 0.6)
#: the kinds of record answer the dice or the cards give (the rest: a player's choice, or a note)
_CHANCE = frozenset({"roll", "draw", "chance"})

#: True in ``vedette-serve`` (set at start): bots then think in worker processes, on the hub's thread,
#: and the hub watches the file for other processes' changes; elsewhere (tests, notebooks) a bot's move
#: is made at once, in the caller's thread
SERVING = False


class Refused(VedetteError):
    """A change the game does not take (a side acting out of turn, an undo the policy forbids ...): one line
    for the page; nothing changed."""


@dataclass(frozen=True)
class Snapshot:
    """A live game as one page draws it, at one change counter (values only: states are immutable)."""

    record: GameRecord
    states: tuple
    pending: Pending | None
    rev: int
    seats: dict
    paused: bool
    public: bool
    broken: str
    title: str
    thinking: str = ""          # the side whose bot is working out its move now ('' when none)
    note: str = ""              # the game's last word to every page (a bot past its budget ...)
    full_record: GameRecord | None = field(default=None, repr=False)   # a saved game that no longer replays

    @property
    def state(self):
        return self.states[-1]


def _record_of(rules: GameRules, saved) -> GameRecord:
    return GameRecord(game=saved.game, scenario=saved.scenario, edition=saved.edition, options=saved.options,
                      seed=saved.seed, events=tuple(saved.events),
                      engine_version=saved.engine_version or rules.engine_version)


def replay_what_replays(rules: GameRules, rec: GameRecord, states: list | None = None) -> tuple[list, str]:
    """Every state of ``rec`` that replays (from ``states``, the first ones already known), and why the rest
    does not ('' when all do)."""
    states = list(states) if states else [rules.initial_state(rec)]
    for i in range(len(states) - 1, len(rec.events)):
        try:
            states.append(apply_event(rules, states[-1], rec.events[i]))
        except VedetteError as exc:
            return states, f"event {i + 1} of {len(rec.events)} does not replay: {str(exc)[:200]}"
    return states, ""


# ------------------------------------------------------------------------------------------------
# What a side may see (point 4) and the undo policy (point 3)
# ------------------------------------------------------------------------------------------------
def _leaves(value, path=()) -> dict:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_leaves(v, path + (str(k),)))
        return out
    if isinstance(value, (list, tuple)):
        out = {}
        for i, v in enumerate(value):
            out.update(_leaves(v, path + (i,)))
        return out
    return {path: value}


def hidden_amount(rules: GameRules, state, side: str | None) -> int:
    """How much of ``state`` ``side`` may not see: the leaves of the state's JSON that its view
    (:meth:`GameRules.view`) masks or leaves out (0 when the game hides nothing)."""
    if not rules.hides(state):
        return 0
    seen = rules.view(state, side)
    if seen is state:
        return 0
    real, shown = _leaves(rules.state_to_json(state)), _leaves(rules.state_to_json(seen))
    return sum(1 for k, v in real.items() if shown.get(k, _MISSING) != v)


_MISSING = object()


def undo_plan(rules: GameRules, record: GameRecord, states, seats: dict, actor: str, live: bool) -> int:
    """How many of the last events ``actor`` (``owner`` or a side) takes back with one undo, under the one
    policy of the module's docstring; raises :class:`Refused` naming why not."""
    events = record.events
    if not events:
        raise Refused("nothing to undo")
    if actor == OWNER and not live:
        return 1
    bots = {s for s, b in seats.items() if s in rules.sides and b}
    if actor == OWNER:
        people = [e.get("side") for e in reversed(events) if e.get("side") not in bots]
        if not people:
            raise Refused("only the bots have moved: nothing of yours to take back")
        side = people[0]
    else:
        side = actor
    i = len(events) - 1
    while i >= 0 and events[i].get("side") != side and events[i].get("side") in bots:
        i -= 1                                 # the bot's replies go back with the move they answered
    if i < 0 or events[i].get("side") != side:
        who = events[-1].get("side") or "the other side"
        raise Refused(f"the last action is the {who} player's: a side takes back its own actions only")
    taken = events[i:]
    for e in taken:
        rolled = [a for a in e.get("answers", ()) if a.get("kind") in _CHANCE]
        if rolled:
            a = rolled[0]
            raise Refused(f"not undone: the dice decided it ({a.get('label') or a.get('kind')}, rule "
                          f"{a.get('rule', '')}); an action is taken back only until dice are rolled or cards drawn")
    after = rules.to_act(states[i + 1])
    if after is not None and after != side and after not in bots:
        raise Refused(f"not undone: the turn passed to the {after} player")
    for s in rules.sides:
        if hidden_amount(rules, states[-1], s) < hidden_amount(rules, states[i], s):
            raise Refused("not undone: it showed hidden information (16.1.1, 15)")
    return len(taken)


# ------------------------------------------------------------------------------------------------
# One live game
# ------------------------------------------------------------------------------------------------
class LiveGame:
    """The one game a saved game is, in this process (see the module's docstring). Thread-safe: every
    change holds :attr:`lock`; subscribers are told after it is released."""

    session: Session[Any, Any]          # set by :meth:`load` (or :meth:`unsaved`) before any use

    def __init__(self, rules: GameRules, store: GameStore | None, game_id: str, hub: "Hub | None" = None):
        self.rules = rules
        self.store = store
        self.game_id = game_id
        self.hub = hub
        self.lock = threading.RLock()
        self._subs: dict[int, Callable[[], None]] = {}
        self._next_sub = 0
        self.full_record: GameRecord | None = None
        self.rev = -1
        self.seats: dict = {}
        self.paused = False
        self.public = False
        self.broken = ""
        self.title = ""
        self.thinking = ""
        self.note = ""
        self._bot_job = False
        self._steps = 0                   # bot actions the owner asked for while paused
        self._rolls = True                # whether the action under way is rolled by the computer

    def _st(self) -> GameStore:
        """The store of a saved game (a game that is not saved is refused any change)."""
        if self.store is None:
            raise Refused("this game is not saved: replay only")
        return self.store

    # -- loading -----------------------------------------------------------------------------------
    @classmethod
    def unsaved(cls, rules: GameRules, record: GameRecord, states: list, title: str = "") -> "LiveGame":
        """A game that is not saved (a study's bot game played again): read-only, for replay."""
        g = cls(rules_for(rules, record), None, "")       # the record's own tables, if it keeps any
        g.session = Session(g.rules, record, list(states))
        g.rev, g.title, g.broken = 0, title, ""
        return g

    def load(self, saved=None) -> None:
        """Read the saved game (again): its events, seats, the action under way."""
        with self.lock:
            self._load(saved)

    def _load(self, saved=None) -> None:
        saved = saved if saved is not None else self._st().load(self.game_id)
        rec = _record_of(self.rules, saved)
        # the game plays with the tables its record keeps (a TBF or BC rules object holds its charts): the
        # legal actions, the odds and every replay of this game use them, not the shipped ones
        self.rules = rules_for(self.rules, rec)
        known = None
        s = getattr(self, "session", None)
        if s is not None and len(rec.events) >= len(s.record.events) and \
                rec.events[:len(s.record.events)] == s.record.events and not self.broken:
            known = s.states                      # the new events follow ours: only they are applied
        states, why = replay_what_replays(self.rules, rec, known)
        self.full_record = rec if why else None
        if why:
            rec = rec.truncated(len(states) - 1)
        self.session = Session(self.rules, rec, states, on_commit=self._saved_commit, on_undo=self._saved_undo)
        if saved.pending and not why:
            try:
                self.session.pending = Pending.from_json(self.rules, states[-1], saved.pending)
            except VedetteError:
                self.session.pending = None       # an action under way that no longer fits: dropped
        self.rev, self.broken, self.public, self.title = saved.rev, why, saved.public, saved.title
        seats = dict(saved.seats or {})
        self.paused = bool(seats.pop("paused", False))
        self.seats = {s: b for s, b in seats.items() if s in self.rules.sides and isinstance(b, str) and b}

    def sync(self) -> bool:
        """Read the game again if another process changed it; True when it did."""
        if self.store is None:
            return False
        with self.lock:
            try:
                rev = self._st().revs([self.game_id]).get(self.game_id)
            except StorageError:
                return False
            if rev is None or rev == self.rev:
                return False
            self._load()
        self.changed()
        return True

    def _sync_locked(self) -> None:
        if self.store is not None:
            rev = self._st().revs([self.game_id]).get(self.game_id)
            if rev is not None and rev != self.rev:
                self._load()

    # -- subscribers -------------------------------------------------------------------------------
    def subscribe(self, fn: Callable[[], None]) -> int:
        """Call ``fn()`` after each change (from any thread: ``fn`` must only schedule its page's update)."""
        with self.lock:
            self._next_sub += 1
            self._subs[self._next_sub] = fn
            return self._next_sub

    def unsubscribe(self, token: int) -> None:
        with self.lock:
            self._subs.pop(token, None)

    @property
    def watched(self) -> bool:
        return bool(self._subs)

    def changed(self) -> None:
        """Tell every subscriber; then let a bot whose turn it is think."""
        with self.lock:
            subs = list(self._subs.values())
        for fn in subs:
            try:
                fn()
            except Exception:  # noqa: BLE001 - one page's trouble must not stop the others' news
                log.exception("a page could not be told of a game's change")
        self._maybe_bot()

    # -- reading ------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        with self.lock:
            s = self.session
            return Snapshot(s.record, tuple(s.states), s.pending, self.rev, dict(self.seats), self.paused,
                            self.public, self.broken, self.title, self.thinking, self.note, self.full_record)

    def is_live(self) -> bool:
        """Whether the undo policy applies: a bot is seated, or a side's link has been opened."""
        if self.seats:
            return True
        if self.store is None or not self.game_id:
            return False
        try:
            return bool(self._st().claimed(self.game_id) - {OWNER})
        except StorageError:
            return True

    def person_sides(self) -> list[str]:
        return [s for s in self.rules.sides if not self.seats.get(s)]

    def asked(self) -> str | None:
        """The side whose input the game waits for: the side a waiting question names (else the side that
        began the action), or the side to act."""
        s = self.session
        if s.pending is not None:
            req = s.pending.request
            who = getattr(req, "player", None) if isinstance(req, Choose) else None
            return who or self.rules.to_act(s.pending.before)
        return self.rules.to_act(s.state)

    # -- changing ------------------------------------------------------------------------------------
    def check_actor(self, role: str, side: str | None) -> None:
        """Refuse (:class:`Refused`) unless ``role`` may act for ``side`` now (its link, not a bot's seat, a game
        that is saved, replays and is not over)."""
        if self.store is None:
            raise Refused("this game is not saved: replay only")
        if self.broken:
            raise Refused(f"this saved game is read-only: {self.broken}")
        if side is None:
            raise Refused("the game is over")
        if self.seats.get(side):
            raise Refused(f"the {side} side is played by the {self.seats[side]} bot")
        if role != OWNER and role != side:
            if not role:
                raise Refused("this link lets you watch and replay this game only (ask a player for their link)")
            raise Refused(f"your link plays the {role} side; it is {side}'s turn to act")

    def _saved_commit(self, event: dict, index: int) -> None:
        """The session's commit hook: the event goes to the store first (with the status when the game is
        over), only on the position this process last read."""
        p = self.session.pending
        oc = self.rules.outcome(p.state) if p is not None else None
        self.rev = self._st().change(self.game_id, self.rev, event=event, pending=None,
                                     status=f"over: {oc}" if oc is not None else None)

    def _saved_undo(self, keep: int, now: int) -> None:
        self.rev = self._st().change(self.game_id, self.rev, keep=keep, pending=None, status="in progress")

    def _save_pending(self) -> None:
        p = self.session.pending
        self.rev = self._st().change(self.game_id, self.rev, pending=p.to_json() if p is not None else None)

    def _run(self, fn: Callable[[], Any]) -> Any:
        """Run a change of the session under the lock; a stale game is read again and the change refused."""
        err: Refused | None
        with self.lock:
            try:
                self._sync_locked()
                out = fn()
            except StaleGame as exc:
                self._load()
                err = Refused(str(exc))
            except StorageError as exc:
                self._load_quietly()
                err = Refused(f"Not saved, so not played (nothing changed): {exc}")
            else:
                err = None
        self.changed()
        if err is not None:
            raise err
        return out

    def _load_quietly(self) -> None:
        try:
            self._load()
        except (StorageError, KeyError, VedetteError):
            pass

    def begin(self, role: str, action, roll: bool) -> Pending | None:
        """Begin ``action`` for ``role``; with ``roll`` the computer's dice answer its dice until it ends or a
        player must choose. Returns the action still waiting, or None once it is recorded. A refusal by
        the rules raises :class:`RuleViolation` (nothing changed)."""
        def go():
            s = self.session
            if s.pending is not None:
                raise Refused("an action is under way: answer its question first")
            self.check_actor(role, self.rules.to_act(s.state))
            s.begin(action)
            return self._after_step(roll)
        return self._run(go)

    def _after_step(self, roll: bool) -> Pending | None:
        s = self.session
        self._rolls = roll                  # how the action under way rolls its dice (a bot's answer goes on so)
        if roll and s.pending is not None and isinstance(s.pending.request, ChanceRequest):
            s.roll_pending()
        if s.pending is not None:
            self._save_pending()
        self.note = ""
        return s.pending

    def answer(self, role: str, value, roll: bool) -> Pending | None:
        """Answer the waiting request for ``role`` (a typed die, a card, a choice: checked against it)."""
        def go():
            s = self.session
            if s.pending is None:
                raise Refused("nothing is waiting for an answer")
            self.check_actor(role, self.asked())
            s.answer(value)
            return self._after_step(roll)
        return self._run(go)

    def roll(self, role: str) -> Pending | None:
        """The computer rolls the dice still waiting (a player who typed dice changed their mind)."""
        def go():
            s = self.session
            if s.pending is None or not isinstance(s.pending.request, ChanceRequest):
                raise Refused("nothing is waiting for a die")
            self.check_actor(role, self.asked())
            return self._after_step(True)
        return self._run(go)

    def cancel(self, role: str) -> None:
        """Drop the action under way (nothing of it was recorded): by the side that began it, before any of
        its dice is rolled in a live game."""
        def go():
            s = self.session
            if s.pending is None:
                raise Refused("nothing to cancel")
            self.check_actor(role, self.rules.to_act(s.pending.before))
            if self.is_live() and s.pending.answered_chance():
                raise Refused("not cancelled: its dice are rolled (an action is taken back only until dice are rolled)")
            s.cancel()
            self._save_pending()
        return self._run(go)

    def undo(self, role: str) -> int:
        """Take back what one undo takes back for ``role`` (the policy of the module's docstring); the number
        of actions taken back."""
        def go():
            s = self.session
            if not role:
                raise Refused("this link lets you watch and replay this game only")
            if self.store is None:
                raise Refused("this game is not saved: replay only")
            if self.broken:
                raise Refused(f"this saved game is read-only: {self.broken}")
            if s.pending is not None:
                raise Refused("an action is under way: cancel it first")
            n = undo_plan(self.rules, s.record, s.states, self.seats, role, self.is_live())
            s.undo(n)
            self.note = ""
            return n
        return self._run(go)

    def set_public(self, role: str, public: bool) -> None:
        def go():
            if role != OWNER or self.store is None:
                raise Refused("only the owner's link may make a game public or private")
            self.rev = self._st().change(self.game_id, self.rev, public=bool(public))
            self.public = bool(public)
        return self._run(go)

    def set_seat(self, role: str, side: str, bot: str | None) -> None:
        """Give ``side`` to the bot ``bot`` (None: to a person, by link); the owner only, and not a side
        whose link a person holds."""
        def go():
            if role != OWNER or self.store is None:
                raise Refused("only the owner's link may seat a bot")
            if side not in self.rules.sides:
                raise Refused(f"unknown side {str(side)[:20]!r}; the sides are {' and '.join(self.rules.sides)}")
            if bot:
                if bot not in self.rules.bots():
                    raise Refused(f"unknown bot {str(bot)[:20]!r}; one of {', '.join(self.rules.bots())}")
                if side in self._st().claimed(self.game_id):
                    raise Refused(f"the {side} link is held by a player: a bot cannot take that seat")
            seats = {s: b for s, b in self.seats.items() if s != side} | ({side: bot} if bot else {})
            self.rev = self._st().change(self.game_id, self.rev, seats=seats | ({"paused": True} if self.paused else {}))
            self.seats = seats
        return self._run(go)

    def set_paused(self, role: str, paused: bool) -> None:
        """Pause or go on with a game of two bots (the owner's link)."""
        def go():
            if role != OWNER or self.store is None:
                raise Refused("only the owner's link may pause or resume the bots")
            self.rev = self._st().change(self.game_id, self.rev,
                                         seats=dict(self.seats) | ({"paused": True} if paused else {}))
            self.paused = bool(paused)
            self._steps = 0
        return self._run(go)

    def step(self, role: str) -> None:
        """One bot action while the game is paused."""
        with self.lock:
            if role != OWNER:
                raise Refused("only the owner's link may step the bots")
            if not self.paused:
                raise Refused("the bots are not paused")
            self._steps += 1
        self._maybe_bot()

    # -- bots ---------------------------------------------------------------------------------------
    def _bot_due(self) -> str | None:
        """The side whose bot should act now, or None."""
        s = self.session
        if s is None or self.store is None or self.broken or self._bot_job or not self.seats:
            return None
        if s.pending is not None and not isinstance(s.pending.request, Choose):
            return None                         # a person's typed die waits
        side = self.asked()
        if side is None or not self.seats.get(side):
            return None
        if self.paused and self.all_bots() and self._steps <= 0:
            return None
        return side

    def all_bots(self) -> bool:
        return all(self.seats.get(s) for s in self.rules.sides)

    def _maybe_bot(self) -> None:
        with self.lock:
            side = self._bot_due()
            if side is None:
                return
            self._bot_job = True
            self.thinking = side
            if self.paused and self._steps > 0:
                self._steps -= 1
            job = partial(self._bot_turn, self.rev)
        (self.hub or HUB).run_bot(job)

    def _bot_turn(self, rev: int) -> None:
        """One bot action (in the hub's bot thread, or at once outside a server)."""
        try:
            self._bot_turn_inner(rev)
        except Exception:  # noqa: BLE001 - a bot's trouble must not stop the game or the thread
            log.exception("a bot's move failed")
            with self.lock:
                self.note = "the bot could not move (the details are in the server's log)"
        finally:
            with self.lock:
                self._bot_job = False
                self.thinking = ""
        self.changed()

    def _bot_turn_inner(self, rev: int) -> None:
        rules = self.rules
        with self.lock:
            if rev != self.rev:
                return                             # the game moved meanwhile: looked at again after
            s = self.session
            state = s.state if s.pending is None else s.pending.before
            state_json = rules.state_to_json(state)
            pending_json = s.pending.to_json() if s.pending is not None else None
            seats = dict(self.seats)
            seeds = {side: _bots.bot_seed(s.record.seed or 0, i) for i, side in enumerate(rules.sides)}
            seed, index = s.record.seed or 0, s.index
            side = self.asked()
            # the game's own tables go with the position: the bot plays with the game's rules (rules_for)
            tables = None if rules.game_tables is None else rules.game_tables.to_json()
        pace = BOT_PACE_S if self.all_bots() and not self.paused else 0.0
        t0 = time.monotonic()
        if pending_json is None:
            work = partial(_bots.bot_move, rules.system, state_json, seats, seeds, seed, index, tables)
        else:
            work = partial(_bots.bot_answer, rules.system, state_json, pending_json, seats, seeds, tables)
        note = ""
        try:
            result = (self.hub or HUB).think(work)
        except VedetteError as exc:
            note = (f"the {seats.get(side)} bot of the {side} side {str(exc)[:120]}: it made a random legal "
                    "move instead")
            result = self._fallback(state, pending_json, side, seed, index)
        wait = pace - (time.monotonic() - t0)
        if wait > 0:
            time.sleep(wait)
        with self.lock:
            if rev != self.rev:
                return
            s = self.session
            try:
                if pending_json is None:
                    s.begin(rules.action_from_json(result["action"]))
                    for v in result["answers"]:
                        if s.pending is None:
                            break
                        s.answer(v)
                    if s.pending is not None and not isinstance(s.pending.request, Choose):
                        s.roll_pending()           # the budget's fallback names no dice: the event's own
                else:
                    s.answer(result)           # the bot's answer to a person's action: its dice as that person rolls
                    if self._rolls and s.pending is not None and isinstance(s.pending.request, ChanceRequest):
                        s.roll_pending()
                if s.pending is not None:
                    self._save_pending()
                self.note = note
            except StaleGame:
                self._load()
            except (RuleViolation, RecordError, VedetteError) as exc:
                s.cancel()
                log.error("a bot's move was refused: %s", exc)
                self.note = f"the bot's move was refused ({str(exc)[:120]})"

    def _fallback(self, state, pending_json, side, seed, index) -> Any:
        """A random legal move (or answer) when a bot ran past its budget: the game goes on."""
        rules = self.rules
        bot = RandomBot(seed=_bots.bot_seed(seed, 7 + index))
        if pending_json is not None:
            p = Pending.from_json(rules, state, pending_json)
            return bot.choose(cast(Choose, p.request), state)
        action = bot.choose_action(rules, state, rules.legal_actions(state))
        return {"action": rules.action_to_json(action), "answers": [], "done": False}


# ------------------------------------------------------------------------------------------------
# The process's live games
# ------------------------------------------------------------------------------------------------
class Hub:
    """The live games of this process by (saved-games file, game id), the watcher of the file for other
    processes' changes, and the one thread bots think on."""

    def __init__(self):
        self._games: "weakref.WeakValueDictionary[tuple, LiveGame]" = weakref.WeakValueDictionary()
        self._lock = threading.Lock()
        self._watch: threading.Thread | None = None
        self._bots: list = []
        self._bot_cv = threading.Condition()
        self._bot_thread: threading.Thread | None = None
        self._inline = threading.local()

    def game(self, store: GameStore, game_id: str, rules: GameRules | None = None, saved=None) -> LiveGame:
        """The live game of ``game_id`` in ``store`` (loaded on first use; KeyError if there is none)."""
        key = (str(store.path), game_id)
        with self._lock:
            g = self._games.get(key)
        if g is not None:
            g.sync()
            return g
        saved = saved if saved is not None else store.load(game_id)
        if rules is None or rules.system != saved.game:
            rules = system_of(saved.game)
            if hasattr(rules, "allow_paths"):
                rules.allow_paths = False
        new = LiveGame(rules, store, game_id, self)
        new.load(saved)
        with self._lock:
            g = self._games.setdefault(key, new)
        if SERVING:
            self._start_watch()
        if g is new:
            new._maybe_bot()
        return g

    # -- other processes' changes ------------------------------------------------------------------
    def _start_watch(self) -> None:
        with self._lock:
            if self._watch is not None and self._watch.is_alive():
                return
            self._watch = threading.Thread(target=self._watch_loop, name="vedette-live-watch", daemon=True)
            self._watch.start()

    def _watch_loop(self) -> None:
        watchers: dict[str, Any] = {}
        while True:
            time.sleep(WATCH_S)
            with self._lock:
                games = [g for g in self._games.values() if g.store is not None and g.watched]
            by_file: dict[str, list[LiveGame]] = {}
            for g in games:
                by_file.setdefault(str(g._st().path), []).append(g)
            for path, gs in by_file.items():
                w = watchers.get(path)
                if w is None:
                    w = watchers[path] = gs[0]._st().watcher()
                try:
                    if not w.changed():
                        continue
                    revs = gs[0]._st().revs([g.game_id for g in gs])
                except Exception:  # noqa: BLE001 - the watcher must keep going
                    log.exception("the saved-games file could not be watched")
                    continue
                for g in gs:
                    if revs.get(g.game_id, g.rev) != g.rev:
                        try:
                            g.sync()
                        except Exception:  # noqa: BLE001
                            log.exception("a live game could not be read again")
            for path in [p for p in watchers if p not in by_file]:
                watchers.pop(path).close()

    # -- bots -----------------------------------------------------------------------------------------
    def run_bot(self, job: Callable[[], None]) -> None:
        """Run a bot's turn: on the bot thread on a server; elsewhere at once, in this thread (a bot's turn
        that leads to another's queues it here, so a game of bots is a loop, not a recursion)."""
        if not SERVING:
            queue = self._inline.__dict__.setdefault("queue", [])
            queue.append(job)
            if self._inline.__dict__.get("running"):
                return
            self._inline.running = True
            try:
                while queue:
                    queue.pop(0)()
            finally:
                self._inline.running = False
            return
        with self._bot_cv:
            self._bots.append(job)
            if self._bot_thread is None or not self._bot_thread.is_alive():
                self._bot_thread = threading.Thread(target=self._bot_loop, name="vedette-bots", daemon=True)
                self._bot_thread.start()
            self._bot_cv.notify()

    def _bot_loop(self) -> None:
        while True:
            with self._bot_cv:
                while not self._bots:
                    self._bot_cv.wait()
                job = self._bots.pop(0)
            try:
                job()
            except Exception:  # noqa: BLE001
                log.exception("a bot's turn failed")

    def think(self, work: Callable[[], Any]) -> Any:
        """A bot's thinking: in a calculation worker process with :data:`BOT_BUDGET_S` on a server, else here."""
        if not SERVING:
            return work()
        from dashboards.server.background import run_in_worker
        return run_in_worker(work, BOT_BUDGET_S)


HUB = Hub()
