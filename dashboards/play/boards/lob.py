"""Lines of Battle's board on the play page: the area map (drawing only, no rules)."""
from __future__ import annotations

import panel as pn

from dashboards.play.boards.base import Board, fit_to_width

__all__ = ["LobBoard"]

class LobBoard(Board):
    """Lines of Battle: the area map (areas as discs, borders, approaches); a tap picks an area. The rules
    give each action's places (engine/lob/places.py): a move's last area, an attack's or a fire's target
    area are highlighted, and a click on the one that a single action of the picked area leads to makes
    it (an attack or a fire is then selected with its odds, not made)."""

    def __init__(self, state):
        super().__init__()
        from dashboards.render.lob_map import AreaMapFigure
        self.fig = AreaMapFigure(state.board, width=760, height=540)
        self.fig.on_tap(self._picked)
        fit_to_width(self.fig.fig, "lob-board")
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "lob-board"], sizing_mode="stretch_width")

    def pieces_at(self, state, place):
        return {u.uid for u in state.units if u.area == place}

    def attempt_at(self, state, picked, place):
        """An area holding units of the player to act, then an area none of its listed actions leads to: a
        move of those units there is put to the rules, and the page shows their refusal with its rule (4.2.2
        areas that do not border, an enemy area entered by a move; an area not activated...). A click on
        an area of one's own units only picks it."""
        side = self.rules.to_act(state) if self.rules is not None else None
        mine = sorted(u.uid for u in state.units if u.area == picked and u.side == side)
        if not mine or any(u.area == place and u.side == side for u in state.units):
            return None
        return self.refused_only(state, {"type": "move", "units": mine, "path": [place], "end": "area"})

    def show(self, state, picked, targets):
        by_area: dict[str, list] = {}
        for u in state.units:
            if u.area is not None:
                by_area.setdefault(u.area, []).append(u)
        self.fig.update(by_area, picked, {t for t in targets if t in self.fig.pos and t != picked})

    def panel(self):
        return self._pane
