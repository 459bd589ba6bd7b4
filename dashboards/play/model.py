"""View model of a game played in the browser, for every system on the core game protocol (issue 15).

:class:`GamePlayModel` (``param``, no widgets) keeps one browser session's game: the system's rules
(:func:`engine.core.game.system_of`), the saved game's id and the role its key gives, the recorded events
and the state after each (so undo and replay need no recomputation), and the action under way while its
dice are typed in or its questions answered. Every action goes through the system's ``check`` and
``perform`` (:meth:`GameRules.begin`): a refusal is shown with its rule number and changes nothing.

Saving: each finished action's record event is committed to the SQLite store *before* the new state is
shown, with an optimistic check of the number of events (:class:`dashboards.server.storage.StaleGame`): when the
same game is open in two sessions, the second to act is refused, sees the game as it now is, and the
store keeps only actions that were legal on the position they were made on. A saved game that no longer
replays opens read-only at the last state that does, with the failing event named; nothing is deleted.
"""
from __future__ import annotations

import random
from typing import Any

import param

from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import GameRules, Pending, action_seed, new_record, system_of, systems
from engine.core.procedure import Choose, RandomDice, Roll
from engine.core.record import GameRecord
from engine.core.values import jsonable

from dashboards.server.storage import OWNER, GameStore, StaleGame, StorageError

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


def log_rows(rules: GameRules, events: list[dict]) -> list[dict]:
    """One row per die, card, choice or note of every recorded action, newest last (raw rolls, and the
    notes that give the modified values)."""
    rows = []
    for i, ev in enumerate(events):
        try:
            said = rules.describe_action(rules.action_from_json(ev.get("action")))
        except VedetteError:
            said = str(ev.get("action"))[:60]
        for a in ev.get("answers", []):
            rows.append({"#": i + 1, "action": said, "rule": a.get("rule", ""), "what": a.get("kind", ""),
                         "label": a.get("label", ""),
                         "value": "" if a.get("value") is None else str(jsonable(a.get("value"))),
                         "detail": "" if a.get("detail") is None else str(jsonable(a.get("detail")))})
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

    return ("<table class='dice-log'><tr><th>#</th><th>action</th><th>rule</th><th>what</th>"
            "<th>value</th><th>detail</th></tr>" + "".join(
                f"<tr><td>{r['#']}</td><td>{html.escape(r['action'][:60])}</td><td>{tag(r['rule'])}</td>"
                f"<td>{html.escape(r['label'] or r['what'])}</td><td>{html.escape(r['value'][:40])}</td>"
                f"<td>{html.escape(r['detail'][:60])}</td></tr>" for r in rows) + "</table>")


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
    """One browser session's game of any system (hotseat, or one side per link)."""

    system = param.String(default="n20")
    broken = param.String(default="", doc="why the saved game does not replay to its end (read-only then)")
    changed = param.Event()

    def __init__(self, store: GameStore, system: str = "n20", server: bool = False, **params):
        super().__init__(system=system, **params)
        self.store = store
        #: on the served app a record may not make the engine open a file (n20: scenario or tables by path)
        self.server = server
        self.rules: GameRules = self._rules_of(system)
        self.record: GameRecord | None = None
        self.states: list = []
        self.pending: Pending | None = None

    # -- helpers ------------------------------------------------------------------------------------
    def _changed(self, message: str | None = None) -> None:
        if message is not None:
            self.message = message
        self.changed = True

    def _refuse(self, text: str) -> bool:
        self.refusal = text
        self._changed()
        return False

    @property
    def events(self) -> list[dict]:
        return list(self.record.events) if self.record is not None else []

    @property
    def has_game(self) -> bool:
        return bool(self.states)

    @property
    def state(self):
        if not self.states:
            return None
        if self.mode == "replay":
            return self.states[min(self.position, len(self.states) - 1)]
        return self.states[-1]

    @property
    def to_act(self) -> str | None:
        return None if self.state is None else self.rules.to_act(self.state)

    def _rules_of(self, system: str) -> GameRules:
        rules = system_of(system)
        if self.server and hasattr(rules, "allow_paths"):
            rules.allow_paths = False
        return rules

    def use_system(self, system: str) -> None:
        if system not in systems():
            raise VedetteError(f"unknown game system {system[:20]!r}; one of {', '.join(systems())}")
        self.system, self.rules = system, self._rules_of(system)
        self.record, self.states, self.pending, self.game_id, self.broken = None, [], None, "", ""

    # -- starting, opening, importing ---------------------------------------------------------------
    def new(self, scenario: str | None = None, options: tuple = (), seed: int | None = None, title: str = "") -> str:
        """Start a scenario and save it (bad options raise and save nothing)."""
        seed = random.randrange(1, 10 ** 6) if seed is None else int(seed)
        st = self.rules.new_game(scenario or self.rules.default_scenario, tuple(options), seed)
        rec = new_record(self.rules, st, seed)
        gid = self.store.create(self.rules.system, rec.scenario, edition=rec.edition, options=rec.options, seed=seed,
                                title=title or f"{self.rules.scenarios().get(rec.scenario, rec.scenario)}"
                                               f" ({', '.join(options) or 'standard'})",
                                sides=self.rules.sides, engine_version=self.rules.engine_version)
        self.role, self.game_id, self.record, self.states = OWNER, gid, rec, [st]
        self.pending, self.mode, self.position, self.broken, self.refusal = None, "play", 0, "", ""
        self._changed("New game started and saved.")
        return gid

    def _record_of(self, saved) -> GameRecord:
        return GameRecord(game=saved.game, scenario=saved.scenario, edition=saved.edition, options=saved.options,
                          seed=saved.seed, events=tuple(saved.events),
                          engine_version=saved.engine_version or self.rules.engine_version)

    def _replay_what_replays(self, rec: GameRecord) -> tuple[list, str]:
        """Every state that replays, and why the rest does not ('' when all do)."""
        from engine.core.game import apply_event
        states = [self.rules.initial_state(rec)]
        for i, ev in enumerate(rec.events):
            try:
                states.append(apply_event(self.rules, states[-1], ev))
            except VedetteError as exc:
                return states, f"event {i + 1} of {len(rec.events)} does not replay: {str(exc)[:200]}"
        return states, ""

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
        rec = self._record_of(saved)
        states, why = self._replay_what_replays(rec)
        self.game_id, self.record, self.states, self.pending = game_id, rec, states, None
        self.role, self.broken, self.refusal = role, why, ""
        self.mode = "replay" if (why or not role) else mode
        self.position = len(states) - 1 if self.mode == "play" else (len(states) - 1 if why else 0)
        self._changed(f"Saved game {saved.title!r} loaded ({len(saved.events)} actions)."
                      + (f" It is read-only: {why}" if why else ""))

    def reload(self) -> None:
        """Read the saved game again (after another session changed it)."""
        if self.game_id:
            mode = self.mode
            self.open(self.game_id, mode, check_key=False) if self.role == OWNER else self._reload_keep_role()

    def _reload_keep_role(self):
        role = self.role
        self.open(self.game_id, self.mode, check_key=False)
        self.role = role
        if not role:
            self.mode = "replay"

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
        states = self._replay_with(rules, rec)
        gid = self.store.create(rules.system, rec.scenario, edition=rec.edition, options=rec.options, seed=rec.seed,
                                title=title or f"imported {rec.scenario}", events=list(rec.events), sides=rules.sides,
                                engine_version=rules.engine_version)
        self.system, self.rules = rules.system, rules
        self.role, self.game_id, self.record, self.states = OWNER, gid, rec, states
        self.pending, self.mode, self.position, self.broken = None, "replay", 0, ""
        self._changed(f"Record imported ({len(rec.events)} actions); replay it or resume play.")
        return gid

    def show_record(self, rec: GameRecord, states: list, message: str = "") -> None:
        """Open a game that is not saved (a study's bot game played again from its seed) read-only, in
        replay at its last action; nothing is stored."""
        if rec.game != self.rules.system:
            self.use_system(rec.game)
        self.record, self.states, self.pending, self.game_id, self.broken = rec, list(states), None, "", ""
        self.role, self.refusal, self.mode = "", "", "replay"
        self.position = len(self.states) - 1
        self._changed(message or f"Replay of a game that is not saved ({len(rec.events)} actions).")

    @staticmethod
    def _replay_with(rules: GameRules, rec: GameRecord) -> list:
        from engine.core.game import replay
        return replay(rules, rec)

    # -- acting ---------------------------------------------------------------------------------------
    def may_act(self, side: str | None = None) -> bool:
        side = self.to_act if side is None else side
        return self.role == OWNER or (bool(self.role) and self.role == side)

    def _role_refusal(self, side: str | None = None) -> str | None:
        if self.may_act(side):
            return None
        if not self.role:
            return "this link lets you watch and replay this game only (ask a player for their link)"
        return f"your link plays the {self.role} side; it is {side or self.to_act}'s turn to act"

    def legal(self) -> list:
        st = self.state
        if st is None or self.mode != "play" or self.pending is not None or self.broken or not self.may_act():
            return []
        return self.rules.legal_actions(st)

    def legal_described(self) -> list[tuple[Any, str]]:
        return [(a, self.rules.describe_action(a)) for a in self.legal()]

    def act(self, action) -> bool:
        """Try an action; True when it finished and was saved, False when refused or waiting for input."""
        why = self._role_refusal()
        if why:
            return self._refuse(why)
        if self.broken:
            return self._refuse(f"this saved game is read-only: {self.broken}")
        if self.mode != "play":
            return self._refuse("switch to play mode to make moves")
        if self.pending is not None:
            return self._refuse("answer the question waiting first: " + describe_request(self.pending.request))
        try:
            p = self.rules.begin(self.states[-1], action)
        except RuleViolation as exc:
            return self._refuse(f"Refused by rule {exc.rule}: {exc.message}")
        except VedetteError as exc:
            return self._refuse(f"Refused: {str(exc)[:240]}")
        self.refusal = ""
        self.pending = p
        return self._advance()

    def _dice(self) -> RandomDice:
        """The computer's dice for the next event: the core seeding rule (as `vedette GAME act` rolls)."""
        return RandomDice(action_seed(self.record.seed or 0, len(self.record.events)))

    def _advance(self) -> bool:
        p = self.pending
        dice = None
        while not p.done:
            req = p.request
            if isinstance(req, Choose):
                self.pending = p
                self._changed(describe_request(req))
                return False
            if self.dice_mode == "typed":
                self.pending = p
                self._changed("Type in the die: " + describe_request(req))
                return False
            if dice is None:
                dice = self._dice()
            p = p.answer(dice(req))
        self.pending = p
        return self._commit(p)

    def answer(self, value: Any) -> bool:
        """Answer the waiting request: a typed die, a card, or a player's choice (checked: a die off its
        faces is refused and nothing changes)."""
        p = self.pending
        if p is None:
            return self._refuse("nothing is waiting for an answer")
        why = self._role_refusal(getattr(p.request, "player", None) or None)
        if why:
            return self._refuse(why)
        try:
            p = p.answer(value)
        except RuleViolation as exc:
            return self._refuse(f"Refused by rule {exc.rule}: {exc.message}")
        except VedetteError as exc:
            return self._refuse(f"Refused: {str(exc)[:200]}")
        self.refusal = ""
        self.pending = p
        return self._advance()

    def roll_for_me(self) -> bool:
        """Let the computer roll the dice still waiting (the player changed their mind about typing)."""
        if self.pending is None:
            return self._refuse("nothing is waiting for a die")
        mode, self.dice_mode = self.dice_mode, "computer"
        try:
            return self._advance()
        finally:
            self.dice_mode = mode

    def cancel(self) -> None:
        self.pending = None
        self._changed("Action cancelled; nothing was saved.")

    def _commit(self, p: Pending) -> bool:
        ev = p.event()
        n = len(self.record.events)
        try:
            self.store.append(self.game_id, ev, expected=n)      # committed before the new state is shown
        except StaleGame as exc:
            self.pending = None
            self.reload()
            return self._refuse(str(exc))
        except StorageError as exc:
            self.pending = None
            return self._refuse(f"Not saved, so not played (nothing changed): {exc}")
        self.record = self.record.append(ev)
        self.states.append(p.state)
        self.pending = None
        self.position = len(self.states) - 1
        oc = self.rules.outcome(p.state)
        if oc is not None:
            try:
                self.store.set_status(self.game_id, f"over: {oc}")
            except StorageError:
                pass
        self._changed(f"Done: {self.rules.describe_action(p.action)}")
        return True

    def undo(self) -> bool:
        """Cancel the action under way, or take back the last action (a side: its own last action only)."""
        if not self.role:
            return self._refuse(self._role_refusal() or "watch only")
        if self.pending is not None:
            self.cancel()
            return True
        if self.broken:
            return self._refuse(f"this saved game is read-only: {self.broken}")
        if not self.record or not self.record.events:
            return self._refuse("nothing to undo")
        if self.role != OWNER:
            last = self.record.events[-1].get("side")
            if last != self.role:
                return self._refuse(f"your link plays the {self.role} side: you may undo your own last action only")
        n = len(self.record.events)
        try:
            self.store.truncate(self.game_id, n - 1, expected=n)
        except StaleGame as exc:
            self.reload()
            return self._refuse(str(exc))
        except StorageError as exc:
            return self._refuse(f"Not undone (nothing changed): {exc}")
        last = self.record.events[-1]
        self.record = self.record.truncated(n - 1)
        self.states.pop()
        self.position = len(self.states) - 1
        try:
            said = self.rules.describe_action(self.rules.action_from_json(last["action"]))
        except VedetteError:
            said = "the last action"
        self._changed(f"Undone: {said}")
        return True

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
        if not self.game_id or not self.may_act(self.role if self.role != OWNER else None) and self.role != OWNER:
            self._refuse("only a player of this game may add bookmarks")
            return
        self.store.bookmark(self.game_id, self.position, label.strip()[:60] or f"position {self.position}")
        self._changed(f"Bookmark added at action {self.position}.")

    def log(self) -> list[dict]:
        return log_rows(self.rules, self.events[: self.position] if self.mode == "replay" else self.events)

    def record_json(self) -> str:
        return self.record.dumps() if self.record else "{}"


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
