"""The game protocol every system implements, and what is written once on top of it.

A system (Napoleonic 20, Lines of Battle, These Brave Fellows, Battle Commander) subclasses
:class:`GameRules` and supplies its rules only:

* ``new_game(scenario, options, seed)`` -- the first state (a value: applying never mutates it);
* ``to_act(state)`` -- the side to act, or ``None`` when the game is over;
* ``candidates(state)`` -- actions worth trying; :meth:`GameRules.legal_actions` keeps those that pass
  ``check``, the same check :meth:`GameRules.apply` runs, so legality has one source;
* ``check(state, action)`` -- raise :class:`RuleViolation` naming the rule (no dice, no change);
* ``perform(state, action)`` -- the action's rules procedure (a generator yielding ``Roll``, ``Draw``,
  ``Choose`` ...) returning the new state, so one action can be played, replayed or enumerated;
* ``outcome(state)`` -- an :class:`Outcome` once the game is over;
* JSON both ways for actions and states, a short text notation for actions, the position (turn and
  phase) and the invariants the conformance suite checks.

Core then gives every system the same record (:class:`~engine.core.record.GameRecord`), replay that names
the first event that no longer fits, undo, a :class:`Session` whose half-answered action is itself a value,
one seeding rule (:func:`action_seed`), one bot interface and one game loop (:func:`play_game`).
"""
from __future__ import annotations

import gc
import hashlib
import json
import random
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, ClassVar, Generic, Protocol, TypeVar, cast

from .data import parse_json
from .errors import RecordError, RuleViolation, VedetteError
from .metrics import metrics_label, metrics_value
from .procedure import ChanceRequest, Choose, Event, NeedInput, RandomDice, Request, Stepper
from .record import GameRecord
from .tables import ChartFile, GameTables, check_tables, rules_for

__all__ = ["Outcome", "Position", "Places", "GameRules", "Pending", "Session", "Bot", "RandomBot", "action_seed", "EventDice",
           "other_side", "replay", "initial_state", "check_tables", "undo", "play_game", "apply_event", "make_event",
           "system_of", "factory_of", "register", "systems", "parse_dice", "MAX_ACTIONS", "steady_heap"]

#: A game loop stops after this many actions even when no one has won (a bot that never ends a phase).
MAX_ACTIONS = 20000

S = TypeVar("S")   #: a system's game state (a value)
A = TypeVar("A")   #: a system's action (a value)
#: a game's options: names (each with the rule it implements), or names with values
Options = Sequence[str] | Mapping[str, Any]
#: where a procedure's chance requests get their answers, and its choices
Dice = Callable[[ChanceRequest], Hashable]
Chooser = Callable[[Choose], Hashable]


# ------------------------------------------------------------------------------------------------
# Value types
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """How a game ended, like python-chess's ``Outcome``: the winner (``None`` for a draw), the victory
    level in the scenario's words (``"decisive"``, ``"marginal"`` ...), why, and the rule that decides."""

    winner: str | None
    level: str = ""
    reason: str = ""
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "level": self.level, "reason": self.reason, "rule": self.rule}

    def __str__(self) -> str:
        who = f"{self.winner} win" if self.winner else "draw"
        lvl = f" ({self.level})" if self.level else ""
        why = f": {self.reason}" if self.reason else ""
        return f"{who}{lvl}{why}"


@dataclass(frozen=True, order=True)
class Position:
    """Where a game stands, for indexes, jumps in replay and simulations: game turn and phase."""

    turn: int
    phase: str = ""

    def __str__(self) -> str:
        return f"turn {self.turn}" + (f", {self.phase}" if self.phase else "")


@dataclass(frozen=True)
class Places:
    """Where an action happens, for boards and pages (so no page reads an action's JSON to find it).

    ``pieces``: the ids of the pieces the action moves, fires with, commits or picks (units, blocks,
    leaders); ``origin``: the places those pieces stand on (hexes, areas, zones); ``targets``: the places
    it moves to, attacks or affects (for a move, the last one is where it ends); ``path``: the places a
    move passes through, in order, its end included. Each is a tuple of the ids the system's board uses."""

    pieces: tuple[str, ...] = ()
    origin: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()

    def all(self) -> frozenset[str]:
        """Every place named (origin, targets and path)."""
        return frozenset(self.origin) | frozenset(self.targets) | frozenset(self.path)


def other_side(sides: Sequence[str], side: str) -> str:
    """The opponent of ``side`` among the two ``sides`` of a game."""
    a, b = sides
    if side == a:
        return b
    if side == b:
        return a
    raise VedetteError(f"unknown side {str(side)[:20]!r}; sides are {str(a)!r} and {str(b)!r}")


def action_seed(seed: int, index: int) -> int:
    """The one seeding rule: the computer's dice for event ``index`` of a game seeded ``seed`` come from
    ``RandomDice(action_seed(seed, index))``, so a game's dice do not depend on what ran before it, on the
    number of workers of a simulation, or on whether earlier events were typed in."""
    h = hashlib.blake2b(f"vedette:{int(seed)}:{int(index)}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big")


class EventDice(RandomDice):
    """``RandomDice(action_seed(seed, index))``, the seed worked out at the first die only (an action that
    asks for none, as most do, costs neither the hash nor the seeding): the same dice either way."""

    def __init__(self, seed: int, index: int) -> None:
        super().__init__(None)
        self._game_seed = seed
        self._index = index

    def _seed_value(self) -> int:
        return action_seed(self._game_seed, self._index)

    @classmethod
    def resumed(cls, seed: int, index: int, pending: Pending[Any, Any] | None) -> EventDice:
        """The dice of event ``index`` part-way through ``pending``: the same stream, past one draw for each
        chance request the action has answered so far (whoever answered it). An action whose dice stopped
        for a player's choice then rolls on as if it had been played in one run, as ``vedette GAME act``
        and :func:`play_game` play it: the rounds of a multi-round combat do not repeat the first round's
        dice."""
        dice = cls(seed, index)
        if pending is not None:
            for req in pending.answered_chance():
                dice(req)
        return dice


# ------------------------------------------------------------------------------------------------
# The protocol
# ------------------------------------------------------------------------------------------------
class GameRules(ABC, Generic[S, A]):
    """One system's rules over its state type ``S`` and action type ``A``. Subclasses (``GameRules[MyState,
    MyAction]``) set :attr:`system`, :attr:`sides`, :attr:`engine_version` and implement the abstract
    methods; everything else has a default written once here."""

    system: ClassVar[str] = ""
    title: ClassVar[str] = ""
    sides: ClassVar[tuple[str, str]] = ("", "")
    #: keys an older record's options may hold besides those :meth:`record_options` writes today
    older_option_keys: ClassVar[frozenset[str]] = frozenset()
    engine_version: ClassVar[str] = ""
    #: older engine versions whose records this one still replays (a migration exists)
    accepts_versions: ClassVar[tuple[str, ...]] = ()
    default_scenario: ClassVar[str] = ""

    # --- what a system must supply -------------------------------------------------------------
    @abstractmethod
    def scenarios(self) -> dict[str, str]:
        """Scenario ids with a title, e.g. ``{"fuentes": "Fuentes de Oñoro (3-5 May 1811)"}``."""

    @abstractmethod
    def options(self) -> dict[str, str]:
        """Option and variant names with the rule each implements."""

    @abstractmethod
    def new_game(self, scenario: str | None = None, options: Options = (), seed: int = 0) -> S:
        """The first state of ``scenario`` with ``options`` (names from :meth:`options`)."""

    @abstractmethod
    def to_act(self, state: S) -> str | None:
        """The side to act now; ``None`` when the game is over."""

    @abstractmethod
    def candidates(self, state: S) -> Iterable[A]:
        """Actions to try in ``state``: :meth:`legal_actions` keeps those that pass :meth:`check`."""

    @abstractmethod
    def check(self, state: S, action: A) -> None:
        """Raise :class:`RuleViolation` (naming the rule) if ``action`` is illegal in ``state``."""

    @abstractmethod
    def perform(self, state: S, action: A) -> Generator[Request, Any, S]:
        """The rules procedure of a checked ``action``: yields requests, returns the new state."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The game's :class:`Outcome`, or ``None`` while it goes on."""

    @abstractmethod
    def action_to_json(self, action: A) -> dict[str, Any]:
        ...

    @abstractmethod
    def action_from_json(self, data: Any) -> A:
        """Rebuild an action; data of the wrong shape raises :class:`VedetteError` naming the field."""

    @abstractmethod
    def state_to_json(self, state: S) -> dict[str, Any]:
        ...

    @abstractmethod
    def state_from_json(self, data: Any) -> S:
        ...

    @abstractmethod
    def position(self, state: S) -> Position:
        """The turn and phase of ``state``."""

    # --- defaults a system may refine ---------------------------------------------------------
    def record_options(self, state: S) -> dict[str, Any]:
        """What a record keeps of the game's options (given back to :meth:`new_game` on replay)."""
        return {"options": list(getattr(state, "options", ()))}

    def edition(self, state: S) -> str:
        return ""

    def scenario_of(self, state: S) -> str:
        return str(getattr(state, "scenario_id", "") or self.default_scenario)

    def rule_of(self, action: A) -> str:
        """The rule an action belongs to (kept in the record beside it)."""
        return ""

    def format_action(self, action: A) -> str:
        """The short text notation of ``action`` (like SAN): :meth:`parse_action` reads it back."""
        return json.dumps(self.action_to_json(action), separators=(",", ":"), sort_keys=True)

    def parse_action(self, text: str) -> A:
        """An action from its text notation, or from its JSON (within core's bounds: nesting, digits)."""
        text = text.strip()
        if text.startswith("{"):
            return self.action_from_json(parse_json(text, "action", _action_error))
        raise VedetteError(f"action: cannot read {text[:60]!r}")

    def describe_action(self, action: A) -> str:
        """The action in a player's words (for lists and logs)."""
        return str(action)

    def is_pass(self, action: A) -> bool:
        """True for actions that end a phase or pass (a random bot takes them now and then)."""
        return False

    def state_summary(self, state: S) -> dict[str, Any]:
        """Extra keys the CLI prints about a position (beside system, position, turn, phase, to_act, outcome)."""
        return {}

    def invariants(self, state: S) -> list[str]:
        """What is wrong with ``state`` (empty when every invariant the system declares holds)."""
        return []

    def metrics(self, state: S) -> dict[str, float]:
        """Numbers a study follows turn by turn, e.g. ``{"morale.french": 12, "losses.allied": 3}``."""
        return {}

    def bots(self) -> dict[str, Callable[..., "Bot"]]:
        """Bot factories by name; each is called with ``seed=`` and returns a :class:`Bot`."""
        return {"random": RandomBot}

    # --- odds of an action and what bots weigh (engine/core/odds.py) ----------------------------
    def is_attack(self, action: A) -> bool:
        """True for actions whose dice decide a fight (a battle, a combat, fire, a charge): the odds
        panel shows their :func:`~engine.core.odds.action_odds` and the odds bot weighs them."""
        return False

    def attack_candidates(self, state: S) -> list[A]:
        """The legal attacks of the side to act (default: the legal candidates :meth:`is_attack` keeps);
        a system whose full candidate list is costly outside its combat steps may answer faster."""
        if self.to_act(state) is None:
            return []
        return [a for a in self.candidates(state) if self.is_attack(a) and self.is_legal(state, a)]

    def odds_label(self, before: S, after: S, action: A) -> str | tuple[str, str]:
        """One outcome of ``action`` in a player's words (outcomes with one label are added up), or a
        ``(label, rule)`` pair. Default: the changes of :meth:`metrics`, e.g. ``"morale.french -1"``."""
        return metrics_label(self.metrics(before), self.metrics(after))

    def evaluate(self, state: S, side: str) -> float:
        """How good ``state`` is for ``side`` (bots compare it before and after an action). Default: a
        won game +1000 (lost -1000); else from :meth:`metrics` (see :func:`~engine.core.odds.metrics_value`)."""
        return metrics_value(self, state, side)

    def initial_state(self, record: GameRecord) -> S:
        """The first state of a recorded game (default: :func:`initial_state`, which checks the system,
        the version, the scenario and the seed); a system whose records name files or tables refines it."""
        return initial_state(self, record)

    def migrate_event(self, event: dict[str, Any], version: str) -> dict[str, Any]:
        """An event of an older accepted engine version in today's form (default: unchanged)."""
        return event

    # --- a game's own charts (engine/core/tables.py) ----------------------------------------------
    #: the player's tables these rules play with (None: the shipped charts); set by :meth:`with_tables`
    game_tables: GameTables | None = None

    def chart_files(self, state: S | None = None) -> tuple[ChartFile, ...]:
        """The shipped chart files a game may replace with a player's printed values (``--tables FILE``),
        first the one a file is taken for when nothing else claims it; with ``state``, those its game plays
        with (n20: its edition's). Default: none."""
        return ()

    def with_tables(self, tables: GameTables | None) -> GameRules[S, A]:
        """The rules of a game played with ``tables`` (None: the shipped charts): ``self`` when they are
        the ones these rules play with already. A system with :meth:`chart_files` makes new rules."""
        if tables == self.game_tables:
            return self
        raise VedetteError(f"{self.system}: a game of this system plays with no chart a tables file replaces")

    def tables_of(self, state: S) -> GameTables | None:
        """The player's tables ``state``'s game plays with (None: the shipped charts). Default: the rules'
        own (:attr:`game_tables`); a system whose positions carry their charts reads the position."""
        return self.game_tables

    # --- what boards and each side's page may use (the play layer) -----------------------------
    def places(self, state: S, action: A) -> Places:
        """The pieces and places ``action`` concerns in ``state`` (typed, for boards: a pick on the board
        finds its actions through this, never through the action's JSON). Default: none."""
        return Places()

    def hides(self, state: S) -> bool:
        """True when some side may not see all of ``state`` (n20 16.1 fog of war, BC 15 hands and pile):
        the play layer then sends each browser :meth:`view` and :meth:`visible_event` only."""
        return False

    def view(self, state: S, side: str | None) -> S:
        """What ``side`` may see of ``state`` (``None``: a spectator, who sees what both sides may), as a
        value of the same type that boards draw and pages describe: hidden names, strengths, cards and
        piles masked. Default: everything is public."""
        return state

    def visible_action(self, state: S, action: A, side: str | None) -> A:
        """``action`` (played or legal in ``state``) as ``side`` may know it: hidden pieces named as
        :meth:`view` names them. Default: unchanged."""
        return action

    def visible_event(self, state: S, event: dict[str, Any], side: str | None) -> dict[str, Any]:
        """A record event (made in ``state``) as ``side`` may see it in the log: hidden action fields and
        hidden answers (a card drawn into the other hand) masked. Default: unchanged."""
        return event

    # --- a player's words (every page shows these: never JSON, a repr or an identifier) ----------
    def describe_option(self, state: S, request: Choose, option: Any) -> str:
        """One option of a :class:`~engine.core.procedure.Choose` request (a retreat path, an advance,
        a card to play) in a player's words. Default: :func:`engine.core.words.plain`."""
        from .words import plain
        return plain(option)

    def describe_answer(self, state: S, answer: dict[str, Any]) -> str:
        """One answered request or note of a record event (``Event.to_json()``: a die, a card, a choice)
        in a player's words, e.g. "d6 shows 4: DR, the defender retreats". Default: its label and value."""
        from .words import plain
        label = answer.get("label") or answer.get("kind", "")
        return f"{plain(label)}: {plain(answer.get('value'))}"

    def option_title(self, name: str) -> str:
        """A game option (:meth:`options`) as a player names it, e.g. "Fog of war"."""
        from .words import identifier_words
        return identifier_words(name).capitalize()

    def metric_title(self, key: str) -> str:
        """A :meth:`metrics` key as a player names it, e.g. "French morale"."""
        from .words import identifier_words
        return identifier_words(key)

    def piece_name(self, state: S, piece: str) -> str:
        """The name a piece's counter or block shows (the lists and the board use the same)."""
        return piece

    # --- written once --------------------------------------------------------------------------
    def is_legal(self, state: S, action: A) -> bool:
        try:
            self.check(state, action)
        except RuleViolation:
            return False
        return True

    def legal_actions(self, state: S) -> list[A]:
        """Every legal action of the side to act: the candidates that pass :meth:`check`."""
        if self.to_act(state) is None:
            return []
        return [a for a in self.candidates(state) if self.is_legal(state, a)]

    def coerce_action(self, action: A | dict[str, Any] | str) -> A:
        if isinstance(action, dict):
            return self.action_from_json(action)
        if isinstance(action, str):
            return self.parse_action(action)
        return action

    def begin(self, state: S, action: A | dict[str, Any] | str) -> Pending[S, A]:
        """Start ``action`` for answering one request at a time (checked first: nothing happens if illegal)."""
        return Pending.start(self, state, self.coerce_action(action))

    def apply(self, state: S, action: A | dict[str, Any] | str, dice: Dice | None = None,
              chooser: Chooser | None = None, seed: int | None = None) -> tuple[S, dict[str, Any]]:
        """The state after ``action`` and its record event. Dice from ``dice`` (default: seeded by
        ``seed``), choices inside the procedure from ``chooser`` (default: the first option)."""
        p = self.begin(state, action)
        p = p.run(dice if dice is not None else RandomDice(seed), chooser or _first)
        return cast(S, p.state), p.event()

    def over(self, state: S) -> bool:
        return self.to_act(state) is None


def _action_error(what: str, field: str, expected: str) -> VedetteError:
    return VedetteError(f"{what}: expected {expected}")


def _first(req: Choose) -> Hashable:
    return req.options[0]


#: the kinds of record answer that a chance request gives (the rest: a player's choice, or a note)
_CHANCE_KINDS = frozenset({"roll", "draw", "chance"})


# ------------------------------------------------------------------------------------------------
# Events and records
# ------------------------------------------------------------------------------------------------
def make_event(rules: GameRules[S, A], state: S, action: A, answers: Iterable[Event]) -> dict[str, Any]:
    """The record event of ``action`` made by the side to act, with every answer and note its procedure had."""
    return {"kind": "action", "rule": rules.rule_of(action), "side": rules.to_act(state),
            "action": rules.action_to_json(action), "answers": [e.to_json() for e in answers]}


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


def initial_state(rules: GameRules[S, Any], record: GameRecord) -> S:
    """The first state of a recorded game, after checking the record belongs to this system and version."""
    if record.game != rules.system:
        raise RecordError(f"field 'game': this is a record of {record.game!r}, not {rules.system!r}")
    if record.engine_version and record.engine_version != rules.engine_version \
            and record.engine_version not in rules.accepts_versions:
        raise RecordError(f"field 'engine_version': this engine replays {rules.engine_version} records, "
                          f"the record was made by {str(record.engine_version)[:40]!r}")
    if record.scenario not in rules.scenarios():
        raise RecordError(f"field 'scenario': unknown scenario {record.scenario[:40]!r}; "
                          f"one of {', '.join(rules.scenarios())}")
    seed = record.seed if record.seed is not None else 0
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RecordError(f"field 'seed': expected a whole number, got {str(seed)[:40]!r}")
    try:
        state = rules.new_game(record.scenario, record.options or {}, seed)
    except RecordError:
        raise
    except VedetteError as exc:
        raise RecordError(f"the record's game cannot be set up: {exc}") from None
    check_setup(rules, record, state)
    return state


def check_setup(rules: GameRules[S, A], record: GameRecord, state: S) -> None:
    """A record's edition and options fit the game it sets up: an edition the scenario does not have, or
    an option key the system does not write (nor read in older records), is refused naming the field
    (a misspelt key would otherwise be ignored, and kept by every later save)."""
    edition = rules.edition(state)
    if record.edition and record.edition != edition:
        raise RecordError(f"field 'edition': the record says {record.edition[:20]!r}, the scenario is "
                          + (f"{edition!r}" if edition else "of no edition (leave the field empty)"))
    known = set(rules.record_options(state)) | set(rules.older_option_keys)
    if rules.chart_files():
        known.add("tables")                 # a game's own tables (null: the shipped charts)
    unknown = sorted(map(str, set(record.options or {}) - known))
    if unknown:
        raise RecordError(f"field 'options': unknown key {unknown[0][:40]!r}; a {rules.system} record's options "
                          f"hold {', '.join(sorted(known))}")


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


# ------------------------------------------------------------------------------------------------
# An action under way: a value
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pending(Generic[S, A]):
    """An action being resolved one request at a time (typed dice, a person's choices).

    A value: ``answers`` so far are kept, and :meth:`answer` returns a *new* Pending, so a half-answered
    action can be saved (:meth:`to_json`) and resumed (:meth:`from_json`). ``request`` is what waits
    (``None`` once ``done``); ``state`` is the new game state once done."""

    rules: GameRules[S, A] = field(repr=False, compare=False)
    before: S = field(repr=False, compare=False)
    action: A
    answers: tuple[Any, ...] = ()
    events: tuple[Event, ...] = ()
    request: Request | None = None
    state: S | None = field(default=None, repr=False, compare=False)   # the new state, once done
    done: bool = False
    _stepper: Stepper | None = field(default=None, repr=False, compare=False)

    @classmethod
    def start(cls, rules: GameRules[S, A], state: S, action: A) -> Pending[S, A]:
        rules.check(state, action)
        step = Stepper(partial(rules.perform, state, action))
        return cls._from(rules, state, action, (), step)

    @classmethod
    def _from(cls, rules: GameRules[S, A], state: S, action: A, answers: Iterable[Any],
              step: Stepper) -> Pending[S, A]:
        # the fields set directly (the frozen dataclass's __init__ sets them one by one, for every action
        # of every game): the same value as cls(rules=..., ...), as Pending has no __post_init__
        new = object.__new__(cls)
        new.__dict__.update(rules=rules, before=state, action=action, answers=tuple(answers),
                            events=tuple(step.events), request=step.pending,
                            state=step.result if step.done else None, done=step.done, _stepper=step)
        return new

    def answer(self, value: Any) -> Pending[S, A]:
        """Answer the waiting request (checked against it: a die off its faces raises and changes nothing)."""
        if self.done:
            raise VedetteError("this action is complete; nothing to answer")
        step = self._stepper
        if step is None or len(step.events) != len(self.events) or step.pending is not self.request:
            step = self._restart()           # this value was already answered along another branch
        value = step.answer(value)           # checked against the request first (nothing changes if wrong)
        return Pending._from(self.rules, self.before, self.action, self.answers + (value,), step)

    def _restart(self) -> Stepper:
        step = Stepper(partial(self.rules.perform, self.before, self.action))
        for v in self.answers:
            step.answer(v)
        return step

    def answered_chance(self) -> list[ChanceRequest]:
        """The chance requests (dice, cards, chances) this action has answered so far, in order."""
        if not any(e.kind in _CHANCE_KINDS for e in self.events):
            return []
        step = Stepper(partial(self.rules.perform, self.before, self.action))
        out = []
        for v in self.answers:
            if isinstance(step.pending, ChanceRequest):
                out.append(step.pending)
            step.answer(v)
        return out

    def run(self, dice: Dice | None, chooser: Chooser | None) -> Pending[S, A]:
        """Answer every remaining request from ``dice`` and ``chooser``, with the checks of :meth:`answer`
        (the Pendings in between are not made)."""
        if self.done:
            return self
        step = self._stepper
        if step is None or len(step.events) != len(self.events) or step.pending is not self.request:
            step = self._restart()           # this value was already answered along another branch
        answers = list(self.answers)
        while not step.done:
            req = cast(Request, step.pending)     # not done: a request waits
            source: Callable[[Any], Hashable] | None = chooser if isinstance(req, Choose) else dice
            if source is None:
                raise NeedInput(req)
            answers.append(step.answer(source(req)))      # checked against the request by the stepper
        return Pending._from(self.rules, self.before, self.action, answers, step)

    def event(self) -> dict[str, Any]:
        if not self.done:
            raise VedetteError("the action is not complete")
        return make_event(self.rules, self.before, self.action, self.events)

    def to_json(self) -> dict[str, Any]:
        return {"action": self.rules.action_to_json(self.action),
                "answers": [e.to_json() for e in self.events if e.answers]}

    @classmethod
    def from_json(cls, rules: GameRules[S, A], state: S, data: Any) -> Pending[S, A]:
        if not isinstance(data, dict) or "action" not in data:
            raise RecordError("a pending action is an object with 'action' and 'answers'")
        p = Pending.start(rules, state, rules.action_from_json(data["action"]))
        answers = data.get("answers") or []
        if not isinstance(answers, list):
            raise RecordError("field 'answers': expected a list")
        for i, a in enumerate(answers):
            if p.done:
                raise RecordError(f"answer {i}: left over after the action ended")
            try:
                p = p.answer(a.get("value") if isinstance(a, dict) else a)
            except RuleViolation as exc:
                raise RecordError(f"answer {i}: {exc}") from None
        return p


# ------------------------------------------------------------------------------------------------
# A game being played
# ------------------------------------------------------------------------------------------------
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
        p = p.run(dice if dice is not None else EventDice(self.record.seed or 0, self.index), chooser or _first)
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


# ------------------------------------------------------------------------------------------------
# Bots and the game loop
# ------------------------------------------------------------------------------------------------
class Bot(Protocol):
    """A player the computer plays: picks an action among the legal ones and answers the choices asked
    inside procedures. Deterministic given the seed it was made with. A bot whose ``needs_legal`` is
    False is given ``legal=None`` by :func:`play_game` and finds its own candidates."""

    name: str

    def choose_action(self, rules: GameRules[Any, Any], state: Any, legal: list[Any] | None) -> Any: ...

    def choose(self, request: Choose, state: Any = None) -> Hashable: ...


#: the players of a game: one bot per side, in the order of ``rules.sides`` (names or bots), or by side
Bots = Sequence[str | Bot] | Mapping[str, str | Bot]


class RandomBot:
    """Picks uniformly among the legal actions (taking a pass/end-of-phase action with probability
    ``pass_rate`` when there is one, so games move on) and answers choices at random."""

    name = "random"

    def __init__(self, seed: int | None = None, pass_rate: float = 0.15) -> None:
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate

    def choose_action(self, rules: GameRules[Any, Any], state: Any, legal: list[Any] | None) -> Any:
        if legal is None:        # play_game lists them for every bot but those with needs_legal = False
            legal = rules.legal_actions(state)
        passes = [a for a in legal if rules.is_pass(a)]
        others = [a for a in legal if not rules.is_pass(a)]
        if passes and (not others or self.rng.random() < self.pass_rate):
            return passes[0]
        return self.rng.choice(others or legal)

    def choose(self, request: Choose, state: Any = None) -> Hashable:
        return self.rng.choice(request.options)


def _make_bots(rules: GameRules[Any, Any], bots: Bots, seed: int) -> dict[str, Bot]:
    items: list[tuple[str, str | Bot]]
    if isinstance(bots, Mapping):
        items = list(bots.items())
    else:
        names = list(bots)
        if len(names) != 2:
            raise VedetteError(f"--bots: expected two bots, one per side ({' and '.join(rules.sides)}), got {len(names)}")
        items = list(zip(rules.sides, names))
    out: dict[str, Bot] = {}
    factories = rules.bots()
    for i, (side, b) in enumerate(items):
        if isinstance(b, str):
            if b not in factories:
                raise VedetteError(f"unknown bot {b[:30]!r}: choose from {', '.join(factories)}")
            b = factories[b](seed=action_seed(seed, -1 - i))
        out[side] = b
    return out


_HEAP_LOCK = threading.Lock()


#: whether :func:`play_game` calls :func:`steady_heap` before each game. A process that serves pages turns it
#: off (dashboards.server.background): its live objects include the open sessions, whose cycles must
#: stay collectable when they close; studies, the CLI and benchmarks keep it on.
STEADY_HEAP = True


def steady_heap() -> None:
    """Put what is alive now out of the cyclic collector's sight before a game (one collection first, so no
    garbage is kept): the scenarios, tables, boards and the bounded module caches that games fill. Without
    it, Python's full collections walk all of them again and again in the middle of games, ever longer as
    the caches grow over a study (measured: about a sixth of a Fuentes game's CPU after ten games). Objects
    set aside this way are still freed as soon as nothing refers to them; only a cycle among them that is
    dropped later stays in memory (the values of a game, states and cached results, form none: after
    twelve Fuentes games in one process, gc.unfreeze() and a collection find nothing to free)."""
    with _HEAP_LOCK:
        gc.collect()
        gc.freeze()


def play_game(rules: GameRules[S, A], bots: Bots = ("greedy", "greedy"), scenario: str | None = None,
              options: Options = (), seed: int = 0, max_actions: int = MAX_ACTIONS,
              record: bool = True, on_action: Callable[[S, int], object] | None = None,
              on_move: Callable[[str, A], object] | None = None,
              tables: GameTables | None = None) -> tuple[S, GameRecord | None]:
    """Play a whole game, bot against bot (``bots``: one per side, in the order of ``rules.sides``, as
    names or :class:`Bot` objects). Returns the final state and its record. After each action,
    ``on_action(state, n)`` sees the new state and ``on_move(side, action)`` who played what. ``tables``:
    a player's printed values to play with (the record keeps them)."""
    rules = rules.with_tables(tables) if tables is not None else rules
    players = _make_bots(rules, bots, seed)
    state = rules.new_game(scenario or rules.default_scenario, options, seed)
    if STEADY_HEAP and gc.isenabled():
        steady_heap()
    rec = new_record(rules, state, seed, {"bots": {s: getattr(b, "name", str(b)) for s, b in players.items()}})
    events: list[dict[str, Any]] = []
    n = 0
    while n < max_actions:
        side = rules.to_act(state)
        if side is None:
            break
        bot = players[side]
        # a bot with ``needs_legal = False`` looks at the candidates it wants itself (what it picks is
        # checked by begin all the same): listing every legal move first is the costly part of a game
        legal = rules.legal_actions(state) if getattr(bot, "needs_legal", True) else None
        if legal is not None and not legal:
            raise VedetteError(f"{rules.system}: no legal action for {side} at {rules.position(state)}")
        a = bot.choose_action(rules, state, legal)
        p = rules.begin(state, a).run(EventDice(seed, n), partial(_bot_choose, players, bot, state))
        if record:
            events.append(p.event())
        state = cast(S, p.state)
        n += 1
        if on_action is not None:
            on_action(state, n)
        if on_move is not None:
            on_move(side, a)
    return state, (replace(rec, events=tuple(events)) if record else None)


def _bot_choose(players: Mapping[Any, Bot], bot: Bot, state: Any, req: Choose) -> Hashable:
    """A question inside a procedure goes to the bot of the side it names (a defender's retreat, a
    fired-on unit's choice), else to the acting side's bot."""
    return players.get(getattr(req, "player", None), bot).choose(req, state)


# ------------------------------------------------------------------------------------------------
# Registry and shared parsing
# ------------------------------------------------------------------------------------------------
_SYSTEMS: dict[str, Callable[[], GameRules[Any, Any]]] = {}


def register(system: str, factory: Callable[[], GameRules[Any, Any]]) -> None:
    """Make a system's rules available by name (the CLI, the play page and simulations look them up)."""
    _SYSTEMS[system] = factory


def systems() -> list[str]:
    """The registered systems' ids, sorted."""
    return sorted(_SYSTEMS)


def system_of(name: str) -> GameRules[Any, Any]:
    """The rules of the registered system ``name`` (``"n20"``, ``"lob"``, ``"tbf"``, ``"bc"`` once
    :mod:`engine.systems`, the table of the shipped systems, is imported)."""
    return factory_of(name)()


def factory_of(name: str) -> Callable[[], GameRules[Any, Any]]:
    """What makes the rules of the registered system ``name`` (a class, picklable by reference: a Dask
    worker that receives it imports that system alone)."""
    try:
        return _SYSTEMS[name]
    except KeyError:
        known = ", ".join(sorted(_SYSTEMS)) or "none registered: import engine.systems"
        raise VedetteError(f"unknown game system {str(name)[:20]!r}; one of {known}") from None


def parse_dice(text: str | None) -> list[int] | None:
    """``"3,5,1"`` -> ``[3, 5, 1]`` (the one dice parser of every CLI); each face is checked later
    against the request it answers."""
    if text is None:
        return None
    out = []
    for i, part in enumerate(p.strip() for p in str(text).split(",")):
        if not part:
            continue
        try:
            out.append(int(part))
        except ValueError:
            raise VedetteError(f"--dice: item {i + 1} is {part[:20]!r}, expected a whole number "
                               "(comma-separated die faces, e.g. 3,5,1)") from None
    return out
