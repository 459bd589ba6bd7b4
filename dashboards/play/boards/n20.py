"""Napoleonic 20's board on the play page: the scenario's hex map (drawing only, no rules)."""
from __future__ import annotations

import panel as pn

from dashboards.play.boards.base import Board
from engine.core.errors import VedetteError
from engine.core.game import Places

__all__ = ["N20Board"]


class N20Board(Board):
    """Napoleonic 20: the scenario's hex map as the map page draws it (:class:`GameMapView`: counters with
    their markers, both sides' zones of control (7.0) on demand). A click picks a hex; the legal
    destinations of the unit there are shaded, and a click on one of them makes that move; while a
    defender chooses a retreat path (9.8.2) the paths offered are drawn on the map."""

    #: actions whose path ends where the unit goes (a click on that hex makes them)
    MOVES = ("move", "night_move", "disengage", "penetrate")

    def __init__(self, state):
        super().__init__()
        from dashboards.calculators.n20.map_view import GameMapView
        # the zones-of-control check box and the "click a hex by its number" box are drawn by the board's
        # one model (an SVG map drawn in the browser, dashboards/render/hexboard.py; issue 17.1)
        self.view = GameMapView(state, show_reach=False, goto=True,
                                toggles=(("show_zoc", "zones of control (7.0)", "zoc-toggle"),))
        self.view.on_hex(self._picked)
        self._fresh = True       # the map is drawn from ``state`` already (see :meth:`show`)

    def pieces_at(self, state, place):
        return set(state.occupants.get(place, ()))

    def action_at(self, state, picked, place, entries):
        """The first move of the picked hex's unit that ends in ``place`` (two paths to one hex are two
        moves: the first listed is made); a click on an attacked hex narrows the list instead."""
        for a, pl in entries:
            if pl.path and pl.targets == (place,) and self.concerns(state, picked, pl):
                return a
        return None

    def attempt_at(self, state, picked, place):
        """A unit of the side to act, then a hex it may not end a move in now: a move there (one hex to a
        neighbour, else the straight line of hexes) is put to the rules, which refuse it with their rule
        (6.0 Movement Points, 6.4 moved already, 7.x ZOC, prohibited terrain...); a hex holding one's own
        units only picks."""
        from dashboards.calculators.n20.map_view import unit_at
        from engine.n20.game.turn import actor
        uid = unit_at(state, picked)
        if uid is None or state.scenario.units[uid].side != actor(state):
            return None
        if any(state.scenario.units[o].side == actor(state) for o in state.occupants.get(place, ())):
            return None
        if place in state.board.neighbours(picked):
            return {"kind": "move", "unit": uid, "path": [picked, place]}
        try:
            line = state.board.grid.line(picked, place)
        except (ValueError, KeyError, VedetteError):
            return None
        return {"kind": "move", "unit": uid, "path": list(line)} if len(line) > 2 else None

    def show(self, state, picked, targets):
        import param as _param
        from dashboards.render.hexmap import Marked
        from dashboards.calculators.n20.map_view import unit_at
        v = self.view
        fresh, self._fresh = self._fresh, False
        if fresh and state is v.state and not picked and not targets:
            # drawn when built; changing it again in the callback that puts it on the page (before the
            # browser has the figure) trips Bokeh's document lock
            return
        uid = unit_at(state, picked) if picked else None
        with _param.parameterized.discard_events(v):
            v.selected = uid or ""
        v.state = state
        v.extra_marks = [Marked(h, "", "#fff176") for h in sorted(targets)]
        v.paths = []
        v.redraw()

    def show_request(self, state, request):
        """Retreat paths (9.8.2) offered to the defender, drawn from the unit's hex."""
        paths = []
        opts = getattr(request, "options", ()) if getattr(request, "rule", "") == "9.8.2" else ()
        uid = str(getattr(request, "label", "")).split()[-1:] or [""]
        start = getattr(state.by_id.get(uid[0]), "hex", None)
        for i, o in enumerate(opts):
            hexes = list(getattr(o, "hexes", ()) or ())
            if start and hexes:
                paths.append(([start] + hexes, ("#6a1b9a", "#00838f", "#ef6c00", "#2e7d32")[i % 4], f"option {i + 1}"))
        self.view.paths = paths
        self.view.figure.set_paths(paths)

    def panel(self):
        return pn.Column(self.view.panel(), css_classes=["play-board", "n20-board"], sizing_mode="stretch_width")
