"""What each side may see (15.0 "No Peeking!": the draw pile face down, the other hand a count) and the odds
each side is shown, worked out from what that side knows (engine/bc/game/view.py)."""
from __future__ import annotations

import itertools
import json
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.bc.calc import combat_from_file
from engine.bc.combat import neutral_policy, resolve
from engine.bc.deck import Pile, UnseenPile, default_deck
from engine.bc.game.actions import Attack, action
from engine.bc.game.types import other
from engine.bc.game.view import HIDDEN_CARD
from engine.core.dist import Dist
from engine.core.game import Session, play_game
from engine.core.odds import action_odds
from engine.core.procedure import distribution
from engine.systems import system_of

RULES = system_of("bc")
DECK = default_deck()


def _cards_in(data, keys=("hands", "pile", "draw", "discard")):
    """Every card number under the position's hand and pile fields."""
    found = set()

    def walk(x, inside):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, inside or k in keys)
        elif isinstance(x, list):
            for v in x:
                walk(v, inside)
        elif inside and isinstance(x, int) and not isinstance(x, bool):
            found.add(x)
    walk(data, False)
    return found


@pytest.fixture(scope="module")
def game():
    """A greedy game (seed 2) and every state of it."""
    from engine.core.game import replay
    _, rec = play_game(RULES, ("greedy", "greedy"), None, seed=2)
    return rec, replay(RULES, rec)


def test_hides_and_spectator_sees_neither_hand(game):
    rec, states = game
    st = states[1]                                   # after the first start_turn: four cards each (16.1)
    assert RULES.hides(st)
    assert all(len(h) == 4 for _, h in st.g.hands)
    v = RULES.view(st, None)
    assert all(h == (HIDDEN_CARD,) * 4 for _, h in v.g.hands)
    assert set(v.g.pile.draw) == {HIDDEN_CARD} and len(v.g.pile.draw) == len(st.g.pile.draw)


@pytest.mark.parametrize("side", ["french", "coalition"])
def test_view_json_and_every_event_show_none_of_the_other_hand(game, side):
    """After the first Turn Preparation no card has been seen yet: the other hand's four cards appear nowhere
    in the side's view of the position, nor in its log of the events so far."""
    rec, states = game
    st = states[1]
    theirs = set(st.g.hand(other(side)))
    mine = st.g.hand(side)
    v = RULES.view(st, side)
    data = RULES.state_to_json(v)
    assert not theirs & _cards_in(data)
    assert v.g.hand(side) == mine and v.g.hand(other(side)) == (HIDDEN_CARD,) * len(theirs)
    assert v.g.pile.discard == st.g.pile.discard and v.g.cup == st.g.cup      # 16.2: the cup may be examined
    ev = RULES.visible_event(st, rec.events[0], side)
    drawn = [a["value"] for a in ev["answers"] if a["kind"] == "draw"]
    assert set(mine) <= set(drawn) and not theirs & set(drawn)
    assert sum(1 for a in ev["answers"] if a["kind"] == "draw" and a["value"] is None) == len(theirs)
    assert all(f'"value": {c}' not in json.dumps(ev) for c in theirs)


def test_later_hand_draws_masked_all_game(game):
    """Every card drawn into the other hand, all game long (turn draws 16.1, Black cubes 18.0), is masked."""
    rec, states = game
    for side in ("french", "coalition"):
        label = f"{other(side)} draws a card"
        for i, e in enumerate(rec.events):
            ev = RULES.visible_event(states[i], e, side)
            for a in ev["answers"]:
                if a["kind"] == "draw" and a["rule"] == "15.0" and a["label"].startswith(label):
                    assert a["value"] is None
                if a["kind"] == "draw" and a["label"].startswith(f"{side} draws a card"):
                    assert a["value"] is not None            # one's own draws are kept
        for st in states[::25]:
            theirs = set(st.g.hand(other(side)))
            assert not theirs & _cards_in(RULES.state_to_json(RULES.view(st, side)))


def test_visible_action_hides_the_other_sides_purchase_cards(game):
    _, states = game
    st = states[1]
    mine = action("purchase", "french", cards=(5,), buy="tokens")
    assert RULES.visible_action(st, mine, "french") == mine
    assert RULES.visible_action(st, mine, "coalition").cards == (HIDDEN_CARD,)
    assert RULES.visible_action(st, mine, None).cards == (HIDDEN_CARD,)


# ------------------------------------------------------------------------------------------------
# Odds from what a side knows
# ------------------------------------------------------------------------------------------------
def _attack_position(seed=2):
    """The first position of a greedy game where the side to act may fire and the other holds cards."""
    sess = Session.new(RULES, None, (), seed)
    bot = RULES.bots()["greedy"](seed=1)
    for _ in range(3000):
        legal = sess.legal_actions()
        st = sess.state
        fire = [a for a in legal if isinstance(a, Attack) and a.attack == "fire"]
        if fire and len(st.g.hand(other(st.actor))) >= 2:
            return st, fire[0]
        a = bot.choose_action(RULES, st, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError("no fire with cards in the other hand")


def _swap_hand(st, side):
    """``st`` with the other side's hand swapped for draw-pile cards unlike them (another icon or Fire row)."""
    g = st.g
    theirs = g.hand(other(side))
    faces = {DECK.face(c, ("fire", "assault")) for c in theirs}
    new = tuple(c for c in g.pile.draw if not DECK.is_reshuffle(c)
                and DECK.face(c, ("fire", "assault")) not in faces)[:len(theirs)]
    draw = tuple(c for c in g.pile.draw if c not in new) + theirs
    hands = tuple((s, new if s == other(side) else h) for s, h in g.hands)
    return replace(st, g=replace(g, hands=hands, pile=Pile(draw, g.pile.discard)))


def test_a_sides_odds_do_not_depend_on_the_other_hand():
    st, a = _attack_position()
    st2 = _swap_hand(st, a.side)
    assert st2.g.hand(other(a.side)) != st.g.hand(other(a.side))
    assert RULES.invariants(st2) == []
    seen = action_odds(RULES, RULES.odds_view(st, a.side), a).to_json()
    seen2 = action_odds(RULES, RULES.odds_view(st2, a.side), a).to_json()
    assert seen == seen2
    # the truth (every card known) depends on it: the swap changed the draw pile
    truth = action_odds(RULES, RULES.odds_state(st), a).to_json()
    truth2 = action_odds(RULES, RULES.odds_state(st2), a).to_json()
    assert truth != truth2
    # and with nothing hidden from the side (the other hand empty), its odds are the truth
    bare = replace(st, g=replace(st.g, hands=tuple((s, () if s == other(a.side) else h) for s, h in st.g.hands),
                                 pile=Pile(st.g.pile.draw + st.g.hand(other(a.side)), st.g.pile.discard)))
    assert action_odds(RULES, RULES.odds_view(bare, a.side), a).to_json() == \
        action_odds(RULES, RULES.odds_state(bare), a).to_json()


def _average(dists):
    total: dict = {}
    for d in dists:
        for k, p in d.items():
            total[k] = total.get(k, Fraction(0)) + p / len(dists)
    return Dist(total)


@pytest.mark.parametrize("example", ["assault", "fire"])
def test_unseen_pile_is_the_average_over_every_other_hand(example):
    """The exact model of 15.0 for one side: the draw pile holds the reshuffle card and 4 of the 7 cards it has
    not seen, the other hand the other 3, every split alike (35 of them). The combat's odds over the
    UnseenPile are the average of the 35 combats over each draw pile. The pile is small so that the
    reshuffle (15.0) comes up often and the 6 known discards come back into play."""
    setup, _ = combat_from_file(f"data/bc/examples/{example}.yaml")
    numbers = [n for n in DECK.event_numbers]
    unseen, discard = numbers[:7], numbers[7:13]
    each = []
    for hand in itertools.combinations(unseen, 3):
        draw = tuple(c for c in unseen if c not in hand) + (DECK.reshuffle_number,)
        each.append(distribution(lambda draw=draw: resolve(setup, DECK, Pile(draw, tuple(discard)).summarise(DECK, ("fire", "assault"))),
                                 policy=neutral_policy))
    pile = UnseenPile.of(DECK, unseen, 4, discard)
    got = distribution(lambda: resolve(setup, DECK, pile), policy=neutral_policy)
    assert len(each) == 35 and got == _average(each)
    # the pooled reading (the other hand's cards taken as in the draw pile, as the calculators do when the
    # other hand's size is not known) draws the reshuffle card 1 time in 8 instead of 1 in 5: not exact here
    pooled = distribution(lambda: resolve(setup, DECK, UnseenPile.of(DECK, unseen, 7, discard)), policy=neutral_policy)
    assert pooled != got


def test_quick_odds_hook_gives_a_sides_view_and_refuses_turn_preparation():
    """Core's quick odds ask the system for the position a side's odds come from (odds_position): BC gives
    the side's odds_view; Turn Preparation is refused (its hands are cut by what each card is, 16.1)."""
    from engine.core.errors import RuleViolation
    from engine.core.quick_odds import quick_odds
    st, a = _attack_position()
    assert RULES.odds_position(st, a, a.side) == RULES.odds_view(st, a.side)
    # the play page's quick odds for the attacking side (core refused them with OddsHidden without the hook)
    got = quick_odds(RULES, st, a, seen_by=a.side, cache=None)
    want = action_odds(RULES, RULES.odds_view(st, a.side), a)
    assert [(x["label"], Fraction(x["fraction"])) for x in got["lines"]] == \
        [(o.label, o.probability) for o in want.outcomes]
    with pytest.raises(RuleViolation) as e:
        RULES.odds_position(RULES.new_game(), action("start_turn", "french"), "french")
    assert e.value.rule == "15.0"


def test_a_rally_odds_see_its_own_cards_icon_whatever_the_piles_order():
    """20.0: a Zone Rally on a Death Head opens no reform window. Over the cards by their numbers and over
    their summaries (whose discard pile is kept sorted) the phases that follow have the same chances."""
    from engine.bc.game.state import set_block
    from engine.core.procedure import distribution
    st = RULES.new_game()
    g = set_block(st.g, "F2", replace(st.g.unit("F2").block, state="disrupted"))     # M2: F1 and F2 may swap
    g = replace(g, reserve=(("french", 2), ("coalition", 0)), pile=Pile(g.pile.draw, tuple(DECK.event_numbers[60:])),
                cup=RULES.new_game().g.cup)
    g = replace(g, pile=Pile(tuple(c for c in g.pile.draw if c not in g.pile.discard), g.pile.discard))
    st = replace(st, g=g, phase="yellow_rally", actor="french")
    a = action("rally", "french", frm="M2")

    def phases(pos):
        return distribution(lambda: RULES.perform(pos, a)).map(lambda s: (s.phase, s.actor))
    assert phases(RULES.odds_state(st)) == phases(st)
    assert len(phases(st)) == 2          # a reform window or the enemy's turn to rally
