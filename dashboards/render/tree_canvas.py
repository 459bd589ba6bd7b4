"""The tree picture on a page (issue 27.6: split from :mod:`dashboards.render.tree_plot`): one browser-side
component, :class:`TreeCanvas`, that draws SVG from a JSON string made once per layout."""
from __future__ import annotations

import json

import param
from panel.custom import JSComponent

from dashboards.render.tree_geometry import COL_GAP_PX, LABEL_DX, ROW_PX, TOP_PX, figure_data, geometry
from dashboards.render.tree_layout import MAX_NODES, TreeLayout, made_once
from dashboards.render.tree_outline import OUTLINE_CSS, OUTLINE_HEAD, outline_for

__all__ = ["CANVAS_JS", "TreeCanvas", "canvas_data", "canvas_params", "prepare"]


# --------------------------------------------------------------------------------------------------
# the picture on a page: one browser-side component (issue 17.1: a Bokeh figure costs a page about 60 ms
# of server time, this one model a few)
# --------------------------------------------------------------------------------------------------
_CANVAS_ESM = r"""
const NS = "http://www.w3.org/2000/svg";
const svgEl = (tag, cls) => { const e = document.createElementNS(NS, tag); if (cls) e.setAttribute("class", cls); return e; };

function drawTree(model, el) {
  const root = document.createElement("div"); root.className = "tree-canvas";
  const status = document.createElement("div"); status.className = "tree-status";
  const bar = document.createElement("div"); bar.className = "tree-tools";
  const button = (text, title, cls) => {
    const b = document.createElement("button"); b.type = "button"; b.textContent = text; b.title = title;
    b.setAttribute("aria-label", title); b.className = cls; bar.appendChild(b); return b;
  };
  const zin = button("+", "zoom in", "tree-zoom-in"), zout = button("\u2212", "zoom out", "tree-zoom-out");
  const reset = button("first view", "back to the first view (scale and place)", "tree-reset");
  const box = document.createElement("div"); box.className = "tree-box";
  const svg = svgEl("svg", "tree-svg"); svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "probability tree: the text outline beside it says the same");
  const tip = document.createElement("div"); tip.className = "tree-tip"; tip.hidden = true;
  const gE = svgEl("g", "tree-edges"), gN = svgEl("g", "tree-nodes");
  const pic = document.createElement("div"); pic.className = "tree-picture";
  const side = document.createElement("div"); side.className = "tree-outline-pane";
  svg.append(gE, gN); box.append(svg, tip); pic.append(status, bar, box); root.append(pic, side); el.appendChild(root);
  const outline = () => { side.innerHTML = model.outline || ""; side.hidden = !model.outline; };

  // The drawing is laid out in pixels at scale 1 (tree_plot.label_boxes): columns as wide as their widest
  // label, rows ROW px apart. Zoom scales all of it alike (text included), so labels that do not overlap at
  // scale 1 overlap at no zoom. The first view is scale 1, or less (down to 0.8) when the tree is wider than
  // the box; a drag shows the rest.
  let d = {parent: []}, n = 0, folded = [], kids = [], x = [], y = [], shown = 0, rows = 1;
  let colx = [0], widths = [], k = 1, tx = 0, ty = 0, moved = false, edges = [], nodes = [], dots = [], t1s = [], t2s = [];
  const ROW = () => d.row || 36, TOP = () => d.top || 22;

  function place() {                      // leaves (and folded nodes) one row apart, a parent between its children
    x = new Array(n).fill(NaN); y = new Array(n).fill(NaN);
    let row = 0; shown = 0;
    const visit = (i) => {
      shown += 1;
      let yy;
      if (kids[i].length && !folded[i]) {
        const ys = kids[i].map(visit);
        yy = (ys[0] + ys[ys.length - 1]) / 2;
      } else { yy = row; row += 1; }
      x[i] = d.depth[i]; y[i] = yy;
      return yy;
    };
    if (n) visit(0);
    rows = Math.max(1, row);
  }
  function measure() {                    // the drawn text's widths: a column only ever widens past the estimate
    widths = d.w ? d.w.slice() : new Array(n).fill(0);
    for (let i = 0; i < n; i++) {
      try {
        widths[i] = Math.max(widths[i], t1s[i].getComputedTextLength() + 3, t2s[i].getComputedTextLength() + 3);
      } catch (e) { /* not drawn yet: the estimate stands */ }
    }
    const base = d.colx || [16], deepest = Math.max(0, ...(d.depth.length ? d.depth : [0]));
    const widest = new Array(deepest + 1).fill(0);
    for (let i = 0; i < n; i++) widest[d.depth[i]] = Math.max(widest[d.depth[i]], widths[i]);
    colx = [base[0]];
    for (let j = 0; j <= deepest; j++) colx.push(Math.max(base[j + 1] || 0, colx[j] + (d.dx || 10) + widest[j] + (d.gap || 26)));
  }
  function contentWidth() {
    let w = 0;
    for (let i = 0; i < n; i++) if (!isNaN(x[i])) w = Math.max(w, colx[d.depth[i]] + (d.dx || 10) + widths[i]);
    return w + 16;
  }
  function fit() { k = Math.max(0.8, Math.min(1, W() / contentWidth())); tx = 0; ty = 0; moved = false; }
  const W = () => Math.max(1, box.clientWidth), H = () => Math.max(1, box.clientHeight);
  const SX = (i) => tx + k * colx[d.depth[i]];
  const SY = (i) => ty + k * (TOP() + y[i] * ROW());
  function colour(i) {
    return d.nkids[i] == 0 ? (d.cut[i] ? "#bdbdbd" : "#2e7d32") : (folded[i] ? "#ffb300" : "#1f4e79");
  }
  function draw() {
    svg.setAttribute("width", W()); svg.setAttribute("height", H());
    for (let i = 0; i < n; i++) {
      const on = !isNaN(x[i]);
      nodes[i].style.display = on ? "" : "none";
      edges[i].style.display = on && i > 0 ? "" : "none";
      if (!on) continue;
      const X = SX(i), Y = SY(i);
      nodes[i].setAttribute("transform", `translate(${X.toFixed(1)},${Y.toFixed(1)}) scale(${k.toFixed(3)})`);
      dots[i].setAttribute("fill", colour(i));
      dots[i].setAttribute("data-folded", folded[i] ? "1" : "0");
      if (i > 0) {                        // from the end of the parent's label, down the gap between columns
        const p = d.parent[i], mid = tx + k * (colx[d.depth[p] + 1] - (d.gap || 26) / 2);
        const from = SX(p) + k * ((d.dx || 10) + widths[p] + 2);
        edges[i].setAttribute("d", `M${from.toFixed(1)},${SY(p).toFixed(1)}H${mid.toFixed(1)}V${Y.toFixed(1)}` +
                                   `H${(X - 7 * k).toFixed(1)}`);
      }
    }
    status.innerHTML = `<span class="tree-shown" data-shown="${shown}" data-rows="${rows}">${shown} of ${n} nodes ` +
      `shown</span> <span class="tree-help" data-nodes="${n}">\u00b7 click a node to fold or unfold what follows it; ` +
      `wheel or + and \u2212 to zoom, drag to pan; rest the mouse on a node for its rule.${d.notice || ""}</span>`;
  }
  function load() {
    try { d = JSON.parse(model.data || "{}"); } catch (e) { d = {}; }
    if (!d.parent) d = {parent: [], depth: [], nkids: [], cut: [], folded: [], label: [], sub: [], tip: []};
    n = d.parent.length; folded = d.folded.slice();
    kids = Array.from({length: n}, () => []);
    for (let i = 1; i < n; i++) kids[d.parent[i]].push(i);
    gE.replaceChildren(); gN.replaceChildren(); edges = []; nodes = []; dots = []; t1s = []; t2s = [];
    for (let i = 0; i < n; i++) {
      edges.push(gE.appendChild(svgEl("path", "tree-edge")));
      const g = svgEl("g", "tree-node"); g.setAttribute("data-node", i);
      if (d.nkids[i]) { g.setAttribute("tabindex", "0"); g.setAttribute("role", "button"); }
      const c = svgEl("circle", "tree-dot"); c.setAttribute("r", "6.5"); c.setAttribute("data-node", i);
      const t1 = svgEl("text", "tree-label"); t1.setAttribute("x", "10"); t1.setAttribute("y", "-3"); t1.textContent = d.label[i];
      const t2 = svgEl("text", "tree-sub"); t2.setAttribute("x", "10"); t2.setAttribute("y", "12"); t2.textContent = d.sub[i];
      const title = svgEl("title"); title.textContent = d.tip[i];
      c.appendChild(title); g.append(c, t1, t2); gN.appendChild(g);
      nodes.push(g); dots.push(c); t1s.push(t1); t2s.push(t2);
    }
    box.style.height = `${d.height || 400}px`;
    measure(); place(); fit(); draw();
  }
  function toggle(i) {
    if (!(i >= 0 && i < n) || !d.nkids[i]) return;
    folded[i] = folded[i] ? 0 : 1;
    place();
    if (!moved) fit();
    draw();
  }
  function zoom(f, px, py) {              // about the point (px, py) of the box
    const k2 = Math.max(0.25, Math.min(4, k * f));
    tx = px - (px - tx) * k2 / k; ty = py - (py - ty) * k2 / k; k = k2; moved = true;
    draw();
  }
  const nodeOf = (t) => { const g = t && t.closest ? t.closest(".tree-node") : null; return g ? +g.getAttribute("data-node") : -1; };
  zin.addEventListener("click", () => zoom(1.25, W() / 2, H() / 2));
  zout.addEventListener("click", () => zoom(0.8, W() / 2, H() / 2));
  reset.addEventListener("click", () => { fit(); draw(); });
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = svg.getBoundingClientRect();
    zoom(Math.exp(-Math.max(-1, Math.min(1, ev.deltaY * 0.002))), ev.clientX - r.left, ev.clientY - r.top);
  }, {passive: false});
  let drag = null, dragged = false;
  svg.addEventListener("pointerdown", (ev) => { drag = [ev.clientX, ev.clientY, tx, ty]; dragged = false; });
  svg.addEventListener("pointermove", (ev) => {
    if (drag && (ev.buttons & 1)) {
      const dx = ev.clientX - drag[0], dy = ev.clientY - drag[1];
      if (!dragged && dx * dx + dy * dy < 16) return;
      dragged = true; moved = true; tip.hidden = true;
      tx = drag[2] + dx; ty = drag[3] + dy;
      draw();
    }
  });
  window.addEventListener("pointerup", () => { drag = null; });
  svg.addEventListener("click", (ev) => { if (dragged) { dragged = false; return; } toggle(nodeOf(ev.target)); });
  svg.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { const i = nodeOf(ev.target); if (i >= 0) { ev.preventDefault(); toggle(i); } }
  });
  const showTip = (ev) => {
    const i = nodeOf(ev.target);
    if (i < 0 || drag && dragged) { tip.hidden = true; return; }
    tip.textContent = d.tip[i];
    const X = SX(i), Y = SY(i);
    tip.hidden = false;
    tip.style.left = `${Math.max(0, Math.min(W() - tip.offsetWidth - 4, X + 12))}px`;
    tip.style.top = `${Y + 14 + tip.offsetHeight > H() ? Math.max(0, Y - 14 - tip.offsetHeight) : Y + 14}px`;
  };
  svg.addEventListener("pointerover", showTip);
  svg.addEventListener("focusin", showTip);
  svg.addEventListener("pointerout", (ev) => { if (nodeOf(ev.relatedTarget) < 0) tip.hidden = true; });
  svg.addEventListener("focusout", () => { tip.hidden = true; });
  // once the box has its size (and the text can be measured), the first view is worked out again
  const resized = new ResizeObserver(() => { if (!moved) { measure(); fit(); } draw(); });
  resized.observe(box);
  model.on("data", load);
  model.on("outline", outline);
  model.on("remove", () => resized.disconnect());
  outline(); load();
}
"""
#: the drawing as a library: a page's own component draws its parts, then calls ``drawTree(model, el)``
CANVAS_JS = _CANVAS_ESM
_CANVAS_ESM = CANVAS_JS + "\nexport function render({ model, el }) { drawTree(model, el); }\n"

_CANVAS_CSS = """
:host {display:block}
.tree-canvas {position:relative;font-family:inherit;display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.tree-picture {flex:1 1 480px;min-width:min(480px, 100%)}
.tree-outline-pane {flex:0 1 400px;min-width:min(300px, 100%);max-width:100%;overflow:hidden}
.tree-status {font-size:13px;margin:0 0 4px 0}
.tree-tools {display:flex;gap:6px;margin:0 0 4px 0}
.tree-tools button {font-size:12px;padding:1px 8px;border:1px solid #b0bec5;border-radius:3px;background:#f5f7f9;
  cursor:pointer;white-space:nowrap}
.tree-box {position:relative;overflow:hidden;border:1px solid #e0e0e0;border-radius:3px;background:#fff;touch-action:none}
.tree-svg {display:block;cursor:grab;user-select:none}
.tree-edge {stroke:#9e9e9e;stroke-width:1.5;fill:none}
.tree-dot {stroke:#263238;stroke-width:1;cursor:pointer}
.tree-node:focus {outline:none}
.tree-node:focus .tree-dot {stroke:#000;stroke-width:2.5}
.tree-label {font-size:12px;fill:#1b1b1b;pointer-events:none;paint-order:stroke;stroke:#fff;stroke-width:3px}
.tree-sub {font-size:11px;fill:#5d6d7e;font-style:italic;pointer-events:none;paint-order:stroke;stroke:#fff;stroke-width:3px}
.tree-tip {position:absolute;z-index:5;max-width:380px;white-space:pre-wrap;background:#fffde7;border:1px solid #bdbdbd;
  border-radius:3px;padding:4px 6px;font-size:12px;pointer-events:none;box-shadow:0 1px 3px rgba(0,0,0,.2)}
"""


class TreeCanvas(JSComponent):
    """The tree picture drawn in the browser (SVG): the same nodes, labels, colours and hover text as
    :func:`tree_figure`; a click on a dot (or Enter on it) folds or unfolds what follows, the wheel or the
    + and − buttons zoom (the whole drawing alike, text included: labels that do not overlap at first overlap
    at no zoom, :func:`label_boxes`), a drag pans, "first view" goes back to the first scale and place. ``data`` is the JSON of
    :func:`canvas_data`, made once per layout and shared by every session showing it."""

    data = param.String(default="", doc="JSON: parent, depth, nkids, cut, folded, label, sub, tip columns; the "
                                        "drawing's height (px) and a notice (branches not drawn)")
    outline = param.String(default="", doc="the same tree as text (HTML of outline_html), beside the picture")

    _esm = _CANVAS_ESM
    _stylesheets = [_CANVAS_CSS + OUTLINE_CSS]


def canvas_data(layout: TreeLayout, open_depth: int | None = None) -> str:
    """The JSON that :class:`TreeCanvas` draws ``layout`` from (``open_depth`` levels unfolded; None: as
    many as fit), made once per layout and depth."""
    def make() -> str:
        fd = figure_data(layout, open_depth)
        out = {k: fd.cols[k] for k in ("parent", "depth", "nkids", "cut", "folded", "label", "sub", "tip", "w")}
        out.update(height=fd.height, notice=_cut_notice(layout), colx=[round(x, 1) for x in geometry(layout).colx],
                   row=ROW_PX, top=TOP_PX, dx=LABEL_DX, gap=COL_GAP_PX)
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"))
    return made_once(layout, "canvas", open_depth, make)


def canvas_params(layout: TreeLayout | None, open_depth: int | None = None) -> dict:
    """The parameters of a :class:`TreeCanvas` (or a page component made from it) showing ``layout``."""
    if layout is None or not layout.nodes:
        return dict(data="", outline="")
    return dict(data=canvas_data(layout, open_depth), outline=OUTLINE_HEAD + outline_for(layout, min(open_depth or 2, 3)))


def _cut_notice(layout: TreeLayout) -> str:
    return (f" {layout.truncated} branch(es) not drawn (the page draws at most {MAX_NODES} nodes)."
            if layout.truncated else "")


def prepare(layout: TreeLayout, open_depth: int | None = None, outline_depth: int = 2) -> TreeLayout:
    """Make the picture's data and the outline now (in the worker process that laid the tree out), so the
    server only copies them into the page."""
    figure_data(layout, open_depth)
    canvas_data(layout, open_depth)
    outline_for(layout, outline_depth)
    return layout
