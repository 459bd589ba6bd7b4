"""Napoleonic 20 battle speed: exact enumeration against a Monte Carlo of the SAME procedure.

Battles: ``n20_map_battle.yaml`` (on a map: both defenders retreat through enemy ZOCs and across a minor
river, the attackers through a river crossing) and ``n20_context_free_battle.yaml`` (three attackers
against two defenders with hazardous paths). Three attacking hexes cannot all touch two defending hexes
on a hex map (9.2.2), so the three-against-two case is the context-free one.

Run: ``python -m pytest tests/bench/test_n20_battle_bench.py --benchmark-enable -p no:cacheprovider``;
the full 10^6-sample Monte Carlo: add ``-m slow -s``.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
import time

import pytest

from engine import n20
from engine.core.sampling import sample

EX = Path(__file__).resolve().parents[2] / "data" / "examples"
MAP = EX / "n20_map_battle.yaml"
CF = EX / "n20_context_free_battle.yaml"


def _fresh(b):
    # no step of this battle cached: the battle's step caches are module caches keyed by its value, so
    # they are emptied (the map's path cache stays warm)
    from engine.n20 import battle as _battle
    _battle._STEPS.clear()
    _battle._strengths_of.cache_clear()
    return replace(b)


@pytest.mark.benchmark(group="n20-battle")
def test_bench_map_battle_exact(benchmark):
    b = n20.load_battle(MAP)
    res = benchmark(lambda: n20.odds(_fresh(b)))
    assert res.outcomes.total == 1


@pytest.mark.benchmark(group="n20-battle")
def test_bench_three_vs_two_exact(benchmark):
    b = n20.load_battle(CF)
    res = benchmark(lambda: n20.odds(_fresh(b)))
    assert res.outcomes.total == 1


@pytest.mark.benchmark(group="n20-battle")
def test_bench_map_battle_monte_carlo_per_sample(benchmark):
    """Monte Carlo with the play driver: time for 1,000 samples (x1000 estimates 10^6)."""
    b = n20.load_battle(MAP)
    s = benchmark.pedantic(lambda: sample(n20.procedure(b), 1000, seed=1), rounds=3, iterations=1)
    exact = n20.odds(b)
    broken = exact.summary["defender_broken"]
    lo, hi = s.interval(lambda o: any(f.role == "defender" and f.fate == "broken" for f in o.fates), z=4.5)
    assert lo <= float(broken) <= hi


def _median(f, n=7):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[n // 2]


@pytest.mark.slow
@pytest.mark.parametrize("path", [MAP, CF], ids=["map-2v2", "context-free-3v2"])
def test_monte_carlo_million_samples_against_exact(path):
    """The 10^6-sample Monte Carlo of the same procedure; prints both figures and their ratio."""
    b = n20.load_battle(path)
    exact_s = _median(lambda: n20.odds(_fresh(b)))
    exact = n20.odds(b)
    t = time.perf_counter()
    s = sample(n20.procedure(b), 1_000_000, seed=2026)
    mc_s = time.perf_counter() - t
    print(f"\n{path.name}: exact median {exact_s * 1000:.2f} ms, MC 10^6 {mc_s:.1f} s, ratio {mc_s / exact_s:.0f}x")
    for o, p in exact.outcomes.items():
        lo, hi = s.interval(lambda x, o=o: x == o, z=5)
        assert lo <= float(p) <= hi
