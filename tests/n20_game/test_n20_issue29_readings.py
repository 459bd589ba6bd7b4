"""The Napoleonic 20 readings an expert audit found wrong (issue 29), each worked out by hand from the
rulebook (000 = v3.0 standard rules with Fuentes de Oñoro 20, 001 = the older edition with Bussaco 20) on
the 8x8 test grid of n20_game_helpers: flat hexes, even columns shifted down, so 0302's neighbours are 0301,
0401, 0402, 0303, 0202 and 0201; clear terrain and forest cost 1 Movement Point each (tables_v3/v2); night
turns 5 and 6; the French entry area A is 0808 and 0807. Each test failed on the engine before the fix
(n20-game-4) and names the rule."""
from __future__ import annotations

from dataclasses import replace

import pytest

from engine.core.procedure import TypedDice, first_option
from engine.n20 import game as g
from engine.n20.game.reach import movement_allowance
from engine.n20.game.state import UnitState

from n20_game_helpers import BASE_UNITS, apply_action, at, legal, make_scenario, put

R = g.RULES
LIGHT = {"id": "AL", "name": "Light", "side": "allied", "type": "infantry", "strength": 2, "movement": 2,
         "flags": ["light"], "nationality": "british", "source": "provisional"}


def _night_march_state(tmp_path, **where):
    """The allied night turn 5, reaction step, the French night march declared for two moves (14.1), after
    an allied forced march in the allied movement phase (12.3)."""
    sc = make_scenario(tmp_path, exclusive={"night_march": True})
    s = put(g.new_game(sc), **where)
    return at(s, "reaction", player="allied", turn=5, forced_march=True, night_march_left=2, night_march_used=True)


def test_14_1_the_allied_forced_march_gives_the_french_night_march_nothing(tmp_path):
    # F1 (MA 2) at night: min(2, 1) = 1 point (14.0); the allies' forced march (+1, 12.3) was theirs, in their
    # movement phase: the French night move stays 1 hex, so 0303 (two hexes from 0301) is out of reach
    s = _night_march_state(tmp_path, F1="0301", A1="0308")
    assert movement_allowance(s, "F1") == 1
    ends = {a.path[-1] for a in legal(s, "F1") if a.kind == "night_move"}
    assert "0302" in ends and "0303" not in ends


def test_14_1_the_french_may_forced_march_their_night_march(tmp_path):
    # 14.1: a forced march may lengthen the one-hex night move too: one Morale Point (12.3),
    # 6 -> 5, and F1's allowance 1 + 1 = 2 reaches 0303 (0301-0302-0303, 1 + 1 points)
    s = _night_march_state(tmp_path, F1="0301", A1="0308")
    assert g.Action("forced_march") in legal(s)
    fm = apply_action(s, {"kind": "forced_march"})
    assert fm.morale_of("french") == 5 and fm.morale_of("allied") == s.morale_of("allied")
    assert movement_allowance(fm, "F1") == 2
    assert "0303" in {a.path[-1] for a in legal(fm, "F1") if a.kind == "night_move"}
    assert g.Action("forced_march") not in legal(fm)                     # once (12.3)


def test_12_2_1_a_guard_reinforcement_entering_next_to_an_enemy_pays_its_morale_point(tmp_path):
    # FG (the Guard of BASE_UNITS, MA 2) enters at 0807 (entry area A); A1 in 0806 is next to 0807 (0807's
    # neighbours on this grid: 0806, 0808, 0708, 0707), so from 0807 FG could attack it: committing the
    # Guard costs one Morale Point, 6 -> 5 (12.2.1; neither side is down to 1). Entering at 0808 (neighbours
    # 0807, 0708), not next to A1, costs none.
    sc = make_scenario(tmp_path, setup=[("A1", "0806")], reinforcements=[{"unit": "FG", "turn": 1, "areas": ["A"]}])
    s = apply_action(g.new_game(sc), {"kind": "draw_event"})
    assert s.unit("FG").status == "due" and s.morale_of("french") == 6
    assert "0806" in s.board.neighbours("0807") and "0806" not in s.board.neighbours("0808")
    assert g.reachable(s, "FG")["0807"].guard_cost and not g.reachable(s, "FG")["0808"].guard_cost
    committed = apply_action(s, {"kind": "move", "unit": "FG", "path": ["0807"]})
    assert committed.morale_of("french") == 5
    quiet = apply_action(s, {"kind": "move", "unit": "FG", "path": ["0808"]})
    assert quiet.morale_of("french") == 6


def test_6_0_every_step_of_a_path_is_legal_not_only_its_end(tmp_path):
    # F1 (MA 2) in 0301, A1 in 0303: A1's ZOC covers 0302 and 0402. 0402 is reachable by 0301-0401-0402
    # (2 points), so the destination is legal; but 0301-0302-0402 enters A1's ZOC at 0302 and must stop there
    # (6.7), and 0301-0808-0402 is no path at all: both are refused, and the record keeps a path as played
    s = put(g.new_game(make_scenario(tmp_path)), F1="0301", A1="0303")
    assert "0402" in g.reachable(s, "F1")
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0302", "0402"]})
    assert e.value.rule == "6.7"
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0808", "0402"]})
    assert e.value.rule == "6.0"
    with pytest.raises(g.RuleViolation) as e:                          # the end alone is not a path either
        apply_action(s, {"kind": "move", "unit": "F1", "path": ["0402"]})
    assert e.value.rule == "6.0"
    # a legal way other than the listed one is played as given: 0301-0401-0402 (1 + 1 = 2 points)
    after, event = R.apply(s, {"kind": "move", "unit": "F1", "path": ["0301", "0401", "0402"]})
    assert after.unit("F1").hex == "0402" and event["action"]["path"] == ["0301", "0401", "0402"]
    # beyond the allowance: 0301-0401-0501-0502 costs 3 points, more than F1's 2 (6.2)
    s2 = put(s, A1="0808")
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s2, {"kind": "move", "unit": "F1", "path": ["0301", "0401", "0501", "0502"]})
    assert e.value.rule in ("6.2",)


def test_6_9_a_move_may_end_on_a_friend_that_moves_on(tmp_path):
    # 6.9 forbids ending the Movement Phase stacked, not a move that ends on a friend who then moves on:
    # F1 stops on F2 in 0302 (1 point); the phase cannot end until F2 leaves (0303, 1 point)
    s = put(g.new_game(make_scenario(tmp_path)), F1="0301", F2="0302", A1="0308")
    s2 = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0302"]})
    assert s2.occupants["0302"] == ("F1", "F2") and not R.invariants(s2)
    assert g.Action("end_phase") not in legal(s2)
    s3 = apply_action(s2, {"kind": "move", "unit": "F2", "path": ["0302", "0303"]})
    assert g.Action("end_phase") in legal(s3)
    # F2 may not form square there (that would leave the two stacked for good): refused by 6.9
    sq = put(g.new_game(make_scenario(tmp_path, name="sq"), options=("squares",)), F1="0301", F2="0302", A1="0308")
    sq = apply_action(sq, {"kind": "move", "unit": "F1", "path": ["0301", "0302"]})
    with pytest.raises(g.RuleViolation) as e:
        apply_action(sq, {"kind": "form_square", "unit": "F2"})
    assert e.value.rule == "6.9"


def test_6_9_with_units_released_every_stack_must_still_be_able_to_part(tmp_path):
    # Bussaco 6.10: on turn 1 only as many allied units may move as the Units Released counter says; here 2.
    # A1 stops on A2 (6.9 allows it: A2 can move on): 1 release left, which A2 needs to part. A third unit
    # moving now would leave none for it, so the stack could never part: refused (6.9); A2 moving on is fine
    sc = make_scenario(tmp_path, setup=[("A1", "0301"), ("A2", "0302"), ("AC", "0501"), ("F1", "0808")])
    s = at(put(g.new_game(sc), A1="0301", A2="0302", AC="0501", F1="0808"), "movement", player="allied",
           release_left=2)
    s2 = apply_action(s, {"kind": "move", "unit": "A1", "path": ["0301", "0302"]})
    assert s2.release_left == 1 and s2.occupants["0302"] == ("A1", "A2")
    with pytest.raises(g.RuleViolation) as e:
        apply_action(s2, {"kind": "move", "unit": "AC", "path": ["0501", "0502"]})
    assert e.value.rule == "6.9"
    assert not any(a.kind == "move" and a.unit == "AC" for a in legal(s2))
    s3 = apply_action(s2, {"kind": "move", "unit": "A2", "path": ["0302", "0303"]})
    assert s3.release_left == 0 and g.Action("end_phase") in legal(s3)


def test_14_2_declaring_fieldworks_forgoes_the_nights_rest_even_with_no_marker_placed(tmp_path):
    # The allies (Morale 6) declare Fieldworks at the start of their night movement phase (turn 5) and place
    # no marker: ending the placement ends the phase, and play runs on through their night operations. No
    # enemy holds an allied LOC or objective hex (0101), so the only change could be the rest's +1 (14.0):
    # 14.2 forgoes it, so allied Morale stays 6 (the old reading gave 6 + 1 = 7, as without Fieldworks)
    sc = make_scenario(tmp_path, exclusive={"fieldworks": True}, setup=[("A1", "0505"), ("F1", "0808")])
    s = at(put(g.new_game(sc), A1="0505", F1="0708"), "movement", player="allied", turn=5)
    assert g.Action("fieldworks") in legal(s)
    s = R.apply(s, g.Action("fieldworks"), dice=TypedDice([1]), chooser=first_option)[0]
    assert s.fieldworks_left >= 1 and s.fieldworks == ()
    night = apply_action(s, {"kind": "end_phase"})              # no marker placed; the allied turn ends
    assert night.turn == 6 and night.fieldworks == () and night.morale_of("allied") == 6
    rested = apply_action(at(put(g.new_game(sc), A1="0505", F1="0708"), "movement", player="allied", turn=5),
                          {"kind": "end_phase"})
    assert rested.turn == 6 and rested.morale_of("allied") == 7    # without Fieldworks: rest +1 (14.0)


def test_bussaco_16_8_the_light_division_only_disengages(tmp_path):
    # Light infantry AL (MA 2) in 0301, forest in 0302 (1 point): in the v3.0 rules 16.7.1 lets it go on
    # through the forest to 0303 (1 + 1 = 2); Bussaco's 16.8 (001) keeps only the disengagement (8.3), so
    # there it stops in 0302 (6.5) and 0303 is out of reach
    def reach(edition):
        sc = make_scenario(tmp_path, name=edition, edition=edition, hexes={"0302": "forest"},
                           units=BASE_UNITS + [LIGHT])
        s = at(put(g.new_game(sc, options=("special_units",)), AL="0301", F1="0808"), "movement", player="allied")
        return g.reachable(s, "AL"), s
    v3, _ = reach("v3")
    v2, s = reach("v2")
    assert "0303" in v3 and v3["0303"].cost == 2
    assert "0302" in v2 and "0303" not in v2
    # 16.8: it still disengages as 8.3 allows: AL in 0305, F1 in 0304 next to it (the French phasing);
    # 0405, 0306 and 0205 are free of F1's ZOC
    react = at(put(s, F1="0304", AL="0305"), "reaction", player="french")
    assert any(a.kind == "disengage" and a.unit == "AL" for a in legal(react))


def test_17_1_a_unit_may_move_then_form_square(tmp_path):
    # F1 (MA 2) moves 0301-0401 (1 point) in clear terrain: 1 point left, which forming square costs (17.1)
    sc = make_scenario(tmp_path)
    s = put(g.new_game(sc, options=("squares",)), F1="0301", A1="0308")
    one = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0401"]})
    assert g.Action("form_square", unit="F1") in legal(one)
    sq = apply_action(one, {"kind": "form_square", "unit": "F1"})
    assert sq.unit("F1").square and sq.unit("F1").hex == "0401"
    # two hexes (2 points): none left, so no square this phase
    two = apply_action(s, {"kind": "move", "unit": "F1", "path": ["0301", "0401", "0402"]})
    with pytest.raises(g.RuleViolation) as e:
        apply_action(two, {"kind": "form_square", "unit": "F1"})
    assert e.value.rule == "17.1"
    # into an enemy ZOC: A1 in 0501 covers 0401, so the one-point move to 0401 stops there and forfeits the
    # point left (6.7): no square
    stop = apply_action(put(s, A1="0501"), {"kind": "move", "unit": "F1", "path": ["0301", "0401"]})
    with pytest.raises(g.RuleViolation) as e:
        apply_action(stop, {"kind": "form_square", "unit": "F1"})
    assert e.value.rule == "17.1"


def test_records_of_n20_game_4_are_refused_where_a_reading_changed_their_meaning(tmp_path):
    # 12.2.1: an n20-game-4 record in which the Guard entered next to an enemy for nothing replays up to that
    # event and is refused there, naming the version and the rule
    sc = make_scenario(tmp_path, setup=[("A1", "0806")], reinforcements=[{"unit": "FG", "turn": 1, "areas": ["A"]}])
    s = g.new_game(sc)
    rec = g.make_record(s, [{"kind": "action", "rule": "5.0", "side": "french", "action": {"kind": "draw_event"},
                             "answers": [{"kind": "draw", "rule": "5.0", "label": "random event card", "value": "C1"}]},
                            {"kind": "action", "rule": "6.0", "side": "french",
                             "action": {"kind": "move", "unit": "FG", "path": ["0807"]}, "answers": []}])
    old = replace(rec, engine_version="n20-game-4")
    with pytest.raises(g.RecordError) as e:
        g.replay_record(old)
    assert "n20-game-4" in str(e.value) and "12.2.1" in str(e.value) and e.value.index == 1
    assert len(g.replay_record(rec)) == 3 and g.replay_record(rec)[-1].morale_of("french") == 5


def test_6_0_a_night_move_is_checked_step_by_step_before_anything_changes(tmp_path):
    # Fuentes 14.1: a night move is a move (6.0) of one hex at night (14.0: min(2, 1) = 1 point for F1 in
    # 0301). 0301-0302 is the move; 0301-0808-0302 passes a hex 0301 does not touch, and ['0302'] is no path
    # from 0301: both are refused by the check itself (before any change), naming 6.0; the legal path is
    # played and recorded as given
    s = _night_march_state(tmp_path, F1="0301", A1="0308")
    for path in (["0301", "0808", "0302"], ["0302"]):
        with pytest.raises(g.RuleViolation) as e:
            R.check(s, R.coerce_action({"kind": "night_move", "unit": "F1", "path": path}))
        assert e.value.rule == "6.0"
    after, event = R.apply(s, {"kind": "night_move", "unit": "F1", "path": ["0301", "0302"]})
    assert after.unit("F1").hex == "0302" and event["action"]["path"] == ["0301", "0302"]


def test_6_0_a_disengagement_or_penetration_records_only_a_path_it_may_take(tmp_path):
    # 8.3.3: AC in 0303 next to F1 (0302) disengages one hex to a vacant hex out of F1's ZOC (0302's
    # neighbours 0301, 0401, 0402, 0303, 0202, 0201 are in it): 0303-0304 is one; 0303-0808-0304 passes a
    # hex far from 0303 and 0303-0403-0304 takes two hexes where 8.3.3 allows one: refused (8.3.3), state
    # and record untouched
    s = at(put(g.new_game(make_scenario(tmp_path)), F1="0302", AC="0303"), "reaction")
    assert g.Action("disengage", unit="AC", path=("0303", "0304")) in legal(s)
    for path in (["0303", "0808", "0304"], ["0303", "0403", "0304"], ["0304"]):
        with pytest.raises(g.RuleViolation) as e:
            R.check(s, R.coerce_action({"kind": "disengage", "unit": "AC", "path": path}))
        assert e.value.rule == "8.3.3"
    after, event = R.apply(s, {"kind": "disengage", "unit": "AC", "path": ["0303", "0304"]})
    assert after.unit("AC").hex == "0304" and event["action"]["path"] == ["0303", "0304"]
    # 16.2: penetration moves one hex, to a hex next to an enemy: AC in 0303 may go to 0402 (next to F1);
    # 0303-0403-0402 is two hexes: refused (16.2)
    p = at(put(g.new_game(make_scenario(tmp_path, name="pen"), options=("penetration",)), F1="0302", AC="0303"),
           "reaction")
    assert g.Action("penetrate", unit="AC", path=("0303", "0402")) in legal(p)
    with pytest.raises(g.RuleViolation) as e:
        R.check(p, R.coerce_action({"kind": "penetrate", "unit": "AC", "path": ["0303", "0403", "0402"]}))
    assert e.value.rule == "16.2"


def test_an_older_record_that_a_new_reading_no_longer_allows_is_refused_naming_its_version(tmp_path):
    # Bussaco 16.8 (001): an n20-game-4 record in which the Light Division AL went on through the forest in
    # 0302 to 0303 (16.7.1 of the later edition, 1 + 1 = 2 points) was legal when it was made; under 16.8 AL
    # stops in 0302 (6.5), so replay refuses that event, saying the record's version read the rules otherwise
    sc = make_scenario(tmp_path, edition="v2", hexes={"0302": "forest"}, units=BASE_UNITS + [LIGHT],
                       setup=[("AL", "0301"), ("F1", "0808")])
    s = g.new_game(sc, options=("special_units",))
    events = []
    while not (s.player == "allied" and s.step == "movement"):      # to the allied movement phase of turn 1
        s, e = R.apply(s, legal(s)[0] if s.step == "event" else g.Action("end_phase"))
        events.append(e)
    events.append({"kind": "action", "rule": "6.0", "side": "allied",
                   "action": {"kind": "move", "unit": "AL", "path": ["0301", "0302", "0303"]}, "answers": []})
    rec = replace(g.make_record(g.new_game(sc, options=("special_units",)), events), engine_version="n20-game-4")
    with pytest.raises(g.RecordError) as e:
        g.replay_record(rec)
    assert e.value.index == len(events) - 1
    assert "n20-game-4" in str(e.value) and "6.5" in str(e.value)
