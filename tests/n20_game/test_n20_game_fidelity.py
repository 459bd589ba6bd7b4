"""Rule readings fixed after the expert audit (issue 11, Napoleonic 20), seen through the game: the
bridged Major River (7.0 / 9.4.3, 12.2.1), cossacks in rugged terrain (16.7.2), a side spending its last
Morale Point on reserves (12.1.2). Same 8x8 test grid as the movement tests (the neighbours of 0302 are
0301, 0401, 0402, 0303, 0202, 0201), or a one-row corridor where each hex touches only its two ends."""
from __future__ import annotations

from engine.core.procedure import TypedDice, first_option
from engine.n20 import game as g

from n20_game_helpers import apply_action, procedure_result, at, dests, make_scenario, put

BRIDGE = [{"hexes": ["0302", "0303"], "features": ["major_river", "bridge"]}]


def decl(*battles):
    return {"kind": "declare", "battles": [{"attackers": list(a), "defenders": list(d)} for a, d in battles]}


# --- 7.0 / 9.4.3 (v3) ------------------------------------------------------------------------------------
def test_7_0_9_4_3_v3_attack_across_a_bridged_major_river_is_voluntary(tmp_path):
    # F1 (0302) and A1 (0303) across a bridged Major River: no ZOC crosses it, so nothing is mandatory
    # (9.4.3), but F1 may attack over the bridge (9.4.2 example): the same reading as the battle files
    sc = make_scenario(tmp_path, hexsides=BRIDGE)
    s = at(put(g.new_game(sc), F1="0302", A1="0303"), "combat")
    assert g.battle_options(s).must_attack == ()
    s2 = apply_action(s, decl((["F1"], ["A1"])))
    assert len(s2.declared) == 1
    apply_action(s, {"kind": "end_phase"})


def test_12_2_1_guard_moving_next_to_an_enemy_across_a_bridge_pays_its_point(tmp_path):
    # 12.2 example: the Guard pays one Morale Point to move next to an enemy across a bridge hexside.
    # FG in 0301 cannot attack A1 (0303); 0302 faces A1 over the bridge: guard_cost there; 6 - 1 = 5
    sc = make_scenario(tmp_path, hexsides=BRIDGE)
    s = at(put(g.new_game(sc), FG="0301", A1="0303"), "movement")
    r = g.reachable(s, "FG")
    assert r["0302"].guard_cost
    s2 = apply_action(s, {"kind": "move", "unit": "FG", "path": ["0301", "0302"]})
    assert s2.morale_of("french") == 6 - 1


# --- 16.7.2 cossacks ------------------------------------------------------------------------------------
COSSACKS = [
    {"id": "FK", "name": "Cossacks", "side": "french", "type": "cavalry", "strength": 1, "movement": 3,
     "flags": ["cossack"], "source": "provisional"},
    {"id": "FL", "name": "Light", "side": "french", "type": "infantry", "strength": 1, "movement": 2,
     "flags": ["light"], "source": "provisional"},
    {"id": "A1", "name": "a", "side": "allied", "type": "infantry", "strength": 1, "movement": 2, "source": "provisional"},
]


def corridor(tmp_path, forests, options=("special_units",)):
    sc = make_scenario(tmp_path, units=COSSACKS, cols=8, rows=1, hexes={h: "forest" for h in forests},
                       loc={"allied": ["0801"], "french": ["0101"]}, entry_areas={"A": ["0101"]})
    return at(put(g.new_game(sc, options=options), FK="0101", FL="0101", A1="0801"), "movement")


def test_16_7_2_cossack_goes_on_through_a_rugged_hex_for_two_points(tmp_path):
    # FK (cavalry, MA 3) in 0101, forest in 0201: 2 points to enter it and go on, then 0301 for 1 = 3
    s = corridor(tmp_path, ["0201"])
    r = g.reachable(s, "FK")
    assert r["0201"].cost == 2 and r["0301"].cost == 2 + 1
    assert dests(s, "FK") == ["0201", "0301"]
    # without the special units (16.7) the forest stops it (6.5)
    plain = corridor(tmp_path / "plain", ["0201"], options=())
    assert dests(plain, "FK") == ["0201"]


def test_16_7_2_cossack_with_one_point_left_enters_and_stops(tmp_path):
    # forests in 0201 and 0301: 0201 costs 2 (going on), leaving 1 point: 0301 is entered for that point
    # and the cossack stops there, 2 + 1 = 3; 0401 is out of reach
    s = corridor(tmp_path, ["0201", "0301"])
    r = g.reachable(s, "FK")
    assert r["0301"].cost == 3 and r["0301"].path == ("0101", "0201", "0301")
    assert dests(s, "FK") == ["0201", "0301"]


def test_16_7_1_light_infantry_still_passes_rugged_for_one_point(tmp_path):
    # FL (infantry, MA 2): forest 0201 for 1 point, then 0301: 1 + 1 = 2 (16.7.1 unchanged)
    s = corridor(tmp_path, ["0201"])
    assert g.reachable(s, "FL")["0301"].cost == 2


# --- 12.1.2 with 12.5 in the game --------------------------------------------------------------------------
def test_12_1_2_french_spending_their_last_point_on_reserves_lose_the_game(tmp_path):
    # French at 1 Morale; F1 (3) attacks A2 (2) and commits reserves: 3 + 1 = 4 vs 2, column +2; die 1 = EX
    # (tables_v3 provisional). The Exchange breaks A2 (French +1) and F1 (Allies +1), but the French reached 0
    # when they spent the point (1 - 1 = 0, 12.1.2) and have lost there: French 0, the Allies' 6 unchanged.
    sc = make_scenario(tmp_path, morale={"french": 1, "allied": 6})
    s = at(put(g.new_game(sc), F1="0302", A2="0303"), "combat")
    s = apply_action(s, decl((["F1"], ["A2"])))
    p = g.RULES.begin(s, {"kind": "resolve", "index": 0})
    assert p.request.rule == "12.5"
    p = p.answer(True)
    assert p.request.rule == "12.5"
    p = p.answer(False)
    p = p.run(dice=TypedDice([1]), chooser=first_option)
    st = p.state
    assert procedure_result(p)[3].result == "EX"
    assert dict(st.morale) == {"french": 0, "allied": 6}
    assert st.over and st.result[0] == "allied"
