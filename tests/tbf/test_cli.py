"""The `vedette tbf` verbs: JSON out, exact fractions, exit 2 with a message on bad input."""
import json
from pathlib import Path

import pytest

from engine.cli import main

REPO = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(["tbf", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_verb_fv4_cv1_being_charged(capsys):
    code, out, _ = run(capsys, "check", "--fv", "4", "--check", "being_charged", "--leader-cv", "1")
    assert code == 0
    data = json.loads(out)
    assert data["pass"]["fraction"] == "5/6"
    assert data["pass_on_d6"] == [1, 2, 3, 4, 5]
    assert data["provenance"]["kind"] == "provisional"


def test_checks_verb_lists_every_check(capsys):
    code, out, _ = run(capsys, "checks")
    data = json.loads(out)
    names = {r["check"] for r in data["rows"]}
    assert {"being_charged", "attacker_melee", "overstack"} <= names
    bc = next(r for r in data["rows"] if r["check"] == "being_charged")
    assert bc["3"]["fraction"] == "1/2"


@pytest.mark.parametrize("argv,needle", [
    (["check", "--fv", "4", "--check", "being_tickled"], "being_tickled"),
    (["check", "--fv", "9", "--check", "being_charged"], "outside"),
    (["fire", "--firer", "ff=3,range=3"], "6.3.3"),
    (["melee", "--attacker", "mf=3,fv=4,kind=cavalry", "--attacker", "mf=3,fv=4", "--defender", "mf=2,fv=3"], "6.4 C"),
    (["check", "--fv", "4", "--check", "being_charged", "--tables", "/nonexistent.yaml"], "nonexistent"),
])
def test_bad_input_exits_2_with_message(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert needle in err


def test_malformed_tables_file_names_the_field(capsys, tmp_path):
    import yaml
    data = yaml.safe_load((REPO / "data/tbf/tables.yaml").read_text())
    data["fire"]["rows"][3] = ["-", "R"]
    bad = tmp_path / "t.yaml"
    bad.write_text(yaml.safe_dump(data, allow_unicode=True))
    code, _, err = run(capsys, "check", "--fv", "4", "--check", "being_charged", "--tables", str(bad))
    assert code == 2 and "t.yaml" in err and "fire" in err


def test_user_tables_change_the_odds(capsys, tmp_path):
    import yaml
    data = yaml.safe_load((REPO / "data/tbf/tables.yaml").read_text())
    data["fatigue"]["checks"]["being_charged"]["drm"] = 1
    f = tmp_path / "mine.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True))
    # d6 + 1 - 1 <= 4 -> 4/6
    code, out, _ = run(capsys, "check", "--fv", "4", "--check", "being_charged", "--leader-cv", "1", "--tables", str(f))
    assert json.loads(out)["pass"]["fraction"] == "2/3"


def test_charge_verb_example_file(capsys):
    code, out, _ = run(capsys, "charge", str(REPO / "data/tbf/examples/charge_two_targets.yaml"), "--map")
    assert code == 0
    data = json.loads(out)
    assert data["total"]["fraction"] == "1/1"
    assert data["summary"]["attempt_passes"]["fraction"] == "2/3"
    assert data["tree"]["kind"] == "sub"


def test_charge_verb_bent_path(capsys, tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text('charger: {name: D, hex: "1214", facing: NE, fv: 4, mf: 3, ma: 8}\n'
                 'path: ["1314", "1414", "1513"]\ntargets: [{units: [{name: X, fv: 3, mf: 4}]}]\n')
    code, _, err = run(capsys, "charge", str(f))
    assert code == 2 and "not straight" in err


def test_fire_and_melee_verbs(capsys):
    code, out, _ = run(capsys, "fire", "--firer", "ff=2", "--firer", "ff=1")
    assert json.loads(out)["any_effect"]["fraction"] == "2/5"
    code, out, _ = run(capsys, "melee", "--attacker", "mf=4,fv=4", "--defender", "mf=4,fv=4", "--terrain", "town")
    data = json.loads(out)
    assert sum(__import__("fractions").Fraction(r["probability"]["fraction"]) for r in data["results"]) == 1


def test_los_and_map_verbs(capsys):
    code, out, _ = run(capsys, "los", "1617", "2014")
    assert json.loads(out)["clear"] is False
    code, out, _ = run(capsys, "map", "0716")
    assert json.loads(out)["walled_road"] is True
    code, _, err = run(capsys, "map", "9999")
    assert code == 2 and "9999" in err


def test_scenario_verbs(capsys):
    code, out, _ = run(capsys, "scenario")
    data = json.loads(out)
    assert data["on_map"]["elite"]["hex"] == "1518" and data["victory_now"]["winner"] == "draw"
    code, out, _ = run(capsys, "activate", "miloradovich")
    assert "ci-1" in json.loads(out)["units"]
    code, out, _ = run(capsys, "reach", "ciii-1", "--place", "ciii-1=1307", "--level2", "2")
    assert len(json.loads(out)["reachable"]) > 1
    code, out, _ = run(capsys, "rout", "ci-1")
    assert json.loads(out)["fate"] in ("safe", "moving", "exited")
    code, out, _ = run(capsys, "retreat", "100-1")
    assert json.loads(out)["options"]


def test_act_fire_on_the_state(capsys):
    code, out, _ = run(capsys, "act", "fire", "--unit", "4l-1", "--target", "2114", "--place", "ci-1=2114:SW")
    data = json.loads(out)
    ci1 = {r["outcome"]: r["probability"]["fraction"] for r in data["pieces"]["ci-1"]}
    assert ci1["normal in 2114"] == "3/5"      # column 3: "-" on 1-6


def test_roll_verbs(capsys):
    code, out, _ = run(capsys, "roll", "initiative", "--turn", "3")
    rows = {r["outcome"]: r["probability"]["fraction"] for r in json.loads(out)["outcomes"]}
    assert rows["french"] == "21/31"
    code, out, _ = run(capsys, "roll", "alert", "--since", "1")
    rows = {r["outcome"]: r["probability"]["fraction"] for r in json.loads(out)["outcomes"]}
    assert rows["True"] == "2/3"               # 4+ with +1: faces 3-6


@pytest.mark.parametrize("argv,needle", [
    (["act", "fire", "--unit", "4l-1", "--target", "2114"], "no enemy"),
    (["scenario", "--place", "nobody=1010"], "nobody"),
    (["scenario", "--place", "ci-1=9999"], "9999"),
    (["act", "charge", "--unit", "drag-3", "--path", "2013", "2114", "2212", "--place", "ci-1=2212"], "straight"),
])
def test_scenario_bad_input(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err


def test_scenario_dir_with_a_bad_units_file(capsys, tmp_path):
    import shutil
    for f in ("map.yaml", "units.yaml", "scenario.yaml"):
        shutil.copy(REPO / "data/tbf/durenstein" / f, tmp_path / f)
    with open(tmp_path / "units.yaml", "a") as fh:
        fh.write("  - {id: x}\n")
    code, out, err = run(capsys, "scenario", "--scenario-dir", str(tmp_path))
    assert code == 2 and "units.yaml" in err and "name" in err


def test_act_grand_battery_fire(capsys):
    code, out, err = run(capsys, "act", "fire", "--unit", "gb:3412", "--target", "3313", "--place", "100-1=3313")
    assert code == 0, err
    data = json.loads(out)
    assert "100-1" in data["pieces"] and "gb:3412" not in data["pieces"]


def test_phase_verb_7_0_recovery_by_hand(capsys):
    # 1/100 fatigued (FV 3) with Campana (CV 1) in 1616: Remove Fatigue d6 + 0 - 1 <= 3 on 1-4 -> 2/3.
    # Novgorod 1st routed (fatigued FV 2) in 2411 next to Miloradovich (CV 1) in 2512: Rally d6 + 1 - 1
    # <= 2 on 1-2 -> 1/3. The turn moves on to 2 (7.0 H).
    code, out, _ = run(capsys, "phase", "recovery", "--place", "100-1=1616:N:fatigued",
                       "--place", "ci-1=2411:SW:routed")
    assert code == 0
    data = json.loads(out)
    assert data["next_turn"] == [2]
    rows = {r["outcome"]: r["probability"]["fraction"] for r in data["pieces"]["100-1"]}
    assert rows == {"normal in 1616": "2/3", "fatigued in 1616": "1/3"}
    rows = {r["outcome"]: r["probability"]["fraction"] for r in data["pieces"]["ci-1"]}
    assert rows == {"fatigued in 2411": "1/3", "routed in 2411": "2/3"}


def test_phase_verb_3_2_initiative_and_6_1_activation(capsys):
    code, out, _ = run(capsys, "phase", "initiative", "--turn", "2")
    assert {r["outcome"]: r["probability"]["fraction"] for r in json.loads(out)["outcomes"]} == \
        {"french": "21/31", "coalition": "10/31"}
    code, out, _ = run(capsys, "phase", "activate", "--leader", "miloradovich")
    data = json.loads(out)
    assert data["activated_leaders"] == ["miloradovich"] and "ci-1" in data["plan"]["units"]


def test_phase_verb_4_1_10_B_needs_a_side(capsys):
    code, _, err = run(capsys, "phase", "end-of-activation")
    assert code == 2 and "4.1.10 B" in err


# --- the game verbs of the core protocol -------------------------------------------------------------
def test_game_verbs_new_legal_act_undo_replay(capsys, tmp_path):
    rec = str(tmp_path / "g.json")
    code, out, _ = run(capsys, "new", "--record", rec, "--seed", "3")
    assert code == 0 and json.loads(out)["to_act"] == "coalition"
    code, out, _ = run(capsys, "legal", "--record", rec)
    texts = [x["text"] for x in json.loads(out)["legal"]]
    assert texts == ["coalition: activate kutusov", "coalition: activate miloradovich", "coalition: pass"]
    code, out, _ = run(capsys, "act", "--record", rec, "coalition: activate miloradovich", "--dice", "1")
    assert code == 0 and json.loads(out)["events"] == 1
    code, out, _ = run(capsys, "act", "--record", rec, "coalition: move ci-1 2312")
    assert code == 0 and json.loads(out)["event"]["rule"] == "6.2"
    before = Path(rec).read_text()
    # wrong side, then a move past the MPs: exit 2, one line naming the rule, record untouched
    code, _, err = run(capsys, "act", "--record", rec, "french: pass")
    assert code == 2 and "3.3 A" in err and err.count("\n") == 1
    code, _, err = run(capsys, "act", "--record", rec, "coalition: move ci-2 1912")
    assert code == 2 and "6.2.1" in err
    assert Path(rec).read_text() == before
    code, out, _ = run(capsys, "undo", "--record", rec)
    assert json.loads(out)["events"] == 1
    code, out, _ = run(capsys, "replay", rec)
    assert code == 0 and "movement" in json.loads(out)["position"]


def test_old_act_calculator_still_works(capsys):
    code, out, _ = run(capsys, "act", "move", "--unit", "ci-1", "--to", "2312")
    assert code == 0 and json.loads(out)["action"] == "move"
    code, _, err = run(capsys, "act", "teleport", "--unit", "ci-1")
    assert code == 2 and "what" in err


def test_game_play_verb_and_bad_record(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "vedette-record", "game": "n20"}')
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.count("\n") == 1


def test_scenario_dir_without_a_victory_total_names_the_file_and_field(capsys, tmp_path):
    # issue 29 bad input: 10.2.3's thresholds are read as {gazan, total}; one missing was a KeyError
    import shutil
    for f in ("map.yaml", "units.yaml", "scenario.yaml"):
        shutil.copy(REPO / "data/tbf/durenstein" / f, tmp_path / f)
    text = (tmp_path / "scenario.yaml").read_text()
    assert "coalition_strategic: {gazan: 10, total: 16}" in text
    (tmp_path / "scenario.yaml").write_text(text.replace("coalition_strategic: {gazan: 10, total: 16}",
                                                         "coalition_strategic: {gazan: 10}"))
    code, out, err = run(capsys, "scenario", "--scenario-dir", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "scenario.yaml" in err and "victory.coalition_strategic.total" in err


@pytest.mark.parametrize("argv,rule", [
    (["rout", "mortier"], "6.7 A"),                          # a leader's id where a unit's is expected
    (["retreat", "mortier"], "6.6"),
    (["retreat", "ci-1", "--place", "ci-1=off"], "6.6"),
    (["act", "charge", "--unit", "mortier", "--path", "1417", "1416", "1415"], "6.2.8 A"),
    (["scenario", "--place", "mortier=1418:N:routed"], "6.5"),
    (["scenario", "--place", "ci-1=2411:N:captured"], "4.2.4"),
])
def test_a_leader_where_a_unit_is_expected_is_refused_naming_the_rule(capsys, argv, rule):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and f"[rule {rule}]" in err, err


def test_a_leader_may_be_moved_by_the_move_calculator(capsys):
    # 6.2: leaders move (before: a KeyError looking up a unit's command)
    code, out, err = run(capsys, "act", "move", "--unit", "mortier", "--to", "1417")
    assert code == 0, err
    assert json.loads(out)["pieces"]["mortier"][0]["outcome"] == "normal in 1417"
