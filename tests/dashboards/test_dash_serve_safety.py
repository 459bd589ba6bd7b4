"""Issue 12 without a browser: records naming files, who may act on a game, input bounds, the off-loop runner."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from dashboards.server.access import MAX_KEYS, parse_keys
from dashboards.server.background import Background, run_now
from dashboards.play.model import GamePlayModel
from dashboards.calculators.tbf.views import (EXAMPLE_CHARGE, MAX_CHARGE_TEXT, MAX_DEFENDERS, MAX_TARGETS,
                                              MAX_UNITS_PER_TARGET, parse_charge_text)
from dashboards.server.storage import OWNER, GameStore
from engine.core.errors import RecordError, VedetteError
from engine.core.record import GameRecord
from engine.n20.game.record import replay_record

REPO = Path(__file__).resolve().parents[2]
RECORD = REPO / "data/records/n20_fuentes_greedy_seed1.json"


def _record(**changes) -> GameRecord:
    d = json.loads(RECORD.read_text())
    for k, v in changes.items():
        if k == "tables":
            d["options"]["tables"] = v
        else:
            d[k] = v
    return GameRecord.loads(json.dumps(d))


def _passwd_text() -> str:
    try:
        return Path("/etc/passwd").read_text()
    except OSError:
        pytest.skip("no /etc/passwd here")


# ---- 1. no paths from users on the server --------------------------------------------------------------------
def test_server_import_of_a_record_naming_a_tables_path_is_refused_without_opening_it(tmp_path):
    m = GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system="n20", server=True)
    with pytest.raises(RecordError) as err:
        m.import_record(_record(tables="/etc/passwd"))
    msg = str(err.value)
    assert "options.tables" in msg and "may not name a file" in msg
    for line in _passwd_text().splitlines():
        if len(line) > 8:
            assert line not in msg
    assert "root:" not in msg
    assert m.store.list() == [] and m.state is None            # nothing saved, nothing opened


def test_server_import_of_a_record_naming_a_scenario_path_is_refused(tmp_path):
    m = GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system="n20", server=True)
    with pytest.raises(RecordError, match="field 'scenario'"):
        m.import_record(_record(scenario=str(REPO / "data/n20/fuentes/scenario.yaml")))
    assert m.store.list() == []


def test_server_import_requires_an_engine_version(tmp_path):
    m = GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system="n20", server=True)
    with pytest.raises(RecordError, match="engine_version"):
        m.import_record(_record(engine_version=""))


def test_record_edition_must_match_the_scenario():
    with pytest.raises(RecordError, match="field 'edition'"):
        replay_record(_record(edition="v2"), upto=0)


def test_cli_replay_of_a_record_naming_a_path_does_not_quote_the_file():
    """On the user's own machine a record may name a file, but an error never shows what the file holds."""
    text = _passwd_text()
    with pytest.raises(RecordError) as err:
        replay_record(_record(tables="/etc/passwd"))
    msg = str(err.value)
    assert "/etc/passwd" in msg                                 # the record's own words, cut short
    for line in text.splitlines():
        if len(line) > 8:
            assert line not in msg
    assert "root:" not in msg


def test_long_user_input_is_cut_short_in_the_message():
    with pytest.raises(RecordError) as err:
        replay_record(_record(tables="/tmp/" + "x" * 500), allow_paths=False)
    assert len(str(err.value)) < 300


def test_shipped_tables_by_id_are_accepted_on_the_server():
    states = replay_record(_record(tables="v3"), upto=0, allow_paths=False)
    assert states[0].scenario_id == "fuentes"


# ---- 2. who may act ------------------------------------------------------------------------------------------
@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "g.sqlite3")


def _first_move(m: GamePlayModel, unit: str):
    return next(a for a in m.legal() if a.kind == "move" and a.unit == unit and len(a.path) > 1)


def test_without_a_key_a_private_game_does_not_open(store):
    owner = GamePlayModel(store, system="n20", server=True)
    gid = owner.new("bussaco", seed=1)
    other = GamePlayModel(store, system="n20", server=True)
    for key in (None, "", "A" * 22):
        with pytest.raises(VedetteError, match="no saved game opens with this link"):
            other.open(gid, "play", key=key, check_key=True)
    assert other.state is None


def test_a_public_game_opens_read_only_without_a_key(store):
    owner = GamePlayModel(store, system="n20", server=True)
    gid = owner.new("bussaco", seed=1)
    store.set_public(gid, True)
    watcher = GamePlayModel(store, system="n20", server=True)
    watcher.open(gid, "play", key=None, check_key=True)
    assert watcher.role == "" and watcher.mode == "replay" and watcher.legal() == []
    watcher.mode = "play"                                       # even when switched to play, nothing is accepted
    assert not watcher.act(_first_move(owner, "FRCV"))
    assert "watch and replay this game only" in watcher.refusal
    watcher.add_bookmark("mine")
    assert store.load(gid).n_events == 0 and store.load(gid).bookmarks == ()


def test_a_side_key_plays_its_side_only(store):
    owner = GamePlayModel(store, system="n20", server=True)
    gid = owner.new("bussaco", seed=1)
    keys = store.keys(gid)
    french, allied = GamePlayModel(store, system="n20", server=True), GamePlayModel(store, system="n20", server=True)
    french.open(gid, "play", key=keys["french"], check_key=True)
    allied.open(gid, "play", key=keys["allied"], check_key=True)
    assert french.to_act == "french"                           # Bussaco: the French move first
    move = _first_move(french, "FRCV")
    assert not allied.act(move) and "plays the allied side" in allied.refusal
    assert store.load(gid).n_events == 0
    assert french.act(move) and store.load(gid).n_events == 1
    assert not allied.undo() and store.load(gid).n_events == 1   # not the allied player's action to take back
    assert french.undo() and store.load(gid).n_events == 0


def test_owner_key_plays_both_sides(store):
    m = GamePlayModel(store, system="n20", server=True)
    gid = m.new("bussaco", seed=1)
    again = GamePlayModel(store, system="n20", server=True)
    again.open(gid, "play", key=store.keys(gid)[OWNER], check_key=True)
    assert again.role == OWNER and again.may_act("french") and again.may_act("allied")


# ---- cookie keys ---------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(st.text(max_size=400))
def test_parse_keys_keeps_only_well_formed_keys(raw):
    keys = parse_keys(raw)
    assert len(keys) <= MAX_KEYS and len(set(keys)) == len(keys)
    assert all(16 <= len(k) <= 64 and all(c.isalnum() or c in "-_" for c in k) for k in keys)


def test_parse_keys_drops_injection_and_keeps_order():
    a, b = "A" * 22, "b-_" * 8
    assert parse_keys(f"{a}.{b}.{a}.<script>.x'y") == [a, b]


# ---- 3. bounds and the off-loop runner -----------------------------------------------------------------------
def _charge(n_first: int, n_second: int = 1, targets: int = 2) -> str:
    spec = yaml.safe_load(EXAMPLE_CHARGE)
    spec["targets"][0]["units"] = [{"name": f"a{i}", "fv": 3, "mf": 4} for i in range(n_first)]
    spec["targets"][1]["units"] = [{"name": f"b{i}", "fv": 3, "mf": 4} for i in range(n_second)]
    spec["targets"] += [dict(spec["targets"][1], hex="1711") for _ in range(targets - 2)]
    return yaml.safe_dump(spec)


def test_charge_bounds_name_the_limit():
    parse_charge_text(_charge(MAX_UNITS_PER_TARGET, MAX_DEFENDERS - MAX_UNITS_PER_TARGET))   # at the limits: fine
    with pytest.raises(VedetteError, match=f"at most {MAX_UNITS_PER_TARGET} units per target hex on this page "
                                           f".got {MAX_UNITS_PER_TARGET + 1}"):
        parse_charge_text(_charge(MAX_UNITS_PER_TARGET + 1))
    # MAX_DEFENDERS + 1 units spread over three target hexes, none of them over the per-hex limit
    spec = yaml.safe_load(_charge(MAX_UNITS_PER_TARGET, 1, targets=3))
    spec["targets"][1]["units"] = spec["targets"][0]["units"][: MAX_DEFENDERS - MAX_UNITS_PER_TARGET]
    spec["targets"][2]["units"] = spec["targets"][0]["units"][:1]
    with pytest.raises(VedetteError, match=f"at most {MAX_DEFENDERS} defending units in all"):
        parse_charge_text(yaml.safe_dump(spec))
    with pytest.raises(VedetteError, match=f"at most {MAX_TARGETS} target hexes"):
        parse_charge_text(_charge(1, 1, targets=MAX_TARGETS + 1))
    with pytest.raises(VedetteError, match=f"at most {MAX_CHARGE_TEXT} characters"):
        parse_charge_text("#" * (MAX_CHARGE_TEXT + 1))


def test_background_outside_a_server_runs_at_once():
    got, errs = [], []
    bg = Background(budget_s=1)
    bg.start(lambda: 6 * 7, got.append, errs.append)
    bg.start(lambda: (_ for _ in ()).throw(VedetteError("too big")), got.append, errs.append)
    assert got == [42] and [str(e) for e in errs] == ["too big"]


def test_a_bug_in_a_computation_is_logged_and_reported_in_one_line(caplog):
    errs = []
    run_now(lambda: 1 / 0, lambda r: None, errs.append)
    assert len(errs) == 1 and "server's log" in str(errs[0]) and "ZeroDivisionError" not in str(errs[0])
    assert "ZeroDivisionError" in caplog.text                  # the traceback is on the server
