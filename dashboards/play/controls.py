"""The play page's controls in one browser component (issue 28): the legal actions of this page's side,
Do it / Undo / show every action, why the list is empty when it is ("waiting for the Allied player:
reaction phase"), the request waiting (a player's choice as buttons, a die or a card to type in, let the
computer roll, cancel), the dice mode, the seats (a person or a bot per side, for the owner) and the
watch controls of a game of two bots (pause, go on, one step).

Each part is one parameter and is drawn again only when its parameter changes (the board, the odds, the
log and the status line are other parts of the page with their own). A press comes back as a message
naming what it refers to: an action by its key (:func:`action_key`, from the action itself, never a place
in a list that may have changed meanwhile), an answer with the number of answers the request had when it
was shown, so a press on a list or a question that changed under it is refused as stale, not applied to
something else. No rules here: :class:`~dashboards.play.view.GamePlayView` hands every press to the
game model, which asks the engine.
"""
from __future__ import annotations

import hashlib
import json
from functools import partial
from typing import Callable

import panel as pn
import param
from panel.custom import JSComponent
from panel.io.state import set_curdoc

__all__ = ["GameControls", "action_key", "on_next_tick"]


def on_next_tick(component, fn) -> None:
    """Run ``fn`` on the next tick of the document ``component`` is shown in, with that document's lock
    held (a browser's message may arrive where Panel runs it without the lock, e.g. under
    ``--num-procs``: a change of the page there is refused by Bokeh); at once outside a server."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        docs = [m.document for m, _ in getattr(component, "_models", {}).values()
                if getattr(m, "document", None) is not None]
        doc = docs[0] if docs else None
    if doc is None or doc.session_context is None:
        fn()
        return
    with set_curdoc(doc):
        pn.state.execute(fn, schedule=True)


def action_key(action_json) -> str:
    """A short key naming one action (the same action, the same key, whatever list it is in)."""
    text = json.dumps(action_json, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=9).hexdigest()


_ESM = r"""
const el_ = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text; return e; };
const button = (cls, text, fn, primary) => { const s = el_("span", cls), b = el_("button", primary ? "primary" : "", text);
  b.type = "button"; b.addEventListener("click", fn); s.appendChild(b); return s; };

export function render({ model, el }) {
  const root = el_("div", "play-controls-box");
  const dice = el_("div", "dice-mode"); dice.setAttribute("role", "radiogroup"); dice.setAttribute("aria-label", "dice");
  const diceB = [["computer", "computer rolls"], ["typed", "I type the dice in"]].map(([v, t]) => {
    const b = el_("button", "", t); b.type = "button"; b.dataset.value = v; dice.appendChild(b);
    b.addEventListener("click", () => model.send_msg({op: "dice", mode: v})); return b; });
  const seats = el_("div", "seats"), watch = el_("div", "watch");
  const pending = el_("div", "pending");
  const acts = el_("div", "play-controls");
  const listBox = el_("div", "action-list"), list = el_("select"); list.size = 12;
  // a long list: grouped by the unit each action moves or fights with, and narrowed by what is typed here
  const narrow = el_("label", "action-filter"), filter = el_("input"), shownN = el_("span", "filter-count");
  filter.type = "search"; filter.placeholder = "a unit, a hex, a word (fire, move…)";
  narrow.append("narrow the list: ", filter, shownN); listBox.append(narrow, list);
  const waiting = el_("div", "waiting");
  const row = el_("div", "control-row");
  const doB = button("do-action", "Do it", () => model.send_msg({op: "do", key: list.value || ""}), true);
  const undoB = button("undo", "Undo", () => model.send_msg({op: "undo"}));
  const clearB = button("clear-pick", "show every action", () => model.send_msg({op: "clear"}));
  const undoNote = el_("div", "undo-policy");
  row.append(doB, undoB, clearB); acts.append(listBox, waiting, row, undoNote);
  root.append(dice, seats, watch, pending, acts); el.appendChild(root);

  list.addEventListener("change", () => { model.selected = list.value || ""; });

  const same = {};                 // what each part last drew: a part sent again unchanged is left as it is
  const changed = (name, value) => { const s = JSON.stringify(value || null); if (same[name] === s) return false;
    same[name] = s; return true; };
  const LONG = 12;                 // a list longer than this is grouped and may be narrowed
  const applyFilter = () => {
    const said = filter.value.trim().toLowerCase().replace(/\s+/g, " ");    // what is typed, as one phrase
    const words = said ? [said] : [];
    let n = 0;
    for (const o of list.querySelectorAll("option")) {
      const text = (o.textContent + " | " + (o.dataset.group || "")).toLowerCase().replace(/\s+/g, " ");
      const on = !said || text.includes(said); o.hidden = !on; if (on) n += 1;
    }
    for (const g of list.querySelectorAll("optgroup")) g.hidden = ![...g.children].some((o) => !o.hidden);
    const all = (model.items || []).length;
    shownN.textContent = words.length ? ` ${n} of ${all}` : ` ${all} actions`;
    listBox.dataset.shown = String(words.length ? n : all);
  };
  filter.addEventListener("input", applyFilter);
  const drawItems = () => {
    const keep = model.selected;
    const items = model.items || [];
    if (!changed("items", items)) return;
    const option = ([k, label, attack, group]) => {
      const o = el_("option", attack ? "attack" : "", label); o.value = k; o.dataset.group = group || ""; return o; };
    const groups = new Map();
    for (const it of items) { const g = it[3] || ""; if (!groups.has(g)) groups.set(g, []); groups.get(g).push(it); }
    const grouped = items.length > LONG && groups.size > 1;
    list.replaceChildren(...(grouped ? [...groups].map(([g, its]) => {
      const og = el_("optgroup"); og.label = g || "other actions"; og.append(...its.map(option)); return og; })
      : items.map(option)));
    if (keep && items.some((x) => x[0] === keep)) list.value = keep; else list.selectedIndex = -1;
    listBox.dataset.count = String(items.length);
    listBox.dataset.grouped = grouped ? "yes" : "no";
    narrow.hidden = items.length <= LONG;
    if (items.length <= LONG) filter.value = "";
    applyFilter();
    listBox.hidden = !items.length && !!model.waiting;
  };
  const drawSelected = () => { if ((list.value || "") !== (model.selected || "")) list.value = model.selected || ""; };
  const drawWaiting = () => {
    waiting.textContent = model.waiting || ""; waiting.hidden = !model.waiting;
    waiting.dataset.state = model.waiting ? "waiting" : "none";
    listBox.hidden = !(model.items || []).length && !!model.waiting;
  };
  const drawFlags = () => {
    const f = model.flags || {};
    acts.hidden = !f.play;
    doB.querySelector("button").disabled = !f.play;
    undoB.querySelector("button").disabled = !f.undo;
    undoNote.textContent = f.undo_note || "";
    for (const b of diceB) {
      const on = b.dataset.value === (f.dice || "computer");
      b.classList.toggle("active", on); b.setAttribute("aria-pressed", on ? "true" : "false");
    }
    dice.hidden = !f.play;
  };
  const drawPending = () => {
    const p = model.pending || {};
    if (!changed("pending", p)) return;
    pending.replaceChildren();
    if (!p.rule && !p.text) { pending.dataset.state = "none"; return; }
    pending.dataset.state = p.mine ? "yours" : "theirs";
    const head = el_("div", "pending-request", "Waiting: " + (p.text || ""));
    head.dataset.rule = p.rule || ""; head.dataset.answered = String(p.answered || 0); head.dataset.kind = p.kind || "";
    pending.appendChild(head);
    if (!p.mine) return;
    const n = p.answered || 0;
    if (p.options) {
      const box = el_("div", "choices");
      p.options.forEach(([i, label]) => {
        box.appendChild(button("choice", label, () => model.send_msg({op: "answer", index: i, answered: n})));
      });
      pending.appendChild(box);
    }
    if (p.faces) {
      const r = el_("div", "typed-row");
      const die = el_("span", "typed-die"), lab = el_("label", "", p.face_label || "the die shows "), sel = el_("select");
      p.faces.forEach(([i, label]) => { const o = el_("option", "", label); o.value = String(i); sel.appendChild(o); });
      lab.appendChild(sel); die.appendChild(lab); r.appendChild(die);
      r.appendChild(button("enter-die", "enter", () => model.send_msg({op: "die", index: +sel.value, answered: n}), true));
      r.appendChild(button("roll-for-me", "let the computer roll", () => model.send_msg({op: "roll", answered: n})));
      if (p.can_cancel) r.appendChild(button("cancel-action", "cancel the action", () => model.send_msg({op: "cancel"})));
      pending.appendChild(r);
    } else if (p.can_cancel) {
      pending.appendChild(button("cancel-action", "cancel the action", () => model.send_msg({op: "cancel"})));
    }
  };
  const drawSeats = () => {
    const s = model.seats || {};
    if (!changed("seats", s)) return;
    seats.replaceChildren();
    if (!(s.sides || []).length) { seats.hidden = true; return; }
    seats.hidden = false;
    seats.appendChild(el_("span", "seats-title", "Seats: "));
    for (const [side, bot, label] of s.sides) {
      const l = el_("label", "seat"); l.dataset.side = side; l.dataset.bot = bot || "";
      if (s.owner) {
        const sel = el_("select");
        for (const [v, t] of [["", "a person (by link)"], ...(s.bots || []).map((b) => [b, b + " bot"])]) {
          const o = el_("option", "", t); o.value = v; sel.appendChild(o); }
        sel.value = bot || "";
        sel.addEventListener("change", () => model.send_msg({op: "seat", side: side, bot: sel.value}));
        l.append(label + " ", sel);
      } else {
        l.textContent = label + ": " + (bot ? bot + " bot" : "a person");
      }
      seats.appendChild(l);
    }
    if (s.thinking) seats.appendChild(el_("span", "thinking", s.thinking));
  };
  const drawWatch = () => {
    const w = model.watch || {};
    if (!changed("watch", w)) return;
    watch.replaceChildren(); watch.hidden = !w.on;
    if (!w.on) return;
    watch.dataset.state = w.paused ? "paused" : "running";
    watch.appendChild(el_("span", "watch-title", w.paused ? "Watching two bots (paused): " : "Watching two bots: "));
    if (w.owner) {
      if (w.paused) {
        watch.appendChild(button("watch-go", "go on", () => model.send_msg({op: "resume"}), true));
        watch.appendChild(button("watch-step", "one step", () => model.send_msg({op: "step"})));
      } else {
        watch.appendChild(button("watch-pause", "pause", () => model.send_msg({op: "pause"})));
      }
    }
  };
  model.on("items", drawItems); model.on("selected", drawSelected); model.on("waiting", drawWaiting);
  model.on("flags", drawFlags); model.on("pending", drawPending); model.on("seats", drawSeats);
  model.on("watch", drawWatch);
  drawItems(); drawWaiting(); drawFlags(); drawPending(); drawSeats(); drawWatch();
}
"""

_CSS = """
:host {display:block}
.play-controls-box {font-size:14px}
button {font-size:13px;padding:4px 12px;border:1px solid #b0bec5;border-radius:4px;background:#f5f7f9;cursor:pointer;
  white-space:nowrap;margin:2px 4px 2px 0}
button.primary {background:#2e7d32;border-color:#2e7d32;color:#fff}
button:disabled {opacity:.5;cursor:default}
.action-list select {width:100%;max-width:520px;font-size:13px}
.action-list option.attack {font-weight:600}
.action-list optgroup {font-style:normal;font-weight:600;color:#37474f}
.action-list optgroup option {font-weight:400;color:#1b1b1b}
.action-filter {display:flex;align-items:center;gap:4px;font-size:12px;color:#37474f;margin:2px 0;max-width:520px}
.action-filter input {flex:1;font-size:13px;padding:3px 6px;min-width:0}
.filter-count {white-space:nowrap;color:#607d8b}
.action-filter[hidden] {display:none}
.waiting {color:#37474f;font-style:italic;margin:6px 0;padding:6px 8px;background:#f3f6f9;border-radius:4px}
.undo-policy {font-size:11px;color:#607d8b;margin:2px 0 6px 0;max-width:520px}
.dice-mode {display:flex;margin:4px 0}
.dice-mode button {border-radius:0;margin:0}
.dice-mode button:first-child {border-radius:4px 0 0 4px}
.dice-mode button:last-child {border-radius:0 4px 4px 0;margin-left:-1px}
.dice-mode button.active {background:#1565c0;border-color:#1565c0;color:#fff}
.pending-request {font-weight:600;color:#6a1b9a;margin:6px 0}
.pending[data-state='theirs'] .pending-request {color:#546e7a;font-weight:400}
.choices {display:flex;flex-wrap:wrap}
.typed-row {display:flex;flex-wrap:wrap;align-items:center;gap:4px}
.seats, .watch {display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;font-size:13px;margin:4px 0}
.seats select {font-size:13px}
.seats .thinking {color:#6a1b9a;font-style:italic}
"""


class GameControls(JSComponent):
    """See the module's docstring. ``on_press(msg)`` receives every press (set by the view)."""

    items = param.List(default=[], doc="[key, label, is an attack, group] of each action listed (group: the "
                                       "unit it moves or fights with, in a player's words; '' none)")
    selected = param.String(default="", doc="the key of the action selected in the list")
    waiting = param.String(default="", doc="why this page has no action to make now ('' when it has)")
    flags = param.Dict(default={}, doc="play (the list is shown), undo, undo_note, dice")
    pending = param.Dict(default={}, doc="the request waiting: rule, kind, answered, text, mine, options or faces")
    seats = param.Dict(default={}, doc="sides [[side, bot, label]], bots, owner, thinking")
    watch = param.Dict(default={}, doc="on, paused, owner: a game of two bots")

    _esm = _ESM
    _stylesheets = [_CSS]

    def __init__(self, **params):
        super().__init__(**params)
        self.on_press: Callable[[dict], None] | None = None

    def _handle_msg(self, data) -> None:
        on_next_tick(self, partial(self.press, data))

    def press(self, msg: dict) -> None:
        """One press in the browser (also what a test or a notebook calls)."""
        if isinstance(msg, dict) and self.on_press is not None:
            self.on_press(msg)
