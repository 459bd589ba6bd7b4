"""Hand-worked Napoleonic 20 battle expectations. Each test names the rule it checks; the arithmetic
behind every expected value is in the comments (CRT cells are those of data/n20/tables_v3.yaml, or a
CRT forced to one result so that the rule under test is isolated)."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine import n20
from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, enumerate_tree
from engine.n20.resolution import battle_procedure
from engine.n20.morale import MoraleItem, apply_morale

from n20_battle_helpers import EXAMPLES, battle, cav, forced_tables, inf


def fate_dist(res, unit):
    return res.outcomes.map(lambda o: (o.fate(unit).fate, o.fate(unit).hexes))


# --- 9.0 / worked example after 9.9.8 ------------------------------------------------------------
def test_9_9_8_worked_example_differential_and_known_cell():
    res = n20.odds(EXAMPLES / "n20_worked_example.yaml")
    # attack 4 + 2 + 1 = 7; defence 3 + 1 (forest) + 1 (reserve) = 5; 7 - 5 = +2
    assert (res.attack, res.defence, res.differential, res.column) == (7, 5, 2, 2)
    # the one known CRT cell: column +2, die 6 = DR
    assert res.battle.tables.crt_result(2, 6) == "DR"
    # provisional column +2 reads EX N DW DW DR DR: DR on 5 and 6 = 2/6
    assert res.crt["DR"] == F(1, 3)
    assert res.outcomes.total == 1


def test_9_9_8_worked_example_told_with_the_printed_dice():
    # CRT die 6 -> DR; rout die 2 -> two hexes; hazard die 5 -> survives (9.8.3);
    # Controlled Advance die 3 -> control lost (1-3 lose it), the cavalry must advance.
    played = n20.play_battle(EXAMPLES / "n20_worked_example.yaml", dice=TypedDice([6, 2, 5, 3]))
    o = played.result
    assert o.result == "DR"
    p = o.fate("prussian-i")
    assert (p.fate, p.hexes, p.marker, p.beyond_ma) == ("routed", 2, True, False)
    assert o.control == "lost" and o.fate("iv-cavalry").advanced >= 1
    # morale: the Prussian reserve costs 1 (12.5); 2 hexes is not beyond its allowance 2; the Guard won (no 12.2.2)
    assert dict(o.morale) == {"allied": -1, "french": 0}


# --- 9.6.2 elite rout ---------------------------------------------------------------------------------
def test_9_6_2_elite_rout_distance_distribution_v3():
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("e", 2, elite=True, side="allied")]},
               forced_tables("DR"))
    res = n20.odds(b)
    d = fate_dist(res, "e")
    # die-2: 1,2 -> below 1 -> withdraw 1 hex (no rout); 3..6 -> rout 1..4 hexes
    assert d[("withdrew", 1)] == F(2, 6)
    for k in (1, 2, 3, 4):
        assert d[("routed", k)] == F(1, 6)
    # rout beyond the allowance of 2: dice 5 and 6 -> 2/6; each costs the Allies 1 (v3 Morale Chart)
    assert res.summary["rout_beyond_ma"] == F(1, 3)
    assert res.summary["expected_morale"]["allied"] == F(-1, 3)
    # withdrawals carry no Routed! marker (9.6.2); routs do (9.6.3)
    assert res.outcomes.prob(lambda o: o.fate("e").marker) == F(4, 6)


# --- 9.8.3 / 9.8.4 hazards -----------------------------------------------------------------------------
def test_9_8_4_two_hazards_in_one_hex_withdrawal():
    # DW: one hex with two hazards (an EZOC and a river): two separate rolls, each breaks on 1-3.
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")], "paths": {"d": [2]}},
               forced_tables("DW"))
    res = n20.odds(b)
    # survive both: 1/2 * 1/2 = 1/4
    assert res.summary["defender_broken"] == F(3, 4)
    # each broken defender gives the attacker +1 (Morale Chart): 3/4 * 1
    assert res.summary["expected_morale"]["french"] == F(3, 4)


def test_9_8_3_two_hazard_rout_path():
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")], "paths": {"d": [1, 1]}},
               forced_tables("DR"))
    res = n20.odds(b)
    # rout 1 meets one hazard (breaks 1/2); rout 2+ meets two (breaks 3/4): 1/6*1/2 + 5/6*3/4 = 17/24
    assert res.summary["defender_broken"] == F(17, 24)


# --- 9.6 [G] exchange ---------------------------------------------------------------------------------
def test_9_6_G_exchange_least_printed_strength_and_listable_choices():
    b = battle({"attackers": [inf("a3", 3), inf("a2", 2), inf("a1", 1)], "defenders": [inf("d", 3, side="allied")]},
               forced_tables("EX"))
    res = n20.odds(b)
    assert len(res.outcomes) == 1
    (o,) = res.outcomes
    # need 3 printed points: {a3} and {a2, a1} both lose exactly 3; fewer units first -> a3 breaks
    assert o.fate("d").fate == "broken" and o.fate("a3").fate == "broken"
    assert o.fate("a2").fate == "held" and o.fate("a1").fate == "held"
    # morale: each side gains 1 for the enemy unit it broke
    assert dict(o.morale) == {"allied": 1, "french": 1}
    # the alternatives are listed as a decision when decisions are kept
    t = n20.tree(b, keep_decisions=True)
    decisions = [n for n in t.nodes() if n.kind == "choose" and n.rule == "9.6 [G]"]
    assert decisions and [tuple(c.outcome) for c in decisions[0].children] == [("a3",), ("a2", "a1")]


# --- 12.2.2 La Garde recule ---------------------------------------------------------------------------
@pytest.mark.parametrize("code, french", [("AW", -1), ("DW", 0), ("N", -1)])
def test_12_2_2_guard_recule(code, french):
    b = battle({"attackers": [inf("guard", 4, guard=True), inf("line", 2)], "defenders": [inf("d", 2, side="allied")]},
               forced_tables(code))
    res = n20.odds(b)
    # not victorious (AW, N) -> -1; victorious (DW) -> nothing
    assert res.summary["expected_morale"]["french"] == french


def test_12_2_2_guard_broken_in_exchange_and_exempt_guard():
    b = battle({"attackers": [inf("guard", 4, guard=True)], "defenders": [inf("d", 2, side="allied")]},
               forced_tables("EX"))
    (o,) = n20.odds(b).outcomes
    # French: +1 (defender broken) -1 (Guard broken, so it cannot advance) = 0; Allies +1 for the Guard
    assert dict(o.morale) == {"allied": 1, "french": 0}
    b2 = battle({"attackers": [inf("guard", 4, guard=True, recule_exempt=True)],
                 "defenders": [inf("d", 2, side="allied")]}, forced_tables("AW"))
    assert n20.odds(b2).summary["guard_recule"] == 0    # exclusive 2.0 (000): the Guard Infantry is exempt


# --- 9.8.1 edition difference: elites in fortified hexes ------------------------------------------------
def test_9_8_1_elite_in_fortified_v3_versus_v2():
    spec = {"attackers": [inf("a", 4)], "defenders": [inf("e", 2, elite=True, side="allied")], "terrain": "fortified"}
    v3 = n20.odds(battle(spec, forced_tables("DR", "v3")))
    v2 = n20.odds(battle({**spec, "edition": "v2"}, forced_tables("DR", "v2")))
    d3, d2 = fate_dist(v3, "e"), fate_dist(v2, "e")
    # v3: die-2; 1,2 -> withdraw, one hex fewer -> holds (2/6); 3 -> rout 1, one fewer -> routed in place;
    #     4,5,6 -> rout 2,3,4 -> 1,2,3 hexes
    assert d3[("held", 0)] == F(2, 6)
    assert d3[("routed", 0)] == F(1, 6)
    assert d3[("routed", 1)] == d3[("routed", 2)] == d3[("routed", 3)] == F(1, 6)
    # v2 (001 9.8.1, parameters.yaml elite_fortified_includes_one_fewer): die-3, and that -3 already is the
    # one-hex-fewer benefit; 1,2,3 -> below 1 -> withdraw, ignored under one fewer -> holds (3/6);
    # 4, 5, 6 -> rout 1, 2, 3 hexes (no second reduction), 1/6 each
    assert d2[("held", 0)] == F(3, 6)
    assert d2[("routed", 1)] == d2[("routed", 2)] == d2[("routed", 3)] == F(1, 6)
    assert d2[("routed", 0)] == 0
    # the older edition has no Routed! markers (9.6.3 is a v3.0 rule)
    assert v2.outcomes.prob(lambda o: o.fate("e").marker) == 0
    # morale: v3 costs 1 only for a rout beyond 2 hexes (die 6: 3 hexes) -> -1/6;
    # v2 costs 1 for every rout (dice 4, 5, 6) -> -3/6
    assert v3.summary["expected_morale"]["allied"] == F(-1, 6)
    assert v2.summary["expected_morale"]["allied"] == F(-1, 2)


# --- 9.9.3 Controlled Advance -----------------------------------------------------------------------------
def test_9_9_3_controlled_advance_probabilities():
    d = [inf("d", 1, side="allied")]
    light = n20.odds(battle({"attackers": [cav("c", 1)], "defenders": d}, forced_tables("DB")))
    heavy = n20.odds(battle({"attackers": [cav("c", 2, heavy=True)], "defenders": d}, forced_tables("DB")))
    weak_heavy = n20.odds(battle({"attackers": [cav("c", 1, heavy=True)], "defenders": d}, forced_tables("DB")))
    old = n20.odds(battle({"edition": "v2", "attackers": [cav("c", 1)], "defenders": d}, forced_tables("DB", "v2")))
    # control kept on 4-6: lost 3/6; heavy strength 2+: -1 -> lost on 1-4 = 4/6; heavy of strength 1: no modifier
    assert light.summary["runaway_cavalry_advance"] == F(1, 2)
    assert heavy.summary["runaway_cavalry_advance"] == F(2, 3)
    assert weak_heavy.summary["runaway_cavalry_advance"] == F(1, 2)
    # 9.9.3 (001): no table, the cavalry always must advance
    assert old.summary["runaway_cavalry_advance"] == 1


# --- 16.7.3 unreliable troops ------------------------------------------------------------------------------
def test_16_7_3_unreliable_waver_changes_the_column():
    spec = {"attackers": [inf("p", 3, unreliable=True)], "defenders": [inf("d", 2, side="allied")]}
    res = n20.odds(battle(spec))
    # steady (5/6): 3 vs 2 = +1 -> column +1: AW N DW DW DR DR, DR 2/6
    # wavers (1/6): 2 vs 2 = 0 -> column 0: AW AW N DW DW DR, DR 1/6
    assert res.crt["DR"] == F(5, 6) * F(2, 6) + F(1, 6) * F(1, 6)
    # own morale below the enemy's: -1 -> wavers on 1-2 (2/6)
    low = n20.odds(battle({**spec, "morale": {"french": 3, "allied": 5}}))
    assert low.crt["DR"] == F(4, 6) * F(2, 6) + F(2, 6) * F(1, 6)


def test_16_9_1_portuguese_reliability_v2():
    spec = {"edition": "v2", "attacker": "french", "reliability_checks": True,
            "attackers": [inf("f", 3)], "defenders": [inf("port", 2, portuguese=True)]}
    res = n20.odds(battle(spec, n20.default_tables("v2")))
    # Portuguese wavers on 1-2 (2/6): 3 vs 1 = +2 (EX N DW DW DR DR); steady (4/6): +1 (AW N DW DW DR DR)
    assert res.crt["EX"] == F(2, 6) * F(1, 6)
    # a 6 on the check ends British checks for the game (16.9.2): reported in the outcome
    assert res.outcomes.prob(lambda o: o.reliability_lapsed) == F(1, 6)


# --- strengths: 9.3, 8.2.2, 9.6.3, 9.4.1, exclusive 2.0 ----------------------------------------------------
def test_9_3_8_2_2_9_6_3_strength_modifiers():
    art = battle({"attackers": [{"id": "art", "type": "artillery", "strength": 2}], "defenders": [inf("d", 1)]})
    assert art.prepared.attack_total == 4                      # 2 doubled (9.3)
    cc_inf = battle({"countercharge": True, "attackers": [cav("c", 2)], "defenders": [inf("d", 1)]})
    cc_cav = battle({"countercharge": True, "attackers": [cav("c", 2)], "defenders": [cav("d", 1)]})
    assert cc_inf.prepared.attack_total == 4                   # 2 doubled (8.2.2)
    assert cc_cav.prepared.attack_total == 2                   # not against cavalry
    routed = battle({"attackers": [inf("r", 3, routed=True)], "defenders": [inf("d", 3, routed=True)]})
    assert routed.prepared.attack_total == 2 and routed.prepared.defend_total == 2   # 3/2 = 1.5 -> 2
    sq = battle({"attackers": [cav("c", 2)], "defenders": [inf("s", 2, square=True)]})
    assert sq.prepared.attack_total == 1                       # 17.1: cavalry -1 against a square


def test_exclusive_2_0_steep_slope_only_when_all_attackers_downslope():
    up = {"features": ["steep_slope"], "defender_upslope": True}
    both = battle({"attackers": [inf("a", 2), inf("b", 2)], "defenders": [inf("d", 2)], "hexsides": [up, up]})
    mixed = battle({"attackers": [inf("a", 2), inf("b", 2)], "defenders": [inf("d", 2)],
                    "hexsides": [up, {"features": []}]})
    assert both.prepared.terrain == 2                          # steep slope +2
    assert mixed.prepared.terrain == 1                         # only a plain slope's +1
    town_bridge = battle({"attackers": [inf("a", 2)], "defenders": [inf("d", 2)], "terrain": "town",
                          "hexsides": [{"features": ["major_river", "bridge"]}]})
    assert town_bridge.prepared.terrain == 1                   # 9.4.1: single best, not 1 + 1


def test_12_5_reserve_bans():
    with pytest.raises(RuleViolation) as e:
        battle({"attackers": [inf("a", 2, routed=True)], "defenders": [inf("d", 1)],
                "reserves": {"attacker": True}})
    assert e.value.rule == "9.6.3"
    with pytest.raises(RuleViolation) as e:
        battle({"attackers": [inf("a", 2)], "defenders": [{"id": "g", "type": "garrison", "strength": 2}],
                "reserves": {"defender": True}})
    assert e.value.rule == "9.4.4"


def test_16_9_4_out_of_command_minus_one():
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2)], "command": "out"})
    assert n20.odds(b).differential == 0                       # 3 - 2 - 1


def test_9_5_voluntary_reduction():
    b = battle({"attackers": [inf("a", 6)], "defenders": [inf("d", 1)], "reduce_to": 1})
    res = n20.odds(b)
    assert res.differential == 5 and res.column == 1


# --- special units -------------------------------------------------------------------------------------------
def test_16_7_5_straggler_breaks_instead_of_routing():
    res = n20.odds(battle({"attackers": [inf("a", 2)], "defenders": [inf("s", 1, straggler=True)]},
                          forced_tables("DR")))
    assert res.summary["defender_broken"] == 1
    assert res.summary["expected_morale"]["french"] == 1      # the normal +1 for breaking it


def test_16_7_7_spanish_irregulars_rout_further_without_morale_loss():
    res = n20.odds(battle({"attackers": [inf("a", 2)], "defenders": [inf("s", 1, spanish_irregular=True)]},
                          forced_tables("DR")))
    d = fate_dist(res, "s")
    assert d[("routed", 2)] == F(1, 6) and d[("routed", 7)] == F(1, 6)   # die + 1
    assert ("routed", 1) not in d
    assert res.summary["expected_morale"]["allied"] == 0


def test_16_7_6_road_bound_destroyed_off_road():
    res = n20.odds(battle({"attackers": [inf("a", 2)],
                           "defenders": [{"id": "wagons", "type": "supply", "strength": 0, "movement": 1,
                                          "road_bound": True}],
                           "paths": {"wagons": {"road": 0}}}, forced_tables("DW")))
    assert res.outcomes.prob(lambda o: o.fate("wagons").fate == "destroyed") == 1


def test_9_8_7_loc_reached_early_breaks_only_in_v3():
    spec = {"attackers": [inf("a", 4)], "defenders": [inf("d", 2)], "paths": {"d": {"loc_at": 2}}}
    v3 = n20.odds(battle(spec, forced_tables("DR")))
    v2 = n20.odds(battle({**spec, "edition": "v2"}, forced_tables("DR", "v2")))
    # rout 3..6 reaches the LOC at hex 2 with distance left: breaks (4/6); v2 has no 9.8.7
    assert v3.summary["defender_broken"] == F(4, 6)
    assert v2.summary["defender_broken"] == 0


# --- 12.1.1 / 12.1.2 ----------------------------------------------------------------------------------------
def test_12_1_1_cap_and_12_1_2_zero():
    t = n20.default_tables("v3")
    items = (MoraleItem("french", 1, "enemy_unit_broken", "12.1"), MoraleItem("french", -1, "guard_recule", "12.2.2"),
             MoraleItem("allied", -1, "rout_beyond_movement", "12.1"))
    deltas, after, lost = apply_morale(t, {"french": 10, "allied": 1}, items)
    # add first, capped at 10 (the excess is lost), then subtract: 10 -> 10 -> 9
    assert dict(after) == {"french": 9, "allied": 0}
    assert lost == ("allied",)
    assert dict(deltas) == {"french": 0, "allied": -1}


def test_9_4_4_garrison_alone():
    b = battle({"attackers": [inf("a", 3)], "defenders": [{"id": "almeida", "type": "garrison", "strength": 2}],
                "terrain": "fortified"})
    assert b.prepared.defend_total == 4                        # 2 + fortified 2 (provisional TEC)
    res = n20.odds(battle({"attackers": [inf("a", 3)], "defenders": [{"id": "g", "type": "garrison", "strength": 2}]},
                          forced_tables("DW")))
    # a garrison never retreats; the attacker advances into its hex and destroys it (default policy advances)
    assert res.outcomes.prob(lambda o: o.fate("g").fate == "destroyed") == 1


def test_16_8_1_fatigue_rises_one_level_and_stops_at_spent():
    b = battle({"fatigue": True, "attackers": [inf("a", 3, fatigue="spent"), inf("b", 2, fatigue="tired")],
                "defenders": [inf("d", 2, fatigue="fresh")]}, forced_tables("DW"))
    (o,) = n20.odds(b).outcomes
    # tired (2) -> weary (3); spent (4) stays spent; fresh (0) -> ready (1)
    assert (o.fate("a").fatigue, o.fate("b").fatigue, o.fate("d").fatigue) == (4, 3, 1)
    # 16.8.3: a Spent unit does not advance (here: the weary one takes the hex)
    assert o.fate("a").advanced == 0 and o.fate("b").advanced == 1


def test_17_1_square_withdraws_routed_and_breaks_before_routing_under_cavalry():
    dw = n20.odds(battle({"attackers": [inf("a", 3)], "defenders": [inf("s", 2, square=True)]}, forced_tables("DW")))
    # DW: one hex back with a Routed! marker, no rout morale
    assert dw.outcomes.prob(lambda o: o.fate("s").marker and o.fate("s").hexes == 1) == 1
    assert dw.summary["expected_morale"]["allied"] == 0
    dr = n20.odds(battle({"attackers": [cav("c", 3)], "defenders": [inf("s", 2, square=True)]}, forced_tables("DR")))
    # DR in an enemy cavalry ZOC: a 9.8.3 check first (breaks 1/2), then the rout (no hazards on its path)
    assert dr.summary["defender_broken"] == F(1, 2)


def test_8_2_3_no_defender_advance_after_a_countercharge():
    res = n20.odds(battle({"countercharge": True, "attackers": [cav("c", 1)], "defenders": [inf("d", 3)]},
                          forced_tables("AW")))
    assert res.outcomes.prob(lambda o: o.fate("d").advanced > 0) == 0
    plain = n20.odds(battle({"attackers": [cav("c", 1)], "defenders": [inf("d", 3)]}, forced_tables("AW")))
    assert plain.outcomes.prob(lambda o: o.fate("d").advanced > 0) == 1


def test_16_7_4_reluctant_unit_rolls_before_advancing():
    # the only eligible unit is reluctant: the default policy still advances it, after a roll on the
    # Controlled Advance Table: kept on 4-6 (1/2), else it stays (16.7.4)
    res = n20.odds(battle({"attackers": [inf("r", 3, reluctant=True)], "defenders": [inf("d", 1)]},
                          forced_tables("DB")))
    assert res.outcomes.prob(lambda o: o.fate("r").advanced == 1) == F(1, 2)


def test_16_7_3_morale_compared_after_reserves_are_spent():
    spec = {"attackers": [inf("p", 3, unreliable=True)], "defenders": [inf("d", 2, side="allied")],
            "morale": {"french": 5, "allied": 5}}
    even = n20.odds(battle(spec))
    spent = n20.odds(battle({**spec, "reserves": {"attacker": True}}))
    # 5 vs 5: no modifier, wavers on 1 (1/6); after spending a reserve point 4 < 5: -1, wavers on 1-2 (2/6)
    assert even.battle.prepared.checks[0].modifier == 0
    assert spent.battle.prepared.checks[0].modifier == -1


def test_12_5_a_changed_copy_of_a_battle_gets_its_own_answers():
    from dataclasses import replace
    b = n20.load_battle(EXAMPLES / "n20_worked_example.yaml")
    first = n20.odds(b)
    # without the Prussian reserve: 7 vs 4 = +3 and no reserve point spent (12.5)
    other = n20.odds(replace(b, reserves_defender=False))
    assert (first.differential, other.differential) == (2, 3)
    assert other.outcomes.prob(lambda o: any(i.entry == "reserve_committed" for i in o.morale_items)) == 0
