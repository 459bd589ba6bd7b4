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

The parts (issue 27.6): :mod:`dashboards.render.tree_layout` (the layout and its words),
:mod:`dashboards.render.tree_geometry` (label boxes, the figure's columns), :mod:`dashboards.render.tree_bokeh`
(the Bokeh figure), :mod:`dashboards.render.tree_outline` (the text outline) and
:mod:`dashboards.render.tree_canvas` (the page's component); this module names them in one place and
holds :class:`TreePlot`, the picture and outline of one tree.
"""
from __future__ import annotations

import panel as pn
import param

from engine.core.tree import Tree

from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_bokeh import tree_figure
from dashboards.render.tree_canvas import CANVAS_JS, TreeCanvas, canvas_data, canvas_params, prepare
from dashboards.render.tree_geometry import (COL_GAP_PX, LABEL_DOWN, LABEL_DX, LABEL_UP, LEFT_PX, ROW_PX, TOP_PX,
                                             FigureData, Geometry, figure_data, geometry, label_boxes, text_px)
from dashboards.render.tree_layout import (MAX_NODES, PlotNode, TreeLayout, ask_text, auto_open_depth, band_text,
                                           describe, frac_text, layout_tree, positions)
from dashboards.render.tree_outline import OUTLINE_CSS, OUTLINE_HEAD, outline_for, outline_html

__all__ = ["PlotNode", "TreeLayout", "layout_tree", "positions", "auto_open_depth", "tree_figure", "outline_html", "TreePlot",
           "describe", "frac_text", "MAX_NODES", "OUTLINE_CSS", "figure_data", "outline_for", "prepare",
           "TreeCanvas", "canvas_data", "canvas_params", "CANVAS_JS", "text_px", "Geometry", "geometry", "label_boxes",
           "ROW_PX"]

__all__ += ["band_text", "ask_text", "TOP_PX", "LEFT_PX", "LABEL_DX", "LABEL_UP", "LABEL_DOWN", "COL_GAP_PX",
            "FigureData", "OUTLINE_HEAD"]


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
