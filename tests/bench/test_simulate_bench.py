"""Speed of scenario studies on Dask (issue 16): what the study machinery costs beside the games.

The games run in worker processes, so these benchmarks time the CPU of this process *and its children*
(the LocalCluster's workers), not only this one: that is where Dask's per-task and housekeeping costs
land. The dice race of tests/core/race_game.py keeps each game tiny, so nearly all that is timed is the
study's overhead. The Fuentes benchmark (whole greedy games on 2 workers) is marked slow."""
import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from engine.core.simulate import Study, local_cluster, play_one, run_study

RACE_DIR = str(Path(__file__).resolve().parents[1] / "core")
RACE = Study("race", "short", (), ("random", "random"), games=64, seed=11, plugin="race_game")


def tree_cpu() -> float:
    """User + system CPU seconds of this process and of every live child (the Dask workers)."""
    total = 0.0
    me = psutil.Process()
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:          # a process that just ended
            continue
        total += t.user + t.system
    return total


@pytest.fixture(scope="module")
def cluster():
    """One 2-worker study cluster for the module; its workers import the race from tests/core."""
    old_env = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([RACE_DIR, old_env or ""])
    sys.path.insert(0, RACE_DIR)
    try:
        with local_cluster(2) as c:
            yield c
    finally:
        sys.path.remove(RACE_DIR)
        if old_env is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old_env


@pytest.mark.benchmark(timer=time.process_time)
def test_bench_play_one_race_in_process(benchmark, cluster):
    """The per-game cost of play_one (rules look-up, turn-by-turn metrics) on a game of a few actions."""
    games = iter(range(10 ** 6))
    row = benchmark(lambda: play_one(RACE, next(games)))
    assert row["winner"] in ("red", "blue", "draw", "unfinished")


@pytest.mark.benchmark(timer=tree_cpu)
def test_bench_race_study_on_two_workers_cluster_cpu(benchmark, cluster):
    """64 tiny games on the 2-worker cluster: the CPU of client, scheduler and workers per study."""
    rows = benchmark(lambda: run_study(RACE, scheduler=cluster.scheduler_address))
    assert [r["game"] for r in rows] == list(range(64))


@pytest.mark.benchmark(timer=tree_cpu)
def test_bench_idle_study_cluster_cpu_per_second(benchmark, cluster):
    """What the 2-worker study cluster burns doing nothing for 1 s (heartbeats, ticks, monitors)."""
    benchmark.pedantic(time.sleep, args=(1.0,), rounds=3, iterations=1)


@pytest.mark.slow
@pytest.mark.benchmark(timer=time.perf_counter)
def test_bench_fuentes_greedy_study_two_workers(benchmark):
    """Whole Fuentes greedy games on a fresh 2-worker LocalCluster, start and close included (wall)."""
    study = Study("n20", "fuentes", (), ("greedy", "greedy"), games=40, seed=7)
    rows = benchmark.pedantic(run_study, args=(study,), kwargs={"workers": 2}, rounds=1, iterations=1)
    assert len(rows) == 40
