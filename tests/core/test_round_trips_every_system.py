"""Round trips of issue 10, property-tested for every system on the protocol (n20 Fuentes and Bussaco, LoB,
TBF, BC): from any position reached by a random-legal game (hypothesis draws the seed and the length),

* the position survives ``state_to_json`` -> JSON text -> ``state_from_json`` (equal, and the same JSON again);
* every legal action there survives ``action_to_json`` -> JSON text -> ``action_from_json``, and its short
  notation survives ``format_action`` -> ``parse_action`` (the SAN-like ``str(action)`` and back);
* the position and the record's replay agree (the record is the source of truth).

Small in the default run (a few examples per system); the conformance suites play whole games under ``slow``.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.core.game import RandomBot, action_seed, new_record, replay, system_of
from engine.core.procedure import RandomDice

SYSTEMS = [("n20", "fuentes"), ("n20", "bussaco"), ("lob", None), ("tbf", None), ("bc", None)]


def _play(rules, scenario, seed: int, n: int):
    """A random-legal game of at most ``n`` actions: its last position and its record."""
    bot = RandomBot(seed=seed)
    state = rules.new_game(scenario or rules.default_scenario, (), seed)
    rec = new_record(rules, state, seed)
    for i in range(n):
        if rules.to_act(state) is None:
            break
        legal = rules.legal_actions(state)
        a = bot.choose_action(rules, state, legal)
        p = rules.begin(state, a).run(RandomDice(action_seed(seed, i)), lambda req: bot.choose(req, state))
        rec = rec.append(p.event())
        state = p.state
    return state, rec


@pytest.mark.parametrize("system,scenario", SYSTEMS, ids=[f"{g}-{s}" if s else g for g, s in SYSTEMS])
@settings(max_examples=4, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 31), n=st.integers(0, 25))
def test_positions_and_actions_round_trip(system, scenario, seed, n):
    rules = system_of(system)
    state, rec = _play(rules, scenario, seed, n)
    text = json.dumps(rules.state_to_json(state))
    back = rules.state_from_json(json.loads(text))
    assert back == state and json.dumps(rules.state_to_json(back)) == text
    assert rules.state_to_json(replay(rules, rec)[-1]) == rules.state_to_json(state)
    for a in rules.legal_actions(state):
        data = json.loads(json.dumps(rules.action_to_json(a)))
        assert rules.action_from_json(data) == a, data
        assert rules.parse_action(rules.format_action(a)) == a, rules.format_action(a)
