"""The SVG board of /map and /play (dashboards/render/hexboard.py, issue 17.1): the map's geometry made
once per map and shared by every session, every hex clickable by its label, the layers a session changes
sent as small data, and the page built on one board model instead of a Bokeh figure. Counts of models and
checks of content, not timings (speed: ``scripts/load_sessions.py --profile /map``)."""
from __future__ import annotations

import collections
import json
import re

from bokeh.document import Document
from hypothesis import given, settings, strategies as st

from dashboards.render.hexboard import SCALE, HexBoard, board_geometry, counter_rows
from dashboards.render.hexmap import Counter, Marked
from dashboards.render.n20_board import spec_from_board
from dashboards.calculators.n20.map_view import GameMapView, counters_of
from engine.n20.game.setup import new_game

STATE = new_game("fuentes")
SPEC = spec_from_board(STATE.scenario.board)
HEXES = sorted(SPEC.terrain)


def _models(viewable) -> collections.Counter:
    doc = Document()
    doc.add_root(viewable.get_root(doc))
    return collections.Counter(type(m).__name__ for m in doc.models)


def test_every_session_shares_one_geometry_text_per_map():
    a, b = HexBoard(SPEC), HexBoard(spec_from_board(new_game("fuentes").scenario.board))
    assert a.model is not b.model and a.model.geometry is b.model.geometry is board_geometry(SPEC)
    geo = json.loads(board_geometry(SPEC))
    # one polygon a hex, with its label and the hover title of the old figure ("hex 0707 · clear")
    labels = re.findall(r"<polygon class='hx' data-hex='(\d+)'", geo["under"])
    assert sorted(labels) == HEXES and len(labels) == len(SPEC.terrain) == 260
    assert f"<title>hex 1902 · {SPEC.terrain['1902']} · Almeida</title>" in geo["under"]
    # every hexside feature and road a line of its kind, each kind an entry of the legend
    kinds = {f for f, *_ in geo["legend"]}
    assert {"road", "minor river", "LOC", "objective", "garrison"} <= kinds
    assert geo["under"].count("data-feature='road'") == len(SPEC.roads)     # a road link (two hexes) one line


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HEXES))
def test_a_hex_is_drawn_where_the_grid_puts_it(label):
    """The board's centre of a hex is the grid's, scaled and with y downwards (SVG): x = 20 x, y = -20 y."""
    geo = json.loads(board_geometry(SPEC))
    x, y = SPEC.center(label)
    cx, cy = geo["centres"][label]
    assert abs(cx - x * SCALE) < 0.06 and abs(cy + y * SCALE) < 0.06
    # the hex's polygon is the grid's six corners
    m = re.search(rf"data-hex='{label}' points='([^']+)'", geo["under"])
    pts = [tuple(map(float, p.split(","))) for p in m.group(1).split()]
    want = [(a * SCALE, -b * SCALE) for a, b in SPEC.corners(label)]
    assert len(pts) == 6 and all(abs(p - q) < 0.06 for pq in zip(pts, want) for p, q in zip(*pq))


def test_a_click_in_the_browser_reaches_the_page_as_its_hex_and_off_the_map_as_none():
    board = HexBoard(SPEC)
    got = []
    board.on_tap(got.append)
    board.model.click = {"n": 1, "hex": "0707"}
    board.model.click = {"n": 2, "hex": "0707"}           # the same hex again: a second click
    board.model.click = {"n": 3, "hex": ""}               # between the hexes
    board.model.click = {"n": 4, "hex": " 1902 ", "typed": True}
    board.model.click = {"n": 5, "hex": "9999", "typed": True}   # no such hex: nothing picked
    assert got == ["0707", "0707", None, "1902", None]


def test_the_layers_go_as_small_data_and_only_when_they_change():
    board = HexBoard(SPEC)
    sent = []
    board.model.param.watch(lambda e: sent.append(e.new), "layers")
    counters = [Counter("A1", "0707", "allied", "infantry", 4, 2, "1st Division", elite=True),
                Counter("F1", "0909", "french", "cavalry", 2, 3, "Dragoons", markers=("Routed!",))]
    board.update(counters=counters, selected=["A1"], highlights=[Marked("0808", "2", "#fff176"), Marked("nowhere")],
                 paths=[(["0909", "1009", "1109"], "#d81b60", "retreat of F1"), (["0909"], "#000", "too short")])
    board.update(counters=counters, selected=["A1"], highlights=[Marked("0808", "2", "#fff176")],
                 paths=[(["0909", "1009", "1109"], "#d81b60", "retreat of F1")])     # the same: nothing sent
    assert len(sent) == 1
    layers = json.loads(sent[0])
    assert layers["marks"] == [["0808", "2", "#fff176"]] and board.highlighted == ["0808"]
    assert layers["paths"] == [[["0909", "1009", "1109"], "#d81b60", "retreat of F1"]]
    # a counter: hex, id, fill, outline (yellow when selected), line width, the designation the lists use,
    # type (* elite) and values, markers, tip (issue 25: the counter and the list name a unit alike)
    assert layers["counters"][0][:7] == ["0707", "A1", "#c0392b", "#ffeb3b", 4, "A1", "INF* 4-2"]
    assert layers["counters"][1][3:5] == ["#111111", 1] and layers["counters"][1][7] == "Routed!"
    assert "<polygon" not in sent[0] and len(sent[0]) < 1000          # no geometry in the layers


def test_the_map_view_shades_reach_and_zoc_and_keeps_the_check_boxes_in_step():
    v = GameMapView(STATE, toggles=(("show_zoc", "zones of control (7.0)", "zoc-toggle"),), goto=True)
    assert v.figure.model.toggles == [["show_zoc", "zones of control (7.0)", "zoc-toggle"]]
    assert v.figure.model.toggled == {"show_zoc": False} and v.figure.model.goto
    v.figure.model.toggled = {"show_zoc": True}            # ticked in the browser
    assert v.show_zoc and v.figure.highlighted              # both sides' zones of control shaded (7.0)
    v.show_zoc = False                                      # unticked from Python: the box follows
    assert v.figure.model.toggled == {"show_zoc": False} and not v.figure.highlighted
    v.figure.tap("0707")                                   # no unit selected by a tap alone (the page selects)
    v.selected = "A1"
    assert set(v.figure.highlighted) == set(v.reach) - {"0707"}
    assert [r[1] for r in v.figure.counters] == [c.id for c in counters_of(STATE)]


def test_the_map_page_is_a_handful_of_models(tmp_path, monkeypatch):
    """The page's map is one model (was a Bokeh figure of some 60), its legend, check boxes and goto box
    drawn by it: the whole page is the board, one model of pickers and hex description, and two layouts."""
    monkeypatch.setenv("VEDETTE_DB", str(tmp_path / "g.sqlite3"))
    from dashboards.pages import map as M

    root = M.page()
    kinds = _models(root)
    assert kinds["HexBoardView1"] == 1 and not {"figure", "GlyphRenderer", "ColumnDataSource", "Checkbox",
                                                 "TextInput"} & set(kinds)
    assert sorted(type(o).__name__ for o in root.select()) == ["Column", "Column", "HexBoardView", "MapControls"]
    assert not {"Select", "CustomSelect", "RadioButtonGroup", "HTML"} & set(kinds)
    # 2 columns, 2 components with a data model each, Panel's shared style sheets (was 76, then 15)
    assert sum(kinds.values()) <= 10


def test_the_play_page_n20_board_is_one_model(tmp_path):
    from dashboards.play.boards import N20Board

    b = N20Board(new_game("bussaco"))
    kinds = _models(b.panel())
    assert kinds["HexBoardView1"] == 1 and not {"figure", "Checkbox", "TextInput", "Row"} & set(kinds)
    assert sum(kinds.values()) - kinds["ImportedStyleSheet"] <= 3       # a column, the board (and its data model)
    assert b.view.figure.model.toggles[0][0] == "show_zoc" and b.view.figure.model.goto
    picked = []
    b.on_pick(picked.append)
    b.view.figure.model.click = {"n": 1, "hex": "1011", "typed": True}
    assert picked == ["1011"]


def test_counter_rows_skip_units_off_the_map():
    rows = counter_rows(SPEC, [Counter("X", "0000", "french", "infantry", 1, 1)])
    assert rows == []
