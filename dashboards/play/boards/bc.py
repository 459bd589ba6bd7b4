"""Battle Commander's board on the play page: the zone map, Blocks and Zones a player clicks (drawing only)."""
from __future__ import annotations

import html

import panel as pn

from dashboards.play.boards.base import Board
from dashboards.play.layout import WIDGET_TOUCH_CSS

__all__ = ["BcBoard"]

class BcBoard(Board):
    """Battle Commander: the zone map (Blocks with their lead and second line, HQs, Battle Zones on hover).
    A click on a Block or a Zone picks it (the list beside the map picks a Zone too); with a Block picked,
    the Zones its moves lead to are outlined and a click on one makes that move; with a Zone picked, the
    Zones its attacks and moves reach are outlined and a click on one narrows the list to them."""

    def __init__(self, state):
        super().__init__()
        from dashboards.render.zone_map import ClickableSvg
        zones = sorted(state.g.scenario.model.zones)
        self.pick = pn.widgets.Select(name="zone", options=[""] + zones, width=120, css_classes=["bc-zone-pick"],
                                      stylesheets=[WIDGET_TOUCH_CSS])
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

    def action_at(self, state, picked, place, entries):
        """With a Block picked, the plain move of that Block alone into ``place`` (no HQ moving, no Roadway
        formation: the move's places are that Block, that Zone, that Zone as its whole path); anything else,
        or more than one such move, leaves the choice to the list."""
        if self._block(state, picked) is None:
            return None
        found = [a for a, pl in entries if getattr(a, "kind", None) == "move" and not getattr(a, "roadway", False)
                 and pl.pieces == (picked,) and pl.targets == (place,) and pl.path == (place,)]
        return found[0] if len(found) == 1 else None

    def attempt_at(self, state, picked, place):
        """A Block of the side to act, then a Zone none of its listed actions leads to: a move of that Block
        alone there is put to the rules, and the page shows their refusal with its rule (19.1 a Zone not
        next to its own...). A click on another Block only picks it."""
        block = self._block(state, picked)
        side = self.rules.to_act(state) if self.rules is not None else None
        if block is None or block.side != side or place not in state.g.scenario.model.zones or place == block.zone:
            return None
        return self.refused_only(state, {"kind": "move", "side": side, "zones": [block.zone],
                                         "moves": [[block.id, place]]})

    def show(self, state, picked, targets):
        from dashboards.render.zone_map import zone_map_svg
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
