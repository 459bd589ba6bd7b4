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

__all__ = ["board_for", "places_of", "N20Board", "LobBoard", "TbfBoard", "BcBoard", "ListBoard", "BOARDS"]


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

    def concerns(self, state, picked: str, action_json: Any) -> bool:
        """Whether an action is one of the picked piece's or place's (the list is narrowed to these)."""
        return bool(places_of(action_json) & ({picked} | self.pieces_at(state, picked)))

    def targets_of(self, state, action_json: Any) -> set[str]:
        """The places an action leads to, highlighted when its piece is picked."""
        return places_of(action_json)

    def action_at(self, state, picked: str, place: str, actions: list[tuple[Any, Any]]) -> Any:
        """The action a click on ``place`` makes once ``picked`` is picked (``actions``: the shown
        ``(action, json)`` pairs), or None when a click there only picks (the default)."""
        return None

    def attempt_at(self, state, picked: str, place: str) -> Any:
        """The action (as JSON) a click on ``place`` tries when no listed action goes there, so the rules
        can say why not (a refusal with its rule); None when such a click only picks (the default)."""
        return None

    def show_request(self, state, request) -> None:
        """Draw what a waiting request offers (e.g. retreat paths); by default nothing."""

    def show(self, state, picked: str | None, targets: set[str]) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def panel(self):  # pragma: no cover - abstract
        raise NotImplementedError


class N20Board(_Board):
    """Napoleonic 20: the scenario's hex map as the map page draws it (:class:`GameMapView`: counters with
    their markers, both sides' zones of control (7.0) on demand). A click picks a hex; the legal
    destinations of the unit there are shaded, and a click on one of them makes that move; while a
    defender chooses a retreat path (9.8.2) the paths offered are drawn on the map."""

    #: actions whose path ends where the unit goes (a click on that hex makes them)
    MOVES = ("move", "night_move", "disengage", "penetrate")

    def __init__(self, state):
        super().__init__()
        from dashboards.components.n20_mapview import GameMapView
        # the zones-of-control check box and the "click a hex by its number" box are drawn by the board's
        # one model (an SVG map drawn in the browser, dashboards/components/hexboard.py; issue 17.1)
        self.view = GameMapView(state, show_reach=False, goto=True,
                                toggles=(("show_zoc", "zones of control (7.0)", "zoc-toggle"),))
        self.view.on_hex(self._picked)
        self._fresh = True       # the map is drawn from ``state`` already (see :meth:`show`)

    def pieces_at(self, state, place):
        return set(state.occupants.get(place, ()))

    def _of_picked(self, state, picked: str, aj: dict) -> bool:
        pieces = self.pieces_at(state, picked)
        unit, path = aj.get("unit"), aj.get("path") or []
        if unit is not None:
            if unit in pieces:
                return True
            # a reinforcement enters by a move whose path starts at its entry hex
            return bool(path) and path[0] == picked and getattr(state.by_id.get(unit), "status", "map") != "map"
        return False

    def concerns(self, state, picked, action_json):
        aj = action_json if isinstance(action_json, dict) else {}
        pieces = self.pieces_at(state, picked)
        if aj.get("kind") == "place" and aj.get("hex") == picked:
            return True
        if aj.get("unit") is not None:
            return self._of_picked(state, picked, aj)
        if set(aj.get("units") or ()) & pieces:
            return True
        return any(set(b.get("attackers", ())) & pieces or set(b.get("defenders", ())) & pieces
                   for b in aj.get("battles") or () if isinstance(b, dict))

    def targets_of(self, state, action_json):
        aj = action_json if isinstance(action_json, dict) else {}
        if aj.get("kind") in self.MOVES and aj.get("path"):
            return {aj["path"][-1]}
        if aj.get("kind") == "place" and aj.get("hex"):
            return {aj["hex"]}
        out = set()
        for b in aj.get("battles") or ():
            for uid in b.get("defenders", ()) if isinstance(b, dict) else ():
                h = getattr(state.by_id.get(uid), "hex", None)
                if h:
                    out.add(h)
        return out

    def action_at(self, state, picked, place, actions):
        for a, aj in actions:
            if (isinstance(aj, dict) and aj.get("kind") in self.MOVES and (aj.get("path") or [None])[-1] == place
                    and self._of_picked(state, picked, aj)):
                return a
        return None

    def attempt_at(self, state, picked, place):
        """A unit of the side to act, then a neighbouring hex it may not enter now: the one-hex move is
        put to the rules, which refuse it with their rule (a hex holding one's own units only picks)."""
        from dashboards.components.n20_mapview import unit_at
        from engine.n20.game.turn import actor
        uid = unit_at(state, picked)
        if uid is None or state.scenario.units[uid].side != actor(state):
            return None
        if place not in state.board.neighbours(picked):
            return None
        if any(state.scenario.units[o].side == actor(state) for o in state.occupants.get(place, ())):
            return None
        return {"kind": "move", "unit": uid, "path": [picked, place]}

    def show(self, state, picked, targets):
        import param as _param
        from dashboards.components.hexmap import Marked
        from dashboards.components.n20_mapview import unit_at
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
        self._add_facing_layers()
        self._pane = pn.pane.Bokeh(self.fig.fig, css_classes=["play-board", "tbf-board"])
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

    #: where each kind of action leads on the map (the hex a click there means)
    @staticmethod
    def _lead(aj) -> str | None:
        k = aj.get("kind")
        if k == "move":
            return aj.get("to")
        if k in ("fire", "melee"):
            return aj.get("target")
        if k == "charge":
            return (aj.get("path") or [None])[-1]
        return None

    def targets_of(self, state, action_json):
        aj = action_json if isinstance(action_json, dict) else {}
        lead = self._lead(aj)
        return {lead} if lead else places_of(aj)

    def action_at(self, state, picked, place, actions):
        """The one move, fire, melee or charge of the picked hex's units that leads to ``place`` (a fire,
        melee or charge is then selected in the list with its odds, not made); None when there are
        several (the list narrows to them) or none."""
        here = self.pieces_at(state, picked)
        found = [a for a, aj in actions if isinstance(aj, dict) and self._lead(aj) == place
                 and ({aj.get("unit")} | set(aj.get("units") or ())) & here]
        return found[0] if len(found) == 1 else None

    def show(self, state, picked, targets):
        from dashboards.components.hexmap import Counter, Marked
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
        self.fig.set_highlights([Marked(h, "circle", "#6a1b9a") for h in sorted(targets) if h in hexes][:200])
        self._show_facing(state, picked)

    def _show_facing(self, state, picked):
        """Facing wedges on every unit counter; the frontal hexes (engine: :func:`engine.tbf.game.position.frontal`,
        4.3 C, 4.2.4 E, 8.4 B) of the units in the picked hex."""
        from dashboards.components.hexmap import _axial
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
        q, r = _axial(spec, shown)
        self.front_source.data = {"q": q, "r": r, "hex": shown}
        unit_ids = " ".join(picked_units)
        text = ("Frontal hexes (4.3 C, outlined in orange): " + html.escape("; ".join(named))) if named else ""
        self.front_note.object = (f"<div class='tbf-front' data-unit='{html.escape(unit_ids)}' "
                                  f"data-hexes='{' '.join(shown)}'>{text}</div>")

    def panel(self):
        return pn.Column(self._pane, self.front_note, sizing_mode="stretch_width")


class BcBoard(_Board):
    """Battle Commander: the zone map (Blocks with their lead and second line, HQs, Battle Zones on hover).
    A click on a Block or a Zone picks it (the list beside the map picks a Zone too); with a Block picked,
    the Zones its moves lead to are outlined and a click on one makes that move; with a Zone picked, the
    Zones its attacks and moves reach are outlined and a click on one narrows the list to them."""

    def __init__(self, state):
        super().__init__()
        from dashboards.components.zone_map import ClickableSvg
        zones = sorted(state.g.scenario.model.zones)
        self.pick = pn.widgets.Select(name="zone", options=[""] + zones, width=120, css_classes=["bc-zone-pick"])
        self.pick.param.watch(lambda e: self._picked(e.new or None), "value")
        self.svg = ClickableSvg(css_classes=["play-board", "bc-board"], sizing_mode="stretch_width")
        self.svg.param.watch(self._clicked, "click")
        self.note = pn.pane.HTML("", css_classes=["bc-pick-note"], sizing_mode="stretch_width")
        self._outlined: set[str] = set()

    def _clicked(self, event):
        """A click on the map: a Block or a Zone; anywhere in an outlined Zone counts as that Zone."""
        click = event.new or {}
        place, zone = click.get("place") or None, click.get("zone") or None
        self._picked(zone if zone in self._outlined else place)

    @staticmethod
    def _block(state, place):
        return next((u for u in state.g.units if u.id == place), None)

    def pieces_at(self, state, place):
        if self._block(state, place) is not None:
            return set()                    # a Block stands for itself (its Zone's other Blocks are not picked)
        return {u.id for u in state.g.in_zone(place)} | {h.id for h in state.g.hqs_in(place)}

    @staticmethod
    def _dest(step: str) -> str:
        return step.rpartition(">")[2]      # a roadway path A>B ends in B

    def targets_of(self, state, action_json):
        aj = action_json if isinstance(action_json, dict) else {}
        out = {self._dest(str(d)) for _, d in aj.get("moves") or () if d}
        out |= {self._dest(str(d)) for _, d in aj.get("hqs") or () if d}
        if aj.get("to"):
            out.add(aj["to"])
        return out or places_of(aj)

    def action_at(self, state, picked, place, actions):
        """With a Block picked, the plain move of that Block alone into ``place`` (no HQ moving, no
        Roadway formation); anything else, or more than one such move, leaves the choice to the list."""
        if self._block(state, picked) is None:
            return None
        found = [a for a, aj in actions if isinstance(aj, dict) and aj.get("kind") == "move"
                 and [list(m) for m in aj.get("moves") or ()] in ([[picked, place]],)
                 and not aj.get("hqs") and not aj.get("roadway")]
        return found[0] if len(found) == 1 else None

    def show(self, state, picked, targets):
        from dashboards.components.bc_views import zone_map_svg
        svg = zone_map_svg(state.g)
        block = self._block(state, picked) if picked else None
        if block is not None:
            targets = set(targets) - {block.zone}
        zones = set(state.g.scenario.model.zones)
        targets = sorted(t for t in targets if t in zones)
        self._outlined = set(targets)
        marks = "".join(f"[data-zone='{html.escape(z)}'] > rect:first-of-type {{stroke:#6a1b9a;stroke-width:4}}"
                        for z in targets)
        if block is not None:
            marks += f"[data-block='{html.escape(picked)}'] > rect {{stroke:#ff9800;stroke-width:4}}"
        elif picked:
            marks += f"[data-zone='{html.escape(picked)}'] > rect:first-of-type {{stroke:#ff9800;stroke-width:5}}"
        self.svg.svg = f"<style>{marks}</style>{svg}"
        what = (f"Block {block.id} in {block.zone}" if block is not None else f"Zone {picked}") if picked else ""
        text = (f"Picked {html.escape(what)}: " + (f"click an outlined Zone ({html.escape(', '.join(targets))})"
                                                   if targets else "nothing it can do from here")
                if picked else "Click a Block or a Zone on the map to see what it can do.")
        self.note.object = (f"<div class='bc-pick' data-picked='{html.escape(picked or '')}' "
                            f"data-targets='{html.escape(' '.join(targets))}'>{text}</div>")

    def panel(self):
        return pn.Column(pn.Row(self.pick, self.note), self.svg, sizing_mode="stretch_width")


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


#: each system's board on the play page (a system that is not here gets the :class:`ListBoard`)
BOARDS: dict[str, Callable[[Any], _Board]] = {"n20": N20Board}


def board_for(rules, state) -> _Board:
    if rules.system in BOARDS:
        return BOARDS[rules.system](state)
    if rules.system == "lob":
        return LobBoard(state)
    if rules.system == "tbf":
        return TbfBoard(state)
    if rules.system == "bc":
        return BcBoard(state)
    return ListBoard(rules)
