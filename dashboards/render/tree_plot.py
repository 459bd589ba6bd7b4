"""A probability tree as a picture: a node-link drawing in Bokeh, with a text outline beside it.

The engine's tree (:class:`engine.core.tree.Tree`) nests each sub-procedure (a CRT roll, a rout, a Fatigue
Check, a combat round) in its own tree. A player thinks of one chain of events instead, so
:func:`layout_tree` *splices* them: at each end of a step's own tree the step's result leads on to what
follows it. Every node of the picture is "what happened" (a die face band such as ``3–4``, a card, a
choice), with its chance given the node before and from the start; hovering shows the rule number and
our own summary of it. Clicking a node folds or unfolds what follows it, in the browser (no server round
trip, so it also works in a notebook). Zoom and pan with the + and − buttons, the mouse wheel, a drag.

On a page the picture is :class:`TreeCanvas`, one browser component that draws SVG from a JSON string made
once per layout (a few ms of server time per session; issue 17.1); :func:`tree_figure` draws the same
tree as a Bokeh figure (with a ``CustomJS`` fold on tap), for a saved HTML file or a notebook that wants one.

:func:`layout_tree` returns plain data (lists of dicts and strings), so a child process can compute it
(:mod:`dashboards.server.background`) and the page draws it.
"""
from __future__ import annotations

import html
import json
import math
import re
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any, Callable

import panel as pn
import param
from panel.custom import JSComponent

from engine.core.tree import Node, Tree

from dashboards.render.dist_bars import fmt_pct
from dashboards.common.rule_notes import note as n20_note, rule_note_for, rule_number

__all__ = ["PlotNode", "TreeLayout", "layout_tree", "positions", "auto_open_depth", "tree_figure", "outline_html", "TreePlot",
           "describe", "frac_text", "MAX_NODES", "OUTLINE_CSS", "figure_data", "outline_for", "prepare",
           "TreeCanvas", "canvas_data", "canvas_params", "CANVAS_JS", "text_px", "Geometry", "geometry", "label_boxes",
           "ROW_PX"]

#: nodes drawn at most (a computing limit of the page, not a rule): the rest is marked "not drawn"
MAX_NODES = 1500
MINUS = "\u2212"
DASH = "\u2013"


# --------------------------------------------------------------------------------------------------
# words
# --------------------------------------------------------------------------------------------------
def frac_text(p: Fraction | None) -> str:
    """``1/3``; a whole number without ``/1`` (``1``, ``0``)."""
    if p is None:
        return ""
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def band_text(text: str) -> str:
    """A band of die faces with an en dash (``"3-4"`` -> ``"3–4"``); other text unchanged."""
    return re.sub(r"^(\d+)-(\d+)$", rf"\1{DASH}\2", text.strip())


def describe(v: Any, final: bool = False) -> str | None:
    """Short words for a value met in a tree (a die face, a card, a step's result), or None when the value
    is internal bookkeeping better left out of the picture (``final``: always give some text)."""
    if v is None:
        return "" if final else None
    if isinstance(v, Enum):
        return str(v.value)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (str, int, float)):
        return band_text(str(v))
    if isinstance(v, Fraction):
        return frac_text(v)
    # Battle Commander: a card face, a combat's outcome
    if hasattr(v, "shifted") and hasattr(v, "reshuffle"):
        if v.reshuffle:
            return "reshuffle card"
        if v.shifted:
            return ", ".join(dict.fromkeys(r.replace("_", " ") for _, r in v.shifted))
        return f"card with {str(v.skill or 'no').replace('_', ' ')} icon"
    if hasattr(v, "result") and hasattr(v, "table") and hasattr(v, "defender_morale"):
        bits = [str(v.result).replace("_", " ")]
        if getattr(v, "critical", None):
            bits.append(f"critical {str(v.critical).replace('_', ' ')}")
        if v.defender_morale or v.attacker_morale:
            bits.append(f"morale att {v.attacker_morale:+d}, def {v.defender_morale:+d}")
        return "; ".join(bits)
    # Lines of Battle: one round's roll, the whole combat's result
    if hasattr(v, "winner") and hasattr(v, "att_total") and hasattr(v, "dfn_total"):
        totals = f" ({v.att_total} v {v.dfn_total})" if (v.att_total or v.dfn_total) else ""
        return f"{v.winner} wins the roll{totals}"
    if hasattr(v, "winner") and hasattr(v, "stage") and hasattr(v, "units"):
        lost = [u.uid for u in v.units if getattr(u, "eliminated", False)]
        hurt = [f"{u.uid} {u.hits} hit{'s' if u.hits != 1 else ''}" for u in v.units
                if getattr(u, "hits", 0) and not getattr(u, "eliminated", False)]
        bits = [f"{v.winner} wins" + (" and takes the area" if getattr(v, "taken", False) else "")]
        if lost:
            bits.append("eliminated: " + ", ".join(lost))
        if hurt:
            bits.append(", ".join(hurt))
        return "; ".join(bits)
    if type(v).__str__ is not object.__str__:
        return str(v)
    if not final:
        return None
    to_json = getattr(v, "to_json", None)
    if callable(to_json):
        j = to_json()
        if isinstance(j, dict):
            return "; ".join(f"{k} {w}" for k, w in j.items())
        return str(j)
    return type(v).__name__


def _ask(n: Node) -> str:
    """A request in a player's words: "Roll d6 for the CRT column +2", "Draw the combat card", "Choose …"."""
    label = (n.label or "").strip()
    if n.kind == "roll":
        m = re.match(r"^(\d*d\d+)\s*\((.*)\)\s*$", label)
        return f"Roll {m.group(1)}: {m.group(2)}" if m else f"Roll {label}"
    if n.kind == "draw":
        return f"Draw: {label}"
    if n.kind == "choose":
        return f"Choose: {label}"
    return label[:1].upper() + label[1:]


# --------------------------------------------------------------------------------------------------
# the layout
# --------------------------------------------------------------------------------------------------
@dataclass
class PlotNode:
    id: int
    parent: int                # -1 for the start
    depth: int
    answer: str                # what happened to get here ("3–4", "DR", "start")
    probability: Fraction | None   # given the node before (None: a choice)
    path_probability: Fraction | None  # from the start
    ask: str = ""              # the next question here ("Roll d6: rout distance of prussian-i")
    rule: str = ""             # its rule number
    note: str = ""             # our summary of that rule
    step: str = ""             # the step of the rules that starts here ("rout of prussian-i (9.8)")
    gives: str = ""            # a step's result reached here ("DR")
    result: str = ""           # at an end: the outcome
    notes: list[str] = field(default_factory=list)   # what the engine logged on the way (rule: text)
    children: list[int] = field(default_factory=list)
    truncated: bool = False    # more follows but was not drawn (node limit)

    @property
    def is_leaf(self) -> bool:
        return not self.children


@dataclass
class TreeLayout:
    nodes: list[PlotNode]
    truncated: int = 0         # how many branches were not drawn (node limit)
    title: str = ""

    def __len__(self) -> int:
        return len(self.nodes)

    def leaves(self) -> list[PlotNode]:
        return [n for n in self.nodes if n.is_leaf]


def layout_tree(tree: Tree, fmt_result: Callable[[Any], str] | None = None,
                fmt_value: Callable[[Any], str | None] | None = None, rule_note: Callable[[str], str] = n20_note,
                max_nodes: int = MAX_NODES, title: str = "") -> TreeLayout:
    """The picture's nodes: the engine's tree with every sub-procedure spliced into the chain of events."""
    if tree.root is None:
        raise ValueError("this tree was enumerated without nodes")
    fmt_result = fmt_result or (lambda v: describe(v, final=True) or "")
    fmt_value = fmt_value or describe
    nodes: list[PlotNode] = []
    cut = [0]

    def new(parent: int, answer: str, p: Fraction | None, path: Fraction | None) -> PlotNode:
        n = PlotNode(len(nodes), parent, 0 if parent < 0 else nodes[parent].depth + 1, answer, p, path)
        nodes.append(n)
        if parent >= 0:
            nodes[parent].children.append(n.id)
        return n

    def add_notes(d: PlotNode, n: Node) -> None:
        d.notes.extend(f"{r}: {t}" if r else t for r, t in n.notes)

    def find_child(n: Node, result: Any) -> Node | None:
        for c in n.children:
            if c.outcome is result:
                return c
        for c in n.children:
            try:
                if c.outcome == result:
                    return c
            except Exception:   # noqa: BLE001 - odd comparisons simply do not match
                continue
        return None

    def end(d: PlotNode, n: Node, cont) -> None:
        if cont is None:
            d.result = fmt_result(n.result)
        else:
            cont(n.result, d)

    queue: deque = deque()

    def emit(n: Node, d: PlotNode, cont) -> None:
        """``n`` is the engine node whose question is asked at picture node ``d``; its answers are queued,
        so that the node limit cuts the deepest levels, not whole branches."""
        add_notes(d, n)
        if n.is_leaf:
            end(d, n, cont)
            return
        if n.kind == "sub" and n.subtree is not None and n.subtree.root is not None:
            if not d.step:
                d.step = f"{n.label} ({n.rule})" if n.rule else n.label
                if not d.rule:
                    d.rule, d.note = n.rule, rule_note(n.rule)

            def after(result: Any, here: PlotNode, n=n, cont=cont) -> None:
                c = find_child(n, result)
                shown = fmt_value(result)
                if shown and not here.gives:
                    here.gives = shown
                if c is None:           # should not happen: the step's results are the node's answers
                    here.result = shown or ""
                    return
                emit(c, here, cont)

            emit(n.subtree.root, d, after)
            return
        d.ask, d.rule, d.note = _ask(n), n.rule, rule_note(n.rule)
        queue.append((n, d, cont))

    def grow(n: Node, d: PlotNode, cont) -> None:
        for c in n.children:
            if len(nodes) >= max_nodes:
                d.truncated = True
                cut[0] += 1
                continue
            path = None if c.probability is None or d.path_probability is None else d.path_probability * c.probability
            shown = c.outcome_text if c.outcome_text is not None else fmt_value(c.outcome)
            kid = new(d.id, band_text(shown) if shown else "(answer)", c.probability, path)
            emit(c, kid, cont)

    root = new(-1, "start", Fraction(1), Fraction(1))
    emit(tree.root, root, None)
    while queue:
        grow(*queue.popleft())
    for d in nodes:
        if d.gives and d.gives == d.result:
            d.gives = ""
    return TreeLayout(nodes, cut[0], title)


def positions(layout: TreeLayout, collapsed: set[int] = frozenset()) -> dict[int, tuple[float, float]]:
    """(x, y) of each shown node: x is the depth, leaves (and folded nodes) one row apart downwards, a
    parent halfway between its first and last child. The browser's CustomJS does the same on a click."""
    out: dict[int, tuple[float, float]] = {}
    row = [0]

    def place(i: int) -> float:
        n = layout.nodes[i]
        if n.children and i not in collapsed:
            ys = [place(c) for c in n.children]
            y = (ys[0] + ys[-1]) / 2
        else:
            y = -float(row[0])
            row[0] += 1
        out[i] = (float(n.depth), y)
        return y

    if layout.nodes:
        place(0)
    return out


def auto_open_depth(layout: TreeLayout, max_rows: int = 32) -> int:
    """The most levels that can be unfolded with at most ``max_rows`` rows of ends shown (at least 1)."""
    deepest = max((n.depth for n in layout.nodes), default=0)
    best = 1
    for d in range(1, deepest + 1):
        folded = {n.id for n in layout.nodes if n.children and n.depth >= d}
        pos = positions(layout, folded)
        if int(-min(y for _, y in pos.values())) + 1 > max_rows:
            break
        best = d
    return best if deepest == 0 or best < deepest else deepest


def _short(s: str, k: int) -> str:
    return s if len(s) <= k else s[: k - 1] + "…"


def _p_label(n: PlotNode) -> str:
    if n.parent < 0:
        return ""
    if n.probability is None:
        return "choice"
    return f"{frac_text(n.probability)} ({fmt_pct(n.path_probability)} in all)" if n.path_probability is not None \
        else frac_text(n.probability)


def _tip(n: PlotNode) -> str:
    bits = []
    if n.parent >= 0:
        bits.append(f"{n.answer}: chance {frac_text(n.probability) or 'a choice'}"
                    + (f" here, {frac_text(n.path_probability)} = {fmt_pct(n.path_probability)} from the start"
                       if n.path_probability is not None else ""))
    if n.gives:
        bits.append(f"gives {n.gives}")
    if n.step:
        bits.append(f"step: {n.step}")
    if n.ask:
        bits.append(f"next: {n.ask}")
    if n.note:
        bits.append(f"rule {n.note}")
    elif n.rule:
        bits.append(f"rule {n.rule}")
    if n.result:
        bits.append(f"outcome: {n.result}")
    bits.extend(n.notes[:4])
    if n.truncated:
        bits.append("more branches follow that are not drawn (node limit of the page)")
    if n.children:
        bits.append("click to fold or unfold")
    return "\n".join(bits)


# --------------------------------------------------------------------------------------------------
# the drawing's geometry: label boxes that never overlap
# --------------------------------------------------------------------------------------------------
#: the drawing in pixels at scale 1 (the browser scales all of it alike, text included, so what does not
#: overlap at scale 1 overlaps at no zoom): one row of ends every ROW_PX, a node's two label lines from
#: LABEL_UP above its dot to LABEL_DOWN below it, LABEL_DX right of it; each column of one depth as wide as
#: its widest label and COL_GAP_PX more
ROW_PX = 36
TOP_PX = 22
LEFT_PX = 16
LABEL_DX = 10
LABEL_UP = 16
LABEL_DOWN = 16
COL_GAP_PX = 26
LABEL_SIZE, SUB_SIZE = 12, 11

# advance widths in em of DejaVu Sans (Debian's sans-serif, wider than Arial or Helvetica): an estimate
# that errs wide; the browser measures the drawn text and only ever widens a column past it
_EM = {**dict.fromkeys("abdghnopqu", 0.636), **dict.fromkeys("ceksvxyz", 0.615), "m": 0.974, "w": 0.818,
       **dict.fromkeys("fijlrt", 0.411), **dict.fromkeys("0123456789", 0.636), **dict.fromkeys("IJ", 0.295),
       **dict.fromkeys("ABCDEGHKNOQRUVXZ", 0.787), **dict.fromkeys("FLPSTY", 0.635), "M": 0.863, "W": 0.989,
       **dict.fromkeys(" .,:;'|", 0.337), **dict.fromkeys("()[]/-!", 0.401), "%": 0.95, "+": 0.838,
       "\u21d2": 0.838, "\u2026": 1.0, "\u2013": 0.5, "\u2212": 0.838}


def text_px(text: str, size: float) -> float:
    """The width in pixels of ``text`` set in a ``size``-pixel sans-serif (an estimate that errs wide, plus
    the 3 px white halo the labels are drawn with)."""
    return sum(_EM.get(ch, 0.65 if ch.isascii() else 1.0) for ch in text) * size * 1.04 + 3


@dataclass(frozen=True)
class Geometry:
    """Where the drawing puts things at scale 1: the left edge of each depth's column and each node's label
    width (pixels)."""

    colx: tuple[float, ...]
    widths: tuple[float, ...]


def _texts(layout: TreeLayout) -> tuple[list[str], list[str]]:
    """Each node's two label lines: what happened with its chance, and what comes next (or the outcome)."""
    def make():
        labels, subs = [], []
        for n in layout.nodes:
            head = n.answer + (f" ⇒ {n.gives}" if n.gives and n.gives != n.answer else "")
            p = _p_label(n)
            labels.append(_short(head, 34) + (f"  {p}" if p else ""))
            under = f"⇒ {n.result}" if n.result else (
                n.ask + (f" ({rule_number(n.rule)})" if n.rule and rule_number(n.rule) else "") if n.ask else "")
            subs.append(_short(under, 48))
        return labels, subs
    return _memo(layout, "texts", None, make)


def geometry(layout: TreeLayout) -> Geometry:
    """Columns wide enough for their widest label (every node of that depth, folded or not, so a fold never
    moves a column), made once per layout."""
    def make() -> Geometry:
        labels, subs = _texts(layout)
        widths = tuple(max(text_px(a, LABEL_SIZE), text_px(b, SUB_SIZE)) for a, b in zip(labels, subs))
        deepest = max((n.depth for n in layout.nodes), default=0)
        widest = [0.0] * (deepest + 1)
        for n, w in zip(layout.nodes, widths):
            widest[n.depth] = max(widest[n.depth], w)
        colx = [float(LEFT_PX)]
        for w in widest:
            colx.append(colx[-1] + LABEL_DX + w + COL_GAP_PX)
        return Geometry(tuple(colx), widths)
    return _memo(layout, "geometry", None, make)


def _folded(layout: TreeLayout, open_depth: int | None) -> set[int]:
    depth = auto_open_depth(layout) if open_depth is None else open_depth
    return {n.id for n in layout.nodes if n.children and n.depth >= depth}


def label_boxes(layout: TreeLayout, open_depth: int | None = None) -> dict[int, tuple[float, float, float, float]]:
    """The rectangle ``(left, top, right, bottom)`` in pixels, at the drawing's first scale, of each shown
    node's two label lines, with ``open_depth`` levels unfolded (None: as the page first shows the tree). Rows
    are ROW_PX apart and two nodes of one depth at least one row apart; columns are their widest label
    apart: no two boxes meet."""
    g = geometry(layout)
    out = {}
    for i, (_, y) in positions(layout, _folded(layout, open_depth)).items():
        n = layout.nodes[i]
        sx, sy = g.colx[n.depth], TOP_PX + (-y) * ROW_PX
        out[i] = (sx + LABEL_DX, sy - LABEL_UP, sx + LABEL_DX + g.widths[i], sy + LABEL_DOWN)
    return out


# --------------------------------------------------------------------------------------------------
# the picture
# --------------------------------------------------------------------------------------------------
_JS_LAYOUT = """
const d = src.data;
const n = d.parent.length;
if (tapped !== null) {
  const i = tapped;
  if (d.nkids[i] > 0) { d.folded[i] = d.folded[i] ? 0 : 1; }
}
const kids = Array.from({length: n}, () => []);
for (let i = 1; i < n; i++) { kids[d.parent[i]].push(i); }
const x = new Array(n).fill(NaN), y = new Array(n).fill(NaN);
let row = 0, shown = 0;
function place(i) {
  shown += 1;
  let yy;
  if (kids[i].length && !d.folded[i]) {
    const ys = kids[i].map(place);
    yy = (ys[0] + ys[ys.length - 1]) / 2;
  } else { yy = -(TOP + row * ROW); row += 1; }
  x[i] = d.cx[i]; y[i] = yy;
  return yy;
}
place(0);
const px = new Array(n).fill(NaN), py = new Array(n).fill(NaN), fill = new Array(n);
for (let i = 0; i < n; i++) {
  if (i > 0 && !isNaN(x[i])) { px[i] = x[d.parent[i]]; py[i] = y[d.parent[i]]; }
  fill[i] = d.nkids[i] == 0 ? (d.cut[i] ? '#bdbdbd' : '#2e7d32') : (d.folded[i] ? '#ffb300' : '#1f4e79');
}
src.data = Object.assign({}, d, {x: x, y: y, px: px, py: py, fill: fill});
info.text = info.text.replace(/<span class="tree-shown"[^>]*>[^<]*<\\/span>/,
  `<span class="tree-shown" data-shown="${shown}" data-rows="${row}">${shown} of ${n} nodes shown</span>`);
""".replace("TOP", str(TOP_PX)).replace("ROW", str(ROW_PX))


def _columns(layout: TreeLayout, open_depth: int) -> tuple[dict, set[int]]:
    """The drawing's columns, in pixels at scale 1 (x right, y up for Bokeh): see :func:`label_boxes`."""
    folded = {n.id for n in layout.nodes if n.children and n.depth >= open_depth}
    pos = positions(layout, folded)
    g = geometry(layout)
    labels, subs = _texts(layout)
    nan = float("nan")

    def at(i: int) -> tuple[float, float]:
        _, y = pos[i]
        return g.colx[layout.nodes[i].depth], -(TOP_PX + (-y) * ROW_PX)

    cols: dict[str, list] = {k: [] for k in ("x", "y", "px", "py", "cx", "parent", "depth", "nkids", "folded", "cut",
                                             "fill", "label", "sub", "tip", "w")}
    for n in layout.nodes:
        x, y = at(n.id) if n.id in pos else (nan, nan)
        ppx, ppy = at(n.parent) if n.parent >= 0 and n.id in pos else (nan, nan)
        cols["x"].append(x)
        cols["y"].append(y)
        cols["px"].append(ppx)
        cols["py"].append(ppy)
        cols["cx"].append(g.colx[n.depth])
        cols["parent"].append(n.parent)
        cols["depth"].append(n.depth)
        cols["nkids"].append(len(n.children))
        cols["folded"].append(1 if n.id in folded else 0)
        cols["cut"].append(1 if n.truncated else 0)
        cols["fill"].append("#2e7d32" if not n.children else ("#ffb300" if n.id in folded else "#1f4e79"))
        cols["label"].append(labels[n.id])
        cols["sub"].append(subs[n.id])
        cols["tip"].append(_tip(n))
        cols["w"].append(round(g.widths[n.id], 1))
    return cols, folded


def _memo(layout: TreeLayout, kind: str, key, make):
    """A drawing of ``layout`` kept with it: a layout is never changed once made, so what is drawn from it
    (the figure's columns, the outline) is made once and shared by every session showing it (and, made in
    a worker process, travels back with it)."""
    memo = layout.__dict__.setdefault("_drawn", {})
    k = (kind, key)
    if k not in memo:
        memo[k] = make()
    return memo[k]


@dataclass(frozen=True)
class FigureData:
    """What the picture of a layout needs: its columns (read-only, shared), rows, depth, size, status.
    ``width`` and ``height`` are the drawing's at scale 1 (pixels); ``height`` is also the box's, at most 860."""

    cols: dict
    rows: int
    maxdepth: int
    height: int
    status: str
    width: int = 0


def figure_data(layout: TreeLayout, open_depth: int | None = None, height: int | None = None) -> FigureData:
    """The figure's data for ``layout`` unfolded ``open_depth`` levels (None: as many as fit), made once."""
    def make() -> FigureData:
        depth = auto_open_depth(layout) if open_depth is None else open_depth
        cols, _ = _columns(layout, depth)
        shown = [i for i, x in enumerate(cols["x"]) if not math.isnan(x)]
        rows = 1 + max((round((-cols["y"][i] - TOP_PX) / ROW_PX) for i in shown), default=0)
        maxdepth = max((cols["depth"][i] for i in shown), default=0)
        width = int(max((cols["cx"][i] + LABEL_DX + cols["w"][i] for i in shown), default=0) + LEFT_PX)
        h = height or int(min(860, max(200, TOP_PX + ROW_PX * rows)))
        cut = (f" {layout.truncated} branch(es) not drawn (the page draws at most {MAX_NODES} nodes)."
               if layout.truncated else "")
        status = (f'<span class="tree-shown" data-shown="{len(shown)}" data-rows="{rows}">{len(shown)} of '
                  f'{len(layout)} nodes shown</span> <span class="tree-help" data-nodes="{len(layout)}">· click a '
                  f'node to fold or unfold what follows it; wheel to zoom, drag to pan; rest the mouse on a node '
                  f'for its rule.{cut}</span>')
        return FigureData(cols, rows, maxdepth, h, status, width)
    return _memo(layout, "figure", (open_depth, height), make)


def prepare(layout: TreeLayout, open_depth: int | None = None, outline_depth: int = 2) -> TreeLayout:
    """Make the picture's data and the outline now (in the worker process that laid the tree out), so the
    server only copies them into the page."""
    figure_data(layout, open_depth)
    canvas_data(layout, open_depth)
    outline_for(layout, outline_depth)
    return layout


def _figure_models(data: FigureData):
    """The picture's Bokeh models, as few as will do: one data source, one shared view, no axes, no title;
    the status line and the help share one Div that a click updates."""
    from bokeh.events import DoubleTap, Tap
    from bokeh.layouts import column
    from bokeh.models import (CDSView, ColumnDataSource, CustomJS, Div, GlyphRenderer, HoverTool, PanTool, Range1d,
                              ResetTool, Scatter, Segment, Text, WheelZoomTool)
    from bokeh.plotting import figure

    src = ColumnDataSource(dict(data.cols), name="tree-nodes")
    # one unit one pixel: the frame is the drawing's size (its height at most the box's), so the labels,
    # set in pixels, keep the spacing :func:`label_boxes` gives them; a drag shows the rest
    xr, yr = Range1d(0, data.width), Range1d(-data.height, 0)
    fig = figure(x_range=xr, y_range=yr, frame_width=data.width, frame_height=data.height, toolbar_location="above",
                 tools=[], min_border=10, name="tree-figure", output_backend="canvas", x_axis_type=None,
                 y_axis_type=None, title=None)
    fig.outline_line_color = None
    view = CDSView()
    glyphs = [Segment(x0="px", y0="py", x1="x", y1="y", line_color="#9e9e9e", line_width=1.5),
              Scatter(x="x", y="y", size=13, fill_color="fill", line_color="#263238", line_width=1),
              Text(x="x", y="y", text="label", x_offset=10, y_offset=-2, text_font_size="12px",
                   text_baseline="bottom", text_color="#1b1b1b"),
              Text(x="x", y="y", text="sub", x_offset=10, y_offset=2, text_font_size="11px", text_baseline="top",
                   text_color="#5d6d7e", text_font_style="italic")]
    renderers = [GlyphRenderer(data_source=src, glyph=g, view=view) for g in glyphs]
    fig.renderers.extend(renderers)
    info = Div(text=data.status, name="tree-status")
    hover = HoverTool(renderers=[renderers[1]], tooltips="<div style='max-width:380px;white-space:pre-wrap'>@tip</div>")
    wheel = WheelZoomTool()
    fig.add_tools(PanTool(), wheel, ResetTool(), hover)
    fig.toolbar.active_scroll = wheel
    # A tap (or a quick second tap, which Bokeh reports as a double tap) on a dot folds or unfolds it: the
    # nearest shown dot within 14 px of the pointer, found in screen units from the ranges.
    cb = CustomJS(args=dict(src=src, xr=xr, yr=yr, info=info, fig=fig), code="""
const dd = src.data;
const w = fig.inner_width, h = fig.inner_height;
let tapped = null, best = 14 * 14;
for (let i = 0; i < dd.x.length; i++) {
  if (isNaN(dd.x[i])) continue;
  const dx = (dd.x[i] - cb_obj.x) / (xr.end - xr.start) * w, dy = (dd.y[i] - cb_obj.y) / (yr.end - yr.start) * h;
  if (dx * dx + dy * dy < best) { best = dx * dx + dy * dy; tapped = i; }
}
if (tapped === null) { return; }
""" + _JS_LAYOUT)
    fig.js_on_event(Tap, cb)
    fig.js_on_event(DoubleTap, cb)
    return column(info, fig), (src, xr, yr, fig, info)


def _update_models(parts, data: FigureData) -> None:
    """Show another layout in the figure already on the page (no new models: the data, ranges, height and
    status line change in place)."""
    src, xr, yr, fig, info = parts
    src.data = dict(data.cols)
    xr.update(start=0, end=data.width)
    yr.update(start=-data.height, end=0)
    fig.update(frame_width=data.width, frame_height=data.height)
    info.text = data.status


def tree_figure(layout: TreeLayout, open_depth: int | None = None, height: int | None = None):
    """A Bokeh layout: the tree figure (wheel zoom, pan, reset, hover, click to fold) under a status line
    ("12 of 36 nodes shown") that the click updates."""
    return _figure_models(figure_data(layout, open_depth, height))[0]


# --------------------------------------------------------------------------------------------------
# the picture on a page: one browser-side component (issue 17.1: a Bokeh figure costs a page about 60 ms
# of server time, this one model a few)
# --------------------------------------------------------------------------------------------------
OUTLINE_CSS = """
.tree-outline {font-size:13px;line-height:1.45;max-height:780px;overflow:auto}
.tree-outline ul {list-style:none;margin:0;padding-left:16px;border-left:1px dotted #bbb}
.tree-outline summary {cursor:pointer}
.tree-outline .ask {color:#2f4f6f}
.tree-outline .rule {background:#eef;border-radius:3px;padding:0 4px;margin-left:4px;font-size:11px;cursor:help}
.tree-outline .p {color:#555;font-variant-numeric:tabular-nums;margin-left:6px}
.tree-outline .res {color:#1b5e20;font-weight:600}
.tree-outline .step {color:#6d4c41;font-size:12px}
.tree-outline-head {margin:0 5px 4px 5px}
"""

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
    return _memo(layout, "canvas", open_depth, make)


def canvas_params(layout: TreeLayout | None, open_depth: int | None = None) -> dict:
    """The parameters of a :class:`TreeCanvas` (or a page component made from it) showing ``layout``."""
    if layout is None or not layout.nodes:
        return dict(data="", outline="")
    return dict(data=canvas_data(layout, open_depth), outline=OUTLINE_HEAD + outline_for(layout, min(open_depth or 2, 3)))


def _cut_notice(layout: TreeLayout) -> str:
    return (f" {layout.truncated} branch(es) not drawn (the page draws at most {MAX_NODES} nodes)."
            if layout.truncated else "")

# --------------------------------------------------------------------------------------------------
# the text outline (screen readers, printing, search in page)
# --------------------------------------------------------------------------------------------------


def outline_html(layout: TreeLayout, open_depth: int = 2) -> str:
    """The same tree as nested lists: every line says what happened, its chance, then what comes next."""
    def rule_tag(n: PlotNode) -> str:
        if not n.rule:
            return ""
        return (f"<span class='rule' data-rule='{html.escape(n.rule, quote=True)}' "
                f"title='{html.escape(n.note or 'rule ' + n.rule, quote=True)}'>rule {html.escape(n.rule)}</span>")

    def line(n: PlotNode) -> str:
        bits = [f"<b>{html.escape(n.answer)}</b>"]
        if n.gives and n.gives != n.answer:
            bits.append(f"⇒ {html.escape(n.gives)}")
        p = _p_label(n)
        if p:
            bits.append(f"<span class='p' data-p='{frac_text(n.probability)}'>{html.escape(p)}</span>")
        if n.result:
            bits.append(f"⇒ <span class='res'>{html.escape(n.result)}</span>")
        if n.ask:
            bits.append(f"· <span class='ask'>{html.escape(n.ask)}</span>{rule_tag(n)}")
        if n.step:
            bits.append(f"<span class='step'>({html.escape(n.step)})</span>")
        return " ".join(bits)

    def item(n: PlotNode) -> str:
        more = "<li>… more branches not drawn</li>" if n.truncated else ""
        if not n.children:
            return f"<li data-node='{n.id}'>{line(n)}{'<ul>' + more + '</ul>' if more else ''}</li>"
        opened = " open" if n.depth < open_depth else ""
        kids = "".join(item(layout.nodes[c]) for c in n.children)
        return f"<li data-node='{n.id}'><details{opened}><summary>{line(n)}</summary><ul>{kids}{more}</ul></details></li>"

    if not layout.nodes:
        return "<div class='tree-outline'></div>"
    return f"<div class='tree-outline' role='tree'><ul>{item(layout.nodes[0])}</ul></div>"


def outline_for(layout: TreeLayout, open_depth: int = 2) -> str:
    """:func:`outline_html`, made once per layout and depth (shared by every session showing the layout)."""
    return _memo(layout, "outline", open_depth, lambda: outline_html(layout, open_depth))


OUTLINE_HEAD = "<div class='tree-outline-head'><b>The same tree as text</b></div>"


class TreePlot(pn.viewable.Viewer):
    """The picture and the text outline of one tree (a notebook shows it with ``TreePlot(tree)``).

    One page part (:class:`TreeCanvas`: the picture, drawn in the browser, with the text outline beside it); a
    new layout changes its data in place rather than drawing a new one. The Bokeh
    drawing of the same tree is :func:`tree_figure` (about ten times the server time of a page)."""

    layout = param.ClassSelector(class_=TreeLayout, allow_None=True)
    open_depth = param.Integer(default=None, bounds=(1, 12), allow_None=True,
                               doc="levels unfolded when the picture is drawn (None: as many as fit)")

    def __init__(self, tree: Tree | TreeLayout | None = None, system: str = "n20", **params):
        if isinstance(tree, Tree):
            tree = layout_tree(tree, rule_note=rule_note_for(system))
        super().__init__(layout=tree, **params)
        self._plot = TreeCanvas(sizing_mode="stretch_width", css_classes=["tree-plot"], min_width=300)
        self._redraw()
        self.param.watch(lambda *_: self._redraw(), ["layout", "open_depth"])
        self._view = self._plot

    def _redraw(self) -> None:
        lay = self.layout
        self._plot.param.update(**canvas_params(lay, self.open_depth))

    def __panel__(self):
        return self._view
