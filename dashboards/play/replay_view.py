"""The play page's replay controls (issue 15): first, previous, next, last, jump to a turn and phase,
bookmarks, the play/replay switch, and the caption of the step shown. A part of
:class:`~dashboards.play.view.GamePlayView` (its widgets are made with the view's game parts)."""
from __future__ import annotations

import html

import panel as pn
import param

from engine.core.errors import VedetteError

from dashboards.common.layout import flow
from dashboards.play.model import GamePlayModel
from dashboards.play.page_words import side_name
from dashboards.server.storage import StorageError

__all__ = ["ReplayParts"]


class ReplayParts:
    """The replay part of the play page's view: its callbacks and its drawing."""

    model: GamePlayModel
    where: pn.pane.HTML
    jump: pn.widgets.Select
    marks: pn.widgets.Select
    mark_name: pn.widgets.TextInput
    mark_b: pn.widgets.Button
    first_b: pn.widgets.Button
    prev_b: pn.widgets.Button
    next_b: pn.widgets.Button
    last_b: pn.widgets.Button
    mode: pn.widgets.RadioButtonGroup
    replay_row: pn.Column

    def _goto(self, i):
        self.model.goto(i)

    def _mode(self, event):
        m = self.model
        if event.new == m.mode:
            return
        if event.new == "play" and (m.broken or not m.role):
            self._show_refusal(m.broken or "this link lets you watch and replay this game only")
            self.mode.value = "replay"
            return
        with param.parameterized.batch_call_watchers(m):
            m.mode = event.new
            m.position = len(m.states) - 1 if event.new == "play" else m.position

    def _bookmark(self, _=None):
        try:
            self.model.add_bookmark(self.mark_name.value or "")
        except (VedetteError, StorageError, ValueError) as exc:
            self._show_refusal(str(exc)[:200])
        self._draw_replay()

    def _draw_replay(self) -> None:
        m = self.model
        n = len(m.states) - 1
        self.where.object = (f"<span class='replay-at' data-position='{m.position}'>action {m.position} of {n}</span>"
                             f"<div class='replay-caption'>{html.escape(self._step_caption(n))}</div>")
        if m.mode == "replay":
            # a first entry that goes nowhere: picking the first turn or bookmark is a change, so it jumps
            self.jump.options = {"(choose a turn and phase)": None} | {label: i for i, label in m.step_positions()}
            self.marks.options = {"(choose a bookmark)": None} | {f"{label} (action {p})": p for p, label in m.bookmarks()}
            self.jump.value = self.marks.value = None
            if not self.replay_row.objects:
                self.replay_row[:] = [self.where, flow(self.first_b, self.prev_b, self.next_b, self.last_b),
                                      flow(self.jump, self.marks), flow(self.mark_name, self.mark_b)]
        self.replay_row.visible = m.mode == "replay"
        if self.mode.value != m.mode:
            self.mode.value = m.mode

    def _step_caption(self, n: int) -> str:
        """The replay step shown, in words: which action led here, whose, on which turn and phase (as this
        page's side may know it); at the start, that no action is made yet."""
        m = self.model
        p = m.position
        states = m.states
        if p <= 0 or p > len(m.events) or p > len(states) - 1:
            pos = m.rules.position(states[0]) if states else None
            return (f"the start of the game, before any action (turn {pos.turn})" if pos is not None
                    else "the start of the game")
        before, ev = states[p - 1], m.events[p - 1]
        if not m.sees_all:
            ev = m.rules.visible_event(before, ev, m.viewer)
        try:
            action = m.rules.action_from_json(ev.get("action"))
            said = m.rules.describe_action(action)
        except VedetteError:
            action, said = None, "an action this version cannot read"
        who = side_name(getattr(action, "side", None) or m.rules.to_act(before) or "")
        return f"action {p} of {n}: " + (f"{who} — " if who else "") + f"{said} ({m.rules.position(before)})"
