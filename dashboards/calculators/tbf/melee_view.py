"""The Melee tab of the These Brave Fellows page (6.4): attackers and defenders as forms, the melee's exact
results worked out in a worker process (each attacker's own check branches the odds, 6.4 D)."""
from __future__ import annotations

import html
from fractions import Fraction
from functools import partial

import panel as pn

from dashboards.common.layout import flow
from dashboards.common.provenance import STYLESHEET as BADGE_CSS
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS, bars_html
from dashboards.server.background import Background
from engine.core.errors import VedetteError
from engine.tbf.calc import fighter_from_kv
from engine.tbf.melee import UNIT_KINDS, MeleeSetup, melee_distribution, melee_outcome
from engine.tbf.tables import STATUSES, Tables, default_tables

from .session import TbfSession
from .unit_form import setup_units, unit_form, unit_lines

__all__ = ["MAX_MELEE_UNITS", "melee_work", "melee_panel"]

#: a computing limit of the melee panel (not a rule): a melee's exact odds branch on every attacker's own
#: check (6.4 D): 6 attackers take a few seconds, 8 about twenty
MAX_MELEE_UNITS = 6


def melee_work(tables: Tables | None, a: str, d: str, terr: str, sh: int, badge: str = "") -> str:
    """Off the event loop (in a worker process): a melee's exact results (6.4) as HTML; ``tables`` None: the
    shipped set."""
    tables = default_tables() if tables is None else tables
    if not isinstance(sh, int) or abs(sh) > 9:
        raise VedetteError(f"other column shift: from -9 to +9 on this page, not {sh!r}")
    A = tuple(fighter_from_kv(l, "attacker", i) for i, l in enumerate(unit_lines(a, "attackers", MAX_MELEE_UNITS)))
    D = tuple(fighter_from_kv(l, "defender", i) for i, l in enumerate(unit_lines(d, "defenders", MAX_MELEE_UNITS)))
    tt = tables.terrain.terrain.get(terr)
    dist = melee_distribution(tables, MeleeSetup(A, D, shift=sh + (tt.melee_shift if tt else 0)))
    res: dict[str, Fraction] = {}
    cols: dict[str, Fraction] = {}
    for x, w in dist.items():
        o = melee_outcome(x)
        res[o.result] = res.get(o.result, Fraction(0)) + w
        cols[o.column or "none"] = cols.get(o.column or "none", Fraction(0)) + w
    meaning = tables.melee.results
    rows = [(f"{k} — {meaning[k].text}" if k in meaning else k, w) for k, w in sorted(res.items(), key=lambda kv: -kv[1])]
    return (f"<div>{badge}</div>" + bars_html(rows, "melee results", css_class="tbf-melee-bars")
            + bars_html(sorted(cols.items(), key=lambda kv: -kv[1]), "final odds column"))


def melee_panel(sess: TbfSession) -> pn.Column:
    att = pn.widgets.TextAreaInput(label="Attackers, one per line (mf=4,fv=4,flank,cv=1)", value="mf=4,fv=4,cv=1\nmf=4,fv=4",
                                   height=100, css_classes=["tbf-attackers"])
    dfn = pn.widgets.TextAreaInput(label="Defenders (mf=4,fv=3,status=fatigued)", value="mf=4,fv=3", height=80)
    terrain = pn.widgets.Select(label="defender's terrain", options=list(sess.charts.terrain.terrain), value="level0")
    shift = pn.widgets.IntInput(label="other column shift", value=0, start=-4, end=4, width=120)

    out = pn.pane.HTML("<div class='tbf-melee-wait'>working out the melee…</div>",
                       stylesheets=[BADGE_CSS, BARS_CSS], sizing_mode="stretch_width", css_classes=["tbf-melee-out"])
    bg = Background()

    def compute(*_):
        tables = None if sess.tables is default_tables() else sess.tables      # None: the shipped set
        bg.start(partial(melee_work, tables, att.value, dfn.value, terrain.value, shift.value, sess.badge("melee")),
                 lambda text: setattr(out, "object", text),
                 lambda exc: setattr(out, "object", f"<div class='tbf-error alert alert-danger'><b>Cannot compute "
                                                    f"this:</b> {html.escape(str(exc))}</div>"),
                 label="working out the melee…")

    for wdg in (att, dfn, terrain, shift):
        wdg.param.watch(compute, "value")
    sess.param.watch(compute, "tables")
    compute()
    fields = {"name": str, "mf": int, "fv": int, "kind": UNIT_KINDS, "status": STATUSES, "cv": str, "flank": bool}
    blank = {"mf": 4, "fv": 4, "kind": "infantry", "status": "normal"}
    melee_setup = setup_units("melee")
    col = pn.Column(pn.pane.Markdown("**Attackers** (6.4): one row each; *cv*: the CVs of leaders with them, "
                                      "joined by +.", margin=(0, 5)),
                     unit_form(att, fields, blank, "attacker", "tbf-melee-att", setup=melee_setup),
                     pn.pane.Markdown("**Defenders**", margin=(0, 5)),
                     unit_form(dfn, fields, blank, "defender", "tbf-melee-def", setup=melee_setup),
                     flow(terrain, shift), bg.panel(), out, sizing_mode="stretch_width", name="Melee")
    return col
