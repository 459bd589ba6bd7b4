"""Speed of the play page's quick odds (engine/core/quick_odds.py, issue 26 point 3), per system, in process
CPU time: the first pick of an attack (worked out), the same pick again (from the cache), the tree asked
for on a second call, and holding a position (its key). The attack is the first of greedy play from seed
1 whose odds take at most 35,000 steps (for Battle Commander, worked out from its compact position, the
piles as card summaries: its first attack, an assault). Run:
``python -m pytest tests/bench/test_odds_quick_bench.py --benchmark-enable -p no:cacheprovider``.
"""
from __future__ import annotations

import time
from functools import lru_cache

import pytest

from engine.core.errors import LimitError
from engine.core.game import play_game, system_of
from engine.core.odds import OddsCache
from engine.core.quick_odds import OddsDesk, position_key, quick_odds, tree_data

SYSTEMS = ["n20", "lob", "tbf", "bc"]


@lru_cache(maxsize=None)
def attack(system: str):
    rules = system_of(system)
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=1, max_actions=300, record=False,
              on_action=lambda s, n: seen.append(s) if not seen and rules.attack_candidates(s) else None)
    st = seen[0]
    for a in rules.attack_candidates(st):
        try:
            quick_odds(rules, st, a, max_steps=35_000, max_outcomes=20_000, cache=None)
            return rules, st, rules.action_to_json(a)
        except LimitError:
            continue
    raise AssertionError("no attack small enough")


@pytest.mark.benchmark(group="quick-odds-first-pick", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_quick_odds_first_pick(benchmark, system):
    rules, st, a = attack(system)
    data = benchmark.pedantic(lambda: quick_odds(rules, st, a, max_outcomes=20_000, cache=OddsCache(4)),
                              rounds=3, iterations=1)
    benchmark.extra_info.update(steps=data["steps"], end_positions=data["end_positions"])


@pytest.mark.benchmark(group="quick-odds-same-pick-again", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_quick_odds_same_pick_again(benchmark, system):
    rules, st, a = attack(system)
    desk = OddsDesk(cache=OddsCache(4), max_outcomes=20_000)
    key = desk.hold(rules, st)
    first = desk.odds(key, a)
    assert benchmark(desk.odds, key, a) == first


@pytest.mark.benchmark(group="quick-odds-tree", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_quick_odds_tree(benchmark, system):
    rules, st, a = attack(system)
    try:
        t = benchmark.pedantic(lambda: tree_data(rules, st, a, max_outcomes=20_000), rounds=3, iterations=1)
        benchmark.extra_info.update(nodes=t["nodes"])
    except LimitError as exc:                   # a tree past its bound: the error is what the page shows
        benchmark.extra_info.update(refused=str(exc)[:120])


@pytest.mark.benchmark(group="quick-odds-hold", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_position_key(benchmark, system):
    rules, st, _ = attack(system)
    benchmark(position_key, rules, st)
