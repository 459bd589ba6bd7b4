"""Layout helpers for pages that must fit from a 1024 px tablet to a 1920 px screen (issue 17)."""
from __future__ import annotations

import panel as pn

__all__ = ["flow", "columns"]


def flow(*objects, **kw) -> pn.FlexBox:
    """A row of controls that wraps onto the next line when the screen is too narrow (a Row would overflow:
    its controls then overlap what is beside it, or scroll sideways)."""
    kw.setdefault("sizing_mode", "stretch_width")
    return pn.FlexBox(*objects, flex_wrap="wrap", align_items="flex-start", align_content="flex-start", **kw)


def columns(*objects, basis: int = 480, **kw) -> pn.FlexBox:
    """Side-by-side columns of at least ``basis`` px that stack when there is not room for them all."""
    for o in objects:
        o.styles = {**(o.styles or {}), "flex": f"1 1 {basis}px", "min-width": f"min({basis}px, 100%)"}
    return flow(*objects, **kw)
