"""Bad input (unknown scenario, bad map, bad setup, bad record) and game records: save, load, replay, undo."""
from __future__ import annotations

import json
import pytest

from engine.core.errors import DataError, RecordError
from engine.n20 import game as g

from n20_game_helpers import make_scenario


def test_unknown_scenario_is_a_data_error():
    with pytest.raises(DataError) as e:
        g.new_game("waterloo")
    assert "fuentes" in str(e.value)


def test_map_hex_outside_the_grid(tmp_path):
    sc = make_scenario(tmp_path, hexes={"0909": "forest"})
    with pytest.raises(DataError) as e:
        g.new_game(sc)
    # the map loader (engine.n20.board) names the file, the field and the bad label
    assert e.value.file.endswith("map.yaml") and "hexes" in e.value.expected and "0909" in str(e.value)


def test_unit_set_up_in_an_enemy_hex(tmp_path):
    sc = make_scenario(tmp_path, setup=[("F1", "0303"), ("A1", "0303")])
    with pytest.raises(DataError) as e:
        g.new_game(sc)
    assert e.value.field == "setup[1].hex" and "6.3" in e.value.expected


def test_setup_hex_off_the_map_and_unknown_unit(tmp_path):
    sc = make_scenario(tmp_path, name="a", setup=[("F1", "1212")])
    with pytest.raises(DataError) as e:
        g.new_game(sc)
    assert e.value.field == "setup[0].hex"
    sc = make_scenario(tmp_path, name="b", setup=[("ZZ", "0303")])
    with pytest.raises(DataError) as e:
        g.new_game(sc)
    assert e.value.field == "setup[0].unit"


def test_unknown_option():
    with pytest.raises(g.VedetteError):
        g.new_game("fuentes", options=("laser_guns",))


def test_record_saves_loads_and_replays_every_state(tmp_path):
    final, rec = g.play_game("bussaco", bots=("greedy", "greedy"), seed=4)
    path = tmp_path / "game.json"
    rec.save(path)
    rec2 = g.GameRecord.load(path)
    states = g.replay_record(rec2)
    assert len(states) == len(rec.events) + 1
    assert states[-1].to_json() == final.to_json()
    # undo: the record without its last event gives the state before it
    short, prev = g.undo(rec2)
    assert prev.to_json() == states[-2].to_json()


def test_record_with_a_changed_die_names_the_event(tmp_path):
    final, rec = g.play_game("fuentes-5may", bots=("greedy", "greedy"), seed=2)
    data = rec.to_json()
    for i, ev in enumerate(data["events"]):
        rolls = [a for a in ev["answers"] if a["kind"] == "roll"]
        if rolls:
            rolls[0]["value"] = 9          # not a face of a d6
            break
    with pytest.raises(RecordError) as e:
        g.replay_record(g.GameRecord.from_json(data))
    assert e.value.index == i


def test_record_from_another_engine_version(tmp_path):
    final, rec = g.play_game("bussaco", bots=("random", "random"), seed=1)
    data = rec.to_json()
    data["engine_version"] = "n20-game-0"
    with pytest.raises(RecordError) as e:
        g.replay_record(g.GameRecord.from_json(data))
    assert "cannot be replayed" in str(e.value)


def test_record_with_an_illegal_action(tmp_path):
    s = g.new_game("bussaco")
    rec = g.make_record(s, [{"kind": "action", "rule": "6.0", "action": {"kind": "move", "unit": "FMA",
                                                                        "path": ["1210", "0101"]}, "answers": []}])
    with pytest.raises(RecordError) as e:
        g.replay_record(rec)
    assert e.value.index == 0


class _Run:
    def __init__(self, rc, out, err):
        self.returncode, self.stdout, self.stderr = rc, out, err


def _cli(*args, cwd=None):
    """Run `vedette n20 ...` in this process (engine.cli.main: exit code, stdout, stderr)."""
    import contextlib
    import io

    from engine.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["n20", *args])
    return _Run(rc, out.getvalue(), err.getvalue())


def test_cli_play_replay_and_errors(tmp_path):
    import engine
    root = str(__import__("pathlib").Path(engine.__file__).resolve().parents[1])
    rec = tmp_path / "g.json"
    r = _cli("play", "--scenario", "bussaco", "--seed", "3", "--bots", "greedy,random", "--record", str(rec), cwd=root)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["result"]["winner"] in ("french", "allied", "draw")
    r = _cli("replay", str(rec), "--turn", "2", cwd=root)
    assert r.returncode == 0, r.stderr
    st = json.loads(r.stdout)
    assert st["turn"] == 2 and {"units", "morale", "markers"} <= set(st)
    r = _cli("play", "--scenario", "nowhere", cwd=root)
    assert r.returncode == 2 and "scenario" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": \"vedette-record\"}")
    r = _cli("replay", str(bad), cwd=root)
    assert r.returncode == 2 and "format_version" in r.stderr


def test_cli_people_play_with_new_legal_act_undo(tmp_path):
    import engine
    root = str(__import__("pathlib").Path(engine.__file__).resolve().parents[1])
    rec = tmp_path / "p.json"
    assert _cli("new", "--scenario", "bussaco", "--record", str(rec), cwd=root).returncode == 0
    legal = json.loads(_cli("legal", str(rec), cwd=root).stdout)
    assert legal["actor"] == "french" and legal["actions"]
    move = next(a for a in legal["actions"] if a["kind"] == "move")
    r = _cli("act", str(rec), json.dumps(move), cwd=root)
    assert r.returncode == 0, r.stderr
    r = _cli("act", str(rec), json.dumps(move), cwd=root)        # the same unit again: 6.4
    assert r.returncode == 2 and "6.4" in r.stderr
    assert len(json.loads(rec.read_text())["events"]) == 1          # nothing saved by the refused action
    assert _cli("undo", str(rec), cwd=root).returncode == 0
    assert len(json.loads(rec.read_text())["events"]) == 0
