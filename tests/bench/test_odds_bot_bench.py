"""Speed of the odds-aware bot (engine/core/odds.py OddsBot, engine/n20/game/odds_bot.py; issue 16 point 3):
whole games, the odds bot against the greedy bot, per system, timed in process CPU time as the other
benchmarks; and one decision of each kind on its own (a Napoleonic 20 declaration by odds, a weighed attack).

Whole games take seconds each, so they are marked ``slow``. Run:
``python -m pytest tests/bench/test_odds_bot_bench.py --benchmark-enable -m "" -p no:cacheprovider``.
"""
from __future__ import annotations

import time

import pytest

from engine.core.game import play_game, system_of


@pytest.mark.slow
@pytest.mark.benchmark(group="odds-bot-game", timer=time.process_time)
@pytest.mark.parametrize("system", ["n20", "lob", "tbf", "bc"])
@pytest.mark.parametrize("seed", [1, 2])
def test_bench_odds_vs_greedy_game(benchmark, system, seed):
    rules = system_of(system)
    final, _ = benchmark.pedantic(lambda: play_game(rules, ("odds", "greedy"), seed=seed, record=False),
                                  rounds=1, iterations=1)
    assert rules.outcome(final) is not None


@pytest.mark.benchmark(group="odds-bot-decision", timer=time.process_time)
def test_bench_n20_declaration_by_odds(benchmark):
    from engine.n20.game import combat as C
    from engine.n20.game.odds_bot import N20OddsBot
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=119, record=False)

    def declare():
        bot = N20OddsBot(seed=1)                 # a fresh bot: nothing cached
        bot.base(rules)
        return bot.choose_declaration(rules, st, C.declaration_options(st))
    pick = benchmark.pedantic(declare, rounds=3, iterations=1)
    assert pick.kind == "declare"


@pytest.mark.benchmark(group="odds-bot-decision", timer=time.process_time)
def test_bench_lob_attack_decision(benchmark):
    rules = system_of("lob")
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=2, max_actions=60, record=False,
              on_action=lambda s, n: seen.append(s) if len(rules.attack_candidates(s)) > 4 and not seen else None)
    assert seen
    st = seen[0]

    def decide():
        bot = rules.bots()["odds"](seed=1)
        return bot.choose_action(rules, st, None)
    benchmark.pedantic(decide, rounds=3, iterations=1)
