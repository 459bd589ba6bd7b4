"""View models of the play page for Napoleonic 20 (the generic model on the n20 protocol), the map and tree
pages (param level, no browser)."""
from __future__ import annotations

import pytest

from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.play.model import GamePlayModel, log_rows
from dashboards.server.storage import GameStore
from engine.core.data import data_path
from engine.core.procedure import Choose
from engine.core.record import GameRecord
from engine.n20.game import reach as RC
from engine.n20.game.actions import Action
from engine.n20.game.setup import new_game


@pytest.fixture
def model(tmp_path):
    return GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system="n20", server=True)


def first_move(m: GamePlayModel, unit: str) -> Action:
    return next(a for a in m.legal() if a.kind == "move" and a.unit == unit and len(a.path) > 1)


def test_rule_6_0_a_legal_move_is_saved_before_it_is_shown(model):
    gid = model.new("bussaco", seed=1)
    move = first_move(model, "FRCV")
    assert model.act(move)
    assert model.state.unit("FRCV").hex == move.path[-1]
    saved = model.store.load(gid)
    assert [e["action"] for e in saved.events] == [move.to_json()]


def test_rule_6_1_an_illegal_action_is_refused_with_its_rule_and_changes_nothing(model):
    gid = model.new("bussaco", seed=1)
    before = model.state
    allied = next(u.id for u in before.units if u.status == "map" and before.scenario.units[u.id].side == "allied")
    assert not model.act({"kind": "move", "unit": allied, "path": [before.unit(allied).hex]})
    assert model.refusal.startswith("Refused by rule 6.1")
    assert model.state is before and model.store.load(gid).events == ()


def test_undo_removes_the_last_action_from_the_store_too(model):
    gid = model.new("bussaco", seed=1)
    start = model.state
    model.act(first_move(model, "FRCV"))
    assert model.undo()
    assert model.state is start and model.store.load(gid).events == ()


def test_resume_replays_the_saved_actions_to_the_same_state(model, tmp_path):
    gid = model.new("bussaco", seed=1)
    model.act(first_move(model, "FRCV"))
    model.act(Action("end_phase"))
    other = GamePlayModel(GameStore(tmp_path / "g.sqlite3"), system="n20")   # another session (or a restarted server)
    other.open(gid, check_key=False)
    assert other.state == model.state and len(other.events) == 2


def test_typed_dice_and_players_choices_in_a_recorded_battle(model):
    """Rule 9.0 F in play: with typed dice the CRT die waits for the table's value; 12.5 asks the players."""
    rec = GameRecord.load(data_path("records", "n20_bussaco_greedy_seed1.json"))
    k = next(i for i, e in enumerate(rec.events) if e["action"]["kind"] == "resolve")
    model.import_record(rec.truncated(k))
    model.mode = "play"
    model.dice_mode = "typed"
    assert not model.act(rec.events[k]["action"])           # waits: reserves first (12.5), then the die
    answers = iter(a for a in rec.events[k]["answers"] if a["kind"] != "log")
    while model.pending is not None:
        req = model.pending.request
        a = next(answers)
        assert a["rule"] == req.rule
        if isinstance(req, Choose):
            model.answer(next(o for o in req.options if o == a["value"] or str(o) == str(a["value"])
                              or getattr(o, "to_json", lambda: o)() == a["value"]))
        else:
            assert not model.answer(99) and "rule" in model.refusal     # not a face of a d6: refused
            model.answer(a["value"])
    assert len(model.events) == k + 1
    rows = log_rows(model.rules, model.events)
    assert any(r["rule"] == "9.0 F" and r["what"] == "roll" for r in rows)


def test_replay_controls_and_bookmarks(model):
    rec = GameRecord.load(data_path("records", "n20_bussaco_greedy_seed1.json"))
    gid = model.import_record(rec.truncated(30))
    assert model.mode == "replay" and model.position == 0
    model.goto(12)
    assert model.state.turn == model.states[12].turn
    model.add_bookmark("first battles")
    assert model.bookmarks() == [(12, "first battles")]
    labels = [lab for _, lab in model.step_positions()]
    assert labels[0].startswith("turn 1") and len(labels) > 3
    model.goto(10_000)
    assert model.position == 30


def test_a_record_that_does_not_replay_is_refused(model):
    rec = GameRecord.load(data_path("records", "n20_bussaco_greedy_seed1.json"))
    bad = rec.truncated(3).append({"kind": "action", "rule": "6.0", "action": {"kind": "move", "unit": "FRCV",
                                                                                  "path": ["1011", "0101"]}})
    with pytest.raises(Exception) as err:
        model.import_record(bad)
    assert "event 3" in str(err.value)
    assert model.store.list() == []


def test_map_model_reachable_and_attack_odds():
    from dashboards.pages.map import MapModel

    m = MapModel(scenario="fuentes")
    m.click("0707")                      # the 1st Division
    assert m.view.selected == "A1"
    assert set(m.view.reach) == set(RC.search_moves(new_game("fuentes"), "A1"))
    assert "reachable hexes" in m.hex_info
    # an attack in a recorded position: the first declared battle of the Bussaco record
    rec = GameRecord.load(data_path("records", "n20_bussaco_greedy_seed1.json"))
    from engine.n20.game.record import replay_record

    k = next(i for i, e in enumerate(rec.events) if e["action"]["kind"] == "resolve")
    state = replay_record(rec.truncated(k))[-1]
    battle = state.declared[rec.events[k]["action"]["index"]]
    m2 = MapModel(scenario="bussaco")
    m2.state = state
    m2.view.set_state(state)
    m2.mode = "plan an attack"
    m2.attackers, m2.defenders = list(battle.attackers), list(battle.defenders)
    assert "differential" in m2.odds and "odds-error" not in m2.odds
    assert "retreat" in m2.retreat_info


def test_tree_model_leaves_sum_to_one():
    from dashboards.pages.tree import TreeModel

    plan = BattlePlan.from_battle_file(example_battles()["n20_worked_example"])
    t = TreeModel(plan)
    assert "sum to exactly 1" in t.info and "9.0 F" in t.html
    plan.attackers[0].strength = 8
    assert "sum to exactly 1" in t.info
    t.keep_decisions = True
    assert "decisions" in t.info.lower()


def test_map_page_shows_a_saved_games_position(tmp_path, monkeypatch):
    from dashboards.pages.map import MapModel

    monkeypatch.setenv("VEDETTE_DB", str(tmp_path / "g.sqlite3"))
    play = GamePlayModel(GameStore(), system="n20")
    gid = play.new("bussaco", seed=1)
    play.act(first_move(play, "FRCV"))
    m = MapModel(scenario="fuentes")
    m.load_saved(gid)
    assert m.scenario == "bussaco" and m.state == play.state
    assert m.view.spec.title == play.state.scenario.board.name      # the map drawn is Bussaco's, not Fuentes'
    assert m.state.unit("FRCV").hex == play.state.unit("FRCV").hex


def test_map_page_switching_scenario_redraws_its_map():
    from dashboards.pages.map import MapModel

    from dashboards.render.hexboard import board_geometry

    m = MapModel(scenario="fuentes")
    pane = m.view.panel()
    first = pane.geometry
    m.scenario = "bussaco"
    # the same board model, now drawing Bussaco's map (its shared geometry) with Bussaco's counters
    assert m.view.spec.title == m.state.scenario.board.name and m.view.panel() is pane
    assert pane.geometry == board_geometry(m.view.spec) != first
    assert {row[0] for row in m.view.figure.counters} == {u.hex for u in m.state.units if u.status == "map" and u.hex}


@pytest.mark.parametrize("fixture", ["n20_game_3_bussaco_seed1_first57.json", "n20_game_3_fuentes_seed1_first40.json"])
def test_an_old_n20_game_3_saved_game_opens_on_the_generic_page_and_plays_on(model, fixture):
    """Saved games of the old n20 page (engine n20-game-3, events without the acting side) replay to
    their last action and take new actions, saved after the old ones."""
    from pathlib import Path

    rec = GameRecord.load(Path(__file__).resolve().parents[1] / "n20_game" / "fixtures" / fixture)
    assert rec.engine_version == "n20-game-3"
    gid = model.store.create("n20", rec.scenario, edition=rec.edition, options=rec.options, seed=rec.seed,
                             title="old game", events=list(rec.events), sides=("french", "allied"),
                             engine_version=rec.engine_version)
    model.open(gid, "play", check_key=False)
    assert not model.broken and len(model.states) == len(rec.events) + 1
    legal = model.legal()
    assert legal
    model.act(legal[0])
    while model.pending is not None:               # the players' questions (e.g. 12.5 reserves)
        model.answer(model.pending.request.options[0])
    assert model.store.load(gid).n_events == len(rec.events) + 1


def test_n20_board_on_the_generic_view_click_moves_and_a_refused_click_names_its_rule(tmp_path):
    """Bussaco, seed 1: a click on the French cavalry FRCV (1011) shades its legal destinations, a click on
    0912 moves it there; a click on FRCV again and on 0811 tries a second move, which rule 6.4 refuses."""
    from dashboards.server.access import BrowserKeys
    from dashboards.play.boards import N20Board
    from dashboards.play.view import GamePlayView

    v = GamePlayView("n20", store=GameStore(tmp_path / "g.sqlite3"), keys=BrowserKeys(raw=""))
    v.__panel__()
    v._start({"scenario": "bussaco", "seed": "1"})
    assert isinstance(v.board, N20Board)
    v.board._picked("1011")
    shaded = set(v.board.view.figure.highlighted)
    legal = {a.path[-1] for a in v.model.rules.legal_actions(v.model.state) if a.kind == "move" and a.unit == "FRCV"}
    assert shaded == legal - {"1011"} and "0912" in shaded
    assert all("FRCV" in label for label in v.listed())          # the list narrowed to FRCV's moves
    v.board._picked("0912")
    assert v.model.state.unit("FRCV").hex == "0912" and len(v.model.events) == 1
    v.board._picked("0912")
    v.board._picked("0811")
    assert v.model.refusal.startswith("Refused by rule 6.4") and len(v.model.events) == 1
    assert v.model.state.unit("FRCV").hex == "0912"
