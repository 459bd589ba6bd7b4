"""What every board of the play page offers it (drawing only, no rules; issues 15, 28): show a state,
highlight the places the legal actions of a picked piece or place lead to, report which place a player
picked.

A pick finds its actions through the rules' typed places of each action (:meth:`GameRules.places`:
pieces, origin, targets, path), never through the action's JSON. A system whose rules say no places (the
protocol's default) gets no help from the board: its list is not narrowed by a pick.
"""
from __future__ import annotations

from typing import Any, Callable

import panel as pn

from engine.core.game import GameRules, Places

__all__ = ["Board", "ListBoard", "fit_to_width"]


def fit_to_width(fig, name: str, most: int = 1100) -> None:
    """A Bokeh board drawn as wide as its place on the page (at most ``most`` px), keeping its proportions, so
    nothing beside it lies over it; zoomed by the mouse wheel and by a pinch on a touch screen (Bokeh hands a
    pinch to the active scroll tool), dragged to pan. ``name`` and ``play-board`` mark the figure itself on
    the page (where the browser tests look for what covers it)."""
    from bokeh.models import WheelZoomTool
    fig.sizing_mode = "scale_width"
    fig.max_width = most
    fig.css_classes = [*fig.css_classes, "play-board", name]
    wheel = next((t for t in fig.tools if isinstance(t, WheelZoomTool)), None)
    if wheel is not None:
        fig.toolbar.active_scroll = wheel


class Board:
    """What every board offers the page."""

    def __init__(self):
        self._callbacks: list[Callable[[str | None], None]] = []
        self.rules: GameRules | None = None          # set by :func:`board_for`

    def on_pick(self, cb: Callable[[str | None], None]) -> None:
        self._callbacks.append(cb)

    def _picked(self, place: str | None) -> None:
        for cb in self._callbacks:
            cb(place)

    def pieces_at(self, state, place: str) -> set[str]:
        return set()

    def places(self, rules: GameRules, state, action) -> Places:
        """The typed places of ``action`` in ``state``: the rules' (:meth:`GameRules.places`)."""
        return rules.places(state, action)

    def concerns(self, state, picked: str, places: Places) -> bool:
        """Whether an action is one of the picked piece's or place's (the list is narrowed to these)."""
        return picked in places.origin or bool(set(places.pieces) & ({picked} | self.pieces_at(state, picked)))

    def targets_of(self, state, places: Places) -> set[str]:
        """The places an action leads to, highlighted when its piece is picked."""
        return set(places.targets)

    def action_at(self, state, picked: str, place: str, entries: list[tuple[Any, Places]]) -> Any:
        """The action a click on ``place`` makes once ``picked`` is picked (``entries``: the listed
        ``(action, places)`` of the picked piece): the one that leads there, or None when several do (the
        list narrows) or none."""
        found = [a for a, pl in entries if place != picked and place in pl.targets and self.concerns(state, picked, pl)]
        return found[0] if len(found) == 1 else None

    def attempt_at(self, state, picked: str, place: str) -> Any:
        """The action (as JSON) a click on ``place`` tries when no listed action goes there, so the rules
        can say why not (a refusal with its rule); None when such a click only picks (the default)."""
        return None

    def refused_only(self, state, attempt: dict | None) -> dict | None:
        """``attempt`` when the rules refuse it (their check raises a :class:`RuleViolation`, whose rule and
        words the page then shows), else None: a click never makes an action the list does not offer (an
        attempt the rules would allow only picks, and the list narrows as before)."""
        from engine.core.errors import RuleViolation, VedetteError
        if attempt is None or self.rules is None:
            return None
        try:
            self.rules.check(state, self.rules.action_from_json(attempt))
        except RuleViolation:
            return attempt
        except VedetteError:          # not an action of these rules at all: nothing to explain
            return None
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
