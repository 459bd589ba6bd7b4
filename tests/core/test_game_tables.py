"""A game plays with a player's printed values (issue 25 point 4): the file the /charts page saves is what
``vedette GAME new --tables FILE`` and the play page's upload take; the record keeps the content and its
fingerprint, so ``replay``, ``legal``, ``act`` and ``odds`` use the same values with no file at hand; a
record whose kept tables are malformed or changed by hand is refused naming the field; records without
tables are written as before."""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dashboards.calculators.charts_model import SYSTEMS as CHART_BOOKS, ChartBook
from engine.cli import main
from engine.core.errors import RecordError, VedetteError
from engine.core.game import Session, play_game, replay, system_of
from engine.core.record import GameRecord
from engine.core.tables import (MAX_TABLES_BYTES, YOURS, fingerprint_of, read_tables, rules_for, tables_from_json,
                                upload_tables)

#: one typed change per chart file: (block path in the file, value path inside it, the new text typed)
EDITS = {"n20-v3": ("crt", "grid", "1", 4, "N"),            # row 1 (a die of 1), column 0: AW -> N
         "n20-v2": ("crt", "grid", "6", 0, "DR"),
         "lob": ("fire", "value", "one_hit_from", None, "4"),
         "tbf": ("fire", "grid", "7", 0, "FR"),              # roll 7, one strength point: R -> FR
         "bc-deck": ("", "card", 0, "fire", "skull_bones"),
         "bc-terrain": ("", "value", "zones.woods.fire", None, "3")}
SCENARIO = {"n20-v2": "bussaco"}


def cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def refused(argv: list[str]) -> str:
    rc, out, err = cli(argv)
    assert rc == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (rc, err[-300:])
    return err


def typed_book(key: str) -> ChartBook:
    """The charts page's model with one value typed in and its source set (as a player does on /charts)."""
    book = ChartBook(key)
    block, how, where, col, text = EDITS[key]
    b = book.block(block) if block else book.blocks()[0]
    if how == "grid":
        b.set_grid_cell(where, col, text)
    elif how == "card":
        b.set_card_cell(where, col, b.card_columns()[0], text)          # card 1's Fire result at column -2
    else:
        b.set_value(where, text)
    b.set_source("published chart player aid of my copy")
    assert book.changed()
    return book


@pytest.mark.parametrize("key", sorted(EDITS))
def test_a_file_saved_on_the_charts_page_plays_a_game_and_its_record_replays_without_it(key, tmp_path):
    book = typed_book(key)
    system = CHART_BOOKS[key].system
    f = tmp_path / book.filename()
    f.write_bytes(book.to_bytes())                      # what the page's "Save the file" gives
    rec = tmp_path / "game.json"
    args = [system, "new", "--seed", "3", "--record", str(rec), "--tables", str(f)]
    if key in SCENARIO:
        args += ["--scenario", SCENARIO[key]]
    rc, out, err = cli(args)
    assert rc == 0, err
    summary = json.loads(out)
    mine = next(c for c in summary["charts"] if c["chart"] == key)
    assert mine["values"] == YOURS and mine["file"] == f.name
    typed = next(b for b in book.blocks() if b.source.startswith("published chart player aid"))
    assert mine["tables"][typed.name if typed.path else key]["kind"] == "published chart"
    f.unlink()                                          # no file at hand any more
    kept = json.loads(rec.read_text())["options"]["tables"]
    assert kept["file"] == f.name and kept["chart"] == key
    assert kept["content"] == json.loads(book.game_tables().text)
    assert kept["fingerprint"] == fingerprint_of(book.game_tables().text)
    # every verb on the record plays with the typed values
    rules, record = system_of(system), GameRecord.load(rec)
    fitted = rules_for(rules, record)
    state = replay(fitted, record)[-1]
    assert fitted.tables_of(state) == book.game_tables()
    assert fitted.tables_of(state).content == json.loads(book.game_tables().text)
    for verb in (["replay", str(rec)], ["legal", "--record", str(rec)]):
        rc, out, err = cli([system, *verb])
        assert rc == 0, err
        assert next(c for c in json.loads(out)["charts"] if c["chart"] == key)["values"] == YOURS
    action = json.dumps(json.loads(cli([system, "legal", "--record", str(rec)])[1])["legal"][0]["action"])
    rc, out, err = cli([system, "act", "--record", str(rec), action])
    assert rc == 0, err
    assert json.loads(rec.read_text())["options"]["tables"] == kept        # the record keeps them on


@pytest.mark.parametrize("system", ["n20", "lob", "tbf", "bc"])
def test_a_record_without_tables_is_written_as_before(system, tmp_path):
    """No ``tables`` key appears (n20 keeps its ``tables: null``): the golden records' bytes do not move."""
    rec = tmp_path / "g.json"
    assert cli([system, "new", "--seed", "1", "--record", str(rec)])[0] == 0
    opts = json.loads(rec.read_text())["options"]
    assert opts == ({"options": [], "tables": None} if system == "n20" else {"options": []})
    _, r = play_game(system_of(system), ("random", "random"), None, (), 5, max_actions=30)
    assert set(r.options) == ({"options", "tables"} if system == "n20" else {"options"})
    rules = system_of(system)
    assert all(c["values"] == "shipped" for c in rules.state_summary(replay(rules, r)[-1])["charts"])


# ---- refusals ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lob_record(tmp_path_factory) -> dict:
    book = typed_book("lob")
    s = Session.new(system_of("lob"), None, (), 2, tables=book.game_tables())
    return s.record.to_json()


def _with(rec: dict, **changes) -> GameRecord:
    d = json.loads(json.dumps(rec))
    d["options"]["tables"].update(changes)
    return GameRecord.from_json(d)


def test_tables_changed_by_hand_are_refused_naming_the_fingerprint(lob_record, tmp_path):
    content = json.loads(json.dumps(lob_record["options"]["tables"]["content"]))
    content["fire"]["two_hit_from"] = 2                 # a changed value, the old fingerprint
    with pytest.raises(RecordError, match=r"field 'options.tables.fingerprint'"):
        replay(system_of("lob"), _with(lob_record, content=content))
    f = tmp_path / "r.json"
    f.write_text(_with(lob_record, content=content).dumps())
    for verb in (["replay", str(f)], ["legal", "--record", str(f)], ["odds", "--record", str(f), "end"],
                 ["act", "--record", str(f), "end"]):
        err = refused(["lob", *verb])
        assert "options.tables.fingerprint" in err and str(f) in err
    assert f.read_text() == _with(lob_record, content=content).dumps()          # nothing written


def test_malformed_tables_with_a_matching_fingerprint_are_refused_naming_the_field(lob_record):
    content = json.loads(json.dumps(lob_record["options"]["tables"]["content"]))
    content["movement"]["infantry"] = 0                 # 'movement.infantry': at least 1
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with pytest.raises(RecordError, match=r"field 'options.tables.content.movement.infantry': expected .*1"):
        replay(system_of("lob"), _with(lob_record, content=content, fingerprint=fingerprint_of(text)))
    for bad, field in (({"chart": "n20-v3"}, "chart"), ({"file": "../etc/passwd"}, "file"),
                       ({"fingerprint": "md5:00"}, "fingerprint"), ({"content": [1]}, "content"),
                       ({"extra": 1}, "extra")):
        with pytest.raises(RecordError, match=f"field 'options.tables.{field}'"):
            replay(system_of("lob"), _with(lob_record, **bad))


def test_rules_made_for_other_tables_are_refused_not_used_silently(lob_record):
    """The TBF and BC rules hold their charts: a record's game must take its rules from rules_for."""
    book = typed_book("tbf")
    s = Session.new(system_of("tbf"), None, (), 1, tables=book.game_tables())
    with pytest.raises(VedetteError, match="rules_for"):
        system_of("tbf").initial_state(s.record)              # shipped rules, a record with its own tables
    assert Session(system_of("tbf"), s.record).rules.game_tables == book.game_tables()
    with pytest.raises(VedetteError, match="holds the tbf charts, not charts of this game"):
        system_of("lob").with_tables(book.game_tables())      # a TBF file for an LoB game


def test_a_file_of_another_game_or_edition_is_one_line(tmp_path):
    f = tmp_path / "tbf.yaml"
    f.write_bytes(ChartBook("tbf").to_bytes())
    err = refused(["lob", "new", "--record", str(tmp_path / "r.json"), "--tables", str(f)])
    assert "tbf.yaml" in err and "expected" in err
    v2 = tmp_path / "v2.yaml"
    v2.write_bytes(ChartBook("n20-v2").to_bytes())
    err = refused(["n20", "new", "--scenario", "fuentes", "--record", str(tmp_path / "r.json"), "--tables", str(v2)])
    assert "v2" in err and "fuentes" in err
    assert not (tmp_path / "r.json").exists()


# ---- the play page's API -------------------------------------------------------------------------------
def test_upload_api_gives_the_tables_or_the_line_to_show():
    book = typed_book("n20-v3")
    up = upload_tables(system_of("n20"), book.to_bytes(), "C:\\Users\\me\\" + book.filename())
    assert up.ok and up.error == "" and up.tables == book.game_tables()       # the name only, no folder
    for data, says in ((b"\x00\x01", "binary"), (b"x" * (MAX_TABLES_BYTES + 1), "at most 256 KiB"),
                       (b"crt: [", "valid YAML"), (b"edition: v3\n", "required field"), ("é".encode("latin-1"), "UTF-8")):
        up = upload_tables(system_of("n20"), data, "mine.yaml")
        assert up.tables is None and not up.ok and says in up.error and "mine.yaml" in up.error
        assert "\n" not in up.error and "/tmp" not in up.error


@pytest.mark.parametrize("key", sorted(EDITS))
def test_upload_api_gives_the_rules_a_new_game_plays_with(key):
    """The page's one entry point: ``upload.rules`` start a game as any rules do (new_game, new_record) and
    that game plays with the upload's tables: its summary says 'your printed values' with the file's name,
    its record keeps them. A bad upload gives no rules, only the line to show."""
    from engine.core.game import new_record

    book = typed_book(key)
    system = CHART_BOOKS[key].system
    up = upload_tables(system_of(system), book.to_bytes(), book.filename())
    assert up.ok and type(up.rules) is type(system_of(system))
    state = up.rules.new_game(SCENARIO.get(key) or up.rules.default_scenario, (), 4)
    assert up.rules.tables_of(state) == up.tables
    kept = new_record(up.rules, state, 4).options["tables"]
    assert (kept["file"], kept["fingerprint"]) == (book.filename(), up.tables.fingerprint)
    mine = [c for c in up.rules.state_summary(state)["charts"] if c["chart"] == key]
    assert [(c["values"], c["file"]) for c in mine] == [(YOURS, book.filename())]
    bad = upload_tables(system_of(system), b"edition: v3\n", "mine.yaml")
    assert (bad.tables, bad.rules) == (None, None) and "mine.yaml" in bad.error


# ---- fuzz -------------------------------------------------------------------------------------------
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
                           lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids,
                                                                                      max_size=4),
                           max_leaves=20)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=json_values)
def test_fuzz_any_kept_tables_value_is_one_clear_error(lob_record, value):
    rec = json.loads(json.dumps(lob_record))
    rec["options"]["tables"] = value
    try:
        replay(system_of("lob"), GameRecord.from_json(rec))
    except VedetteError as exc:
        assert "\n" not in str(exc) and len(str(exc)) <= 1000
    else:
        assert value is None                            # "tables": null: the shipped charts


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_a_changed_content_with_its_fingerprint_is_validated_as_a_file(lob_record, data):
    """Any value put anywhere in the kept content, its fingerprint made again (so the tamper check passes):
    the content's own validation accepts it or refuses it in one line naming the field, no traceback."""
    content = json.loads(json.dumps(lob_record["options"]["tables"]["content"]))
    node, path = content, []
    while isinstance(node, dict) and node:
        k = data.draw(st.sampled_from(sorted(node)))
        path.append(k)
        if not isinstance(node[k], dict) or data.draw(st.booleans()):
            node[k] = data.draw(json_values)
            break
        node = node[k]
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    rec = _with(lob_record, content=content, fingerprint=fingerprint_of(text))
    try:
        states = replay(system_of("lob"), rec)
    except RecordError as exc:
        msg = str(exc)
        assert msg.startswith("field 'options.tables.content") and "\n" not in msg, msg
    else:
        assert states[0].setup.charts.content == content


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_fuzz_read_tables_bytes_is_one_clear_error(raw):
    for system in ("n20", "bc"):
        up = upload_tables(system_of(system), raw, "up.yaml")
        assert up.ok or ("\n" not in up.error and up.error.startswith("up.yaml"))


def test_kept_tables_json_is_validated_like_the_file_it_came_from():
    book = typed_book("bc-deck")
    gt = book.game_tables()
    again = tables_from_json(system_of("bc"), json.loads(json.dumps(gt.to_json())))
    assert again == gt and again.value == gt.value
    assert read_tables(system_of("bc"), book.to_bytes(), book.filename()) == gt


@pytest.mark.parametrize("key", sorted(EDITS))
def test_positions_of_a_game_with_its_own_tables_round_trip(key):
    """state_to_json / state_from_json keep the game's tables (n20 and LoB positions hold them; the TBF and
    BC rules do, and BC's map keeps its terrain chart): the position read back is equal and plays with them."""
    book = typed_book(key)
    rules = system_of(CHART_BOOKS[key].system).with_tables(book.game_tables())
    final, rec = play_game(rules, ("random", "random"), SCENARIO.get(key), (), 4, max_actions=25)
    back = rules.state_from_json(json.loads(json.dumps(rules.state_to_json(final))))
    assert back == final and rules.tables_of(back) == book.game_tables()
    assert replay(rules_for(system_of(CHART_BOOKS[key].system), rec), rec)[-1] == final
    if key in ("tbf", "bc-deck", "bc-terrain"):                # rules holding other charts: refused, loudly
        with pytest.raises(RecordError, match="rules_for"):
            replay(system_of(CHART_BOOKS[key].system), rec)
    else:                                                      # the position carries its tables
        assert replay(system_of(CHART_BOOKS[key].system), rec)[-1] == final


def test_upload_api_tells_the_charts_apart():
    book = typed_book("bc-terrain")
    up = upload_tables(system_of("bc"), book.to_bytes(), book.filename())
    assert up.ok and up.tables.chart == "bc-terrain" and up.tables.name == "my_bc_terrain_charts.yaml"


@pytest.mark.parametrize("key", ["n20-v3", "tbf", "bc-deck"])
def test_the_play_pages_path_upload_start_save_open(key, tmp_path):
    """What the play page does with the API: the upload's tables start a game, the store keeps the record's
    options (the tables with them), and the game opened again plays with them through rules_for."""
    from dashboards.server.storage import GameStore

    book = typed_book(key)
    system = CHART_BOOKS[key].system
    up = upload_tables(system_of(system), book.to_bytes(), book.filename())
    s = Session.new(system_of(system), None, (), 9, tables=up.tables)
    s.act(s.legal_actions()[0])
    store = GameStore(tmp_path / "games.sqlite3")
    gid = store.create(system, s.record.scenario, edition=s.record.edition, options=s.record.options, seed=9,
                       events=list(s.record.events), engine_version=s.record.engine_version)
    saved = store.load(gid)
    rec = GameRecord(game=saved.game, scenario=saved.scenario, edition=saved.edition, options=saved.options,
                     seed=saved.seed, events=tuple(saved.events), engine_version=saved.engine_version)
    rules = rules_for(system_of(system), rec)
    assert replay(rules, rec)[-1] == s.state and rules.tables_of(s.state) == up.tables
    assert rules.state_summary(s.state)["charts"][0]["file"] == book.filename()
