"""Sequence of play: events (5.0, 3.0), lulls (13.0), night operations (14.0, 10.0), sudden death (4.0),
victory (12.1.2, 15.0)."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.procedure import TypedDice, first_option
from engine.n20 import game as g
from engine.n20.game.phases import end_combat
from engine.n20.game.victory import end_of_game

from n20_game_helpers import apply_action, at, legal, make_scenario, put


def test_13_0_lull_only_after_the_first_night(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0301", A1="0308"), "combat", turn=2).with_morale({"french": 5})
    # before any night turn: no lull
    assert end_combat(s).morale_of("french") == 5
    # after the first night: 5 < 6, no forced march, no battle dice -> +1
    s2 = replace(s, first_night_seen=True)
    assert end_combat(s2).morale_of("french") == 6
    # 8 against 6: neither under 6 nor behind -> nothing
    s3 = s2.with_morale({"french": 8})
    assert end_combat(s3).morale_of("french") == 8
    # 7 against 7: not ahead of the enemy -> +1
    s4 = s2.with_morale({"french": 7, "allied": 7})
    assert end_combat(s4).morale_of("french") == 8
    # a forced march or a battle this turn forbids it
    assert end_combat(replace(s2, forced_march=True)).morale_of("french") == 5
    assert end_combat(replace(s2, battle_rolls=("french",))).morale_of("french") == 5


def test_13_0_bussaco_lulls_from_turn_1(tmp_path):
    sc = make_scenario(tmp_path, lulls_from_turn=1, edition="v2")
    s = at(put(g.new_game(sc), F1="0301", A1="0308"), "combat", turn=1).with_morale({"french": 5})
    assert end_combat(s).morale_of("french") == 6


def test_13_0_no_lull_with_an_army_off_the_map(tmp_path):
    sc = make_scenario(tmp_path)
    s = at(put(g.new_game(sc), F1="0301"), "combat", turn=2).with_morale({"french": 5})
    assert end_combat(replace(s, first_night_seen=True)).morale_of("french") == 5


def test_14_0_night_operations_in_order(tmp_path):
    # Night turn 5, French player. F2 is broken and rallies; F1 holds the allied LOC 0101.
    # Order: rally first (placement on the French LOC 0808), then the allies lose for their LOC,
    # then the French rest (+1).
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0101", A1="0505")
    s = s.with_units({"F2": replace(s.unit("F2"), status="broken", hex=None)})
    s = at(s, "night_ops", turn=5)
    tables = s.scenario.tables
    assert [a.kind for a in legal(s)] == ["rally", "rally", "end_phase"]
    p = g.RULES.begin(s, {"kind": "rally", "units": ["F2"]})
    assert p.request.rule == "10.0"
    p = p.answer(6)
    if tables.rally_result(6) == "rallied":
        assert p.request.rule == "10.0" and "0808" in p.request.options   # where to place it
        p = p.answer("0808")
    s2 = p.state
    assert s2.unit("F2").hex == "0808"
    assert s2.morale_of("allied") == 6 + tables.morale("enemy_holds_loc").points
    assert s2.morale_of("french") == 6 + tables.morale("night_rest").points
    assert s2.player == "allied"       # the French player turn is over


def test_10_0_rally_modifiers_irregulars_and_morale_point(tmp_path):
    # exclusive 16.7.7: -1 for the Spanish irregulars; 12.4: +1 for a spent Morale Point: 4 - 1 + 1 = 4
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc, options=("special_units",)), A1="0505", F1="0707")
    s = s.with_units({"AS": replace(s.unit("AS"), status="broken", hex=None)})
    s = at(s, "night_ops", player="allied", turn=5)
    p = g.RULES.begin(s, {"kind": "rally", "units": ["AS"], "spend": True})
    p = p.answer(4)
    notes = [e.label for e in p.events if e.kind == "log"]
    assert any("die 4 +0 = 4" in n for n in notes)


def test_4_0_sudden_death(tmp_path):
    sc = make_scenario(tmp_path, sudden_death={3: 2}, last_turn=6, night_turns=[5])
    s = at(put(g.new_game(sc), F1="0301", A1="0308"), "sudden_death", player="allied", turn=3)
    assert g.actor(s) == "allied"                      # the second player rolls
    ended = apply_action(s, {"kind": "roll_sudden_death"}, dice=TypedDice([2]))
    assert ended.over and "sudden death" in ended.result[2]
    goes_on = apply_action(s, {"kind": "roll_sudden_death"}, dice=TypedDice([3]))
    assert not goes_on.over and goes_on.turn == 4


def test_15_0_victory_levels(tmp_path):
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0301", A1="0308")
    assert end_of_game(s.with_morale({"allied": 7, "french": 6}), "t").result[:2] == ("allied", "marginal")
    assert end_of_game(s.with_morale({"allied": 6, "french": 7}), "t").result[:2] == ("draw", "draw")
    # 12.1.2: a side at 0 loses at once
    s2 = at(s, "movement").with_morale({"french": 1})
    s3 = apply_action(s2, {"kind": "forced_march"})
    assert s3.result[:2] == ("allied", "decisive")


def test_5_0_event_deck_red_cards_join_after_first_reshuffle():
    s = g.new_game("fuentes", seed=1)
    red = {c.id for c in s.scenario.cards.values() if c.red}
    assert red and set(s.discard) == red and not (red & set(s.draw_pile))   # 3.0
    assert s.step == "movement"                 # exclusive 5.0: no French event on the first turn
    s = apply_action(s, {"kind": "end_phase"})       # French movement over; nobody is in contact
    assert s.player == "allied" and s.step == "event"
    s2 = apply_action(s, {"kind": "draw_event"})
    assert len(s2.draw_pile) == len(s.draw_pile) - 1 and s2.event[1] == "allied"


def test_5_0_the_guard_enters_through_its_event():
    s = g.new_game("fuentes", seed=1)
    s = apply_action(s, {"kind": "end_phase"})
    s = replace(s, draw_pile=("F01",))
    s = apply_action(replace(s, player="french"), {"kind": "draw_event"})
    assert s.unit("FGRD").status == "due" and s.unit("FGRD").areas == ("A",)


def test_9_6_3_routed_markers_come_off_at_the_end_of_the_own_combat_phase(tmp_path):
    # French combat phase: markers of the French colour (placed during the allied turn) come off units
    # outside an enemy ZOC; the allied-coloured one and the one next to the enemy stay.
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc), F1="0301", F2="0302", A1="0303", A2="0808")
    s = s.with_units({"F1": replace(s.unit("F1"), routed="french"),
                      "F2": replace(s.unit("F2"), routed="french"),
                      "A2": replace(s.unit("A2"), routed="allied")})
    s2 = end_combat(at(s, "combat", turn=2))
    assert s2.unit("F1").routed is None
    assert s2.unit("F2").routed == "french"      # 0302 is in A1's ZOC
    assert s2.unit("A2").routed == "allied"


def test_16_8_2_fatigue_recovery_away_from_the_enemy(tmp_path):
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc, options=("fatigue",)), F1="0301", F2="0302", A1="0303")
    s = s.with_units({"F1": replace(s.unit("F1"), fatigue=2), "F2": replace(s.unit("F2"), fatigue=2)})
    s2 = end_combat(at(s, "combat", turn=2))
    assert s2.unit("F1").fatigue == 1 and s2.unit("F2").fatigue == 2


def test_11_5_reinforcements_may_wait(tmp_path):
    sc = make_scenario(tmp_path, reinforcements=[{"unit": "F1", "turn": 1, "areas": ["A"]}])
    s = apply_action(g.new_game(sc), {"kind": "draw_event"})
    assert s.unit("F1").status == "due"
    s = apply_action(s, {"kind": "end_phase"})        # not brought in this turn
    while s.turn == 1 and not s.over:
        s = apply_action(s, legal(s)[-1] if legal(s)[-1].kind == "end_phase" else legal(s)[0])
    assert s.turn == 2 and s.unit("F1").status == "due"


def test_5_0_reshuffle_after_the_second_players_night_turn():
    s = g.new_game("fuentes", seed=2)
    s = replace(s, draw_pile=("F01",), discard=tuple(c for c in s.scenario.cards if c != "F01"))
    s = at(s, "night_ops", player="allied", turn=5)
    s2 = apply_action(s, {"kind": "end_phase"})
    assert s2.turn == 6 and set(s2.draw_pile) == set(s.scenario.cards) and s2.discard == ()
    assert s2.first_night_seen                   # 13.0: lulls possible from now on


def test_typed_answers_are_checked_against_their_request():
    """A card typed in must be in the draw pile, a die must show 1..6; a refused answer changes nothing."""
    s = g.new_game("bussaco", seed=3)
    s = apply_action(s, {"kind": "end_phase"})            # to the allied event phase
    p = g.RULES.begin(s, {"kind": "draw_event"})
    assert p.request.kind == "draw"
    with pytest.raises(g.RuleViolation):
        p = p.answer("NOT-A-CARD")
    assert not p.done
    p = p.answer("B04")                                   # +1 allied morale (events.yaml)
    assert p.done and p.state.event == ("B04", "allied")
    assert p.state.morale_of("allied") == s.morale_of("allied") + 1
    assert s.event == ()                              # the earlier state is untouched
