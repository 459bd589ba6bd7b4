"""The exact odds of a Napoleonic 20 battle as HTML (9.0 CRT column, consequences, army morale 12.1, outcomes):
one string built from the engine's :class:`engine.n20.OddsResult`, shared by the odds explorer's inputs
(:mod:`dashboards.calculators.n20.plan_view`), its results panel (:mod:`dashboards.calculators.n20.odds_view`)
and the map page."""
from __future__ import annotations

import html
from fractions import Fraction
from typing import Any

from dashboards.calculators.n20.battle_form import BattlePlan, side_probabilities
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.common.rule_notes import note
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS, bars_html, fmt_pct

__all__ = ["odds_html", "results_html", "ODDS_BUDGET_S", "ODDS_CSS", "RESULTS_CSS", "CRT_COLOURS", "CRT_ORDER"]

ODDS_CSS = """
.odds-head {font-size:15px;margin:4px 0 8px 0}
.odds-head .big {font-size:22px;font-weight:700;color:#2f4f6f}
.odds-lines {font-size:12px;color:#444;margin:0 0 6px 0;padding-left:16px}
.odds-error {color:#b71c1c;font-weight:600}
table.outcomes, table.morale {border-collapse:collapse;font-size:12px;width:100%}
table.crt-column {border-collapse:collapse;font-size:12px;margin:4px 0}
table.crt-column td, table.crt-column th {border:1px solid #e0e0e0;padding:2px 8px;text-align:center}
table.outcomes td, table.outcomes th, table.morale td, table.morale th {border-bottom:1px solid #e0e0e0;padding:2px 6px;text-align:left}
.rule-tag {background:#eef;border-radius:3px;padding:0 4px;font-size:11px;cursor:help}
"""

#: seconds one odds request may take (a battle of the form is bounded: it answers in milliseconds)
ODDS_BUDGET_S = 20.0
CRT_COLOURS = {"AB": "#b71c1c", "AR": "#e53935", "AW": "#ef9a9a", "N": "#9e9e9e", "EX": "#8e24aa",
               "DW": "#a5d6a7", "DR": "#43a047", "DB": "#1b5e20"}
CRT_ORDER = ["AB", "AR", "AW", "N", "EX", "DW", "DR", "DB"]
RESULTS_CSS = BARS_CSS + BADGE_CSS + ODDS_CSS


def _rule(rule: str) -> str:
    return f"<span class='rule-tag' title='{html.escape(note(rule) or rule, quote=True)}'>{html.escape(rule)}</span>"


def _frac(p: Fraction) -> str:
    """``1/3``; a whole number without ``/1`` and with a true minus sign (``−1``, not ``-1/1``)."""
    p = Fraction(p)
    text = str(abs(p.numerator)) if p.denominator == 1 else f"{abs(p.numerator)}/{p.denominator}"
    return ("−" if p < 0 else "") + text


def _badge(prov: dict, key: str, label: str, uploaded: bool) -> str:
    b = prov.get(key) or {}
    return badge_html(b.get("source", "provisional"), b.get("notes", ""), label, uploaded=uploaded)


def _crt_column_html(tables, column: int) -> str:
    """The CRT column in use, die by die (9.0 F), as printed on the chart in use."""
    try:
        cells = [(die, tables.crt_result(column, die)) for die in range(1, 7)]
    except (KeyError, IndexError):
        return ""
    row = "".join(f"<td data-die='{d}'>{html.escape(str(c))}</td>" for d, c in cells)
    return (f"<table class='crt-column' data-column='{column}'><caption style='text-align:left;font-weight:600'>"
            f"CRT column {column:+d} in use {_rule('9.0 F')}</caption><tr><th>die</th>"
            + "".join(f"<th>{d}</th>" for d, _ in cells) + f"</tr><tr><th>result</th>{row}</tr></table>")


def results_html(plan: BattlePlan, top: int = 12) -> str:
    """Everything the odds panel shows, as one HTML string (cheap to rebuild on every change)."""
    return odds_html(plan.result, plan.error, plan.revision, plan.title, plan.elapsed_ms, plan.tables is not None, top)


def odds_html(r, error: str = "", revision: int = 0, title: str = "", elapsed_ms: float = 0.0,
              uploaded: bool = False, top: int = 12) -> str:
    """The odds panel for an ``engine.n20.OddsResult`` (``error``: why the last change was not computed)."""
    parts = [f"<div class='odds-results' data-revision='{revision}' data-plan='{html.escape(title)}'>"]
    if error:
        parts.append(f"<div class='odds-error'>Not computed: {html.escape(error)}"
                     + (" (showing the last good result below)" if r is not None else "") + "</div>")
    if r is None:
        parts.append("</div>")
        return "".join(parts)
    prov = r.battle.tables.provenance()
    up = uploaded
    b = r.battle
    parts.append(
        f"<div class='odds-head'>{html.escape(b.attacker_side)} attack <span class='big att-total'>{r.attack}</span>"
        f" vs {html.escape(b.defender_side)} defence <span class='big def-total'>{r.defence}</span>"
        f" &rarr; differential <span class='big differential'>{r.differential:+d}</span>"
        f" &rarr; CRT column <span class='big column'>{r.column:+d}</span> {_rule('9.0')}"
        f" {_badge(prov, 'tec', 'terrain chart', up)} <small>edition {html.escape(b.edition)}</small></div>")
    if r.strength_lines:
        parts.append("<ul class='odds-lines'>" + "".join(f"<li>{html.escape(t)} {_rule(rule)}</li>"
                                                        for rule, t in r.strength_lines) + "</ul>")
    crt_rows: list[tuple[Any, ...]] = [(code, r.crt[code], CRT_COLOURS.get(code), note("9.6")) for code in CRT_ORDER
                                       if r.crt[code]]
    crt_rows += [(str(k), p, "#607d8b") for k, p in r.crt.items() if k not in CRT_ORDER]
    parts.append(bars_html(crt_rows, f"Combat result (one d6 on CRT column {r.column:+d})", css_class="crt-bars",
                           extra=" " + _badge(prov, "crt", "CRT", up)))
    parts.append(_crt_column_html(b.tables, r.column))
    cons = [(label, p, "#546e7a", f"rule {rule}: {note(rule)}") for label, p, rule in side_probabilities(r)]
    parts.append(bars_html(cons, "Consequences", css_class="consequence-bars",
                           extra=" " + _badge(prov, "controlled_advance", "controlled advance", up)))
    em = r.summary["expected_morale"]
    rows = "".join(
        f"<tr class='exp-morale' data-side='{s}'><td>{html.escape(s)}</td><td>{float(v):+.3f}</td><td>{_frac(v)}</td>"
        f"<td>{fmt_pct(r.summary['game_lost'][s])}</td></tr>" for s, v in em.items())
    parts.append("<table class='morale'><caption style='text-align:left;font-weight:600'>Expected change of army "
                 f"morale {_rule('12.1')} {_badge(prov, 'morale_chart', 'morale chart', up)}</caption>"
                 "<tr><th>side</th><th>expected</th><th>exact</th><th>game lost</th></tr>" + rows + "</table>")
    items = sorted(r.outcomes.items(), key=lambda kv: (-kv[1], str(kv[0])))
    body = "".join(f"<tr><td>{fmt_pct(p)}</td><td>{_frac(p)}</td><td>{html.escape(str(o))}</td></tr>"
                   for o, p in items[:top])
    more = f"<tr><td colspan=3>… {len(items) - top} rarer outcomes</td></tr>" if len(items) > top else ""
    parts.append(f"<table class='outcomes'><caption style='text-align:left;font-weight:600'>Most likely final "
                 f"outcomes ({len(items)} in all, total probability {_frac(r.outcomes.total)})</caption>"
                 f"<tr><th>chance</th><th>exact</th><th>what happens</th></tr>{body}{more}</table>")
    parts.append(f"<div style='font-size:11px;color:#777'>exact enumeration in {elapsed_ms:.1f} ms</div></div>")
    return "".join(parts)
