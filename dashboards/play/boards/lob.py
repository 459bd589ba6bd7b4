"""Lines of Battle's board on the play page: the area map (drawing only, no rules)."""
from __future__ import annotations

import panel as pn

from dashboards.play.boards.base import Board, places_of

__all__ = ["LobBoard"]

class LobBoard(Board):
    """Lines of Battle: the area map (areas as discs, borders, approaches); a tap picks an area."""

    def __init__(self, state):
        super().__init__()
        from dashboards.render.lob_map import AreaMapFigure
        self.fig = AreaMapFigure(state.board, width=760, height=540)
        self.fig.on_tap(self._picked)
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "lob-board"])

    def pieces_at(self, state, place):
        return {u.uid for u in state.units if u.area == place}

    @staticmethod
    def _lead(aj) -> str | None:
        """The area an action leads to: a move's last area, a fire's or an attack's target area."""
        if aj.get("type") == "move":
            return (aj.get("path") or [None])[-1]
        return aj.get("target")

    def targets_of(self, state, action_json):
        aj = action_json if isinstance(action_json, dict) else {}
        lead = self._lead(aj)
        return {lead} if lead else places_of(aj)

    def action_at(self, state, picked, place, actions):
        """The one move, fire or attack of the picked area's units that leads to ``place`` (an attack is
        then selected with its odds, not made); None when there are several (the list narrows) or none."""
        here = self.pieces_at(state, picked)
        found = [a for a, aj in actions if isinstance(aj, dict) and place != picked
                 and self._lead(aj) == place and set(aj.get("units") or ()) & here]
        return found[0] if len(found) == 1 else None

    def show(self, state, picked, targets):
        by_area: dict[str, list] = {}
        for u in state.units:
            if u.area is not None:
                by_area.setdefault(u.area, []).append(u)
        self.fig.update(by_area, picked, {t for t in targets if t in self.fig.pos and t != picked})

    def panel(self):
        return self._pane
