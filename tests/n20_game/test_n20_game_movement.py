"""Movement (6.x), ZOC (7.x, night 7.6/14.0 per edition), reinforcements (11.x), Guard (12.2.1), forced
march (12.3). Geometry of the 8x8 test grid (flat hexes, even columns shifted down): hexes 0301, 0302,
0303, ... form a straight column; the neighbours of 0302 are 0301, 0401, 0402, 0303, 0202, 0201."""
from __future__ import annotations

import pytest

from engine.n20 import game as g
from engine.n20.game.reach import movement_allowance

from n20_game_helpers import apply_action, at, dests, legal, make_scenario, put


def test_6_5_forest_stops_the_mover(tmp_path):
    # F1 (MA 2) in 0301; 0302 is forest. The only two-hex way to 0303 passes 0302, where it must stop.
    sc = make_scenario(tmp_path, hexes={"0302": "forest"})
    s = put(g.new_game(sc), F1="0301")
    r = g.reachable(s, "F1")
    assert "0302" in r and r["0302"].cost == 1
    assert "0303" not in r
    # 0402 is two clear hexes away (0301-0401-0402): reachable at cost 2
    assert r["0402"].cost == 2


def test_6_6_road_ignores_rugged_stop_and_adds_one_point(tmp_path):
    # Road 0301-0302-0303-0304 through the forest 0302: road movement does not stop (6.6) and a move made
    # wholly along the road gets +1: 2 + 1 = 3 points reach 0304.
    sc = make_scenario(tmp_path, hexes={"0302": "forest"}, roads=[["0301", "0302", "0303", "0304"]])
    s = put(g.new_game(sc), F1="0301")
    r = g.reachable(s, "F1")
    assert r["0303"].path == ("0301", "0302", "0303")
    assert r["0304"].cost == 3 and r["0304"].road
    assert "0305" not in r


def test_6_2_a_unit_can_always_move_one_hex(tmp_path):
    units = [{"id": "F1", "name": "slow", "side": "french", "type": "infantry", "strength": 1, "movement": 0,
              "source": "provisional"},
             {"id": "A1", "name": "a", "side": "allied", "type": "infantry", "strength": 1, "movement": 2,
              "source": "provisional"}]
    sc = make_scenario(tmp_path, units=units)
    s = put(g.new_game(sc), F1="0302", A1="0308")
    # movement allowance 0, yet each of the six neighbours is one legal hex
    assert dests(s, "F1") == ["0201", "0202", "0301", "0303", "0401", "0402"]


def test_6_7_and_6_8_ezoc_stops_and_sticks_by_day(tmp_path):
    # A1 in 0303 controls 0302, 0402, 0403, 0304, 0203, 0202.
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0301", A1="0303")
    r = g.reachable(s, "F1")
    assert "0302" in r                       # may enter the EZOC ...
    assert "0403" not in r                   # ... but not go on through it (6.7); 0403 is 3 hexes anyway
    assert r["0402"].path == ("0301", "0401", "0402")
    s2 = put(s, F1="0302")
    assert g.reachable(s2, "F1") == {}       # 6.8: it starts in an EZOC: stuck by day
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s2, {"kind": "move", "unit": "F1", "path": ["0302", "0301"]})
    assert e.value.rule == "6.8"


def test_7_6_v3_night_ezoc_prohibited_but_exit_free(tmp_path):
    # Night turn (5), v3: F1 in 0302 (in A1's ZOC) may leave; the EZOC hexes 0402 and 0202 are prohibited.
    sc = make_scenario(tmp_path, edition="v3")
    s = at(put(g.new_game(sc), F1="0302", A1="0303"), "movement", turn=5)
    assert s.night
    assert movement_allowance(s, "F1") == 1                      # 14.0
    assert dests(s, "F1") == ["0201", "0301", "0401"]


def test_7_6_v2_no_zoc_at_night(tmp_path):
    # Older edition 7.6: no ZOCs at night, so 0402 and 0202 are open too (0303 holds the enemy, 6.3).
    sc = make_scenario(tmp_path, edition="v2")
    s = at(put(g.new_game(sc), F1="0302", A1="0303"), "movement", turn=5)
    assert dests(s, "F1") == ["0201", "0202", "0301", "0401", "0402"]


def test_7_0_zoc_not_into_fortified_nor_across_major_river(tmp_path):
    sc = make_scenario(tmp_path, hexes={"0302": "fortified"},
                       hexsides=[{"hexes": ["0303", "0304"], "features": ["major_river"]}])
    s = put(g.new_game(sc), F1="0302", A1="0303", F2="0304")
    zoc = set(g.zoc_hexes(s, "allied"))
    assert "0302" not in zoc and "0304" not in zoc and "0402" in zoc
    assert g.reachable(s, "F1") != {}        # not stuck: the ZOC does not enter the fortified hex (9.4.3)


def test_6_9_stacking_is_judged_at_the_end_of_the_movement_phase(tmp_path):
    # F1 (MA 2) in 0301 passes through F2 in 0302 to 0303 (6.9: at no extra cost), or stops on F2: a move may
    # end on a friend that moves on, for units "cannot end the Movement Phase stacked" (6.9)
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0301", F2="0302", A1="0308")
    r = g.reachable(s, "F1")
    assert r["0303"].path == ("0301", "0302", "0303") and r["0302"].cost == 1
    s2 = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0302"]})
    assert s2.unit("F1").hex == s2.unit("F2").hex == "0302"
    # the phase cannot end while the two share 0302 (6.9); F2 moves on, then it may
    assert all(a.kind != "end_phase" for a in legal(s2))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s2, {"kind": "end_phase"})
    assert e.value.rule == "6.9"
    s3 = apply_action(s2, {"kind": "move", "unit": "F2", "path": ["0302", "0402"]})
    assert any(a.kind == "end_phase" for a in legal(s3))
    # a friend that has moved cannot move on (6.4): no move may end on it
    moved = apply_action(s, {"kind": "move", "unit": "F2", "path": ["0302", "0402"]})
    assert "0402" not in g.reachable(moved, "F1") and "0401" in g.reachable(moved, "F1")
    with pytest.raises(g.RuleViolation) as e:
        apply_action(moved, {"kind": "move", "unit": "F1", "path": ["0301", "0402"]})
    assert e.value.rule == "6.9"


def test_6_4_no_take_backs(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0301", A1="0308"), "movement")
    s2 = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0302"]})
    assert s2.unit("F1").hex == "0302" and s.unit("F1").hex == "0301"      # the old state is unchanged
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s2, {"kind": "move", "unit": "F1", "path": ["0302", "0303"]})
    assert e.value.rule == "6.4"


def test_6_3_no_entering_enemy_hex(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0301", A1="0302"), "movement")
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0302"]})
    assert e.value.rule == "6.3"


def test_12_3_forced_march_adds_one_and_costs_one_morale(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0301", A1="0308"), "movement")
    assert movement_allowance(s, "F1") == 2
    s2 = apply_action(s, {"kind": "forced_march"})
    assert movement_allowance(s2, "F1") == 3
    assert s2.morale_of("french") == 6 - 1
    assert "0304" in g.reachable(s2, "F1") and "0304" not in g.reachable(s, "F1")


def test_11_2_march_order_each_unit_pays_one_more(tmp_path):
    # Both enter at 0808 (clear, cost 1). The first pays 1 to enter; the second pays 1 + 1 = 2, which
    # spends its whole allowance of 2 in the entry hex.
    sc = make_scenario(tmp_path, entry_areas={"A": ["0808"]},
                       reinforcements=[{"unit": "F1", "turn": 1, "areas": ["A"]},
                                       {"unit": "F2", "turn": 1, "areas": ["A"]}])
    s = g.new_game(sc)
    s = apply_action(s, {"kind": "draw_event"})
    assert s.step == "movement" and s.unit("F1").status == "due"
    r1 = g.reachable(s, "F1")
    assert r1["0808"].cost == 1 and r1["0807"].cost == 2
    s = apply_action(s, {"kind": "move", "unit": "F1", "path": list(r1["0807"].path)})
    r2 = g.reachable(s, "F2")
    assert r2["0808"].cost == 2
    assert set(r2) == {"0808"}


def test_11_4_blocked_entry(tmp_path):
    sc = make_scenario(tmp_path, entry_areas={"A": ["0808"]}, reinforcements=[{"unit": "F1", "turn": 1, "areas": ["A"]}])
    s = apply_action(g.new_game(sc), {"kind": "draw_event"})
    s = put(s, A1="0808")
    assert g.reachable(s, "F1") == {}


def test_12_2_1_committing_the_guard_costs_a_morale_point(tmp_path):
    # FG in 0301 cannot attack anyone; moving to 0303 puts it next to A1 in 0304: one Morale Point.
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), FG="0301", A1="0304"), "movement")
    r = g.reachable(s, "FG")
    assert r["0303"].guard_cost and not r["0302"].guard_cost
    s2 = apply_action(s, {"kind": "move", "unit": "FG", "path": ["0301", "0302", "0303"]})
    assert s2.morale_of("french") == 5
    # exception: free when either side has only 1 Morale Point
    s3 = s.with_morale({"allied": 1})
    assert not g.reachable(s3, "FG")["0303"].guard_cost


def test_16_9_2_leader_moves_through_rugged_and_stacks(tmp_path):
    units = [{"id": "L", "name": "leader", "side": "french", "type": "leader", "strength": 0, "command_span": 2,
              "movement": 5, "source": "provisional"},
             {"id": "F1", "name": "f", "side": "french", "type": "infantry", "strength": 2, "movement": 2,
              "source": "provisional"},
             {"id": "A1", "name": "a", "side": "allied", "type": "infantry", "strength": 1, "movement": 2,
              "source": "provisional"}]
    sc = make_scenario(tmp_path, units=units, hexes={"0302": "forest", "0303": "forest"})
    s = put(g.new_game(sc, options=("leaders",)), L="0301", F1="0304", A1="0808")
    r = g.reachable(s, "L")
    assert r["0304"].cost == 3       # through two forests without stopping, and onto a friend


def test_fatigue_16_8_3_weary_loses_one_point(tmp_path):
    from dataclasses import replace
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc, options=("fatigue",)), F1="0301", A1="0808")
    s = s.with_units({"F1": replace(s.unit("F1"), fatigue=3)})
    assert movement_allowance(s, "F1") == 1
    s = apply_action(at(s, "movement"), {"kind": "forced_march"})
    assert movement_allowance(s, "F1") == 1     # Weary includes Tired: no forced-march benefit


def test_16_6_breakdown_and_buildup(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc, options=("breakdown",)), F1="0301", A1="0808"), "movement")
    assert g.Action("breakdown", unit="F1") in legal(s)
    s2 = apply_action(s, {"kind": "breakdown", "unit": "F1"})
    # 16.6.1: F1 leaves play for good, two Cadres stand in its hex, one Morale Point spent
    assert s2.unit("F1").status == "gone"
    assert s2.unit("FK1").hex == "0301" and s2.unit("FK2").hex == "0301"
    assert s2.morale_of("french") == 6 + s.scenario.tables.morale("breakdown").points
    # one Cadre moves off: they end the phase apart, as two Cadres
    s3 = apply_action(s2, {"kind": "move", "unit": "FK1", "path": ["0301", "0302"]})
    s4 = apply_action(s3, {"kind": "end_phase"})
    assert s4.unit("FK1").hex == "0302" and s4.unit("F1").status == "gone"
    # 16.6.2: two Cadres ending the phase together become the weakest eliminated large infantry unit
    s5 = apply_action(s2, {"kind": "end_phase"})
    assert s5.unit("F1").hex == "0301" and s5.unit("FK1").status == "pool"
    assert s5.morale_of("french") == s2.morale_of("french") + s.scenario.tables.morale("buildup").points
