"""Inputs and result panels for a :class:`~dashboards.calculators.n20.battle_form.BattlePlan`.

The inputs are one browser component (:mod:`dashboards.calculators.n20.plan_view`) whose messages change the
plan's parameters, so the plan, not the page, is the state. Results are HTML built from the engine's
:class:`engine.n20.OddsResult`; every table's provenance badge sits next to the numbers that rest on it.
"""
from __future__ import annotations

import panel as pn

from engine import n20

from dashboards.server.background import Background
from dashboards.calculators.n20.battle_form import BattlePlan
from dashboards.calculators.n20.plan_view import plan_view
from dashboards.calculators.n20.results import ODDS_BUDGET_S, RESULTS_CSS, results_html
from dashboards.common.uploads import FileLoader

__all__ = ["plan_inputs", "plan_results", "plan_uploader"]


def plan_results(plan: BattlePlan) -> pn.Column:
    """The plan's odds panel under its busy line. On a server every change is worked out off the event loop,
    in a worker process (issue 12.3): the line says so while it runs, with a *cancel* button; the last good
    result stays on screen meanwhile."""
    if plan.runner is None:
        plan.runner = Background(budget_s=ODDS_BUDGET_S)
        busy = plan.runner.panel()
    else:
        busy = plan.runner.view()
    pane = pn.pane.HTML(results_html(plan), stylesheets=[RESULTS_CSS], sizing_mode="stretch_width",
                        css_classes=["odds-panel"])

    def update(*_):
        pane.object = results_html(plan)

    plan.param.watch(update, ["revision"])
    return pn.Column(busy, pane, sizing_mode="stretch_width", margin=0)


# ------------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------------
def plan_inputs(plan: BattlePlan, with_picker: bool = True, with_upload: bool = True):
    """The plan's inputs (general, units tables, optional rules, scenario picker, tables upload) as one
    browser component (:class:`~dashboards.calculators.n20.plan_view.PlanView`, two Bokeh models)."""
    return plan_view(plan, with_results=False, with_picker=with_picker, with_upload=with_upload,
                     uploader=plan_uploader(plan) if with_upload else None)


def plan_uploader(plan: BattlePlan) -> FileLoader:
    """The plan's tables upload (the engine's own loader and messages; kept as ``plan._uploader``)."""
    up = getattr(plan, "_uploader", None)
    if up is None:
        def loader(path):
            return n20.load_tables(path)

        up = FileLoader(loader, on_loaded=plan.use_tables, on_reset=plan.reset_tables,
                        label="Your own tables file (CRT, TEC, ...)")
        plan._uploader = up  # type: ignore[attr-defined]  # (a handle for the tests, kept on the plan)
    return up
