"""Cheap sessions (issue 17): what every session shares is made once, and the slimmer widgets keep their
behaviour (the units editor's edits and removals, the map drawn on hex tiles where the grid puts each hex)."""
from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from dashboards.render.hexmap import HexMapFigure, static_layers
from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.render.n20_board import spec_from_board
from dashboards.calculators.n20.battle_form import apply_edit
from dashboards.calculators.n20.plan_view import plan_view
from engine.n20.game.setup import new_game

BOARD = new_game("fuentes").scenario.board
HEXES = sorted(BOARD.hexes)


def test_every_session_shares_one_spec_and_one_set_of_drawing_arrays_per_board():
    spec = spec_from_board(BOARD)
    assert spec_from_board(new_game("fuentes").scenario.board) is spec      # boards are shared, so is the spec
    a, b = HexMapFigure(spec), HexMapFigure(spec)
    assert a.fig is not b.fig                                               # each session its own figure...
    assert a.terrain_source.data["q"] is b.terrain_source.data["q"]         # ...on the same read-only arrays
    assert not static_layers(spec)["terrain"]["q"].flags.writeable
    # two sessions' overlays are their own
    a.set_highlights([])
    assert b.highlight_source is not a.highlight_source


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HEXES))
def test_a_hex_tile_sits_where_the_grid_puts_the_hex(label):
    """Bokeh's flat-top hex tile at axial (q, r) has its centre at x = 1.5 q, y = -sqrt(3) (r + q/2): the
    grid's centre of the hex with y flipped (printed maps have row 01 at the top)."""
    spec = spec_from_board(BOARD)
    cols = static_layers(spec)["terrain"]
    i = cols["hex"].index(label)
    q, r = int(cols["q"][i]), int(cols["r"][i])
    x, y = spec.center(label)
    assert math.isclose(1.5 * q, x, abs_tol=1e-9) and math.isclose(-math.sqrt(3) * (r + q / 2), y, abs_tol=1e-9)


def test_the_flags_column_takes_words_and_refuses_unknown_ones():
    plan = BattlePlan.from_battle_file(example_battles()["n20_worked_example"])
    e = plan.attackers[0]
    apply_edit(plan, e, "flags", "elite, guard elite")        # words, commas or spaces, repeats once
    assert e.flags == ["elite", "guard"]
    try:
        apply_edit(plan, e, "flags", "elite grenadier")
    except ValueError as exc:
        assert "grenadier" in str(exc) and "guard (12.2)" in str(exc)
    else:
        raise AssertionError("an unknown flag was accepted")
    assert e.flags == ["elite", "guard"]                       # unchanged


def test_the_units_editor_applies_an_edit_and_a_removal_and_refuses_bad_input():
    plan = BattlePlan.from_battle_file(example_battles()["n20_worked_example"])
    ed = plan_view(plan, with_results=False, with_picker=False, with_upload=False)
    first = plan.attackers[0]
    before = plan.revision
    ed.send("unit", op="edit", role="attacker", row=0, column="strength", value="6")   # what the browser sends
    assert first.strength == 6 and plan.revision > before
    ed.send("unit", op="edit", role="attacker", row=0, column="strength", value="six")
    assert first.strength == 6 and ed.rows["att"][0]["strength"] == 6             # refused: redrawn, old value
    assert "not changed" in ed.rows["att_note"]                                  # the line under the table says why
    ed.send("unit", op="edit", role="attacker", row=9, column="strength", value="1")   # no such row: nothing happens
    n = len(plan.attackers)
    ed.send("unit", op="remove", role="attacker", row=0)
    assert len(plan.attackers) == n - 1 and first not in plan.attackers
    assert [r["id"] for r in ed.rows["att"]] == [e.uid for e in plan.attackers]
