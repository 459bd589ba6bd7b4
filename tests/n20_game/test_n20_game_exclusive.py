"""Exclusive rules of Fuentes de Oñoro 20 and Bussaco 20, on the shipped scenarios."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.procedure import TypedDice, first_option
from engine.n20 import game as g
from engine.n20.game.phases import lull, night_operations

from n20_game_helpers import apply_action, at, legal, put


def fuentes(**kw):
    return g.new_game("fuentes", seed=1, **kw)


def test_fuentes_setup_3_0():
    s = fuentes()
    assert s.turn == 3 and s.player == "french" and dict(s.morale) == {"french": 6, "allied": 8}
    assert s.unit("A1").hex == "0707" and s.unit("A5").hex == "1511" and s.unit("ASAN").hex == "0407"
    assert s.unit("FFER").status == "due" and s.unit("FCON").status == "later"
    assert s.unit("FGRD").status == "aside" and s.unit("FCLS").status == "aside"
    assert s.unit("LWEL").status == "unused"       # leaders only with 16.9
    s2 = fuentes(options=("leaders",))
    assert s2.unit("LWEL").hex == "0707"


def test_fuentes_11_7_supply_column_needs_fuentes_held():
    s = fuentes()
    assert s.unit("FSUP").status == "due"
    assert all(a.kind != "move" for a in legal(s, unit="FSUP"))
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": "FSUP", "path": ["1213"]})
    assert e.value.rule == "11.7"
    s2 = put(s, A1="0506", FFER="0708")           # a French unit in Fuentes de Oñoro (0708)
    r = g.reachable(s2, "FSUP")
    # Entry Area B only (1213, 1313), and only its road hex 1213 (6.10: the column keeps to the road)
    assert r and all(r[h].entry == "1213" for h in r)


def test_fuentes_12_6_resupplying_almeida():
    s = put(fuentes(), FSUP="1802")
    s = s.with_morale({"french": 9, "allied": 8})
    s2 = apply_action(s, {"kind": "move", "unit": "FSUP", "path": ["1802", "1902"]})
    # +2 French (capped at 10, 12.1.1) and -1 allied
    assert s2.supply_delivered and s2.morale_of("french") == 10 and s2.morale_of("allied") == 7


def test_fuentes_6_10_supply_column_road_bound():
    s = put(fuentes(), FSUP="1404")
    r = g.reachable(s, "FSUP")
    assert all(h in s.scenario.board.road_hexes for h in r)


def test_fuentes_12_7_orderly_withdrawal():
    s = at(put(fuentes(), FFER="0506"), "movement", player="allied").with_morale({"french": 8, "allied": 6})
    s2 = apply_action(s, {"kind": "orderly_withdrawal"})
    assert s2.orderly_withdrawal
    # A: at the start of his combat phase, one British or Portuguese unit on an allied LOC marches off: +1
    s3 = at(put(s2, A7="0102"), "combat", player="allied")
    s4 = apply_action(s3, {"kind": "withdraw", "unit": "A7"})
    assert s4.unit("A7").status == "gone" and s4.morale_of("allied") == 7
    # B: no Decisive Victory for the allies any more
    s5 = apply_action(at(s2, "movement", player="french").with_morale({"french": 1}), {"kind": "forced_march"})
    assert s5.result[:2] == ("allied", "marginal")
    # not allowed when morale is close
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s.with_morale({"allied": 7}), {"kind": "orderly_withdrawal"})
    assert e.value.rule == "12.7"


@pytest.mark.parametrize("die,units", [(1, 3), (2, 4), (3, 4), (4, 5), (5, 5), (6, 6)])
def test_fuentes_14_1_night_march_table(die, units):
    s = at(fuentes(), "reaction", player="allied", turn=5)
    assert g.actor(s) == "french"
    s2 = apply_action(s, {"kind": "night_march"}, dice=TypedDice([die]))
    assert s2.night_march_left == units and s2.night_march_used
    assert s2.morale_of("french") == 6 - 1


@pytest.mark.parametrize("die,markers", [(1, 2), (2, 2), (3, 3), (4, 3), (5, 4), (6, 4)])
def test_fuentes_14_2_fieldworks_table(die, markers):
    s = at(fuentes(), "movement", player="allied", turn=5)
    s2 = apply_action(s, {"kind": "fieldworks"}, dice=TypedDice([die]))
    assert s2.fieldworks_left == markers


def test_fuentes_14_2_fieldworks_are_redoubts_and_cost_the_night_rest():
    s = at(fuentes(), "movement", player="allied", turn=5)
    s = apply_action(s, {"kind": "fieldworks"}, dice=TypedDice([1]))
    hexes = [a.hex for a in legal(s) if a.kind == "place_fieldworks"]
    assert "0707" in hexes                       # 1st Division in clear 0707 (British infantry)
    assert "0407" not in hexes                   # Sanchez: Spanish, and forest
    s2 = apply_action(s, {"kind": "place_fieldworks", "hex": "0707"})
    assert s2.board.terrain("0707") == "redoubt" and s.scenario.board.terrain("0707") == "clear"
    with pytest.raises(g.RuleViolation) as e:       # the builders may not move this turn
        apply_action(replace(s2, fieldworks_left=0), {"kind": "move", "unit": "A1", "path": ["0707", "0706"]})
    assert e.value.rule in ("14.2", "6.4")
    # no night rest for the allies this night (14.2)
    s3 = replace(s2, step="night_ops", fieldworks_left=0)
    assert night_operations(s3).morale_of("allied") == s3.morale_of("allied")


def test_fuentes_17_2_bessieres():
    s = fuentes(options=("bessieres",))
    assert s.step == "bessieres"
    one = apply_action(s, {"kind": "roll_bessieres"}, dice=TypedDice([1]))
    assert one.unit("FNOR").status == "gone" and one.turn == 3
    four = apply_action(s, {"kind": "roll_bessieres"}, dice=TypedDice([4]))
    assert four.turn == 1
    six = apply_action(s, {"kind": "roll_bessieres"}, dice=TypedDice([6]))
    assert six.turn == 1 and six.unit("FGRD").status in ("due", "later")
    assert six.unit("FFER").status == "due"        # the turn-3 units now enter on turn 1
    with pytest.raises(g.RuleViolation):
        g.new_game("fuentes-5may", options=("bessieres",))   # 18.1: not in that scenario


def test_fuentes_18_1_setup_zones():
    s = g.new_game("fuentes-5may", seed=1)
    assert s.step == "setup" and s.turn == 13
    places = [a for a in legal(s) if a.kind == "place"]
    assert places
    with pytest.raises(g.RuleViolation):
        apply_action(s, {"kind": "place", "unit": "FCON", "hex": "0909"})   # in an allied ZOC (18.1)
    s2 = apply_action(s, {"kind": "end_phase"})
    assert s2.step == "movement" and s2.unit("FSUP").status == "due"


def test_bussaco_setup_and_6_10_units_released():
    s = g.new_game("bussaco", seed=1)
    assert s.turn == 1 and dict(s.morale) == {"french": 6, "allied": 7}
    assert s.unit("FCL").status == "due" and s.unit("FSO").status == "later" and s.unit("FART").status == "aside"
    s = apply_action(s, {"kind": "end_phase"})             # French movement (no first event, 5.0)
    s = apply_action(s, {"kind": "draw_event"})           # allied event
    assert [a.kind for a in legal(s)] == ["pick_released"]
    s = apply_action(s, {"kind": "pick_released"}, dice=TypedDice([2]))
    assert s.release_left == 2
    movers = [a for a in legal(s) if a.kind == "move"]
    done = set()
    for a in movers:
        if a.unit not in done and len(done) < 2:
            s = apply_action(s, a)
            done.add(a.unit)
    third = [u for u in ("A2", "A5", "A3", "A4") if u not in done][0]
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": third, "path": [s.unit(third).hex, s.unit(third).hex]})
    assert e.value.rule == "6.10"


def test_bussaco_16_9_portuguese_reliability_is_rolled_in_battle():
    s = g.new_game("bussaco", seed=1, options=("portuguese_reliability",))
    s = at(put(s, FMA="0810", APOR="0809"), "combat", player="french")
    s = apply_action(s, {"kind": "declare", "battles": [{"attackers": ["FMA"], "defenders": ["APOR"]}]})
    p = g.RULES.begin(s, {"kind": "resolve", "index": 0})
    p = p.run(dice=TypedDice([5, 3, 3, 3, 3, 3, 3]), chooser=first_option)
    assert any(e.rule == "16.9.1" for e in p.events if e.kind == "roll")


def test_16_1_fog_of_war_hides_and_dummies_vanish_when_revealed():
    s = g.new_game("fuentes", seed=1, options=("fog_of_war",))
    # exclusive 16.1.3: three allied dummies on the map at the start
    assert sum(1 for u in s.units if u.id.startswith("AD") and u.status == "map") == 3
    view = g.RULES.view(s, "french").to_json()
    allied = [u for u in view["units"] if u.get("side") == "allied" and u.get("status") == "map"]
    assert allied and all(u.get("hidden") for u in allied)          # the French see only hidden pieces
    assert all("name" not in u for u in allied)
    # a dummy caught in a declared battle is revealed and removed; the battle is void (16.1.1)
    s2 = at(put(s, FFER="0807", AD1="0806"), "combat")
    s2 = put(s2, A7="0101", A1="0102", ALT="0103", A3="0104", ACAV="0105", ASAN="0106", APOR="0107",
             A6="0108", A5="0109", AD2="0110", AD3="0111")
    s3 = apply_action(s2, {"kind": "declare", "battles": [{"attackers": ["FFER"], "defenders": ["AD1"]}]})
    assert s3.unit("AD1").status == "hidden_off" and s3.done_battles == (0,)
