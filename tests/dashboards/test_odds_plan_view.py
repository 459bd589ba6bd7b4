"""The odds page's plan component (issue 17.1): what the browser sends changes the plan as the old widgets did,
refused input changes nothing and says why, and a page is a handful of Bokeh models."""
from __future__ import annotations

import base64

from bokeh.document import Document
from panel.io.state import set_curdoc

from dashboards.app import discover_pages, page_view
from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.calculators.n20.odds_view import plan_uploader
from dashboards.calculators.n20.plan_view import plan_view
from engine.core.data import data_path

WORKED = example_battles()["n20_worked_example"]


def _view(plan, **kw):
    return plan_view(plan, uploader=plan_uploader(plan), **kw)


def test_rule_9_4_an_input_from_the_browser_changes_the_plan_and_the_odds_panel():
    plan = BattlePlan.from_battle_file(WORKED)
    view = _view(plan)
    assert "differential <span class='big differential'>+2</span>" in view.results
    # 7 attacking against 3 + 0 (clear, 9.4) + 1 (defender's reserve, 12.5) = 4 -> +3
    view.send("set_value", name="terrain", value="clear")
    assert plan.terrain == "clear" and plan.result.differential == 3
    assert "differential <span class='big differential'>+3</span>" in view.results
    assert view.values["terrain"] == "clear"
    # 12.5: without the defender's reserve, 7 - 3 = +4
    view.send("set_value", name="reserves_defender", value=False)
    assert plan.result.differential == 4
    view.send("set_value", name="hexside", value=["minor_river"])
    assert plan.hexside == ["minor_river"]


def test_a_refused_input_changes_nothing_and_says_why():
    plan = BattlePlan.from_battle_file(WORKED)
    view = _view(plan)
    rev = plan.revision
    view.send("set_value", name="edition", value="v9")
    assert plan.edition == "v3" and "not changed" in view.status["note"] and plan.revision == rev
    view.send("set_value", name="artillery_support", value="7")          # 16.3.1: 0..3 supported defenders
    assert plan.artillery_support == 0 and "outside 0..3" in view.status["note"]
    view.send("set_value", name="reduce_to", value="")                   # empty: no voluntary reduction (9.5)
    assert plan.reduce_to is None and view.status["note"] == ""
    view.send("set_value", name="title", value="hacked")                 # not an input of the form: ignored
    assert plan.title == "Plan A"


def test_picking_scenario_units_adds_them_to_the_plan():
    plan = BattlePlan.from_battle_file(WORKED)
    view = _view(plan)
    scen = view.config["scenarios"][0]
    view.send("pick", op="scenario", scenario=scen)
    pairs = view.status["scenario_units"]
    assert pairs and all(len(p) == 2 for p in pairs)
    n = len(plan.defenders)
    view.send("pick", op="add", role="defender", scenario=scen, uids=[pairs[0][1], "no-such-unit"])
    assert len(plan.defenders) == n + 1 and plan.defenders[-1].uid == pairs[0][1]
    view.send("pick", op="scenario", scenario="../../etc/passwd")        # not a scenario id: nothing happens
    assert view.status["scenario_units"] == pairs


def test_a_tables_file_sent_by_the_browser_is_checked_by_the_engine_loader():
    plan = BattlePlan.from_battle_file(WORKED)
    view = _view(plan)
    before = plan.result
    bad = base64.b64encode(b"crt: [not, a, table]\n").decode()
    view.send("upload", op="load", name="mine.yaml", data=bad)
    assert view.status["upload"]["kind"] == "error" and "mine.yaml" in view.status["upload"]["text"]
    assert plan.tables is None and plan.result is before
    good = data_path("n20", "tables_v3.yaml").read_bytes()
    view.send("upload", op="load", name="copy.yaml", data=base64.b64encode(good).decode())
    assert view.status["upload"]["kind"] == "ok" and plan.tables is not None
    view.send("upload", op="reset")
    assert plan.tables is None and view.status["upload"] == {}


def test_the_odds_page_is_a_handful_of_models_and_compare_mode_builds_plan_b():
    info = {p.route: p for p in discover_pages()}["/odds"]
    doc = Document()
    with set_curdoc(doc):
        root = page_view(info)
        root.server_doc(doc)
    # shell (column, header, body), the plans' column, plan A's component and its data model, Panel's
    # location and shared theme stylesheets: well under the 58 models of the page built from widgets
    assert len(doc.models) <= 16
    plans = root.main[0]
    view_a = plans.objects[0]
    with set_curdoc(doc):
        view_a.send("example", value="n20_almeida_battle")    # two attackers, one defender: shown together
        assert len(view_a.rows["att"]) == 2 and len(view_a.rows["def"]) == 1
        assert "data-plan='Plan A'" in view_a.results
        view_a.send("compare", value=True)
        assert len(plans.objects) == 2 and view_a.status["compare"] is True
        view_b = plans.objects[1]
        assert "plan-b" in view_b.css_classes and "odds-results" in view_b.results
        view_a.send("compare", value=False)
        assert plans.objects == [view_a]
