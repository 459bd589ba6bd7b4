"""Cheap /map and /play sessions (issue 17.1): parts a visitor has not asked for are not built, and they
appear, working, the first time they are needed. Counts of Bokeh models, not timings (speed is measured
by ``scripts/load_sessions.py --profile``)."""
from __future__ import annotations

import collections

import panel as pn
import pytest
from bokeh.document import Document

from dashboards.render.hexmap import HexMapFigure
from dashboards.render.n20_board import spec_from_board
from engine.n20.game.setup import new_game


def _models(viewable) -> collections.Counter:
    doc = Document()
    doc.add_root(viewable.get_root(doc))
    return collections.Counter(type(m).__name__ for m in doc.models)


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.setenv("VEDETTE_DB", str(tmp_path / "g.sqlite3"))


def test_the_hex_figure_shares_sources_between_layers():
    spec = spec_from_board(new_game("fuentes").scenario.board)
    f = HexMapFigure(spec)
    sources = {id(r.data_source) for r in f.fig.renderers}
    # terrain (+ numbers, names), lines (hexsides and roads), highlights (+ text), paths, marks, counters (+ texts)
    assert len(sources) == 6 < len(f.fig.renderers)
    assert all(r.nonselection_glyph == "auto" and r.muted_glyph == "auto" for r in f.fig.renderers)
    kinds = _models(pn.pane.Bokeh(f.fig))
    assert kinds["HoverTool"] == 1 and kinds["ColumnDataSource"] == 6 and sum(kinds.values()) <= 70
    roads = [i for i, w in enumerate(f.fig.renderers[1].data_source.data["feature"]) if w == "road"]
    assert len(roads) == len(spec.roads)          # each Fuentes road link (two hexes) one dashed segment


def test_the_map_page_builds_the_attack_planner_on_first_use(db):
    from dashboards.pages import map as M

    root = M.page()
    before = _models(root)
    assert before["Slider"] == 0 and sum(before.values()) <= 85
    controls = root.objects[1]
    ctl = controls.objects[0]                     # the pickers and the hex description: one model
    assert isinstance(ctl, M.MapControls) and [c[0] for c in ctl.choices] == ["scenario", "mode"]
    ctl.chosen = {**ctl.chosen, "mode": "plan an attack"}     # as a click on the mode's button
    odds = [o for o in controls.objects if "map-odds" in (o.css_classes or [])]
    assert len(odds) == 1 and "Click your attacking units" in odds[0].object
    ctl.chosen = {**ctl.chosen, "mode": "inspect"}
    ctl.chosen = {**ctl.chosen, "mode": "plan an attack"}     # built once
    assert len([o for o in controls.objects if "map-odds" in (o.css_classes or [])]) == 1


def test_the_play_page_without_a_game_makes_no_game_parts(db):
    from dashboards.pages import play as P

    kinds = _models(P.page())
    # the new-game form, dice mode, status and refusal lines are one browser component (issue 17.1): no widgets
    assert sum(kinds.values()) <= 12 and kinds["Button"] == 0 and kinds["Select"] == 0


def test_the_game_parts_appear_at_the_start_and_the_replay_controls_on_first_replay(tmp_path):
    from dashboards.server.access import BrowserKeys
    from dashboards.play.view import GamePlayView
    from dashboards.server.storage import GameStore

    v = GamePlayView("n20", store=GameStore(tmp_path / "g.sqlite3"), keys=BrowserKeys(raw=""))
    root = v.__panel__()
    assert v.head.show_dice                                    # computer or typed dice: chosen before the start
    assert not any(o is v.link for o in root.objects)
    v.head.act({"action": "start", "scenario": "bussaco", "seed": "1"})   # as a click on "Start a new game"
    assert v.model.state is not None and "data-state='ready'" in v.head.status
    assert any(o is v.link for o in root.objects) and not v.head.show_dice   # the dice mode beside the actions
    assert not v.replay_row.objects
    v.mode.value = "replay"
    assert v.replay_row.visible and len(v.replay_row.objects) == 4   # where, the steps, jump and bookmarks, a new bookmark


def test_the_map_pickers_are_one_model_kept_in_step_both_ways(tmp_path, monkeypatch):
    """The scenario and saved-game pickers and the mode buttons of /map (one MapControls model, issue 17.1):
    a pick in the browser changes the page, a change on the server shows in the pickers, and a value that
    is not one of the options is ignored (the picker shows the value it had)."""
    from dashboards.pages import map as M
    from dashboards.server.storage import GameStore

    monkeypatch.setenv("VEDETTE_DB", str(tmp_path / "g.sqlite3"))
    gid = GameStore().create("n20", "bussaco", title="Club game", sides=("french", "allied"))
    GameStore().set_public(gid, True)                  # listed for every browser
    root = M.page()
    ctl = root.objects[1].objects[0]
    assert [c[0] for c in ctl.choices] == ["scenario", "saved", "mode"]
    assert ctl.chosen == {"scenario": "fuentes", "saved": "", "mode": "inspect"}
    assert [v for v, _ in ctl.choices[1][3]] == ["", gid]
    ctl.chosen = {**ctl.chosen, "scenario": "no-such-map"}
    assert ctl.chosen["scenario"] == "fuentes"
    ctl.chosen = {**ctl.chosen, "saved": gid}          # the saved game's position (0 actions: its set-up)
    assert ctl.chosen["scenario"] == "bussaco" and "Club game" in ctl.info
    ctl.chosen = {**ctl.chosen, "scenario": "fuentes"}
    assert ctl.info == ""                              # a new map: nothing described yet
    board = root.objects[0]
    board.click = {"n": 1, "hex": "0707"}              # a click on the map: its hex described beside it
    assert "<b>hex 0707</b>" in ctl.info and "1st Division (A1)" in ctl.info
