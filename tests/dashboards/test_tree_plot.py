"""The probability tree picture (issue 17 point 4): layout of the spliced tree, band labels, probabilities."""
from __future__ import annotations

from fractions import Fraction
from functools import partial

import pytest
from hypothesis import given, settings, strategies as st

from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_plot import (TreePlot, auto_open_depth, frac_text, layout_tree, outline_html,
                                         positions, tree_figure)
from engine import n20
from engine.core.procedure import Roll, enumerate_tree

WORKED = "data/examples/n20_worked_example.yaml"


@pytest.fixture(scope="module")
def worked():
    return layout_tree(n20.tree(WORKED))


def test_worked_example_node_count(worked):
    # start 1; CRT answers 1, 2, 3-4, 5-6: 4.  EX and N end there (their advance is certain).
    # DW (3-4): hazard roll 2 bands, each then a controlled-advance roll of 2 bands: 2 + 4 = 6.
    # DR (5-6): rout distance 6 faces, each a hazard roll of 2 bands (12), each an advance roll of 2 (24): 42.
    # 1 + 4 + 6 + 42 = 53 nodes; ends: EX, N, 4 under DW, 24 under DR = 30.
    assert len(worked) == 53
    assert len(worked.leaves()) == 30
    assert worked.truncated == 0


def test_bands_shown_as_ranges_with_their_probabilities(worked):
    root = worked.nodes[0]
    assert root.ask == "Roll d6: CRT column +2" and root.rule == "9.0 F"
    assert "9.0" in root.note                       # our summary of the rule on hover
    kids = [worked.nodes[c] for c in root.children]
    # column +2 of the worked example: 1 EX, 2 N, 3-4 DW, 5-6 DR -> 1/6, 1/6, 2/6, 2/6
    assert [k.answer for k in kids] == ["1", "2", "3–4", "5–6"]
    assert [k.probability for k in kids] == [Fraction(1, 6), Fraction(1, 6), Fraction(1, 3), Fraction(1, 3)]
    assert [k.gives for k in kids] == ["EX", "N", "DW", "DR"]
    dr = kids[3]
    assert dr.ask == "Roll d6: rout distance of prussian-i" and dr.step.startswith("rout of prussian-i")


def test_path_probabilities_multiply_and_sum_to_one(worked):
    assert sum(n.path_probability for n in worked.leaves()) == 1
    # a DR end: 5-6 (1/3), rout distance 1 (1/6), hazard 1-3 (1/2), advance 1-3 (1/2) = 1/72
    dr = worked.nodes[worked.nodes[0].children[3]]
    one = worked.nodes[dr.children[0]]
    hazard = worked.nodes[one.children[0]]
    end = worked.nodes[hazard.children[0]]
    assert (hazard.answer, end.answer) == ("1–3", "1–3")
    assert end.is_leaf and end.path_probability == Fraction(1, 72)
    assert end.result.startswith("DR;")


def test_outline_in_a_players_words(worked):
    text = outline_html(worked, open_depth=6)
    assert "3–4" in text and "5–6" in text and "rule 9.0 F" in text
    assert "sub:" not in text and "inside this step" not in text and "sub " not in text


def test_positions_fold_and_unfold(worked):
    assert len(positions(worked)) == 53
    rows = {y for _, y in positions(worked).values()}
    assert min(rows) == -29                         # 30 ends, one row each
    assert list(positions(worked, {0})) == [0]      # the start folded: nothing else shown
    # rows with k levels open: 1 -> 4; 2 -> EX, N, 2 under DW, 6 under DR = 10; 3 -> 1 + 1 + 4 + 12 = 18
    assert auto_open_depth(worked, max_rows=10) == 2
    assert auto_open_depth(worked, max_rows=9) == 1


def test_figure_has_the_click_callback(worked):
    lay = tree_figure(worked, open_depth=2)
    src = lay.select_one({"name": "tree-nodes"})
    assert len(src.data["x"]) == 53
    assert set(lay.select_one({"name": "tree-figure"}).js_event_callbacks) == {"tap", "doubletap"}
    assert "5–6" in " ".join(src.data["label"])
    TreePlot(worked).__panel__()


def test_other_systems_rule_notes():
    assert "charge" in rule_note_for("tbf")("6.2.8 D").lower()
    assert rule_note_for("bc")("23.2").startswith("23.2:")
    assert rule_note_for("lob")("5.2.1").startswith("5.2.1:")
    assert rule_note_for("lob")("99.9") == ""


def test_frac_text():
    assert frac_text(Fraction(-1)) == "-1" and frac_text(Fraction(2, 6)) == "1/3" and frac_text(None) == ""


def _dice(n):
    total = 0
    for i in range(n):
        total += yield Roll("d6", rule="9.0", label=f"d6 (die {i + 1})")
    return total


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=1, max_value=3), st.integers(min_value=4, max_value=300))
def test_any_node_limit_keeps_a_tree(n, limit):
    """Invariant: under a node limit the picture is still a tree whose drawn ends never exceed 1 in all."""
    lay = layout_tree(enumerate_tree(partial(_dice, n)), max_nodes=limit)
    assert len(lay) <= max(limit, 1)
    assert all(lay.nodes[c].parent == p.id for p in lay.nodes for c in p.children)
    s = sum(x.path_probability for x in lay.leaves() if not x.truncated and not x.children)
    assert s <= 1
    if lay.truncated == 0:
        assert sum(x.path_probability for x in lay.leaves()) == 1


def test_canvas_data_for_the_browser_drawing(worked):
    """The picture a page shows is drawn in the browser from one JSON string (issue 17.1): the same 53 nodes,
    folds and hover text as the Bokeh figure, with the outline beside it."""
    import json

    from dashboards.render.tree_plot import TreeCanvas, canvas_data

    data = json.loads(canvas_data(worked, 2))
    assert len(data["parent"]) == 53 and data["parent"][0] == -1
    # 2 levels open: the start and its inner answers DW and DR (EX and N end there) unfolded: 3 nodes;
    # every deeper inner node folded
    assert [f for f, d, k in zip(data["folded"], data["depth"], data["nkids"]) if k and d < 2] == [0] * 3
    assert all(f == 1 for f, d, k in zip(data["folded"], data["depth"], data["nkids"]) if k and d >= 2)
    assert "rule 9.0" in data["tip"][0] and "click to fold" in data["tip"][0]
    assert canvas_data(worked, 2) is canvas_data(worked, 2)         # made once, shared by every session
    view = TreePlot(worked).__panel__()
    assert isinstance(view, TreeCanvas) and "3–4" in view.outline and view.data == canvas_data(worked)


def test_tree_page_is_one_component():
    """The tree page is one browser component (issue 17.1): its head (help, info, example picker, switch,
    inputs button) and the picture with its outline; the battle's inputs are made on the first press."""
    from dashboards.pages import tree as tree_page

    view = tree_page.page()
    assert isinstance(view, tree_page.TreePage) and view.inputs is None
    assert view.example == "" and "n20_worked_example" in view.examples
    assert "sum to exactly 1" in view.info and json_nodes(view) == 53
    view.inputs_open = True
    made = view.inputs
    assert made is not None
    view.inputs_open = False
    view.inputs_open = True
    assert view.inputs is made                          # made once
    view.keep = True                                    # the switch reaches the tree: decisions kept
    assert "kept as branches" in view.info
    assert view.busy_text == "" and callable(view.on_cancel)
    pressed = []
    view.on_cancel = lambda: pressed.append(1)
    view._handle_msg({"action": "cancel"})              # the busy line's cancel button, pressed
    assert pressed == [1]
    import json
    data = json.loads(view.data)
    # 30 rows: 26 px a row + 90 = 870, at most 860; nothing cut at 53 nodes
    assert data["height"] == 860 and data["notice"] == ""


def json_nodes(plot) -> int:
    import json
    return len(json.loads(plot.data)["parent"])
