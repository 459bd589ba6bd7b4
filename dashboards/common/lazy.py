"""A collapsed card, and tabs, whose content is built the first time it is opened (keeps first page loads light)."""
from __future__ import annotations

from typing import Callable

import panel as pn

__all__ = ["lazy_card", "lazy_tabs"]


def lazy_card(title: str, build: Callable[[], object], **kw) -> pn.Card:
    card = pn.Card(title=title, collapsed=True, sizing_mode=kw.pop("sizing_mode", "stretch_width"), **kw)

    def opened(event):
        if not event.new and not card.objects:
            card.objects = [build()]

    card.param.watch(opened, "collapsed")
    return card


def lazy_tabs(first, later, css_class: str, **kw) -> pn.Tabs:
    """Tabs showing ``first`` at once; each of ``later`` (``(name, build)`` pairs, ``build()`` making the tab's
    panel) is built the first time its tab is opened. Built server-side on the tab change, not with
    ``dynamic=True``: a tab clicked before the page's session connected is still filled when the change
    arrives. A built panel with a ``compute()`` method has it called once, on opening."""
    holders = [pn.Column(name=name, sizing_mode="stretch_width", css_classes=[f"{css_class}-later"])
               for name, _ in later]
    tabs = pn.Tabs(first, *holders, sizing_mode=kw.pop("sizing_mode", "stretch_width"), css_classes=[css_class], **kw)

    def opened(event):
        k = event.new - 1
        if 0 <= k < len(later) and not holders[k].objects:
            built = later[k][1]()
            holders[k][:] = [built]
            compute = getattr(built, "compute", None)
            if callable(compute):
                compute()

    tabs.param.watch(opened, "active")
    return tabs
