"""Battle Commander exact odds by what matters (issue 26 point 2): cards enumerated by their icon and the CRT
results they can give (engine.bc.deck Faces), equal end positions merged (engine/bc/game/view.py odds_state),
against the enumeration over the cards themselves, by their numbers, which stays the oracle: core's
action_odds over the real position. The same fractions, outcome by outcome and metric by metric, on the test
positions of the BC tests and on random positions of random-bot games (hypothesis)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs

from engine.bc.game.actions import Attack
from engine.bc.game.odds import exact_odds
from engine.core.errors import LimitError
from engine.core.game import Session
from engine.core.odds import action_odds
from engine.systems import system_of
from tests.dashboards.attack_records import kind_of, record_until

R = system_of("bc")


def oracle(st, a, max_steps: int = 400_000):
    """The enumeration over the cards by their numbers (the real position, as action_odds always did)."""
    return action_odds(R, st, a, max_outcomes=20_000, max_steps=max_steps).to_json()


def same_as_the_oracle(st, a, max_steps: int):
    """The fast odds equal the oracle's; a position whose card sequences are too many for the oracle itself
    within ``max_steps`` (not for the fast way) is left out."""
    want = fast(st, a)
    try:
        truth = oracle(st, a, max_steps)
    except LimitError:
        assume(False)
    assert want == truth


def fast(st, a):
    return exact_odds(R, st, a).to_json()


def _record_position(attack: str):
    _, st, a, _ = record_until("bc", lambda r, s, x: kind_of(r, x) == "attack" and x.attack == attack)
    return st, a


def _greedy_position(attack: str, seed: int = 2):
    """A greedy game's first position where ``attack`` is legal while the other side holds cards."""
    sess = Session.new(R, None, (), seed)
    bot = R.bots()["greedy"](seed=1)
    for _ in range(3000):
        legal = sess.legal_actions()
        st = sess.state
        hits = [x for x in legal if isinstance(x, Attack) and x.attack == attack]
        if hits and all(h for _, h in st.g.hands):
            return st, hits[0]
        x = bot.choose_action(R, st, legal)
        sess.act(x, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError(f"no {attack} in a greedy game with cards in hand")


@pytest.mark.parametrize("attack", ["fire", "bombard"])
def test_same_fractions_on_the_play_page_positions(attack):
    st, a = _record_position(attack)
    assert fast(st, a) == oracle(st, a)


@pytest.mark.parametrize("attack", ["fire", "bombard"])
def test_same_fractions_with_cards_in_both_hands(attack):
    st, a = _greedy_position(attack)
    assert fast(st, a) == oracle(st, a)


@pytest.mark.slow
@pytest.mark.parametrize("where", ["record", "greedy"])
def test_same_fractions_for_an_assault(where):
    st, a = _record_position("assault") if where == "record" else _greedy_position("assault")
    assert fast(st, a) == oracle(st, a)


def _random_position(seed: int, skip: int, attack: str):
    """A random-bot game (seed ``seed``): the ``skip``-th position after the first where ``attack`` is legal."""
    sess = Session.new(R, None, (), seed)
    bot = R.bots()["random"](seed=seed)
    seen = 0
    for _ in range(1500):
        legal = sess.legal_actions()
        if not legal:
            break
        hits = [x for x in legal if isinstance(x, Attack) and x.attack == attack]
        if hits:
            if seen >= skip:
                return sess.state, hits[seen % len(hits)]
            seen += 1
        x = bot.choose_action(R, sess.state, legal)
        sess.act(x, chooser=lambda req: bot.choose(req, sess.state))
    return None


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(min_value=0, max_value=10_000), hs.integers(min_value=0, max_value=6),
       hs.sampled_from(["fire", "bombard"]))
def test_same_fractions_on_random_positions(seed, skip, attack):
    found = _random_position(seed, skip, attack)
    if found is not None:
        same_as_the_oracle(*found, max_steps=100_000)


@pytest.mark.slow
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hs.integers(min_value=0, max_value=10_000), hs.integers(min_value=0, max_value=4))
def test_same_fractions_on_random_assaults(seed, skip):
    found = _random_position(seed, skip, "assault")
    if found is not None:
        same_as_the_oracle(*found, max_steps=400_000)


def test_a_bound_is_named_with_how_far_it_got():
    st, a = _record_position("fire")
    with pytest.raises(LimitError) as e:
        exact_odds(R, st, a, max_steps=50)
    text = str(e.value)
    assert "enumeration steps: at most 50" in text and "branches run to their end" in text
    with pytest.raises(LimitError) as e:
        exact_odds(R, st, a, max_outcomes=2)
    assert "end positions: at most 2" in str(e.value) and "(got " in str(e.value)
