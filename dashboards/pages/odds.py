"""Odds explorer (Napoleonic 20): plan an attack and see its exact odds; compare two plans side by side."""
from __future__ import annotations

import panel as pn

from dashboards.components.n20_battle_form import BattlePlan, example_battles
from dashboards.components.layout import columns, flow
from dashboards.components.n20_odds_view import plan_inputs, plan_results

TITLE = "Odds explorer (Napoleonic 20)"
SUMMARY = ("Set up an attack (units, terrain, reserves, options) and see at once the differential, the CRT "
           "results and what follows: breaks, routs, runaway cavalry, morale. Compare two plans side by side.")

_START = "n20_worked_example"


def _plan(title: str) -> BattlePlan:
    plan = BattlePlan(title=title)
    ex = example_battles()
    if _START in ex:
        plan.load_battle_file(ex[_START])
    return plan


#: shown as HTML (a Markdown pane would parse its text again in every session)
INTRO_HTML = ("<p>"
    'Every number below is computed exactly by the engine from the same rules procedure the game uses: '
    'each die face, each rout distance and each hazard roll is followed to the end. Orange badges mark '
    'charts whose values are provisional (not printed in the rulebooks); load your own tables file to '
    'replace them. Retreat hazards: for each unit, the number of hazard rolls (enemy zone of control, '
    'river crossing) in each hex of its retreat path, e.g. <code>1,0,2</code>.'
    "</p>")


def page():
    a = _plan("Plan A")
    examples = example_battles()
    pick = pn.widgets.Select(name="load an example battle into plan A", options=[""] + list(examples), width=280)

    def load_example(event):
        if event.new:
            a.load_battle_file(examples[event.new])

    pick.param.watch(load_example, "value")
    compare = pn.widgets.Toggle(name="Compare with a second plan", value=False, css_classes=["compare-toggle"],
                                width=230)
    copy = pn.widgets.Button(name="Copy plan A into plan B", width=200, visible=False, css_classes=["copy-a-to-b"])
    inputs_a = pn.Column(pn.pane.HTML("<h3>Plan A</h3>", margin=(0, 5)), plan_inputs(a), sizing_mode="stretch_width")
    results_a = plan_results(a)
    # side by side where there is room (each at least 460 px), one above the other on a narrow screen
    body = columns(inputs_a, pn.Column(results_a, sizing_mode="stretch_width", css_classes=["plan-a"]), basis=460)
    state: dict = {}

    def toggle(event):
        if event.new and "b" not in state:  # plan B is built the first time it is asked for
            b = state["b"] = BattlePlan(title="Plan B")
            b.copy_from(a)
            copy.on_click(lambda _: b.copy_from(a))
            state["col_b"] = pn.Column(pn.pane.HTML("<h3>Plan B</h3>", margin=(0, 5)), plan_inputs(b, with_upload=False),
                                       plan_results(b), sizing_mode="stretch_width", css_classes=["plan-b"])
            # plan A's column for this mode is built afresh (widgets on the same plan): moving the one-mode
            # panes into a new column left the browser's layout stale, the results drawn over the unit tables
            state["col_a"] = pn.Column(pn.pane.HTML("<h3>Plan A</h3>", margin=(0, 5)), plan_inputs(a),
                                       plan_results(a), sizing_mode="stretch_width", css_classes=["plan-a"])
        copy.visible = event.new
        if event.new:  # two columns: each plan's inputs above its results
            body[:] = columns(state["col_a"], state["col_b"], basis=460).objects
        else:
            body[:] = columns(inputs_a, pn.Column(results_a, sizing_mode="stretch_width", css_classes=["plan-a"]),
                              basis=460).objects

    compare.param.watch(toggle, "value")
    intro = pn.pane.HTML(INTRO_HTML, sizing_mode="stretch_width")
    return pn.Column(intro, flow(pick, compare, copy), body, sizing_mode="stretch_width")
