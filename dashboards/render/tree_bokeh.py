"""The tree picture as a Bokeh figure (issue 27.6: split from :mod:`dashboards.render.tree_plot`), with a
``CustomJS`` fold on tap, for a saved HTML file or a notebook that wants one (a page draws
:class:`~dashboards.render.tree_canvas.TreeCanvas`)."""
from __future__ import annotations

from dashboards.render.tree_geometry import ROW_PX, TOP_PX, FigureData, figure_data
from dashboards.render.tree_layout import TreeLayout

__all__ = ["tree_figure"]


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
