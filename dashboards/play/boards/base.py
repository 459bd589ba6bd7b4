"""What every board of the play page offers it (drawing only, no rules; issue 15): show a state, highlight
the places the legal actions of a picked piece or place lead to, report which place a player picked.

:func:`places_of` lists the pieces and places an action names (read from its JSON), which is how a pick
narrows the action list for a system whose rules do not yet say the places of an action.
"""
from __future__ import annotations

from typing import Any, Callable

import panel as pn

__all__ = ["Board", "ListBoard", "places_of"]


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


class Board:
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


class ListBoard(Board):
    """Any other system: the position summary as a list (the action list does the rest)."""

    def __init__(self, rules):
        super().__init__()
        self.rules = rules
        self.pane = pn.pane.JSON({}, depth=2, css_classes=["play-board"], sizing_mode="stretch_width")

    def show(self, state, picked, targets):
        self.pane.object = self.rules.state_summary(state) or {"position": str(self.rules.position(state))}

    def panel(self):
        return self.pane
