"""View model of a hotseat Napoleonic 20 game in the browser, saved action by action in SQLite.

:class:`PlayModel` keeps one session's game: its saved-game id, the recorded events and the state after
each of them (so undo and replay need no recomputation). Every action goes through the game engine
(``engine.n20.game.engine.begin``): an illegal one raises a ``RuleViolation`` that is shown with its rule
number and changes nothing. Dice are rolled by the computer or typed in from the table, one request at a
time; questions inside a procedure (reserves, retreat paths, advances) are put to the players. The
finished action's record event (the action and every answer) is committed to the store before the new
state is shown, so a server that dies loses nothing.

Who may do what (the served app): a game's owner key plays both sides (hotseat) and may make the game
public; a side's key plays that side only; without a key a public game may be watched and replayed, and
nothing else. :attr:`PlayModel.role` holds what the session's key gives (``owner``, a side, or ``""``).
"""
from __future__ import annotations

import random
from typing import Any

import param

from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import action_seed
from engine.core.procedure import Choose, RandomDice, Roll, jsonable
from engine.core.record import GameRecord
from engine.n20.game.actions import Action
from engine.n20.game.engine import actor, begin, legal_actions, new_game
from engine.n20.game.record import ENGINE_VERSION, make_record, replay_record
from engine.n20.game.scenario import SIDES
from engine.n20.game.state import Battle, GameState

from dashboards.components.game_play import PlayParams, describe_request
from dashboards.storage import OWNER, GameStore, StorageError

__all__ = ["PlayModel", "describe_request", "dice_log_rows"]

STEP_NAMES = {"setup": "set-up", "bessieres": "Bessières roll", "event": "random events", "movement": "movement",
              "reaction": "reaction", "combat": "combat", "night_ops": "night operations",
              "sudden_death": "sudden death roll", "over": "game over"}


def dice_log_rows(events: list[dict]) -> list[dict]:
    """One row per die, card, choice or note of every recorded action (raw roll, and the notes that give the
    modified roll), newest last."""
    rows = []
    for i, ev in enumerate(events):
        act = Action.from_json(ev["action"]) if "action" in ev else None
        for a in ev.get("answers", []):
            rows.append({"#": i + 1, "action": str(act) if act else ev.get("kind", ""), "rule": a.get("rule", ""),
                         "what": a.get("kind", ""), "label": a.get("label", ""),
                         "value": "" if a.get("value") is None else str(jsonable(a.get("value"))),
                         "detail": "" if a.get("detail") is None else str(jsonable(a.get("detail")))})
    return rows


class PlayModel(PlayParams):
    """One browser session's game (hotseat)."""

    revision = param.Integer(default=0)

    def __init__(self, store: GameStore, **params):
        super().__init__(**params)
        self.store = store
        self.header: dict | None = None
        self.events: list[dict] = []
        self.states: list[GameState] = []
        self.pending = None           # an engine Pending waiting for typed dice or a player's choice
        self._dice = RandomDice()

    # -- games ---------------------------------------------------------------------------------------
    @property
    def has_game(self) -> bool:
        return bool(self.states)

    @property
    def state(self) -> GameState | None:
        if not self.states:
            return None
        if self.mode == "replay":
            return self.states[min(self.position, len(self.states) - 1)]
        return self.states[-1]

    def new(self, scenario: str, options: tuple = (), seed: int | None = None, title: str = "") -> str:
        """Start a scenario and save it (raises a VedetteError/RuleViolation for bad options, saving nothing)."""
        seed = random.randrange(1, 10 ** 6) if seed is None else int(seed)
        st = new_game(scenario, options=tuple(options), seed=seed)
        rec = make_record(st, [])
        gid = self.store.create("n20", scenario, edition=rec.edition, options=rec.options, seed=seed,
                                title=title or f"{st.scenario.name} ({', '.join(options) or 'standard'})",
                                sides=SIDES, engine_version=ENGINE_VERSION)
        self.role = OWNER
        self.game_id, self.header, self.events, self.states = gid, self._header(rec), [], [st]
        self.pending, self.mode, self.position = None, "play", 0
        self._dice = RandomDice(seed)
        self._changed(f"New game of {st.scenario.name} started and saved.")
        return gid

    @staticmethod
    def _header(rec: GameRecord) -> dict:
        return {"game": rec.game, "scenario": rec.scenario, "edition": rec.edition, "options": rec.options,
                "seed": rec.seed}

    def record(self) -> GameRecord:
        h = self.header or {}
        return GameRecord(game="n20", scenario=h.get("scenario", ""), edition=h.get("edition", ""),
                          options=h.get("options") or {}, seed=h.get("seed"), events=tuple(self.events),
                          engine_version=ENGINE_VERSION)

    def open(self, game_id: str, mode: str = "play", key: str | None = None, check_key: bool = False) -> None:
        """Resume (or replay) a saved game: its events are replayed through the engine.

        With ``check_key`` (the served pages), ``key`` must be one of the game's keys, or the game public
        (then it opens read-only, in replay); otherwise it is refused as if it did not exist."""
        role = OWNER
        if check_key:
            role = self.store.role(game_id, key) or ""
            try:
                public = self.store.load(game_id).public if not role else False
            except KeyError:
                public = False
            if not role and not public:
                raise VedetteError("no saved game opens with this link (its key is missing or wrong)")
        saved = self.store.load(game_id)
        if saved.game != "n20":
            raise VedetteError(f"saved game {game_id} is a {saved.game} game, not Napoleonic 20")
        if saved.engine_version and saved.engine_version != ENGINE_VERSION:
            raise VedetteError(f"saved game {game_id} was recorded by engine {saved.engine_version}; this version "
                               f"replays {ENGINE_VERSION} games only")
        rec = GameRecord(game="n20", scenario=saved.scenario, edition=saved.edition, options=saved.options,
                         seed=saved.seed, events=saved.events, engine_version=ENGINE_VERSION)
        states = replay_record(rec)
        self.game_id, self.header, self.events, self.states = game_id, self._header(rec), list(saved.events), states
        self.pending = None
        self.role = role
        self._dice = RandomDice((saved.seed or 0) + len(saved.events))
        self.mode = mode if role else "replay"
        self.position = len(states) - 1 if mode == "play" else 0
        self._changed(f"Saved game {saved.title!r} loaded ({len(saved.events)} actions).")

    def import_record(self, rec: GameRecord, title: str = "", server: bool = True) -> str:
        """Check that a record replays, then save it as a new game (a bad record changes nothing).

        ``server`` (the served page): a record naming a file (scenario or tables) is refused without opening
        it, and the record must say which engine version made it."""
        if rec.game != "n20":
            raise RecordError(f"field 'game': expected 'n20', got {str(rec.game)[:20]!r}")
        if server and not rec.engine_version:
            raise RecordError(f"field 'engine_version': missing; this server replays {ENGINE_VERSION} records")
        states = replay_record(rec, allow_paths=not server)  # raises RecordError naming the failing event
        gid = self.store.create("n20", rec.scenario, edition=rec.edition, options=rec.options, seed=rec.seed,
                                title=title or f"imported {rec.scenario}", events=list(rec.events), sides=SIDES,
                                engine_version=ENGINE_VERSION)
        self.role = OWNER
        self.game_id, self.header, self.events, self.states = gid, self._header(rec), list(rec.events), states
        self.pending, self.mode, self.position = None, "replay", 0
        self._changed(f"Record imported ({len(rec.events)} actions); replay it or resume play.")
        return gid

    # -- actions -------------------------------------------------------------------------------------
    @property
    def to_act(self) -> str | None:
        st = self.state
        return None if st is None else actor(st)

    def legal(self, unit: str | None = None) -> list[Action]:
        st = self.state
        if st is None or self.mode != "play" or self.pending is not None or not self.may_act():
            return []
        return legal_actions(st, unit)

    def may_act(self, side: str | None = None) -> bool:
        """Whether this session's key may act for ``side`` (default: the side to act now)."""
        side = self.to_act if side is None else side
        return self.role == OWNER or (bool(self.role) and self.role == side)

    def _refuse_role(self, side: str | None = None) -> bool:
        """Set a refusal and return True when this session's key may not act for ``side``."""
        if self.may_act(side):
            return False
        if not self.role:
            self.refusal = "this link lets you watch and replay this game only (ask a player for their link)"
        else:
            self.refusal = f"your link plays the {self.role} side; it is {side or self.to_act}'s turn to act"
        self.revision += 1
        return True

    def act(self, action: Action | dict) -> bool:
        """Try an action. Returns True when it finished (saved); False when refused or waiting for input."""
        if self._refuse_role():
            return False
        if self.mode != "play":
            self.refusal = "switch to play mode to make moves"
            return False
        if self.pending is not None:
            self.refusal = "answer the pending question first: " + describe_request(self.pending.pending)
            return False
        try:
            p = begin(self.states[-1], action)
        except RuleViolation as exc:
            self.refusal = f"Refused by rule {exc.rule}: {exc.message}"
            self.revision += 1
            return False
        except VedetteError as exc:
            self.refusal = f"Refused: {exc}"
            self.revision += 1
            return False
        self.refusal = ""
        self.pending = p
        # the core seeding rule: this event's computer dice are the ones `vedette n20 act` would roll
        self._dice = RandomDice(action_seed((self.header or {}).get("seed") or 0, len(self.events)))
        return self._advance()

    def _advance(self) -> bool:
        """Answer what the computer may answer; stop at typed dice and at players' choices."""
        p = self.pending
        while not p.done:
            req = p.pending
            if isinstance(req, Choose):
                self._changed(describe_request(req))
                return False
            if self.dice_mode == "typed":
                self._changed("Type in the die: " + describe_request(req))
                return False
            p.answer(self._roll(req))
        return self._commit(p)

    def _roll(self, req):
        """Computer dice: the engine's seeded RNG driver, with each request's exact probabilities."""
        return self._dice(req)

    def answer(self, value: Any) -> bool:
        """Answer the pending request (a typed die, a card, or a player's choice)."""
        p = self.pending
        if p is None:
            self.refusal = "nothing is waiting for an answer"
            return False
        if self._refuse_role(getattr(p.pending, "player", None) or None):
            return False
        try:
            p.answer(value)
        except RuleViolation as exc:
            self.refusal = f"Refused by rule {exc.rule}: {exc.message}"
            self.revision += 1
            return False
        self.refusal = ""
        return self._advance()

    def cancel(self) -> None:
        """Drop an action whose dice are not all typed in yet (nothing was saved)."""
        self.pending = None
        self._changed("Action cancelled; nothing was saved.")

    def _commit(self, p) -> bool:
        ev = p.record_event()
        try:
            self.store.append(self.game_id, ev)   # committed before the new state is shown
        except StorageError as exc:            # a full disk, a read-only folder: nothing changes
            self.pending = None
            self.refusal = f"Not saved, so not played (nothing changed): {exc}"
            self.revision += 1
            return False
        self.events.append(ev)
        self.states.append(p.state)
        self.pending = None
        self.position = len(self.states) - 1
        st = p.state
        if st.over:
            self.store.set_status(self.game_id, f"over: {st.result[0]}")
        self._changed(f"Done: {Action.from_json(ev['action'])}")
        return True

    def undo(self) -> bool:
        if not self.role:
            self._refuse_role()
            return False
        if self.pending is None and self.role != OWNER and self.events:
            # a side may take back its own last action only
            last_side = self.states[-2] if len(self.states) > 1 else None
            if last_side is None or actor(last_side) != self.role:
                self.refusal = f"your link plays the {self.role} side: you may undo your own last action only"
                self.revision += 1
                return False
        if self.pending is not None:
            self.cancel()
            return True
        if not self.events:
            self.refusal = "nothing to undo"
            return False
        try:
            self.store.truncate(self.game_id, len(self.events) - 1)
        except StorageError as exc:
            self.refusal = f"Not undone (nothing changed): {exc}"
            self.revision += 1
            return False
        last = self.events.pop()
        self.states.pop()
        self.position = len(self.states) - 1
        self._changed(f"Undone: {Action.from_json(last['action'])}")
        return True

    # -- replay --------------------------------------------------------------------------------------
    def goto(self, position: int) -> None:
        self.position = max(0, min(position, len(self.states) - 1))
        self._changed("")

    def step_positions(self) -> list[tuple[int, str]]:
        """(position, label) of the first state of each turn and phase, for 'jump to'."""
        out, last = [], None
        for i, s in enumerate(self.states):
            key = (s.turn, s.player, s.step)
            if key != last:
                out.append((i, f"turn {s.turn} · {s.player} · {STEP_NAMES.get(s.step, s.step)}"))
                last = key
        return out

    def add_bookmark(self, label: str) -> None:
        if not self.role:
            self._refuse_role()
            return
        self.store.bookmark(self.game_id, self.position, label or f"position {self.position}")
        self._changed(f"Bookmark saved at position {self.position}.")

    def bookmarks(self):
        return self.store.load(self.game_id).bookmarks if self.game_id else ()

    # -- helpers -------------------------------------------------------------------------------------
    def moves_for(self, unit: str) -> dict[str, Action]:
        """The legal moves of one unit, by destination hex (from the engine's legal actions)."""
        return {a.path[-1]: a for a in self.legal(unit) if a.kind in ("move", "night_move") and a.path}

    def declare(self, battles: list[tuple[list[str], list[str]]]) -> bool:
        return self.act(Action("declare", battles=tuple(Battle(tuple(sorted(a)), tuple(sorted(d)))
                                                         for a, d in battles)))

    def status_line(self) -> str:
        st = self.state
        if st is None:
            return "No game: start one or open a saved game."
        sc = st.scenario
        morale = ", ".join(f"{s} {v}" for s, v in st.morale)
        night = " (night)" if st.night else ""
        if st.over:
            return f"Game over: {st.result[0]} ({st.result[2]}). Morale {morale}."
        return (f"Turn {st.turn}{night} · {sc.turn_label(st.turn)} · phasing: {st.player} · phase: "
                f"{STEP_NAMES.get(st.step, st.step)} · to act: {actor(st)} · morale {morale}")

    def _changed(self, message: str) -> None:
        if message:
            self.message = message
        self.revision += 1
