"""Probability tree (Napoleonic 20): one battle as an expandable tree of dice, results, routs and hazards."""
from __future__ import annotations

import html
import json
from functools import partial

import param
from panel.custom import Child

from dashboards.server.background import Background
from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.calculators.n20.odds_view import plan_inputs
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.render.tree_plot import (CANVAS_JS, TreeCanvas, TreeLayout, canvas_params, layout_tree,
                                         outline_for, prepare)
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


_HEAD_JS = r"""
function drawHead(model, el) {
  const root = document.createElement("div"); root.className = "tree-head";
  const text = document.createElement("div"); text.className = "tree-head-text";
  const row = document.createElement("div"); row.className = "tree-controls";
  const pickLabel = document.createElement("label"); pickLabel.className = "tree-example";
  const pick = document.createElement("select"); pick.setAttribute("aria-label", "example battle");
  pickLabel.append("example battle ", pick);
  const keepLabel = document.createElement("label"); keepLabel.className = "tree-keep";
  const keep = document.createElement("input"); keep.type = "checkbox";
  keepLabel.append(keep, " show decisions as branches");
  const busy = document.createElement("span"); busy.className = "tree-busy";
  const cancel = document.createElement("button"); cancel.type = "button"; cancel.className = "tree-cancel";
  cancel.textContent = "cancel";
  const toggle = document.createElement("button"); toggle.type = "button"; toggle.className = "tree-battle-toggle";
  const slot = document.createElement("div"); slot.className = "tree-battle";
  row.append(pickLabel, keepLabel, busy, cancel);
  root.append(text, row, toggle, slot); el.appendChild(root);
  const fill = () => {
    pick.replaceChildren(...["", ...(model.examples || [])].map((v) => {
      const o = document.createElement("option"); o.value = v; o.textContent = v; return o; }));
    pick.value = model.example || "";
  };
  const show = () => {
    text.innerHTML = __HELP__ + (model.info || "");
    keep.checked = !!model.keep;
    busy.replaceChildren();
    if (model.busy_text) {
      const b = document.createElement("span"); b.className = "busy-line";
      b.dataset.state = "busy"; b.textContent = model.busy_text; busy.appendChild(b);
    }
    cancel.hidden = !model.busy_text;
    toggle.textContent = model.inputs_open ? "\u25be Hide the battle's inputs"
                                            : "\u25b8 Change the battle (units, terrain, reserves, hazards)";
    toggle.setAttribute("aria-expanded", model.inputs_open ? "true" : "false");
    slot.hidden = !model.inputs_open;
  };
  const inputs = () => { const c = model.get_child("inputs"); slot.replaceChildren(...(c ? [c] : [])); };
  pick.addEventListener("change", () => { model.example = pick.value; });
  keep.addEventListener("change", () => { model.keep = keep.checked; });
  cancel.addEventListener("click", () => { model.send_msg({action: "cancel"}); });
  toggle.addEventListener("click", () => { model.inputs_open = !model.inputs_open; });
  for (const p of ["info", "keep", "busy_text", "inputs_open"]) model.on(p, show);
  model.on("examples", fill); model.on("example", () => { pick.value = model.example || ""; });
  model.on("inputs", inputs);
  fill(); show(); inputs();
}
"""

_HEAD_CSS = BADGE_CSS + """
.tree-head {font-size:13px}
.tree-page-help {margin:0 0 4px 0}
.tree-controls {display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;margin:6px 0}
.tree-controls select {margin-left:4px;max-width:260px;font-size:13px}
.tree-busy .busy-line {color:#5d6d7e;font-style:italic}
.tree-cancel, .tree-battle-toggle {font-size:13px;padding:2px 10px;border:1px solid #b0bec5;border-radius:3px;
  background:#f5f7f9;cursor:pointer;white-space:nowrap}
.tree-battle-toggle {margin:2px 0 6px 0}
.tree-battle {margin:0 0 8px 0}
"""


class TreePage(TreeCanvas):
    """The tree page in one browser component (issue 17.1): its head (the help and the tree's info line, the
    example picker, the "decisions as branches" switch, the busy line with its cancel button, the button
    that shows the battle's inputs, made on the server the first time it is pressed), then the picture
    with the outline beside it (:class:`~dashboards.render.tree_plot.TreeCanvas`)."""

    info = param.String(default="")
    examples = param.List(default=[])
    example = param.String(default="")
    keep = param.Boolean(default=False)
    busy_text = param.String(default="", doc="what is being worked out ('' when nothing): the busy line")
    inputs_open = param.Boolean(default=False)
    inputs = Child(doc="the battle's inputs (None until first asked for)")

    _esm = CANVAS_JS + _HEAD_JS.replace("__HELP__", json.dumps(HELP_HTML)) + "\nexport function render({ model, el }) { drawHead(model, el); drawTree(model, el); }\n"
    _stylesheets = [*TreeCanvas._stylesheets, _HEAD_CSS]
    _render_policy = "manual"

    def __init__(self, **params):
        super().__init__(**params)
        self.on_cancel = None

    def _handle_msg(self, data) -> None:
        if isinstance(data, dict) and data.get("action") == "cancel" and self.on_cancel is not None:
            self.on_cancel()


def page():
    plan = TreePlan(title="Tree")
    ex = example_battles()
    if _START in ex:
        plan.load_battle_file(ex[_START])
    model = TreeModel(plan)
    runner = model.runner
    view = TreePage(info=model.info, examples=list(ex), keep=model.keep_decisions,
                    busy_text=runner.label if runner.busy else "", sizing_mode="stretch_width", css_classes=["tree-page"],
                    **canvas_params(model.layout))

    def opened(event):           # the battle's inputs, made the first time they are asked for
        if event.new and view.inputs is None:
            view.inputs = plan_inputs(plan, with_picker=False)

    view.param.watch(lambda e: e.new and e.new in ex and plan.load_battle_file(ex[e.new]), "example")
    view.param.watch(lambda e: setattr(model, "keep_decisions", e.new), "keep")
    view.on_cancel = runner.cancel
    view.param.watch(opened, "inputs_open")
    model.param.watch(lambda e: setattr(view, "keep", e.new), "keep_decisions")
    model.param.watch(lambda e: view.param.update(**canvas_params(e.new)), "layout")
    model.param.watch(lambda e: setattr(view, "info", e.new), "info")
    runner.param.watch(lambda e: setattr(view, "busy_text", runner.label if runner.busy else ""), ["busy", "label"])
    return view
