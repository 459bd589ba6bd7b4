"""Battle Commander: exact odds of one declared attack over the game's own procedure (engine/core/odds.py
``action_odds``), on the positions of the play page's odds tests (tests/dashboards/attack_records.py) and on a
greedy game's position where both sides hold cards.

Three ways, the same procedure: over the cards by their numbers (the real position: each card a branch, each
pile an end position), with every card known but enumerated by what changes a result
(``BcRules.odds_state``: its icon and CRT results; the same fractions, tests/bc/test_bc_exact_odds.py), and as
the attacking side knows the cards (``BcRules.odds_view``, 15.0: the draw pile and the other hand as one
unseen pool). The combat (23.1 step 6 to 27.11), its set-up and its outcome on the map are inline
sub-procedures keyed by value, so each is enumerated once; positions are hashable, so equal end positions meet.

Run: ``python -m pytest tests/bench/test_bc_action_odds_bench.py --benchmark-enable -p no:cacheprovider``
(``-m slow`` adds the assault over the cards by their numbers, about 9,900 end positions).
"""
from __future__ import annotations

import pytest

from engine.bc.game.actions import Attack
from engine.core.game import Session
from engine.core.odds import action_odds
from engine.systems import system_of
from tests.dashboards.attack_records import kind_of, record_until


def _position(attack: str):
    _, st, a, rules = record_until("bc", lambda r, s, x: kind_of(r, x) == "attack" and x.attack == attack)
    return rules, st, a


def _greedy_position(attack: str, seed: int = 2):
    rules = system_of("bc")
    sess = Session.new(rules, None, (), seed)
    bot = rules.bots()["greedy"](seed=1)
    for _ in range(3000):
        legal = sess.legal_actions()
        hits = [x for x in legal if isinstance(x, Attack) and x.attack == attack]
        if hits and all(h for _, h in sess.state.g.hands):
            return rules, sess.state, hits[0]
        x = bot.choose_action(rules, sess.state, legal)
        sess.act(x, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError(attack)


@pytest.mark.benchmark(group="bc-action-odds")
@pytest.mark.parametrize("attack", ["bombard", "fire"])
def test_bench_bc_action_odds(benchmark, attack):
    rules, st, a = _position(attack)
    odds = benchmark.pedantic(lambda: action_odds(rules, st, a), rounds=1, iterations=1)
    assert odds.total == 1


@pytest.mark.slow
@pytest.mark.benchmark(group="bc-action-odds-slow")
def test_bench_bc_action_odds_assault(benchmark):
    # about 9,900 distinct end positions (the tracked pile keeps which cards were drawn): past the default
    # bound of end positions, so the bound is raised here
    rules, st, a = _position("assault")
    odds = benchmark.pedantic(lambda: action_odds(rules, st, a, max_outcomes=20_000), rounds=1, iterations=1)
    assert odds.total == 1


@pytest.mark.benchmark(group="bc-action-odds-by-what-matters")
@pytest.mark.parametrize("attack", ["bombard", "fire", "assault"])
@pytest.mark.parametrize("where", ["page", "greedy"])
def test_bench_bc_odds_state(benchmark, attack, where):
    rules, st, a = _position(attack) if where == "page" else _greedy_position(attack)
    pos = rules.odds_state(st)
    odds = benchmark.pedantic(lambda: action_odds(rules, pos, a), rounds=3, iterations=1)
    assert odds.total == 1


@pytest.mark.benchmark(group="bc-action-odds-as-a-side-knows")
@pytest.mark.parametrize("attack", ["bombard", "fire", "assault"])
def test_bench_bc_odds_view(benchmark, attack):
    rules, st, a = _greedy_position(attack)
    pos = rules.odds_view(st, a.side)
    odds = benchmark.pedantic(lambda: action_odds(rules, pos, a), rounds=3, iterations=1)
    assert odds.total == 1
