"""Rules procedures as generators, and the three drivers that answer them.

A *procedure* is a generator function. It yields *requests* and receives their answers:

* :class:`Roll` -- throw dice (``"d6"``, ``"d10"``, ``"2d6"``, ``"d3"``); the answer is the face (or sum);
* :class:`Draw` -- take one item uniformly from a pile (cards, cubes); the procedure keeps the pile;
* :class:`Chance` -- any other chance event with explicit exact probabilities;
* :class:`Choose` -- a player decision among hashable options;
* :class:`Sub` -- run a sub-procedure and receive its result (the enumerate driver memoises it by ``key``);
  :func:`chain` -- steps run one after another on a value (the enumerate driver goes step by step over the
  values reached, equal ones carried on once);
* :class:`Log` -- no question: a note (e.g. a modified die roll) for the game record and the tree.

When the generator returns, its return value is the procedure's *result* (hashable, so outcomes can be
counted). A procedure is handed to a driver as a zero-argument factory (``functools.partial``):

* **play** (:func:`play`, :class:`Stepper`): dice from a seeded RNG (:class:`RandomDice`) or typed in
  (:class:`TypedDice`, or :meth:`Stepper.answer` one at a time), choices from a policy or a person;
* **replay** (:func:`replay`): answers from recorded events, checking each matches its request;
* **enumerate** (:func:`enumerate_tree`, :func:`distribution`): every outcome of every chance request,
  weighted by its exact probability; choices resolved by a policy or kept as decision nodes.

So the odds tools, the trees and the game run the same rules code.
"""
from __future__ import annotations

from collections.abc import Callable, Generator, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from fractions import Fraction
from math import lcm
import random
from typing import Any, cast

from .dist import Dist, die
from .errors import LimitError, RecordError, RuleViolation, VedetteError
from .tree import Node, Tree
from .values import jsonable

__all__ = [
    "Request", "ChanceRequest", "Roll", "Draw", "Chance", "Choose", "Sub", "Log",
    "Event", "Played", "Stepper", "RandomDice", "TypedDice", "play", "replay",
    "enumerate_tree", "distribution", "Policy", "first_option", "NeedInput", "jsonable", "Chain", "chain",
]

Procedure = Callable[[], Generator[Any, Any, Any]]
Policy = Callable[["Choose"], Hashable]


# ------------------------------------------------------------------------------------------------
# Requests
# ------------------------------------------------------------------------------------------------
class Request:
    """Base of every request. ``rule`` is the rule number that makes it; ``label`` says what it is for."""

    __slots__ = ("rule", "label")
    kind = "request"
    _fields: tuple[str, ...] = ("rule", "label")

    def __init__(self, rule: str, label: str = ""):
        self.rule = rule
        self.label = label

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, f) for f in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__,) + tuple(repr(v) for v in self._key()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{type(self).__name__}({inner})"


class ChanceRequest(Request):
    """A request answered by chance; :meth:`outcomes` gives each possible answer with its exact probability."""

    __slots__ = ()

    def outcomes(self) -> tuple[tuple[Hashable, Fraction], ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def check(self, value: Hashable) -> Hashable:
        """Return ``value`` if it is a possible outcome, else raise :class:`RuleViolation`."""
        for v, _ in self.outcomes():
            if v == value or jsonable(v) == value:
                return v
        raise RuleViolation(self.rule, f"{value!r} is not a possible outcome of {self.describe()}")

    def describe(self) -> str:
        return self.label or self.kind


@lru_cache(maxsize=None)
def _die_outcomes(spec: str) -> tuple[tuple[int, Fraction], ...]:
    return cast("tuple[tuple[int, Fraction], ...]", tuple(die(spec).sorted_items(key=lambda v: v)))


class Roll(ChanceRequest):
    """Throw dice given as ``NdS`` (``"d6"``, ``"2d6"``, ``"d10"``, ``"d3"``).

    ``bands`` (optional) groups faces the procedure treats alike, e.g. ``((1, 2, 3), (4, 5, 6))`` for a
    hazard roll that breaks on 1-3. Play and replay still record the raw face; exact enumeration then
    follows one branch per band (with the band's total probability) instead of one per face, which keeps
    trees small and readable. The procedure promises that faces in one band lead to the same continuation.
    """

    __slots__ = ("die", "bands")
    kind = "roll"
    _fields = ("die", "rule", "label", "bands")

    def __init__(self, die: str, rule: str, label: str = "", bands: Iterable[Iterable[int]] | None = None):
        self.die = die
        self.rule = rule
        self.label = label
        self.bands = None if bands is None else tuple(tuple(b) for b in bands)

    def outcomes(self) -> tuple[tuple[int, Fraction], ...]:
        return _die_outcomes(self.die)

    def banded_outcomes(self) -> tuple[tuple[int, Fraction, str], ...]:
        """(representative face, probability, display) per band -- or per face without bands."""
        return _banded(self.die, self.bands, self.rule)

    def check(self, value: Any) -> int:
        try:
            face = int(value)
        except (TypeError, ValueError):
            raise RuleViolation(self.rule, f"a {self.die} roll must be a whole number, got {value!r}") from None
        if face not in die(self.die):
            faces = sorted(die(self.die))
            raise RuleViolation(self.rule, f"a {self.die} shows {faces[0]}..{faces[-1]}, got {face}")
        return face

    def describe(self) -> str:
        return f"{self.die} ({self.label})" if self.label else self.die


@lru_cache(maxsize=4096)
def _banded(spec: str, bands: tuple[tuple[int, ...], ...] | None, rule: str) -> tuple[tuple[int, Fraction, str], ...]:
    d = die(spec)
    if not bands:
        return tuple((v, p, str(v)) for v, p in _die_outcomes(spec))
    seen = [f for b in bands for f in b]
    if sorted(seen) != sorted(d) or len(set(seen)) != len(seen):
        raise ValueError(f"bands {bands} of rule {rule} do not cover each face of {spec} once")
    out: list[tuple[int, Fraction, str]] = []
    for b in bands:
        faces = sorted(b)
        if len(faces) == 1:
            shown = str(faces[0])
        elif faces == list(range(faces[0], faces[-1] + 1)):
            shown = f"{faces[0]}-{faces[-1]}"
        else:
            shown = ",".join(map(str, faces))
        out.append((faces[0], sum((d[f] for f in faces), Fraction(0)), shown))
    return tuple(out)


class Draw(ChanceRequest):
    """Take one item uniformly at random from ``cards`` (a tuple; repeats make a multiset)."""

    __slots__ = ("cards",)
    kind = "draw"
    _fields = ("cards", "rule", "label")

    def __init__(self, cards: Iterable[Hashable], rule: str, label: str = ""):
        self.cards = tuple(cards)
        self.rule = rule
        self.label = label
        if not self.cards:
            raise RuleViolation(rule, f"cannot draw from an empty pile ({label or 'draw'})")

    def outcomes(self) -> tuple[tuple[Hashable, Fraction], ...]:
        cards = self.cards
        return _draw_outcomes(cards, tuple(map(type, cards)))

    def check(self, value: Hashable) -> Hashable:
        # ChanceRequest.check without the probabilities: the cards in the order of outcomes() (first
        # appearance), the first that matches
        for v in self.cards:
            if v == value or jsonable(v) == value:
                return v
        raise RuleViolation(self.rule, f"{value!r} is not a possible outcome of {self.describe()}")


@lru_cache(maxsize=1024)
def _draw_outcomes(cards: tuple[Hashable, ...], types: tuple[type, ...]) -> tuple[tuple[Hashable, Fraction], ...]:
    # each distinct card with its share of the pile, keyed by the pile (a tuple of hashable cards) and the
    # cards' types (a pile of 1s is not a pile of Trues, although the tuples are equal)
    counts: dict[Hashable, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    n = len(cards)
    return tuple((c, Fraction(k, n)) for c, k in counts.items())


class Chance(ChanceRequest):
    """A chance event with explicit outcomes: ``((value, probability), ...)`` summing to 1."""

    __slots__ = ("options",)
    kind = "chance"
    _fields = ("options", "rule", "label")

    def __init__(self, outcomes: Iterable[tuple[Hashable, Fraction]], rule: str, label: str = ""):
        opts = tuple((v, Fraction(p)) for v, p in outcomes if Fraction(p))
        if sum((p for _, p in opts), Fraction(0)) != 1:
            raise ValueError(f"chance outcomes for {rule} do not sum to 1")
        self.options = opts
        self.rule = rule
        self.label = label

    def outcomes(self) -> tuple[tuple[Hashable, Fraction], ...]:
        return self.options


class Choose(Request):
    """A player decision among ``options`` (hashable values). ``player`` names who decides.

    ``context`` carries whatever a policy needs to decide (hashable, optional).
    """

    __slots__ = ("options", "player", "context")
    kind = "choose"
    _fields = ("options", "rule", "player", "label", "context")

    def __init__(self, options: Iterable[Hashable], rule: str, player: str = "", label: str = "",
                 context: Any = None):
        self.options = tuple(options)
        self.rule = rule
        self.player = player
        self.label = label
        self.context = context
        if not self.options:
            raise RuleViolation(rule, f"no legal option for {label or 'this choice'}")

    def check(self, value: Hashable) -> Hashable:
        jv = _UNSET                         # a recorded answer (JSON) in JSON form, made once when needed
        for o in self.options:
            if o == value:
                return o
            if jv is _UNSET:
                jv = jsonable(value)
            if jsonable(o) == jv:
                return o
        raise RuleViolation(self.rule, f"{value!r} is not one of the options for {self.label or 'this choice'}: "
                                       f"{[jsonable(o) for o in self.options]}")


_UNSET = object()


class Sub(Request):
    """Run the sub-procedure ``proc`` (a factory) and receive its result.

    ``key`` must identify the sub-procedure's situation completely: the enumerate driver computes
    its result distribution once per key and reuses it.

    ``inline=True`` marks a step of the caller's own procedure that is a sub-procedure only so that its
    outcomes are shared: play and replay record its events at the caller's depth (a record is the same
    whether or not the step is one).

    ``own_choices=True`` (with ``inline``) says its questions are the caller's own too: an enumeration that
    keeps the caller's decisions as branches (``keep_decisions``, :func:`engine.core.odds.solve`) or builds
    the tree runs it in place, so its choices are kept and its dice drawn as the caller's would be; one
    that keeps the leaves only, choices answered by a policy, memoises it as any sub-procedure (the same
    policy answers them there).
    """

    __slots__ = ("key", "proc", "inline", "own_choices")
    kind = "sub"
    _fields = ("key", "rule", "label")

    def __init__(self, key: Hashable, proc: Procedure, rule: str, label: str = "", inline: bool = False,
                 own_choices: bool = False):
        self.key = key
        self.proc = proc
        self.rule = rule
        self.label = label
        self.inline = inline
        self.own_choices = own_choices

    def wrapped(self, wrap: Callable[[Procedure], Procedure]) -> "Sub":
        """The same request (key, rule, label and flags) with its procedure wrapped by ``wrap`` (a driver
        that counts or relays the requests of every sub-procedure)."""
        return Sub(self.key, wrap(self.proc), self.rule, self.label, self.inline, self.own_choices)


Step = Callable[[Any], Generator[Any, Any, Any]]


class Chain(Sub):
    """Steps run one after another from ``start``: each step a function of the value so far returning the
    procedure that makes the next value; the result is the last step's. Made by :func:`chain`.

    Its procedure (``proc``) runs the steps in place, so play and replay ask what the caller would ask
    written as ``for step in steps: value = yield from step(value)``, and record the same (it is inline).
    Its questions are the caller's own: an enumeration that keeps decisions or builds the tree runs it in
    place. The enumerate driver for the leaves only (choices answered by a policy) goes step by step over
    the distribution of values reached: each distinct value is carried on once with the chances of every
    way that reaches it, each step from a value memoised by ``(name, i, value)``.

    ``horizon`` (a player's words, e.g. "the end of the turn") marks steps that follow the action rather
    than make it: an enumeration asked to stop there (:func:`enumerate_tree`'s ``horizon``) takes
    ``start`` as their result without running them."""

    __slots__ = ("name", "start", "steps", "horizon")

    def __init__(self, name: Hashable, start: Hashable, steps: Sequence[Step], rule: str, label: str = "",
                 horizon: str = ""):
        self.name = name                # what the steps are (the memo key is this with the start)
        self.start = start
        self.steps = tuple(steps)
        self.horizon = horizon
        super().__init__(("chain", name, start), partial(_steps_in_turn, start, self.steps), rule, label,
                         inline=True, own_choices=True)

    def wrapped(self, wrap: Callable[[Procedure], Procedure]) -> "Chain":
        return Chain(self.name, self.start, tuple(partial(_wrapped_step, wrap, step) for step in self.steps),
                     self.rule, self.label, self.horizon)

    def step(self, i: int, value: Hashable) -> Sub:
        """Step ``i`` from ``value`` as a sub-procedure of its own."""
        return Sub(("chain step", self.name, i, value), partial(self.steps[i], value), self.rule, self.label,
                   inline=True, own_choices=True)


def _steps_in_turn(value: Any, steps: tuple[Step, ...]) -> Generator[Any, Any, Any]:
    for step in steps:
        value = yield from step(value)
    return value


def _wrapped_step(wrap: Callable[[Procedure], Procedure], step: Step, value: Any) -> Generator[Any, Any, Any]:
    return wrap(partial(step, value))()


def chain(key: Hashable, value: Hashable, steps: Sequence[Step], rule: str, label: str = "",
          horizon: str = "") -> Chain:
    """``steps`` run one after another from ``value`` as one step of the caller (a :class:`Chain`): the
    request's result is the last step's value.

    Play and replay run them in place (the same requests in the same order, the same record as ``for step
    in steps: value = yield from step(value)``). The exact odds merge the ways that reach equal values
    between two steps: what follows is worked out once for each distinct value reached, weighed by the
    chances of all the ways that reach it, instead of once per way (a turn's end after a melee, once per
    position the melee can leave rather than once per die face that leaves it).

    ``key``, with each value, must identify what the steps do completely (the memo keys are ``("chain",
    key, value)`` and ``("chain step", key, i, value)``); values must be hashable and compare by what
    they hold.

    ``horizon``: what the steps are in a player's words when they follow the action rather than make it (a
    turn's end): odds too big to work out whole may stop before them (:class:`Chain`)."""
    return Chain(key, value, steps, rule, label, horizon)


class Log(Request):
    """A note, not a question: the driver records it (raw and modified rolls, what happened)."""

    __slots__ = ("text", "data")
    kind = "log"
    _fields = ("rule", "text", "data")

    def __init__(self, rule: str, text: str, data: Any = None):
        self.rule = rule
        self.label = text
        self.text = text
        self.data = data


def first_option(request: Choose) -> Hashable:
    """The simplest policy: take the first listed option (procedures list the rule's preferred one first)."""
    return request.options[0]


# ------------------------------------------------------------------------------------------------
# Events (what play records and replay reads)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Event:
    """One answered request (or a note). ``value`` is the answer: the raw die face, the card, the option."""

    kind: str
    rule: str
    label: str
    value: Any = None
    detail: Any = None  # extra data: the die spec, a note's data (e.g. the modified roll)
    depth: int = 0      # nesting level of sub-procedures, for display

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "rule": self.rule, "label": self.label, "value": jsonable(self.value)}
        if self.detail is not None:
            d["detail"] = jsonable(self.detail)
        if self.depth:
            d["depth"] = self.depth
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Event":
        try:
            return cls(kind=d["kind"], rule=d["rule"], label=d.get("label", ""), value=d.get("value"),
                       detail=d.get("detail"), depth=d.get("depth", 0))
        except (KeyError, TypeError) as exc:
            raise RecordError(f"malformed event {d!r}: needs kind, rule, value ({exc})") from None

    @property
    def answers(self) -> bool:
        """True for events that answered a question (not notes)."""
        return self.kind in ("roll", "draw", "chance", "choose")


_EVENT_FIELDS = tuple(Event.__dataclass_fields__)
_new_object = object.__new__


def _event(kind: str, rule: str, label: str, value: Any, detail: Any, depth: int) -> Event:
    """``Event(kind, rule, label, value, detail, depth)`` for the stepper's own events (every field given,
    from the request answered), its fields set at once rather than one by one (Event has no __post_init__)."""
    new = _new_object(Event)
    new.__dict__.update(zip(_EVENT_FIELDS, (kind, rule, label, value, detail, depth)))
    return new


@dataclass(frozen=True)
class Played:
    result: Any
    events: tuple[Event, ...]


class NeedInput(VedetteError):
    """Typed-in dice ran out: the driver needs the next answer for ``request``."""

    def __init__(self, request: Request):
        self.request = request
        super().__init__(f"[rule {request.rule}] waiting for {request.kind}: {getattr(request, 'describe', lambda: request.label)()}")


# ------------------------------------------------------------------------------------------------
# Answer sources for play
# ------------------------------------------------------------------------------------------------
class RandomDice:
    """Answers chance requests from a seeded RNG with the requests' exact probabilities.

    The generator is made (and seeded) at the first request: most actions of a game ask for no die, and
    seeding costs more than the action's own bookkeeping. The dice are the same as if it were made at once."""

    def __init__(self, seed: int | None = None):
        self._seed = seed
        self._rng: random.Random | None = None

    def _seed_value(self) -> int | None:
        return self._seed

    @property
    def rng(self) -> random.Random:
        r = self._rng
        if r is None:
            r = self._rng = random.Random(self._seed_value())
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value

    def __call__(self, request: ChanceRequest) -> Hashable:
        outs = request.outcomes()
        d = lcm(*(p.denominator for _, p in outs))
        r = (self._rng or self.rng).randrange(d)
        acc = 0
        for v, p in outs:
            acc += p.numerator * (d // p.denominator)
            if r < acc:
                return v
        return outs[-1][0]  # pragma: no cover - probabilities sum to 1


class TypedDice:
    """Answers chance requests from values typed in by a player, in order (validated against each request)."""

    def __init__(self, values: Iterable[Hashable]):
        self.values = list(values)
        self.used = 0

    def __call__(self, request: ChanceRequest) -> Hashable:
        if self.used >= len(self.values):
            raise NeedInput(request)
        v = self.values[self.used]
        self.used += 1
        return v


# ------------------------------------------------------------------------------------------------
# The stepping machine behind play and replay
# ------------------------------------------------------------------------------------------------
class Stepper:
    """Runs a procedure one question at a time, for interactive play (typed dice, choices from a UI).

    ``pending`` is the request waiting for an answer (None when done); :meth:`answer` validates the
    answer against it (a wrong die face raises :class:`RuleViolation` and changes nothing).
    Sub-procedures run inline; notes are recorded as events.
    """

    def __init__(self, factory: Procedure):
        self._stack: list[Generator[Any, Any, Any]] = [factory()]
        self._flat = [False]             # per stack entry: an inline sub-procedure (records no extra depth)
        self._inline = 0                 # how many entries of the stack are inline (sum of _flat)
        self.events: list[Event] = []
        self.pending: ChanceRequest | Choose | None = None
        self.done = False
        self.result: Any = None
        self._advance(None, first=True)

    def _advance(self, value: Any, first: bool = False) -> None:
        send = value
        stack = self._stack              # the same list throughout (entries pushed and popped in place)
        while True:
            gen = stack[-1]
            try:
                req = next(gen) if first else gen.send(send)
                first = False
            except StopIteration as stop:
                first = False
                stack.pop()
                self._inline -= self._flat.pop()
                if not stack:
                    self.done, self.result, self.pending = True, stop.value, None
                    return
                send = stop.value
                continue
            if isinstance(req, Log):
                self.events.append(_event("log", req.rule, req.text, None, req.data,
                                          len(stack) - 1 - self._inline))      # _depth()
                send = None
                continue
            if isinstance(req, Sub):
                stack.append(req.proc())
                flat = bool(getattr(req, "inline", False))
                self._flat.append(flat)
                self._inline += flat
                first = True
                continue
            if not isinstance(req, (ChanceRequest, Choose)):
                raise TypeError(f"a procedure yielded {req!r}, which is not a request")
            self.pending = req
            return

    def _depth(self) -> int:
        return len(self._stack) - 1 - self._inline

    def answer(self, value: Any) -> Any:
        """Answer the pending request (validated); the procedure runs on to the next question. Returns the
        answer as the request took it (e.g. a die face typed as text, as a number)."""
        req = self.pending
        if req is None:
            raise VedetteError("the procedure is finished; nothing to answer")
        value = req.check(value)
        detail = {"die": req.die} if isinstance(req, Roll) else None
        self.events.append(_event(req.kind, req.rule, req.label, value, detail, len(self._stack) - 1 - self._inline))
        self.pending = None
        self._advance(value)
        return value

    def run(self, dice: Callable[[ChanceRequest], Hashable] | None, chooser: Policy | None) -> Played:
        """Answer everything from ``dice`` and ``chooser`` until the procedure returns."""
        while not self.done:
            req = self.pending
            if isinstance(req, Choose):
                if chooser is None:
                    raise NeedInput(req)
                self.answer(chooser(req))
            else:
                chance = cast(ChanceRequest, req)     # not done: a request waits
                if dice is None:
                    raise NeedInput(chance)
                self.answer(dice(chance))
        return Played(self.result, tuple(self.events))


def play(factory: Procedure, dice: Callable[[ChanceRequest], Hashable] | None = None,
         chooser: Policy | None = first_option, seed: int | None = None) -> Played:
    """Play a procedure through: dice from ``dice`` (default a :class:`RandomDice` with ``seed``)."""
    if dice is None:
        dice = RandomDice(seed)
    return Stepper(factory).run(dice, chooser)


def replay(factory: Procedure, events: Sequence[Event | dict[str, Any]]) -> Played:
    """Re-run a procedure with the answers recorded in ``events`` (notes are regenerated, not read).

    Raises :class:`RecordError` naming the event index when a recorded answer does not fit its request.
    """
    answers = [(i, e if isinstance(e, Event) else Event.from_json(e)) for i, e in enumerate(events)]
    answers = [(i, e) for i, e in answers if e.answers]
    step = Stepper(factory)
    k = 0
    while not step.done:
        req = cast(Request, step.pending)         # not done: a request waits
        if k >= len(answers):
            raise RecordError(f"the record ends while rule {req.rule} still waits for a {req.kind}")
        i, ev = answers[k]
        if ev.kind != req.kind or ev.rule != req.rule:
            raise RecordError(f"recorded {ev.kind} for rule {ev.rule}, but the procedure asks for a "
                              f"{req.kind} for rule {req.rule}", index=i)
        try:
            step.answer(ev.value)
        except RuleViolation as exc:
            raise RecordError(str(exc), index=i) from None
        k += 1
    if k != len(answers):
        raise RecordError(f"{len(answers) - k} recorded answer(s) left over after the procedure ended",
                          index=answers[k][0])
    return Played(step.result, tuple(step.events))


# ------------------------------------------------------------------------------------------------
# Exact enumeration
# ------------------------------------------------------------------------------------------------
_START = object()


def _advance(gen: Generator[Any, Any, Any], value: Any) -> tuple[Request | None, Any, list[Log]]:
    """Send ``value`` (or start, with ``_START``) and run to the next question; notes are collected."""
    notes: list[Log] = []
    try:
        req = next(gen) if value is _START else gen.send(value)
        while isinstance(req, Log):
            notes.append(req)
            req = gen.send(None)
    except StopIteration as stop:
        return None, stop.value, notes
    return req, None, notes


def _replay_prefix(factory: Procedure, prefix: Sequence[Any]) -> tuple[Generator[Any, Any, Any], Request | None, Any, list[Log]]:
    """A fresh generator run through a fixed prefix of answers (generators cannot be copied).

    Sub-procedures are *not* entered: their answers are their results, as the enumerator handles
    them through their memoised distributions. Returns the live generator and what comes next.
    """
    gen = factory()
    req, result, notes = _advance(gen, _START)
    for value in prefix:
        req, result, notes = _advance(gen, value)
    return gen, req, result, notes


def _own_steps_in_place(factory: Procedure, stop_at_horizon: bool = False) -> Generator[Any, Any, Any]:
    """``factory()``'s requests, each sub-procedure whose choices are its own (``Sub.own_choices``) run in
    place, at any depth: its questions are asked as the caller's own. With ``stop_at_horizon`` a chain
    marked with a horizon is asked as it is (the driver does not run it)."""
    return _in_place(factory(), stop_at_horizon)


def _at_horizon(req: Request) -> bool:
    return isinstance(req, Chain) and bool(req.horizon)


def _in_place(gen: Generator[Any, Any, Any], stop_at_horizon: bool = False) -> Generator[Any, Any, Any]:
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub) and req.own_choices and not (stop_at_horizon and _at_horizon(req)):
                answer = yield from _in_place(req.proc(), stop_at_horizon)
            else:
                answer = yield req
            req = gen.send(answer)
    except StopIteration as stop:
        return stop.value


def distribution(factory: Procedure, policy: Policy | None = first_option,
                 memo: dict[Any, Any] | None = None) -> Dist:
    """Exact distribution of the procedure's result (choices by ``policy``)."""
    return enumerate_tree(factory, policy=policy, memo=memo, build=False).distribution()


def enumerate_tree(factory: Procedure, policy: Policy | None = first_option, keep_decisions: bool = False,
                   memo: dict[Any, Any] | None = None, build: bool = True,
                   horizon: dict[Chain, None] | None = None, max_leaves: int | None = None) -> Tree:
    """Enumerate every branch of the procedure exactly and return its probability :class:`~engine.core.tree.Tree`.

    ``policy`` answers :class:`Choose` requests; with ``keep_decisions=True`` (or ``policy=None``) every
    option becomes a branch of a decision node instead (the tree then has no single distribution).
    ``memo`` (a dict) caches sub-procedure distributions by key and may be shared between calls.
    With ``build=False`` only the leaves are kept (faster, for :func:`distribution`): a :class:`Chain` is
    then worked out step by step over the distribution of the values reached. With the tree built or the
    decisions kept, a step whose questions are the caller's own (``Sub.own_choices``, every chain) runs in
    place: its dice and questions are nodes of the caller's tree, as if written out there.

    ``horizon`` (a dict used as an ordered set): stop before what follows the action. A chain marked with a
    horizon (:func:`chain`) is not run: its start is its result (a sub-procedure node with that one
    outcome), and the chain is added to the dict (the distinct ones met, in the order met). The results
    then differ from the whole procedure's: never share a ``memo`` between enumerations with and without
    it. ``max_leaves``: raise :class:`~engine.core.errors.LimitError` as soon as the procedure's own
    distinct results pass this many, or the values a chain it asks carries from one step to the next, or
    the results of one of those steps (the results of its other sub-procedures are not counted).
    """
    memo = {} if memo is None else memo
    decide = None if keep_decisions else policy
    if decide is None or build:
        # decisions kept: the caller's own steps' questions with them; a tree built: drawn as the caller's
        # own steps, the dice where they are thrown (the merging of a chain is for the leaves only)
        factory = partial(_own_steps_in_place, factory, horizon is not None)
    leaves: dict[Hashable, Fraction] = {}
    has_decisions = False

    def sub_dist(req: Sub, cap: int | None = None) -> tuple[Dist, Any]:
        # ``cap``: a chain's step, whose results alone may not pass ``max_leaves`` either
        hit = memo.get(req.key)
        if hit is None:
            if isinstance(req, Chain) and not build and policy is not None:
                hit = (chain_dist(req), None)
            else:
                t = enumerate_tree(req.proc, policy=policy, keep_decisions=False, memo=memo, build=build,
                                   horizon=horizon, max_leaves=cap)
                hit = (t.distribution(), t if build else None)
            memo[req.key] = hit
        return hit

    def chain_dist(req: Chain) -> Dist:
        # step by step over the values reached: equal values met by different ways go on once, together
        now: dict[Hashable, Fraction] = {req.start: Fraction(1)}
        for i in range(len(req.steps)):
            nxt: dict[Hashable, Fraction] = {}
            for value, p in now.items():
                for out, q in sub_dist(req.step(i, value), max_leaves)[0].items():
                    nxt[out] = nxt.get(out, Fraction(0)) + p * q
                if max_leaves is not None and len(nxt) > max_leaves:
                    raise LimitError("values between the steps of a chain", max_leaves, len(nxt))
            now = nxt
        return Dist(now)

    def explore(prefix: list[Any], node: Node | None, path_p: Fraction,
                live: tuple[Any, Request | None, Any, list[Log]] | None = None) -> None:
        # ``live`` = (generator, request, result, notes) already positioned after ``prefix``: the first
        # child continues it, the others replay the prefix from the start.
        nonlocal has_decisions
        gen, req, result, notes = live if live is not None else _replay_prefix(factory, prefix)
        if node is not None and notes:
            node.notes.extend((n.rule, n.text) for n in notes)
        if req is None:
            if node is not None:
                node.result = result
            leaves[result] = leaves.get(result, Fraction(0)) + path_p
            if max_leaves is not None and len(leaves) > max_leaves:
                raise LimitError("distinct results", max_leaves, len(leaves))
            return
        if isinstance(req, Choose):
            if decide is not None:
                value = decide(req)
                explore(prefix + [value], node, path_p, (gen, *_advance(gen, value)))
                return
            has_decisions = True
            kids: list[tuple[Any, Fraction | None]] = [(o, None) for o in req.options]
        elif isinstance(req, Sub):
            if horizon is not None and _at_horizon(req):
                horizon[cast(Chain, req)] = None  # stopped before: the value it starts from is its result
                dist, subtree = Dist({cast(Chain, req).start: Fraction(1)}), None
                if node is not None:
                    node.notes.append((req.rule, f"{cast(Chain, req).horizon} is not worked out: the odds stop here"))
            else:
                dist, subtree = sub_dist(req)
            kids = list(dist.sorted_items())
        elif isinstance(req, Roll) and req.bands:
            kids = [(face, p) for face, p, _ in req.banded_outcomes()]
            shown = {face: text for face, _, text in req.banded_outcomes()}
        else:
            kids = list(cast(ChanceRequest, req).outcomes())
        if node is not None:
            node.request = req
            node.kind = req.kind
            node.rule = req.rule
            node.label = req.describe() if isinstance(req, ChanceRequest) else req.label
            if isinstance(req, Sub):
                node.subtree = subtree
        for i, (value, p) in enumerate(kids):
            child = None
            if node is not None:
                child = Node(outcome=value, probability=p, path_probability=(path_p * p) if p is not None else None)
                if isinstance(req, Roll) and req.bands:
                    child.outcome_text = shown[value]
                node.children.append(child)
            nxt = (gen, *_advance(gen, value)) if i == 0 else None
            explore(prefix + [value], child, path_p * p if p is not None else path_p, nxt)

    root = Node(outcome=None, probability=Fraction(1), path_probability=Fraction(1)) if build else None
    try:
        explore([], root, Fraction(1))
    finally:
        # the three functions above refer to one another (and ``explore`` to itself) through their closures: a
        # cycle that would keep this enumeration's working data alive until Python's cyclic garbage collector
        # runs, whose full passes over a server's caches cost more than many enumerations; unbound, it is
        # freed at once
        explore = sub_dist = chain_dist = None  # type: ignore[assignment]
    return Tree(root=root, leaves=None if has_decisions else Dist(leaves))
