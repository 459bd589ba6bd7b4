"""Deck data, the card draw (15.0) and Skill Checks (21.x): expected values worked out by hand."""
from fractions import Fraction
from functools import partial

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from engine.bc.checks import check_procedure, effective_skill, read_check
from engine.bc.deck import Pile, default_deck, draw_card, load_deck, parse_deck
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import TypedDice, distribution, play, replay

DECK = default_deck()
# Shipped provisional deck: 10 officer, 11 flags_1, 13 flags_2, 11 flags_3, 7 flags_4, 9 crossed, 9 death head.
OFFICERS = [n for n in DECK.event_numbers if DECK.card(n).skill == "officer"]


def test_deck_7_0_composition_and_provenance():
    assert len(DECK.event_numbers) == 70 and DECK.reshuffle_number == 31
    sides = [DECK.card(n).side for n in DECK.event_numbers]
    assert (sides.count("french"), sides.count("coalition"), sides.count("shared")) == (20, 20, 30)
    assert DECK.provenance == "provisional"
    assert len(OFFICERS) == 10


def test_deck_rows_respect_attacker_order_23_4():
    # every provisional row runs from the attacker's bad end to his good end as odds rise
    for n in DECK.event_numbers:
        c = DECK.card(n)
        for table in ("fire", "assault"):
            ranks = [DECK.rank(table, r) for r in c.row(table)]
            assert ranks == sorted(ranks), (n, table)


def _deck_text(drop=0, dup=False):
    data = yaml.safe_load(DECK_FILE.read_text())
    if drop:
        data["cards"] = [c for c in data["cards"] if c["number"] not in range(1, 1 + drop)]
    if dup:
        data["cards"][1]["number"] = data["cards"][0]["number"]
    return yaml.safe_dump(data)


from engine.core.data import data_path  # noqa: E402

DECK_FILE = data_path("bc", "deck.yaml")


def test_deck_file_without_70_cards_is_rejected_7_0():
    with pytest.raises(DataError) as e:
        parse_deck(_deck_text(drop=1), "short.yaml")
    assert "short.yaml" in str(e.value) and "70 event cards" in str(e.value) and "69" in str(e.value)


def test_deck_file_with_repeated_number_is_rejected():
    with pytest.raises(DataError) as e:
        parse_deck(_deck_text(dup=True), "dup.yaml")
    assert "repeated" in str(e.value)


def test_deck_file_with_a_short_row_is_rejected(tmp_path):
    data = yaml.safe_load(DECK_FILE.read_text())
    data["cards"][0]["fire"] = data["cards"][0]["fire"][:6]
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(DataError) as e:
        load_deck(p)
    assert "bad.yaml" in str(e.value) and "fire CRT row of 7" in str(e.value)


def test_discard_pile_naming_a_card_twice_is_rejected():
    with pytest.raises(DataError) as e:
        Pile.for_odds(DECK, [5, 9, 5])
    assert "discard pile[2]" in str(e.value) and "at most once" in str(e.value)


def test_reshuffle_card_cannot_be_discarded_15_0():
    with pytest.raises(DataError) as e:
        Pile.for_odds(DECK, [31])
    assert "15.0" in str(e.value)


def test_unknown_card_is_rejected():
    with pytest.raises(DataError):
        Pile.for_play(DECK, [999])


def test_fresh_draw_is_uniform_over_the_70_event_cards_15_0():
    # P(card X) = 1/71 directly + 1/71 (reshuffle) * 1/70 = (70 + 1) / (71 * 70) = 1/70
    d = distribution(partial(draw_card, Pile.for_play(DECK), DECK, "15.0"))
    faces = d.map(lambda fp: fp[0])
    assert len(faces) == 70 and all(p == Fraction(1, 70) for p in faces.values())


def test_reshuffle_brings_discards_back_15_0():
    # Typed draw: card 31 first, then the redrawn card may be a card that was in the discard pile.
    pile = Pile.for_play(DECK, discards=[7])
    played = play(partial(draw_card, pile, DECK, "21.2"), dice=TypedDice([31, 7]))
    face, after = played.result
    assert face == 7 and after.discard == () and 31 in after.draw and 7 not in after.draw
    assert len(after.draw) == 70  # 70 event cards + #31 - the card just drawn
    # replay of the recorded events gives the same
    assert replay(partial(draw_card, pile, DECK, "21.2"), played.events).result == played.result


def test_skill_check_21_2_with_hq_bonus_by_hand():
    # Skill 2 + Steady HQ = 3 (21.0). Success on officer 10 + flags 1..3 (11+13+11) + crossed flags 9 (good
    # morale) = 54 of 70 event cards; #31 reshuffles into the same uniform 70: 54/70 = 27/35.
    eff = effective_skill(2, steady_hq=True)
    assert eff == 3
    d = distribution(check_procedure(DECK, Pile.for_odds(DECK, tables=()), "general", eff, True))
    assert d.prob(lambda o: o.success) == Fraction(27, 35)
    # without the HQ: 10 + 11 + 13 + 9 = 43/70
    d = distribution(check_procedure(DECK, Pile.for_odds(DECK, tables=()), "general", 2, True))
    assert d.prob(lambda o: o.success) == Fraction(43, 70)
    # Bad Morale: crossed flags fail (13.1): 10 + 11 + 13 + 11 = 45/70 = 9/14 at skill 3
    d = distribution(check_procedure(DECK, Pile.for_odds(DECK, tables=()), "general", 3, False))
    assert d.prob(lambda o: o.success) == Fraction(9, 14)


def test_hq_does_not_raise_its_own_skill_21_0():
    assert effective_skill(3, steady_hq=True, is_hq=True) == 3


def test_skill_check_conditioned_on_discards_by_hand_15_0():
    # Five officer cards in the discard pile. Draw pile: 65 event cards + #31 = 66 cards.
    # Successes left at skill 3, good morale: 54 - 5 = 49. If #31 comes (1/66), all 70 cards are back: 54/70.
    # P = 49/66 + (1/66)(54/70) = (49*70 + 54) / 4620 = 3484/4620 = 871/1155.
    pile = Pile.for_odds(DECK, discards=OFFICERS[:5], tables=())
    d = distribution(check_procedure(DECK, pile, "general", 3, True))
    assert d.prob(lambda o: o.success) == Fraction(871, 1155)


def test_own_hand_is_out_of_the_draw_and_of_the_reshuffle():
    # Two officers in my hand: 68 event cards + #31 in the draw pile; the reshuffle does not bring hands back.
    # Successes at skill 3: 52 of 68 either way, so 52/68 = 13/17.
    pile = Pile.for_odds(DECK, hand=OFFICERS[:2], tables=())
    d = distribution(check_procedure(DECK, pile, "general", 3, True))
    assert d.prob(lambda o: o.success) == Fraction(13, 17)


def test_rally_21_1_officer_keeps_cube_and_death_head_costs_morale_when_adjacent():
    o = read_check("rally", "officer", 0, True)
    assert o.success and o.cube_back
    dh = read_check("rally", "death_head", 4, True, enemy_adjacent=True)
    assert not dh.success and dh.morale == -1
    sq = read_check("rally", "death_head", 4, True, enemy_adjacent=True, in_square=True)
    assert sq.morale == 0
    army = read_check("rally", "death_head", 4, True, army=True)
    assert army.morale == -1


def test_brittle_army_29_5_officer_fails_away_from_hq():
    assert not read_check("rally", "officer", 4, False, brittle=True).success
    assert read_check("rally", "officer", 4, False, brittle=True, near_steady_hq=True).success
    assert read_check("rally", "officer", 4, True, brittle=True).success


def test_out_of_command_21_3_crossed_flags_succeed_in_bad_morale():
    assert read_check("command", "crossed_flags", 0, False).success
    assert read_check("command", "officer", 0, False).cube_back
    assert not read_check("command", "flags_4", 3, True).success


def test_leader_assisted_check_29_6_costs_one_morale_without_a_draw():
    d = distribution(check_procedure(DECK, Pile.for_odds(DECK, tables=()), "general", 0, True, leader_assist=True))
    assert d.prob(lambda o: o.success and o.morale == -1 and o.leader_assisted) == 1


def test_bad_skill_is_refused():
    with pytest.raises(RuleViolation):
        check_procedure(DECK, Pile.for_odds(DECK), "general", 7)
    with pytest.raises(RuleViolation):
        read_check("nonsense", "officer", 1, True)


@settings(max_examples=25)
@given(st.sampled_from(["rally", "general", "command"]), st.integers(0, 5), st.booleans(),
       st.lists(st.sampled_from(DECK.event_numbers), max_size=20, unique=True))
def test_check_distributions_sum_to_one_and_rise_with_skill(table, skill, good, discards):
    pile = Pile.for_odds(DECK, discards, tables=())
    d = distribution(check_procedure(DECK, pile, table, skill, good))
    assert d.total == 1
    if skill < 5:
        d2 = distribution(check_procedure(DECK, pile, table, skill + 1, good))
        assert d2.prob(lambda o: o.success) >= d.prob(lambda o: o.success)


def test_27_9_leader_fate_of_war_by_hand():
    from engine.bc.checks import fate_check
    # A Leader card used in combat, Good Morale: Hors de Combat only on a Death Head (9 of 70);
    # back to hand on an Officer (10 of 70).
    d = distribution(partial(fate_check, Pile.for_odds(DECK, tables=()), DECK, None, True, leader=True))
    assert d.prob(lambda o: o.leader_hors_de_combat) == Fraction(9, 70)
    assert d.prob(lambda o: o.leader_back_to_hand) == Fraction(1, 7)
    # Bad Morale adds the crossed flags (9): 18/70 = 9/35
    d = distribution(partial(fate_check, Pile.for_odds(DECK, tables=()), DECK, None, False, leader=True))
    assert d.prob(lambda o: o.leader_hors_de_combat) == Fraction(9, 35)
    # an HQ of skill 2 is hit on 3 or 4 flags (11 + 7) and on a Death Head (9): 27/70
    d = distribution(partial(fate_check, Pile.for_odds(DECK, tables=()), DECK, 2, True))
    assert d.prob(lambda o: o.hq_hit) == Fraction(27, 70)
