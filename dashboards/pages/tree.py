"""Probability tree (Napoleonic 20): one battle as an expandable tree of dice, results, routs and hazards."""
from __future__ import annotations

import html
import json
from functools import partial

import panel as pn
import param

from dashboards.components.background import Background
from dashboards.components.n20_battle_form import BattlePlan, example_battles
from dashboards.components.n20_odds_view import plan_inputs
from dashboards.components.lazy import lazy_card
from dashboards.components.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.components.tree_plot import TreeLayout, TreePlot, layout_tree, outline_for, prepare
from engine import n20
from engine.core.errors import VedetteError

TITLE = "Probability tree (Napoleonic 20)"
SUMMARY = ("The same battle drawn as a tree to show a class: CRT roll, result, rout distance, each hazard roll, "
           "break or survive, advance, each branch with its exact probability and rule number.")

_START = "n20_worked_example"


class TreePlan(BattlePlan):
    """The tree page's battle form: a change only checks the battle (the tree itself says everything the
    odds would), so no exact odds are worked out on the server's event loop for a page that never shows them."""

    def recompute(self) -> None:
        try:
            if not self.attackers or not self.defenders:
                raise VedetteError("a battle needs at least one attacker and one defender (9.0 A)")
            self.battle()
        except (VedetteError, ValueError) as exc:
            self._computed(None, str(exc))
            return
        self._computed(None, "")


#: trees of battles on the shipped tables, shared by every session (info, outline, layout: never changed)
_SHARED_TREES: dict[tuple, tuple[str, str, TreeLayout]] = {}
_SHARED_MAX = 32


class TreeModel(param.Parameterized):
    """The tree of the plan's battle, rebuilt when the plan changes."""

    keep_decisions = param.Boolean(default=False, doc="show every choice as a decision node instead of the default policy")
    open_depth = param.Integer(default=1, bounds=(0, 6), doc="levels of the text outline open")
    html = param.String(default="", doc="the text outline of the tree")
    layout = param.ClassSelector(class_=TreeLayout, allow_None=True, doc="the picture's nodes")
    info = param.String(default="")

    def __init__(self, plan: BattlePlan, **params):
        super().__init__(**params)
        self.plan = plan
        self.runner = Background()
        plan.param.watch(lambda *_: self.rebuild(), ["revision"])
        self.param.watch(lambda *_: self.rebuild(), ["keep_decisions", "open_depth"])
        self.rebuild()

    def rebuild(self) -> None:
        if self.plan.error and self.plan.result is None:
            self.runner.drop()
            self.html, self.info = "", self.plan.error
            return
        try:
            battle = self.plan.battle()
        except VedetteError as exc:
            self.info = f"Not rebuilt: {exc}"
            return
        keep, depth, uploaded = self.keep_decisions, self.open_depth, self.plan.tables is not None
        key = None if uploaded else (json.dumps(self.plan.battle_data(), sort_keys=True, default=str), keep, depth)
        if key is not None and key in _SHARED_TREES:       # the same battle on the shipped tables: drawn once
            self.runner.drop()
            self._shown(_SHARED_TREES[key])
            return

        def done(res, key=key):
            if key is not None:
                if len(_SHARED_TREES) >= _SHARED_MAX:
                    _SHARED_TREES.pop(next(iter(_SHARED_TREES)))
                _SHARED_TREES[key] = res
            self._shown(res)

        # enumerated and drawn off the event loop on the server (at once elsewhere): other pages stay quick
        self.runner.start(partial(_tree_work, battle, keep, depth, uploaded), done,
                          lambda exc: setattr(self, "info", f"Not rebuilt: {html.escape(str(exc))}"),
                          label="building the tree…")

    def _shown(self, res) -> None:
        self.info, self.html, self.layout = res    # the outline's HTML and the picture's nodes (issue 17.4)


def _tree_work(battle, keep: bool, depth: int, uploaded: bool) -> tuple[str, str, TreeLayout]:
    """(info line, outline HTML, picture nodes) of one battle (no page objects: it runs in a worker process;
    the picture's columns and the outline travel back made, see ``tree_plot.prepare``)."""
    t = n20.tree(battle, keep_decisions=keep)
    size = t.size()
    total = "" if keep else f"; leaves sum to exactly {t.total()}"
    prov = battle.tables.provenance()
    badges = " ".join(badge_html(prov[k]["source"], prov[k].get("notes", ""), label, uploaded=uploaded)
                      for k, label in (("crt", "CRT"), ("controlled_advance", "controlled advance"),
                                       ("morale_chart", "morale chart")) if k in prov)
    info = (f"<div class='tree-info' data-nodes='{size}'>{size} nodes{html.escape(total)}. "
            f"Decisions: {'kept as branches' if keep else 'default policy (first listed option)'}."
            f" {badges}</div>")
    lay = prepare(layout_tree(t))
    return info, outline_for(lay, depth), lay


#: the page's help (static HTML, the same for every session)
HELP_HTML = (
    "<p class='tree-page-help'>Each dot is something that can happen: a band of die faces (\"3–4\"), a result, a "
    "choice. Beside it, its chance given the dot before it and its chance from the start of the battle; under "
    "it, what is rolled next. Click a dot to fold or unfold what follows it; rest the mouse on a dot for the "
    "rule it comes from, with a reminder in our words (the rulebook remains the authority). The same tree as "
    "text is on the right.</p>")


def page():
    plan = TreePlan(title="Tree")
    ex = example_battles()
    if _START in ex:
        plan.load_battle_file(ex[_START])
    model = TreeModel(plan)
    pick = pn.widgets.Select(name="example battle", options=[""] + list(ex), width=260)
    pick.param.watch(lambda e: e.new and plan.load_battle_file(ex[e.new]), "value")
    plot = TreePlot(model.layout)
    # the help and the tree's info line share one pane
    head = pn.pane.HTML(HELP_HTML + model.info, stylesheets=[BADGE_CSS], sizing_mode="stretch_width",
                        css_classes=["tree-head"])
    model.param.watch(lambda e: setattr(plot, "layout", e.new), "layout")
    model.param.watch(lambda e: setattr(head, "object", HELP_HTML + e.new), "info")
    controls = pn.Row(pick, pn.widgets.Checkbox.from_param(model.param.keep_decisions, name="show decisions as branches"),
                      model.runner.note, model.runner.cancel_button)       # the busy line, in the same row
    inputs = lazy_card("Change the battle (units, terrain, reserves, hazards)",
                       lambda: plan_inputs(plan, with_picker=False), sizing_mode="stretch_width")
    return pn.Column(head, controls, inputs, plot, sizing_mode="stretch_width")
