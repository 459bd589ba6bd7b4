"""Hex map drawing (Bokeh): terrain, hexside features, roads, labels, LOC/objectives, unit counters.

Game-agnostic: it draws a :class:`MapSpec` (plain data a page builds from its game's map model) in the
printed orientation and XXYY numbering of :class:`engine.core.hexgrid.HexGrid`, with row 01 at the top.
Overlays (reachable hexes with costs, a selection, retreat paths with hazards, ZOC) are separate layers
so that a page can redraw them without redrawing the terrain. :func:`hex_at` turns a tap position back
into a hex label.

Drawn with Bokeh glyphs on ColumnDataSources rather than HoloViews elements: with HoloViews, a
260-hex map took about 4 s to render (one multi-path element per hex side group and per hex), while
the Bokeh figure builds in a few tens of milliseconds and an overlay update only replaces one
source's data.

The n20 board of /map and /play no longer uses :class:`HexMapFigure`: it is drawn in the browser as SVG by
:mod:`dashboards.render.hexboard` from the same :func:`static_layers` (one model a session instead of
some 60, issue 17.1). The TBF play board still draws on this figure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import numpy as np
from bokeh import events
from bokeh.core.properties import field as column
from bokeh.models import (AllIndices, CDSView, ColumnDataSource, HexTile, HoverTool, MultiLine, Range1d, Rect, Scatter,
                          Segment, Text, UnionRenderers)
from bokeh.models.annotations import Legend, LegendItem      # (the names bokeh.models re-exports)
from bokeh.models.renderers import GlyphRenderer
from bokeh.plotting import figure

from engine.core.hexgrid import HexGrid

__all__ = ["MapSpec", "Counter", "Marked", "TERRAIN_COLOURS", "TBF_COLOURS", "SIDE_COLOURS", "HexMapFigure", "hex_at",
           "map_extent", "axial_of"]

TERRAIN_COLOURS = {
    "clear": "#e9e4c9", "forest": "#8fbf7f", "rough": "#c8b08a", "marsh": "#a9c8c0", "swamp": "#a9c8c0",
    "town": "#d9a6a6", "fortified": "#9e8fb5", "redoubt": "#b59e8f", "prohibited": "#555555",
}
FEATURE_STYLE = {  # hexside feature -> (colour, line width, dash)
    "minor_river": ("#4a90d9", 3, "solid"), "major_river": ("#1f5fa8", 6, "solid"),
    "bridge": ("#6d4c41", 8, "solid"), "ford": ("#80deea", 6, "dashed"),
    "slope": ("#8d6e63", 3, "dotted"), "steep_slope": ("#5d4037", 5, "dotted"),
}
#: These Brave Fellows' terrain (elevation levels, vineyards, towns, the river): the TBF calculator's map and
#: the play board draw with these
TBF_COLOURS = {"level0": "#eef0d8", "level1": "#d8cfa0", "level2": "#b89a6a", "level3": "#8a6a48",
               "vineyard": "#b7c98a", "town": "#d9a6a6", "river": "#8fb8e0"}
SIDE_COLOURS = {"french": "#3f6fb5", "allied": "#c0392b", "anglo-allied": "#c0392b", "prussian": "#333333"}


@dataclass(frozen=True)
class Counter:
    """A unit counter: where it is and what it shows (side, type, strength-movement, markers)."""

    id: str
    hex: str
    side: str
    kind: str            # infantry / cavalry / artillery / leader / supply ...
    strength: int | str
    movement: int | str
    name: str = ""
    markers: tuple[str, ...] = ()   # "Routed!", "fatigue 1", "square", "spent", ...
    elite: bool = False


@dataclass
class MapSpec:
    grid: HexGrid
    terrain: dict[str, str]                                   # every hex -> terrain name
    names: dict[str, str] = field(default_factory=dict)
    hexsides: list[tuple[str, str, tuple[str, ...], str | None]] = field(default_factory=list)
    roads: list[list[str]] = field(default_factory=list)
    loc: dict[str, list[str]] = field(default_factory=dict)
    objectives: list[tuple[str, str, int]] = field(default_factory=list)
    garrisons: dict[str, tuple[str, int]] = field(default_factory=dict)
    title: str = ""
    source: str = "provisional"
    notes: str = ""

    def center(self, h: str) -> tuple[float, float]:
        x, y = self.grid.center(h)
        return x, -y  # printed maps have row 01 at the top

    def corners(self, h: str) -> list[tuple[float, float]]:
        return [(x, -y) for x, y in self.grid.corners(h)]


@dataclass(frozen=True)
class Marked:
    """A hex to highlight with a short text (a movement cost, a hazard count, a probability)."""

    hex: str
    text: str = ""
    colour: str = "#ffd54f"


def map_extent(spec: MapSpec, pad: float = 1.2) -> tuple[float, float, float, float]:
    xs, ys = zip(*(spec.center(h) for h in spec.terrain))
    return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad


def axial_of(spec: MapSpec, hexes: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """Axial (q, r) of each hex: Bokeh's ``hex_tile`` puts (q, r) where :meth:`MapSpec.center` does."""
    qr = [spec.grid.to_cube(h)[:2] for h in hexes]
    q = np.array([a for a, _ in qr], dtype=np.int32)
    r = np.array([b for _, b in qr], dtype=np.int32)
    return q, r


#: a layer's columns for a data source: lists, or read-only arrays shared by every figure of a map
Columns = dict[str, list[Any] | np.ndarray]


def _frozen(a: Any) -> np.ndarray:
    a = np.asarray(a)
    a.flags.writeable = False
    return a


def static_layers(spec: MapSpec) -> dict:
    """What every figure of ``spec`` draws the same way (terrain, hexsides, roads, marks, labels), computed
    once per map and shared by every session's figure (read-only arrays: the figures only read them)."""
    cached = spec.__dict__.get("_static_layers")
    if cached is not None:
        return cached
    hexes = list(spec.terrain)
    q, r = axial_of(spec, hexes)
    centres = [spec.center(h) for h in hexes]
    names = [spec.names.get(h, "") for h in hexes]
    out: dict = {"terrain": {"q": _frozen(q), "r": _frozen(r), "hex": hexes,
                             "terrain": [spec.terrain[h] for h in hexes],
                             "name": names,
                             "colour": [TERRAIN_COLOURS.get(spec.terrain[h], "#eeeeee") for h in hexes],
                             # where the figure writes each hex's number and name, and its hover text
                             "lx": _frozen([x for x, _ in centres]), "ly": _frozen([y + 0.62 for _, y in centres]),
                             "nx": _frozen([x for x, _ in centres]), "ny": _frozen([y - 0.58 for _, y in centres]),
                             "tip": [f"hex {h} · {spec.terrain[h]}" + (f" · {n}" if n else "")
                                     for h, n in zip(hexes, names)]},
                 }
    named = [h for h in spec.names if h in spec.terrain]
    out["labels"] = {"x": _frozen([x for x, _ in centres] + [spec.center(h)[0] for h in named]),
                     "y": _frozen([y + 0.62 for _, y in centres] + [spec.center(h)[1] - 0.58 for h in named]),
                     "text": hexes + [spec.names[h] for h in named],
                     "size": ["6pt"] * len(hexes) + ["7pt"] * len(named),
                     "colour": ["#555555"] * len(hexes) + ["#3e2723"] * len(named),
                     "style": ["normal"] * len(hexes) + ["italic"] * len(named)}
    out["roads"] = ([[spec.center(h)[0] for h in c] for c in spec.roads if len(c) > 1],
                    [[spec.center(h)[1] for h in c] for c in spec.roads if len(c) > 1])
    marks: dict[str, list] = {k: [] for k in ("x", "y", "marker", "size", "colour", "what")}

    def mark(x, y, marker, size, colour, what):
        for k, v in zip(marks, (x, y, marker, size, colour, what)):
            marks[k].append(v)

    for side, hs in spec.loc.items():
        for h in hs:
            if h in spec.terrain:
                mark(spec.center(h)[0], spec.center(h)[1] + 0.35, "triangle", 11, SIDE_COLOURS.get(side, "#777"), "LOC")
    for h, side, _ in spec.objectives:
        if h in spec.terrain:
            mark(spec.center(h)[0] - 0.45, spec.center(h)[1] + 0.3, "star", 15, "#ffd600", "objective")
    for h, (side, _) in spec.garrisons.items():
        if h in spec.terrain:
            mark(spec.center(h)[0] + 0.45, spec.center(h)[1] + 0.3, "square_pin", 12, SIDE_COLOURS.get(side, "#777"),
                 "garrison")
    out["marks"] = marks
    out["hexsides"] = _hexside_lines(spec)
    out["lines"] = _with_roads(out["hexsides"], out["roads"])
    out["extent"] = map_extent(spec)
    spec.__dict__["_static_layers"] = out
    return out


def _hexside_lines(spec: MapSpec) -> Columns:
    by_feature: dict[str, tuple[list, list]] = {}
    ticks_x, ticks_y = [], []
    for a, b, features, upslope in spec.hexsides:
        try:
            (ax, ay), (bx, by) = spec.grid.hexside_segment(a, b)
        except ValueError:
            continue
        ay, by = -ay, -by
        for f in features:
            xs, ys = by_feature.setdefault(f, ([], []))
            if f in ("bridge", "ford"):  # a short mark across the middle of the side
                (c1x, c1y), (c2x, c2y) = spec.center(a), spec.center(b)
                mx, my = (ax + bx) / 2, (ay + by) / 2
                dx, dy = (c2x - c1x) * 0.22, (c2y - c1y) * 0.22
                xs.append([mx - dx, mx + dx])
                ys.append([my - dy, my + dy])
            else:
                xs.append([ax, bx])
                ys.append([ay, by])
        if upslope and any(f in ("slope", "steep_slope") for f in features):
            ux, uy = spec.center(upslope)
            mx, my = (ax + bx) / 2, (ay + by) / 2
            ticks_x.append([mx, mx + (ux - mx) * 0.25])
            ticks_y.append([my, my + (uy - my) * 0.25])
    order = ["minor_river", "major_river", "slope", "steep_slope", "ford", "bridge"]
    cols: dict[str, list] = {k: [] for k in ("x0", "y0", "x1", "y1", "colour", "width", "dash", "feature")}

    def add(xs, ys, colour, width, dash, label):
        for (ax, bx), (ay, by) in zip(xs, ys):
            for k, v in zip(cols, (ax, ay, bx, by, colour, width, dash, label)):
                cols[k].append(v)

    for f in sorted(by_feature, key=lambda k: order.index(k) if k in order else 99):
        colour, lw, dash = FEATURE_STYLE.get(f, ("#000000", 2, "solid"))
        add(*by_feature[f], colour, lw, dash, f.replace("_", " "))
    add(ticks_x, ticks_y, "#5d4037", 2, "solid", "upslope")
    return {k: (_frozen(v) if k in ("x0", "y0", "x1", "y1", "width") else v) for k, v in cols.items()}


def _with_roads(sides: Columns, roads: tuple[list[Any], list[Any]]) -> Columns:
    """The hexside lines and the roads (each step of a road a dashed segment) as one set of columns."""
    cols = {k: list(v) for k, v in sides.items()}
    for xs, ys in zip(*roads):
        for i in range(len(xs) - 1):
            for k, v in zip(("x0", "y0", "x1", "y1", "colour", "width", "dash", "feature"),
                            (xs[i], ys[i], xs[i + 1], ys[i + 1], "#7b5e3b", 2.5, "dashed", "road")):
                cols[k].append(v)
    return {k: (_frozen(v) if k in ("x0", "y0", "x1", "y1", "width") else v) for k, v in cols.items()}


def _patch_cols(spec: MapSpec, hexes: Iterable[str]) -> dict[str, list]:
    xs, ys = [], []
    for h in hexes:
        cx, cy = zip(*spec.corners(h))
        xs.append(list(cx))
        ys.append(list(cy))
    return {"xs": xs, "ys": ys}


class HexMapFigure:
    """One Bokeh figure of a map, with layers a page updates: counters, highlights, paths, selection.

    ``on_tap(callback)`` calls ``callback(hex_label)`` when the user clicks a hex (None off the map).

    Every Bokeh model is a cost each session pays again (built, then sent to the browser: issue 17), so
    the figure is lean: layers that belong together share one data source (the hex numbers and names
    are drawn from the terrain's, the roads are segments of the hexsides' source, the counters' labels
    come from the counters'), each source has one view shared by its layers, the renderers carry no
    selection or muted glyphs of their own (nothing is ever selected: a tap is read from the figure's
    event), and one hover tool reads a ``tip`` column that each hovered source fills.
    """

    def __init__(self, spec: MapSpec, width: int = 900, show_labels: bool = True):
        self.spec = spec
        st = static_layers(spec)   # shared by every session's figure of this map
        x0, y0, x1, y1 = st["extent"]
        height = int((width - 110) * (y1 - y0) / (x1 - x0)) + 40
        self.fig = fig = figure(width=width, height=height, match_aspect=True, x_range=Range1d(x0, x1),
                                y_range=Range1d(y0, y1), tools="pan,wheel_zoom,reset", toolbar_location="above",
                                title=spec.title or None, name="hexmap", x_axis_type=None, y_axis_type=None)
        fig.background_fill_color = "#fafafa"
        fig.toolbar.logo = None
        # hexes as Bokeh hex tiles on their axial (q, r): two small integer arrays instead of six corners a hex
        orient: Literal["flattop", "pointytop"] = "flattop" if spec.grid.orientation == "flat" else "pointytop"
        self._orient = orient
        self._policy = UnionRenderers()      # one (stateless) selection policy and filter for every source
        self._all = AllIndices()
        self._views: dict[int, CDSView] = {}
        legend: list[LegendItem] = []
        self.terrain_source = self._source(dict(st["terrain"]), name="terrain")
        r_terrain = self._layer(self.terrain_source, HexTile(q="q", r="r", size=1.0, orientation=orient,
                                                             fill_color=column("colour"), line_color="#9e9e9e",
                                                             line_width=0.6))
        lines = st["lines"]
        if len(lines["x0"]):    # every hexside feature and road in one segment layer (style per line)
            r_lines = self._layer(self._source(dict(lines)), Segment(
                x0="x0", y0="y0", x1="x1", y1="y1", line_color=column("colour"), line_width=column("width"),
                line_dash=column("dash")))
            legend.append(LegendItem(label=column("feature"), renderers=[r_lines]))
        # overlays (highlight under the counters), a highlight's text from the same source
        self.highlight_source = self._source({"q": [], "r": [], "x": [], "y": [], "hex": [], "text": [],
                                              "colour": [], "tip": []})
        r_hl = self._layer(self.highlight_source, HexTile(q="q", r="r", size=1.0, orientation=orient,
                                                          fill_color=column("colour"), fill_alpha=0.55,
                                                          line_color="#333333", line_width=1.5))
        self._layer(self.highlight_source, Text(x="x", y="y", text="text", text_font_size="9pt",
                                                text_font_style="bold", text_align="center", text_baseline="middle"))
        self.path_source = self._source({"xs": [], "ys": [], "colour": [], "what": []})
        self._layer(self.path_source, MultiLine(xs="xs", ys="ys", line_color=column("colour"), line_width=4,
                                                line_alpha=0.8))
        # LOC, objectives, garrisons: one scatter (marker per point, legend entry per kind)
        if st["marks"]["x"]:
            r_marks = self._layer(self._source(dict(st["marks"])), Scatter(
                x="x", y="y", marker=column("marker"), size=column("size"), fill_color=column("colour"),
                line_color="black"))
            legend.append(LegendItem(label=column("what"), renderers=[r_marks]))
        if show_labels:   # hex numbers and place names, from the terrain's source
            self._layer(self.terrain_source, Text(x="lx", y="ly", text="hex", text_font_size="6pt",
                                                  text_color="#555555", text_align="center", text_baseline="middle"))
            if any(st["terrain"]["name"]):
                self._layer(self.terrain_source, Text(x="nx", y="ny", text="name", text_font_size="7pt",
                                                      text_color="#3e2723", text_font_style="italic",
                                                      text_align="center", text_baseline="middle"))
        # counters (a rectangle each; its type, strength-movement and markers drawn from the same source)
        self.counter_source = self._source({k: [] for k in ("x", "y", "id", "name", "side", "kind", "values",
                                                            "markers", "colour", "outline", "lw", "label", "ky",
                                                            "vy", "marks", "my", "tip")})
        r_c = self._layer(self.counter_source, Rect(x="x", y="y", width=1.1, height=0.88, fill_color=column("colour"),
                                                    line_color=column("outline"), line_width=column("lw"),
                                                    fill_alpha=0.95))
        for y, text, colour in (("ky", "label", "white"), ("my", "marks", "#b71c1c")):   # type over strength-move
            self._layer(self.counter_source, Text(x="x", y=y, text=text, text_color=colour, text_font_size="8pt",
                                                  text_font_style="bold", text_align="center",
                                                  text_baseline="middle", text_line_height=1.1))
        fig.add_tools(HoverTool(renderers=[r_terrain, r_hl, r_c], tooltips="@tip"))
        if legend:
            fig.add_layout(Legend(items=legend, label_text_font_size="8pt", click_policy="hide"), "right")
        self._tap_callbacks: list = []
        fig.on_event(events.Tap, self._tapped)
        # a second click on the same spot soon after the first comes as a double tap, not a tap
        fig.on_event(events.DoubleTap, self._tapped)

    def _source(self, data: dict, **kw) -> ColumnDataSource:
        return ColumnDataSource(data, selection_policy=self._policy, **kw)

    def _layer(self, source: ColumnDataSource, glyph) -> GlyphRenderer:
        """A renderer of ``glyph`` on ``source`` (the view of that source shared by all its layers)."""
        view = self._views.get(id(source))
        if view is None:
            view = self._views[id(source)] = CDSView(filter=self._all)
        r = GlyphRenderer(data_source=source, glyph=glyph, view=view)
        self.fig.renderers.append(r)
        return r

    # -- updates ------------------------------------------------------------------------------------
    def set_counters(self, counters: Iterable[Counter], selected: Iterable[str] = ()) -> None:
        spec, sel, s = self.spec, set(selected), 0.55
        cols: dict[str, list[Any]] = {k: [] for k in self.counter_source.data}
        v: object                       # (a column's value: a text, a number)
        for c in counters:
            if c.hex not in spec.terrain:
                continue
            x, y = spec.center(c.hex)
            cols["x"].append(x)
            cols["y"].append(y)
            for k, v in (("id", c.id), ("name", c.name or c.id), ("side", c.side), ("kind", c.kind),
                         ("values", f"{c.strength}-{c.movement}"), ("markers", ", ".join(c.markers) or "none"),
                         ("colour", SIDE_COLOURS.get(c.side, "#777777")),
                         ("outline", "#ffeb3b" if c.id in sel else "#111111"), ("lw", 4 if c.id in sel else 1)):
                cols[k].append(v)
            marks = " ".join(m if len(m) < 9 else m[:8] for m in c.markers)
            kind = (c.kind[:3].upper() if c.kind else "?") + ("*" if c.elite else "")
            for k, v in (("label", f"{kind}\n{c.strength}-{c.movement}"), ("ky", y - 0.03), ("vy", y - 0.2),
                         ("marks", marks), ("my", y - s * 0.8 - 0.2),
                         ("tip", f"{c.name or c.id} ({c.id}) · {c.side} {c.kind} {c.strength}-{c.movement}"
                                 + (f" · {', '.join(c.markers)}" if c.markers else ""))):
                cols[k].append(v)
        self.counter_source.data = cols

    def set_highlights(self, marked: Iterable[Marked]) -> None:
        marked = [m for m in marked if m.hex in self.spec.terrain]
        q, r = axial_of(self.spec, [m.hex for m in marked])
        cols: dict = {"q": q, "r": r}
        centres = [self.spec.center(m.hex) for m in marked]
        cols.update(x=[x for x, _ in centres], y=[y for _, y in centres], hex=[m.hex for m in marked],
                    text=[m.text for m in marked], colour=[m.colour for m in marked],
                    tip=[f"hex {m.hex}" + (f": {m.text}" if m.text else "") for m in marked])
        self.highlight_source.data = cols

    def set_paths(self, paths: Iterable[tuple[list[str], str, str]]) -> None:
        """``paths``: ``(hexes, colour, what)``, e.g. retreat paths."""
        paths = [p for p in paths if len(p[0]) > 1]
        self.path_source.data = {"xs": [[self.spec.center(h)[0] for h in p] for p, _, _ in paths],
                                 "ys": [[self.spec.center(h)[1] for h in p] for p, _, _ in paths],
                                 "colour": [c for _, c, _ in paths], "what": [w for _, _, w in paths]}

    # -- taps ---------------------------------------------------------------------------------------
    def on_tap(self, callback) -> None:
        self._tap_callbacks.append(callback)

    def _tapped(self, event) -> None:
        h = hex_at(self.spec, event.x, event.y)
        for cb in self._tap_callbacks:
            cb(h)

    def tap(self, hex_label: str) -> None:
        """Act as if the user clicked ``hex_label`` (for tests and keyboard entry)."""
        for cb in self._tap_callbacks:
            cb(hex_label)

def hex_at(spec: MapSpec, x: float | None, y: float | None) -> str | None:
    """The hex whose centre is nearest to a tapped point (None outside the map)."""
    if x is None or y is None:
        return None
    best, dist = None, math.inf
    for h in spec.terrain:
        cx, cy = spec.center(h)
        d = (cx - x) ** 2 + (cy - y) ** 2
        if d < dist:
            best, dist = h, d
    return best if dist <= 1.0 else None
