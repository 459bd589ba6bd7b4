"""Probability tree (Napoleonic 20): one battle as an expandable tree of dice, results, routs and hazards."""
from __future__ import annotations

import html

import panel as pn
import param

from dashboards.components.n20_battle_form import BattlePlan, example_battles
from dashboards.components.n20_odds_view import plan_inputs
from dashboards.components.lazy import lazy_card
from dashboards.components.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.components.tree_view import STYLESHEET as TREE_CSS, tree_html
from engine import n20
from engine.core.errors import VedetteError

TITLE = "Probability tree (Napoleonic 20)"
SUMMARY = ("The same battle as an expandable tree: CRT roll, result, rout distance, each hazard roll, break "
           "or survive, advance, each branch with its exact probability and rule number.")

_START = "n20_worked_example"


class TreeModel(param.Parameterized):
    """The tree of the plan's battle, rebuilt when the plan changes."""

    keep_decisions = param.Boolean(default=False, doc="show every choice as a decision node instead of the default policy")
    open_depth = param.Integer(default=1, bounds=(0, 6))
    html = param.String(default="")
    info = param.String(default="")

    def __init__(self, plan: BattlePlan, **params):
        super().__init__(**params)
        self.plan = plan
        plan.param.watch(lambda *_: self.rebuild(), ["revision"])
        self.param.watch(lambda *_: self.rebuild(), ["keep_decisions", "open_depth"])
        self.rebuild()

    def rebuild(self) -> None:
        if self.plan.error and self.plan.result is None:
            self.html, self.info = "", self.plan.error
            return
        try:
            battle = self.plan.battle()
            t = n20.tree(battle, keep_decisions=self.keep_decisions)
        except VedetteError as exc:
            self.info = f"Not rebuilt: {exc}"
            return
        size = t.size()
        total = "" if self.keep_decisions else f"; leaves sum to exactly {t.total()}"
        prov = battle.tables.provenance()
        badges = " ".join(badge_html(prov[k]["source"], prov[k].get("notes", ""), label, uploaded=self.plan.tables is not None)
                          for k, label in (("crt", "CRT"), ("controlled_advance", "controlled advance"),
                                           ("morale_chart", "morale chart")) if k in prov)
        self.info = (f"<div class='tree-info' data-nodes='{size}'>{size} nodes{html.escape(total)}. "
                     f"Decisions: {'kept as branches' if self.keep_decisions else 'default policy (first listed option)'}."
                     f" {badges}</div>")
        self.html = tree_html(t, open_depth=self.open_depth)


def page():
    plan = BattlePlan(title="Tree")
    ex = example_battles()
    if _START in ex:
        plan.load_battle_file(ex[_START])
    model = TreeModel(plan)
    pick = pn.widgets.Select(name="example battle", options=[""] + list(ex), width=260)
    pick.param.watch(lambda e: e.new and plan.load_battle_file(ex[e.new]), "value")
    tree_pane = pn.pane.HTML(model.html, stylesheets=[TREE_CSS], sizing_mode="stretch_width", css_classes=["tree-pane"])
    info = pn.pane.HTML(model.info, stylesheets=[BADGE_CSS], sizing_mode="stretch_width")
    model.param.watch(lambda e: setattr(tree_pane, "object", e.new), "html")
    model.param.watch(lambda e: setattr(info, "object", e.new), "info")
    controls = pn.Row(pick, pn.widgets.Checkbox.from_param(model.param.keep_decisions, name="show decisions as branches"),
                      pn.widgets.IntSlider.from_param(model.param.open_depth, name="levels open", width=160))
    help_ = pn.pane.Markdown(
        "Click a line to open or close its branch. Each branch shows its chance given the line above it and "
        "its chance from the start of the battle. Rest the mouse on a rule number for a reminder of what "
        "the rule is about (the rulebook remains the authority).", sizing_mode="stretch_width")
    inputs = lazy_card("Change the battle (units, terrain, reserves, hazards)",
                       lambda: plan_inputs(plan, with_picker=False), sizing_mode="fixed", width=760)
    return pn.Column(help_, controls, pn.Row(inputs, pn.Column(info, tree_pane, sizing_mode="stretch_width"),
                                             sizing_mode="stretch_width"), sizing_mode="stretch_width")
