"""The rules' own share of a bot game: replaying a recorded greedy-vs-greedy game runs every action's check
and procedure with the recorded dice and answers, and asks no bot anything. Its time is the floor under
any bot game of the same length: a game cannot be played faster than its rules can be applied (issues 10,
13 and 16 set games-per-second goals on one core). Timed in process CPU time, as the other benchmarks.

Run: ``python -m pytest tests/bench/test_replay_bench.py --benchmark-enable -p no:cacheprovider``.
"""
import time

import pytest

from engine.core import game as G


def _recorded(system: str, scenario: str | None, seed: int):
    rules = G.system_of(system)
    final, record = G.play_game(rules, ("greedy", "greedy"), scenario, seed=seed)
    assert rules.to_act(final) is None, "the recorded game is played to its end"
    return rules, final, record


@pytest.mark.parametrize("system, scenario", [("n20", "fuentes"), ("tbf", None), ("lob", None)])
@pytest.mark.benchmark(group="replay", timer=time.process_time)
def test_bench_replay_of_a_greedy_game(benchmark, system, scenario):
    rules, final, record = _recorded(system, scenario, seed=4)
    states = benchmark(lambda: G.replay(rules, record))
    # the replay walks every recorded event and ends on the very state the game ended on
    assert len(states) == len(record.events) + 1
    assert rules.state_to_json(states[-1]) == rules.state_to_json(final)
