"""The Napoleonic 20 map of a game state: counters, selection, reachable hexes, ZOC overlay, retreat previews.

:class:`GameMapView` draws a :class:`engine.n20.game.state.GameState` on a
:class:`~dashboards.render.hexboard.HexBoard` (an SVG map drawn in the browser: one model a session, the
map's geometry shared by every session, issue 17.1) and asks the game engine for everything it shows
(reachable hexes and costs from ``rules.reachable``, zones of control from ``rules.enemy_zoc``, retreat
paths from ``engine.n20.retreat.MapRetreat``). It holds no rules of its own.
"""
from __future__ import annotations

from typing import Callable

import panel as pn
import param

from engine.n20.game import reach as RC, zoc as Z
from engine.n20.game.state import GameState

from dashboards.render.hexboard import HexBoard
from dashboards.render.hexmap import Counter, Marked
from dashboards.render.n20_board import spec_from_board

__all__ = ["GameMapView", "counters_of", "unit_at", "ZOC_COLOURS"]

ZOC_COLOURS = {"french": "#90caf9", "allied": "#ef9a9a"}
_FATIGUE = ("", "ready", "tired", "weary", "spent")


def counters_of(state: GameState, view: str | None = None) -> list[Counter]:
    """Counters for every unit on the map (hidden enemy units show as '?' when ``view`` is a side, 16.1)."""
    sc = state.scenario
    out = []
    for u in state.units:
        if u.status != "map" or not u.hex:
            continue
        d = sc.units[u.id]
        marks = []
        if u.routed:
            marks.append("Routed!")
        if u.square:
            marks.append("square")
        if u.fatigue:
            marks.append(_FATIGUE[u.fatigue] if u.fatigue < len(_FATIGUE) else f"fatigue {u.fatigue}")
        if view is not None and d.side != view and not u.revealed:
            out.append(Counter(id=u.id, hex=u.hex, side=d.side, kind="hidden", strength="?", movement="?",
                               name="hidden unit"))
            continue
        out.append(Counter(id=u.id, hex=u.hex, side=d.side, kind=d.type, strength=d.strength, movement=d.movement,
                           name=d.name, markers=tuple(marks), elite="elite" in d.flags))
    return out


def unit_at(state: GameState, h: str | None) -> str | None:
    """The id of a fighting unit in hex ``h`` (leaders only when alone)."""
    if not h:
        return None
    ids = state.occupants.get(h, ())
    sc = state.scenario
    fighting = [i for i in ids if sc.units[i].type != "leader"]
    return (fighting or list(ids) or [None])[0]


class GameMapView(param.Parameterized):
    """One map board for one session; call :meth:`set_state` whenever the game state changes."""

    selected = param.String(default="", doc="selected unit id")
    show_zoc = param.Boolean(default=False, doc="shade both sides' zones of control (7.0)")
    show_reach = param.Boolean(default=True, doc="shade the selected unit's reachable hexes with their costs")
    clicked_hex = param.String(default="")
    info = param.String(default="")

    def __init__(self, state: GameState, width: int = 900, toggles: tuple = (), goto: bool = False, note: str = "",
                 **params):
        """``toggles``: ``(parameter, label, css class)`` of the check boxes drawn above the map (e.g.
        ``("show_zoc", "shade zones of control (7.0)", "zoc-toggle")``); ``goto``: a box to click a hex by
        typing its number; ``note``: HTML shown above the map. All parts of the board's one model."""
        super().__init__(**params)
        self.state = state
        self.width = width
        self._board = state.scenario.board
        self.spec = spec_from_board(self._board)
        self.figure = HexBoard(self.spec, width=width, goto=goto, note=note)
        for name, label, css in toggles:
            self.figure.link_toggle(self, name, label, css)
        self.figure.on_tap(self._tapped)
        self.reach: dict = {}
        self.extra_marks: list[Marked] = []
        self.paths: list = []
        self._tap_handlers: list[Callable[[str | None], None]] = []
        self.param.watch(lambda *_: self.redraw(), ["selected", "show_zoc", "show_reach"])
        self.redraw()

    # -- state ---------------------------------------------------------------------------------------
    def set_state(self, state: GameState) -> None:
        self.state = state
        if state.scenario.board is not self._board:   # another scenario: another map
            self.extra_marks, self.paths = [], []
            self._board = state.scenario.board
            self.spec = spec_from_board(self._board)
            self.figure.set_spec(self.spec)
        if self.selected and getattr(state.by_id.get(self.selected), "status", None) != "map":
            self.selected = ""
        self.redraw()

    def on_hex(self, handler: Callable[[str | None], None]) -> None:
        """``handler(hex)`` on every click (the view first updates its selection)."""
        self._tap_handlers.append(handler)

    def _tapped(self, h: str | None) -> None:
        self.clicked_hex = h or ""
        for cb in self._tap_handlers:
            cb(h)

    # -- drawing -------------------------------------------------------------------------------------
    def redraw(self) -> None:
        st = self.state
        self.reach = {}
        marks: list[Marked] = []
        if self.show_zoc:
            for side in ("french", "allied"):
                # hexes in the ZOC of `side` are the enemy ZOC of the other side
                enemy = "allied" if side == "french" else "french"
                for h in sorted(Z.enemy_zoc(st, enemy)):
                    marks.append(Marked(h, "", ZOC_COLOURS[side]))
        if self.selected and self.show_reach:
            try:
                self.reach = RC.search_moves(st, self.selected)
            except Exception as exc:  # e.g. a unit the rules do not let move now
                self.info = f"{self.selected}: {exc}"
                self.reach = {}
            for h, r in sorted(self.reach.items()):
                if h != st.unit(self.selected).hex:
                    marks.append(Marked(h, str(r.cost), "#fff176"))
        marks += self.extra_marks
        sel = [self.selected] if self.selected else []
        # one change for the browser: the highlights, the paths and the counters together
        self.figure.update(counters=counters_of(st), selected=sel + list(getattr(self, "also_selected", [])),
                           highlights=marks, paths=self.paths)

    def panel(self) -> pn.viewable.Viewable:
        return self.figure.model
