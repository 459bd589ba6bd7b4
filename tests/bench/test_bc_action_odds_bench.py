"""Battle Commander: exact odds of one declared attack over the game's own procedure (engine/core/odds.py
``action_odds``), on the positions of the play page's odds tests (tests/dashboards/attack_records.py).

The combat (23.1 step 6 to 27.11), its set-up and its outcome on the map are inline sub-procedures keyed
by value, so each is enumerated once; positions are hashable, so equal end positions are merged.

Run: ``python -m pytest tests/bench/test_bc_action_odds_bench.py --benchmark-enable -p no:cacheprovider``.
"""
from __future__ import annotations

import pytest

from engine.core.odds import action_odds
from tests.dashboards.attack_records import kind_of, record_until


def _position(attack: str):
    _, st, a, rules = record_until("bc", lambda r, s, x: kind_of(r, x) == "attack" and x.attack == attack)
    return rules, st, a


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
