"""Artillery fire (4.2.1, 7.2) and command points (3, scenario schedule): hand-worked odds."""
from fractions import Fraction
from functools import partial

import pytest

from engine.core.procedure import distribution, enumerate_tree
from engine.lob.command import command_points, cp_schedule, d3_of
from engine.lob.fire import FireOutcome, FireSetup, fire_odds, prefer_hit, prefer_retreat

INF3 = dict(target_kind="inf", target_hits_left=4)


def effect(**kw):
    d = fire_odds(FireSetup(**{**INF3, **kw}), policy=prefer_retreat)
    # prefer_retreat: every 'hit or retreat' is a retreat; the certain hit of a 6+ stays
    return d.prob(lambda o: o.hits > 0 or o.retreated), d.prob(lambda o: o.hits == 1)


def test_4_2_1_no_modifier():
    # 4,5,6 have an effect: 1/2; a 6 gives the certain hit: 1/6
    assert effect() == (Fraction(1, 2), Fraction(1, 6))


def test_4_2_1_square_plus_one():
    # +1: rolls 3..6 have an effect (4/6); 5,6 reach 6+ (2/6)
    assert effect(target_square=True) == (Fraction(2, 3), Fraction(1, 3))


def test_4_2_1_infantry_on_approach_minus_one():
    # -1: only 5,6 reach 4+ (2/6); nothing reaches 6+
    assert effect(target_on_approach=True) == (Fraction(1, 3), 0)


def test_4_2_1_deployed_artillery_minus_one():
    d = fire_odds(FireSetup(target_kind="art", target_deployed_artillery=True, target_hits_left=1))
    # -1: 5,6 become 4,5 -> 'one hit or retreat' (1/3); a single hit would destroy the guns, so the
    # standing policy retreats them; no roll reaches 6+
    assert d.prob(lambda o: o.retreated) == Fraction(1, 3)
    assert d.prob(lambda o: o.hits > 0) == 0


def test_albuera_terrain_2_town_minus_two():
    # -2: only a 6 reaches 4: 1/6, never 6+
    assert effect(target_in_town=True) == (Fraction(1, 6), 0)


def test_4_2_1_expected_hits_standing_infantry():
    # standing (policy prefer_hit) infantry strength 3: 4-5 -> 1 hit, 6 -> 2 hits: (2*1 + 1*2)/6 = 2/3
    d = fire_odds(FireSetup(**INF3), policy=prefer_hit)
    assert d.expect(lambda o: o.hits) == Fraction(2, 3)


def test_4_2_1_prefer_hit_retreats_rather_than_die():
    # strength 0 infantry (1 hit left): a 4-5 'hit or retreat' -> retreat (else eliminated); a 6 -> 1 hit kills
    d = fire_odds(FireSetup(target_kind="inf", target_hits_left=1), policy=prefer_hit)
    assert d[FireOutcome(0, True)] == Fraction(2, 6)
    assert d[FireOutcome(1, False)] == Fraction(1, 6)


def test_7_2_1_horse_artillery_six_counts_as_four_and_long_range():
    # horse: a 6 is only 'hit or retreat'; long range -1: 5,6 -> effect 1/3
    assert effect(arty="horse") == (Fraction(1, 2), 0)
    assert effect(arty="horse", long_range=True) == (Fraction(1, 3), 0)


def test_7_2_2_heavy_artillery_five_counts_as_six():
    assert effect(arty="heavy") == (Fraction(1, 2), Fraction(1, 3))


def test_7_2_3_rockets_hit_on_five_two_hits_or_retreat():
    d = fire_odds(FireSetup(arty="rockets", **INF3), policy=prefer_hit)
    assert d[FireOutcome(2, False)] == Fraction(1, 3)
    assert d[FireOutcome(0, False)] == Fraction(2, 3)


def test_rule_1_d3_is_a_halved_d6():
    assert [d3_of(x) for x in range(1, 7)] == [1, 1, 2, 2, 3, 3]


def test_scenario_command_points_schedule():
    # French: 4 on turn 1, then D3+1 (2,3,4 each 1/3, mean 3); Allies: 1, then D3 (mean 2), then D3+1.
    assert distribution(partial(command_points, "French", 1)) == {4: 1}
    assert distribution(partial(command_points, "French", 2)) == {2: Fraction(1, 3), 3: Fraction(1, 3), 4: Fraction(1, 3)}
    assert distribution(partial(command_points, "Allied", 1)) == {1: 1}
    assert distribution(partial(command_points, "Allied", 2)) == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    s = cp_schedule(25)
    # French 4 + 24*3 = 76; Allies 1 + 2 + 23*3 = 72
    assert s["French"]["expected_total"] == 76
    assert s["Allied"]["expected_total"] == 72


def test_fire_tree_sums_to_one():
    for setup in (FireSetup(**INF3), FireSetup(arty="rockets", **INF3), FireSetup(target_kind="art", target_hits_left=1)):
        t = enumerate_tree(partial(__import__("engine.lob.fire", fromlist=["x"]).artillery_fire, setup),
                           policy=prefer_hit)
        assert t.total() == 1
