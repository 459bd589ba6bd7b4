"""Battle Commander on the core game protocol (issue 14): the order-cube turn played by the rules on our own
invented demonstration scenario. Hand-worked turn cases, refusals that name the rule and change nothing,
map results (Death Head, slopes), the CLI's bad input."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine.bc.combat import prepare
from engine.bc.deck import Pile
from engine.bc.game import combat_from_map, load_scenario, new_game
from engine.bc.protocol import BcAction as A, BcRules
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
    st = new_game(load_scenario(p))
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
    flat = new_game()
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
