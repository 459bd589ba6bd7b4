"""Battle Commander speed: exact odds of combats (with and without a known discard pile), a Skill Check,
a full turn's cube cup, a played combat.

Run: ``python -m pytest tests/bench/test_bc_bench.py --benchmark-enable -p no:cacheprovider``.
"""
from __future__ import annotations

import pytest

from engine.bc.calc import check_odds, combat_odds, cup_odds
from engine.bc.blocks import Block
from engine.bc.combat import combat_procedure, neutral_policy
from engine.bc.tally import CombatSetup, CombatSide, Wing
from engine.bc.cup import Cup
from engine.bc.deck import Pile, default_deck
from engine.core.procedure import play

DECK = default_deck()
FIRE = CombatSetup("fire", CombatSide(Block("artillery")), CombatSide(Block("infantry"), Block("infantry")))
ASSAULT = CombatSetup("assault", CombatSide(Block("long_infantry", skill=3), Block("infantry"),
                                      wings=(Wing(Block("infantry"), adjacent_to_attacker=False),)),
                      CombatSide(Block("infantry"), Block("artillery"), terrain="village"),
                      neutral_attacker=1, neutral_defender=1)


@pytest.mark.benchmark(group="bc")
def test_bench_fire_combat_fresh_deck(benchmark):
    odds = benchmark(lambda: combat_odds(FIRE))
    assert odds.dist.total == 1


@pytest.mark.benchmark(group="bc")
def test_bench_assault_with_neutral_shifts_and_discards(benchmark):
    odds = benchmark(lambda: combat_odds(ASSAULT, discards=[3, 4, 12, 27, 40, 41, 55]))
    assert odds.dist.total == 1


@pytest.mark.benchmark(group="bc")
def test_bench_skill_check(benchmark):
    out = benchmark(lambda: check_odds("rally", 2, hq=True, enemy_adjacent=True))
    assert out["success"]["fraction"] == "27/35"


@pytest.mark.benchmark(group="bc")
def test_bench_cup_small(benchmark):
    out = benchmark(lambda: cup_odds(Cup.of({"blue": 4, "white": 4, "yellow": 2, "red": 3, "black": 3}), "blue"))
    assert out["at_least_own_before_end"]["0"]["fraction"] == "1/1"


@pytest.mark.benchmark(group="bc")
def test_bench_played_combat(benchmark):
    factory = combat_procedure(ASSAULT, DECK, Pile.for_play(DECK))
    p = benchmark(lambda: play(factory, seed=3, chooser=neutral_policy))
    assert p.result.pile is not None


@pytest.mark.slow
@pytest.mark.benchmark(group="bc-slow")
def test_bench_cavalry_assault_with_square_attempt(benchmark):
    s = CombatSetup("assault", CombatSide(Block("cavalry")), CombatSide(Block("infantry"), Block("infantry")))
    odds = benchmark.pedantic(lambda: combat_odds(s), rounds=1, iterations=1)
    assert odds.dist.total == 1


@pytest.mark.slow
@pytest.mark.benchmark(group="bc-slow")
def test_bench_full_turn_cup(benchmark):
    cup = Cup.of({"blue": 8, "white": 6, "gold": 1, "yellow": 2, "red": 3, "black": 3})
    out = benchmark.pedantic(lambda: cup_odds(cup, "blue"), rounds=1, iterations=1)
    assert out["at_least_own_before_end"]["0"]["fraction"] == "1/1"


@pytest.mark.benchmark(group="bc")
def test_bench_cup_with_pass_and_gold(benchmark):
    cup = Cup.of({"blue": 4, "white": 4, "gold": 1, "red": 2, "black": 3})
    out = benchmark.pedantic(lambda: cup_odds(cup, "blue", passes=("blue",), gold_next="black"), rounds=1,
                             iterations=1)
    assert out["at_least_own_before_end"]["0"]["fraction"] == "1/1"


@pytest.mark.benchmark(group="bc-game")
def test_bench_greedy_demonstration_game(benchmark):
    """A whole greedy-against-greedy game on the invented demonstration scenario (issue 14)."""
    from engine.bc.game.protocol import BcRules
    from engine.core.game import play_game
    rules = BcRules()
    final, _ = benchmark.pedantic(lambda: play_game(rules, ("greedy", "greedy"), seed=1, record=False),
                                  rounds=2, iterations=1)
    assert rules.outcome(final) is not None
