"""Speed of the exact Lines of Battle combat analysis (goal: 5 vs 5 under stay-until-1 <= 50 ms median).

Timed in process CPU time: the machines these run on are shared, and wall time there measures the
neighbours as much as the engine."""
import time

import pytest

from engine.lob.analysis import analyse, parse_combat
from engine.lob.policies import CombatPolicy

FIVE_VS_FIVE = """
target: "15"
origin: "16"
attackers: [{uid: A, kind: inf, rating: 5}]
defenders: [{uid: D, kind: inf, rating: 5}]
"""


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_lob_5_vs_5_stay_until_strength_1(benchmark):
    ctx, att, dfn = parse_combat(FIVE_VS_FIVE)
    pol = CombatPolicy("until:1", "until:1")
    an = benchmark(analyse, ctx, att, dfn, pol)
    assert an.dist.total == 1
    assert 0 < an.attacker_takes_area < 1


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_lob_5_vs_5_always_stay(benchmark):
    ctx, att, dfn = parse_combat(FIVE_VS_FIVE)
    an = benchmark(analyse, ctx, att, dfn, CombatPolicy("stay", "stay"))
    assert an.dist.total == 1


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_lob_cavalry_and_infantry_group(benchmark):
    ctx, att, dfn = parse_combat("""
target: "15"
origin: "23"
attackers: [{uid: C, kind: cav, cav: heavy, rating: 3}, {uid: I, kind: inf, rating: 3}]
defenders: [{uid: D, kind: inf, rating: 3, approach: "23"}, {uid: E, kind: inf, rating: 2},
            {uid: G, kind: art, deployed: true}]
""")
    an = benchmark(analyse, ctx, att, dfn, CombatPolicy("until:1", "until:1"))
    assert an.dist.total == 1


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_lob_albuera_greedy_game(benchmark):
    """A whole Albuera game, greedy against greedy, through core's play_game (seed 2; the greedy bot
    attacks early, so its games end by turn 3-8)."""
    from engine.core.game import play_game
    from engine.lob.protocol import LobRules
    rules = LobRules()
    final, rec = benchmark.pedantic(play_game, args=(rules, ("greedy", "greedy")), kwargs={"seed": 2},
                                    rounds=3, iterations=1)
    assert rules.outcome(final) is not None and len(rec.events) > 10


def _cold():
    """Empty the process-wide caches the greedy bot and the move search share (engine.lob.bots,
    engine.lob.movement, engine.lob.rounds): the game is timed as the first one of a study is."""
    from engine.lob import bots, movement, rounds
    for cache in (bots._FIGHTS, bots._MEMOS, bots._TRIES):
        cache.clear()
    movement.clear_reach_cache()
    rounds.clear_roll_cache()
    return (), {}


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_lob_albuera_greedy_game_cold_caches(benchmark):
    """Seed 5 (a short game, 120 actions), greedy against greedy, each round from empty caches (issues
    10 and 16: a study's first game; later games reuse the fights and move searches already worked out)."""
    from engine.core.game import play_game
    from engine.lob.protocol import LobRules
    rules = LobRules()
    final, rec = benchmark.pedantic(lambda: play_game(rules, ("greedy", "greedy"), seed=5), setup=_cold,
                                    rounds=2, iterations=1)
    assert rules.outcome(final) is not None and len(rec.events) == 120
