"""The play page's head in one browser component (issue 17.1): the page's introduction, the new-game form
(game, scenario, optional rules, who plays each side: a person or a bot, seed, start; import a record,
download the record), the dice mode before a game starts, the status line and the refusal line, whose move
it is in the tab's title ("Your move — Fuentes, turn 4") with an opt-in browser notification when it
becomes this player's move, and the bridge that keeps the browser's game keys in its cookie (an HttpOnly
cookie set by the server: :mod:`dashboards.server.access`) and the open game's link in its address bar.

About a tenth of the server time of the Panel widgets it replaces (one model pair in place of about twenty):
the controls are the browser's own (``<select>``, ``<input>``, ``<button>``); a pick of game system and of
dice mode come back as this component's parameters, a press as a message with the form's values, and
:class:`dashboards.play.view.GamePlayView` handles them. No
rules here either: the view passes every value to the game model, which checks it.
"""
from __future__ import annotations

import base64
import json
from functools import partial
from typing import Any, Sequence

import param
from panel.custom import JSComponent

from dashboards.play.controls import on_next_tick
from dashboards.play.layout import TOUCH_CSS
from engine.core.tables import MAX_TABLES_BYTES
from dashboards.server.access import KEYS_ROUTE

__all__ = ["PlayHead", "decode_upload", "decode_tables"]

MAX_UPLOAD = 2_000_000

_ESM = r"""
const el_ = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text; return e; };

export function render({ model, el }) {
  const root = el_("div", "play-head");
  const intro = el_("div", "play-intro");
  const setup = el_("details", "new-game");
  const summary = el_("summary", "new-game-title", "New game, import, download");
  const row1 = el_("div", "ng-row"), row2 = el_("div", "ng-row");
  const sysLabel = el_("label", "system-select", "game "), sys = el_("select");
  const scenLabel = el_("label", "scenario-select", "scenario "), scen = el_("select");
  const variants = el_("fieldset", "variants"), legend = el_("legend", "", "optional rules and variants");
  const seatBox = el_("fieldset", "seat-choice"), seatLegend = el_("legend", "", "who plays each side");
  const seedLabel = el_("label", "seed-input", "seed (blank = random) "), seed = el_("input");
  seed.type = "text"; seed.inputMode = "numeric"; seed.size = 10; seed.placeholder = "random";
  const start = el_("span", "start-game"), startB = el_("button", "primary", "Start a new game");
  startB.type = "button";
  const impLabel = el_("label", "import-record", "import a record "), file = el_("input");
  file.type = "file"; file.accept = ".json";
  // your printed charts: a tables file saved on the Charts page, sent with the start (never a path: its bytes)
  const tabLabel = el_("label", "tables-file", "your printed charts (a file from the Charts page) "), tabFile = el_("input");
  tabFile.type = "file"; tabFile.accept = ".yaml,.yml,.json";
  const tabNote = el_("span", "tables-note");
  let tablesPick = null;
  const down = el_("span", "download-record"), downB = el_("button", "", "download the record (JSON)");
  downB.type = "button";
  const dice = el_("div", "dice-mode"); dice.setAttribute("role", "radiogroup"); dice.setAttribute("aria-label", "dice");
  const diceB = [["computer", "computer rolls"], ["typed", "I type the dice in"]].map(([v, t]) => {
    const b = el_("button", "", t); b.type = "button"; b.dataset.value = v; dice.appendChild(b);
    b.addEventListener("click", () => { model.dice = v; }); return b; });
  const status = el_("div", "status-line"), refusal = el_("div", "refusal-box");
  const notify = el_("div", "notify-box"), notifyB = el_("button", "notify-me", "tell me when it is my move");
  notifyB.type = "button"; const notifyNote = el_("span", "notify-note"); notify.append(notifyB, notifyNote);
  sysLabel.appendChild(sys); scenLabel.appendChild(scen); seedLabel.appendChild(seed); start.appendChild(startB);
  impLabel.appendChild(file); down.appendChild(downB); variants.appendChild(legend); tabLabel.append(tabFile, tabNote);
  row1.append(sysLabel, scenLabel, variants, seatBox, seedLabel, tabLabel, start); row2.append(impLabel, down);
  setup.append(summary, row1, row2);
  root.append(intro, setup, dice, status, notify, refusal); el.appendChild(root);

  const options = (select, pairs, value) => {
    select.replaceChildren(...(pairs || []).map(([v, t]) => { const o = el_("option", "", t); o.value = v; return o; }));
    select.value = value;
  };
  let ch = {};
  const choices = () => {          // the systems, the picked system's scenarios and optional rules
    try { ch = JSON.parse(model.choices || "{}"); } catch (e) { ch = {}; }
    options(sys, ch.systems, model.system); options(scen, ch.scenarios, ch.scenario);
    variants.replaceChildren(legend);
    for (const [v, rule, label, only] of ch.variants || []) {   // only: the scenarios it is for (none: all)
      const l = el_("label", "variant"), c = el_("input"); c.type = "checkbox"; c.value = v;
      if (rule) l.title = rule;
      if (only) l.dataset.only = JSON.stringify(only);
      l.append(c, " " + (label || v)); variants.appendChild(l);
    }
    forScenario();
    seatBox.replaceChildren(seatLegend);
    for (const [side, label] of ch.sides || []) {
      const l = el_("label", "seat-pick"), s = el_("select"); s.dataset.side = side;
      for (const [v, t] of [["", "a person"], ...(ch.bots || []).map((b) => [b, b + " bot"])]) {
        const o = el_("option", "", t); o.value = v; s.appendChild(o); }
      l.append(label + " ", s); seatBox.appendChild(l);
    }
    seatBox.hidden = !(ch.sides || []).length;
  };
  // the form folds away once a game is shown (the server says so) and opens again from its title; a fold or
  // an opening by the player goes back to the server, so the next game's start folds it again
  const fold = () => { if (setup.open !== !!model.form_open) setup.open = !!model.form_open;
                       root.dataset.form = model.form_open ? "open" : "folded"; };
  setup.addEventListener("toggle", () => { if (!!model.form_open !== setup.open) model.form_open = setup.open;
                                           root.dataset.form = setup.open ? "open" : "folded"; });
  const forScenario = () => {      // an optional rule another scenario's only is not offered
    let shown = 0;
    for (const l of variants.querySelectorAll("label.variant")) {
      const only = l.dataset.only ? JSON.parse(l.dataset.only) : null, off = !!only && !only.includes(scen.value);
      l.hidden = off; if (off) l.querySelector("input").checked = false; else shown += 1;
    }
    variants.hidden = !shown;
  };
  scen.addEventListener("change", forScenario);
  const chosen = () => [...variants.querySelectorAll("input:checked")].map((x) => x.value);
  const seats = () => { const out = {}; for (const s of seatBox.querySelectorAll("select")) if (s.value) out[s.dataset.side] = s.value; return out; };
  // whose move: the tab's title, and a notification when it becomes this player's move (opt-in)
  let wasMine = null;
  const canNotify = () => "Notification" in window;
  const notifyState = () => {
    if (!canNotify()) { notifyB.hidden = true; notifyNote.textContent = "this browser cannot show notifications"; return; }
    const perm = Notification.permission;
    notifyB.hidden = perm !== "default";
    notify.dataset.permission = perm;
    notifyNote.textContent = perm === "granted" ? "you will be told when it is your move" :
      perm === "denied" ? "notifications are blocked for this site in this browser; the tab's title still says when it is your move" : "";
  };
  notifyB.addEventListener("click", () => {
    if (!canNotify()) return;
    try {
      const asked = Notification.requestPermission(notifyState);
      if (asked && asked.then) asked.then(notifyState, notifyState);
    } catch (e) { notifyState(); }
  });
  const turn = () => {
    const t = model.turn || {};
    if (t.title) document.title = t.title;
    notify.hidden = !t.title;
    notify.dataset.mine = t.mine ? "yes" : "no";
    if (t.mine && wasMine === false && canNotify() && Notification.permission === "granted") {
      try { const n = new Notification(t.title, {body: t.text || "", tag: "vedette-turn"}); setTimeout(() => n.close(), 15000); }
      catch (e) { /* a browser that shows none from a page: the title says it */ }
    }
    if (t.title) wasMine = !!t.mine;
  };
  // when this page first showed each number of actions (the load script and the benchmarks read it)
  const seen = window.__vedette_events_seen = window.__vedette_events_seen || [];
  const show = () => {
    intro.innerHTML = model.intro || ""; intro.hidden = !model.intro;
    status.innerHTML = model.status || ""; refusal.innerHTML = model.refusal || "";
    const m = /data-events='(\d+)'/.exec(model.status || "");
    if (m && (!seen.length || seen[seen.length - 1][1] !== +m[1])) {
      seen.push([performance.timeOrigin + performance.now(), +m[1]]);
      if (seen.length > 200) seen.shift();
    }
    downB.disabled = !model.can_download;
    for (const b of diceB) {
      const on = b.dataset.value === model.dice;
      b.classList.toggle("active", on); b.setAttribute("aria-pressed", on ? "true" : "false");
    }
    if (model.show_dice && !dice.isConnected) root.insertBefore(dice, status);
    if (!model.show_dice && dice.isConnected) dice.remove();
  };
  let posted = "";
  const keys = () => {   // the server keeps the game keys in an HttpOnly cookie (a signed grant of this game's
    const v = model.keys || "", i = v.indexOf("|");   // keys is posted for it); the open game's link shows
    const g = i < 0 ? v : v.slice(0, i), url = i < 0 ? "" : v.slice(i + 1);
    if (g && g !== posted) { posted = g; fetch("KEYS_ROUTE", {method: "POST", body: g, credentials: "same-origin"}); }
    if (url && url !== window.location.pathname + window.location.search) window.history.replaceState(null, "", url);
  };
  sys.addEventListener("change", () => { model.system = sys.value; });
  startB.addEventListener("click", () => {
    model.send_msg({action: "start", scenario: scen.value, chosen: chosen(), seed: seed.value, dice: model.dice,
                    seats: seats(), tables: tablesPick}); });
  tabFile.addEventListener("change", () => {
    const f = tabFile.files && tabFile.files[0];
    tablesPick = null; tabNote.textContent = "";
    if (!f) return;
    if (f.size > MAX_TABLES) { tablesPick = {name: f.name, size: f.size, data: ""}; tabNote.textContent = f.name; return; }
    const reader = new FileReader();
    reader.onload = () => {
      const bytes = new Uint8Array(reader.result);
      let bin = "";
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      tablesPick = {name: f.name, size: f.size, data: btoa(bin)};
      tabNote.textContent = f.name; tabNote.dataset.file = f.name;
    };
    reader.readAsArrayBuffer(f);
  });
  let uploads = 0;
  file.addEventListener("change", () => {
    const f = file.files && file.files[0];
    if (!f) return;
    uploads += 1;
    const n = uploads;
    if (f.size > MAX_UPLOAD) { model.send_msg({action: "upload", n, size: f.size, data: ""}); file.value = ""; return; }
    const reader = new FileReader();
    reader.onload = () => {
      const bytes = new Uint8Array(reader.result);
      let bin = "";
      for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      model.send_msg({action: "upload", n, size: f.size, data: btoa(bin)});
      file.value = "";
    };
    reader.readAsArrayBuffer(f);
  });
  downB.addEventListener("click", () => { model.send_msg({action: "download"}); });
  model.on("msg:custom", (r) => {   // the record asked for: saved as a file by the browser
    if (!r || !r.record) return;
    const a = el_("a"); a.download = "game.json";
    a.href = URL.createObjectURL(new Blob([r.record], {type: "application/json"}));
    root.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  });
  model.on("choices", choices);
  model.on("form_open", fold);
  model.on("system", () => { sys.value = model.system; });
  for (const p of ["intro", "status", "refusal", "dice", "show_dice", "can_download"]) model.on(p, show);
  model.on("keys", keys);
  model.on("turn", turn);
  choices(); fold(); show(); keys(); notifyState(); turn();
}
""".replace("KEYS_ROUTE", KEYS_ROUTE).replace("MAX_UPLOAD", str(MAX_UPLOAD)).replace("MAX_TABLES", str(MAX_TABLES_BYTES))

_CSS = """
:host {display:block}
.play-head {font-size:14px}
.play-intro p {margin:0 0 6px 0}
.new-game {border:1px solid #d0d7de;border-radius:4px;padding:4px 10px;margin:4px 0 8px 0;background:#fafbfc}
.new-game > summary {cursor:pointer;font-weight:600;padding:2px 0}
.ng-row {display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-end;margin:6px 0}
.ng-row label {display:flex;flex-direction:column;gap:2px;font-size:12px;color:#37474f}
.ng-row select, .ng-row input[type=text] {font-size:13px;padding:3px 4px;max-width:330px}
.variants {border:1px solid #e0e0e0;border-radius:3px;margin:0;padding:2px 8px;display:flex;flex-wrap:wrap;gap:2px 12px;
  max-width:100%}
.variants legend {font-size:12px;color:#37474f}
.variants label.variant[hidden] {display:none}
.variants label.variant {flex-direction:row;align-items:center;gap:4px;font-size:13px;color:#1b1b1b}
button {font-size:13px;padding:4px 12px;border:1px solid #b0bec5;border-radius:4px;background:#f5f7f9;cursor:pointer;
  white-space:nowrap}
button.primary {background:#1565c0;border-color:#1565c0;color:#fff}
button:disabled {opacity:.5;cursor:default}
.dice-mode {display:flex;margin:4px 0}
.dice-mode button {border-radius:0}
.dice-mode button:first-child {border-radius:4px 0 0 4px}
.dice-mode button:last-child {border-radius:0 4px 4px 0;margin-left:-1px}
.dice-mode button.active {background:#1565c0;border-color:#1565c0;color:#fff}
.status-line {font-size:14px;font-weight:600;color:#2f4f6f;margin:4px 0}
.status-line .message {font-weight:400;color:#37474f}
.refusal {color:#b71c1c;font-weight:600}
.seat-choice {border:1px solid #e0e0e0;border-radius:3px;margin:0;padding:2px 8px;display:flex;flex-wrap:wrap;gap:2px 12px}
.seat-choice legend {font-size:12px;color:#37474f}
.seat-choice label.seat-pick {flex-direction:row;align-items:center;gap:4px;font-size:13px;color:#1b1b1b}
.notify-box {font-size:12px;color:#546e7a;margin:2px 0}
.notify-box button {font-size:12px;padding:2px 8px}
@media (max-width: 700px) {.play-head[data-form='folded'] .play-intro {display:none}}
""" + TOUCH_CSS


class PlayHead(JSComponent):
    """The play page's head (see the module's docstring). What the browser asks for comes as messages to
    :meth:`act` (``{"action": "start", "scenario", "chosen", "seed", "dice"}``, ``{"action": "upload", "size",
    "data"}`` with the file's bytes in base64, ``{"action": "download"}``), answered by ``on_action``; the
    record asked for goes back as a message (:meth:`send_record`). Few parameters: each costs a session."""

    intro = param.String(default="", doc="HTML above the form")
    system = param.String(default="")
    choices = param.String(default="", doc="JSON: systems and the system's scenarios, optional rules, sides, bots")
    dice = param.Selector(default="computer", objects=["computer", "typed"])
    form_open = param.Boolean(default=True, doc="the new-game form open (folded once a game is shown; the "
                                                "player opens it again from its title)")
    show_dice = param.Boolean(default=True, doc="the dice mode here (before a game; beside the actions after)")
    can_download = param.Boolean(default=False)
    status = param.String(default="", doc="HTML of the status line")
    refusal = param.String(default="", doc="HTML of the refusal line")
    keys = param.String(default="", doc="the browser's game keys and the open game's link ('keys|url')")
    turn = param.Dict(default={}, doc="whose move: title (the tab's), text, mine (this page's move)")

    _esm = _ESM
    _stylesheets = [_CSS]

    def __init__(self, **params):
        super().__init__(**params)
        self.on_action = None

    def set_choices(self, systems: list, scenarios: list, scenario: str, variants: list, open_: bool,
                    sides: Sequence[Any] = (), bots: Sequence[Any] = ()) -> None:
        self.param.update(choices=json.dumps({"systems": systems, "scenarios": scenarios, "scenario": scenario,
                                              "variants": variants, "sides": list(sides), "bots": list(bots)},
                                             ensure_ascii=False), form_open=bool(open_))

    def _handle_msg(self, data) -> None:
        # on the document's next tick, with its lock: Panel may hand a browser's message over without it (a
        # message that comes while a change from the browser is still pending, e.g. a press right after the
        # page loaded; any message under --num-threads), and the board's figure refuses a change made so
        # ('_pending_writes should be non-None'): the new game was made but never drawn
        on_next_tick(self, partial(self.act, data))

    def act(self, msg: dict) -> None:
        """One request of the browser (also what a test or a notebook calls for a press)."""
        if isinstance(msg, dict) and self.on_action is not None:
            self.on_action(msg)

    def send_record(self, text: str) -> None:
        self._send_msg({"record": text})


def decode_tables(pick: dict) -> tuple[bytes, str]:
    """The bytes and the file's name (no folder) of the tables file sent with a start; ValueError when it is
    larger than the tables' limit or did not arrive whole."""
    name = str(pick.get("name") or "tables.yaml").replace("\\", "/").rsplit("/", 1)[-1][:120] or "tables.yaml"
    raw = str(pick.get("data") or "")
    if int(pick.get("size", 0) or 0) > MAX_TABLES_BYTES or len(raw) > (MAX_TABLES_BYTES * 4) // 3 + 8:
        raise ValueError(f"{name}: larger than {MAX_TABLES_BYTES // 1024} KiB, the most a tables file may be")
    try:
        return base64.b64decode(raw, validate=True), name
    except (ValueError, TypeError):
        raise ValueError(f"{name}: the file did not arrive whole") from None


def decode_upload(msg: dict) -> bytes:
    """The bytes of a file chosen in the head (an ``upload`` message); ValueError when it is not one, or
    larger than 2 MB."""
    if int(msg.get("size", 0)) > MAX_UPLOAD:
        raise ValueError("the record is larger than 2 MB")
    data = base64.b64decode(msg.get("data") or "", validate=True)
    if len(data) > MAX_UPLOAD:
        raise ValueError("the record is larger than 2 MB")
    return data
