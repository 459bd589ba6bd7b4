"""Distribution bars: one horizontal bar per outcome with its exact fraction and percentage.

Plain HTML (no plotting round trip), so an input change redraws in a few milliseconds; the exact
fraction shows on hover and in a data attribute that browser tests read.
"""
from __future__ import annotations

import html
from fractions import Fraction
from typing import Iterable

import panel as pn

__all__ = ["bars_html", "bars", "STYLESHEET", "fmt_pct"]

STYLESHEET = """
.dist-bars {width:100%;border-collapse:collapse;font-size:13px}
.dist-bars td {padding:2px 6px;vertical-align:middle}
.dist-bars td.lab {white-space:nowrap;width:1%}
.dist-bars td.bar {width:70%}
.dist-bars td.val {white-space:nowrap;text-align:right;font-variant-numeric:tabular-nums;width:1%}
.dist-bars .fill {height:14px;border-radius:2px;min-width:1px}
.dist-bars caption {text-align:left;font-weight:600;padding:4px 0}
"""


def fmt_pct(p: Fraction | float) -> str:
    f = float(p) * 100
    if f == 0:
        return "0%"
    if f < 0.1:
        return "<0.1%"
    return f"{f:.1f}%"


def bars_html(rows: Iterable[tuple], title: str = "", colour: str = "#2f4f6f", css_class: str = "",
              extra: str = "") -> str:
    """``rows``: ``(label, probability)`` or ``(label, probability, colour)`` or ``(label, p, colour, tooltip)``."""
    body = []
    for row in rows:
        label, p = row[0], Fraction(row[1])
        c = row[2] if len(row) > 2 and row[2] else colour
        tip = row[3] if len(row) > 3 else ""
        frac = f"{p.numerator}/{p.denominator}"      # data attribute: always n/d (tests and scripts read it)
        shown = str(p.numerator) if p.denominator == 1 else frac   # what a player reads: "1", not "1/1"
        title_attr = html.escape(f"{label}: {shown} = {float(p):.4f}" + (f" · {tip}" if tip else ""), quote=True)
        body.append(
            f"<tr data-label='{html.escape(str(label), quote=True)}' data-fraction='{frac}' title='{title_attr}'>"
            f"<td class='lab'>{html.escape(str(label))}</td>"
            f"<td class='bar'><div class='fill' style='width:{float(p) * 100:.2f}%;background:{c}'></div></td>"
            f"<td class='val'>{fmt_pct(p)}</td><td class='val frac'>{shown}</td></tr>")
    cap = f"<caption>{html.escape(title)}{extra}</caption>" if title or extra else ""
    return f"<table class='dist-bars {css_class}'>{cap}<tbody>{''.join(body)}</tbody></table>"


def bars(rows: Iterable[tuple], title: str = "", **kw) -> pn.pane.HTML:
    return pn.pane.HTML(bars_html(rows, title, **kw), stylesheets=[STYLESHEET], sizing_mode="stretch_width")
