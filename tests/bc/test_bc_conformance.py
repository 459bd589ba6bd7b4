"""The core conformance suite (engine.core.conformance.check_game) on Battle Commander's demonstration scenario
(our own invented one), plus many random-bot games with the BC invariants checked after every action: hand
of six at most (15.0), tokens and reserve cubes within their caps (18.0), one place per Block and the
stacking limits (9.3), Morale on its track (13.0), and a turn that ends only on the last Black cube (16.2)."""
from __future__ import annotations

import pytest

from engine.bc.game.protocol import BcRules
from engine.core.conformance import check_game
from engine.core.game import play_game

R = BcRules()


@pytest.mark.parametrize("seed", [0, 1])
def test_conformance_small(seed):
    rep = check_game(R, seed=seed, max_actions=120, apply_sample=2, illegal_sample=3)
    assert rep.actions > 0 and rep.illegal_refused > 0
    assert rep.rules_cited          # every refusal named a rule


def test_conformance_whole_game():
    rep = check_game(R, seed=7, max_actions=2000, apply_sample=1, illegal_sample=2, full_state_every=5)
    assert rep.over and rep.outcome is not None and rep.outcome.rule in ("17.0", "13.1")


def _invariant_game(seed: int, bots=("random", "random")):
    broken = []

    def watch(state, n):
        problems = R.invariants(state)
        if problems:
            broken.append((n, problems))

    final, _ = play_game(R, bots, seed=seed, record=False, on_action=watch)
    return final, broken


def test_random_games_keep_the_invariants_small():
    for seed in range(3):
        final, broken = _invariant_game(seed)
        assert not broken and R.outcome(final) is not None


def test_conformance_with_leader_assisted_rallies_29_6():
    rep = check_game(R, seed=3, options=("leader_assist",), max_actions=400, apply_sample=2, illegal_sample=2)
    assert rep.actions > 0 and rep.rules_cited


@pytest.mark.slow
def test_200_random_games_keep_the_invariants():
    for seed in range(200):
        final, broken = _invariant_game(seed)
        assert not broken, (seed, broken[:2])
        assert R.outcome(final) is not None, seed


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_conformance_large(seed):
    rep = check_game(R, seed=100 + seed, max_actions=2000)
    assert rep.over


from hypothesis import given, settings, strategies as st  # noqa: E402
from sizes import examples  # noqa: E402

from engine.core.game import action_seed  # noqa: E402
from engine.core.procedure import RandomDice  # noqa: E402
import json  # noqa: E402


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 120))
def test_any_position_round_trips_and_keeps_the_invariants(seed, n):
    from engine.core.game import RandomBot
    bot = RandomBot(seed)
    s = R.new_game(seed=seed)
    for i in range(n):
        if R.to_act(s) is None:
            break
        a = bot.choose_action(R, s, R.legal_actions(s))
        s, _ = R.apply(s, a, dice=RandomDice(action_seed(seed, i)), chooser=bot.choose)
        assert not R.invariants(s)
    data = json.loads(json.dumps(R.state_to_json(s)))
    assert R.state_to_json(R.state_from_json(data)) == data
