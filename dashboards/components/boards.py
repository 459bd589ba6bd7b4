"""Each system's board for the play page: drawing only, no rules (issue 15).

A board shows a state, highlights the places the legal actions of a picked piece or place lead to, and
reports which place a player picked (a hex, an area, a zone). :func:`board_for` gives the board of a
system; :func:`places_of` lists the pieces and places an action names (read from its JSON, so no board
needs to know a system's action types), which is how a pick on the board filters the action list.
"""
from __future__ import annotations

import html
from typing import Any, Callable

import panel as pn

__all__ = ["board_for", "places_of", "LobBoard", "TbfBoard", "BcBoard", "ListBoard"]


def places_of(action_json: Any) -> set[str]:
    """Every string an action's JSON names (unit ids, hexes, areas, zones, path steps)."""
    out: set[str] = set()

    def walk(v):
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                if k not in ("type", "kind"):
                    walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
    walk(action_json)
    return out


class _Board:
    """What every board offers the page."""

    def __init__(self):
        self._callbacks: list[Callable[[str | None], None]] = []

    def on_pick(self, cb: Callable[[str | None], None]) -> None:
        self._callbacks.append(cb)

    def _picked(self, place: str | None) -> None:
        for cb in self._callbacks:
            cb(place)

    def pieces_at(self, state, place: str) -> set[str]:
        return set()

    def show(self, state, picked: str | None, targets: set[str]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def panel(self):  # pragma: no cover - abstract
        raise NotImplementedError


class LobBoard(_Board):
    """Lines of Battle: the area map (areas as discs, borders, approaches); a tap picks an area."""

    def __init__(self, state):
        super().__init__()
        from dashboards.components.lob_map import AreaMapFigure
        self.fig = AreaMapFigure(state.board, width=760, height=540)
        self.fig.on_tap(self._picked)
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "lob-board"])

    def pieces_at(self, state, place):
        return {u.uid for u in state.units if u.area == place}

    def show(self, state, picked, targets):
        by_area: dict[str, list] = {}
        for u in state.units:
            if u.area is not None:
                by_area.setdefault(u.area, []).append(u)
        target = next(iter(sorted(t for t in targets if t in self.fig.pos)), None)
        self.fig.update(by_area, picked, target)

    def panel(self):
        return self._pane


class TbfBoard(_Board):
    """These Brave Fellows: the hex map with the counters (facing in their label); a tap picks a hex."""

    def __init__(self, state):
        super().__init__()
        from dashboards.components.hexmap import HexMapFigure, MapSpec
        from dashboards.components.tbf_views import TBF_COLOURS
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
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "tbf-board"])

    def pieces_at(self, state, place):
        return {p.id for p in state.game.on_map() if p.hex == place}

    def show(self, state, picked, targets):
        from dashboards.components.hexmap import Counter, Marked
        sc = self.scenario
        counters = []
        for p in state.game.on_map():
            u = sc.units.get(p.id)
            if u is None or sc.is_leader(p.id):
                continue
            facing = getattr(p, "facing", None)
            label = f"{u.name} (facing {facing})" if facing is not None else u.name
            counters.append(Counter(p.id, p.hex, "french" if u.side == "french" else "allied",
                                    getattr(u, "kind", ""), getattr(u, "fv", 0), getattr(u, "ma", 0), label))
        sel = [p.id for p in state.game.on_map() if picked and p.hex == picked]
        self.fig.set_counters(counters, selected=sel)
        hexes = set(self.fig.spec.terrain)
        self.fig.set_highlights([Marked(h, "circle", "#6a1b9a") for h in sorted(targets) if h in hexes][:200])

    def panel(self):
        return self._pane


class BcBoard(_Board):
    """Battle Commander: the zone map (Blocks with their lead and second line, HQs, Battle Zones on hover);
    a zone is picked from the list beside it."""

    def __init__(self, state):
        super().__init__()
        zones = sorted(state.g.scenario.model.zones)
        self.pick = pn.widgets.Select(name="zone", options=[""] + zones, width=120, css_classes=["bc-zone-pick"])
        self.pick.param.watch(lambda e: self._picked(e.new or None), "value")
        self.svg = pn.pane.HTML("", css_classes=["play-board", "bc-board"], sizing_mode="stretch_width")

    def pieces_at(self, state, place):
        return {u.id for u in state.g.in_zone(place)} | {h.id for h in state.g.hqs_in(place)}

    def show(self, state, picked, targets):
        from dashboards.components.bc_views import zone_map_svg
        svg = zone_map_svg(state.g)
        marks = "".join(f"[data-zone='{html.escape(z)}'] > rect:first-of-type {{stroke:#6a1b9a;stroke-width:4}}"
                        for z in sorted(targets))
        if picked:
            marks += f"[data-zone='{html.escape(picked)}'] > rect:first-of-type {{stroke:#ff9800;stroke-width:5}}"
        self.svg.object = f"<style>{marks}</style>{svg}"

    def panel(self):
        return pn.Column(self.pick, self.svg, sizing_mode="stretch_width")


class ListBoard(_Board):
    """Any other system: the position summary as a list (the action list does the rest)."""

    def __init__(self, rules):
        super().__init__()
        self.rules = rules
        self.pane = pn.pane.JSON({}, depth=2, css_classes=["play-board"], sizing_mode="stretch_width")

    def show(self, state, picked, targets):
        self.pane.object = self.rules.state_summary(state) or {"position": str(self.rules.position(state))}

    def panel(self):
        return self.pane


def board_for(rules, state) -> _Board:
    if rules.system == "lob":
        return LobBoard(state)
    if rules.system == "tbf":
        return TbfBoard(state)
    if rules.system == "bc":
        return BcBoard(state)
    return ListBoard(rules)
