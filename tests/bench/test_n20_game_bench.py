"""Speed of whole Napoleonic 20 games, bot against bot (goal in issue 3: >= 20 Fuentes games per second
on one core). Timed in process CPU time, as the other benchmarks."""
import time

import pytest

from engine.n20.game import play_game


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
