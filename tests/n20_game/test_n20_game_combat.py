"""Battle declarations (9.1-9.2.2) checked before any die, battles resolved by THE battle procedure
(engine.n20.battle) through the core drivers, reactions (8.x). Same 8x8 test grid as the movement tests:
the neighbours of 0302 are 0301, 0401, 0402, 0303, 0202, 0201."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.procedure import TypedDice, first_option
from engine.n20 import game as g
from engine.n20.game.state import Battle

from n20_game_helpers import apply_action, procedure_result, at, legal, make_scenario, put


def combat(state):
    return at(state, "combat")


def decl(*battles):
    return {"kind": "declare", "battles": [{"attackers": list(a), "defenders": list(d)} for a, d in battles]}


def test_9_1_units_in_ezoc_must_attack(tmp_path):
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "end_phase"})
    assert e.value.rule == "9.1"
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "declare", "battles": []})
    assert e.value.rule == "9.1"
    s2 = apply_action(s, decl((["F1"], ["A1"])))
    assert s2.declared == (Battle(("F1",), ("A1",)),)


def test_9_2_1_a_lone_unit_fights_both_adjacent_enemies(tmp_path):
    # A1 (0303) and A2 (0202) both touch F1 (0302): attacking only A1 leaves A2's ZOC on F1 unanswered.
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", A1="0303", A2="0202"))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, decl((["F1"], ["A1"])))
    assert e.value.rule == "9.1.1"
    s2 = apply_action(s, decl((["F1"], ["A1", "A2"])))
    assert len(s2.declared) == 1
    # the listed legal declaration is the same one
    assert any(a.kind == "declare" for a in legal(s))


def test_9_1_2_no_unit_attacks_or_is_attacked_twice(tmp_path):
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", F2="0304", A1="0303"))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, decl((["F1"], ["A1"]), (["F2"], ["A1"])))
    assert e.value.rule == "9.1.2"
    apply_action(s, decl((["F1", "F2"], ["A1"])))   # together, one battle: fine (9.2.2)


def test_9_2_2_every_attacker_adjacent_to_every_defender(tmp_path):
    # F1 (0302) touches A1 (0303) but not A2 (0404); F2 (0304) touches both... 0404's neighbours are
    # 0403, 0504, 0505, 0405, 0305, 0304.
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", F2="0304", A1="0303", A2="0404"))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, decl((["F1", "F2"], ["A1", "A2"])))
    assert e.value.rule == "9.2.2"
    apply_action(s, decl((["F1"], ["A1"]), (["F2"], ["A2"])))


def test_7_0_across_a_major_river_is_not_adjacent(tmp_path):
    sc = make_scenario(tmp_path, hexsides=[{"hexes": ["0302", "0303"], "features": ["major_river"]}])
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    assert g.battle_options(s).must_attack == ()
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, decl((["F1"], ["A1"])))
    assert e.value.rule == "9.2.2"
    apply_action(s, {"kind": "end_phase"})           # nothing is mandatory


def test_v2_bridged_major_river_leaves_units_adjacent(tmp_path):
    # 7.0 of the older edition: across a bridge or ford units are adjacent (the ZOC still stops at the river)
    sc = make_scenario(tmp_path, edition="v2",
                       hexsides=[{"hexes": ["0302", "0303"], "features": ["major_river", "bridge"]}])
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    assert g.battle_options(s).must_attack == ()
    apply_action(s, decl((["F1"], ["A1"])))         # voluntary attack across the bridge is possible


def test_declaration_is_checked_before_any_die(tmp_path):
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    dice = TypedDice([])                 # no die available: a roll would raise NeedInput
    with pytest.raises(g.RuleViolation):
        apply_action(s, decl((["F1"], ["A2"])), dice=dice)
    assert dice.used == 0                # (the state is a value: s itself cannot have changed)


def test_9_0_battle_runs_the_battle_procedure_and_its_outcome_is_applied(tmp_path):
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    s = apply_action(s, decl((["F1"], ["A1"])))
    p = g.RULES.begin(s, {"kind": "resolve", "index": 0})
    # first the reserve decisions (12.5), attacker then defender, then the CRT die (9.0 F)
    assert p.request.rule == "12.5"
    p = p.answer(False)
    assert p.request.rule == "12.5"
    p = p.answer(False)
    assert p.request.rule == "9.0 F"
    p = p.run(dice=TypedDice([1, 4, 4, 4, 4, 4]), chooser=first_option)
    s2 = p.state
    outcome = procedure_result(p)[3]
    assert s2.done_battles == (0,)
    for f in outcome.fates:
        u = s2.unit(f.unit)
        if f.fate in ("broken", "destroyed"):
            assert u.status in ("broken", "gone")
        elif f.fate in ("withdrew", "routed"):
            assert u.hex == f.end_hex
    assert dict(s2.morale) == dict(outcome.morale_after)
    assert "french" in s2.battle_rolls                 # 13.0 bookkeeping
    assert [e.rule for e in p.events if e.kind == "roll"][0] == "9.0 F"


def test_9_9_8_advanced_units_drop_out_of_later_battles(tmp_path):
    sc = make_scenario(tmp_path)
    s = combat(put(g.new_game(sc), F1="0302", A1="0303"))
    s = apply_action(s, decl((["F1"], ["A1"])))
    s = s.with_units({"A1": replace(s.unit("A1"), exhausted=True)})
    s2 = apply_action(s, {"kind": "resolve", "index": 0})
    assert s2.done_battles == (0,) and s2.unit("A1").hex == "0303"    # void battle, nothing happened


def test_8_3_disengagement_and_8_3_2_pinned(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0302", AC="0303"), "reaction")
    acts = legal(s)
    dis = [a for a in acts if a.kind == "disengage"]
    assert dis and all(a.unit == "AC" for a in dis)
    # to a vacant hex out of every enemy ZOC: F1 in 0302 controls 0301, 0401, 0402, 0303, 0202, 0201
    assert {a.path[-1] for a in dis} == {"0403", "0304", "0203"} - {"0402"}
    s2 = apply_action(s, dis[0])
    assert s2.unit("AC").hex == dis[0].path[-1]
    # pinned by enemy cavalry
    s3 = at(put(g.new_game(sc), FC="0302", AC="0303"), "reaction")
    assert not [a for a in legal(s3) if a.kind == "disengage"]
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s3, {"kind": "disengage", "unit": "AC", "path": ["0303", "0304"]})
    assert e.value.rule == "8.3.2"


def test_8_1_countercharge_is_a_battle_by_the_reacting_player(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0302", AC="0303"), "reaction")
    cc = [a for a in legal(s) if a.kind == "countercharge"]
    assert cc and cc[0].battles[0].attackers == ("AC",)
    p = g.RULES.begin(s, cc[0])
    p = p.run(dice=TypedDice([6] * 12), chooser=first_option)
    notes = [e.label for e in p.events if e.kind == "log"]
    # 8.2.2: the countercharging cavalry is doubled against infantry: 2 x 2 = 4 against F1's 3 in clear
    assert "attack 4 vs defence 3" in notes
    assert any(e.kind == "roll" and e.rule == "9.0 F" for e in p.events)


def test_16_3_2_bombardment_across_a_major_river(tmp_path):
    units = [{"id": "FA", "name": "guns", "side": "french", "type": "artillery", "strength": 2, "movement": 1,
              "source": "provisional"},
             {"id": "A1", "name": "a", "side": "allied", "type": "infantry", "strength": 2, "movement": 2,
              "source": "provisional"}]
    sc = make_scenario(tmp_path, units=units, hexsides=[{"hexes": ["0302", "0303"], "features": ["major_river"]}])
    s = combat(put(g.new_game(sc), FA="0302", A1="0303"))
    with pytest.raises(g.RuleViolation):                       # without 16.3: not adjacent (7.0)
        apply_action(s, decl((["FA"], ["A1"])))
    s = combat(put(g.new_game(sc, options=("artillery_support",)), FA="0302", A1="0303"))
    s2 = apply_action(s, decl((["FA"], ["A1"])))
    p = g.RULES.begin(s2, {"kind": "resolve", "index": 0})
    p = p.run(dice=TypedDice([3, 4, 4, 4]), chooser=first_option)
    notes = [e.label for e in p.events if e.kind == "log"]
    # bombarding at its printed strength 2 (not doubled, 16.3.2) against 2 + the best terrain benefit
    assert notes[0].startswith("attack 2 vs")
