"""Exact odds of one declared action, written once over the game protocol, and the odds-aware bot.

:func:`action_odds` runs the action's own rules procedure (``rules.perform(state, action)``) through the
exact enumeration driver of :mod:`engine.core.procedure` -- no rule is read again here -- and groups
the positions it can lead to by the system's :meth:`~engine.core.game.GameRules.odds_label` (a
defender routing 2 hexes, an attacker losing a hit ...), with the expected change of every
:meth:`~engine.core.game.GameRules.metrics` figure. Choices inside the procedure (a retreat path, an
advance, a pursuit) are answered by a named policy: the first listed option (each procedure lists the
rule's default first), a bot's answers, or -- in :func:`solve` -- the best option for whoever decides.

:class:`OddsBot` plays any system on the protocol: it weighs every legal attack by the expected change
of its own :meth:`~engine.core.game.GameRules.evaluate`, makes the best one when that is positive, and
otherwise plays as the system's greedy bot would without attacking. The policy is set out in
``docs/bots.md``.

Enumerations are bounded: past ``max_steps`` enumeration steps (requests met, replays included) or
``max_outcomes`` end positions the answer is a :class:`~engine.core.errors.LimitError` naming the bound
and how far the enumeration got (the branches it had run to the end, and their share of the chances),
never a stalled process. The play page's quick path over these (a cache by position and action, small
data, the tree on a second call) is :mod:`engine.core.quick_odds`.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any

from .dist import Dist, prob_json
from .errors import LimitError, VedetteError
from .procedure import Chain, ChanceRequest, Choose, Policy, Procedure, Roll, Sub, enumerate_tree, first_option
from .tree import Node, Tree
from .metrics import metrics_label, metrics_value

if TYPE_CHECKING:
    from .game import Bot, GameRules

__all__ = ["OddsLine", "ActionOdds", "OddsCancelled", "OddsLimitError", "bound_words", "action_odds", "solve", "OddsBot", "OddsCache",
           "compact_position", "metrics_label", "metrics_value", "MAX_STEPS", "MAX_OUTCOMES", "PROJECTION_MARGIN",
           "enumerate_action", "enumerate_odds", "Horizon", "choice_policy", "summarise", "unkey"]

#: the most requests one enumeration may meet, over every branch it replays (the driver runs a branch
#: again from the start for each sibling answer, so this bounds the work, about 50 us a request)
MAX_STEPS = 400_000
#: the most distinct end positions one action's odds may have
MAX_OUTCOMES = 4000
#: how far past a bound the whole of an action and what follows it (a chain marked with a horizon) must be
#: projected before the odds stop before what follows without working it out (:func:`enumerate_odds`):
#: the projection is from the first chains worked out, which may be larger or smaller than the rest
PROJECTION_MARGIN = 2


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------
class OddsCancelled(VedetteError):
    """An enumeration stopped because whoever asked no longer wants the answer (the page moved on)."""


class OddsLimitError(LimitError):
    """An action's odds past a bound (:class:`~engine.core.errors.LimitError`, the bound named), with how
    far the enumeration got: ``steps`` made, ``ends`` (the branches run to the end) and ``mass`` (their
    chance, as a float)."""

    def __init__(self, what: str, limit: int, got: object = None, why: str = "", *, steps: int = 0,
                 ends: int = 0, mass: float = 0.0) -> None:
        super().__init__(what, limit, got, why=why)
        self.why = why
        self.steps, self.ends, self.mass = steps, ends, mass


def bound_words(exc: OddsLimitError) -> str:
    """Why an action's odds are not shown, in a player's words (the page): the bound passed and how far the
    enumeration got, without the action's notation or the labels of its inner steps (which name pieces by
    their ids)."""
    kind = str(exc.what).rsplit(": ", 1)[-1]
    if kind == "enumeration steps":
        done = _branches(exc.ends, exc.mass, "the end", "the") if exc.ends else "no branch to the end yet"
        return (f"working them out would take more than {exc.limit:,} enumeration steps, the bound here (it had "
                f"run {done} when it stopped)")
    if isinstance(exc.got, int):
        return f"they have {exc.got:,} different end positions, more than the bound here ({exc.limit:,})"
    return f"they have more than {exc.limit:,} different end positions, the bound here: worked out no further"


@dataclass(frozen=True)
class OddsLine:
    """One outcome of an action: in a player's words, its exact probability, the rule that decides it."""

    label: str
    probability: Fraction
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "probability": prob_json(self.probability), "rule": self.rule}


@dataclass(frozen=True)
class ActionOdds:
    """The exact odds of one action: its outcomes (most likely first) and the expected change of each
    metric; ``note`` says how choices inside it were answered; ``until``, when not empty, says where the
    odds stop short of the whole consequence and why (:class:`Horizon`)."""

    action: str
    rule: str
    outcomes: tuple[OddsLine, ...]
    expected: tuple[tuple[str, Fraction | float], ...]
    note: str = ""
    until: str = ""

    @property
    def total(self) -> Fraction:
        return sum((o.probability for o in self.outcomes), Fraction(0))

    def prob(self, label: str) -> Fraction:
        """The probability of the outcome labelled ``label`` (0 when it cannot happen)."""
        return sum((o.probability for o in self.outcomes if o.label == label), Fraction(0))

    def expect(self, metric: str) -> Fraction | float:
        return dict(self.expected).get(metric, Fraction(0))

    def to_json(self) -> dict[str, Any]:
        def num(v: Fraction | float) -> dict[str, Any]:
            if isinstance(v, Fraction):
                return {"fraction": f"{v.numerator}/{v.denominator}", "float": float(v)}
            return {"float": float(v)}
        return {"action": self.action, "rule": self.rule, "outcomes": [o.to_json() for o in self.outcomes],
                "expected": {k: num(v) for k, v in self.expected}, "note": self.note,
                **({"until": self.until} if self.until else {}),
                "total_probability": prob_json(self.total)}


def compact_position(rules: GameRules[Any, Any], state: Any) -> Any:
    """The position to work exact odds from with everything known: the system's optional
    ``rules.odds_state(state)`` hook -- the same fractions as ``state`` itself with fewer branches, e.g.
    Battle Commander's piles as card summaries (21.0, 23.2-23.3) -- or ``state`` where it has none. The
    play page's quick odds (:func:`engine.core.quick_odds.odds_position`, the whole position) and the odds
    bot both start from it."""
    compact = getattr(rules, "odds_state", None)
    return compact(state) if compact is not None else state


# ------------------------------------------------------------------------------------------------
# Bounded enumeration of an action's procedure
# ------------------------------------------------------------------------------------------------
class _Budget:
    """Counts the requests the procedure yields, over every branch the driver replays (the work an
    enumeration does), and stops past the bound. A step of the caller's own (``Sub.own_choices``, a
    :func:`~engine.core.procedure.chain`'s) is not counted itself: its requests are. With ``track`` it also follows how far the enumeration
    got (the branches it ran to the end and their chance), for the message of the bound."""

    def __init__(self, limit: int, what: str, track: bool = False, stop: Callable[[], bool] | None = None) -> None:
        self.limit, self.what, self.used, self.leaves = limit, what, 0, 0
        self.track = track
        self.stop = stop                # asked every 256 steps: True stops the enumeration (cancelled)
        #: the driver's memo of sub-procedure results (their chances): key -> (distribution, tree)
        self.memo: dict[Hashable, tuple[Dist, Any]] | None = None
        self.ends = 0                   # branches run to the end (tracked only)
        self.mass = 0.0                 # their chance (tracked only)
        #: sub-procedure key -> [its request, branches run to its end, their chance] (tracked only)
        self.subs: dict[Hashable, list[Any]] = {}
        #: the steps at which :meth:`tick` looks again (the bound, or sooner while a horizon is projected)
        self.cap = limit
        #: projecting the whole from a shorter enumeration (:meth:`project`): (chains marked with a
        #: horizon it will meet, steps and end positions of the enumeration stopped before them, the bound
        #: of end positions)
        self.horizon: tuple[int, int, int, int] | None = None
        self.h_start: int | None = None                # steps when the horizon chain being worked out began
        self.h_done: list[tuple[int, int]] = []        # (steps, end positions) of each one worked out

    def tick(self) -> None:
        self.used += 1
        if self.used > self.cap:
            if self.used > self.limit:
                raise self.past(f"odds of {self.what}: enumeration steps", self.limit)
            raise self.projected_past()
        if self.stop is not None and not self.used & 255 and self.stop():
            raise OddsCancelled(f"odds of {self.what}: cancelled")

    # --- projecting the work of what follows a horizon ------------------------------------------------
    def project(self, chains: int, before: int, ends: int, max_outcomes: int,
                done: tuple[tuple[int, int], ...] = ()) -> None:
        """Work the whole out only while it is projected to fit: it will meet ``chains`` distinct chains
        marked with a horizon, and the enumeration stopped before them took ``before`` steps and had
        ``ends`` end positions (each of which the chain it stopped before multiplies). The chains worked
        out so far stand for the rest: ``before`` + ``chains`` x their mean steps, or ``ends`` x their mean
        number of results, past :data:`PROJECTION_MARGIN` times the bound, it stops (:meth:`projected_past`);
        the bound itself, reached, stops it as always. ``done``: (steps, results) of chains already worked
        out (and kept in the memo: they are not met as new)."""
        self.horizon = (chains, before, ends, max_outcomes)
        self.h_done = list(done)

    def horizon_entered(self, req: Sub) -> bool:
        """Before ``req`` is answered: a chain marked with a horizon, not worked out yet, begins (True)."""
        if (self.horizon is None or self.h_start is not None or not isinstance(req, Chain) or not req.horizon
                or self.memo is None or req.key in self.memo):
            return False
        chains, before, _, _ = self.horizon
        done = len(self.h_done)
        self.h_start = self.used
        # steps this one may take before the mean of those worked out passes its share of the projection
        share = (PROJECTION_MARGIN * self.limit - before) * (done + 1) // chains - sum(h for h, _ in self.h_done)
        self.cap = min(self.limit, self.used + max(share, 0))
        return True

    def horizon_left(self, req: Sub) -> None:
        """After the chain :meth:`horizon_entered` began is worked out: its figures kept, the projection checked."""
        assert self.horizon is not None and self.h_start is not None and self.memo is not None
        _, _, ends, max_outcomes = self.horizon
        self.h_done.append((self.used - self.h_start, len(self.memo[req.key][0])))
        self.h_start, self.cap = None, self.limit
        if sum(o for _, o in self.h_done) * ends > PROJECTION_MARGIN * max_outcomes * len(self.h_done):
            raise self.projected_past()

    def projected_past(self) -> OddsLimitError:
        """The whole projected past a bound, from the chains marked with a horizon worked out so far (or
        from a part of one, tried on its share of the steps: :func:`enumerate_odds`)."""
        if self.horizon is None:
            return OddsLimitError(f"odds of {self.what}: enumeration steps", self.limit, why="projected",
                                  steps=self.used, ends=self.ends, mass=self.mass)
        chains, before, ends_before, max_outcomes = self.horizon
        done = len(self.h_done) + (self.h_start is not None)
        steps = sum(h for h, _ in self.h_done) + (self.used - self.h_start if self.h_start is not None else 0)
        ends = sum(o for _, o in self.h_done)
        over_ends = bool(self.h_done) and ends * ends_before > PROJECTION_MARGIN * max_outcomes * len(self.h_done)
        what, limit, got = ((f"odds of {self.what}: end positions", max_outcomes,
                             ends * ends_before // len(self.h_done))
                            if over_ends else
                            (f"odds of {self.what}: enumeration steps", self.limit, before + steps * chains // done))
        return OddsLimitError(what, limit, got, why=f"projected from the first {done}",
                              steps=self.used, ends=self.ends, mass=self.mass)

    def progress(self) -> str:
        """How far the enumeration got, in a player's words ("" when not tracked): the branches it ran to
        the end and their chance; before the first, the same inside the outermost sub-procedure not
        finished yet (a Battle Commander assault spends its work in its card draws first)."""
        if not self.track:
            return ""
        if self.ends:
            return f"it had run {_branches(self.ends, self.mass, 'the end', 'the')}, when it stopped"
        for key, (req, n, mass) in self.subs.items():
            if self.memo is not None and key in self.memo:
                continue                # finished: its result is known
            where = req.label or "a step"
            return (f"it had run 0 branches to the end; inside {where} (rule {req.rule}) it had run "
                    f"{_branches(n, mass, 'its end', 'its')}, when it stopped")
        return "it had run 0 branches to the end"

    def past(self, what: str, limit: int, got: object = None, *, steps: bool = True) -> LimitError:
        """The error of a bound passed: the bound named, and (``steps``: the work bound) how far the
        enumeration got; the end-position bound says how many it found (``got``)."""
        why = ""
        if steps:
            why = "this action has too many dice outcomes to enumerate exactly"
            done = self.progress()
            why = f"{why}; {done}" if done else why
        return OddsLimitError(what, limit, got, why=why, steps=self.used, ends=self.ends, mass=self.mass)


def _branches(n: int, mass: float, end: str, whose: str) -> str:
    """e.g. ``"1,234 branches to the end, 37.5% of the chances"``."""
    share = mass * 100
    shown = f"{share:.1f}%" if 0.05 <= share <= 99.95 or share in (0, 100) else f"{share:.2g}%"
    return f"{n:,} branch{'es' if n != 1 else ''} to {end}, {shown} of {whose} chances"


class _Keyed:
    """An end position that is not hashable (it holds a mutable part): each such leaf is counted on its
    own, by the order the driver meets it (equal positions are then added up under their label)."""

    __slots__ = ("state", "key")

    def __init__(self, state: Any, key: int) -> None:
        self.state, self.key = state, key

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Keyed) and other.key == self.key


def _counted(factory: Procedure, budget: _Budget, top: bool = False, within: Sub | None = None) -> Procedure:
    def proc() -> Generator[Any, Any, Any]:
        return _relay(factory(), budget, top, within)
    return proc


def _relay(gen: Generator[Any, Any, Any], budget: _Budget, top: bool = False,
           within: Sub | None = None) -> Generator[Any, Any, Any]:
    """Pass every request of ``gen`` through unchanged, except sub-procedures, which are counted too;
    at the ``top`` (the action's own procedure) an unhashable end position is given a key of its own.
    ``within``: the sub-procedure request ``gen`` answers (for the progress of a tracked budget)."""
    if budget.track:
        return (yield from _relay_tracked(gen, budget, top, within))
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub):
                if not req.own_choices:         # a step of the caller's own: its requests are counted
                    budget.tick()
                entered = budget.horizon_entered(req)
                req = req.wrapped(partial(_counted, budget=budget))
                answer = yield req
                if entered:
                    budget.horizon_left(req)
                req = gen.send(answer)
                continue
            budget.tick()
            req = gen.send((yield req))
    except StopIteration as stop:
        value = stop.value
    return _keyed(value, budget) if top else value


def _keyed(value: Any, budget: _Budget) -> Any:
    try:
        hash(value)
    except TypeError:
        budget.leaves += 1
        value = _Keyed(value, budget.leaves)
    return value


def _relay_tracked(gen: Generator[Any, Any, Any], budget: _Budget, top: bool,
                   within: Sub | None) -> Generator[Any, Any, Any]:
    """:func:`_relay`, following the chance of the way taken (each die face, card or sub-procedure result
    the driver sends back), added up as each way reaches the end: the action's own ways at the ``top``,
    else the ways of the sub-procedure ``within`` (by its key, in the order they were first met)."""
    if within is not None and within.key not in budget.subs:
        budget.subs[within.key] = [within, 0, 0.0]
    chance = 1.0
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub):
                if not req.own_choices:         # a step of the caller's own: its requests are counted
                    budget.tick()
                # a chain's steps go on from many values each: their ways are followed inside the
                # sub-procedures they ask (a step's own chances are not those of the chain)
                within_it = None if isinstance(req, Chain) else req
                entered = budget.horizon_entered(req)
                req = req.wrapped(partial(_counted, budget=budget, within=within_it))
                answer = yield req
                if entered:
                    budget.horizon_left(req)
            else:
                budget.tick()
                answer = yield req
            if isinstance(req, (ChanceRequest, Sub)):
                chance *= _chance_of(req, answer, budget.memo)
            req = gen.send(answer)
    except StopIteration as stop:
        value = stop.value
    if top:
        budget.ends += 1
        budget.mass += chance
        return _keyed(value, budget)
    if within is not None:
        done = budget.subs[within.key]
        done[1] += 1
        done[2] += chance
    return value


def _chance_of(req: ChanceRequest | Sub, answer: Any, memo: dict[Hashable, tuple[Dist, Any]] | None) -> float:
    """The chance of ``answer`` to ``req`` as the enumerate driver weighs it (a banded roll's band)."""
    if isinstance(req, Sub):
        hit = memo.get(req.key) if memo is not None else None
        return float(hit[0][answer]) if hit is not None else 1.0
    if isinstance(req, Roll) and req.bands:
        for face, p, _ in req.banded_outcomes():
            if face == answer:
                return float(p)
        return 0.0
    for v, p in req.outcomes():
        if v == answer:
            return float(p)
    return 0.0


def unkey(x: Any) -> Any:
    return x.state if isinstance(x, _Keyed) else x


def choice_policy(chooser: Any, state: Any) -> tuple[Policy, str]:
    """A policy for the driver and its name, from a callable ``chooser(request)``, a bot (its
    ``choose(request, state)``), a mapping side -> bot, or ``None`` (the first listed option)."""
    if chooser is None:
        return first_option, "the first listed option (each rule's default)"
    if isinstance(chooser, Mapping):
        bots = dict(chooser)

        def by_side(req: Choose) -> Hashable:
            b = bots.get(req.player) or next(iter(bots.values()))
            pick: Hashable = b.choose(req, state)
            return pick
        names = sorted({getattr(b, "name", "bot") for b in bots.values()})
        return by_side, f"the {' and '.join(names)} bot{'s' if len(names) > 1 else ''}"
    if hasattr(chooser, "choose") and not isinstance(chooser, type):
        return (lambda req: chooser.choose(req, state)), f"the {getattr(chooser, 'name', 'given')} bot"
    return chooser, str(getattr(chooser, "__name__", "the given policy"))


def enumerate_action(rules: GameRules[Any, Any], state: Any, action: Any, policy: Policy, max_steps: int,
               max_outcomes: int, keep: bool = False, build: bool | None = None,
               stop: Callable[[], bool] | None = None, horizon: dict[Chain, None] | None = None,
               project: tuple[int, int, int, tuple[int, int]] | None = None,
               memo: dict[Hashable, tuple[Dist, Any]] | None = None, max_leaves: int | None = None
               ) -> tuple[Tree, _Budget]:
    """The action's tree and the budget it used, within the bounds. ``keep``: decisions kept as branches
    (for :func:`solve`); ``build``: the nodes made too (default: with ``keep``). ``horizon``: stop before
    the chains marked with one, collected in the dict in the order met (:func:`~engine.core.procedure.enumerate_tree`);
    ``project``: (chains, steps, end positions) of such a stopped enumeration and (steps, results) of the
    first chain, worked out already, to give up on the whole as soon as it is
    projected past a bound (:meth:`_Budget.project`); ``memo``: sub-procedure results already worked out
    the same way (the same policy, no horizon); ``max_leaves``: :func:`~engine.core.procedure.enumerate_tree`'s.
    Past a bound the :class:`LimitError` says how far it got."""
    what = rules.format_action(action)
    budget = _Budget(max_steps, what, track=not keep, stop=stop)
    memo = {} if memo is None else memo
    budget.memo = memo
    if project is not None:
        chains, before, ends, done = project
        budget.project(chains, before, ends, max_outcomes, (done,))
    factory = _counted(partial(rules.perform, state, action), budget, top=True)
    build = keep if build is None else build
    # the end-position bound as soon as it is passed: by the action's distinct results, or by the values a
    # chain it asks carries between steps (which its steps rarely merge back under the bound)
    cap = max_outcomes if max_leaves is None and not keep else max_leaves
    try:
        tree = enumerate_tree(factory, policy=policy, keep_decisions=keep, memo=memo, build=build, horizon=horizon,
                              max_leaves=cap)
    except OddsLimitError:
        raise
    except LimitError as exc:
        if max_leaves is not None:
            raise
        where = "positions reached on the way to the end" if "chain" in exc.what else "found"
        raise OddsLimitError(f"odds of {what}: end positions", max_outcomes,
                             why=f"more than {max_outcomes:,} {where}, worked out no further", steps=budget.used,
                             ends=budget.ends, mass=budget.mass) from None
    if not keep and tree.leaves is not None and len(tree.leaves) > max_outcomes:
        raise budget.past(f"odds of {what}: end positions", max_outcomes, len(tree.leaves), steps=False)
    return tree, budget


@dataclass(frozen=True)
class Horizon:
    """Odds that stop before what follows the action (a chain marked with a horizon: a TBF turn's end,
    3.3 B) because worked out whole they would pass a bound: ``what`` follows, under ``rule``; ``ways``, the
    distinct positions the action leaves it to start from; ``why``, the bound and how it was judged."""

    what: str
    rule: str
    ways: int
    why: str

    def words(self) -> str:
        """In a player's words, for the page and the CLI."""
        return (f"These odds stop before {self.what} (rule {self.rule}): {self.why}. Every end the action "
                f"itself can reach is here; what {self.what} brings after it is not.")


def enumerate_odds(rules: GameRules[Any, Any], state: Any, action: Any, policy: Policy, max_steps: int,
                   max_outcomes: int, *, build: bool = False, stop: Callable[[], bool] | None = None
                   ) -> tuple[Tree, _Budget, Horizon | None]:
    """The action's odds enumeration as :func:`action_odds` shows it: the whole consequence when it fits
    the bounds; else, when the action leads into what follows it (a chain marked with a horizon, e.g. the
    end of a TBF turn, 3.3 B), the enumeration that stops before that, with the :class:`Horizon` saying
    so; else the bound's error.

    It first enumerates stopping before any horizon: for most actions there is none, and that is the
    whole and the only work. Where there is one, the first of the chains it meets is worked out on its share
    of the bounds (:data:`PROJECTION_MARGIN` times the bound, shared by the end positions reached before it,
    or for steps by the chains), then the whole with the rest projected from the chains worked out so far
    (:meth:`_Budget.project`) and its end positions counted as they come, so that a whole too big is given
    up at a fraction of its cost. Which answer
    is shown depends only on the position and the bounds (the order the enumeration meets things), never
    on time. ``build``: the tree's nodes made too (the whole, where it is chosen, then enumerated again with
    them)."""
    met: dict[Chain, None] = {}
    tree, budget = enumerate_action(rules, state, action, policy, max_steps, max_outcomes, build=build, stop=stop,
                                    horizon=met)
    if not met:
        return tree, budget, None
    leaves = budget
    if build:       # judged as the odds judge it, from the enumeration of the end positions alone
        _, leaves = enumerate_action(rules, state, action, policy, max_steps, max_outcomes, stop=stop, horizon={})
    first = next(iter(met))
    whole = _whole_or_why(rules, state, action, policy, first, len(met), len(tree.distribution()), leaves,
                          max_outcomes, stop)
    if isinstance(whole, str):
        return tree, budget, Horizon(first.horizon, first.rule, len(met), whole)
    if build:
        whole = enumerate_action(rules, state, action, policy, max_steps, max_outcomes, build=True, stop=stop)
    return whole[0], whole[1], None


def _whole_or_why(rules: GameRules[Any, Any], state: Any, action: Any, policy: Policy, first: Chain, ways: int,
                  ends: int, before: _Budget, max_outcomes: int, stop: Callable[[], bool] | None
                  ) -> tuple[Tree, _Budget] | str:
    """The whole enumeration of the action's end positions, or why it is judged past the bounds (words for
    :class:`Horizon`). ``before``: the budget of the enumeration that stopped before ``ways`` distinct chains
    marked with a horizon (``first`` the first of them met), with ``ends`` end positions."""
    max_steps = before.limit
    share = max(1, PROJECTION_MARGIN * max_outcomes // ends)
    # what follows from the first position, worked out whole (counted on the same budget: the chain is the
    # one met, its steps relayed) on its share of the steps (one of ``ways``) and of the end positions (each
    # end position of the stopped enumeration is multiplied by what its chain leaves), both
    # :data:`PROJECTION_MARGIN` times the bounds: past them, the whole is judged too big without working it
    # out; within them, its results are kept for the whole (``memo``)
    memo: dict[Hashable, tuple[Dist, Any]] = {}
    used = before.used
    before.cap = min(max_steps, used + max(1, (PROJECTION_MARGIN * max_steps - used) // ways))
    try:
        enumerate_tree(partial(_ask, first), policy=policy, memo=memo, build=False, max_leaves=share)
    except OddsLimitError:
        return (f"with it the odds would take more than {PROJECTION_MARGIN} times {max_steps:,} enumeration steps "
                f"(judged from the first of the {ways:,} positions it would start from)")
    except LimitError:
        return (f"the action alone ends in {ends:,} different positions and {first.horizon} splits the first "
                f"of them into more than {share:,}: with it the odds would pass {max_outcomes:,} end positions "
                f"{PROJECTION_MARGIN} times over")
    finally:
        before.cap = before.limit
    first_done = (before.used - used, len(memo[first.key][0]))
    try:
        # the end positions bound as soon as it is passed (the action's results, or the values its chain
        # carries to its last step): the answer is then the one stopped before the horizon all the same
        return enumerate_action(rules, state, action, policy, max_steps, max_outcomes, stop=stop,
                                project=(ways, used, ends, first_done), memo=memo, max_leaves=max_outcomes)
    except OddsLimitError as exc:
        return _bound_words(exc, ways)
    except LimitError:
        return f"with it the odds pass {max_outcomes:,} end positions"


def _ask(req: Sub) -> Generator[Any, Any, Any]:
    """A procedure that asks ``req`` and ends with its answer."""
    return (yield req)


def _bound_words(exc: OddsLimitError, ways: int) -> str:
    """The bound the whole passed (or was projected to pass), in a player's words."""
    what = str(exc.what).rsplit(": ", 1)[-1]
    if exc.why.startswith("projected"):
        return (f"with it the odds would pass {exc.limit:,} {what} {PROJECTION_MARGIN} times over ({exc.why} of "
                f"the {ways:,} positions it would start from)")
    return f"with it the odds pass {exc.limit:,} {what}"


def summarise(rules: GameRules[Any, Any], state: Any, action: Any, dist: Dist, note: str,
              until: str = "") -> ActionOdds:
    before = rules.metrics(state)
    groups: dict[tuple[str, str], Fraction] = {}
    expected: dict[str, Fraction] = {k: Fraction(0) for k in before}
    default_rule = rules.rule_of(action)
    for after, p in dist.items():
        after = unkey(after)
        lab = rules.odds_label(state, after, action)
        label, rule = (lab if isinstance(lab, tuple) else (lab, default_rule))
        groups[(label, rule)] = groups.get((label, rule), Fraction(0)) + p
        m = rules.metrics(after)
        for k in set(before) | set(m):
            expected[k] = expected.get(k, Fraction(0)) + p * (Fraction(m.get(k, 0)) - Fraction(before.get(k, 0)))
    lines = tuple(OddsLine(lab, p, rule) for (lab, rule), p in
                  sorted(groups.items(), key=lambda kv: (-kv[1], kv[0][0])))
    return ActionOdds(rules.format_action(action), default_rule, lines, tuple(sorted(expected.items())), note,
                      until)


def action_odds(rules: GameRules[Any, Any], state: Any, action: Any, *, chooser: Any = None,
                max_outcomes: int = MAX_OUTCOMES, max_steps: int = MAX_STEPS,
                stop: Callable[[], bool] | None = None) -> ActionOdds:
    """The exact odds of ``action`` (an action, its JSON or its text notation) in ``state``.

    The action is checked first (an illegal one raises its :class:`RuleViolation`); its procedure is
    enumerated with choices answered by ``chooser`` (see :func:`_policy`; default the first listed
    option). Raises :class:`LimitError` past ``max_steps`` enumeration steps or ``max_outcomes``
    end positions, saying how far it got; :class:`OddsCancelled` once ``stop()`` (asked every 256 steps)
    answers True."""
    action = rules.coerce_action(action)
    rules.check(state, action)
    policy, name = choice_policy(chooser, state)
    tree, _, stopped = enumerate_odds(rules, state, action, policy, max_steps, max_outcomes, stop=stop)
    return summarise(rules, state, action, tree.distribution(), f"choices inside answered by {name}",
                     until=stopped.words() if stopped is not None else "")


def solve(rules: GameRules[Any, Any], state: Any, action: Any, value: Callable[[Any, str], float], *, fallback: Any = None,
          max_steps: int = MAX_STEPS, max_outcomes: int = MAX_OUTCOMES
          ) -> tuple[tuple[tuple[Any, Fraction], ...], dict[Choose, Hashable | None]]:
    """The action's distribution of end positions when every choice of its own procedure is made by the
    side that decides it to maximise its expected ``value(end_state, side)`` (choices inside
    sub-procedures by ``fallback``). Returns ``(outcomes, plan)``: the end positions with their exact
    probabilities, and ``plan`` maps each choice met on the way
    to the option taken, or to ``None`` where two branches met the same question and answered it
    differently. Bounded like :func:`action_odds`."""
    policy, _ = choice_policy(fallback, state)
    tree, _ = enumerate_action(rules, state, action, policy, max_steps, max_outcomes, keep=True)
    sides = tuple(rules.sides)
    cache: dict[Any, tuple[float, ...]] = {}

    def leaf_values(key: Any) -> tuple[float, ...]:
        v = cache.get(key)
        if v is None:
            v = cache[key] = tuple(value(unkey(key), side) for side in sides)
        return v

    plan: dict[Choose, Hashable | None] = {}

    def walk(node: Node) -> tuple[tuple[float, ...], dict[Any, Fraction]]:
        """(expected values per side, end-state weights) under ``node``."""
        if not node.children:
            return leaf_values(node.result), {node.result: Fraction(1)}
        if node.kind == "choose":
            req = node.request
            who = sides.index(req.player) if req.player in sides else sides.index(rules.to_act(state))
            best: tuple[tuple[float, ...], dict[Any, Fraction], Any] | None = None
            for child in node.children:
                vals, w = walk(child)
                if best is None or vals[who] > best[0][who]:
                    best = (vals, w, child.outcome)
            assert best is not None            # a choice has options
            key = req
            if key in plan and plan[key] != best[2]:
                plan[key] = None
            elif key not in plan:
                plan[key] = best[2]
            return best[0], best[1]
        sums = [0.0] * len(sides)
        weights: dict[Any, Fraction] = {}
        for child in node.children:
            cv, cw = walk(child)
            p = child.probability
            assert p is not None               # a chance node's children have probabilities
            for i, v in enumerate(cv):
                sums[i] += float(p) * v
            for s, q in cw.items():
                weights[s] = weights.get(s, Fraction(0)) + p * q
        return tuple(sums), weights

    assert tree.root is not None               # keep=True builds the tree
    _, w = walk(tree.root)
    if len(w) > max_outcomes:
        raise LimitError(f"odds of {rules.format_action(action)}: end positions", max_outcomes, len(w))
    return tuple((unkey(s), p) for s, p in w.items()), plan


# ------------------------------------------------------------------------------------------------
# A bounded cache by value
# ------------------------------------------------------------------------------------------------
class OddsCache:
    """At most ``size`` answers kept by key, the least recently used dropped first. Keys are values
    (a position and an action compare by what they hold, never by ``id``), so a key never goes stale;
    an unhashable key (a position with a mutable part) is neither looked up nor kept. Safe to share
    between threads."""

    def __init__(self, size: int = 256) -> None:
        if size < 0:
            raise ValueError("an odds cache holds 0 entries or more")
        self.size = size
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def hashable(key: object) -> bool:
        try:
            hash(key)
        except TypeError:
            return False
        return True

    def get(self, key: Any, default: Any = None) -> Any:
        """The answer kept for ``key`` (``default`` when none); a hit makes it the most recently used."""
        if key is None or not self.hashable(key):
            return default
        with self._lock:
            hit = self._entries.get(key, _MISSING)
            if hit is _MISSING:
                self.misses += 1
                return default
            self._entries.move_to_end(key)
            self.hits += 1
            return hit

    def put(self, key: Any, value: Any) -> None:
        if key is None or not self.hashable(key):
            return
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return self.hashable(key) and key in self._entries


_MISSING = object()


# ------------------------------------------------------------------------------------------------
# The odds-aware bot
# ------------------------------------------------------------------------------------------------
class OddsBot:
    """Plays the system's greedy bot's move, except where that move is an attack or a pass: then it weighs
    the legal attacks by the exact expected change of its side's
    :meth:`~engine.core.game.GameRules.evaluate` and makes the best one when that change is above
    ``margin``; a greedy attack that is not worth it is replaced by the greedy bot's move among the
    actions that are not attacks. The policy is set out in ``docs/bots.md``; in short:

    * each attack's odds are enumerated exactly, its inner questions answered as the greedy bot answers
      them, within ``max_steps`` enumeration steps (past it the attack is "too big": where any
      candidate is, the greedy bot's move stands);
    * with more than ``top_k`` attacks and a cheap ``rules.attack_score(state, action)`` (a system
      hook, optional) only the ``top_k`` best scored get exact odds (a score of ``None``: always
      weighed, it is cheap);
    * only the attack it makes is then solved (:func:`solve`, within ``solve_steps``): each question
      inside answered by whoever it asks, best for their side; in play the bot gives the answers of that
      plan where it is unambiguous, else the greedy bot's;
    * an attack with no alternative (every legal action an attack, e.g. a declared battle that must be
      fought) is made all the same, the best first; the values of such a forced set are kept, so the
      rest of the set (same :meth:`~engine.core.game.GameRules.position`, still no alternative) is
      ordered without weighing again.

    Attacks are weighed, solved and kept from the position the play page's quick odds start from
    (:func:`compact_position`: the system's ``odds_state``, e.g. Battle Commander's piles as card
    summaries, 21.0, 23.2-23.3): the same fractions as the position itself, far fewer steps, so an attack
    the bound used to cut is weighed within it, and positions alike in what decides the odds share an
    answer. Values are kept per (that position, action) in a bounded cache of ``cache_size`` entries
    (least recently used dropped first): positions are values, so a key never goes stale. Deterministic
    given ``seed`` (the greedy bot it defers to is made with the same seed; no dice are sampled)."""

    name = "odds"

    def __init__(self, seed: int | None = None, base: str = "greedy", margin: float = 0.0,
                 cache_size: int = 512, max_steps: int = 4_000, solve_steps: int = 800, top_k: int = 4,
                 solve_ratio: int = 4) -> None:
        self.seed = seed
        self.base_name = base
        self.margin = margin
        self.cache_size = cache_size
        self.max_steps = max_steps
        self.solve_steps = solve_steps
        self.top_k = top_k
        self.solve_ratio = solve_ratio
        self._base: Bot | None = None
        self._rules: GameRules[Any, Any] | None = None
        self._cache = OddsCache(cache_size)
        self._plan: dict[Choose, Hashable | None] = {}
        #: (position, {attack: value}) of the last forced set weighed
        self._forced: tuple[Any, dict[Any, float | None]] | None = None
        self._steps: dict[Any, int] = {}    # attack -> enumeration steps of its last weighing (to judge a solve)
        #: (position, side, its value): the position the attacks are weighed in
        self._now: tuple[Any, str, float] | None = None
        #: (position, its compact form) of the last position weighed in (the attacks of one decision share it)
        self._compact: tuple[Any, Any] | None = None
        self.weighed = 0            # attacks whose odds were computed (not found in the cache)
        self.too_big = 0            # attacks past the bound (weighed as None)
        self.solved = 0             # attacks solved for their plan
        self.steps = 0              # enumeration steps of the attacks weighed, all together

    # the greedy bot of the system, made once (on first use: the factory needs the rules)
    def base(self, rules: GameRules[Any, Any]) -> Bot:
        if self._base is None or self._rules is not rules:
            factories = rules.bots()
            make = factories.get(self.base_name) or factories["random"]
            self._base = make(seed=self.seed)
            self._rules = rules
        return self._base

    @property
    def needs_legal(self) -> bool:
        return bool(getattr(self._base, "needs_legal", True)) if self._base is not None else True

    def choose(self, request: Choose, state: Any = None) -> Hashable:
        pick = self._plan.get(request)
        if pick is not None and pick in request.options:
            return pick
        if self._base is not None:
            return self._base.choose(request, state)
        return request.options[0]

    # --- the cache --------------------------------------------------------------------------------
    def _entry(self, key: Any) -> list[Any] | None:
        """The cached [value, steps, plan] of ``key`` (None when absent or the key is unhashable)."""
        hit: list[Any] | None = self._cache.get(key)
        return hit

    def _store(self, key: Any, entry: list[Any]) -> None:
        self._cache.put(key, entry)

    @staticmethod
    def _key(state: Any, action: Any) -> tuple[Any, Any] | None:
        key = (state, action)
        try:
            hash(key)
        except TypeError:                      # a position with a mutable part: weighed, not kept
            return None
        return key

    def _position(self, rules: GameRules[Any, Any], state: Any) -> Any:
        """:func:`compact_position` of ``state``, made once for the attacks of one decision."""
        last = self._compact
        if last is None or last[0] is not state:
            last = self._compact = (state, compact_position(rules, state))
        return last[1]

    def attack_value(self, rules: GameRules[Any, Any], state: Any, action: Any) -> float | None:
        """The expected change of the acting side's position value if ``action`` is made, its inner
        questions answered as the greedy bot answers them (``None`` when its odds are past the bound),
        worked out from the compact position (:func:`compact_position`)."""
        side = str(rules.to_act(state))
        state = self._position(rules, state)
        key = self._key(state, action)
        hit = self._entry(key)
        if hit is not None:
            known: float | None = hit[0]
            return known
        policy, _ = choice_policy(self.base(rules), state)
        what = rules.format_action(action)
        budget = _Budget(self.max_steps, what)
        try:
            factory = _counted(partial(rules.perform, state, action), budget, top=True)
            tree = enumerate_tree(factory, policy=policy, memo={}, build=False)
            assert tree.leaves is not None       # no decision nodes: a policy answers every choice
            if len(tree.leaves) > MAX_OUTCOMES:
                raise LimitError(f"odds of {what}: end positions", MAX_OUTCOMES, len(tree.leaves))
            v0 = self._value_now(rules, state, side)
            value = sum(float(p) * (rules.evaluate(unkey(s), side) - v0) for s, p in tree.leaves.items())
        except LimitError:
            self.too_big += 1
            value = None
        self.weighed += 1
        self.steps += budget.used
        self._store(key, [value, budget.used, None])
        self._steps = {action: budget.used} if len(self._steps) > 64 else {**self._steps, action: budget.used}
        return value

    def _value_now(self, rules: GameRules[Any, Any], state: Any, side: str) -> float:
        """``rules.evaluate(state, side)``, worked out once for the attacks of one decision."""
        now = self._now
        if now is None or now[0] != state or now[1] != side:
            now = self._now = (state, side, rules.evaluate(state, side))
        return now[2]

    def plan_of(self, rules: GameRules[Any, Any], state: Any, action: Any) -> dict[Choose, Hashable | None]:
        """The answers :func:`solve` gives to the questions inside ``action`` (``{}`` when its tree is
        past ``solve_steps``). Solved once per (position, action), from the compact position as
        :meth:`attack_value` weighs it (a system's ``odds_state`` summarises what decides the odds, never what a
        question inside offers, so the plan's questions are the ones play asks)."""
        state = self._position(rules, state)
        key = self._key(state, action)
        hit = self._entry(key)
        if hit is not None and hit[2] is not None:
            known: dict[Choose, Hashable | None] = hit[2]
            return known
        steps = hit[1] if hit is not None else self._steps.get(action)
        plan: dict[Choose, Hashable | None]
        if steps is None or steps * self.solve_ratio > self.solve_steps:
            plan = {}                          # not weighed here, or its tree is too big to solve
        else:
            try:
                _, plan = solve(rules, state, action, rules.evaluate, fallback=self.base(rules),
                                max_steps=self.solve_steps)
                self.solved += 1
            except LimitError:
                plan = {}
        if hit is not None:
            hit[2] = plan
        return plan

    # --- choosing ---------------------------------------------------------------------------------
    def _shortlist(self, rules: GameRules[Any, Any], state: Any, attacks: list[Any]) -> list[Any]:
        """The attacks that get exact odds: all of them, or the ``top_k`` best by the system's cheap
        ``attack_score`` (ties in listed order) when it has one."""
        score = getattr(rules, "attack_score", None)
        if score is None or len(attacks) <= self.top_k:
            return attacks
        scores = [score(state, a) for a in attacks]
        always = {i for i, v in enumerate(scores) if v is None}          # cheap to weigh: never pruned
        ranked = sorted((i for i in range(len(attacks)) if i not in always), key=lambda i: (-scores[i], i))
        keep = sorted(always | set(ranked[:self.top_k]))
        return [attacks[i] for i in keep]

    def _make(self, rules: GameRules[Any, Any], state: Any, action: Any) -> Any:
        self._plan = self.plan_of(rules, state, action)
        return action

    def choose_action(self, rules: GameRules[Any, Any], state: Any, legal: list[Any] | None) -> Any:
        base = self.base(rules)
        if legal is None and getattr(base, "needs_legal", True):
            legal = rules.legal_actions(state)
        self._plan = {}
        pick = base.choose_action(rules, state, legal)
        if not (rules.is_attack(pick) or rules.is_pass(pick)):
            return pick                        # the greedy bot has something else to do first
        attacks = ([a for a in legal if rules.is_attack(a)] if legal is not None
                   else rules.attack_candidates(state))
        if not attacks:
            return pick
        pos = rules.position(state)
        if self._forced is not None and self._forced[0] == pos and all(a in self._forced[1] for a in attacks):
            if legal is None:
                legal = rules.legal_actions(state)
            if all(rules.is_attack(a) for a in legal):
                known = self._forced[1]        # the rest of a forced set weighed before: no new odds
                best = max(range(len(attacks)), key=lambda i: (known[attacks[i]], -i))
                return self._make(rules, state, attacks[best])
        short = self._shortlist(rules, state, attacks)
        values = [(self.attack_value(rules, state, a), i, a) for i, a in enumerate(short)]
        scored = [(v, i, a) for v, i, a in values if v is not None]
        if scored:
            value, _, best = max(scored, key=lambda t: (t[0], -t[1]))
            if value > self.margin:
                return self._make(rules, state, best)
        if len(scored) < len(values) or not rules.is_attack(pick):
            return pick                        # odds past the bound: judged as the greedy bot does; or a pass
        if legal is None:
            legal = rules.legal_actions(state)
        others = [a for a in legal if not rules.is_attack(a)]
        if not others:                         # the attack must be made (e.g. a declared battle): best first
            self._forced = (pos, {a: v for v, _, a in values})
            return self._make(rules, state, best)
        return base.choose_action(rules, state, others)
