"""The public query surface bots and boards read (engine.n20.game.queries): the rules' own answers, worked
out by hand on the 8x8 test grid (flat hexes, even columns shifted down; 0302's neighbours are 0301, 0401,
0402, 0303, 0202, 0201; A1 in 0303 controls 0302, 0402, 0403, 0304, 0203, 0202)."""
from __future__ import annotations

from dataclasses import replace

from engine.n20 import game as g
from engine.n20.game import queries as Q

from n20_game_helpers import apply_action, at, make_scenario, put


def test_reachable_is_empty_exactly_when_the_unit_may_not_move_now(tmp_path):
    s = put(g.new_game(make_scenario(tmp_path)), F1="0301", A1="0308")
    assert Q.may_move_now(s, "F1") and Q.reachable(s, "F1")
    assert not Q.may_move_now(s, "A1") and Q.reachable(s, "A1") == {}        # 6.1: not the phasing side
    moved = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0401"]})
    assert Q.reachable(moved, "F1") == {} and not Q.may_move_now(moved, "F1")  # 6.4: no second move
    assert Q.reachable(at(s, "combat"), "F1") == {}                          # 4.0: not in the combat phase


def test_movement_left_by_hand(tmp_path):
    s = put(g.new_game(make_scenario(tmp_path)), F1="0301", A1="0308")
    assert Q.movement_left(s, "F1") == 2                     # printed allowance 2 (6.2)
    fm = apply_action(s, {"kind": "forced_march"})
    assert Q.movement_left(fm, "F1") == 3                    # 12.3: +1 -> 2 + 1 = 3
    square = s.with_units({"F1": replace(s.unit("F1"), square=True)})
    assert Q.movement_left(square, "F1") == 1                # 17.1: leaving the square costs the first point
    night = at(s, "movement", turn=5)                        # turn 5 is a night turn of the test track
    assert night.night and Q.movement_left(night, "F1") == 1  # 14.0: one hex at night, min(2, 1) = 1
    moved = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0401"]})
    assert Q.movement_left(moved, "F1") == 0                 # 6.4: moved


def test_zoc_hexes_and_battle_options_by_hand(tmp_path):
    s = put(g.new_game(make_scenario(tmp_path)), F1="0302", A1="0303", F2="0601")
    # A1 in 0303 projects its ZOC on its six neighbours (7.0)
    assert Q.zoc_hexes(s, "allied") == {"0302", "0402", "0403", "0304", "0203", "0202"}
    opts = Q.battle_options(at(s, "combat"))
    assert opts.must_attack == ("F1",)                       # 9.1: F1 stands in A1's ZOC
    assert opts.must_be_attacked == ("A1",)                  # 7.3: A1 exerts a ZOC on F1
    assert opts.adjacent["F1"] == ("A1",) and opts.adjacent["F2"] == ()   # 9.2.2: F2 is far away
    assert opts.to_json()["must_attack"] == ["F1"]
    assert Q.can_attack(s, "F1", "A1") and not Q.can_attack(s, "F2", "A1")
    assert Q.place_of(s, "A1") == "0303" and Q.place_of(s, "garrison:0101") == "0101"
    assert set(Q.fighting_units(s, "french")) == {"F1", "F2"} and Q.attack_targets(s, "french") == ("A1",)
