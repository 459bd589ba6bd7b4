"""These Brave Fellows' board on the play page: the hex map with facing and frontal hexes (drawing only)."""
from __future__ import annotations

import html

import panel as pn

from dashboards.play.boards.base import Board, fit_to_width

__all__ = ["TbfBoard"]

class TbfBoard(Board):
    """These Brave Fellows: the hex map with the counters (facing in their label); a tap picks a hex."""

    def __init__(self, state):
        super().__init__()
        from dashboards.render.hexmap import HexMapFigure, MapSpec
        from dashboards.render.hexmap import TBF_COLOURS
        from engine.tbf.scenario import default_scenario
        self.scenario = sc = default_scenario()
        b = sc.board
        names = {hs[0]: n for n, hs in b.data.towns.items()}
        spec = MapSpec(b.grid, {h: b.terrain(h) for h in b.hexes()}, names=names,
                       roads=[r.hexes for r in b.data.roads], title="Dürenstein (provisional map)", source=b.data.source)
        self.fig = HexMapFigure(spec, width=900, show_labels=False)
        self.fig.terrain_source.data = dict(self.fig.terrain_source.data,
                                            colour=[TBF_COLOURS.get(t, "#eeeeee")
                                                    for t in self.fig.terrain_source.data["terrain"]])
        self.fig.on_tap(self._picked)
        self._add_facing_layers()
        fit_to_width(self.fig.fig, "tbf-board")
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "tbf-board"], sizing_mode="stretch_width")
        self.front_note = pn.pane.HTML("<div class='tbf-front' data-unit='' data-hexes=''></div>",
                                       css_classes=["tbf-front-note"], sizing_mode="stretch_width")

    def _add_facing_layers(self):
        """Two layers of our own on the shared hex figure: the frontal hexes of the picked unit (outlined,
        4.3 C) and a wedge on every counter pointing across the hexside it faces (4.3)."""
        from bokeh.models import ColumnDataSource
        spec, fig = self.fig.spec, self.fig.fig
        orient = "flattop" if spec.grid.orientation == "flat" else "pointytop"
        self.front_source = ColumnDataSource({"q": [], "r": [], "hex": []}, name="tbf-frontal")
        front = fig.hex_tile("q", "r", size=1.0, orientation=orient, source=self.front_source, fill_color="#ff9800",
                             fill_alpha=0.3, line_color="#e65100", line_width=3.5)
        # under the counters, so a unit standing in a frontal hex stays readable
        counters = next((i for i, r in enumerate(fig.renderers)
                         if getattr(r, "data_source", None) is self.fig.counter_source), None)
        if counters is not None:
            fig.renderers = [r for r in fig.renderers[:counters] if r is not front] + [front] + \
                [r for r in fig.renderers[counters:] if r is not front]
        self.facing_source = ColumnDataSource({"xs": [], "ys": [], "id": [], "facing": []}, name="tbf-facing")
        fig.patches("xs", "ys", source=self.facing_source, fill_color="#ffeb3b", line_color="#111111", line_width=1)
        # the screen direction of each hexside 0..5, measured on a hex well inside the map
        g = spec.grid
        mid = g.label(g.first_col + (g.cols or 2) // 2, g.first_row + (g.rows or 2) // 2)
        cx, cy = spec.center(mid)
        self._dirs = []
        for d in range(6):
            nx, ny = spec.center(g.neighbour(mid, d))
            n = ((nx - cx) ** 2 + (ny - cy) ** 2) ** 0.5
            self._dirs.append(((nx - cx) / n, (ny - cy) / n))

    def _wedge(self, hex_: str, facing: int) -> tuple[list[float], list[float]]:
        cx, cy = self.fig.spec.center(hex_)
        ux, uy = self._dirs[facing % 6]
        px, py = -uy, ux
        tip, base, half = 0.9, 0.48, 0.26
        return ([cx + ux * tip, cx + ux * base + px * half, cx + ux * base - px * half],
                [cy + uy * tip, cy + uy * base + py * half, cy + uy * base - py * half])

    def pieces_at(self, state, place):
        return {p.id for p in state.game.on_map() if p.hex == place}

    def attempt_at(self, state, picked, place):
        """A hex with a unit of the side to act, then a hex none of its listed actions leads to: a move of
        that unit there is put to the rules, and the page shows their refusal with its rule (6.2.1 not
        within its movement points, terrain 6.2.2, enemy fronts 6.2.5 A...). A hex holding one's own units
        only picks it."""
        side = self.rules.to_act(state) if self.rules is not None else None
        sc = self.scenario
        here = [p for p in state.game.on_map() if p.hex == picked and sc.side_of.get(p.id) == side]
        if not here or any(p.hex == place and sc.side_of.get(p.id) == side for p in state.game.on_map()):
            return None
        # in a stack, the unit that may act now (one its leader activated, 6.1; combat units before leaders)
        # is the one the click means
        ids = sorted((p.id for p in here), key=lambda u: (sc.is_leader(u), u))
        acting = {u for a in self.rules.legal_actions(state) for u in self.rules.places(state, a).pieces}
        uid = next((u for u in ids if u in acting), ids[0])
        return self.refused_only(state, {"side": side, "unit": uid, "to": place, "path": [picked, place],
                                         "kind": "move"})

    def show(self, state, picked, targets):
        from dashboards.render.hexmap import Counter, Marked
        sc = self.scenario
        counters = []
        for p in state.game.on_map():
            u = sc.units.get(p.id)
            if u is None or sc.is_leader(p.id):
                continue
            facing = getattr(p, "facing", None)
            label = (f"{u.name} (facing {self.fig.spec.grid.direction_names[facing % 6]})" if facing is not None
                     else u.name)
            counters.append(Counter(p.id, p.hex, "french" if u.side == "french" else "allied",
                                    getattr(u, "kind", ""), getattr(u, "fv", 0), getattr(u, "ma", 0), label))
        sel = [p.id for p in state.game.on_map() if picked and p.hex == picked]
        self.fig.set_counters(counters, selected=sel)
        hexes = set(self.fig.spec.terrain)
        self.fig.set_highlights([Marked(h, "", "#6a1b9a") for h in sorted(targets) if h in hexes][:200])
        self._show_facing(state, picked)

    def _show_facing(self, state, picked):
        """Facing wedges on every unit counter; the frontal hexes (engine: :func:`engine.tbf.game.position.frontal`,
        4.3 C, 4.2.4 E, 8.4 B) of the units in the picked hex."""
        from dashboards.render.hexmap import axial_of
        from engine.tbf.game.position import frontal
        sc, spec = self.scenario, self.fig.spec
        xs, ys, ids, faces = [], [], [], []
        front: set[str] = set()
        named, picked_units = [], []
        for p in state.game.on_map():
            if p.id not in sc.units or sc.is_leader(p.id) or p.hex not in spec.terrain:
                continue
            wx, wy = self._wedge(p.hex, p.facing)
            xs.append(wx)
            ys.append(wy)
            ids.append(p.id)
            faces.append(spec.grid.direction_names[p.facing % 6])
            if picked and p.hex == picked:
                f = frontal(sc, state.game, p)
                front |= f
                picked_units.append(p.id)
                named.append(f"{sc.units[p.id].name} faces {faces[-1]}: "
                             + (", ".join(sorted(f)) if f else "no frontal hexes (4.2.4 E)"))
        self.facing_source.data = {"xs": xs, "ys": ys, "id": ids, "facing": faces}
        shown = sorted(h for h in front if h in spec.terrain)
        q, r = axial_of(spec, shown)
        self.front_source.data = {"q": q, "r": r, "hex": shown}
        unit_ids = " ".join(picked_units)
        text = ("Frontal hexes (4.3 C, outlined in orange): " + html.escape("; ".join(named))) if named else ""
        self.front_note.object = (f"<div class='tbf-front' data-unit='{html.escape(unit_ids)}' "
                                  f"data-hexes='{' '.join(shown)}'>{text}</div>")

    def panel(self):
        return pn.Column(self._pane, self.front_note, sizing_mode="stretch_width")
