"""Odds explorer (Napoleonic 20): plan an attack and see its exact odds; compare two plans side by side."""
from __future__ import annotations

import panel as pn

from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.calculators.n20.odds_view import plan_uploader
from dashboards.calculators.n20.plan_view import plan_view

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
    """Plan A's inputs and odds as one browser component (two Bokeh models); plan B is built, as another,
    the first time compare mode is turned on (issue 17.1)."""
    a = _plan("Plan A")
    examples = example_battles()
    view_a = plan_view(a, title="Plan A", uploader=plan_uploader(a), toolbar=True, intro_html=INTRO_HTML,
                       examples=list(examples), css_classes=["plan-a"], styles=_PLAN_STYLES)
    plans = pn.Column(view_a, sizing_mode="stretch_width", margin=0, stylesheets=[_PLANS_CSS],
                      css_classes=["odds-plans"])
    state: dict = {}

    def load_example(m):
        name = m.get("value")
        if name in examples:
            a.load_battle_file(examples[name])

    def copy(_):
        if "b" in state:
            state["b"].copy_from(a)

    def toggle(m):
        on = bool(m.get("value"))
        if on and "b" not in state:  # plan B is built the first time it is asked for
            b = state["b"] = BattlePlan(title="Plan B")
            b.copy_from(a)
            state["view"] = plan_view(b, title="Plan B", with_upload=False, css_classes=["plan-b"],
                                      layout="stacked", styles=_PLAN_STYLES)
        view_a.update_status(compare=on, layout="stacked" if on else "side")   # each plan's inputs above its odds
        plans.objects = [view_a, state["view"]] if on else [view_a]

    view_a.on_msg("example", load_example)
    view_a.on_msg("copy", copy)
    view_a.on_msg("compare", toggle)
    return plans


#: the plans side by side where there is room (each at least 460 px), one above the other on a narrow screen
_PLANS_CSS = ":host {flex-direction:row !important;flex-wrap:wrap;gap:8px 24px;align-items:flex-start}"
_PLAN_STYLES = {"flex": "1 1 460px", "min-width": "min(460px, 100%)"}
