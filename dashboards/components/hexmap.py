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
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable

import numpy as np
from bokeh import events
from bokeh.models import ColumnDataSource, HoverTool, TapTool
from bokeh.plotting import figure

from engine.core.hexgrid import HexGrid

__all__ = ["MapSpec", "Counter", "Marked", "TERRAIN_COLOURS", "SIDE_COLOURS", "HexMapFigure", "hex_at",
           "map_extent"]

TERRAIN_COLOURS = {
    "clear": "#e9e4c9", "forest": "#8fbf7f", "rough": "#c8b08a", "marsh": "#a9c8c0", "swamp": "#a9c8c0",
    "town": "#d9a6a6", "fortified": "#9e8fb5", "redoubt": "#b59e8f", "prohibited": "#555555",
}
FEATURE_STYLE = {  # hexside feature -> (colour, line width, dash)
    "minor_river": ("#4a90d9", 3, "solid"), "major_river": ("#1f5fa8", 6, "solid"),
    "bridge": ("#6d4c41", 8, "solid"), "ford": ("#80deea", 6, "dashed"),
    "slope": ("#8d6e63", 3, "dotted"), "steep_slope": ("#5d4037", 5, "dotted"),
}
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


def _axial(spec: MapSpec, hexes: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
    """Axial (q, r) of each hex: Bokeh's ``hex_tile`` puts (q, r) where :meth:`MapSpec.center` does."""
    qr = [spec.grid.to_cube(h)[:2] for h in hexes]
    q = np.array([a for a, _ in qr], dtype=np.int32)
    r = np.array([b for _, b in qr], dtype=np.int32)
    return q, r


def _frozen(a) -> np.ndarray:
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
    q, r = _axial(spec, hexes)
    centres = [spec.center(h) for h in hexes]
    out: dict = {"terrain": {"q": _frozen(q), "r": _frozen(r), "hex": hexes,
                             "terrain": [spec.terrain[h] for h in hexes],
                             "name": [spec.names.get(h, "") for h in hexes],
                             "colour": [TERRAIN_COLOURS.get(spec.terrain[h], "#eeeeee") for h in hexes]},
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
    out["extent"] = map_extent(spec)
    spec.__dict__["_static_layers"] = out
    return out


def _hexside_lines(spec: MapSpec) -> dict[str, list]:
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
    """

    def __init__(self, spec: MapSpec, width: int = 900, show_labels: bool = True):
        self.spec = spec
        st = static_layers(spec)   # shared by every session's figure of this map
        x0, y0, x1, y1 = st["extent"]
        height = int((width - 110) * (y1 - y0) / (x1 - x0)) + 40
        self.fig = fig = figure(width=width, height=height, match_aspect=True, x_range=(x0, x1), y_range=(y0, y1),
                                tools="pan,wheel_zoom,reset", toolbar_location="above",
                                title=spec.title or None, name="hexmap", x_axis_type=None, y_axis_type=None)
        fig.background_fill_color = "#fafafa"
        fig.toolbar.logo = None
        # hexes as Bokeh hex tiles on their axial (q, r): two small integer arrays instead of six corners a hex
        orient = "flattop" if spec.grid.orientation == "flat" else "pointytop"
        self._orient = orient
        self.terrain_source = ColumnDataSource(dict(st["terrain"]), name="terrain")
        r_terrain = fig.hex_tile("q", "r", size=1.0, orientation=orient, source=self.terrain_source,
                                 fill_color="colour", line_color="#9e9e9e", line_width=0.6,
                                 nonselection_fill_alpha=1.0, selection_fill_alpha=1.0, nonselection_line_alpha=1.0)
        fig.add_tools(HoverTool(renderers=[r_terrain], tooltips=[("hex", "@hex"), ("terrain", "@terrain"),
                                                                 ("name", "@name")]))
        tap = TapTool(renderers=[r_terrain])
        fig.add_tools(tap)
        fig.toolbar.active_tap = tap
        self._draw_hexsides(st["hexsides"])
        rx, ry = st["roads"]
        if rx:
            fig.multi_line(rx, ry, line_color="#7b5e3b", line_width=2.5, line_dash="dashed", legend_label="road")
        # overlays (highlight under the counters)
        self.highlight_source = ColumnDataSource({"q": [], "r": [], "hex": [], "text": [], "colour": []})
        r_hl = fig.hex_tile("q", "r", size=1.0, orientation=orient, source=self.highlight_source, fill_color="colour",
                            fill_alpha=0.55, line_color="#333333", line_width=1.5)
        self.highlight_text = ColumnDataSource({"x": [], "y": [], "text": []})
        fig.text("x", "y", "text", source=self.highlight_text, text_font_size="9pt", text_font_style="bold",
                 text_align="center", text_baseline="middle")
        fig.add_tools(HoverTool(renderers=[r_hl], tooltips=[("hex", "@hex"), ("", "@text")]))
        self.path_source = ColumnDataSource({"xs": [], "ys": [], "colour": [], "what": []})
        fig.multi_line("xs", "ys", source=self.path_source, line_color="colour", line_width=4, line_alpha=0.8)
        # LOC, objectives, garrisons: one scatter (marker per point, legend entry per kind)
        if st["marks"]["x"]:
            fig.scatter("x", "y", marker="marker", size="size", fill_color="colour", line_color="black",
                        source=ColumnDataSource(dict(st["marks"])), legend_field="what")
        if show_labels:   # hex numbers and place names
            fig.text("x", "y", "text", source=ColumnDataSource(dict(st["labels"])), text_font_size="size",
                     text_color="colour", text_font_style="style", text_align="center", text_baseline="middle")
        # counters (a rectangle each)
        self.counter_source = ColumnDataSource({k: [] for k in ("x", "y", "id", "name", "side", "kind", "values",
                                                               "markers", "colour", "outline", "lw")})
        r_c = fig.rect("x", "y", width=1.1, height=0.88, source=self.counter_source, fill_color="colour",
                       line_color="outline", line_width="lw", fill_alpha=0.95)
        fig.add_tools(HoverTool(renderers=[r_c], tooltips=[("unit", "@name (@id)"), ("side", "@side"),
                                                           ("type", "@kind"), ("strength-move", "@values"),
                                                           ("markers", "@markers")]))
        self.counter_text = ColumnDataSource({"x": [], "y": [], "text": [], "colour": []})
        fig.text("x", "y", "text", source=self.counter_text, text_color="colour", text_font_size="8pt",
                 text_font_style="bold", text_align="center", text_baseline="middle")
        if fig.legend:
            legend = fig.legend[0]
            legend.label_text_font_size = "8pt"
            legend.click_policy = "hide"
            fig.add_layout(legend, "right")
        self._tap_callbacks: list = []
        fig.on_event(events.Tap, self._tapped)
        # a second click on the same spot soon after the first comes as a double tap, not a tap
        fig.on_event(events.DoubleTap, self._tapped)

    def _draw_hexsides(self, lines) -> None:
        """Every hexside feature in one segment renderer (style per line, legend entry per feature)."""
        if len(lines["x0"]):
            self.fig.segment("x0", "y0", "x1", "y1", source=ColumnDataSource(dict(lines)), line_color="colour",
                             line_width="width", line_dash="dash", legend_field="feature")

    # -- updates ------------------------------------------------------------------------------------
    def set_counters(self, counters: Iterable[Counter], selected: Iterable[str] = ()) -> None:
        spec, sel, s = self.spec, set(selected), 0.55
        cols: dict[str, list] = {k: [] for k in self.counter_source.data}
        tx, ty, tt, tc = [], [], [], []
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
            tx += [x, x]
            ty += [y + 0.14, y - 0.2]
            tt += [(c.kind[:3].upper() if c.kind else "?") + ("*" if c.elite else ""), f"{c.strength}-{c.movement}"]
            tc += ["white", "white"]
            if c.markers:
                tx.append(x)
                ty.append(y - s * 0.8 - 0.2)
                tt.append(" ".join(m if len(m) < 9 else m[:8] for m in c.markers))
                tc.append("#b71c1c")
        self.counter_source.data = cols
        self.counter_text.data = {"x": tx, "y": ty, "text": tt, "colour": tc}

    def set_highlights(self, marked: Iterable[Marked]) -> None:
        marked = [m for m in marked if m.hex in self.spec.terrain]
        q, r = _axial(self.spec, [m.hex for m in marked])
        cols: dict = {"q": q, "r": r}
        cols.update(hex=[m.hex for m in marked], text=[m.text for m in marked], colour=[m.colour for m in marked])
        self.highlight_source.data = cols
        pts = [(self.spec.center(m.hex), m.text) for m in marked if m.text]
        self.highlight_text.data = {"x": [p[0][0] for p in pts], "y": [p[0][1] for p in pts],
                                    "text": [p[1] for p in pts]}

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
