"""Still boards (dashboards/render/board_svg.py) and the turn-by-turn walkthrough HTML built on them."""
import xml.etree.ElementTree as ET

from engine.core.data import data_path
from engine.core.game import replay, system_of
from engine.core.hexgrid import HexGrid
from engine.core.record import GameRecord
from dashboards.render.board_svg import board_svg, hexes_around, hexmap_svg
from dashboards.render.hexmap import Counter, MapSpec
from dashboards.calculators.n20.map_view import counters_of
from dashboards.render.walkthrough import walk_html

SVG = "{http://www.w3.org/2000/svg}"


def _svg(text):
    return ET.fromstring(text)          # well-formed, or this raises


def test_every_system_draws_a_well_formed_still_board():
    for name in ("n20", "lob", "tbf", "bc"):
        rules = system_of(name)
        root = _svg(board_svg(rules, rules.new_game(), 400))
        assert root.tag == SVG + "svg" and root.get("width") == "400", name


def test_the_n20_board_has_one_counter_per_unit_on_the_map():
    rules = system_of("n20")
    s = rules.new_game("fuentes")
    root = _svg(board_svg(rules, s, 400))
    # each counter is a <g> holding a <title> and one <rect>: as many as the play page's map draws
    counters = [g for g in root.iter(SVG + "g") if g.find(SVG + "rect") is not None]
    assert len(counters) == len([c for c in counters_of(s) if c.hex in s.scenario.board.hexes])


def test_hexes_around_is_the_column_row_box_widened_by_the_margin():
    grid = HexGrid(cols=10, rows=10)
    spec = MapSpec(grid, {h: "clear" for h in grid.all_hexes()})
    # 0304 and 0506: columns 3..5, rows 4..6; margin 1 widens to 2..6 x 3..7 = 5 x 5 = 25 hexes
    box = hexes_around(spec, ["0304", "0506"], margin=1)
    assert len(box) == 25 and "0203" in box and "0607" in box and "0708" not in box
    assert sorted(hexes_around(spec, [], 1)) == sorted(spec.terrain)      # nothing to fit: the whole map
    # a drawing cut to the box shows only the counters inside it
    svg = hexmap_svg(spec, [Counter("a", "0405", "french", "infantry", 3, 4), Counter("b", "0909", "allied", "cavalry", 2, 6)],
                     hexes=box)
    assert "(a)" in svg and "(b)" not in svg


def test_the_walk_html_has_every_turn_and_draws_a_board_only_when_it_changed():
    rules = system_of("bc")
    rec = GameRecord.load(data_path("records", "bc_demo_greedy_seed1.json"))
    states = replay(rules, rec)
    turns = walk_html(rules, rec, states=states, width=300)
    # the demonstration's four turns (BC 16.3: the game ends in its last turn, the marker goes no further)
    assert [t for t, _ in turns] == [1, 2, 3, 4]
    html = "".join(h for _, h in turns)
    for t in range(1, 5):
        assert f"<h3>Turn {t}</h3>" in html
    pictures, same = html.count("<svg"), html.count("The board is as in the last picture above.")
    phases = html.count("class='walk-phase'")
    assert pictures + same == phases and 0 < pictures < phases
    assert "The end." in html and "French win (flags)" in html
