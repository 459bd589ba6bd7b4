"""A collapsed card whose content is built the first time it is opened (keeps first page loads light)."""
from __future__ import annotations

from typing import Callable

import panel as pn

__all__ = ["lazy_card"]


def lazy_card(title: str, build: Callable[[], object], **kw) -> pn.Card:
    card = pn.Card(title=title, collapsed=True, sizing_mode=kw.pop("sizing_mode", "stretch_width"), **kw)

    def opened(event):
        if not event.new and not card.objects:
            card.objects = [build()]

    card.param.watch(opened, "collapsed")
    return card
