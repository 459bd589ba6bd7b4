"""The /tree picture's labels never overlap at the first zoom (issue 25): on the worked-example tree of every
system with a tree (n20's worked battle, an LoB combat at Albuera, the TBF charge example, the BC assault
example), no two label rectangles of the shown nodes intersect, folded as the page first shows them and
unfolded all the way. The drawing scales everything alike when zoomed, so this holds at every zoom."""
from __future__ import annotations

import json
from itertools import combinations

import pytest

from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_plot import (LABEL_DX, ROW_PX, TreeLayout, canvas_data, figure_data, geometry,
                                         label_boxes, layout_tree, text_px)
from engine.core.data import data_path
from engine.core.procedure import enumerate_tree


def _n20() -> TreeLayout:
    from engine import n20
    return layout_tree(n20.tree("data/examples/n20_worked_example.yaml"), rule_note=rule_note_for("n20"))


def _lob() -> TreeLayout:
    from engine.lob.analysis import combat_tree
    from engine.lob.board import default_board
    from engine.lob.cli import resolve_combat
    from engine.lob.policies import CombatPolicy
    from engine.lob.tables import default_tables
    ctx, att, dfn = resolve_combat("albuera:17>Albuera", default_board(), default_tables())   # README's example
    return layout_tree(combat_tree(ctx, att, dfn, CombatPolicy("stay", "stay")), rule_note=rule_note_for("lob"))


def _tbf() -> TreeLayout:
    import yaml

    from engine.tbf.board import default_grid
    from engine.tbf.charge import charge_from_spec, charge_proc
    from engine.tbf.tables import default_tables
    from engine.core.procedure import first_option
    path = data_path("tbf", "examples", "charge_two_targets.yaml")
    setup = charge_from_spec(yaml.safe_load(path.read_text()), default_grid(), str(path))
    tree = enumerate_tree(charge_proc(default_tables(), setup), policy=first_option)
    return layout_tree(tree, fmt_result=str, rule_note=rule_note_for("tbf"))


def _bc() -> TreeLayout:
    from engine.bc.calc import combat_from_file
    from engine.bc.combat import combat_procedure, neutral_policy
    from engine.bc.deck import Pile, default_deck
    setup, _ = combat_from_file(data_path("bc", "examples", "assault.yaml"))
    deck = default_deck()
    tree = enumerate_tree(combat_procedure(setup, deck, Pile.for_odds(deck, ()), None), policy=neutral_policy)
    return layout_tree(tree, rule_note=rule_note_for("bc"))


TREES = {"n20": _n20, "lob": _lob, "tbf": _tbf, "bc": _bc}


@pytest.fixture(scope="module", params=sorted(TREES))
def example(request) -> tuple[str, TreeLayout]:
    return request.param, TREES[request.param]()


def _meet(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("depth", [None, 99], ids=["as first shown", "all unfolded"])
def test_no_two_label_boxes_meet(example, depth):
    system, layout = example
    boxes = label_boxes(layout, depth)
    assert len(boxes) > 3, system
    hits = [(i, j) for (i, a), (j, b) in combinations(boxes.items(), 2) if _meet(a, b)]
    assert not hits, f"{system}: labels of nodes {hits[:5]} overlap"


def test_each_box_holds_its_text_and_the_canvas_gets_the_same_geometry(example):
    """A box is as wide as its longer line (in the width estimate); the browser draws from the same columns,
    row height and widths (it may only widen a column past them, measuring the drawn text)."""
    system, layout = example
    data = json.loads(canvas_data(layout))
    g = geometry(layout)
    boxes = label_boxes(layout)
    for i, (x0, y0, x1, y1) in boxes.items():
        assert x1 - x0 + 1e-6 >= max(text_px(data["label"][i], 12), text_px(data["sub"][i], 11))
        assert x0 == g.colx[layout.nodes[i].depth] + LABEL_DX
    assert data["colx"] == [round(x, 1) for x in g.colx] and data["row"] == ROW_PX
    assert data["w"] == [round(w, 1) for w in g.widths]
    shown = sum(1 for x in figure_data(layout).cols["x"] if x == x)
    assert shown == len(boxes), system


def test_before_the_columns_were_as_wide_as_their_labels_the_worked_example_overlapped():
    """Why the test above is needed: drawn as before (depth d at d units of a box ~900 px wide for the
    4 levels + 2.25 units of margin, i.e. ~145 px a column), a CRT answer's label ('5–6 ⇒ DR  1/3 (33.3 % in
    all)', about 190 px) runs into the rout-distance answers' column."""
    layout = _n20()
    g = geometry(layout)
    assert max(g.widths) > 900 / (4 + 2.25)
