"""One attack plan of the odds explorer as ONE browser component: its inputs, its units tables, its optional
rules, the scenario picker, the tables upload, the busy line and the odds panel (issue 17.1).

Every Bokeh model a page sends costs the server about 4-6 ms per session on a 2-core laptop (Bokeh's
property defaults, Panel's property sync); the odds page used to send 58 of them (a Panel widget, layout or
card per input). :class:`PlanView` is two models (Panel's ``ReactiveESM`` and its data model) whatever it
shows: the inputs are plain HTML controls drawn in the browser and synced through a handful of parameters.

* The plan stays the state: an input sends ``set_value`` (``{"name", "value"}``), checked here against the
  plan's own parameter (a refused value leaves the plan unchanged and shows why in ``note``); the plan's
  changes come back as ``values`` / ``att_rows`` / ``def_rows``.
* The odds panel is one HTML string (``results``), updated in place after every recomputation: one small
  patch, one ``innerHTML`` in the browser.
* The optional parts (optional rules, scenario picker, tables upload) are ``<details>`` boxes that open in
  the browser without asking the server; the scenario's units are sent when the picker is first opened.
"""
from __future__ import annotations

import base64
import binascii
import html
from collections.abc import Callable
from typing import Any

import param
from panel.custom import JSComponent

from dashboards.server.background import Background
from dashboards.calculators.n20.battle_form import (EDIT_COLUMNS, FLAG_HELP, UNIT_TYPES, BattlePlan, apply_edit, entry_from_unitdef, scenario_choices,
                                                    scenario_units)
from dashboards.calculators.n20.results import ODDS_BUDGET_S, ODDS_CSS, results_html
from dashboards.common.provenance import STYLESHEET as BADGE_CSS
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS

__all__ = ["PlanView", "plan_view", "FIELDS", "MAX_UPLOAD_BYTES"]

#: the largest tables file a browser may send (the shipped ones are about 10 kB)
MAX_UPLOAD_BYTES = 512 * 1024


def _field(name: str, label: str, kind: str, group: str = "main", cls: str = "", options=None, help_: str = ""):
    objs = BattlePlan.param[name].objects if options is None and kind in ("select", "multi") else options
    return {"name": name, "label": label, "kind": kind, "group": group, "cls": cls,
            "options": list(objs or []), "help": help_ or (BattlePlan.param[name].doc or "")}


#: the plan's inputs, in the order shown (the same for every session: built once per process)
FIELDS = [
    _field("edition", "Edition", "select", cls="edition"),
    _field("attacker_side", "attacker", "select", cls="attacker"),
    _field("terrain", "defender's terrain", "select", cls="terrain"),
    _field("reserves_attacker", "attacker commits reserves (12.5)", "check", cls="reserves-attacker"),
    _field("reserves_defender", "defender commits reserves (12.5)", "check", cls="reserves-defender"),
    _field("hexside", "hexside attacked across", "multi", cls="hexside"),
    _field("defender_upslope", "defender upslope", "check", cls="upslope"),
    _field("countercharge", "countercharge (8.2.2)", "check", "more"),
    _field("fatigue", "fatigue (16.8, v3)", "check", "more"),
    _field("reliability_checks", "Portuguese reliability (16.9, v2)", "check", "more"),
    _field("command", "leader command (16.9.4)", "select", "more"),
    _field("artillery_support", "artillery support (16.3.1)", "int", "more"),
    _field("reduce_to", "reduce to (9.5)", "int", "more"),
    _field("morale_attacker", "attacker morale", "int", "more"),
    _field("morale_defender", "defender morale", "int", "more"),
]
_NAMES = {f["name"]: f for f in FIELDS}
FLAGS_NOTE = ("type in a cell to change it; flags, as words: "
              + ", ".join(f"{f} {r}" for f, r in FLAG_HELP.items()))


_CSS = BARS_CSS + BADGE_CSS + """
:host {display:block}
.plan-view {display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-start;font-family:system-ui,sans-serif;
  font-size:13px}
.plan-view > .top {flex:1 1 100%;min-width:0}
.plan-view > .inputs, .plan-view > .results-col {flex:1 1 460px;min-width:min(460px,100%)}
.plan-view.stacked > .inputs, .plan-view.stacked > .results-col {flex:1 1 100%}
.plan-view h3 {margin:4px 0;font-size:16px}
.odds-intro p {margin:0 0 6px 0}
.row {display:flex;flex-wrap:wrap;gap:6px 14px;align-items:flex-end;margin:4px 0}
label.fld {display:inline-flex;flex-direction:column;gap:2px;font-size:12px;color:#333}
label.fld.wide {display:flex}
label.fld.check {flex-direction:row;align-items:center;gap:4px;font-size:13px;color:#222}
select, input[type=number], input[type=text] {font:inherit;padding:3px 4px;border:1px solid #ced4da;border-radius:4px;
  background:#fff;min-width:0;box-sizing:border-box}
label.fld select {min-width:90px}
label.fld input[type=number] {width:110px}
fieldset.fld {border:1px solid #dde;border-radius:4px;padding:2px 8px 4px 8px;margin:0;display:flex;flex-wrap:wrap;
  gap:2px 10px;font-size:12px}
fieldset.fld legend {font-size:12px;color:#333;padding:0 3px}
fieldset.fld label {display:inline-flex;align-items:center;gap:3px;white-space:nowrap}
button {font:inherit;font-size:13px;padding:4px 10px;border:1px solid #ced4da;border-radius:4px;background:#f8f9fa;
  color:#212529;cursor:pointer;white-space:nowrap}
button:hover {background:#e2e6ea}
button.primary {background:#0072b5;border-color:#0072b5;color:#fff}
button[aria-pressed=true] {background:#2f4f6f;border-color:#2f4f6f;color:#fff}
button:disabled {opacity:.5;cursor:default}
details {border:1px solid #dde;border-radius:4px;margin:6px 0;padding:0 8px}
details > summary {cursor:pointer;font-weight:600;padding:5px 0}
details:not([open]) > :not(summary) {display:none !important}
.note {color:#b71c1c;font-family:monospace;white-space:pre-wrap;margin:2px 0}
.note:empty {display:none}
.upload-error {color:#721c24;background:#f8d7da;border-radius:4px;padding:4px 8px}
.upload-ok {color:#155724;background:#d4edda;border-radius:4px;padding:4px 8px}
select.pick-units {width:100%;min-height:110px}
table.units-edit {border-collapse:collapse;width:100%;table-layout:fixed;font-size:13px}
table.units-edit th {text-align:left;font-weight:600;font-size:12px;padding:2px 3px;border-bottom:1px solid #ccc;overflow:hidden}
table.units-edit td {padding:1px 2px;border-bottom:1px solid #eee;overflow:hidden}
table.units-edit input, table.units-edit select {width:100%;padding:2px 3px;border-color:#d0d0d0;border-radius:3px}
table.units-edit td.src {font-size:11px;color:#666;white-space:nowrap;text-overflow:ellipsis}
table.units-edit button.remove-unit {border:none;background:none;cursor:pointer;color:#b71c1c;font-size:14px;padding:0}
table.units-edit col.c-id {width:19%} table.units-edit col.c-type {width:15%} table.units-edit col.c-strength {width:11%}
table.units-edit col.c-move {width:10%} table.units-edit col.c-flags {width:17%}
table.units-edit col.c-retreat-hazards {width:12%} table.units-edit col.c-source {width:10%}
table.units-edit col.c-remove {width:28px}
.units-title {margin:8px 0 0 0;font-size:13px}
button.add-unit {margin:5px 0}
.busy-line {color:#2f4f6f;font-style:italic}
.busy-spin {display:inline-block;width:12px;height:12px;margin:0 6px -2px 0;border:2px solid #c5d3e0;
  border-top-color:#2f4f6f;border-radius:50%;animation:busy-turn .8s linear infinite}
@keyframes busy-turn {to {transform:rotate(360deg)}}
.odds-busy {min-height:24px;display:flex;align-items:center;gap:8px}
""" + ODDS_CSS

_JS = r"""
export function render({ model, el }) {
  const cfg = model.config;
  const base = Math.floor(Math.random() * 1e9);
  let n = 0;
  // every message to the server is one dict on one property: {n, kind, ...}
  const send = (kind, payload) => { n += 1; model.msg = Object.assign({ n: base + n, kind: kind }, payload); };
  const st = () => model.status || {};
  const h = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k === "html") e.innerHTML = v;
      else e.setAttribute(k, v);
    }
    for (const c of kids) if (c !== null && c !== undefined) e.append(c);
    return e;
  };
  const on = (e, ev, f) => { e.addEventListener(ev, f); return e; };
  const root = h("div", { class: "plan-view" });
  const inputs = {};
  const onStatus = [];

  // -- the page's tool bar (plan A only): an example to load, compare mode, copy A into B ------------------
  if (cfg.toolbar) {
    const top = h("div", { class: "top" });
    if (cfg.intro_html) top.append(h("div", { class: "odds-intro", html: cfg.intro_html }));
    const ex = h("select", { class: "pick-example" });
    ex.append(h("option", { value: "", text: "" }));
    for (const name of cfg.examples) ex.append(h("option", { value: name, text: name }));
    on(ex, "change", () => { if (ex.value) send("example", { value: ex.value }); });
    const cmp = h("button", { type: "button" }, "Compare with a second plan");
    on(cmp, "click", () => send("compare", { value: !st().compare }));
    const copy = h("button", { type: "button", class: "copy-a-to-b" }, "Copy plan A into plan B");
    on(copy, "click", () => send("copy", {}));
    const copyWrap = h("span", { class: "copy-wrap" }, copy);
    top.append(h("div", { class: "row" },
                 h("label", { class: "fld example" }, h("span", { text: "load an example battle into plan A" }), ex),
                 h("span", { class: "compare-toggle" }, cmp), copyWrap));
    root.append(top);
    onStatus.push(() => {
      cmp.setAttribute("aria-pressed", String(!!st().compare));
      copyWrap.style.display = st().compare ? "" : "none";
    });
  }

  // -- inputs ------------------------------------------------------------------------------------------------
  const col = h("div", { class: "inputs" });
  if (cfg.title_html) col.append(h("div", { class: "plan-title", html: cfg.title_html }));
  function field(f) {
    const v = model.values[f.name];
    const cls = "fld " + (f.cls || "");
    if (f.kind === "check") {
      const i = h("input", { type: "checkbox" });
      i.checked = !!v;
      on(i, "change", () => send("set_value", { name: f.name, value: i.checked }));
      inputs[f.name] = i;
      return h("label", { class: cls + " check", title: f.help }, i, f.label);
    }
    if (f.kind === "multi") {
      const box = h("fieldset", { class: cls + " multi", title: f.help }, h("legend", { text: f.label }));
      const boxes = [];
      for (const o of f.options) {
        const c = h("input", { type: "checkbox", value: o });
        c.checked = (v || []).includes(o);
        on(c, "change", () => send("set_value", { name: f.name, value: boxes.filter((b) => b.checked).map((b) => b.value) }));
        boxes.push(c);
        box.append(h("label", {}, c, o.replace(/_/g, " ")));
      }
      inputs[f.name] = boxes;
      return box;
    }
    let i;
    if (f.kind === "select") {
      i = h("select", {});
      for (const o of f.options) i.append(h("option", { value: o, text: o }));
      i.value = v;
    } else {
      i = h("input", { type: "number", step: "1" });
      i.value = v === null || v === undefined ? "" : String(v);
    }
    on(i, "change", () => send("set_value", { name: f.name, value: i.value }));
    inputs[f.name] = i;
    return h("label", { class: cls, title: f.help }, h("span", { text: f.label }), i);
  }
  const group = (g, kinds) => h("div", { class: "row" },
    ...cfg.spec.filter((f) => f.group === g && kinds.includes(f.kind)).map(field));
  col.append(group("main", ["select"]), group("main", ["check", "multi"]));
  const note = h("div", { class: "note field-note" });
  col.append(note);
  onStatus.push(() => { note.textContent = st().note || ""; });
  function setValues() {
    for (const f of cfg.spec) {
      const e = inputs[f.name];
      if (!e) continue;
      const v = model.values[f.name];
      if (f.kind === "check") e.checked = !!v;
      else if (f.kind === "multi") for (const b of e) b.checked = (v || []).includes(b.value);
      else if (f.kind === "int") e.value = v === null || v === undefined ? "" : String(v);
      else e.value = v;
    }
  }

  // -- scenario picker (its units are asked for when it is first opened) -------------------------------------
  if (cfg.with_picker) {
    const scen = h("select", { class: "pick-scenario" });
    for (const s of cfg.scenarios) scen.append(h("option", { value: s, text: s }));
    const units = h("select", { class: "pick-units", multiple: "" });
    const status = h("div", { class: "note pick-note" });
    let shown = null;
    onStatus.push(() => {
      const list = st().scenario_units || [];
      const text = JSON.stringify(list);
      if (text !== shown) {       // redrawn only when the list changes (a busy line must not clear a selection)
        shown = text;
        units.replaceChildren(...list.map(([label, uid]) => h("option", { value: uid, text: label })));
      }
      status.textContent = st().pick_note || "";
    });
    const add = (role) => {
      const uids = Array.from(units.selectedOptions).map((o) => o.value);
      if (uids.length) send("pick", { op: "add", role: role, scenario: scen.value, uids: uids });
      for (const o of units.options) o.selected = false;
    };
    on(scen, "change", () => send("pick", { op: "scenario", scenario: scen.value }));
    const det = h("details", { class: "picker-card" }, h("summary", { text: "Pick units from a scenario" }),
      h("div", { class: "row" }, h("label", { class: "fld" }, h("span", { text: "scenario counters" }), scen)),
      h("label", { class: "fld wide" }, h("span", { text: "units" }), units),
      h("div", { class: "row" },
        on(h("button", { type: "button", class: "primary add-picked-att" }, "add as attackers"), "click", () => add("attacker")),
        on(h("button", { type: "button", class: "primary add-picked-def" }, "add as defenders"), "click", () => add("defender"))),
      status);
    on(det, "toggle", () => { if (det.open && !units.options.length) send("pick", { op: "scenario", scenario: scen.value }); });
    col.append(det);
  }

  // -- the two units tables ----------------------------------------------------------------------------------
  const slug = (c) => c.replace(/ /g, "-");
  const tables = [];
  function table(role) {
    const key = role === "attacker" ? "att" : "def";
    const box = h("div", { class: key + "-table" });
    const title = h("div", { class: "units-title", html: "<b>" + (role === "attacker" ? "Attackers" : "Defenders")
                              + "</b> <small>(" + cfg.flags_note + ")</small>" });
    const wrap = h("div", { class: "units-wrap" });
    const tnote = h("div", { class: "note units-note" });
    const addb = on(h("button", { type: "button", class: "add-unit add-" + role }, "+ add " + role), "click",
                    () => send("unit", { op: "add", role: role }));
    function cell(row, i, c) {
      const td = h("td", {});
      td.dataset.field = c;
      if (c === "source") {
        td.textContent = row[c] || "";
        td.title = td.textContent;
        td.className = "src";
        return td;
      }
      let inp;
      if (c === "type") {
        inp = h("select", {});
        for (const t of cfg.types) inp.append(h("option", { value: t, text: t }));
        inp.value = row[c];
      } else {
        inp = h("input", { type: (c === "strength" || c === "move") ? "number" : "text" });
        if (inp.type === "number") inp.step = "1";
        inp.value = row[c] === null || row[c] === undefined ? "" : String(row[c]);
      }
      inp.title = inp.value;
      inp.setAttribute("aria-label", c + " of " + row.id);
      on(inp, "change", () => send("unit", { op: "edit", role: role, row: i, column: c, value: inp.value }));
      td.append(inp);
      return td;
    }
    function draw() {
      const rows = model.rows[key] || [];
      const t = h("table", { class: "units-edit" });
      const cols = h("colgroup", {});
      for (const [c] of cfg.headers) cols.append(h("col", { class: "c-" + slug(c) }));
      cols.append(h("col", { class: "c-remove" }));
      t.append(cols);
      const head = t.createTHead().insertRow();
      for (const [, label] of cfg.headers) head.append(h("th", { text: label }));
      head.append(h("th", {}));
      const body = t.createTBody();
      rows.forEach((row, i) => {
        const tr = body.insertRow();
        tr.className = "unit-row";
        for (const [c] of cfg.headers) tr.append(cell(row, i, c));
        const b = on(h("button", { type: "button", class: "remove-unit", title: "remove " + row.id }, "\u2715"), "click",
                     () => send("unit", { op: "remove", role: role, row: i }));
        tr.append(h("td", {}, b));
      });
      wrap.replaceChildren(t);
      tnote.textContent = model.rows[key + "_note"] || "";
    }
    tables.push(draw);
    draw();
    box.append(title, wrap, tnote, addb);
    return box;
  }
  col.append(table("attacker"), table("defender"));
  col.append(h("details", { class: "options-card" }, h("summary", { text: "Optional rules and details" }),
                group("more", ["check"]), group("more", ["select", "int"])));

  // -- the tables upload -------------------------------------------------------------------------------------
  if (cfg.with_upload) {
    const file = h("input", { type: "file", accept: ".yaml,.yml,.json", "aria-label": "your own tables file" });
    const reset = on(h("button", { type: "button", class: "reset-tables" }, "Use the shipped file"), "click",
                     () => send("upload", { op: "reset" }));
    const status = h("div", { class: "upload-status" });
    const show = (s) => {
      status.className = "upload-status " + (s.kind === "error" ? "upload-error" : s.kind === "ok" ? "upload-ok" : "");
      status.textContent = s.text || "";
      reset.disabled = s.kind !== "ok";
    };
    on(file, "change", () => {
      const f = file.files && file.files[0];
      if (!f) return;
      if (f.size > cfg.max_upload) {
        show({ kind: "error", text: "The file was not loaded (nothing changed): " + f.name + " is larger than "
               + Math.round(cfg.max_upload / 1024) + " kB" });
        file.value = "";
        return;
      }
      const r = new FileReader();
      r.onload = () => {
        const s = String(r.result);
        send("upload", { op: "load", name: f.name, data: s.slice(s.indexOf(",") + 1) });
        file.value = "";
      };
      r.readAsDataURL(f);
    });
    onStatus.push(() => show(st().upload || {}));
    col.append(h("details", { class: "tables-card" }, h("summary", { text: "Tables (load your own file)" }),
                 h("div", { class: "upload" }, h("b", { text: "Your own tables file (CRT, TEC, ...)" }), h("br", {}), file),
                 h("div", { class: "row" }, reset), status));
  }
  root.append(col);

  // -- busy line and odds panel ------------------------------------------------------------------------------
  if (cfg.with_results) {
    const res = h("div", { class: "results-col" });
    const busyText = h("span", { class: "busy-line" });
    const cancel = on(h("button", { type: "button", class: "odds-cancel" }, "cancel"), "click", () => send("cancel", {}));
    const busy = h("div", { class: "odds-busy" }, busyText, cancel);
    const panel = h("div", { class: "odds-panel" });
    onStatus.push(() => {
      const b = !!st().busy;
      busy.dataset.state = b ? "busy" : "idle";
      busyText.innerHTML = b ? "<span class='busy-spin' aria-hidden='true'></span>" : "";
      busyText.append(st().busy_text || "");
      cancel.style.display = b ? "" : "none";
    });
    const showResults = () => { panel.innerHTML = model.results; };
    showResults();
    model.on("results", showResults);
    res.append(busy, panel);
    root.append(res);
  }
  onStatus.push(() => { root.classList.toggle("stacked", st().layout === "stacked"); });
  const showStatus = () => { for (const f of onStatus) f(); };
  showStatus();
  model.on("status", showStatus);
  model.on("values", setValues);
  model.on("rows", () => { for (const d of tables) d(); });
  el.append(root);
}
"""

_HEADERS = [["id", "id"], ["type", "type"], ["strength", "strength"], ["move", "move"], ["flags", "flags"],
            ["retreat hazards", "hazards per hex"], ["source", "source"]]


class PlanView(JSComponent):
    """One plan's inputs and odds in the browser (see the module's text); :func:`plan_view` wires it to a plan.

    Few properties on purpose (each costs the server time per session): ``config`` is set once; ``values``,
    ``rows``, ``results`` and ``status`` go to the browser; everything the browser says comes as ``msg``
    (``{"n", "kind", ...}``) and is dispatched to the handlers given to :meth:`on_msg`."""

    config = param.Dict(default={}, doc="what does not change: FIELDS, table headers, which parts are shown")
    values = param.Dict(default={}, doc="the plan's current input values, by parameter name")
    rows = param.Dict(default={}, doc="{att, def: one dict per unit; att_note, def_note: why an edit was refused}")
    results = param.String(default="", doc="the odds panel (odds_html), replaced in place")
    status = param.Dict(default={}, doc="busy, busy_text, note, layout, compare, upload, scenario_units, pick_note")
    msg = param.Dict(default={}, doc="from the browser: {n, kind, ...}")

    _esm = _JS
    _stylesheets = [_CSS]

    def __init__(self, **params):
        super().__init__(**params)
        self._handlers: dict = {}
        self.param.watch(self._dispatch, ["msg"])

    # (by kind of message: Panel's own ``on_msg(callback)`` is not used on this view)
    def on_msg(self, kind: str, handler: Callable[[dict[str, Any]], None]) -> None:  # type: ignore[override]
        """Call ``handler(msg)`` for each message of ``kind`` from the browser."""
        self._handlers.setdefault(kind, []).append(handler)

    def send(self, kind: str, **payload) -> None:
        """What the browser would send (tests, notebooks)."""
        self.msg = {"n": (self.msg or {}).get("n", 0) + 1, "kind": kind, **payload}

    def _dispatch(self, event) -> None:
        m = event.new or {}
        for handler in self._handlers.get(m.get("kind"), []):
            handler(m)

    def update_status(self, **kw) -> None:
        self.status = {**self.status, **kw}


def _rows(units) -> list[dict]:
    return [{"id": e.uid, "type": e.type, "strength": e.strength, "move": e.movement, "flags": " ".join(e.flags),
             "retreat hazards": e.hazards, "source": e.source} for e in units]


def _values(plan: BattlePlan) -> dict:
    return {f["name"]: (list(v) if isinstance(v := getattr(plan, f["name"]), list) else v) for f in FIELDS}


def coerce(plan: BattlePlan, name: str, value):
    """A value typed in the browser -> the plan parameter's type (ValueError when it does not fit)."""
    p = plan.param[name]
    kind = _NAMES[name]["kind"]
    if kind == "check":
        return bool(value)
    if kind == "multi":
        vals = [str(v) for v in (value or [])]
        bad = [v for v in vals if v not in p.objects]
        if bad:
            raise ValueError(f"{name}: unknown value(s) {', '.join(bad)}")
        return vals
    if kind == "select":
        if value not in p.objects:
            raise ValueError(f"{name}: {str(value)[:40]!r} is not one of {', '.join(map(str, p.objects))}")
        return value
    text = str(value if value is not None else "").strip()
    if text == "":
        if p.allow_None:
            return None
        raise ValueError(f"{_NAMES[name]['label']}: a whole number is needed")
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"{_NAMES[name]['label']}: {text[:20]!r} is not a whole number") from None
    lo, hi = p.bounds or (None, None)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{_NAMES[name]['label']}: {v} is outside {lo}..{hi}")
    return v


def plan_view(plan: BattlePlan, *, with_results: bool = True, with_picker: bool = True, with_upload: bool = True,
              title: str = "", uploader=None, toolbar: bool = False, intro_html: str = "", examples=(),
              layout: str = "side", **kw) -> PlanView:
    """A :class:`PlanView` on ``plan``: inputs -> the plan, the plan's changes and odds -> the view.

    ``uploader``: the plan's :class:`~dashboards.common.uploads.FileLoader` (its checks and
    messages), needed with ``with_upload``; ``toolbar``: the page's example picker, compare and copy buttons
    (messages ``example``, ``compare``, ``copy`` for the page to handle)."""
    if with_results and plan.runner is None:
        plan.runner = Background(budget_s=ODDS_BUDGET_S)
    config = {"spec": FIELDS, "headers": _HEADERS, "types": UNIT_TYPES, "flags_note": FLAGS_NOTE,
              "title_html": f"<h3>{html.escape(title)}</h3>" if title else "", "toolbar": toolbar,
              "intro_html": intro_html, "examples": list(examples), "with_results": with_results,
              "with_picker": with_picker, "scenarios": list(scenario_choices()) if with_picker else [],
              "with_upload": with_upload and uploader is not None, "max_upload": MAX_UPLOAD_BYTES}
    view = PlanView(config=config, values=_values(plan), rows=_all_rows(plan),
                    results=results_html(plan) if with_results else "", status={"layout": layout},
                    sizing_mode="stretch_width", margin=0, **kw)

    # -- plan -> view -----------------------------------------------------------------------------------
    pending: set = set()

    def flush():
        upd = {}
        if pending & set(_NAMES):
            upd["values"] = _values(plan)
        if pending & {"attackers", "defenders"}:
            upd["rows"] = _all_rows(plan)
        pending.clear()
        if upd:
            view.param.update(**upd)

    def plan_changed(*events):
        pending.update(e.name for e in events)
        # changes made together (an example loaded, plan A copied) go to the browser together, when the plan
        # recomputes (its revision, or the busy line of the runner); other changes at once
        if not (with_results and plan._holding):
            flush()

    plan.param.watch(plan_changed, list(_NAMES) + ["attackers", "defenders"])
    if with_results:
        def recomputed(*_):
            flush()
            view.results = results_html(plan)

        plan.param.watch(recomputed, ["revision"])
        runner = plan.runner
        assert runner is not None, "a view with results has its plan's runner (set above)"

        def busy(*_):
            flush()
            view.update_status(busy=runner.busy, busy_text=runner.label)

        runner.param.watch(busy, ["busy", "label"])
        view.on_msg("cancel", lambda _m: runner.cancel())

    # -- view -> plan -----------------------------------------------------------------------------------
    def value_set(m):
        name = m.get("name")
        if name not in _NAMES:
            return
        try:
            setattr(plan, name, coerce(plan, name, m.get("value")))
        except (ValueError, TypeError) as exc:
            view.update_status(note=f"not changed: {exc}")
            view.values = {**_values(plan), "_refused": m.get("n")}   # the browser shows the plan's value again
            return
        if view.status.get("note"):
            view.update_status(note="")

    view.on_msg("set_value", value_set)

    def unit_msg(m):
        role = m.get("role")
        if role not in ("attacker", "defender"):
            return
        units = plan.attackers if role == "attacker" else plan.defenders
        key = "att_note" if role == "attacker" else "def_note"
        op, row = m.get("op"), m.get("row")
        if op == "add":
            plan.add_unit(role)
        elif op == "remove" and isinstance(row, int) and 0 <= row < len(units):
            plan.remove_unit(role, units[row])
        elif op == "edit" and isinstance(row, int) and 0 <= row < len(units) and m.get("column") in EDIT_COLUMNS:
            try:
                apply_edit(plan, units[row], m["column"], m.get("value"))
            except (ValueError, TypeError) as exc:   # redrawn with the plan's values, the reason under the table
                view.rows = {**_all_rows(plan), key: f"not changed: {exc}", "rev": m.get("n")}
                return
            if view.rows.get(key):
                view.rows = {**view.rows, key: ""}

    view.on_msg("unit", unit_msg)

    if with_picker:
        def picked(m):
            scen = m.get("scenario")
            if scen not in scenario_choices():
                return
            try:
                us = scenario_units(scen)
            except Exception as exc:  # noqa: BLE001 - a broken scenario file: say so, keep the page
                view.update_status(pick_note=f"cannot read scenario: {str(exc)[:160]}")
                return
            if m.get("op") == "scenario":
                view.update_status(scenario_units=[[f"{u.name} ({u.side} {u.type} {u.strength}-{u.movement})", uid]
                                                   for uid, u in us.items()], pick_note="")
            elif m.get("op") == "add" and m.get("role") in ("attacker", "defender"):
                role = m["role"]
                with plan.hold():
                    for uid in m.get("uids") or []:
                        u = us.get(uid)
                        if u is None:
                            continue
                        if role == "attacker" and len(plan.attackers) == 0:
                            plan.attacker_side = u.side
                        plan.add_unit(role, entry_from_unitdef(u, plan.edition))

        view.on_msg("pick", picked)

    if with_upload and uploader is not None:
        def status(*_):
            if uploader.error:
                up = {"kind": "error", "text": f"The file was not loaded (nothing changed): {uploader.error}"}
            elif uploader.loaded_name:
                up = {"kind": "ok", "text": f"Using your file {uploader.loaded_name}."}
            else:
                up = {}
            view.update_status(upload=up)

        uploader.param.watch(status, ["error", "loaded_name"])

        def uploaded(m):
            if m.get("op") == "reset":
                uploader._reset()
                return
            name = str(m.get("name") or "upload.yaml")[:120]
            try:
                data = base64.b64decode(str(m.get("data") or ""), validate=True)
            except (binascii.Error, ValueError):
                data = None
            if data is None or len(data) > MAX_UPLOAD_BYTES:
                uploader.error = (f"{name}: cannot read this file" if data is None
                                  else f"{name} is larger than {MAX_UPLOAD_BYTES // 1024} kB")
                status()
                return
            uploader.accept_upload(data, name)
            status()

        view.on_msg("upload", uploaded)
    return view


def _all_rows(plan: BattlePlan) -> dict:
    return {"att": _rows(plan.attackers), "def": _rows(plan.defenders), "att_note": "", "def_note": ""}
