"""Battles on a map: the board loader and ZOCs (7.0, 9.4.3), retreat priorities (9.8.2-9.8.7), hazards."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine import n20
from engine.core.errors import DataError, RuleViolation
from engine.n20.battle_file import battle_from_model, BattleModel
from engine.n20.board import parse_board

from n20_battle_helpers import EXAMPLES, forced_tables, inf

# A one-row corridor 0101-0601: on a flat, even-shifted grid one row high, each hex touches only
# the hexes left and right of it, so retreat paths are forced and easy to work out by hand.
CORRIDOR = """
source: provisional
name: corridor
grid: {orientation: flat, shifted: even, cols: 6, rows: 1}
loc: {allied: ["0201"], french: ["0601"]}
"""


def corridor_battle(tables, defenders, others=(), attackers=None):
    m = BattleModel.model_validate({"attackers": attackers or [inf("a", 3, hex="0501")],
                                    "defenders": defenders, "others": list(others)})
    return battle_from_model(m, "<corridor>", tables, board=parse_board(CORRIDOR))


def test_7_0_zoc_exceptions_of_9_4_3():
    b = n20.load_board(EXAMPLES / "n20_test_map.yaml")
    assert b.zoc_of("0403") == frozenset(b.neighbours("0403"))       # a town projects into clear hexes
    assert "0106" not in b.zoc_of("0105")                             # never into a fortified hex
    assert "0702" not in b.zoc_of("0602")                             # not across a major river
    assert "0703" not in b.zoc_of("0603")                             # not even at a bridge
    towns = parse_board("""
source: provisional
grid: {orientation: flat, shifted: even, cols: 3, rows: 3}
hexes: {"0202": town, "0201": town, "0102": clear}
""")
    assert "0201" not in towns.zoc_of("0202")                          # between two built-up hexes
    assert "0102" in towns.zoc_of("0202")
    a = n20.Unit("x", "french", hex="0403")
    r = n20.Unit("y", "french", hex="0603", routed=True)               # 9.6.3: no ZOC
    assert towns is not None and b.zoc_hexes([a, r], "french") == b.zoc_of("0403")


def test_7_6_night_zocs_by_edition():
    b = n20.load_board(EXAMPLES / "n20_test_map.yaml")
    u = [n20.Unit("x", "french", hex="0403")]
    assert b.zoc_hexes(u, "french", night=True, edition_night_zoc="none") == frozenset()      # 7.6 (001)
    assert b.zoc_hexes(u, "french", night=True, edition_night_zoc="reversed") == b.zoc_of("0403")  # 7.6 (000)


def test_map_loader_rejects_bad_maps():
    with pytest.raises(DataError) as e:
        parse_board("""
source: provisional
grid: {cols: 4, rows: 4}
hexsides: [{hexes: ["0101", "0303"], features: [minor_river]}]
""", "bad.yaml")
    assert "bad.yaml" in str(e.value) and "adjacent" in str(e.value)
    with pytest.raises(DataError) as e:
        parse_board("source: provisional\ngrid: {cols: 4, rows: 4}\nhexes: {'0101': swamp}\n", "t.yaml")
    assert "hexes" in e.value.field
    with pytest.raises(DataError) as e:
        parse_board("source: provisional\ngrid: {cols: 4, rows: 4}\nloc: {allied: ['0909']}\n", "t.yaml")
    assert "loc" in str(e.value)
    with pytest.raises(DataError) as e:
        parse_board("grid: {cols: 4, rows: 4}\n", "t.yaml")
    assert e.value.field == "source"


def test_9_8_7_loc_reached_early_on_a_map_v3_versus_v2():
    d = [inf("d", 2, hex="0401", side="allied")]
    v3 = corridor_battle(forced_tables("DR"), d)
    v2 = corridor_battle(forced_tables("DR", "v2"), d)
    # from 0401 the only way is 0301, 0201 (the LOC), 0101. Rout 1: 0301; rout 2: 0201 = LOC at full distance.
    # Rout 3+: v3 reaches the LOC at hex 2 with distance left -> breaks there (9.8.7): dice 3-6 = 4/6.
    # v2 has no 9.8.7: rout 3 goes on to 0101; rout 4+ finds no hex beyond the map edge -> breaks (9.8.1): 3/6.
    assert n20.odds(v3).summary["defender_broken"] == F(4, 6)
    assert n20.odds(v2).summary["defender_broken"] == F(3, 6)


def test_9_8_5_retreat_ending_on_a_friend_goes_on_and_9_9_1_path_ends_there():
    d = [inf("d", 2, hex="0401", side="allied")]
    friend = [{"id": "f", "side": "allied", "type": "infantry", "strength": 1, "hex": "0201"}]
    b = corridor_battle(forced_tables("DR"), d, friend,
                        attackers=[{"id": "c", "type": "cavalry", "strength": 3, "movement": 3, "hex": "0501"}])
    res = n20.odds(b)
    # rout 1 -> 0301. Rout 2 would end on the friend in 0201: one hex more, 0101 (3 hexes, beyond its 2)
    routed3 = res.outcomes.prob(lambda o: o.fate("d").hexes == 3 and o.fate("d").end_hex == "0101")
    assert routed3 == F(1, 6)
    # the cavalry's advance path stops at the friend retreated through: 0401 and 0301 only (9.9.1)
    adv = {o.fate("c").advanced for o in res.outcomes if o.fate("d").hexes == 3}
    assert max(adv) <= 2


def test_9_8_2_prefers_vacant_hexes_outside_enemy_zocs():
    b = n20.load_battle(EXAMPLES / "n20_map_battle.yaml", tables=forced_tables("DW"))
    res = n20.odds(b)
    # picton (0403) withdraws to 0402: the one neighbour neither occupied nor in a French ZOC -> never breaks
    assert res.outcomes.prob(lambda o: o.fate("picton").end_hex == "0402") == 1
    # crauford (0404): every free neighbour (0403, 0405, 0305) is in a French ZOC: one 9.8.3 roll.
    # 0305 is the one closer to the Allied LOC 0104 (distance 2, against 3 from 0404): 9.8.6
    assert res.outcomes.prob(lambda o: o.fate("crauford").fate == "broken") == F(1, 2)
    assert res.outcomes.prob(lambda o: o.fate("crauford").end_hex == "0305") == F(1, 2)


def test_9_8_4_river_crossing_hazard_for_the_attacker():
    b = n20.load_battle(EXAMPLES / "n20_map_battle.yaml", tables=forced_tables("AW"))
    res = n20.odds(b)
    # the dragoons (0304) behind the Allied line: 0204 is the only free hex outside Allied ZOCs (9.8.2),
    # across the minor river -> one 9.8.4 roll: broken 1/2
    assert res.outcomes.prob(lambda o: o.fate("dragoons").fate == "broken") == F(1, 2)
    assert res.outcomes.prob(lambda o: o.fate("dragoons").end_hex == "0204") == F(1, 2)
    # ney (0504) withdraws east to 0603, closer to the French LOC 0803 and outside Allied ZOCs
    assert res.outcomes.prob(lambda o: o.fate("ney").end_hex == "0603") == 1


def test_9_2_2_every_attacker_adjacent_to_every_defender():
    with pytest.raises(RuleViolation) as e:
        corridor_battle(forced_tables("DR"), [inf("d", 2, hex="0201", side="allied")])   # 0501 vs 0201
    assert e.value.rule == "9.2.2"


def test_retreat_alternatives_are_listable():
    b = n20.load_battle(EXAMPLES / "n20_map_battle.yaml")
    opts = n20.retreat_options(b, "picton", 3)
    assert opts and all(o.hexes[0] == "0402" for o in opts)
    assert opts == tuple(sorted(opts, key=lambda o: (o.break_chance, o.priority, o.hexes)))


def test_all_decisions_are_listable_with_the_default_first(capsys):
    b = n20.load_battle(EXAMPLES / "n20_map_battle.yaml")
    found = n20.choices(b)
    rules = {c["rule"] for c in found}
    assert {"9.8.2", "9.9.3"} <= rules
    for c in found:
        assert c["default"] == c["options"][0] and len(c["options"]) >= 2
    from engine import cli
    assert cli.main(["n20", "choices", str(EXAMPLES / "n20_map_battle.yaml")]) == 0
    assert '"9.8.2"' in capsys.readouterr().out
