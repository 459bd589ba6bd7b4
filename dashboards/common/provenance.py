"""Provenance badge: where a number comes from (rulebook, published chart, provisional), always visible."""
from __future__ import annotations

import html

import panel as pn

from engine.core.data import provenance_kind

__all__ = ["badge_html", "badge", "COLOURS", "STYLESHEET"]

COLOURS = {"rulebook": "#2e7d32", "published chart": "#1565c0", "provisional": "#ef6c00", "uploaded": "#6a1b9a"}
STYLESHEET = """
.prov-badge {display:inline-block;border-radius:10px;padding:1px 8px;margin:0 4px;font-size:11px;color:#fff;
             white-space:nowrap;cursor:help;vertical-align:middle}
"""


def badge_html(source: str, notes: str = "", label: str = "", uploaded: bool = False) -> str:
    """An inline HTML badge; the full source and notes show on hover.

    The colour is the block's own kind of provenance, also when it comes from a file the player loaded
    (``uploaded``): a chart still marked provisional in that file stays orange, with "your file" added,
    so each block shows whether it is still provisional."""
    kind = provenance_kind(source or "provisional")
    text = f"{label}: {kind}" if label else kind
    if uploaded and kind != "uploaded":
        text += " · your file"
    tip = source + (f" — {notes}" if notes else "")
    if uploaded:
        tip = "loaded from your file · " + tip
    extra = " prov-from-file" if uploaded else ""
    border = f";box-shadow:0 0 0 2px {COLOURS['uploaded']}" if uploaded else ""
    return (f"<span class='prov-badge prov-{kind.replace(' ', '-')}{extra}' data-kind='{kind}' "
            f"data-source='{html.escape(source, quote=True)}' title='{html.escape(tip, quote=True)}' "
            f"style='background:{COLOURS[kind]}{border}'>{html.escape(text)}</span>")


def badge(source: str, notes: str = "", label: str = "", uploaded: bool = False) -> pn.pane.HTML:
    return pn.pane.HTML(badge_html(source, notes, label, uploaded), stylesheets=[STYLESHEET], margin=(2, 4))
