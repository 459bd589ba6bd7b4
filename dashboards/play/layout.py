"""The play page's layout (issue 25 point 2): the board beside the actions on a wide screen and above them on
a narrow one, never under them; on a phone, things to tap at least 44 px high.

* :func:`board_and_actions`: the board's box and the actions' column side by side while the screen has room
  for both (the board at least ``BOARD_MIN`` px, the actions ``ACTIONS`` px), else stacked, the board first
  and the whole width. The board takes what room is left: every board draws itself as wide as its box (SVG
  boards by their viewBox, Bokeh boards scaled to the width), so nothing beside it ever lies over it.
* ``TOUCH_CSS``: our own browser components (the head, the controls, the hex board) on a screen narrower
  than ``NARROW`` px: buttons, lists and fields 44 px high (a thumb), 16 px text (a phone's browser then
  does not zoom into a field it focuses).
* ``WIDGET_TOUCH_CSS``: the same for a Panel widget (a Bokeh button, select or text box in its shadow root);
  ``CARD_TOUCH_CSS`` for a card's header.

Only layout and style here: no rules, no words.
"""
from __future__ import annotations

import panel as pn

from dashboards.common.layout import flow

__all__ = ["board_and_actions", "TOUCH_CSS", "WIDGET_TOUCH_CSS", "CARD_TOUCH_CSS", "NARROW", "BOARD_MIN",
           "ACTIONS"]

#: below this width (px) the page is laid out for a thumb
NARROW = 700
#: the least width of the board beside the actions (px); with less room the actions go below the board
BOARD_MIN = 600
#: the width of the actions' column beside the board (px)
ACTIONS = 460

_NARROW = f"@media (max-width: {NARROW}px)"

TOUCH_CSS = _NARROW + """ {
  button, select, summary, input[type=text], input[type=search], input:not([type]) {min-height:44px;font-size:16px}
  button {padding:6px 14px}
  summary {display:flex;align-items:center}
  .action-list option {padding:10px 4px}
}
"""

WIDGET_TOUCH_CSS = _NARROW + """ {
  .bk-btn, .bk-input, select.bk-input {min-height:44px;font-size:16px}
}
"""

CARD_TOUCH_CSS = _NARROW + """ {
  .card-header {min-height:44px}
}
"""


def board_and_actions(board, actions) -> pn.FlexBox:
    """The board's box and the actions' column: side by side when both fit (the board takes the room left),
    else the board above the actions, each the whole width."""
    board.styles = {**(board.styles or {}), "flex": f"1 1 {BOARD_MIN}px", "min-width": "0"}
    actions.styles = {**(actions.styles or {}), "flex": f"0 1 {ACTIONS}px", "min-width": "0", "max-width": "100%"}
    return flow(board, actions, css_classes=["board-and-actions"])
