"""Lines of Battle area map: areas as discs (terrain colour, holder ring), borders as lines (river, stream,
road, approach marks), a tap selects an area.

Drawing only: the map data comes from :class:`engine.lob.board.Board`, who holds what from the engine's
game state.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from bokeh import events
from bokeh.models import ColumnDataSource, HoverTool, Range1d
from bokeh.plotting import figure

from engine.lob.board import Board

__all__ = ["AreaMapFigure", "TERRAIN_COLOURS", "SIDE_COLOURS"]

TERRAIN_COLOURS = {"clear": "#e8f0d8", "hill": "#d7b98e", "town": "#b0a8a0", "wood": "#5f8f4e"}
SIDE_COLOURS = {"French": "#1f3c88", "Allied": "#b71c1c", None: "#9e9e9e"}
ROLE_COLOURS = {"origin": "#ff9800", "target": "#6a1b9a"}


class AreaMapFigure:
    """One Bokeh figure of an area map. ``on_tap(cb)`` calls ``cb(area_id)`` when an area is clicked."""

    def __init__(self, board: Board, width: int = 700, height: int = 520):
        self.board = board
        areas = board.spec.areas
        xs = [a.x for a in areas]
        ys = [a.y for a in areas]
        self.pos = {a.id: (a.x, a.y) for a in areas}
        pad = 0.8
        self.fig = fig = figure(width=width, height=height,
                                x_range=Range1d(start=min(xs) - pad, end=max(xs) + pad),
                                y_range=Range1d(start=min(ys) - pad, end=max(ys) + pad), tools="pan,wheel_zoom,reset,tap",
                                toolbar_location="above", name="lob-area-map", title="Albuera: areas and borders")
        fig.axis.visible = False
        fig.grid.visible = False
        fig.toolbar.logo = None
        fig.background_fill_color = "#fbfaf5"
        self._draw_borders()
        self.source = ColumnDataSource(self._area_data({}, None, None))
        r = fig.scatter("x", "y", source=self.source, size=38, fill_color="fill", line_color="ring",
                        line_width="lw", nonselection_fill_alpha=1.0, selection_fill_alpha=1.0,
                        nonselection_line_alpha=1.0)
        # the labels share the areas' source: a tap selects an area there, and the other areas' numbers and
        # units must stay as readable as before (Bokeh fades what is not selected by default)
        fig.text("x", "y", "id", source=self.source, text_font_size="9pt", text_font_style="bold",
                 text_align="center", text_baseline="middle", nonselection_text_alpha=1.0)
        fig.text("x", "ly", "units", source=self.source, text_font_size="7pt", text_color="#333",
                 text_align="center", text_baseline="top", nonselection_text_alpha=1.0)
        fig.add_tools(HoverTool(renderers=[r], tooltips=[("area", "@id (@name)"), ("terrain", "@terrain"),
                                                         ("held by", "@holder"), ("units", "@detail")]))
        self._callbacks: list[Callable[[str | None], None]] = []
        fig.on_event(events.Tap, self._tapped)

    def _draw_borders(self) -> None:
        groups: dict[str, tuple[list, list]] = {}
        ax, ay = [], []
        for b in self.board.spec.borders:
            (x1, y1), (x2, y2) = self.pos[b.a], self.pos[b.b]
            kind = b.water or "plain"
            gx, gy = groups.setdefault(kind, ([], []))
            gx.append([x1, x2])
            gy.append([y1, y2])
            if b.road:
                rx, ry = groups.setdefault("road", ([], []))
                rx.append([x1, x2])
                ry.append([y1, y2])
            if b.crossing:
                cx, cy = groups.setdefault(b.crossing, ([], []))
                mx, my = (x1 + x2) / 2, (y1 + y2) / 2
                dx, dy = (y2 - y1), -(x2 - x1)
                n = math.hypot(dx, dy) or 1
                cx.append([mx - 0.18 * dx / n, mx + 0.18 * dx / n])
                cy.append([my - 0.18 * dy / n, my + 0.18 * dy / n])
            if b.approach:
                ax.append((x1 + x2) / 2)
                ay.append((y1 + y2) / 2)
        style = {"plain": ("#9e9e9e", 1.5, "solid"), "river": ("#1565c0", 6, "solid"),
                 "stream": ("#64b5f6", 3, "solid"), "road": ("#7b5e3b", 2.5, "dashed"),
                 "bridge": ("#3e2723", 6, "solid"), "ford": ("#8d6e63", 5, "dotted")}
        for name in ("plain", "stream", "river", "road", "bridge", "ford"):
            if name in groups:
                c, w, d = style[name]
                self.fig.multi_line(*groups[name], line_color=c, line_width=w, line_dash=d, legend_label=name)
        if ax:
            self.fig.scatter(ax, ay, marker="square", size=7, fill_color="white", line_color="#424242",
                             legend_label="approach")
        legend = self.fig.legend[0]
        legend.label_text_font_size = "8pt"
        legend.click_policy = "hide"
        self.fig.add_layout(legend, "right")

    def _area_data(self, units_by_area: dict, origin: str | None, target) -> dict:
        """``target``: one area, or a set of areas (every place the picked units' actions lead to)."""
        targets = {target} if isinstance(target, str) else set(target or ())
        data: dict[str, list[Any]] = {k: [] for k in ("x", "y", "ly", "id", "name", "terrain", "fill", "ring", "lw",
                                                      "holder", "units", "detail")}
        for a in self.board.spec.areas:
            us = units_by_area.get(a.id, [])
            holder = us[0].side if us else None
            role = "origin" if a.id == origin else "target" if a.id in targets else None
            data["x"].append(a.x)
            data["y"].append(a.y)
            data["ly"].append(a.y - 0.32)
            data["id"].append(a.id)
            data["name"].append(a.name)
            data["terrain"].append(a.terrain)
            data["fill"].append(TERRAIN_COLOURS.get(a.terrain, "#eee"))
            data["ring"].append(ROLE_COLOURS[role] if role else SIDE_COLOURS.get(holder, "#9e9e9e"))
            data["lw"].append(6 if role else (3 if holder else 1))
            data["holder"].append(holder or "nobody")
            data["units"].append(f"{len(us)} {'F' if holder == 'French' else 'A'}" if us else "")
            data["detail"].append(", ".join(u.label() for u in us) or "none")
        return data

    def update(self, units_by_area: dict, origin: str | None, target=None) -> None:
        self.source.data = self._area_data(units_by_area, origin, target)

    def on_tap(self, callback: Callable[[str | None], None]) -> None:
        self._callbacks.append(callback)

    def area_at(self, x: float, y: float, radius: float = 0.45) -> str | None:
        best, dist = None, radius
        for a, (ax, ay) in self.pos.items():
            d = math.hypot(ax - x, ay - y)
            if d <= dist:
                best, dist = a, d
        return best

    def _tapped(self, event) -> None:
        area = self.area_at(event.x, event.y)
        for cb in self._callbacks:
            cb(area)
