"""The tree picture's geometry (issue 27.6: split from :mod:`dashboards.render.tree_plot`): label boxes that
never overlap, and the figure's columns that the browser's drawing (:mod:`dashboards.render.tree_canvas`)
and the Bokeh figure (:mod:`dashboards.render.tree_bokeh`) share."""
from __future__ import annotations

import math
from dataclasses import dataclass

from dashboards.common.rule_notes import rule_number
from dashboards.render.tree_layout import (MAX_NODES, TreeLayout, auto_open_depth, made_once, node_tip, p_label,
                                           positions, shorten)

__all__ = ["ROW_PX", "TOP_PX", "LEFT_PX", "LABEL_DX", "LABEL_UP", "LABEL_DOWN", "COL_GAP_PX", "text_px", "Geometry",
           "geometry", "label_boxes", "FigureData", "figure_data"]


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
            p = p_label(n)
            labels.append(shorten(head, 34) + (f"  {p}" if p else ""))
            under = f"⇒ {n.result}" if n.result else (
                n.ask + (f" ({rule_number(n.rule)})" if n.rule and rule_number(n.rule) else "") if n.ask else "")
            subs.append(shorten(under, 48))
        return labels, subs
    return made_once(layout, "texts", None, make)


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
    return made_once(layout, "geometry", None, make)


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
        cols["tip"].append(node_tip(n))
        cols["w"].append(round(g.widths[n.id], 1))
    return cols, folded


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
    return made_once(layout, "figure", (open_depth, height), make)
