"""Hand-worked probabilities for the combat rules of Lines of Battle (rule numbers in the test names).

Map facts used (data/lob/albuera/map.yaml): 15 and 16 are clear and share an approach; 23 is a hill with
an approach to 15; Albuera is a town (close); 65 is a wood; 17-Albuera is a bridged river crossing.
"""
from fractions import Fraction
from functools import partial

import pytest

from engine.core.procedure import distribution, enumerate_tree, play, TypedDice
from engine.core.errors import RuleViolation
from engine.lob.analysis import analyse
from engine.lob.combat import combat
from engine.lob.fight import ATTACKER, DEFENDER, Fight
from engine.lob.rounds import round_hits, round_roll, roll_modifier
from engine.lob.policies import CombatPolicy

from lob_helpers import combat_of


def first_round(ctx, att, dfn):
    f = Fight(att, dfn, att[0].uid, dfn[0].uid, True)
    return f, distribution(partial(round_roll, ctx, f))


def test_5_2_1_d_infantry_3_on_approach_vs_infantry_3_one_round():
    # Attacker d6+3, defender d6+3+1 (on the approach facing the attacker, 5.2.1 d); draws go to the
    # defender. The attacker wins only when its die beats the defender's by 2 or more:
    # differences 2,3,4,5 occur 4+3+2+1 = 10 times in 36 -> 10/36 = 5/18.
    ctx, att, dfn = combat_of("15", "23", [{"uid": "A", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3, "approach": "23"}])
    f, d = first_round(ctx, att, dfn)
    assert roll_modifier(ctx, f, ATTACKER) == 3
    assert roll_modifier(ctx, f, DEFENDER) == 4
    p_def_hit = d.prob(lambda ar: ar.fight.unit("D").hits == 1)
    p_att_hit = d.prob(lambda ar: ar.fight.unit("A").hits == 1)
    assert p_def_hit == Fraction(5, 18)
    assert p_att_hit == Fraction(13, 18)
    # infantry against infantry: exactly one side takes exactly one hit
    assert p_def_hit + p_att_hit == 1


def test_5_2_1_draw_goes_to_defender_equal_infantry():
    # Infantry 3 vs infantry 3, no approach (the 15-16 border, defender not on it): the attacker wins
    # when a > d: 15/36 = 5/12; the defender wins the 6 draws too: 21/36 = 7/12.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3}])
    f, d = first_round(ctx, att, dfn)
    assert d.prob(lambda ar: ar.winner == ATTACKER) == Fraction(5, 12)
    assert d.prob(lambda ar: ar.winner == DEFENDER) == Fraction(7, 12)


def test_5_2_1_heavy_cavalry_3_vs_infantry_2_hits():
    # Heavy cavalry 3 attacks infantry 2 in open 15 from 16: totals d6+3 vs d6+2.
    # Cavalry win when a >= d: 21/36. Then the infantry take max(1, a+3-(d+2)) = a-d+1 hits, capped at
    # 3 (rating 2 + 1 = eliminated): k=a-d: k=0:1x6, k=1:2x5, k=2:3x4, k=3..5: 3x(3+2+1) -> 6+10+12+18 = 46.
    # Infantry win 15/36 and take 1 hit. E[infantry hits] = (46 + 15)/36 = 61/36.
    # Cavalry take 1 hit when they win (21) and 2 when they lose (15): (21 + 30)/36 = 51/36 = 17/12.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3}],
                              [{"uid": "I", "kind": "inf", "rating": 2}])
    f, d = first_round(ctx, att, dfn)

    def hits(uid):
        return lambda ar: next(u.hits for u in ar.fight.att + ar.fight.dfn + ar.gone if u.uid == uid)
    assert d.expect(hits("I")) == Fraction(61, 36)
    assert d.expect(hits("C")) == Fraction(17, 12)


def test_5_2_1_b_light_cavalry_penalty_and_c_heavy_bonus():
    ctx, att, dfn = combat_of("15", "16", [{"uid": "L", "kind": "cav", "cav": "light", "rating": 2}],
                              [{"uid": "I", "kind": "inf", "rating": 2}])
    f = Fight(att, dfn, "L", "I", True)
    assert roll_modifier(ctx, f, DEFENDER) == 2 + 1          # a + b
    ctx, att, dfn = combat_of("15", "16", [{"uid": "H", "kind": "cav", "cav": "heavy", "rating": 3}],
                              [{"uid": "K", "kind": "cav", "cav": "lancer", "rating": 4}])
    f = Fight(att, dfn, "H", "K", True)
    assert roll_modifier(ctx, f, ATTACKER) == 3 + 1          # a + c
    assert roll_modifier(ctx, f, DEFENDER) == 4


def test_5_2_1_cavalry_vs_cavalry_loser_takes_difference():
    # Lancer 4 vs heavy 3 (+1 vs lancers): equal totals 4+d6 each, so the hits table gives:
    # winner 1 hit, loser max(1, difference). With dice 6 (attacker) and 2 (defender): 10 vs 6 ->
    # defender loses 4 hits (rating 3: eliminated, capped at 4), attacker 1 hit.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "K", "kind": "cav", "cav": "lancer", "rating": 4}],
                              [{"uid": "H", "kind": "cav", "cav": "heavy", "rating": 3}])
    assert round_hits(ctx, att[0], dfn[0], 10, 6) == (1, 4, ATTACKER)
    assert round_hits(ctx, att[0], dfn[0], 6, 6) == (1, 1, DEFENDER)   # a draw: loser still 1 (minimum)


def test_5_2_1_nb_cavalry_count_as_infantry_in_close_terrain_and_h():
    # Cavalry attacking the town: hits as infantry (loser 1), infantry get +2 (h), +2 town, +1 vs light.
    ctx, att, dfn = combat_of("Albuera", "17", [{"uid": "L", "kind": "cav", "cav": "light", "rating": 3}],
                              [{"uid": "K", "kind": "inf", "rating": 2}])
    assert round_hits(ctx, att[0], dfn[0], 12, 3) == (0, 1, ATTACKER)
    f = Fight(att, dfn, "L", "K", True)
    # 2 strength + 1 (b) + 2 (h) + 2 (town) + 2 (river at the bridge, first roll) = 9
    assert roll_modifier(ctx, f, DEFENDER) == 9
    f2 = Fight(att, dfn, "L", "K", False)
    assert roll_modifier(ctx, f2, DEFENDER) == 7


def test_5_2_1_e_f_squares():
    ctx, att, dfn = combat_of("15", "16", [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3}],
                              [{"uid": "S", "kind": "inf", "rating": 2, "square": True}])
    f = Fight(att, dfn, "C", "S", True)
    assert roll_modifier(ctx, f, DEFENDER) == 2 + 4          # e
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 2}],
                              [{"uid": "S", "kind": "inf", "rating": 2, "square": True}])
    f = Fight(att, dfn, "I", "S", True)
    assert roll_modifier(ctx, f, ATTACKER) == 2 + 1          # f


def test_5_1_2_retreat_before_combat_hits_infantry_lead_vs_cavalry_lead():
    # Lead defender infantry, lead attacker cavalry: 1 + 1 = 2 hits on the lead. The other defender
    # (cavalry) retreats to open ground with no hit. The attackers occupy; their lead takes 1 hit.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3}],
                              [{"uid": "I", "kind": "inf", "rating": 3},
                               {"uid": "L", "kind": "cav", "cav": "light", "rating": 2}])
    an = analyse(ctx, att, dfn, CombatPolicy("stay", "rbc"))
    # the defender's lead is chosen by policy (first, strongest): I (3) before L (2)
    assert an.attacker_takes_area == 1
    assert an.expected_hits("I") == 2
    assert an.expected_hits("L") == 0
    assert an.expected_hits("C") == 1
    # 5.3: the area was taken and the defenders were not purely cavalry: +1 to the French
    assert an.expected_morale("French") == 1


def test_5_1_2_cavalry_lead_retreating_before_infantry_takes_no_hit_and_no_point():
    # Lead defender cavalry vs infantry lead: 1 - 1 = 0 hits; purely cavalry -> no capture point (5.3).
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "L", "kind": "cav", "cav": "light", "rating": 2}])
    an = analyse(ctx, att, dfn, CombatPolicy("stay", "rbc"))
    assert an.expected_hits("L") == 0
    assert an.expected_morale("French") == 0
    assert an.expected_hits("I") == 1


def test_5_1_2_lone_limbered_artillery_survival():
    # Only artillery in 15, limbered, attacked by infantry: it cannot fire and must retreat: d6 + 2
    # (limbered) >= 4 -> 3..6 -> 4/6 = 2/3 ... the only open routes: block all but 11 (clear, no water).
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "deployed": False}],
                              enemy_adjacent=["10", "14", "23"])
    an = analyse(ctx, att, dfn)
    # d6 + 2 >= 4  <=>  d6 >= 2: 5/6
    assert an.eliminated("G") == Fraction(1, 6)
    # 5.1.1: no hit on the lead attacker for taking an area held only by artillery
    assert an.expected_hits("I") == 0
    # Against a cavalry lead: d6 + 2 - 2 >= 4 <=> d6 >= 4: survives 1/2
    ctx, att, dfn = combat_of("15", "16", [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3}],
                              [{"uid": "G", "kind": "art", "deployed": False}],
                              enemy_adjacent=["10", "14", "23"])
    assert analyse(ctx, att, dfn).eliminated("G") == Fraction(1, 2)


def test_5_1_2_lone_artillery_into_close_terrain_across_stream():
    # From 24 the only free route is the wood 65 across a stream: d6 + 2 (limbered) - 2 (close)
    # - 4 (stream, Albuera terrain 7) >= 4 <=> d6 >= 8: never. Eliminated with certainty; morale -1.
    ctx, att, dfn = combat_of("24", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "deployed": False}],
                              enemy_adjacent=["19", "23", "28", "67"])
    an = analyse(ctx, att, dfn)
    assert an.eliminated("G") == 1
    assert an.expected_morale("Allied") == -1


def test_5_1_3_defensive_artillery_then_lone_artillery_retreat():
    # Deployed artillery alone in 15 fires at the infantry attacker (4.2.1), then must retreat.
    # The attacker (strength 3) takes a hit on 4-6 and, on a 6, a second hit or retreat: policy
    # 'stand unless destroyed' -> hits 0 (1/2), 1 (1/3), 2 (1/6). It never retreats, so the area falls.
    # The gun then retreats deployed: d6 + 0 >= 4 -> 1/2 survives.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "deployed": True}],
                              enemy_adjacent=["10", "14", "23"])
    an = analyse(ctx, att, dfn)
    assert an.expected_hits("I") == Fraction(1, 3) + Fraction(2, 6)
    assert an.eliminated("G") == Fraction(1, 2)
    assert an.attacker_takes_area == 1


def test_5_1_4_feint_pulls_infantry_onto_the_approach():
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3}])
    an = analyse(ctx, att, dfn, CombatPolicy("feint", "stay"))
    (res,) = an.dist
    assert res.stage == "feint"
    assert res.unit("D").approach == "16"
    assert res.unit("I").area == "16"


def test_5_2_2_break_off_puts_lead_defender_on_the_approach():
    # Typed dice: attacker 1, defender 6 -> attacker loses a hit; 'until:2' makes it break off.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3}])
    played = play(partial(combat, ctx, att, dfn), dice=TypedDice([1, 6]), chooser=CombatPolicy("until:2", "stay"))
    res = played.result
    assert res.winner == DEFENDER
    assert res.unit("I").hits == 1 and res.unit("I").area == "16"
    assert res.unit("D").approach == "16"


def test_5_2_4_defender_may_replace_lead_with_cavalry():
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 1},
                               {"uid": "H", "kind": "cav", "cav": "heavy", "rating": 3}])

    def pol(req):
        d = req.context
        if getattr(d, "kind", "") == "replace":
            return "H"
        if getattr(d, "kind", "") == "lead":
            return "D" if "D" in req.options else req.options[0]
        return CombatPolicy()(req)
    # round 1: attacker 6, defender 1 -> D hit; D is replaced by H; round 2: attacker 1, H 6 -> cav wins
    # by (6+3) - (1+3) = 5 -> infantry 4 hits (eliminated), cavalry 1 hit.
    played = play(partial(combat, ctx, att, dfn), dice=TypedDice([6, 1, 1, 6]), chooser=pol)
    res = played.result
    assert res.unit("D").hits == 1 and res.unit("H").hits == 1
    assert res.unit("I").eliminated
    assert res.morale() == {"French": -3, "Allied": 0}
    assert [u.uid for u in res.charge_units()] == ["H"]


def test_5_3_capture_point_and_elimination_morale():
    # Infantry 1 vs infantry 1, always stay: every outcome eliminates someone.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 1}],
                              [{"uid": "D", "kind": "inf", "rating": 1}])
    an = analyse(ctx, att, dfn)
    taken = an.attacker_takes_area
    # French: +1 when they take the area (defender eliminated), -1 when their unit is eliminated
    assert an.expected_morale("French") == taken * 1 - (1 - taken) * 1
    assert an.expected_morale("Allied") == -taken


def test_combat_refuses_bad_input():
    with pytest.raises(RuleViolation, match="approach"):
        # Albuera (town) and 16 (clear): no approach between close and open areas (1.1)
        combat_of("16", "15", [{"uid": "A", "kind": "inf", "rating": 3}],
                  [{"uid": "D", "kind": "inf", "rating": 3, "approach": "Albuera"}])
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 3, "hits": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3}])
    with pytest.raises(RuleViolation, match="strength"):
        analyse(ctx, att, dfn)                # 4.2.2: attackers need strength 1 or more
    with pytest.raises(RuleViolation, match="river"):
        # 17-32 is the river without a bridge (Albuera terrain 6)
        combat_of("32", "17", [{"uid": "A", "kind": "inf", "rating": 3}],
                  [{"uid": "D", "kind": "inf", "rating": 3}])
    with pytest.raises(RuleViolation, match="border"):
        combat_of("1", "75", [{"uid": "A", "kind": "inf", "rating": 3}],
                  [{"uid": "D", "kind": "inf", "rating": 3}])
