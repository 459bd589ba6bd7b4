"""Issue 13 audit, tried as a new user: the points the other TBF game tests left without a hand-worked case.

- 6.1.1 D: a brigade leader takes along his division's own (black-factor) units, not another brigade's;
- 6.4 K: a unit that made a melee attack may not make a second one in the same impulse;
- 7.0 C-D in the game: the Recovery Phase at the end of a turn rolls for a fatigued unit but not for
  a fatigued cavalry unit with a Charged marker, whose marker is then removed;
- the bad-input cases of the issue through `vedette tbf act --record`: exit 2, one line naming the rule,
  the record file byte for byte as it was;
- malformed records through `vedette tbf replay`: exit 2, one line naming the event and the field."""
import copy
import json
from dataclasses import replace

import pytest

from engine.cli import main
from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import TypedDice
from engine.tbf.game.actions import Activate, EndSegment, Melee, Pass
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.activation import activation_plan
from engine.tbf.scenario import default_scenario

SC = default_scenario()
R = TbfRules()


def canon(s):
    return json.dumps(R.state_to_json(s), sort_keys=True)


def run(capsys, *argv):
    code = main(["tbf", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------------------------------------
# 6.1.1 D: black-factor units answer to any leader of their division
# ------------------------------------------------------------------------------------------------
def gaindorge_fresh():
    """Turn 1 with Gaindorge and the 4th Legere not yet flipped (the set-up flips them, 9.0), a battalion
    of Campana's brigade (100-1, command II-2) moved to 2114, one hex from Gaindorge in 2014."""
    s = R.new_game()
    g = s.game
    for pid in ("gaindorge", "4l-1", "4l-2", "4l-3"):
        g = g.with_piece(pid, activated=False)
    g = g.with_piece("100-1", hex="2114")
    return replace(s, game=g, to_move="french", activations=())


def test_brigade_leader_takes_his_divisions_black_factor_units():
    s = gaindorge_fresh()
    plan = activation_plan(SC, s.game, "gaindorge")
    # 6.1.1 A: his brigade (the 4th Legere, II-1) within 2 hexes; 6.1.1 D: drag-3 belongs to the division
    # itself (command II, no brigade) and stands in 1914, 1 hex away, so it is his too
    assert plan["units"] == ["4l-1", "4l-2", "4l-3", "drag-3"]
    # the other black-factor units of Gazan's division (artillery in 1615-1617, 4 hexes; the Elite in 1518;
    # dragoons in 1214, 1314) are his but beyond 2 hexes: each would need the 6.1.3 C check
    assert {"art-1", "art-2", "art-3", "elite", "drag-1", "drag-2"} == set(plan["out_of_command"])
    # 100-1 is one hex away but of Campana's brigade: not his own (6.1.1 A); only a 6.1.3 A extra unit
    assert "100-1" not in plan["units"] + plan["out_of_command"] and "100-1" in plan["extra_candidates"]
    # in the game the same activation reaches drag-3; the units still held back by 9.4 A-C are not listed
    # as out of command (they may not activate at all yet)
    s2, _ = R.apply(s, Activate("french", "gaindorge"), dice=TypedDice([1]))
    assert s2.impulse.units == ("4l-1", "4l-2", "4l-3", "drag-3") and s2.impulse.out_of_command == ()


# ------------------------------------------------------------------------------------------------
# 6.4 K: one melee attack per unit per impulse
# ------------------------------------------------------------------------------------------------
def melee_segment():
    # Miloradovich's ci-1 (2411) turned NW; French 4l-1 in 2311 (NW of 2411) and 4l-2 in 2410 (N): both
    # are next to ci-1 and in its front
    s = R.new_game()
    g = s.game.with_piece("4l-1", hex="2311", facing=2).with_piece("4l-2", hex="2410", facing=3)
    s = replace(s, game=g.with_piece("ci-1", facing=5))
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    while s.impulse.segment != "melee":
        s, _ = R.apply(s, EndSegment(R.to_act(s)), seed=0)
    return s


def test_a_unit_melee_attacks_once_per_impulse():
    s = melee_segment()
    assert R.is_legal(s, Melee("coalition", ("ci-1",), "2410"))
    # both checks pass on 1s (6.4 D attacker, 6.4 F defender); the Melee Combat Table read with a d10 of 8
    # fatigues the defender and leaves both where they stand
    dice = lambda req: 8 if req.rule == "6.4 H" else 1
    p = R.begin(s, Melee("coalition", ("ci-1",), "2311")).run(dice, lambda req: req.options[0])
    s2 = p.state
    assert s2.game.piece("ci-1").hex == "2411" and s2.game.piece("4l-1").hex == "2311"
    assert s2.impulse.segment == "melee"
    before = canon(s2)
    with pytest.raises(RuleViolation) as exc:
        R.apply(s2, Melee("coalition", ("ci-1",), "2410"), dice=TypedDice([]))
    assert exc.value.rule == "6.4 K" and "already made a melee attack" in exc.value.message
    assert canon(s2) == before
    # 6.4 K: the melee goes on with the units that have not attacked yet
    texts = [R.format_action(a) for a in R.legal_actions(s2)]
    assert "coalition: melee ci-6 at 2311" in texts and not any(" ci-1" in t for t in texts if "melee" in t)


# ------------------------------------------------------------------------------------------------
# 7.0 C-D: the Recovery Phase the game runs at the end of a turn
# ------------------------------------------------------------------------------------------------
def test_recovery_phase_skips_charged_cavalry_and_removes_the_marker():
    s = R.new_game()
    g = s.game.with_piece("ci-cav1", status="fatigued", charged=True).with_piece("ci-1", status="fatigued")
    s = replace(s, game=g)
    s, _ = R.apply(s, Pass("coalition"), seed=0)
    asked = []

    def dice(req):
        asked.append((req.rule, req.label))
        return 1

    # the French pass too: the Activation Phase ends, then 4.1.10 B, 7.0, and turn 2's 3.1 and 3.2
    p = R.begin(s, Pass("french")).run(dice, lambda req: req.options[0])
    g2 = p.state.game
    recovery = [label for rule, label in asked if rule.startswith("7.0")]
    # 7.0 D: one Remove Fatigue check, for ci-1 (a 1 passes: FV 3 or more); 7.0 C: none for the cossacks
    assert recovery == ["Remove Fatigue Fatigue Check for ci-1"]
    assert g2.piece("ci-1").status == "normal"                        # 7.0 F
    cav = g2.piece("ci-cav1")
    assert cav.status == "fatigued" and not cav.charged               # 7.0 C: marker gone, fatigue kept
    assert p.state.turn == 2                                          # 7.0 H


# ------------------------------------------------------------------------------------------------
# Bad input through the CLI: refused naming the rule, the record unchanged
# ------------------------------------------------------------------------------------------------
@pytest.fixture()
def record(tmp_path, capsys):
    rec = tmp_path / "g.json"
    assert run(capsys, "new", "--record", str(rec), "--seed", "7")[0] == 0
    return rec


def _refused(capsys, rec, action, rule):
    before = rec.read_bytes()
    code, _, err = run(capsys, "act", "--record", str(rec), action)
    assert code == 2 and err.count("\n") == 1 and f"[rule {rule}]" in err, err
    assert rec.read_bytes() == before
    return err


def test_cli_refuses_each_bad_action_and_keeps_the_record(capsys, record):
    _refused(capsys, record, "coalition: move ci-1 2312", "3.3 A")          # out of sequence: no activation
    _refused(capsys, record, "french: pass", "3.3 A")                       # the wrong side
    assert run(capsys, "act", "--record", str(record), "coalition: activate miloradovich", "--dice", "1")[0] == 0
    _refused(capsys, record, "coalition: activate kutusov", "3.3 B")        # an impulse is under way
    _refused(capsys, record, "coalition: move cv-1 2710", "6.1")            # Column V: not activated
    _refused(capsys, record, "coalition: move ci-1 1615", "6.2.5 B")        # into an enemy hex
    _refused(capsys, record, "coalition: move ci-1 1913", "6.2.1")          # beyond its 4 MPs
    _refused(capsys, record, "coalition: fire ci-1 at 2014", "3.3 B")       # fire in the Movement Segment
    # a bent charge path (6.2.11): the cossacks in 2513 face SW; 2413 is in their front, but 2413 -> 2313
    # turns off the straight hex row that 2513 -> 2413 starts
    _refused(capsys, record, "coalition: charge ci-cav1 2413,2313,2214", "6.2.11")
    # a straight path that ends on an empty hex: no enemy to charge (6.2.8 C), said in a player's words
    err = _refused(capsys, record, "coalition: charge ci-cav1 2413,2314,2214", "6.2.8 C")
    assert "2214 holds no enemy unit" in err
    assert run(capsys, "act", "--record", str(record), "coalition: end")[0] == 0
    assert run(capsys, "act", "--record", str(record), "french: pass")[0] == 0
    _refused(capsys, record, "coalition: activate miloradovich", "6.1.3 E")  # twice in a turn


# ------------------------------------------------------------------------------------------------
# Malformed records: exit 2, one line naming the event and the field
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from engine.core.game import play_game
    _, rec = play_game(R, ("random", "random"), seed=5, max_actions=12)
    data = json.loads(rec.dumps())
    assert any(e.get("kind") == "action" and e["action"]["kind"] == "move" for e in data["events"])
    return data


def _move_event(data):
    return next(i for i, e in enumerate(data["events"]) if e.get("kind") == "action"
                and e["action"]["kind"] == "move")


def _into_the_enemy(data):
    """The first move sent into a hex the enemy holds at the start (1615: French; 2411: Coalition)."""
    a = data["events"][_move_event(data)]["action"]
    a.update(to="1615" if a["side"] == "coalition" else "2411")


def _first_roll(data):
    return next(i for i, x in enumerate(data["events"][0]["answers"]) if x["kind"] == "roll")


@pytest.mark.parametrize("edit,needles", [
    (lambda d: d["events"][_move_event(d)]["action"].update(kind="teleport"), ["event", "field kind"]),
    (lambda d: d["events"][_move_event(d)]["action"].pop("unit"), ["event", "field unit"]),
    (_into_the_enemy, ["event", "6.2.5 B"]),
    (lambda d: d["events"][0]["answers"][_first_roll(d)].update(value=9), ["event 0", "6.2.3 A"]),
    (lambda d: d["events"][0].pop("answers"), ["event 0", "still waits for a"]),
    (lambda d: d.update(options={"option": ["11.1"]}), ["field options", "option"]),
    (lambda d: d.update(options={"options": ["11.99"]}), ["11.99"]),
    (lambda d: d.update(events={}), ["field 'events'"]),
])
def test_malformed_record_names_the_event_or_field(capsys, tmp_path, played, edit, needles):
    data = copy.deepcopy(played)
    edit(data)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    code, out, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.count("\n") == 1 and out == "", err
    for n in needles:
        assert n in err, err


def test_misspelt_options_key_refused_by_the_api():
    with pytest.raises(VedetteError) as exc:
        R.new_game(options={"option": ["11.1"]})
    assert "field options" in str(exc.value) and "'option'" in str(exc.value)
    assert R.new_game(options={"options": ["11.1"]}).options == ("11.1",)


# ------------------------------------------------------------------------------------------------
# 9.5.2 in the game: the Alert roll from the turn after Column II crosses the light blue line
# ------------------------------------------------------------------------------------------------
def _end_turn(s, alert_die):
    """Close every impulse and pass until the turn changes; the 9.5.2 roll shows ``alert_die``, all other
    dice 1 (no mustering of Column III, 9.2 B; initiative 1 each, the French +1 win it, 3.2 A)."""
    t, asked = s.turn, []
    while s.turn == t:
        a = EndSegment(R.to_act(s)) if s.impulse else Pass(R.to_act(s))

        def dice(req):
            asked.append(req.rule)
            return alert_die if req.rule.startswith("9.5.2") else 1
        s = R.begin(s, a).run(dice, lambda req: req.options[0]).state
    return s, asked


def test_alert_roll_after_column_ii_crosses_the_light_blue_line():
    # Column II mustered (9.2 B); cii-1 and Dokhturov in 0406, north of the light blue hexside 0406|0407;
    # 0407 is 9 hexes from the nearest French start unit (0715), so 9.5.2 C (4 hexes) does not apply
    s = R.new_game()
    g = s.game.with_flag("column_II_mustered").with_piece("cii-1", hex="0406", facing=3)
    s = replace(s, game=g.with_piece("dokhturov", hex="0406"))
    s, _ = R.apply(s, Activate("coalition", "dokhturov"), dice=TypedDice([1]))
    s, _ = R.apply(s, R.parse_action("coalition: move cii-1 0407"), seed=0)
    assert "light_blue_crossed" in s.game.flags and s.alert_from == 2          # rolls from turn 2 (9.5.2)
    # turn 2: a 3 is under the 4+ needed (9.5.2 A): still restricted, 9.5.1 holds
    s, asked = _end_turn(s, 3)
    assert s.turn == 2 and "9.5.2 A" in asked and "alert" not in s.game.flags
    # turn 3: the same 3 with the +1 of the second roll (9.5.2 B) makes 4: the alert is given
    s, asked = _end_turn(s, 3)
    assert s.turn == 3 and "alert" in s.game.flags
    assert R.invariants(s) == []


# ------------------------------------------------------------------------------------------------
# `vedette tbf play`: bots play to a verdict, the record replays to the same position, bad bots exit 2
# ------------------------------------------------------------------------------------------------
def test_cli_play_greedy_to_a_verdict_and_replay(capsys, tmp_path):
    rec = tmp_path / "g.json"
    code, out, _ = run(capsys, "play", "--bots", "greedy,greedy", "--seed", "3", "--record", str(rec))
    played = json.loads(out)
    assert code == 0 and played["outcome"]["rule"].startswith("10.") and played["to_act"] is None
    code, out, _ = run(capsys, "replay", str(rec))
    again = json.loads(out)
    assert code == 0 and again["outcome"] == played["outcome"] and again["events"] == played["events"]


def test_cli_play_random_then_go_on_by_hand(capsys, tmp_path):
    rec = tmp_path / "r.json"
    code, out, _ = run(capsys, "play", "--bots", "random,random", "--seed", "2", "--max-actions", "30",
                       "--record", str(rec))
    assert code == 0 and json.loads(out)["events"] == 30
    # the record of a bot game is a game like any other: its legal actions, one played by hand
    code, out, _ = run(capsys, "legal", str(rec))
    first = json.loads(out)["legal"][0]["text"]
    code, out, _ = run(capsys, "act", "--record", str(rec), first)
    assert code == 0 and json.loads(out)["events"] == 31


@pytest.mark.parametrize("bots,needle", [("greedy,nobody", "unknown bot 'nobody'"), ("greedy", "two bots")])
def test_cli_play_bad_bots(capsys, bots, needle):
    code, _, err = run(capsys, "play", "--bots", bots)
    assert code == 2 and needle in err and err.count("\n") == 1


# ------------------------------------------------------------------------------------------------
# The TBF invariants the conformance games check do catch a broken position
# ------------------------------------------------------------------------------------------------
def _broken(kind):
    from engine.tbf.game.state import Impulse
    s = R.new_game()
    g = s.game
    if kind == "turn":
        return replace(s, game=replace(g, turn=14))                             # the scenario has 13 turns
    if kind == "facing":
        return replace(s, game=g.with_piece("ci-1", facing=7))                  # hexsides are 0..5
    if kind == "enemy hex":
        return replace(s, game=g.with_piece("4l-1", hex="2411"))                # with ci-1 and ci-6
    if kind == "overstack":
        return replace(s, game=g.with_piece("ci-1", hex="2412"))                # 3 battalions, 2 regiments
    if kind == "two activations":
        return replace(s, activations=("gaindorge", "gaindorge"))
    if kind == "unflipped unit":
        return replace(s, impulse=Impulse("coalition", "miloradovich", units=("ci-1",)))
    raise AssertionError(kind)


@pytest.mark.parametrize("kind,rule", [("turn", "outside 1..13"), ("facing", "4.3 B"), ("enemy hex", "6.2.5 B"),
                                       ("overstack", "4.1"), ("two activations", "6.1.3 E"),
                                       ("unflipped unit", "6.1.3 E")])
def test_invariants_catch_a_broken_position(kind, rule):
    assert R.invariants(R.new_game()) == []
    bad = R.invariants(_broken(kind))
    assert any(rule in b for b in bad), bad


# ------------------------------------------------------------------------------------------------
# 6.1.3 A: extra units taken along, as many as the leader's CV
# ------------------------------------------------------------------------------------------------
def test_extra_units_up_to_the_leaders_cv():
    from engine.tbf.game.actions import Attach
    # the French released (9.4 C): Campana's 100-1 (2114, 1 hex) and 100-2 (1616, 4 hexes) are within the
    # 4 hexes of 6.1.3 A; Gaindorge's CV is 1, so he may take one of them along
    s = gaindorge_fresh()
    s = replace(s, game=s.game.with_flag("french_released"))
    s, _ = R.apply(s, Activate("french", "gaindorge"), dice=TypedDice([1]))
    assert SC.leaders["gaindorge"].cv == 1 and s.impulse.extra == ("100-1", "100-2") and s.impulse.extra_left == 1
    s2, _ = R.apply(s, Attach("french", "100-1"), seed=0)
    assert "100-1" in s2.impulse.units and s2.game.piece("100-1").activated and s2.impulse.extra_left == 0
    before = canon(s2)
    with pytest.raises(RuleViolation) as exc:
        R.apply(s2, Attach("french", "100-2"), dice=TypedDice([]))
    assert exc.value.rule == "6.1.3 A" and "CV" in exc.value.message and canon(s2) == before
    with pytest.raises(RuleViolation) as exc:
        R.apply(s2, Attach("french", "100-1"), dice=TypedDice([]))
    assert exc.value.rule == "6.1.3 E"                                      # already in this impulse


# ------------------------------------------------------------------------------------------------
# The scenario calculators' bad input: a placement into an enemy hex, a negative Rear Guard shortfall
# ------------------------------------------------------------------------------------------------
def test_place_into_an_enemy_hex_is_refused(capsys):
    # 1616 holds 100-2 and a French battery (9.3 B): a Coalition battalion there breaks 6.2.5 B
    code, _, err = run(capsys, "phase", "recovery", "--place", "ci-1=1616:N:fatigued")
    assert code == 2 and "[rule 6.2.5 B]" in err and "100-2" in err and err.count("\n") == 1
    # moved away first, the hex is free; a hex with enemy leaders only (1418: Mortier, Gazan) is allowed
    code, _, _ = run(capsys, "scenario", "--place", "4l-1=off", "--place", "ci-1=2014")
    assert code == 0
    assert run(capsys, "scenario", "--place", "ci-1=1418")[0] == 0


@pytest.mark.parametrize("n,ok", [("-3", False), ("7", False), ("0", True), ("6", True)])
def test_rear_guard_shortfall_is_0_to_6(capsys, n, ok):
    # 9.2 F-G: 4 battalions and 2 squadrons make the full Rear Guard; more left behind gains nothing
    try:
        code, _, err = run(capsys, "victory", "--rear-guard-shortfall", n)
    except SystemExit as exc:              # argparse refuses the option's value: exit 2, its one line
        code, err = exc.code, capsys.readouterr().err
    assert (code == 0) == ok and (ok or (code == 2 and "expected a number from 0 to 6" in err)), err
