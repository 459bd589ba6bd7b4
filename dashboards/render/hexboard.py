"""A live hex map drawn in the browser as SVG: one Panel model per session instead of a Bokeh figure.

Why: a Bokeh figure costs a session about 200 ms of server CPU (issue 17.1: an empty figure alone is
about 48 ms; the map page's was some 60 models). This board is one :class:`HexBoardView` model. What is the
same for every session of a map (the terrain hexes with their hover titles, hexside features, roads, LOC,
objective and garrison marks, hex numbers and names: the :func:`~dashboards.render.hexmap.static_layers`
of the same :class:`~dashboards.render.hexmap.MapSpec` the Bokeh figure draws) is made once per map, as
one JSON text that every session's model shares (:func:`board_geometry`). What changes (counters, highlighted
hexes with their text, paths) goes to the browser as small lists (``layers``), never the geometry again.

In the browser: the wheel zooms about the pointer, a drag pans, *reset* gives back the whole map (all by
the SVG's viewBox, so nothing goes to the server); hovering a hex, a highlight or a counter shows its title;
a click (a press and release that did not drag) sends the hex under it back as ``click`` (``{"n": count,
"hex": label}``, ``hex`` empty off the map; ``n`` so that two clicks on one hex are two events); a click on
a legend entry hides or shows that kind of line or mark. Every element that stands for a hex carries
``data-hex``, every counter ``data-unit``, so a browser test clicks a hex by its label.

Drawing only: what a click means is the page's business (:class:`~dashboards.calculators.n20.map_view.GameMapView`).
"""
from __future__ import annotations

import json
from html import escape
from typing import Callable, Iterable

import param
from panel.custom import JSComponent

from dashboards.render.hexmap import SIDE_COLOURS, Counter, MapSpec, Marked, static_layers
from dashboards.common.provenance import STYLESHEET as BADGE_CSS

__all__ = ["HexBoard", "HexBoardView", "board_geometry", "counter_rows", "SCALE"]

#: SVG units per unit of the hex grid (a hex's radius)
SCALE = 20.0


def _n(v: float) -> str:
    """An SVG coordinate: grid units to SVG units, one decimal (the map's y grows downwards in SVG)."""
    return f"{v * SCALE:.1f}".rstrip("0").rstrip(".")


def _marker(kind: str, x: float, y: float, colour: str, what: str) -> str:
    """LOC (triangle), objective (star), garrison (square on a pin) at spec position (x, y)."""
    sx, sy = x * SCALE, -y * SCALE
    if kind == "triangle":
        pts = [(sx, sy - 6), (sx + 6, sy + 5), (sx - 6, sy + 5)]
    elif kind == "star":
        import math
        pts = [(sx + (8 if i % 2 == 0 else 3.4) * math.sin(i * math.pi / 5),
                sy - (8 if i % 2 == 0 else 3.4) * math.cos(i * math.pi / 5)) for i in range(10)]
    else:
        pts = [(sx - 5, sy - 7), (sx + 5, sy - 7), (sx + 5, sy + 2), (sx, sy + 7), (sx - 5, sy + 2)]
    p = " ".join(f"{a:.1f},{b:.1f}" for a, b in pts)
    return f"<polygon points='{p}' fill='{colour}' stroke='#000' stroke-width='1' data-feature='{what}'/>"


def _geometry(spec: MapSpec) -> dict:
    st = static_layers(spec)
    ter = st["terrain"]
    under, over = [], []
    # one polygon a hex, its hover title the same text as the Bokeh figure's tooltip
    for h, colour, tip in zip(ter["hex"], ter["colour"], ter["tip"]):
        pts = " ".join(f"{_n(x)},{_n(-y)}" for x, y in spec.corners(h))
        under.append(f"<polygon class='hx' data-hex='{h}' points='{pts}' fill='{colour}'><title>{escape(tip)}</title>"
                     "</polygon>")
    lines = st["lines"]
    dash = {"dashed": " stroke-dasharray='6 4'", "dotted": " stroke-dasharray='2 4'"}
    for i in range(len(lines["x0"])):
        under.append(f"<line x1='{_n(lines['x0'][i])}' y1='{_n(-lines['y0'][i])}' x2='{_n(lines['x1'][i])}' "
                     f"y2='{_n(-lines['y1'][i])}' stroke='{lines['colour'][i]}' "
                     f"stroke-width='{float(lines['width'][i]):g}'{dash.get(lines['dash'][i], '')} "
                     f"data-feature='{lines['feature'][i]}'/>")
    marks = st["marks"]
    for x, y, kind, colour, what in zip(marks["x"], marks["y"], marks["marker"], marks["colour"], marks["what"]):
        over.append(_marker(kind, x, y, colour, what))
    lab = st["labels"]
    for x, y, text, size, colour, style in zip(lab["x"], lab["y"], lab["text"], lab["size"], lab["colour"], lab["style"]):
        cls = "nm" if style == "italic" else "no"
        over.append(f"<text class='{cls}' x='{_n(x)}' y='{_n(-y)}'>{escape(text)}</text>")
    # the legend: one entry a kind of line or mark the map has (in the order the figure's legend had)
    legend, seen = [], set()
    for feature, colour, width, d in zip(lines["feature"], lines["colour"], lines["width"], lines["dash"]):
        if feature not in seen:
            seen.add(feature)
            legend.append([feature, colour, float(width), d, "line"])
    for what, colour, kind in zip(marks["what"], marks["colour"], marks["marker"]):
        if what not in seen:
            seen.add(what)
            legend.append([what, colour, 0, "", kind])
    x0, y0, x1, y1 = st["extent"]
    centres = {h: [round(x * SCALE, 1), round(-y * SCALE, 1)] for h, (x, y) in
               ((h, spec.center(h)) for h in ter["hex"])}
    h0 = ter["hex"][0] if ter["hex"] else None
    if h0 is not None:
        cx, cy = spec.center(h0)
        corners = [[round((x - cx) * SCALE, 1), round(-(y - cy) * SCALE, 1)] for x, y in spec.corners(h0)]
    else:
        corners = []
    return {"title": spec.title or "", "viewbox": [round(x0 * SCALE, 1), round(-y1 * SCALE, 1),
                                                   round((x1 - x0) * SCALE, 1), round((y1 - y0) * SCALE, 1)],
            "under": "".join(under), "over": "".join(over), "centres": centres, "corners": corners,
            "legend": legend}


def board_geometry(spec: MapSpec) -> str:
    """The JSON text every session's board of ``spec`` shares (made once per map, kept on the spec)."""
    cached = spec.__dict__.get("_hexboard_geometry")
    if cached is None:
        cached = spec.__dict__["_hexboard_geometry"] = json.dumps(_geometry(spec), separators=(",", ":"),
                                                                   ensure_ascii=False)
    return cached


def counter_rows(spec: MapSpec, counters: Iterable[Counter], selected: Iterable[str] = ()) -> list[list]:
    """Counters as the browser draws them: ``[hex, id, fill, outline, line width, name, type and values, markers,
    tip]``
    (a selected counter outlined in yellow, as on the Bokeh figure)."""
    sel = set(selected)
    out = []
    for c in counters:
        if c.hex not in spec.terrain:
            continue
        kind = (c.kind[:3].upper() if c.kind else "?") + ("*" if c.elite else "")
        # the counter's first line: the designation the lists and messages use ("FFER"); then its type and
        # values ("INF 2-2"), so a counter and the list name a unit alike (issue 25)
        marks = " ".join(m if len(m) < 9 else m[:8] for m in c.markers)
        tip = (f"{c.name or c.id} ({c.id}) · {c.side} {c.kind} {c.strength}-{c.movement}"
               + (f" · {', '.join(c.markers)}" if c.markers else ""))
        on = c.id in sel
        out.append([c.hex, c.id, SIDE_COLOURS.get(c.side, "#777777"), "#ffeb3b" if on else "#111111", 4 if on else 1,
                    c.id, f"{kind} {c.strength}-{c.movement}", marks, tip])
    return out


_JS = r"""
const NS = "http://www.w3.org/2000/svg";
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "hexboard";
  const bar = document.createElement("div");
  bar.className = "hexboard-bar";
  const title = document.createElement("span");
  title.className = "hexboard-title";
  const btn = (text, tip, cls) => {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.title = tip; b.className = cls;
    bar.appendChild(b);
    return b;
  };
  bar.appendChild(title);
  // the page's note (legend text, badges), its check boxes and the "click a hex by its number" box: parts of
  // this one model rather than widgets of their own (each widget is a model more for every session)
  const note = document.createElement("div");
  note.className = "hexboard-note";
  const tools = document.createElement("div");
  tools.className = "hexboard-tools";
  const zin = btn("+", "zoom in (or the mouse wheel)", "hexboard-zoom-in");
  const zout = btn("\u2212", "zoom out (or the mouse wheel)", "hexboard-zoom-out");
  const reset = btn("reset", "the whole map again", "hexboard-reset");
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "hexboard-svg");
  svg.setAttribute("role", "img");
  const hidden = document.createElement("style");
  const layer = (cls) => { const g = document.createElementNS(NS, "g"); g.setAttribute("class", cls); svg.appendChild(g); return g; };
  const under = layer("hb-under"), marks = layer("hb-marks"), paths = layer("hb-paths"), over = layer("hb-over"),
        counters = layer("hb-counters");
  const legend = document.createElement("div");
  legend.className = "hexboard-legend";
  root.append(hidden, note, tools, bar, svg, legend);
  el.appendChild(root);

  let geo = {centres: {}, corners: [], viewbox: [0, 0, 100, 100], legend: []};
  let vb = geo.viewbox.slice();
  const off = new Set();
  const showVb = () => svg.setAttribute("viewBox", vb.join(" "));
  const hexPts = (h) => {
    const c = geo.centres[h];
    return c ? geo.corners.map(([dx, dy]) => `${(c[0] + dx).toFixed(1)},${(c[1] + dy).toFixed(1)}`).join(" ") : null;
  };
  const drawHidden = () => {
    hidden.textContent = [...off].map((f) => `.hexboard-svg [data-feature="${f.replace(/"/g, "")}"]{display:none}`).join("");
    for (const item of legend.children) item.classList.toggle("off", off.has(item.dataset.feature));
  };

  const drawGeometry = () => {
    try { geo = JSON.parse(model.geometry || "{}"); } catch (e) { geo = {}; }
    geo.centres = geo.centres || {}; geo.corners = geo.corners || []; geo.legend = geo.legend || [];
    geo.viewbox = geo.viewbox || [0, 0, 100, 100];
    title.textContent = geo.title || "";
    under.innerHTML = geo.under || "";
    over.innerHTML = geo.over || "";
    vb = geo.viewbox.slice();
    svg.style.aspectRatio = `${vb[2]} / ${vb[3]}`;
    showVb();
    legend.innerHTML = geo.legend.map(([f, colour, width, dash, kind]) => {
      const swatch = kind === "line"
        ? `<svg width="26" height="10"><line x1="1" y1="5" x2="25" y2="5" stroke="${colour}" stroke-width="${Math.min(width, 6)}"${dash === "dashed" ? ' stroke-dasharray="6 3"' : dash === "dotted" ? ' stroke-dasharray="2 3"' : ""}/></svg>`
        : `<svg width="14" height="14"><rect x="2" y="2" width="10" height="10" fill="${colour}" stroke="#000"/></svg>`;
      return `<span class="hb-legend-item" data-feature="${esc(f)}" title="click to hide or show">${swatch}${esc(f)}</span>`;
    }).join("");
    drawHidden();
  };

  const drawLayers = () => {
    let L = {};
    try { L = JSON.parse(model.layers || "{}"); } catch (e) { L = {}; }
    const hl = [], tx = [];
    for (const [h, text, colour] of (L.marks || [])) {
      const pts = hexPts(h);
      if (!pts) continue;
      const tip = `hex ${h}` + (text ? `: ${text}` : "");
      hl.push(`<polygon class="hl" data-hex="${esc(h)}" points="${pts}" fill="${esc(colour)}"><title>${esc(tip)}</title></polygon>`);
      if (text) {
        const c = geo.centres[h];
        tx.push(`<text class="hl-text" x="${c[0]}" y="${c[1]}">${esc(text)}</text>`);
      }
    }
    marks.innerHTML = hl.join("") + tx.join("");
    const ps = [];
    for (const [hexes, colour, what] of (L.paths || [])) {
      const pts = hexes.map((h) => geo.centres[h]).filter((c) => c);
      if (pts.length < 2) continue;
      ps.push(`<polyline class="path" points="${pts.map((c) => c.join(",")).join(" ")}" stroke="${esc(colour)}"><title>${esc(what)}</title></polyline>`);
    }
    paths.innerHTML = ps.join("");
    const stack = {}, cs = [];
    for (const [h, id, fill, outline, lw, kind, values, mk, tip] of (L.counters || [])) {
      const c = geo.centres[h];
      if (!c) continue;
      const k = stack[h] = (stack[h] || 0) + 1;
      const x = c[0] + 3.2 * (k - 1), y = c[1] + 3.2 * (k - 1);     // a stack fans out down and to the right
      cs.push(`<g class="counter" data-hex="${esc(h)}" data-unit="${esc(id)}"><title>${esc(tip)}</title>` +
        `<rect x="${(x - 11).toFixed(1)}" y="${(y - 8.8).toFixed(1)}" width="22" height="17.6" fill="${esc(fill)}" stroke="${esc(outline)}" stroke-width="${lw}"/>` +
        `<text class="ck" x="${x.toFixed(1)}" y="${(y - 2.2).toFixed(1)}">${esc(kind)}</text>` +
        `<text class="cv" x="${x.toFixed(1)}" y="${(y + 6).toFixed(1)}">${esc(values)}</text>` +
        (mk ? `<text class="cm" x="${x.toFixed(1)}" y="${(y + 15).toFixed(1)}">${esc(mk)}</text>` : "") + `</g>`);
    }
    counters.innerHTML = cs.join("");
    root.dataset.drawn = String((Number(root.dataset.drawn) || 0) + 1);
  };

  // zoom about a point, pan by a drag: the viewBox only (no server round trip)
  const toMap = (cx, cy) => {
    const r = svg.getBoundingClientRect();
    const k = Math.max(vb[2] / r.width, vb[3] / r.height);
    const ox = (r.width * k - vb[2]) / 2, oy = (r.height * k - vb[3]) / 2;
    return [vb[0] - ox + (cx - r.left) * k, vb[1] - oy + (cy - r.top) * k, k];
  };
  const zoom = (f, cx, cy) => {
    const g = geo.viewbox;
    const w = Math.min(Math.max(vb[2] * f, g[2] / 12), g[2] * 2);
    f = w / vb[2];
    const [mx, my] = cx === undefined ? [vb[0] + vb[2] / 2, vb[1] + vb[3] / 2] : toMap(cx, cy);
    vb = [mx - (mx - vb[0]) * f, my - (my - vb[1]) * f, vb[2] * f, vb[3] * f];
    showVb();
  };
  svg.addEventListener("wheel", (ev) => { ev.preventDefault(); zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, ev.clientX, ev.clientY); },
                       {passive: false});
  zin.addEventListener("click", () => zoom(1 / 1.4));
  zout.addEventListener("click", () => zoom(1.4));
  reset.addEventListener("click", () => { vb = geo.viewbox.slice(); showVb(); });
  let down = null, n = 0;
  // two fingers on a touch screen: a pinch zooms about the point between them (no click when they lift)
  const touches = new Map();
  let pinch = null;
  const spread = () => { const [a, b] = [...touches.values()]; return [Math.hypot(a.x - b.x, a.y - b.y), (a.x + b.x) / 2, (a.y + b.y) / 2]; };
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.pointerType === "touch") {
      touches.set(ev.pointerId, {x: ev.clientX, y: ev.clientY});
      if (touches.size === 2) { down = null; const [d] = spread(); pinch = {d: d, vb: vb.slice()}; return; }
    }
    if (ev.button !== 0 || pinch) return;
    down = {x: ev.clientX, y: ev.clientY, target: ev.target, vb: vb.slice(), drag: false, id: ev.pointerId};
  });
  const lift = (ev) => { touches.delete(ev.pointerId); if (touches.size < 2 && pinch) { pinch = null; down = null; } };
  svg.addEventListener("pointerup", lift);
  svg.addEventListener("pointercancel", lift);
  svg.addEventListener("pointermove", (ev) => {
    if (touches.has(ev.pointerId)) touches.set(ev.pointerId, {x: ev.clientX, y: ev.clientY});
    if (pinch && touches.size === 2) {
      const [d, cx, cy] = spread();
      if (d > 0) { vb = pinch.vb.slice(); zoom(pinch.d / d, cx, cy); }
      return;
    }
    if (!down) return;
    const dx = ev.clientX - down.x, dy = ev.clientY - down.y;
    if (!down.drag && dx * dx + dy * dy < 25) return;
    if (!down.drag) { down.drag = true; svg.setPointerCapture(down.id); svg.classList.add("dragging"); }
    const k = toMap(0, 0)[2];
    vb = [down.vb[0] - dx * k, down.vb[1] - dy * k, vb[2], vb[3]];
    showVb();
  });
  const up = (ev) => {
    if (!down) return;
    const d = down;
    down = null;
    svg.classList.remove("dragging");
    if (d.drag) { try { svg.releasePointerCapture(d.id); } catch (e) {} return; }
    if (ev.type !== "pointerup") return;
    const t = d.target && d.target.closest ? d.target.closest("[data-hex]") : null;
    n += 1;
    model.click = {n: n, hex: t ? t.getAttribute("data-hex") : ""};
  };
  svg.addEventListener("pointerup", up);
  svg.addEventListener("pointercancel", up);
  legend.addEventListener("click", (ev) => {
    const item = ev.target.closest ? ev.target.closest("[data-feature]") : null;
    if (!item) return;
    const f = item.dataset.feature;
    if (off.has(f)) off.delete(f); else off.add(f);
    drawHidden();
  });

  const boxes = {};
  let typed = null;
  const drawTools = () => {
    tools.innerHTML = "";
    for (const k in boxes) delete boxes[k];
    for (const [key, label, cls] of (model.toggles || [])) {
      const lab = document.createElement("label");
      lab.className = "hb-toggle " + (cls || "");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !!(model.toggled || {})[key];
      box.addEventListener("change", () => { model.toggled = Object.assign({}, model.toggled || {}, {[key]: box.checked}); });
      lab.append(box, document.createTextNode(" " + label));
      tools.appendChild(lab);
      boxes[key] = box;
    }
    typed = null;
    if (model.goto) {
      const lab = document.createElement("label");
      lab.className = "goto-hex";
      typed = document.createElement("input");
      typed.type = "text"; typed.placeholder = "e.g. 0707"; typed.size = 8; typed.maxLength = 8;
      typed.addEventListener("change", () => {
        const h = typed.value.trim();
        if (!h) return;
        n += 1;
        model.click = {n: n, hex: h, typed: true};
      });
      lab.append(document.createTextNode("click a hex by its number "), typed);
      tools.appendChild(lab);
    }
    tools.style.display = tools.children.length ? "" : "none";
  };
  const drawToggled = () => {
    for (const [key, box] of Object.entries(boxes)) box.checked = !!(model.toggled || {})[key];
  };
  const drawNote = () => { note.innerHTML = model.note || ""; note.style.display = model.note ? "" : "none"; };

  drawNote();
  drawTools();
  drawGeometry();
  drawLayers();
  model.on("geometry", () => { drawGeometry(); drawLayers(); });
  model.on("layers", drawLayers);
  model.on("note", drawNote);
  model.on("toggles", drawTools);
  model.on("goto", drawTools);
  model.on("toggled", drawToggled);
}
"""

_CSS = """
.hexboard {display:flex; flex-direction:column; gap:4px; width:100%}
.hexboard-note {font: 13px sans-serif}
.hexboard-note p {margin: 4px 0 6px 0}
.hexboard-tools {display:flex; flex-wrap:wrap; align-items:center; gap:6px 18px; font: 13px sans-serif}
.hb-toggle {display:inline-flex; align-items:center; gap:4px; cursor:pointer}
.goto-hex input {font: 13px sans-serif; padding: 3px 6px; border: 1px solid #bbb; border-radius: 3px; width: 7em}
.hexboard-bar {display:flex; align-items:center; gap:6px; font: 13px sans-serif}
.hexboard-title {font-weight:bold; flex:1 1 auto; min-width:0; overflow:hidden; text-overflow:ellipsis; white-space:nowrap}
.hexboard-bar button {font:12px sans-serif; padding:1px 8px; border:1px solid #bbb; border-radius:3px; background:#f6f6f6; cursor:pointer}
.hexboard-svg {width:100%; height:auto; display:block; background:#fafafa; border:1px solid #ddd; touch-action:none;
  user-select:none; cursor:pointer}
.hexboard-svg.dragging {cursor:grabbing}
.hexboard-svg .hx {stroke:#9e9e9e; stroke-width:0.6}
.hexboard-svg .hx:hover {stroke:#333; stroke-width:1.5}
.hexboard-svg line, .hexboard-svg .path, .hexboard-svg text {pointer-events:none}
.hexboard-svg line, .hexboard-svg polygon, .hexboard-svg rect, .hexboard-svg .path {vector-effect:non-scaling-stroke}
.hexboard-svg .hl {fill-opacity:0.55; stroke:#333; stroke-width:1.5}
.hexboard-svg .path {fill:none; stroke-width:4; stroke-opacity:0.8; stroke-linejoin:round}
.hexboard-svg text {font-family:sans-serif; text-anchor:middle; dominant-baseline:middle}
.hexboard-svg .no {font-size:6px; fill:#555}
.hexboard-svg .nm {font-size:7.5px; fill:#3e2723; font-style:italic}
.hexboard-svg .hl-text {font-size:9px; font-weight:bold}
.hexboard-svg .counter rect {fill-opacity:0.95}
.hexboard-svg .ck, .hexboard-svg .cv {font-size:6px; font-weight:bold; fill:white}
.hexboard-svg .cv {font-size:4.8px}
.hexboard-svg .cm {font-size:6px; font-weight:bold; fill:#b71c1c}
.hexboard-legend {display:flex; flex-wrap:wrap; gap:4px 12px; font:12px sans-serif}
.hb-legend-item {display:inline-flex; align-items:center; gap:4px; cursor:pointer}
.hb-legend-item.off {opacity:0.35; text-decoration:line-through}
@media (max-width: 700px) {
  .hexboard-bar button, .goto-hex input {min-height:44px; min-width:44px; font-size:16px}
}
"""


def _json(layers: dict) -> str:
    return json.dumps(layers, separators=(",", ":"), ensure_ascii=False)


class HexBoardView(JSComponent):
    """The board's one model: the shared geometry (JSON text), the session's layers, the last click."""

    geometry = param.String(default="", doc="board_geometry(spec): the map every session of it shares")
    layers = param.String(default="{}", doc="JSON of {'marks': [[hex, text, colour]], 'paths': [[hexes, colour, "
                                            "what]], 'counters': counter_rows(...)} (one text: cheaper to send "
                                            "than nested lists, which Bokeh encodes item by item)")
    click = param.Dict(default={}, doc="the last click: {'n': count, 'hex': label or '', 'typed': True when "
                                       "typed in the goto box}")
    note = param.String(default="", doc="trusted HTML shown above the map (made by our own code, text escaped)")
    toggles = param.List(default=[], doc="check boxes above the map: [[key, label, css class]]")
    toggled = param.Dict(default={}, doc="{key: checked} of those check boxes (both ways)")
    goto = param.Boolean(default=False, doc="show a box to click a hex by typing its number")

    _esm = _JS
    _stylesheets = [_CSS + BADGE_CSS]


class HexBoard:
    """A session's board of a map: counters, highlights and paths it shows; ``on_tap(cb)`` for clicks.

    The same updates as :class:`~dashboards.render.hexmap.HexMapFigure` (``set_counters``,
    ``set_highlights``, ``set_paths``, ``tap``), and :meth:`update` to send several layers at once.
    """

    def __init__(self, spec: MapSpec, width: int = 800, **params):
        self.spec = spec
        self._layers: dict = {"marks": [], "paths": [], "counters": []}
        self.highlights: list[Marked] = []
        self.paths: list = []
        # as wide as its place on the page, at most ``width`` (the drawing keeps the map's proportions)
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("max_width", width)
        params.setdefault("min_width", min(width, 320))
        self.model = HexBoardView(geometry=board_geometry(spec), layers=_json(self._layers),
                                  css_classes=["hexmap"], **params)
        self._tap_callbacks: list[Callable[[str | None], None]] = []
        self.model.param.watch(self._clicked, "click")

    # -- what it shows ---------------------------------------------------------------------------------
    def set_spec(self, spec: MapSpec) -> None:
        """Another map (another scenario): its geometry, and empty layers."""
        self.spec = spec
        self._layers = {"marks": [], "paths": [], "counters": []}
        self.highlights, self.paths = [], []
        self.model.param.update(geometry=board_geometry(spec), layers=_json(self._layers))

    def update(self, counters: Iterable[Counter] | None = None, selected: Iterable[str] = (),
               highlights: Iterable[Marked] | None = None, paths: Iterable | None = None) -> None:
        """Replace the layers given (None: unchanged), sent to the browser as one change."""
        spec = self.spec
        layers = dict(self._layers)
        if highlights is not None:
            self.highlights = [m for m in highlights if m.hex in spec.terrain]
            layers["marks"] = [[m.hex, m.text, m.colour] for m in self.highlights]
        if paths is not None:
            self.paths = [p for p in paths if len(p[0]) > 1]
            layers["paths"] = [[list(p), c, w] for p, c, w in self.paths]
        if counters is not None:
            layers["counters"] = counter_rows(spec, counters, selected)
        if layers != self._layers:
            self._layers = layers
            self.model.layers = _json(layers)

    def set_counters(self, counters: Iterable[Counter], selected: Iterable[str] = ()) -> None:
        self.update(counters=counters, selected=selected)

    def set_highlights(self, marked: Iterable[Marked]) -> None:
        self.update(highlights=marked)

    def set_paths(self, paths: Iterable[tuple[list[str], str, str]]) -> None:
        """``paths``: ``(hexes, colour, what)``, e.g. retreat paths."""
        self.update(paths=paths)

    @property
    def highlighted(self) -> list[str]:
        """The highlighted hexes, in the order drawn."""
        return [m.hex for m in self.highlights]

    @property
    def counters(self) -> list[list]:
        return list(self._layers["counters"])

    # -- clicks ----------------------------------------------------------------------------------------
    def on_tap(self, callback: Callable[[str | None], None]) -> None:
        self._tap_callbacks.append(callback)

    def link_toggle(self, obj: param.Parameterized, name: str, label: str, css_class: str = "") -> None:
        """A check box above the map for the Boolean parameter ``name`` of ``obj``, kept in step both ways."""
        m = self.model
        m.toggles = [*m.toggles, [name, label, css_class]]
        m.toggled = {**m.toggled, name: bool(getattr(obj, name))}
        obj.param.watch(lambda e: setattr(m, "toggled", {**m.toggled, name: bool(e.new)}), name)

        def from_browser(e):
            v = bool((e.new or {}).get(name))
            if v != bool(getattr(obj, name)):
                setattr(obj, name, v)
        m.param.watch(from_browser, "toggled")

    def _clicked(self, event) -> None:
        h = (event.new or {}).get("hex") or None
        if h is not None:
            h = h.strip()[:8]
        if h is not None and h not in self.spec.terrain:
            h = None
        for cb in self._tap_callbacks:
            cb(h)

    def tap(self, hex_label: str) -> None:
        """Act as if the user clicked ``hex_label`` (for tests and keyboard entry)."""
        for cb in self._tap_callbacks:
            cb(hex_label)
