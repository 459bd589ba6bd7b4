"""View model of a game played in the browser, for every system on the core game protocol (issues 15, 28).

:class:`GamePlayModel` (``param``, no widgets) is one browser session's window on a live game
(:class:`dashboards.play.live.LiveGame`, the one game the server holds for a saved game): the role the
browser's key gives (the owner, a side, or a spectator), what it shows (play or replay, the replay
position, the side whose view it draws), whether it types its dice in, and the last message and refusal.
The game itself, its record, states and the action under way, is the live game's core
:class:`~engine.core.game.Session`, shared by every browser open on it: acting, answering, rolling,
cancelling and undoing all go through it (one session for the CLI, the page, replay and bots), and every
refusal comes back with its rule and changes nothing.

Saving: each finished action's record event is committed to the SQLite store *before* the new state is
shown, only on the position the server last read (a stale game is read again and the action refused). A
saved game that no longer replays opens read-only at the last state that does, with the failing event
named; nothing is deleted.

What a side may see (issue 28 point 4): :attr:`GamePlayModel.viewer` is the side whose view the page
draws (None: a spectator's public view); :meth:`GamePlayModel.shown_state`, :meth:`log` and the odds use
the rules' ``view`` / ``visible_event``, so a page never has what its side may not see.
"""
from __future__ import annotations

import random
from typing import Any, Callable

import param

from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import GameRules, Pending, new_record, replay, system_of, systems
from engine.core.tables import rules_for
from engine.core.procedure import ChanceRequest, Choose, Roll
from engine.core.record import GameRecord
from engine.core.values import jsonable

from dashboards.play.live import HUB, Hub, LiveGame, Refused, Snapshot
from dashboards.server.storage import OWNER, GameStore

__all__ = ["PlayParams", "GamePlayModel", "describe_request", "log_rows", "log_html", "LOG_CSS"]


def describe_request(req) -> str:
    """A request in a player's words, with its rule."""
    rule = getattr(req, "rule", "")
    if isinstance(req, Roll):
        return f"roll {req.die} for {req.label or 'this step'} (rule {rule})"
    if isinstance(req, Choose):
        who = f"{req.player}: " if req.player else ""
        return f"{who}{req.label or 'choose'} (rule {rule})"
    return f"{getattr(req, 'label', '') or req.kind} (rule {rule})"


def log_rows(rules: GameRules, events: list[dict], states: list | tuple | None = None,
             first: int = 0) -> list[dict]:
    """One row per die, card, choice or note of every recorded action, newest last (raw rolls, and the
    notes that give the modified values). With ``states`` (the state before each event), each answer is
    also said in a player's words (:meth:`GameRules.describe_answer`: "d6 shows 4: DR", "a card, face
    down"); ``first``: the number of the first event given."""
    rows = []
    for i, ev in enumerate(events):
        try:
            said = rules.describe_action(rules.action_from_json(ev.get("action")))
        except VedetteError:
            said = "an action this version cannot read"
        for a in ev.get("answers", []):
            row = {"#": first + i + 1, "action": said, "rule": a.get("rule", ""), "what": a.get("kind", ""),
                   "label": a.get("label", ""),
                   "value": "" if a.get("value") is None else str(jsonable(a.get("value"))),
                   "detail": "" if a.get("detail") is None else str(jsonable(a.get("detail")))}
            if states is not None and i < len(states):
                try:
                    row["said"] = rules.describe_answer(states[i], a)
                except (VedetteError, KeyError, TypeError, ValueError):
                    pass
            rows.append(row)
    return rows


LOG_CSS = """
table.dice-log {border-collapse:collapse;font-size:12px;width:100%}
table.dice-log td, table.dice-log th {border-bottom:1px solid #e0e0e0;padding:1px 5px;text-align:left}
table.dice-log .rule-tag {background:#eef;border-radius:3px;padding:0 4px;font-size:11px;cursor:help}
"""


def log_html(rows: list[dict], rule_note) -> str:
    """The dice log as a table; each rule in it carries its reminder (our words) as hover text, from
    ``rule_note`` (n20: :func:`dashboards.common.rule_notes.note`), or "rule N" where none is known."""
    import html

    tips: dict[str, str] = {}

    def tag(rule: str) -> str:
        if not rule:
            return ""
        if rule not in tips:
            tips[rule] = rule_note(rule) or f"rule {rule}"
        return (f"<span class='rule-tag' data-rule='{html.escape(rule, quote=True)}' "
                f"title='{html.escape(tips[rule], quote=True)}'>{html.escape(rule)}</span>")

    def what(r: dict) -> str:
        if r.get("said"):                 # the system's words for the answer
            return f"<td colspan=3>{html.escape(r['said'][:160])}</td>"
        return (f"<td>{html.escape(r['label'] or r['what'])}</td><td>{html.escape(r['value'][:40])}</td>"
                f"<td>{html.escape(r['detail'][:60])}</td>")

    return ("<table class='dice-log'><tr><th>#</th><th>action</th><th>rule</th><th>what</th>"
            "<th>value</th><th>detail</th></tr>" + "".join(
                f"<tr><td>{r['#']}</td><td>{html.escape(r['action'][:60])}</td><td>{tag(r['rule'])}</td>"
                + what(r) + "</tr>" for r in rows) + "</table>")


class PlayParams(param.Parameterized):
    """What every play page shows of a session's game (the n20 page's model shares these)."""

    game_id = param.String(default="")
    dice_mode = param.Selector(default="computer", objects=["computer", "typed"],
                               doc="roll by the computer, or type in the dice rolled on the table")
    mode = param.Selector(default="play", objects=["play", "replay"])
    position = param.Integer(default=0, bounds=(0, None), doc="replay: number of events applied")
    message = param.String(default="")
    refusal = param.String(default="", doc="the last refused action, with its rule number")
    role = param.String(default="", doc="what this session's key gives: 'owner', a side, or '' (watch only)")


class GamePlayModel(PlayParams):
    """One browser session's window on a live game of any system (hotseat, one side per link, bots)."""

    system = param.String(default="n20")
    broken = param.String(default="", doc="why the saved game does not replay to its end (read-only then)")
    rev = param.Integer(default=-1, doc="the live game's change counter this page shows")
    thinking = param.String(default="", doc="the side whose bot is working out its move ('' none)")
    changed = param.Event()

    def __init__(self, store: GameStore, system: str = "n20", server: bool = False, hub: Hub | None = None,
                 **params):
        super().__init__(system=system, **params)
        self.store = store
        #: on the served app a record may not make the engine open a file (n20: scenario or tables by path)
        self.server = server
        self.hub = hub or HUB
        self.rules: GameRules = self._rules_of(system)
        self.game: LiveGame | None = None
        self.snap: Snapshot | None = None
        self._sub: int | None = None
        #: how the page learns that its live game changed (another browser, a bot, another process):
        #: called from any thread; the view replaces it with one that schedules on its own document
        self.notify: Callable[[], object] = self.sync

    # -- the live game -------------------------------------------------------------------------------
    def _attach(self, game: LiveGame) -> None:
        if self.game is not None and self._sub is not None:
            self.game.unsubscribe(self._sub)
        self.game, self._sub = game, None
        self.rules = game.rules           # with the game's own tables when its record keeps some (issue 25.4)
        if game.store is not None:
            self._sub = game.subscribe(self._told)
        self.snap = game.snapshot()
        self.broken = game.broken
        self.rev = self.snap.rev

    def _told(self) -> None:
        self.notify()

    @property
    def sn(self) -> Snapshot:
        """The snapshot shown (there is a game)."""
        if self.snap is None:
            raise VedetteError("no game: start one, or open a saved one")
        return self.snap

    def _live(self) -> LiveGame:
        if self.game is None:
            raise Refused("no game: start one, or open a saved one")
        return self.game

    def detach(self) -> None:
        """Stop hearing of the game's changes (the browser closed)."""
        if self.game is not None and self._sub is not None:
            self.game.unsubscribe(self._sub)
        self._sub = None

    def sync(self) -> bool:
        """Take the live game as it is now; True when it changed since the page last drew it. A stale
        refusal goes (the pushed view replaces it); a replay stays where it was."""
        g = self.game
        if g is None:
            return False
        snap = g.snapshot()
        if self.snap is not None and snap.rev == self.snap.rev and snap.thinking == self.snap.thinking \
                and snap.note == self.snap.note and snap.pending is self.snap.pending:
            return False
        moved = self.snap is None or snap.rev != self.snap.rev
        self.snap = snap
        with param.parameterized.batch_call_watchers(self):
            self.broken = snap.broken
            if self.mode == "play":
                self.position = len(snap.states) - 1
            else:
                self.position = min(self.position, len(snap.states) - 1)
            if moved:                      # a refusal or a message about a position that is gone goes
                self.refusal = ""          # with the pushed view (the game's own note stays)
                self.message = snap.note
            elif snap.note:
                self.message = snap.note
            self.thinking = snap.thinking
            self.rev = snap.rev
        self.changed = True
        return True

    def _refresh_snap(self) -> None:
        if self.game is not None:
            self.snap = self.game.snapshot()
            self.rev = self.snap.rev
            if self.mode == "play":
                self.position = len(self.snap.states) - 1

    # -- helpers ------------------------------------------------------------------------------------
    def _changed(self, message: str | None = None) -> None:
        if message is not None:
            self.message = message
        self.changed = True

    def _refuse(self, text: str) -> bool:
        self.refusal = text
        self._refresh_snap()
        self._changed()
        return False

    @property
    def record(self) -> GameRecord | None:
        return self.snap.record if self.snap is not None else None

    @property
    def states(self) -> list:
        return list(self.snap.states) if self.snap is not None else []

    @property
    def pending(self) -> Pending | None:
        return self.snap.pending if self.snap is not None else None

    @property
    def events(self) -> list[dict]:
        return list(self.snap.record.events) if self.snap is not None else []

    @property
    def has_game(self) -> bool:
        return self.snap is not None

    @property
    def state(self):
        if self.snap is None:
            return None
        states = self.snap.states
        if self.mode == "replay":
            return states[min(self.position, len(states) - 1)]
        return states[-1]

    @property
    def to_act(self) -> str | None:
        return None if self.state is None else self.rules.to_act(self.state)

    @property
    def seats(self) -> dict:
        return dict(self.snap.seats) if self.snap is not None else {}

    def _rules_of(self, system: str) -> GameRules:
        rules = system_of(system)
        if self.server and hasattr(rules, "allow_paths"):
            rules.allow_paths = False
        return rules

    def use_system(self, system: str) -> None:
        if system not in systems():
            raise VedetteError(f"unknown game system {system[:20]!r}; one of {', '.join(systems())}")
        self.detach()
        self.system, self.rules = system, self._rules_of(system)
        self.game, self.snap, self.game_id, self.broken = None, None, "", ""

    # -- what this page may see (issue 28 point 4) --------------------------------------------------
    @property
    def viewer(self) -> str | None:
        """The side whose view this page draws: its side's link gives that side; the owner's link gives the
        one person's side when the other is a bot, else the side the game waits for (hotseat: the screen
        passes); a spectator sees the public view (None). A finished game's replay shows everything."""
        if self.snap is None:
            return None
        if self.role and self.role != OWNER:
            return self.role
        if self.role == OWNER:
            people = [s for s in self.rules.sides if not self.snap.seats.get(s)]
            if len(people) == 1:
                return people[0]
            return self.asked() if self.mode == "play" else self.to_act
        return None

    @property
    def sees_all(self) -> bool:
        """Whether this page may be sent the whole game: nothing is hidden, or the game is over."""
        st = self.state
        if st is None:
            return True
        last = self.sn.states[-1]
        return not self.rules.hides(st) or self.rules.outcome(last) is not None

    def shown_state(self, state=None):
        """``state`` (default the one shown) as this page's side may see it."""
        st = self.state if state is None else state
        if st is None or self.sees_all:
            return st
        return self.rules.view(st, self.viewer)

    # -- starting, opening, importing ---------------------------------------------------------------
    def new(self, scenario: str | None = None, options: tuple = (), seed: int | None = None, title: str = "",
            seats: dict | None = None, tables=None) -> str:
        """Start a scenario and save it (bad options or seats raise and save nothing). ``seats``: the
        sides a bot plays, ``{side: bot}`` (hotseat when none); ``tables``: a player's printed charts
        (:func:`engine.core.tables.upload_tables`), kept in the record."""
        seed = random.randrange(1, 10 ** 6) if seed is None else int(seed)
        seats = {s: b for s, b in (seats or {}).items() if b}
        bad = [s for s in seats if s not in self.rules.sides]
        if bad:
            raise VedetteError(f"unknown side {bad[0][:20]!r}; the sides are {' and '.join(self.rules.sides)}")
        names = self.rules.bots()
        wrong = [b for b in seats.values() if b not in names]
        if wrong:
            raise VedetteError(f"unknown bot {str(wrong[0])[:20]!r}; one of {', '.join(names)}")
        # the shipped charts unless this game brings its own (the last game's tables are not carried over)
        rules = self.rules.with_tables(tables) if tables is not None or self.rules.game_tables is not None \
            else self.rules
        st = rules.new_game(scenario or rules.default_scenario, tuple(options), seed)
        rec = new_record(rules, st, seed)
        paused = {"paused": True} if seats and len(seats) == len(self.rules.sides) else {}
        gid = self.store.create(self.rules.system, rec.scenario, edition=rec.edition, options=rec.options, seed=seed,
                                title=title or f"{self.rules.scenarios().get(rec.scenario, rec.scenario)}"
                                               f" ({', '.join(options) or 'standard'})",
                                sides=self.rules.sides, engine_version=self.rules.engine_version,
                                seats=seats | paused)
        self.role, self.game_id = OWNER, gid
        self.mode, self.position, self.refusal = "play", 0, ""
        self._attach(self.hub.game(self.store, gid, self.rules))
        self.position = len(self.sn.states) - 1
        self._changed("New game started and saved."
                      + (" The bots are paused: press go on (or step) to watch them play." if paused else ""))
        return gid

    def open(self, game_id: str, mode: str = "play", key: str | None = None, check_key: bool = True) -> None:
        """Resume or replay a saved game. With ``check_key`` (the served pages) ``key`` must be one of the
        game's keys, or the game public (then it opens read-only, in replay); otherwise it is refused as
        if it did not exist."""
        role = OWNER
        if check_key:
            role = self.store.role(game_id, key) or ""
            public = False
            if not role:
                try:
                    public = self.store.load(game_id).public
                except (KeyError, VedetteError):
                    public = False
            if not role and not public:
                raise VedetteError("no saved game opens with this link (its key is missing or wrong)")
        try:
            saved = self.store.load(game_id)
        except KeyError:
            raise VedetteError("no saved game opens with this link (its key is missing or wrong)") from None
        if saved.game != self.rules.system:
            self.use_system(saved.game)
        if check_key and role and key:
            self.store.claim(game_id, key)
        game = self.hub.game(self.store, game_id, self.rules, saved=saved)
        self.game_id, self.role, self.refusal = game_id, role, ""
        self._attach(game)
        why = self.sn.broken
        self.mode = "replay" if (why or not role) else mode
        n = len(self.sn.states) - 1
        self.position = n if self.mode == "play" else (n if why else 0)
        self._changed(f"Saved game {saved.title!r} loaded ({len(saved.events)} actions)."
                      + (f" It is read-only: {why}" if why else ""))

    def reload(self) -> None:
        """Read the saved game again (after another session changed it)."""
        if self.game is not None:
            self.game.sync()
            self.sync()

    def import_record(self, rec: GameRecord, title: str = "", server: bool = True) -> str:
        """Check a record replays on this server, then save it as a new game (a bad record changes nothing).
        On the server a record must name its engine version, and one naming a file is refused unopened."""
        if rec.game not in systems():
            raise RecordError(f"field 'game': {str(rec.game)[:20]!r} is not a game system of this server")
        rules = system_of(rec.game)
        if (server or self.server) and hasattr(rules, "allow_paths"):
            rules.allow_paths = False         # n20: a record opens no scenario or tables file on the server
        if server and not rec.engine_version:
            raise RecordError(f"field 'engine_version': missing; this server replays {rules.engine_version} records")
        if server:
            _refuse_paths(rec)
        rules = rules_for(rules, rec)         # a record that keeps its own tables replays with them
        replay(rules, rec)
        gid = self.store.create(rules.system, rec.scenario, edition=rec.edition, options=rec.options, seed=rec.seed,
                                title=title or f"imported {rec.scenario}", events=list(rec.events), sides=rules.sides,
                                engine_version=rules.engine_version)
        self.detach()
        self.system, self.rules = rules.system, rules
        self.role, self.game_id = OWNER, gid
        self._attach(self.hub.game(self.store, gid, rules))
        self.mode, self.position = "replay", 0
        self._changed(f"Record imported ({len(rec.events)} actions); replay it or resume play.")
        return gid

    def show_record(self, rec: GameRecord, states: list, message: str = "") -> None:
        """Open a game that is not saved (a study's bot game played again from its seed) read-only, in
        replay at its last action; nothing is stored."""
        if rec.game != self.rules.system:
            self.use_system(rec.game)
        self.detach()
        self._attach(LiveGame.unsaved(self.rules, rec, states))
        self.game_id, self.role, self.refusal, self.mode = "", "", "", "replay"
        self.position = len(self.sn.states) - 1
        self._changed(message or f"Replay of a game that is not saved ({len(rec.events)} actions).")

    # -- acting ---------------------------------------------------------------------------------------
    def may_act(self, side: str | None = None) -> bool:
        side = self.to_act if side is None else side
        if self.snap is not None and side and self.snap.seats.get(side):
            return False
        return self.role == OWNER or (bool(self.role) and self.role == side)

    def asked(self) -> str | None:
        """The side the game waits for as this page shows it (a waiting question's side, else the side to
        act): from the page's snapshot, so the status line, the list and the request always agree."""
        snap = self.snap
        if snap is None:
            return None
        p = snap.pending
        if p is not None:
            who = getattr(p.request, "player", None) if isinstance(p.request, Choose) else None
            return who or self.rules.to_act(p.before)
        return self.rules.to_act(snap.states[-1])

    def legal(self) -> list:
        st = self.state
        if st is None or self.mode != "play" or self.pending is not None or self.broken or not self.may_act():
            return []
        return self.rules.legal_actions(st)

    def legal_described(self) -> list[tuple[Any, str]]:
        return [(a, self.said(a)) for a in self.legal()]

    def said(self, action) -> str:
        """``action`` in words as this page's side may know it (hidden pieces by their public token, 16.1)."""
        if self.sees_all or self.state is None:
            return self.rules.describe_action(action)
        return self.rules.describe_action(self.rules.visible_action(self.state, action, self.viewer))

    def _play_refusal(self) -> str | None:
        if self.game is None:
            return "no game: start one, or open a saved one"
        if not self.role:
            return "this link lets you watch and replay this game only (ask a player for their link)"
        if self.mode != "play":
            return "switch to play mode to make moves"
        return None

    def _do(self, fn, done_message) -> bool:
        """Run a change of the live game; a refusal (its rule, or why not) is shown and changes nothing."""
        try:
            out = fn()
        except RuleViolation as exc:
            return self._refuse(f"Refused by rule {exc.rule}: {exc.message}")
        except Refused as exc:
            return self._refuse(str(exc))
        except VedetteError as exc:
            return self._refuse(f"Refused: {str(exc)[:240]}")
        self.refusal = ""
        self._refresh_snap()
        if out is not None:             # still waiting: a die to type in, or a player's choice
            self._changed(("Type in the die: " if isinstance(out.request, ChanceRequest) else "")
                          + describe_request(out.request))
            return False
        said = done_message() if callable(done_message) else done_message
        if self.snap is not None and self.snap.note:      # what the game says after (a bot past its budget)
            said = f"{said} — {self.snap.note[:1].upper()}{self.snap.note[1:]}"
        self._changed(said)
        return True

    def act(self, action) -> bool:
        """Try an action; True when it finished and was saved, False when refused or waiting for input."""
        why = self._play_refusal()
        if why:
            return self._refuse(why)
        try:
            action = self.rules.coerce_action(action)
        except VedetteError as exc:
            return self._refuse(f"Refused: {str(exc)[:240]}")
        g = self._live()
        said = self.said(action)
        return self._do(lambda: g.begin(self.role, action, roll=self.dice_mode == "computer"),
                        lambda: f"Done: {said}")

    def answer(self, value: Any) -> bool:
        """Answer the waiting request: a typed die, a card, or a player's choice (checked: a die off its
        faces is refused and nothing changes)."""
        why = self._play_refusal()
        if why:
            return self._refuse(why)
        p = self.pending
        g = self._live()
        said = self.said(p.action) if p is not None else "the action"
        return self._do(lambda: g.answer(self.role, value, roll=self.dice_mode == "computer"),
                        lambda: f"Done: {said}")

    def roll_for_me(self) -> bool:
        """Let the computer roll the dice still waiting (the player changed their mind about typing)."""
        if self.game is None:
            return self._refuse("nothing is waiting for a die")
        p = self.pending
        g = self.game
        said = self.said(p.action) if p is not None else "the action"
        return self._do(lambda: g.roll(self.role), lambda: f"Done: {said}")

    def cancel(self) -> bool:
        if self.game is None:
            return self._refuse("nothing to cancel")
        g = self.game
        return self._do(lambda: g.cancel(self.role), "Action cancelled; nothing was saved.")

    def undo(self) -> bool:
        """Cancel the action under way, or take back what the undo policy allows (docs/dashboards.md)."""
        if self.game is None:
            return self._refuse("nothing to undo")
        if self.pending is not None:
            return self.cancel()
        last = self.events[-1] if self.events else None
        g = self.game

        def undone() -> str:
            try:
                return "Undone: " + self.said(self.rules.action_from_json((last or {})["action"]))
            except (VedetteError, TypeError, KeyError):
                return "Undone: the last action"
        said = undone()
        return self._do(lambda: (g.undo(self.role), None)[1], said)

    # -- seats and watching (issue 28 point 3) ------------------------------------------------------
    def set_seat(self, side: str, bot: str | None) -> bool:
        g = self.game
        if g is None:
            return self._refuse("no game")
        return self._do(lambda: g.set_seat(self.role, side, bot),
                        f"The {side} side is now played by " + (f"the {bot} bot." if bot else "a person (by link)."))

    def pause(self, paused: bool = True) -> bool:
        g = self.game
        if g is None:
            return self._refuse("no game")
        return self._do(lambda: g.set_paused(self.role, paused), "Paused." if paused else "The bots play on.")

    def step(self) -> bool:
        g = self.game
        if g is None:
            return self._refuse("no game")
        return self._do(lambda: g.step(self.role), "One bot action.")

    def set_public(self, public: bool) -> bool:
        g = self.game
        if g is None:
            return self._refuse("no game")
        return self._do(lambda: g.set_public(self.role, public),
                        "This game is now public: anyone may watch and replay it." if public
                        else "This game is now private: only its links open it.")

    # -- replay ---------------------------------------------------------------------------------------
    def goto(self, position: int) -> None:
        self.position = max(0, min(int(position), len(self.states) - 1))
        self._changed("")

    def step_positions(self) -> list[tuple[int, str]]:
        """(position, label) of the first state of each turn and phase, for 'jump to'."""
        out, last = [], None
        for i, s in enumerate(self.states):
            pos = self.rules.position(s)
            key = (pos.turn, pos.phase, self.rules.to_act(s))
            if key != last:
                who = self.rules.to_act(s) or "game over"
                out.append((i, f"{pos} · {who}"))
                last = key
        return out

    def bookmarks(self) -> list[tuple[int, str]]:
        if not self.game_id:
            return []
        try:
            return [(b.position, b.label) for b in self.store.load(self.game_id).bookmarks]
        except (KeyError, AttributeError, VedetteError):
            return []

    def add_bookmark(self, label: str) -> None:
        if not self.game_id or not self.role:
            self._refuse("only a player of this game may add bookmarks")
            return
        self.store.bookmark(self.game_id, self.position, label.strip()[:60] or f"position {self.position}")
        self._changed(f"Bookmark added at action {self.position}.")

    def log(self, last: int | None = None) -> list[dict]:
        """The dice log of the events shown (the ``last`` ones), each as this page's side may see it
        (:meth:`GameRules.visible_event`) and its answers in a player's words."""
        events = self.events[: self.position] if self.mode == "replay" else self.events
        first = max(0, len(events) - last) if last is not None else 0
        events = events[first:]
        states = self.sn.states[first:first + len(events)] if self.snap is not None else None
        if not self.sees_all and states is not None:
            side = self.viewer
            events = [self.rules.visible_event(states[i], ev, side) for i, ev in enumerate(events)]
            states = [self.rules.view(s, side) for s in states]
        return log_rows(self.rules, events, states, first)

    def record_json(self) -> str:
        """The record to download: the whole game once it is over or when nothing is hidden; else refused
        (a side's page may not carry the other side's hidden moves)."""
        if self.snap is None:
            return "{}"
        rec = self.snap.full_record or self.snap.record
        if not self.sees_all and self.role != OWNER:
            raise Refused("the record of a game with hidden information can be downloaded once it is over")
        return rec.dumps()


def _refuse_paths(rec: GameRecord) -> None:
    """On the server a record may name shipped tables by id only: anything that looks like a path is
    refused without being opened, and the message quotes none of it."""
    opts = rec.options or {}
    if not isinstance(opts, dict):
        raise RecordError("field 'options': expected an object")
    for k, v in opts.items():
        if isinstance(v, str) and ("/" in v or "\\" in v or v.startswith(".") or v.endswith((".yaml", ".yml", ".json"))):
            raise RecordError(f"field 'options.{str(k)[:20]}': a record played on this server may not name a "
                              "file; load your tables on the charts page instead")
