"""core.procedure: a chain marked with a horizon (what follows the action, e.g. a TBF turn's end) and the
exact odds that stop before it (``enumerate_tree(horizon=...)``, :func:`engine.core.odds.enumerate_odds`).

Differential, on random procedures (hypothesis): stopping before the marked chain gives the same exact
distribution, and the same tree, as the same procedure written without that chain (its start taken as
its result); without ``horizon`` the mark changes nothing (same distribution, same record in play).
The bounds of :func:`enumerate_odds` are checked on a toy whose turn end has 2**n ends."""
from __future__ import annotations

from collections.abc import Generator
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from sizes import examples
from test_procedure_chain import VALUES, StepSpec, _shape, _step, procedures

from engine.core.errors import LimitError
from engine.core.odds import _Budget, enumerate_odds
from engine.core.procedure import Chain, Roll, RandomDice, Stepper, chain, distribution, enumerate_tree, first_option


def _with_horizon(specs: tuple[StepSpec, ...], after: tuple[StepSpec, ...], start: int, mark: str = "the end"
                  ) -> Generator[Any, Any, Any]:
    """A roll, the action's own steps (a chain), then what follows (a chain marked ``mark``), a roll."""
    head = yield Roll("d2", rule="T0", label="before")
    value = yield chain(("own", specs), (start + head) % VALUES, [partial(_step, s) for s in specs],
                        rule="T4", label="the action")
    value = yield chain(("follows", after), value, [partial(_step, s) for s in after], rule="T6",
                        label="what follows", horizon=mark)
    tail = yield Roll("d2", rule="T5", label="after")
    return (value, tail)


def _without_follow_up(specs: tuple[StepSpec, ...], start: int) -> Generator[Any, Any, Any]:
    """The same procedure written without what follows (the expected result of stopping before it)."""
    head = yield Roll("d2", rule="T0", label="before")
    value = yield chain(("own", specs), (start + head) % VALUES, [partial(_step, s) for s in specs],
                        rule="T4", label="the action")
    tail = yield Roll("d2", rule="T5", label="after")
    return (value, tail)


@settings(max_examples=examples(60), deadline=None)
@given(procedures(), procedures())
def test_stopping_before_the_horizon_is_the_procedure_without_what_follows(own, follows):
    specs, start = own
    after, _ = follows
    met: dict[Chain, None] = {}
    got = enumerate_tree(partial(_with_horizon, specs, after, start), build=False, horizon=met).distribution()
    assert got == distribution(partial(_without_follow_up, specs, start))
    # every distinct value the follow-up would start from is met once, in the order met
    assert [c.start for c in met] == list(dict.fromkeys(c.start for c in met))
    assert {c.start for c in met} == {v for v in range(VALUES) if any(v == k[0] for k in got)}
    assert all(c.horizon == "the end" and c.rule == "T6" for c in met)
    # and the whole is unchanged by the mark: the same odds as the chain unmarked
    whole = distribution(partial(_with_horizon, specs, after, start))
    unmarked = distribution(partial(_with_horizon, specs, after, start, ""))
    assert whole == unmarked and sum(whole.values()) == 1


@settings(max_examples=examples(30), deadline=None)
@given(procedures(), procedures())
def test_the_tree_stops_at_the_horizon_with_a_note(own, follows):
    specs, start = own
    after, _ = follows
    tree = enumerate_tree(partial(_with_horizon, specs, after, start), horizon={})
    expected = enumerate_tree(partial(_without_follow_up, specs, start))
    assert tree.distribution() == expected.distribution()
    stops = [n for n in tree.nodes() if n.request is not None and getattr(n.request, "horizon", "")]
    assert stops and all(len(n.children) == 1 and n.children[0].probability == 1 for n in stops)
    assert all(("T6", "the end is not worked out: the odds stop here") in n.notes for n in stops)


@settings(max_examples=examples(30), deadline=None)
@given(procedures(), procedures(), st.integers(0, 2 ** 32 - 1))
def test_play_runs_what_follows_the_same_with_or_without_the_mark(own, follows, seed):
    specs, start = own
    after, _ = follows
    marked = Stepper(partial(_with_horizon, specs, after, start)).run(RandomDice(seed), first_option)
    plain = Stepper(partial(_with_horizon, specs, after, start, "")).run(RandomDice(seed), first_option)
    assert marked.result == plain.result
    assert [e.to_json() for e in marked.events] == [e.to_json() for e in plain.events]


def test_max_leaves_stops_as_soon_as_the_results_pass_it():
    def three_dice() -> Generator[Any, Any, int]:
        a = yield Roll("d6", rule="T1")
        b = yield Roll("d6", rule="T1")
        return a * 10 + b                    # 36 distinct results
    assert len(enumerate_tree(three_dice, build=False, max_leaves=36).distribution()) == 36
    with pytest.raises(LimitError, match="at most 35"):
        enumerate_tree(three_dice, build=False, max_leaves=35)


# --- enumerate_odds on a toy game: an attack, then a turn end with 2**n ends --------------------------
class _Toy:
    """The least of the protocol enumerate_odds asks: ``perform`` and ``format_action``. The attack is a
    d6 (4+ wins); it ends the turn when ``ends_turn``, whose recovery rolls a d2 for each of ``units``
    (2**units distinct ends from each position the attack leaves)."""

    def __init__(self, units: int, ends_turn: bool = True) -> None:
        self.units, self.ends_turn = units, ends_turn

    def format_action(self, action: Any) -> str:
        return "attack"

    def perform(self, state: Any, action: Any) -> Generator[Any, Any, Any]:
        won = (yield Roll("d6", rule="A1", label="attack")) >= 4
        s = (won,)
        if self.ends_turn:
            s = yield chain(("turn end", self.units), s, [self._recovery], rule="E1", label="turn end",
                            horizon="the end of the turn")
        return s

    def _recovery(self, s: tuple[Any, ...]) -> Generator[Any, Any, Any]:
        for _ in range(self.units):
            s = s + ((yield Roll("d2", rule="E2", label="recovery")),)
        return s


def test_the_whole_is_shown_when_it_fits():
    # 2 results of the attack x 2**3 recoveries = 16 end positions, each 1/2 x 1/8 = 1/16
    tree, _, stopped = enumerate_odds(_Toy(3), None, "attack", first_option, 10_000, 100)
    assert stopped is None
    assert len(tree.distribution()) == 16 and set(tree.distribution().values()) == {Fraction(1, 16)}


def test_too_many_ends_of_turn_stop_before_it_judged_from_the_first():
    # 2 x 2**9 = 1,024 end positions whole, past the bound of 100 more than PROJECTION_MARGIN (2) times: each
    # of the 2 positions the attack alone ends in has a share of 2 x 100 / 2 = 100, and the first one's
    # recovery (512 ends) passes it: the odds stop before the turn end, won 1/2 (d6 4-6), lost 1/2
    tree, _, stopped = enumerate_odds(_Toy(9), None, "attack", first_option, 100_000, 100)
    assert stopped is not None and stopped.ways == 2 and stopped.rule == "E1"
    assert tree.distribution() == {(True,): Fraction(1, 2), (False,): Fraction(1, 2)}
    assert "into more than 100" in stopped.why and "the end of the turn" in stopped.words()


def test_a_whole_past_the_bound_by_less_than_the_margin_is_worked_out_to_the_bound():
    # 2 x 2**8 = 512 ends: past the bound of 300, but less than 2 times: the first position's recovery (256
    # ends) is within its share (2 x 300 / 2 = 300), so the whole is worked out, found past the bound, and
    # the odds then stop before the turn end all the same
    tree, _, stopped = enumerate_odds(_Toy(8), None, "attack", first_option, 100_000, 300)
    assert stopped is not None and stopped.why == "with it the odds pass 300 end positions"
    assert len(tree.distribution()) == 2
    # and with a bound of 512 it fits: the whole, 512 ends of 1/512 each
    whole, _, none = enumerate_odds(_Toy(8), None, "attack", first_option, 100_000, 512)
    assert none is None and set(whole.distribution().values()) == {Fraction(1, 512)}


def test_a_whole_past_the_steps_is_given_up():
    # 2**8 ends per position fit the end positions (bound 10,000) but not the steps (bound 1,000)
    tree, budget, stopped = enumerate_odds(_Toy(8), None, "attack", first_option, 1_000, 10_000)
    assert stopped is not None and "1,000 enumeration steps" in stopped.why
    assert budget.used <= 1_001 and len(tree.distribution()) == 2     # the step that passed it counted


def test_an_action_that_does_not_reach_the_horizon_is_enumerated_once():
    tree, budget, stopped = enumerate_odds(_Toy(8, ends_turn=False), None, "attack", first_option, 100, 10)
    # one enumeration: the d6 met once on each of its 6 branches (the driver replays the way to each)
    assert stopped is None and len(tree.distribution()) == 2 and budget.used == 6


def test_the_projection_caps_each_chain_by_its_share_of_the_margin():
    b = _Budget(10_000, "attack")
    b.memo = {}
    b.project(40, 200, 10, 50)               # 40 chains after 200 steps and 10 ends; 50 end positions at most
    first = chain(("t", 1), (1,), [], rule="E1", horizon="the end")
    # its share of 2 x 10,000 steps: (20,000 - 200) x 1 / 40 = 495
    assert b.horizon_entered(first) and b.cap == 495
    b.used = 150
    b.memo[first.key] = ({(1, 1): Fraction(1)}, None)
    b.horizon_left(first)                    # 150 steps, 1 end: 1 x 10 ends, under 2 x 50
    second = chain(("t", 1), (2,), [], rule="E1", horizon="the end")
    # two shares, 19,800 x 2 / 40 = 990, less the 150 the first took, from 150: 990
    assert b.horizon_entered(second) and b.cap == 990
    b.used = b.cap
    with pytest.raises(LimitError, match="enumeration steps: at most 10000: projected from the first 2"):
        b.tick()


def test_the_projection_of_the_ends_stops_after_a_chain_with_too_many():
    b = _Budget(10_000, "attack")
    b.memo = {}
    b.project(40, 200, 10, 50)
    first = chain(("t", 1), (1,), [], rule="E1", horizon="the end")
    assert b.horizon_entered(first)
    # 21 results x the 10 ends before it = 210 projected, past 2 x 50 = 100
    b.memo[first.key] = ({(1, i): Fraction(1, 21) for i in range(21)}, None)
    with pytest.raises(LimitError, match="end positions: at most 50: projected from the first 1 .got 210"):
        b.horizon_left(first)
