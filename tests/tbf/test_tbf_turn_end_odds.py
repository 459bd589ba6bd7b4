"""Exact odds of a fight that ends the turn (issue 26, Speed): a fight (6.3, 6.4, 6.2.8) runs as a chain of
its own procedure and what follows it (the 6.5 A turns out of a wounded leader, then the end of the
segment), and the end of the Activation Phase as a chain of the Recovery Phase (7.0, with 4.1.10 B and the
end of the game), the Reinforcement Phase (3.1) and the Initiative Phase (3.2). What follows is then
worked out once per position reached (and, after 6.5 A, once for every roll of the 2d6 turns out), not once
per way of reaching it.

The random bot's first melees at bot seed 3 (the play-page benchmark's, tests/bench/test_play_odds_bench.py)
rolled 54,339 and 36,414 enumeration steps for 1,263 and 1,166 end positions: every branch of the melee ran
the whole end of the turn again, a wounded Kutusov's 2d6 (6.5 A) eleven times over.

Differential: with those steps run in place (:mod:`inline_in_place`, every step whose questions are its
caller's own: the questions asked and the dice branched on as the enumeration did before this change) the
same end positions come out with the same exact probabilities, so the same odds, line by line and metric by metric; solved with the deciding sides'
questions kept (the odds bot's plan) the same outcomes and the same plan; in play, the same record from the
same dice. On those two melees, and on random positions of random bots' games (hypothesis)."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from inline_in_place import InPlace
from sizes import examples

from engine.core.errors import LimitError
from engine.core.game import Session
from engine.core.odds import enumerate_action, solve
from engine.core.procedure import RandomDice, Stepper, first_option
from engine.core.quick_odds import quick_odds
from engine.systems import system_of

R = system_of("tbf")
#: the rules with every chain (and the step after 6.5 A) run in place: the enumeration as it was before them
WRITTEN_OUT = InPlace(R, lambda req: req.own_choices)
#: the bound of the written-out enumeration in the random comparisons (a position past it is skipped)
STEPS = 40_000


def _kind(a: Any) -> str:
    return str(R.action_to_json(a).get("kind"))


@lru_cache(maxsize=None)
def _first_melees(bot_seed: int) -> tuple[Any, tuple[Any, ...]]:
    """The random bot's game (game seed 1) up to the first position offering a melee, and its melees (as
    tests/dashboards/attack_records.py record_until finds them for the benchmark)."""
    bot = R.bots()["random"](seed=bot_seed)
    sess = Session.new(R, None, (), 1)
    for _ in range(3000):
        legal = sess.legal_actions()
        melees = tuple(a for a in legal if _kind(a) == "melee")
        if melees:
            return sess.state, melees
        a = bot.choose_action(R, sess.state, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError("no melee in 3000 actions")


def _ends(rules: Any, s: Any, a: Any, max_steps: int = 400_000) -> tuple[dict[Any, Any], int]:
    """Every end position with its exact probability, and the enumeration steps it took."""
    tree, budget = enumerate_action(rules, s, a, first_option, max_steps, 100_000)
    return dict(tree.distribution().items()), budget.used


def _odds(data: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple((x["label"], x["fraction"]) for x in data["lines"]),
            tuple((x["metric"], x["fraction"]) for x in data["expected"]), data["end_positions"])


@pytest.fixture(scope="module")
def seed3() -> list[tuple[Any, Any]]:
    s, melees = _first_melees(3)
    return [(s, a) for a in melees[:2]]


def test_the_benchmark_melees_are_those_that_end_the_turn(seed3):
    # NOV 3 bn (ci-5) attacks 2015 and 2115 in the Melee Segment of the last activation of turn 2
    assert [R.describe_action(a) for _, a in seed3] == ["Coalition: NOV 3 bn attacks 2015 in melee (6.4)",
                                                        "Coalition: NOV 3 bn attacks 2115 in melee (6.4)"]
    assert seed3[0][0].game.turn == 2


def test_turn_ending_melees_have_the_same_end_positions_and_odds(seed3):
    for s, a in seed3:
        before, before_steps = _ends(WRITTEN_OUT, s, a)
        now, now_steps = _ends(R, s, a)
        assert now == before                                 # every end position, the same exact fraction
        assert len(now) in (1263, 1166)
        assert _odds(quick_odds(R, s, a, cache=None)) == _odds(quick_odds(WRITTEN_OUT, s, a, cache=None))
        # the work: 54,339 and 36,414 steps written out; a few thousand now (6,048 and 5,557 when made)
        assert before_steps in (54_339, 36_414)
        assert now_steps * 5 < before_steps


def test_the_odds_bots_plan_is_the_same():
    # solve keeps the deciding side's questions as decisions (every step of the chains run in place): the same
    # outcomes and the same answers, on the benchmark's other melees and charges (small enough to solve)
    greedy = R.bots()["greedy"]()
    cases = []
    for seed in (4, 5, 6):
        s, melees = _first_melees(seed)
        cases += [(s, a) for a in melees[:2]]
    for s, a in cases:
        outs, plan = solve(R, s, a, R.evaluate, fallback=greedy, max_steps=60_000)
        outs0, plan0 = solve(WRITTEN_OUT, s, a, R.evaluate, fallback=greedy, max_steps=60_000)
        assert dict(outs) == dict(outs0) and plan == plan0


def test_play_records_the_same_from_the_same_dice(seed3):
    for s, a in seed3:
        for seed in range(12):
            now = Stepper(lambda: R.perform(s, a)).run(RandomDice(seed), first_option)
            before = Stepper(lambda: WRITTEN_OUT.perform(s, a)).run(RandomDice(seed), first_option)
            assert now.events == before.events and now.result == before.result


@st.composite
def fights(draw: Any) -> tuple[Any, Any]:
    """A random bot's game (bot seed, game seed) up to its k-th position offering a fight, and one of them."""
    bot_seed, game_seed, k = draw(st.integers(1, 500)), draw(st.integers(1, 4)), draw(st.integers(0, 25))
    bot = R.bots()["random"](seed=bot_seed)
    sess = Session.new(R, None, (), game_seed)
    met = None
    for _ in range(900):
        legal = sess.legal_actions()
        if not legal:
            break
        attacks = [a for a in legal if R.is_attack(a)]
        if attacks:
            met = (sess.state, attacks)
            if k == 0:
                break
            k -= 1
        a = bot.choose_action(R, sess.state, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    if met is None:
        return draw(st.nothing())
    s, attacks = met
    return s, attacks[draw(st.integers(0, len(attacks) - 1))]


@settings(max_examples=examples(12), deadline=None)
@given(fights())
def test_random_fights_have_the_same_end_positions(fight):
    s, a = fight
    try:
        before, before_steps = _ends(WRITTEN_OUT, s, a, STEPS)
    except LimitError:
        return                                              # too big to write out within the bound
    now, now_steps = _ends(R, s, a)
    assert now == before
    assert now_steps <= before_steps


def _deploy_by_trial(ctx: Any, g: Any, ids: Any, hexes: Any) -> Any:
    """The arrivals set down as before this change: each unit tried in each hex by making that position."""
    from engine.tbf.game.position import occupants
    from engine.tbf.game.stacking import stacking_problem
    from engine.tbf.game.types import GONE, other
    sc = ctx.sc
    spots = [h for h in hexes if sc.board.terrain(h) != "river"]
    for uid in ids:
        if g.piece(uid).status in GONE or g.piece(uid).hex is not None:
            continue
        side = sc.side(uid)
        for h in spots:
            if occupants(sc, g, h, other(side)):
                continue
            trial = g.with_piece(uid, hex=h)
            if uid in sc.leaders or stacking_problem(sc, trial, h) is None:
                g = trial.with_piece(uid, facing=g.piece(uid).facing)
                break
    return g


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(1, 300), st.integers(0, 200), st.data())
def test_arrivals_are_set_down_as_by_trial(bot_seed, actions, data):
    # 9.2 C-D, 9.2 I, 9.6.2 C-D, 11.4.1, 5.3 E: each arriving unit in the first of the hexes where it stacks
    # legally (4.1), judged without making the trial position; off-map units set down among the pieces of a
    # random game's position, near where they stand
    from engine.tbf.game.reinforcement import deploy
    bot = R.bots()["random"](seed=bot_seed)
    sess = Session.new(R, None, (), 1)
    for _ in range(actions):
        legal = sess.legal_actions()
        if not legal:
            break
        a = bot.choose_action(R, sess.state, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    g = sess.state.game
    ctx = R.queries
    off = [p.id for p in g.pieces if p.hex is None]
    on = sorted({p.hex for p in g.on_map()})
    ids = data.draw(st.lists(st.sampled_from(off), max_size=8, unique=True)) if off else []
    near = data.draw(st.sampled_from(on))
    hexes = ctx.near(near, data.draw(st.integers(0, 2)))
    assert deploy(ctx, g, ids, hexes) == _deploy_by_trial(ctx, g, ids, hexes)


def test_the_levels_of_a_position_are_judged_once_and_given_as_new():
    # 10.2 read from the memo: the same answer as worked out afresh, and a caller's change to it stays its own
    from engine.tbf.game.queries import Queries
    from engine.tbf.game.options import OPTIONS
    from engine.tbf.game.victory import victory_with_options
    s, _ = _first_melees(3)
    q = Queries(R.sc)
    first = q.victory(s)
    fresh = victory_with_options(R.sc, s.game, frozenset(o for o in s.options if o in OPTIONS), frozenset(),
                                 s.rear_guard_short, regrouped=s.regrouped)
    assert first == fresh
    first["winner"] = "nobody"
    assert q.victory(s) == fresh
