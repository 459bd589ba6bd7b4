"""`vedette lob ...`: JSON out, exit code 2 with one clear line for bad input."""
import json

import pytest

from engine.cli import main

COMBAT = """
target: "15"
origin: "23"
attackers: [{uid: A, kind: inf, rating: 3}]
defenders: [{uid: D, kind: inf, rating: 3, approach: "23"}]
"""


def run(capsys, *argv):
    rc = main(["lob", *argv])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 and out.strip() else None), err


def test_cli_combat_file(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text(COMBAT)
    rc, out, err = run(capsys, "combat", str(f), "--policy", "until:1")
    assert rc == 0, err
    p = out["attacker_takes_area"]
    assert set(p) == {"fraction", "float"} and abs(eval(p["fraction"]) - p["float"]) < 1e-12
    assert set(out["expected_hits"]) == {"A", "D"}
    assert set(out["expected_morale"]) == {"French", "Allied"}
    assert out["provenance"]["combat"]["kind"] == "rulebook"


def test_cli_combat_on_the_setup_and_tree(capsys):
    rc, out, err = run(capsys, "combat", "albuera:17>Albuera", "--attacker-policy", "until:1", "--tree",
                       "--tree-depth", "3")
    assert rc == 0, err
    assert out["attacker_takes_area"]["fraction"] == "0/1"   # town +2, close +2, light cav +1, river +2
    assert out["tree"]["kind"] in ("choose", "sub", "roll", "leaf")


def test_cli_bad_inputs_exit_2(tmp_path, capsys):
    rc, out, err = run(capsys, "combat", "albuera:17>Albuera:F-Konopka")
    assert rc == 2 and "F-Konopka" in err and "not in area 17" in err
    bad = tmp_path / "bad.yaml"
    # 16 (clear) borders Albuera (town): no approach between open and close areas (1.1)
    bad.write_text(COMBAT.replace('approach: "23"', "approach: Albuera").replace('"15"', '"16"').replace('"23"', '"15"'))
    rc, out, err = run(capsys, "combat", str(bad))
    assert rc == 2 and "approach" in err
    mapf = tmp_path / "map.yaml"
    mapf.write_text("source: provisional\nareas: [{id: a, terrain: swamp, bank: west, x: 0, y: 0}]\nborders: []\n")
    rc, out, err = run(capsys, "map", "--map", str(mapf))
    assert rc == 2 and "map.yaml" in err
    rec = tmp_path / "r.json"
    rec.write_text('{"format": "vedette-record", "format_version": 1, "game": "lob", "scenario": "albuera", "events": [{"kind": "action", "action": {"type": "end-phase"}, "answers": []}]}')
    rc, out, err = run(capsys, "replay", str(rec))
    assert rc == 2 and "event 0" in err
    rc, out, err = run(capsys, "combat", "x.yaml", "--policy", "sometimes")
    assert rc == 2


def test_cli_fire_and_schedule(capsys):
    rc, out, err = run(capsys, "fire", "--target", "inf", "--square")
    assert rc == 0
    assert out["any_effect"]["fraction"] == "2/3"            # d6 + 1 >= 4
    rc, out, err = run(capsys, "schedule", "--turns", "2")
    assert out["French"]["expected_total"]["fraction"] == "7/1"   # 4 + 3
    assert out["Allied"]["expected_total"]["fraction"] == "3/1"   # 1 + 2


def test_cli_play_replay_act_undo(tmp_path, capsys):
    rec = tmp_path / "game.json"
    rc, out, err = run(capsys, "play", "--seed", "3", "--bots", "random,random", "--record", str(rec))
    assert rc == 0 and out["finished"]
    rc, rep, err = run(capsys, "replay", str(rec))
    assert rc == 0 and rep["winner"] == out["winner"]
    new = tmp_path / "mine.json"
    rc, out, err = run(capsys, "act", str(new), '{"type": "end-admin"}')
    assert rc == 0 and out["cp"] == 4 and out["phase"] == "command"
    rc, out, err = run(capsys, "act", str(new), '{"type": "activate", "area": "10"}')
    assert rc == 2 and "4.2" in err                           # an Allied area on the French go
    rc, out, err = run(capsys, "legal", str(new))
    assert {"type": "end-phase"} in [x["action"] for x in out["legal"]]       # core's form: text, says, action
    assert "end-phase" in [x["text"] for x in out["legal"]]
    rc, out, err = run(capsys, "undo", str(new))
    assert rc == 0 and out["phase"] == "admin"


def test_cli_user_tables_file(tmp_path, capsys):
    from engine.lob.tables import TABLES_FILE
    bad = tmp_path / "t.yaml"
    bad.write_text(TABLES_FILE.read_text().replace("one_hit_from: 4", "one_hit_from: four"))
    rc, out, err = run(capsys, "fire", "--tables", str(bad))
    assert rc == 2 and "fire.one_hit_from" in err
    good = tmp_path / "g.yaml"
    good.write_text(TABLES_FILE.read_text().replace("one_hit_from: 4", "one_hit_from: 3"))
    rc, out, err = run(capsys, "fire", "--tables", str(good))
    assert rc == 0 and out["any_effect"]["fraction"] == "2/3"   # 3+ on a d6


def test_act_that_would_create_a_record_in_no_folder_is_one_line(tmp_path, capsys):
    # the older `act` on a missing record starts one: in a missing folder that is one line, nothing written
    rc, out, err = run(capsys, "act", "--record", str(tmp_path / "no" / "g.json"), "end-admin")
    assert rc == 2 and err.count("\n") == 1 and "cannot write" in err
    assert list(tmp_path.iterdir()) == []


def test_odds_of_an_action_in_a_record_and_a_record_from_a_fifo(tmp_path, capsys):
    import os
    rec = tmp_path / "g.json"
    assert run(capsys, "new", "--seed", "2", "--record", str(rec))[0] == 0
    # the end of the French turn-1 admin phase: the scenario fixes its command points (Albuera scenario
    # play, rule 3), no die is rolled: one outcome, of probability 1
    rc, out, err = run(capsys, "odds", "--record", str(rec), "end-admin")
    assert rc == 0, err
    assert out["total_probability"]["fraction"] == "1/1" and out["rule"] == "3"
    fifo = tmp_path / "f.json"
    os.mkfifo(fifo)
    rc, out, err = run(capsys, "replay", str(fifo))
    assert rc == 2 and "regular file" in err
