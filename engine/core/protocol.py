"""The game protocol every system implements (:class:`GameRules`, issue 27.6: split from
:mod:`engine.core.game`, whose docstring says what a system supplies), the bot interface and :class:`RandomBot`, a record's first
state and an action under way (:class:`Pending`), the value :meth:`GameRules.begin` returns.

Imports :mod:`engine.core.game_values` only of the game layer; replay, the session, the game loop and the
registry import this module, never the reverse."""
from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Hashable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar, Generic, Protocol, cast

from .data import parse_json
from .errors import RecordError, RuleViolation, VedetteError
from .game_values import A, Chooser, Dice, Options, Outcome, Places, Position, S, first_option
from .metrics import metrics_label, metrics_value
from .procedure import ChanceRequest, Choose, Event, NeedInput, RandomDice, Request, Stepper
from .record import GameRecord
from .tables import ChartFile, GameTables

__all__ = ["GameRules", "Bot", "RandomBot", "Pending", "make_event", "initial_state", "check_setup"]


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

    def describe_step(self, state: S, request: Request) -> str:
        """One question of a probability tree (a die, a card, a choice, a sub-procedure) in a player's
        words, with the pieces as their counters name them; ``state`` is the position the action starts
        from. Default: the request's own label (a chance request says its die or deck too)."""
        return request.describe() if isinstance(request, ChanceRequest) else str(request.label)

    def describe_result(self, state: S, request: Request, value: Any) -> str:
        """What a sub-procedure of a probability tree came to (``request`` is the sub-procedure asked,
        ``value`` its result), in a player's words, e.g. "AR: the attacker is routed (9.6 [B])". A result
        that is a whole position is said by :meth:`odds_label` before this is asked. Default: the value's
        own ``in_words()`` when it has one, else :func:`engine.core.words.plain`."""
        from .words import result_words
        return result_words(value)

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
        p = p.run(dice if dice is not None else RandomDice(seed), chooser or first_option)
        return cast(S, p.state), p.event()

    def over(self, state: S) -> bool:
        return self.to_act(state) is None


def _action_error(what: str, field: str, expected: str) -> VedetteError:
    return VedetteError(f"{what}: expected {expected}")


class Bot(Protocol):
    """A player the computer plays: picks an action among the legal ones and answers the choices asked
    inside procedures. Deterministic given the seed it was made with. A bot whose ``needs_legal`` is
    False is given ``legal=None`` by :func:`play_game` and finds its own candidates."""

    name: str

    def choose_action(self, rules: GameRules[Any, Any], state: Any, legal: list[Any] | None) -> Any: ...

    def choose(self, request: Choose, state: Any = None) -> Hashable: ...


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


# ------------------------------------------------------------------------------------------------
# A record's first state
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# An action under way: a value
# ------------------------------------------------------------------------------------------------
def make_event(rules: GameRules[S, A], state: S, action: A, answers: Iterable[Event]) -> dict[str, Any]:
    """The record event of ``action`` made by the side to act, with every answer and note its procedure had."""
    return {"kind": "action", "rule": rules.rule_of(action), "side": rules.to_act(state),
            "action": rules.action_to_json(action), "answers": [e.to_json() for e in answers]}


#: the kinds of record answer that a chance request gives (the rest: a player's choice, or a note)
_CHANCE_KINDS = frozenset({"roll", "draw", "chance"})


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
