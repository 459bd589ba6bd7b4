"""Speed of whole Napoleonic 20 games, bot against bot, on the core game loop (issue 10; goal in issue 3:
>= 20 Fuentes games per second on one core), and of listing the legal actions of a movement phase (the
candidates filtered by the same check applying runs). Timed in process CPU time, as the other benchmarks."""
import time

import pytest

from engine.core.game import play_game as core_play_game
from engine.n20.game import memo, play_game
from engine.n20.game.protocol import N20Rules


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_full_fuentes_greedy_game(benchmark):
    play_game("fuentes", bots=("greedy", "greedy"), seed=0, record=False)   # warm the caches
    seeds = iter(range(1, 10 ** 6))
    final, _ = benchmark(lambda: play_game("fuentes", bots=("greedy", "greedy"), seed=next(seeds), record=False))
    assert final.over and final.result is not None


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_bussaco_greedy_game(benchmark):
    seeds = iter(range(1, 10 ** 6))
    final, _ = benchmark(lambda: play_game("bussaco", bots=("greedy", "greedy"), seed=next(seeds), record=False))
    assert final.over


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_fuentes_random_game_core_loop(benchmark):
    rules = N20Rules()
    seeds = iter(range(1, 10 ** 6))
    final, _ = benchmark(lambda: core_play_game(rules, ("random", "random"), "fuentes", seed=next(seeds),
                                                record=False))
    assert final.over


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_legal_actions_fuentes_first_movement(benchmark):
    rules = N20Rules()
    s = rules.new_game("fuentes", seed=1)

    def legal():
        memo.clear()                     # the reach of every unit computed afresh each round
        return rules.legal_actions(s)
    acts = benchmark(legal)
    assert len(acts) > 50


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_reachable_every_unit_fuentes_first_movement(benchmark):
    """The movement search alone (engine.core.graph.search over (hex, must stop) states): every unit's
    reachable hexes in the first French movement phase, computed afresh each round."""
    from engine.n20.game import reach as RC
    s = N20Rules().new_game("fuentes", seed=1)

    def reach_all():
        memo.clear()
        return sum(len(RC.search_moves(s, u.id)) for u in s.units if u.status == "map")
    assert benchmark(reach_all) > 50


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_state_with_units(benchmark):
    """Making a new state with one unit changed (its indexes and hash are made with it, issue 10.6)."""
    from dataclasses import replace
    s = N20Rules().new_game("fuentes", seed=1)
    u = next(x for x in s.units if x.status == "map")
    moved = replace(u, moved=True)
    s2 = benchmark(lambda: s.with_units({u.id: moved}))
    assert s2.unit(u.id).moved and hash(s2) != hash(s)
