"""Combat (10, 23-27): CP tallies, clamps, shifts, results, exceptions; play and enumerate agreeing."""
from collections import Counter
from fractions import Fraction
import math

import pytest
from hypothesis import given, settings, strategies as st
from sizes import examples

from engine.bc.calc import combat_odds
from engine.bc.blocks import Block
from engine.bc.combat import combat_procedure, neutral_policy
from engine.bc.deck import apply_shift
from engine.bc.tally import CombatSetup, CombatSide, prepare, Wing
from engine.bc.deck import Pile, default_deck
from engine.core.errors import RuleViolation
from engine.core.procedure import RandomDice, Stepper, TypedDice, distribution, play, replay

DECK = default_deck()
INF, LONG, CAV, ART = Block("infantry"), Block("long_infantry"), Block("cavalry"), Block("artillery")


def cp(setup):
    t = prepare(setup)
    return t.attacker_cp, t.defender_cp, t.column


# ---- 31.0 Combat CP & Support examples ------------------------------------------------------------
def test_31_0_second_line_infantry_gives_no_fire_support():
    # lead Infantry fires (1 CP); a 2nd Line Infantry cannot support Fire (23.6 note A): 1 - 0 = +1
    assert cp(CombatSetup("fire", CombatSide(INF, INF), CombatSide(INF))) == (1, 0, 1)


def test_31_0_second_line_artillery_supports_fire_but_not_when_disrupted():
    assert cp(CombatSetup("fire", CombatSide(INF, ART), CombatSide(INF))) == (2, 0, 2)          # 1 + 1 support
    dis = Block("artillery", state="disrupted")
    assert cp(CombatSetup("fire", CombatSide(INF, dis), CombatSide(INF))) == (1, 0, 1)


def test_31_0_only_guns_count_when_firing_and_wing_rules():
    # Artillery fires with its 2 guns; wing Cavalry and wing Garrison give no Fire support, wing Infantry does:
    # 2 + 1 = 3 against clear terrain (no defender block CPs in Fire, 23.2)
    wings = (Wing(CAV), Wing(Block("garrison")), Wing(INF))
    assert cp(CombatSetup("fire", CombatSide(ART, wings=wings), CombatSide(LONG))) == (3, 0, 3)
    assert cp(CombatSetup("fire", CombatSide(Block("horse_artillery")), CombatSide(INF)))[0] == 1


def test_31_0_disrupted_artillery_fires_with_a_left_shift_and_disrupted_infantry_cannot():
    t = prepare(CombatSetup("fire", CombatSide(Block("artillery", state="disrupted")), CombatSide(INF)))
    assert t.attacker_cp == 2 and [s.amount for s in t.shifts] == [-1]
    with pytest.raises(RuleViolation) as e:
        prepare(CombatSetup("fire", CombatSide(Block("infantry", state="disrupted")), CombatSide(INF)))
    assert e.value.rule == "23.6"
    # 27.8: Disciplined Infantry (skill 2+) may fire when Disrupted
    t = prepare(CombatSetup("fire", CombatSide(Block("infantry", state="disrupted")), CombatSide(INF),
                            attacker_disciplined_infantry=True))
    assert t.attacker_cp == 1


def test_31_0_shaken_infantry_fires_but_cannot_assault():
    sh = Block("infantry", state="shaken")
    assert cp(CombatSetup("fire", CombatSide(sh), CombatSide(INF)))[0] == 1
    with pytest.raises(RuleViolation) as e:
        prepare(CombatSetup("assault", CombatSide(sh), CombatSide(INF)))
    assert e.value.rule == "23.6"


@pytest.mark.parametrize("attacker,attack,rule", [
    (Block("cavalry"), "fire", "23.6"),
    (Block("artillery"), "assault", "23.6"),
    (Block("garrison"), "assault", "23.6"),
    (Block("infantry", formation="square"), "assault", "27.3"),
    (Block("long_infantry", state="disrupted"), "assault", "23.6"),
])
def test_23_6_block_that_cannot_attack_that_way_is_refused(attacker, attack, rule):
    with pytest.raises(RuleViolation) as e:
        combat_procedure(CombatSetup(attack, CombatSide(attacker), CombatSide(INF)), DECK, Pile.for_odds(DECK))
    assert e.value.rule == rule and "cannot" in e.value.message


def test_31_0_assault_supports_and_lead_defender_always_counted():
    # Attacker: Long Infantry 2 + 2nd-line Artillery 1 + wing Cavalry 1 + wing Square 0 + wing Shaken 0 = 4.
    # Defender: Disrupted Long Infantry still counts its 2 (23.3) + Shaken 2nd line 0 + woods 1 = 3. Column +1.
    wings = (Wing(CAV), Wing(Block("infantry", formation="square")), Wing(Block("infantry", state="shaken")))
    s = CombatSetup("assault", CombatSide(LONG, ART, wings=wings),
                    CombatSide(Block("long_infantry", state="disrupted"), Block("infantry", state="shaken"),
                         terrain="woods"))
    t = prepare(s)
    assert (t.attacker_cp, t.defender_cp, t.column) == (4, 3, 1)
    # 31.0 on 23.4: a Disrupted defender is always flanked: one shift right
    assert t.flanked and t.net_shift == 1


def test_23_1_wing_support_restrictions():
    blocked = (Wing(INF, engaged=True), Wing(INF, in_other_enemy_battle_zone=True), Wing(INF, across_impassable=True))
    assert cp(CombatSetup("assault", CombatSide(INF, wings=blocked), CombatSide(INF)))[0] == 1
    # HQ gives no support CP (10.0)
    assert cp(CombatSetup("assault", CombatSide(INF, hq=None), CombatSide(INF)))[0] == 1


def test_9_4_flank_conditions():
    # condition II: a wing not adjacent to the Lead Attacker flanks even a Steady defender
    t = prepare(CombatSetup("assault", CombatSide(INF, wings=(Wing(INF, adjacent_to_attacker=False),)), CombatSide(INF)))
    assert t.flanked
    # an adjacent wing alone does not
    assert not prepare(CombatSetup("assault", CombatSide(INF, wings=(Wing(INF),)), CombatSide(INF))).flanked
    # condition I: the attacker sits in the defender's flanked zone
    assert prepare(CombatSetup("assault", CombatSide(INF, in_flanked_zone=True), CombatSide(INF))).flanked
    # a Square is never flanked (9.4)
    sq = Block("infantry", formation="square")
    assert not prepare(CombatSetup("fire", CombatSide(INF, in_flanked_zone=True), CombatSide(sq))).flanked


def test_23_4_column_clamped_to_plus_4_and_minus_2():
    # 2 + 1 + three wings = 6 against a Garrison (0) in clear: +6 -> +4
    big = CombatSetup("assault", CombatSide(LONG, INF, wings=(Wing(INF), Wing(INF), Wing(INF))), CombatSide(Block("garrison")))
    t = prepare(big)
    assert t.raw_column == 6 and t.column == 4
    # a Garrison fires with 0 CP at a town (2) behind a river (1): -3 -> -2
    small = CombatSetup("fire", CombatSide(Block("garrison")), CombatSide(INF, terrain="town"), interval="river")
    t = prepare(small)
    assert t.raw_column == -3 and t.column == -2


def test_23_3_slope_interval_only_helps_the_higher_zone():
    hi = CombatSetup("assault", CombatSide(LONG), CombatSide(INF), interval="up_slope", defender_higher=True)
    lo = CombatSetup("assault", CombatSide(LONG), CombatSide(INF), interval="up_slope", defender_higher=False)
    assert prepare(hi).defender_cp == 2 and prepare(lo).defender_cp == 1


def test_23_4_shift_skips_equal_results():
    # The rule's example: one shift right from a Round Shot at -1 lands on Skull & Bones two columns right.
    row = ("gun_smoke", "round_shot", "round_shot", "skull_bones", "skull_bones", "skull_bones", "skull_bones")
    assert apply_shift(row, -1, 1) == 3
    # at the table's end nothing is extrapolated
    assert apply_shift(row, 2, 1) == 4 and apply_shift(row, 4, 3) == 6
    # two shifts left from +2 (skull): to round shot (index 2), then gun smoke (index 0)
    assert apply_shift(row, 2, -2) == 0


def test_23_4_flanked_shift_on_a_real_card_skips_equal_results():
    # Infantry (1 CP) fires at a Disrupted Infantry in clear: column +1, flanked +1 (31.0 on 23.4).
    # Card 1's Fire row: gun_smoke, gun_smoke, muskets_shot, muskets_shot, muskets_shot, round_shot, round_shot.
    # At +1 (4th cell) Muskets & Shot; the next different result to the right is Round Shot at +3.
    # Round Shot: the Disrupted lead defender takes a hit, so it retreats one Zone (24.1).
    s = CombatSetup("fire", CombatSide(INF), CombatSide(Block("infantry", state="disrupted")))
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([1]), chooser=neutral_policy).result
    assert out.result == "round_shot"
    assert out.fate("defender_lead").retreats == 1 and out.fate("attacker_lead").hits == 0


def test_retreat_flag_at_plus_4_with_officer_on_critical_table():
    # Column +4 (clamped) and a flank shift: card 3's Assault row ends in Retreat Flag, the shift adds nothing.
    # Retreat Flag: defender loses 1 Morale and checks the Critical Combat Table: card 7 is an Officer, so the
    # loss is cancelled (net 0). The Garrison retreats, then takes a hit (Steady -> Disrupted).
    s = CombatSetup("assault", CombatSide(LONG, INF, wings=(Wing(INF, adjacent_to_attacker=False), Wing(INF), Wing(INF))),
                    CombatSide(Block("garrison")))
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([3, 7])).result
    assert out.result == "retreat_flag" and out.critical == "officer"
    assert out.defender_morale == 0
    f = out.fate("defender_lead")
    assert f.retreats == 1 and f.state == "disrupted"
    assert out.zone_emptied and out.advance_morale


def test_play_pile_is_returned_with_used_cards_discarded():
    s = CombatSetup("assault", CombatSide(LONG, INF, wings=(Wing(INF, adjacent_to_attacker=False), Wing(INF), Wing(INF))),
                    CombatSide(Block("garrison")))
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([3, 7])).result
    assert out.pile.discard == (3, 7) and 3 not in out.pile.draw and len(out.pile.draw) == 69


def test_23_5_burst_exception_changes_bayonets_and_burst():
    # Find a card showing Bayonets & Burst at column 0 with no shifts; a Steady Lead Attacker with a Burst
    # (and a defender without) turns it into Burst (23.5).
    n = next(n for n in DECK.event_numbers if DECK.card(n).assault[2] == "bayonets_burst")
    s = CombatSetup("assault", CombatSide(Block("infantry", burst=True)), CombatSide(INF))
    assert prepare(s).column == 0 and prepare(s).net_shift == 0
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([n])).result
    assert out.result == "burst"
    s2 = CombatSetup("assault", CombatSide(INF), CombatSide(Block("infantry", burst=True)))
    out2 = play(combat_procedure(s2, DECK, Pile.for_play(DECK)), dice=TypedDice([n])).result
    assert out2.result == "bayonets"


def test_summarised_and_tracked_enumerations_agree_exactly():
    # The odds path (cards summarised to icon + row) and the play path (card numbers) are the same procedure.
    s = CombatSetup("fire", CombatSide(ART), CombatSide(INF, INF, hq=None), interval="stream")
    key = lambda o: (o.result, o.critical, o.attacker_morale, o.defender_morale, o.blocks)  # noqa: E731
    a = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy).map(key)
    b = distribution(combat_procedure(s, DECK, Pile.for_play(DECK)), policy=neutral_policy).map(key)
    assert a == b and a.total == 1


def test_conditioned_on_discards_changes_the_odds():
    s = CombatSetup("fire", CombatSide(ART), CombatSide(INF))
    fresh = combat_odds(s).dist
    skulls = [n for n in DECK.event_numbers if DECK.card(n).fire[4] == "skull_bones"][:8]
    later = combat_odds(s, discards=skulls).dist
    # 16 of 70 cards show skull & bones at +2 on a fresh deck; with 8 of them discarded, 8 of 62 remain,
    # plus the reshuffle chance 1/63 * 16/70: P = 8/63 + 16/(63*70) = (560 + 16) / 4410 = 576/4410 = 32/245
    assert fresh.prob(lambda o: o.result == "skull_bones") == Fraction(16, 70)
    assert later.prob(lambda o: o.result == "skull_bones") == Fraction(32, 245)


def test_play_and_enumerate_agree_statistically():
    s = CombatSetup("assault", CombatSide(LONG, INF), CombatSide(INF, hq=None))
    factory = combat_procedure(s, DECK, Pile.for_play(DECK))
    exact = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy).map(lambda o: o.result)
    n = 1500
    dice = RandomDice(7)
    counts = Counter(Stepper(factory).run(dice, neutral_policy).result.result for _ in range(n))
    for result, p in exact.items():
        sd = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(counts[result] / n - float(p)) < 4.5 * sd + 1e-9, result


def test_replay_gives_the_same_outcome():
    s = CombatSetup("assault", CombatSide(CAV), CombatSide(INF, INF, hq=None))
    factory = combat_procedure(s, DECK, Pile.for_play(DECK))
    for seed in range(5):
        p = play(factory, seed=seed, chooser=neutral_policy)
        assert replay(factory, p.events).result == p.result


def test_neutral_shift_is_chosen_after_the_draw_by_its_owner_23_4():
    # With one neutral shift the attacker picks the better direction for him on the card drawn.
    s = CombatSetup("assault", CombatSide(INF), CombatSide(INF), neutral_attacker=1)
    base = distribution(combat_procedure(CombatSetup("assault", CombatSide(INF), CombatSide(INF)), DECK, Pile.for_odds(DECK)),
                        policy=neutral_policy)
    d = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy)
    rank = lambda o: DECK.rank("assault", o.result)  # noqa: E731
    assert d.expect(rank) > base.expect(rank)
    # a defender-owned neutral shift goes the other way
    s2 = CombatSetup("assault", CombatSide(INF), CombatSide(INF), neutral_defender=1)
    d2 = distribution(combat_procedure(s2, DECK, Pile.for_odds(DECK)), policy=neutral_policy)
    assert d2.expect(rank) < base.expect(rank)


def test_cavalry_assault_square_attempt_23_1():
    s = CombatSetup("assault", CombatSide(CAV), CombatSide(INF))
    d = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy)
    # the square check at skill 2, good morale: 10 + 11 + 13 + 9 = 43/70 succeed
    assert d.prob(lambda o: o.square_formed) >= Fraction(43, 70)
    assert d.total == 1


def test_clash_of_wills_needs_higher_skill_27_7():
    with pytest.raises(RuleViolation) as e:
        prepare(CombatSetup("assault", CombatSide(INF), CombatSide(INF), clash_of_wills="attacker"))
    assert e.value.rule == "27.7"
    t = prepare(CombatSetup("assault", CombatSide(Block("infantry", skill=3)), CombatSide(INF), clash_of_wills="attacker"))
    assert t.net_shift == 1


BLOCKS = st.builds(Block, kind=st.sampled_from(["long_infantry", "infantry", "cavalry", "artillery", "garrison"]),
                   skill=st.integers(0, 4), state=st.sampled_from(["steady", "disrupted"]),
                   burst=st.booleans(), shots=st.booleans())


@settings(max_examples=examples(6))
@given(st.sampled_from(["long_infantry", "infantry", "cavalry"]), BLOCKS, st.one_of(st.none(), BLOCKS),
       st.integers(-2, 2), st.booleans())
def test_assault_distributions_sum_to_one(lead, defender, second, shifts, bad):
    # (the Square attempt against cavalry is covered by its own test; it makes enumeration slower)
    s = CombatSetup("assault", CombatSide(Block(lead), morale="bad" if bad else "good"), CombatSide(defender, second),
                    card_shifts=shifts, square_attempt=False)
    d = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy)
    assert d.total == 1
    assert all(o.result in DECK.order["assault"] for o in d)
    assert all(-4 <= o.defender_morale <= 1 and -4 <= o.attacker_morale <= 1 for o in d)


@settings(max_examples=40)
@given(st.lists(st.integers(0, 3), min_size=7, max_size=7), st.sampled_from([-2, -1, 0, 1, 2, 3, 4]),
       st.integers(0, 6))
def test_shifts_move_monotonically_on_ordered_rows(cells, column, n):
    row = tuple(sorted(cells))
    right, left = apply_shift(row, column, n), apply_shift(row, column, -n)
    i = column + 2
    assert row[right] >= row[i] >= row[left]
    # each step right changes the result while the row allows
    if n >= 1 and any(r != row[i] for r in row[i:]):
        assert row[right] > row[i]


def test_square_attempt_path_is_exact_against_card_by_card_enumeration():
    # Keep 10 cards (+ #31) in play by holding the other 60 as known-out cards, so the card-number
    # enumeration stays small; the summarised odds path (which foresees the Square outcomes) must agree.
    keep = DECK.event_numbers[:10]
    out = [n for n in DECK.event_numbers if n not in keep]
    s = CombatSetup("assault", CombatSide(CAV), CombatSide(INF, Block("long_infantry")))
    key = lambda o: (o.result, o.critical, o.attacker_morale, o.defender_morale, o.blocks, o.square_formed)  # noqa
    a = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK, hand=out)), policy=neutral_policy).map(key)
    b = distribution(combat_procedure(s, DECK, Pile.for_play(DECK, hand=out)), policy=neutral_policy).map(key)
    assert a == b and a.total == 1


def test_23_5_cavalry_battle_on_horse_head():
    # Cavalry (1 CP) assaults an Artillery (2 CP): column -1, no shift. A Horse Head with a Steady lead
    # Cavalry is a Cavalry Battle: the cavalry checks skill (a Death Head card: a hit, Steady -> Disrupted),
    # then the cavalry's other enemies (the Artillery) take a hit.
    n = next(n for n in DECK.event_numbers if DECK.card(n).assault[1] == "horse_head")
    dh = next(m for m in DECK.event_numbers if DECK.card(m).skill == "death_head" and m != n)
    s = CombatSetup("assault", CombatSide(CAV), CombatSide(ART))
    assert prepare(s).column == -1 and prepare(s).net_shift == 0
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([n, dh])).result
    assert out.result == "horse_head"
    assert out.fate("attacker_lead").state == "disrupted" and out.fate("defender_lead").state == "disrupted"


def test_27_5_bombardment_hits_every_defender_and_spares_the_guns():
    # Bombardment at one Zone: a shift left (27.5); on Muskets & Shot the artillery takes no hit and both
    # defending Blocks do (area effect).
    s = CombatSetup("fire", CombatSide(ART), CombatSide(INF, INF), special="bombardment")
    t = prepare(s)
    assert [x.amount for x in t.shifts] == [-1] and t.column == 2
    n = next(n for n in DECK.event_numbers
             if DECK.card(n).fire[apply_shift(DECK.card(n).fire, 2, -1)] == "muskets_shot")
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([n])).result
    assert out.result == "muskets_shot"
    assert out.fate("attacker_lead").hits == 0
    assert out.fate("defender_lead").state == "shaken" and out.fate("defender_second").state == "shaken"


def test_24_1_square_takes_a_hit_instead_of_retreating_and_skull_bones_costs_morale():
    # Fire at a Square with Skull & Bones: the defender's army loses one Morale unless the Critical card is
    # an Officer; the Square absorbs the hit (9.2).
    sq = Block("infantry", formation="square")
    s = CombatSetup("fire", CombatSide(ART), CombatSide(sq))
    t = prepare(s)
    n = next(n for n in DECK.event_numbers
             if DECK.card(n).fire[apply_shift(DECK.card(n).fire, t.column, t.net_shift)] == "skull_bones")
    not_officer = next(m for m in DECK.event_numbers if DECK.card(m).skill == "flags_1" and m != n)
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([n, not_officer])).result
    assert out.result == "skull_bones" and out.defender_morale == -1 and out.critical == "flags_1"
    f = out.fate("defender_lead")
    assert f.formation == "square" and f.square_hits == 1 and f.retreats == 0


def test_27_10_hq_in_a_hit_zone_checks_its_fate():
    # Infantry assaults Infantry at column 0 with a Steady HQ in the attacking Zone. Black Cross: the attacker's
    # army loses one Morale and draws for the Critical Combat Table (a one-flag card: no effect without 29.7),
    # the attackers take a hit, so the HQ checks its fate (27.10): a Death Head hits the HQ and costs one more
    # Morale, and in an Assault the Army Commander is Hors de Combat (27.11). Net attacker Morale: -2.
    from engine.bc.blocks import HQ
    s = CombatSetup("assault", CombatSide(INF, hq=HQ()), CombatSide(INF))
    n = next(n for n in DECK.event_numbers if DECK.card(n).assault[2] == "black_cross")
    f1 = next(m for m in DECK.event_numbers if DECK.card(m).skill == "flags_1" and m != n)
    dh = next(m for m in DECK.event_numbers if DECK.card(m).skill == "death_head")
    out = play(combat_procedure(s, DECK, Pile.for_play(DECK)), dice=TypedDice([n, f1, dh])).result
    assert out.result == "black_cross" and out.critical == "flags_1"
    assert out.attacker_morale == -2 and out.fate("attacker_lead").state == "shaken"
    assert out.hq_fates == (("attacker", "HQ hit, one Morale lost and the Army Commander is Hors de Combat"),)


def test_27_4_grand_battery_needs_artillery_expert_and_sums_guns():
    gb = Block("artillery", formation="grand_battery")
    with pytest.raises(RuleViolation) as e:
        prepare(CombatSetup("fire", CombatSide(gb, ART), CombatSide(INF)))
    assert e.value.rule == "27.4"
    t = prepare(CombatSetup("fire", CombatSide(gb, ART), CombatSide(INF), artillery_expert=True))
    assert t.attacker_cp == 4        # 2 + 2 guns (27.4), the partner gives no separate support
    # fired upon, a Grand Battery gets two shifts left (27.4)
    t = prepare(CombatSetup("fire", CombatSide(ART), CombatSide(gb, ART)))
    assert t.net_shift == -2


def test_27_7_clash_of_wills_costs_one_morale_up_front():
    # Skill 3 Infantry against skill 2 Infantry, Clash of Wills by the attacker: a shift right and -1 Morale
    # whatever the card. Column 0 (1 vs 1), net +1.
    s = CombatSetup("assault", CombatSide(Block("infantry", skill=3)), CombatSide(INF), clash_of_wills="attacker")
    d = distribution(combat_procedure(s, DECK, Pile.for_odds(DECK)), policy=neutral_policy)
    # apart from a Black Cross (which costs the attacker more), the attacker ends exactly one Morale down
    assert all(o.attacker_morale == -1 for o in d if o.result != "black_cross")
    assert prepare(s).net_shift == 1
    assert d.prob(lambda o: o.attacker_morale == -1) > 0 and d.total == 1
