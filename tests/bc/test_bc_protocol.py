"""Battle Commander on the core game protocol (issue 14): the order-cube turn played by the rules on our own
invented demonstration scenario. Hand-worked turn cases, refusals that name the rule and change nothing,
map results (Death Head, slopes), the CLI's bad input."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine.bc.tally import prepare
from engine.bc.deck import Pile
from engine.bc.game.combat import combat_from_map
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map
from engine.bc.game.actions import action as A
from engine.bc.game.protocol import BcRules
from engine.cli import main
from engine.core.errors import RuleViolation
from engine.core.game import Session, play_game, replay, system_of
from engine.core.procedure import RandomDice, TypedDice

R = BcRules()


def canon(s) -> str:
    return json.dumps(R.state_to_json(s), sort_keys=True)


def fresh_piles(s):
    """The position with empty hands and the whole deck in the draw pile, so cards can be typed in."""
    g = replace(s.g, hands=(("french", ()), ("coalition", ())), pile=Pile.for_play(R.deck))
    return replace(s, g=g)


def after_start(seed: int = 0):
    s, _ = R.apply(R.new_game(), A("start_turn", "french"), seed=seed)
    return fresh_piles(s)


def drawn(s, colour):
    s, _ = R.apply(s, A("draw", s.actor), dice=TypedDice([colour]))
    return s


def refused(s, action, rule):
    before = canon(s)
    with pytest.raises(RuleViolation) as exc:
        R.apply(s, action, dice=RandomDice(0))
    assert exc.value.rule == rule, str(exc.value)
    assert canon(s) == before
    assert action not in R.legal_actions(s)
    return exc.value


def test_registered_and_the_turn_starts_with_the_cup_of_16_1():
    assert isinstance(system_of("bc"), BcRules)
    s = R.new_game()
    assert R.legal_actions(s) == [A("start_turn", "french")] and str(R.position(s)) == "turn 1, prepare"
    s, _ = R.apply(s, A("start_turn", "french"), seed=1)
    cup = dict(s.g.cup.counts)
    # French (initiative, daylight turn 1): 5 commander cubes + 1 daylight (13.2) = 6 blue, tokens 3 + 1 = 4;
    # Coalition: 5 white, 3 tokens (no SHQ on either side: no 16.1 HQ bonus); 2 yellow, 3 red, 3 black
    # (16.1) and the scenario's Gold cube (18.0)
    assert cup == {"blue": 6, "white": 5, "gold": 1, "yellow": 2, "red": 3, "black": 3}
    assert dict(s.g.tokens) == {"french": 4, "coalition": 3}
    assert all(len(h) == 4 for _, h in s.g.hands)          # 16.1: four cards each, from empty hands
    assert s.phase == "draw" and R.legal_actions(s) == [A("draw", "french")]


def test_turn_start_cuts_hands_to_commander_skill_and_throws_enemy_cards_16_1():
    s = after_start()
    s = replace(s, phase="prepare", actor="french", g=replace(s.g, cup=None, turn=2))
    # French skill 3: hand 2 (French), 5 (Coalition), 1, 3, 11 (shared): the enemy card 5 goes (22.0), then one
    # of the four own/shared cards is chosen away (the chooser takes the first offered, 2) -> keeps 1, 3, 11;
    # four cards drawn make seven, so one more goes (15.0: six at most; again the first offered, 1)
    pile = Pile(tuple(n for n in R.deck.numbers if n not in (1, 2, 3, 5, 11)), ())
    g = replace(s.g, pile=pile, hands=(("french", (2, 5, 1, 3, 11)), ("coalition", ())))
    s2, _ = R.apply(replace(s, g=g), A("start_turn", "french"), seed=4)
    hand = s2.g.hand("french")
    assert hand[:2] == (3, 11) and len(hand) == 6
    assert s2.g.pile.discard[:3] == (5, 2, 1)
    assert not R.invariants(s2)


def test_yellow_cube_then_a_move_order_is_refused_18_0():
    s = drawn(after_start(), "yellow")
    # no reinforcement due: the purchase step, initiative player first (18.0)
    assert s.phase == "yellow_buy" and s.actor == "french"
    move = A("move", "french", zones=("W3",), moves=(("F4", "W2"),))
    e = refused(s, move, "18.0")
    assert "not allowed now" in e.message
    # the same order on a Blue cube is legal
    blue = drawn(after_start(), "blue")
    assert blue.phase == "order" and move in R.legal_actions(blue)


def test_blue_cube_move_order_then_the_coalition_reaction_19_2():
    s = drawn(after_start(), "blue")
    s, _ = R.apply(s, A("move", "french", zones=("W3",), moves=(("F4", "W2"),)), seed=0)
    if s.phase == "reform":                     # nothing to reform for a lone Cavalry in W2? then done
        s, _ = R.apply(s, A("done", "french"))
    assert s.g.unit("F4").zone == "W2" and s.phase == "reaction" and s.actor == "coalition"
    # no reserve cube: the Coalition can only decline (19.2)
    legal = R.legal_actions(s)
    assert legal == [A("pass", "coalition")]
    s, _ = R.apply(s, A("pass", "coalition"))
    assert s.phase == "draw" and s.actor == "french"


def test_attack_tokens_spent_across_two_red_cubes_8_0_23_1():
    s = drawn(after_start(), "red")
    assert s.phase == "red" and s.actor == "french" and dict(s.g.tokens)["french"] == 4
    fire = A("attack", "french", frm="M2", to="E2", attack="fire")
    # card 21 shows Gun Smoke in every Fire column: nothing happens but the token is spent: 4 - 1 = 3
    s, _ = R.apply(s, fire, dice=TypedDice([21]))
    assert dict(s.g.tokens)["french"] == 3 and s.engaged == ("M2",) and s.actor == "coalition"
    s, _ = R.apply(s, A("pass", "coalition"))
    # a second attack from M2 in the same Red cube: one Attack Token per Zone (23.1)
    e = refused(s, fire, "23.1")
    assert "already holds an Attack Token" in e.message
    s, _ = R.apply(s, A("attack", "french", frm="M3", to="E3", attack="fire"), dice=TypedDice([11]))
    assert dict(s.g.tokens)["french"] == 2 and s.engaged == ("M2", "M3")
    s, _ = R.apply(s, A("pass", "coalition"))
    s, _ = R.apply(s, A("pass", "french"))    # both passed in succession: the combats end (23.0)
    assert s.phase == "draw" and s.engaged == ()
    s = drawn(s, "red")
    # a new Red cube: M2 may attack again; card 3 reads Gun Smoke at column 0 (M2 on E2: 1 CP - woods 1 = 0)
    assert prepare(combat_from_map(s.g, "M2", "E2", "fire")).column == 0
    s, _ = R.apply(s, fire, dice=TypedDice([3]))
    assert dict(s.g.tokens)["french"] == 1


def test_attack_with_no_token_left_is_refused_23_1():
    s = drawn(after_start(), "red")
    s = replace(s, g=replace(s.g, tokens=(("french", 0), ("coalition", 3))))
    e = refused(s, A("attack", "french", frm="M2", to="E2", attack="fire"), "23.1")
    assert "no Attack Token" in e.message
    assert R.legal_actions(s) == [A("pass", "french")]


def test_move_into_an_occupied_zone_is_refused_9_3():
    s = drawn(after_start(), "blue")
    refused(s, A("move", "french", zones=("M3",), moves=(("F5", "E3"),)), "9.3")      # enemy Blocks
    refused(s, A("move", "french", zones=("M3",), moves=(("F5", "M2"),)), "9.3")      # F1 + F2: full
    # an action of the other side, and one the cube does not allow
    refused(s, A("move", "coalition", zones=("E1",), moves=(("C3", "M1"),)), "18.0")
    refused(s, A("attack", "french", frm="M2", to="E2", attack="fire"), "18.0")


def test_fire_with_a_special_assault_type_is_refused_27_6():
    s = drawn(after_start(), "red")
    refused(s, A("attack", "french", frm="M2", to="E2", attack="fire", special="ordre_mixte"), "27.6")
    refused(s, A("attack", "french", frm="M2", to="E2", attack="fire", special="grand_charge"), "27.2")


def test_death_head_costs_an_attack_token_and_a_step_when_disrupted_23_5():
    s = drawn(after_start(), "red")
    g = s.g
    c1 = g.unit("C1")
    g = replace(g, units=tuple(replace(u, block=replace(u.block, state="disrupted")) if u.id == "C1" else u
                               for u in g.units))
    s = replace(s, g=g)
    # card 13: Skull & Bones in every Fire column -> the Coalition loses one Morale (6 -> 5) and checks the
    # Critical Combat Table with card 5 (Death Head): one Attack Token off its mat (3 -> 2) and, C1 being
    # Disrupted, one step (Long Infantry: 2 steps -> 1 left); then C1's hit while Disrupted makes it retreat
    s, ev = R.apply(s, A("attack", "french", frm="M2", to="E2", attack="fire"), dice=TypedDice([13, 5]))
    assert dict(s.g.tokens)["coalition"] == 2
    assert s.g.morale_of("coalition").value == 5
    assert s.g.unit("C1").block.steps_lost == c1.block.steps_lost + 1
    # the retreat (chosen by the French, 24.1) goes on through enemy Battle Zones: each is a hit while Disrupted
    assert [a["label"] for a in ev["answers"] if a["kind"] == "choose"][0] == "retreat C1 from E2"
    assert dict(s.g.tokens)["french"] == 4 - 1


SLOPE = "  - [M1, E1, stream]\n"


def slope_state(tmp_path):
    text = open(load_scenario().file).read()
    assert SLOPE in text
    p = tmp_path / "slope.yaml"
    p.write_text(text.replace(SLOPE, "  - [E1, M1, up_slope]\n"))      # 23.3: M1 is the higher Zone
    st = new_map(load_scenario(p))
    f1 = st.unit("F1")
    units = tuple(u for u in st.units if u.id != "F1")
    return replace(st, units=(replace(f1, zone="M1"),) + units)       # F1 leads in M1, F3 behind it


def test_slope_helps_only_the_higher_zone_both_ways_23_3(tmp_path):
    st = slope_state(tmp_path)
    up = prepare(combat_from_map(st, "E1", "M1", "assault"))        # C3 charges up the slope
    down = prepare(combat_from_map(st, "M1", "E1", "assault"))      # F1 assaults down it
    slope_lines = lambda t: [l for l in t.lines if "up_slope" in l.what]
    # up: the defender in M1 is higher: heights 1 + up slope 1 + Long Infantry 2 + F3 second line 1 = 5
    assert [l.cp for l in slope_lines(up)] == [1] and up.defender_cp == 1 + 1 + 2 + 1
    # down: the defender in E1 is lower: no interval CPs, only its own Cavalry 1 on clear ground
    assert slope_lines(down) == [] and down.defender_cp == 1
    # the demonstration map's stream (no slope) helps whoever defends across it: 1 each way
    flat = new_map()
    f1 = flat.unit("F1")
    flat = replace(flat, units=(replace(f1, zone="M1"),) + tuple(u for u in flat.units if u.id != "F1"))
    assert any("stream" in l.what for l in prepare(combat_from_map(flat, "M1", "E1", "assault")).lines)
    assert any("stream" in l.what for l in prepare(combat_from_map(flat, "E1", "M1", "assault")).lines)


def test_json_text_and_replay_round_trips():
    final, rec = play_game(R, ("greedy", "random"), seed=2, max_actions=120)
    states = replay(R, rec)
    assert canon(states[-1]) == canon(final)
    for st_ in states[::10]:
        back = R.state_from_json(json.loads(json.dumps(R.state_to_json(st_))))
        assert canon(back) == canon(st_)
        for a in R.legal_actions(st_)[:15]:
            assert R.parse_action(R.format_action(a)) == a
            assert R.action_from_json(json.loads(json.dumps(R.action_to_json(a)))) == a


def test_greedy_game_reaches_a_result_and_undo_restores():
    final, rec = play_game(R, ("greedy", "greedy"), seed=1)
    assert R.outcome(final) is not None and R.outcome(final).rule in ("17.0", "13.1")
    sess = Session.new(R, seed=1)
    sess.act(A("start_turn", "french"))
    before = canon(sess.state)
    sess.act(A("draw", "french"))
    sess.undo()
    assert canon(sess.state) == before


# ---- the CLI ------------------------------------------------------------------------------------
def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_game_verbs(capsys, tmp_path):
    rec = str(tmp_path / "g.json")
    rc, out, _ = run(capsys, "bc", "new", "--record", rec, "--seed", "3")
    assert rc == 0 and json.loads(out)["to_act"] == "french"
    rc, out, _ = run(capsys, "bc", "act", "--record", rec, "french start_turn")
    assert rc == 0 and json.loads(out)["phase"] == "draw"
    saved = open(rec).read()
    rc, _, err = run(capsys, "bc", "act", "--record", rec, "french move zones=W3 moves=F4:W2")
    assert rc == 2 and "[rule 16.2]" in err and len(err.strip().splitlines()) == 1
    assert open(rec).read() == saved
    rc, out, _ = run(capsys, "bc", "legal", "--record", rec)
    assert rc == 0 and [x["text"] for x in json.loads(out)["legal"]] == ["french draw"]
    rc, out, _ = run(capsys, "bc", "play", "--bots", "greedy,greedy", "--seed", "5")
    assert rc == 0 and json.loads(out)["outcome"] is not None


@pytest.mark.parametrize("text,field", [
    ("prepare:\n  initiative: french\n  commanders:\n    french: {cubes: 5, tokens: 3}\n"
     "    coalition: {cubes: 5, tokens: 3, skill: 2}\n", "skill"),
    ("cubes: {blue: many, black: 3}\n", "cubes.blue"),
])
def test_cli_bad_cup_files_exit_2_one_line(capsys, tmp_path, text, field):
    p = tmp_path / "cup.yaml"
    p.write_text(text)
    rc, _, err = run(capsys, "bc", "cup", str(p))
    assert rc == 2 and field in err and len(err.strip().splitlines()) == 1


def test_cli_garrison_with_skill_4_exit_2_28_3(capsys, tmp_path):
    p = tmp_path / "combat.yaml"
    p.write_text("attack: fire\nattacker: {lead: {kind: infantry}}\ndefender: {lead: {kind: garrison, skill: 4}}\n")
    rc, _, err = run(capsys, "bc", "combat", str(p))
    assert rc == 2 and "28.3" in err and len(err.strip().splitlines()) == 1


# ---- combat results on the map, rallies, out of command (issue 14, point 2) -------------------------
def test_retreat_flag_then_advance_gains_one_morale_and_advance_only_then_25_0():
    s = drawn(after_start(), "red")
    adv = A("advance", "french", frm="M2", to="E2", units=("F1", "F2"))
    refused(s, adv, "23.0")                    # no Assault has emptied a Zone: no advance
    # M2 on E2 assault: 2 + 1 (F1, F2) - (2 + 1 + woods 1 + stream 1) = -2; card 18 shows a Retreat Flag in every
    # Assault column: the Coalition loses one Morale (6 -> 5), checks the Critical table (card 21, Skill Flags:
    # no effect without optional 29.7), C1 and C4 both retreat (the French choose where, 24.1). C4 goes to E3,
    # in F5's Battle Zone: a hit (Disrupted); the Retreat Flag's own hit then finds it Disrupted: it retreats
    # again, into E2, empty and in F1's Battle Zone: a hit and a step, its only one: eliminated (6 -> 5 -> 4)
    s, _ = R.apply(s, A("attack", "french", frm="M2", to="E2", attack="assault"), dice=TypedDice([18, 21]))
    assert s.phase == "advance" and s.actor == "french" and not s.g.in_zone("E2")
    assert s.g.morale_of("coalition").value == 4 and not any(u.id == "C4" for u in s.g.units)
    assert A("advance", "french", frm="M2", to="E2", units=("F2",)) not in R.legal_actions(s)   # second alone
    before = s.g.morale_of("french").value
    s, ev = R.apply(s, adv, dice=RandomDice(0))
    # 23.5: an advance after a Retreat Flag: +1 Morale (6 -> 7); C4 (Artillery) was not the Lead: no capture check
    assert s.g.morale_of("french").value == before + 1 == 7
    assert {u.id for u in s.g.in_zone("E2")} == {"F1", "F2"} and "E2" in s.engaged and "M2" not in s.engaged
    assert not [a for a in ev["answers"] if a["rule"] == "25.0" and a["kind"] == "draw"]


def test_no_capture_check_when_nothing_advances_25_0():
    from engine.bc.game.combat import advance
    from engine.core.procedure import play
    st = new_map()
    st = replace(st, units=tuple(u for u in st.units if u.zone != "E1"))      # E1 emptied, C3 gone
    p = play(lambda: advance(st, "M1", "E1", (), retreated_artillery="F3"), seed=1)
    assert not [e for e in p.events if e.kind == "draw"]                   # no card drawn: nobody advanced


def test_square_breaks_on_the_third_hit_after_a_move_27_3():
    s = drawn(after_start(), "blue")
    g = s.g
    g = replace(g, units=tuple(replace(u, block=replace(u.block, formation="square", square_hits=2))
                               if u.id == "F5" else u for u in g.units))
    s, _ = R.apply(replace(s, g=g), A("move", "french", zones=("M3",), moves=(("F5", "W3"),)), seed=0)
    b = s.g.unit("F5").block
    # the move is the Square's third Cohesion Hit (two absorbed already): the Square breaks, Disrupted (9.2)
    assert b.formation == "none" and b.state == "disrupted" and s.g.unit("F5").zone == "W3"


def rally_state():
    s = drawn(after_start(), "yellow")
    s, _ = R.apply(s, A("pass", "french"))
    s, _ = R.apply(s, A("pass", "coalition"))
    assert s.phase == "yellow_rally" and s.actor == "french"
    g = s.g
    g = replace(g, reserve=(("french", 3), ("coalition", 0)),
                units=tuple(replace(u, block=replace(u.block, state="shaken")) if u.id == "F1" else u
                            for u in g.units))
    return replace(s, g=g)


def test_one_rally_per_zone_unless_officer_20_0():
    s = rally_state()
    # card 21: two Skill Flags; F1 skill 3 rallies (Shaken -> Steady), F2 skill 2 too: the cube is spent
    s2, _ = R.apply(s, A("rally", "french", frm="M2"), dice=TypedDice([21]))
    if s2.phase == "reform":
        s2, _ = R.apply(s2, A("done", "french"))
    assert s2.g.unit("F1").block.state == "steady" and dict(s2.g.reserve)["french"] == 2
    s2, _ = R.apply(s2, A("pass", "coalition"))
    refused(s2, A("rally", "french", frm="M2"), "20.0")
    # an Officer (card 7) keeps the cube and the Zone may rally again
    s3, _ = R.apply(s, A("rally", "french", frm="M2"), dice=TypedDice([7]))
    if s3.phase == "reform":
        s3, _ = R.apply(s3, A("done", "french"))
    s3, _ = R.apply(s3, A("pass", "coalition"))
    assert dict(s3.g.reserve)["french"] == 3 and A("rally", "french", frm="M2") in R.legal_actions(s3)


def test_one_army_rally_per_draw_and_no_hq_bonus_21_0():
    s = rally_state()
    # card 1: four Skill Flags; the Army Commander's skill 3 fails, the Steady HQ's +1 not counted (21.0)
    s1, _ = R.apply(s, A("army_rally", "french"), dice=TypedDice([1]))
    assert s1.g.morale_of("french").value == 6 and dict(s1.g.reserve)["french"] == 2
    s1, _ = R.apply(s1, A("pass", "coalition"))
    refused(s1, A("army_rally", "french"), "20.0")
    # card 21 (two flags): 3 >= 2, Morale 6 -> 7
    s2, _ = R.apply(s, A("army_rally", "french"), dice=TypedDice([21]))
    assert s2.g.morale_of("french").value == 7


def test_out_of_command_officer_puts_the_cube_back_21_3():
    s = drawn(after_start(), "blue")
    blue_left = s.g.cup.count("blue")
    g = replace(s.g, hqs=tuple(replace(h, hq=replace(h.hq, state="disrupted")) if h.id == "FHQ" else h
                               for h in s.g.hqs))
    s = replace(s, g=g)                      # no Steady French HQ: every activation is out of command (19.0)
    s, ev = R.apply(s, A("move", "french", zones=("W3",), moves=(("F4", "M3"),)), dice=TypedDice([7]))
    assert [a["rule"] for a in ev["answers"] if a["kind"] == "draw"] == ["21.3"]
    assert s.g.unit("F4").zone == "M3" and s.g.cup.count("blue") == blue_left + 1


def test_disrupted_retreat_into_an_empty_enemy_battle_zone_hit_step_and_on_24_1():
    from engine.bc.game.retreat import retreat_block
    from engine.core.procedure import play
    st = new_map()
    c1 = st.unit("C1")
    units = tuple(u for u in st.units if u.id not in ("C1", "C3", "C4"))
    st = replace(st, units=units + (replace(c1, zone="E1", block=replace(c1.block, state="disrupted")),))
    # C1 (Long Infantry, Disrupted) in E1 can only go to E2 (M1 is French, E1-M2 impassable): E2 is empty and
    # in F1's Battle Zone: a step lost (2 -> 1 left) and a Cohesion Hit, which, Disrupted, retreats it again:
    # to E3 (its only other way), in F5's Battle Zone: a hit, so on again, back to the empty E2: the last
    # step goes, C1 is eliminated and the Coalition loses one Morale (6 -> 5, 26.0)
    p = play(lambda: retreat_block(st, "C1", "french"), seed=0)
    texts = [e.label for e in p.events]
    assert sum("empty enemy Battle Zone: a hit and a step lost" in t for t in texts) == 2
    assert [e.value for e in p.events if e.kind == "choose"] == ["E2", "E3", "E2"]
    assert not any(u.id == "C1" for u in p.result.units) and p.result.morale_of("coalition").value == 5


def test_hq_moves_up_to_its_skill_with_its_order_19_1():
    s = drawn(after_start(), "blue")
    ok = A("move", "french", zones=("W2",), hqs=(("FHQ", "W1"),))
    assert ok in R.legal_actions(s)
    s2, _ = R.apply(s, ok, seed=0)
    assert next(h for h in s2.g.hqs if h.id == "FHQ").zone == "W1"
    refused(s, A("move", "french", zones=("W2",), hqs=(("FHQ", "M2>E2"),)), "9.3")          # enemy Zone
    refused(s, A("move", "french", zones=("W2",), hqs=(("FHQ", "W1>M1>M2>M3"),)), "19.1")   # skill 3
    refused(s, A("move", "french", zones=("W3",), hqs=(("FHQ", "W1"),)), "19.0")            # not activated


def test_moved_artillery_must_be_faced_again_9_4():
    from engine.bc.game.zones import battle_zones
    s = drawn(after_start(), "blue")
    s, _ = R.apply(s, A("move", "french", zones=("M1",), moves=(("F3", "W1"),)), seed=0)
    assert s.phase == "reform" and s.g.unit("F3").facing == ()
    assert battle_zones(s.g, s.g.unit("F3")) == set()          # not faced yet: no Battle Zone
    refused(s, A("done", "french"), "9.4")
    faces = [a.facing for a in R.legal_actions(s) if a.kind == "face"]
    # W1 borders W2 and M1, which border each other: one Zone or both (our reading of 9.4)
    assert sorted(faces) == [("M1",), ("M1", "W2"), ("W2",)]
    s, _ = R.apply(s, A("face", "french", block="F3", facing=("M1",)))
    assert battle_zones(s.g, s.g.unit("F3")) == {"M1"}
    s, _ = R.apply(s, A("done", "french"))
    assert s.phase == "reaction"


def test_a_disrupted_hq_rallies_with_its_own_skill_20_0():
    s = rally_state()
    g = replace(s.g, hqs=tuple(replace(h, hq=replace(h.hq, state="disrupted")) if h.id == "FHQ" else h
                               for h in s.g.hqs))
    # card 21: two Skill Flags; the HQ's own skill 3 (no +1 from itself, 21.0) passes: Steady again
    s2, _ = R.apply(replace(s, g=g), A("rally", "french", frm="W2"), dice=TypedDice([21]))
    assert next(h for h in s2.g.hqs if h.id == "FHQ").hq.state == "steady"


def test_swap_and_square_in_the_reform_window_9_4_27_3():
    s = drawn(after_start(), "blue")
    s, _ = R.apply(s, A("move", "french", zones=("M2",), moves=(("F2", "M1"),)), seed=0)
    # F2 joined F3 in M1 and F2 left M2: both Zones may reform
    assert s.phase == "reform" and set(s.reform) == {"M1", "M2"}
    refused(s, A("formation", "french", frm="M1", formation="massed_column"), "28.2")   # not in this scenario
    s, _ = R.apply(s, A("swap", "french", frm="M1"))
    assert s.g.lead("M1").id == "F2"
    refused(s, A("swap", "french", frm="M1"), "9.4")          # once per Zone in a window
    s, _ = R.apply(s, A("formation", "french", frm="M2", formation="square"))
    assert s.g.lead("M2").block.formation == "square"


def test_the_cli_position_shows_the_odds_of_each_attack_and_rally():
    s = drawn(after_start(), "red")
    odds = R.state_summary(s)["odds"]
    attacks = [R.format_action(a) for a in R.legal_actions(s) if a.kind == "attack"]
    assert attacks and set(attacks) == set(odds)
    fire = odds["french attack frm=M2 to=E2 attack=fire"]
    # column 0, no shift: the share of the 70 event cards whose Fire row reads Gun Smoke in the 0 column
    gun = sum(1 for n in R.deck.event_numbers if R.deck.row(n, "fire")[2] == "gun_smoke")
    assert fire["column"] == 0 and fire["next_card"]["gun_smoke"]["float"] == pytest.approx(gun / 70)
    assert sum(v["float"] for v in fire["next_card"].values()) == pytest.approx(1)
    rally = R.state_summary(rally_state())["odds"]
    assert "french rally frm=M2" in rally and "french army_rally" in rally


def test_cavalry_withdraws_before_an_infantry_assault_24_2():
    s = drawn(after_start(), "red")
    g = s.g
    f1 = g.unit("F1")
    units = tuple(u for u in g.units if u.id not in ("F1", "C1", "C4"))
    s = replace(s, g=replace(g, units=(replace(f1, zone="M1"),) + units))      # F1 leads in M1; E2 emptied
    assault = A("attack", "french", frm="M1", to="E1", attack="assault")
    # the Coalition answers yes to the 24.2 question: C3 withdraws (to E2, its only way); E1 is empty, no card
    # is drawn for a combat, the Attack Token is still spent (4 -> 3) and the French may advance
    s2, ev = R.apply(s, assault, dice=RandomDice(0), chooser=lambda r: True if r.rule == "24.2" else r.options[0])
    assert s2.g.unit("C3").zone == "E2" and s2.phase == "advance" and dict(s2.g.tokens)["french"] == 3
    assert not [x for x in ev["answers"] if x["kind"] == "draw" and x["rule"].startswith("23")]
    # answering no: the combat goes on as usual
    s3, ev3 = R.apply(s, assault, dice=RandomDice(0))
    assert [x for x in ev3["answers"] if x["kind"] == "draw" and x["rule"] == "23.3"]


def test_kept_reserve_cubes_may_go_into_the_cup_16_1():
    s = after_start()
    # end of a turn with 5 French reserve cubes: skill 3 keeps 3 (16.1), and the player puts 2 of them in the cup
    s = replace(s, phase="prepare", actor="french", g=replace(s.g, cup=None, turn=2,
                                                             reserve=(("french", 5), ("coalition", 0))))
    s2, ev = R.apply(s, A("start_turn", "french"), seed=1,
                     chooser=lambda r: 2 if r.rule == "16.1" and "reserve" in r.label else r.options[0])
    q = [x for x in ev["answers"] if x["kind"] == "choose" and x["rule"] == "16.1"][0]
    assert "3 kept reserve cubes" in q["label"] and q["value"] == 2
    # blue: 5 commander + 1 daylight + 2 from the reserve = 8; the box keeps 3 - 2 = 1
    assert s2.g.cup.count("blue") == 8 and dict(s2.g.reserve)["french"] == 1


def test_an_hq_advances_with_the_lead_25_0():
    s = drawn(after_start(), "red")
    s = replace(s, g=replace(s.g, hqs=tuple(replace(h, zone="M2") if h.id == "FHQ" else h for h in s.g.hqs)))
    s, _ = R.apply(s, A("attack", "french", frm="M2", to="E2", attack="assault"), dice=TypedDice([18, 21]))
    assert s.phase == "advance"
    with_hq = A("advance", "french", frm="M2", to="E2", units=("F1", "FHQ"))
    assert with_hq in R.legal_actions(s)
    refused(s, A("advance", "french", frm="M2", to="E2", units=("FHQ",)), "25.0")    # not without the Lead
    s, _ = R.apply(s, with_hq, dice=RandomDice(0))
    assert next(h for h in s.g.hqs if h.id == "FHQ").zone == "E2" and s.g.unit("F2").zone == "M2"


def test_cli_undo_and_replay(capsys, tmp_path):
    rec = str(tmp_path / "g.json")
    run(capsys, "bc", "new", "--record", rec)
    run(capsys, "bc", "act", "--record", rec, "french start_turn")
    run(capsys, "bc", "act", "--record", rec, "french draw")
    rc, out, _ = run(capsys, "bc", "replay", rec, "--upto", "1")
    assert rc == 0 and json.loads(out)["phase"] == "draw"
    rc, out, _ = run(capsys, "bc", "undo", "--record", rec)
    assert rc == 0 and json.loads(out)["events"] == 1 and json.loads(out)["phase"] == "draw"


def test_combat_move_then_attack_with_the_same_token_19_4():
    s = drawn(after_start(), "red")
    mv = A("combat_move", "french", frm="W3", to="M3")
    assert mv in R.legal_actions(s)
    refused(s, A("combat_move", "french", frm="M2", to="M1"), "19.4")        # F1 is Infantry
    s, _ = R.apply(s, mv)
    # the token travels with F4, now leading in M3: 4 - 1 = 3 tokens; only an attack from M3 or a stop follow
    assert dict(s.g.tokens)["french"] == 3 and s.g.lead("M3").id == "F4" and s.actor == "french"
    assert {a.kind for a in R.legal_actions(s)} == {"attack", "pass"}
    refused(s, A("attack", "french", frm="M2", to="E2", attack="fire"), "19.4")
    s2, _ = R.apply(s, A("attack", "french", frm="M3", to="E3", attack="assault"), dice=RandomDice(3))
    assert dict(s2.g.tokens)["french"] == 3 and s2.actor == "coalition" and s2.follow == ""
    s3, _ = R.apply(s, A("pass", "french"))                 # move only: the turn goes over, not a pass (23.0)
    assert s3.actor == "coalition" and s3.passes == 0 and s3.phase == "red"


def test_yellow_cube_brings_back_an_eliminated_hq_first_18_0_27_10():
    s = after_start()
    g = s.g
    fhq = next(h for h in g.hqs if h.id == "FHQ")
    g = replace(g, hqs=tuple(h for h in g.hqs if h.id != "FHQ"), hqs_out=((replace(fhq, hq=replace(fhq.hq,
                                                                                           state="disrupted")), 1),))
    s = drawn(replace(s, g=g), "yellow")
    # 18.0: the reinforcement step comes first; the HQ comes back Disrupted with a friendly Block (27.10)
    assert s.phase == "yellow_reinf" and s.actor == "french"
    places = sorted(a.units[0] for a in R.legal_actions(s))
    assert places == ["FHQ:M1", "FHQ:M2", "FHQ:M3", "FHQ:W3"]
    refused(s, A("reinforce", "french", units=("FHQ:E2",)), "27.10")
    s, _ = R.apply(s, A("reinforce", "french", units=("FHQ:M1",)))
    h = next(h for h in s.g.hqs if h.id == "FHQ")
    assert h.zone == "M1" and h.hq.state == "disrupted" and s.phase == "yellow_buy"


def test_an_hq_may_withdraw_before_an_assault_24_2():
    s = drawn(after_start(), "red")
    g = s.g
    chq = next(h for h in g.hqs if h.id == "CHQ")
    s = replace(s, g=replace(g, hqs=tuple(replace(h, zone="E2") if h.id == "CHQ" else h for h in g.hqs)))
    yes = lambda r: True if r.rule == "24.2" and r.options == (False, True) else r.options[0]
    s2, ev = R.apply(s, A("attack", "french", frm="M2", to="E2", attack="assault"), dice=RandomDice(1), chooser=yes)
    # from E2 the CHQ can go to E1 or E3 (M2 is French): the first offered, E1
    assert next(h for h in s2.g.hqs if h.id == "CHQ").zone == "E1" and chq.zone == "E3"
    assert any(x["rule"] == "24.2" and x["kind"] == "choose" for x in ev["answers"])


def test_out_of_command_moves_show_the_check_odds_21_3():
    s = drawn(after_start(), "blue")
    assert not R.state_summary(s).get("odds")           # every French Zone is in the HQ's range: no gamble
    g = replace(s.g, hqs=tuple(replace(h, hq=replace(h.hq, state="disrupted")) if h.id == "FHQ" else h
                               for h in s.g.hqs))
    odds = R.state_summary(replace(s, g=g))["odds"]
    o = odds["french move zones=W3 moves=F4:W2"]
    # 21.3 with skill 3 in Good Morale: every card passes but Death Heads and 4 Skill Flags
    fails = sum(1 for n in R.deck.event_numbers if R.deck.skill(n) in ("death_head", "flags_4"))
    assert o["out_of_command"] and o["success"]["float"] == pytest.approx(1 - fails / 70)
