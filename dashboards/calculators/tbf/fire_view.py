"""The Fire tab of the These Brave Fellows page (6.3): the firing units as a form, the fire's exact results
following every change."""
from __future__ import annotations

from fractions import Fraction

import panel as pn

from dashboards.common.layout import flow
from dashboards.render.dist_bars import bars_html
from engine.core.errors import VedetteError
from engine.tbf.calc import firer_from_kv
from engine.tbf.fire import FIRER_KINDS, FireSetup, fire_distribution, fire_outcome
from engine.tbf.tables import STATUSES, Tables

from .session import TbfSession, error_pane, html_pane
from .unit_form import setup_units, unit_form, unit_lines

__all__ = ["MAX_FIRERS", "fire_panel"]

#: a computing limit of the fire panel (not a rule): the firing units of one fire
MAX_FIRERS = 12


def fire_panel(sess: TbfSession) -> pn.Column:
    firers = pn.widgets.TextAreaInput(label="Firing units, one per line (ff=3,kind=artillery,range=2,status=fatigued)",
                                      value="ff=3\nff=4,kind=artillery,range=1", height=120, css_classes=["tbf-firers"])
    night = pn.widgets.Checkbox(label="night (turn 11+, 8.1)")
    defensive = pn.widgets.Checkbox(label="defensive fire (6.3.6)")
    terrain = pn.widgets.Select(label="target terrain", options=list(sess.charts.terrain.terrain), value="level0")
    drm = pn.widgets.IntInput(label="other DRM", value=0, start=-6, end=6, width=120)

    def view(text: str, night_v: bool, def_v: bool, terr: str, drm_v: int, tables: Tables) -> pn.viewable.Viewable:
        try:
            fs = tuple(firer_from_kv(line, i) for i, line in enumerate(unit_lines(text, "firing units", MAX_FIRERS)))
            tt = tables.terrain.terrain.get(terr)
            setup = FireSetup(fs, defensive=def_v, night=night_v, terrain_drm=tt.fire_drm if tt else 0, drm=drm_v)
            d = fire_distribution(tables, setup)
        except VedetteError as exc:
            return error_pane(exc)
        res: dict[str, Fraction] = {}
        for o, w in d.items():
            code = fire_outcome(o).result
            res[code] = res.get(code, Fraction(0)) + w
        meaning = tables.fire.results
        rows = [(f"{k} — {meaning[k].text}" if k in meaning else k, w) for k, w in sorted(res.items(), key=lambda kv: -kv[1])]
        cols = sorted({fire_outcome(o).column or "none" for o in d})
        return html_pane(f"<div>{sess.badge('fire')} {sess.badge('terrain')} column(s): {', '.join(cols)}</div>"
                     + bars_html(rows, "fire results", css_class="tbf-fire-bars"))

    out = pn.bind(view, firers, night, defensive, terrain, drm, sess.param.tables)
    form = unit_form(firers, {"name": str, "ff": int, "kind": FIRER_KINDS, "range": int, "status": STATUSES,
                              "moved": bool}, {"ff": 3, "kind": "infantry", "range": 1, "status": "normal"},
                     "firer", "tbf-fire-form", setup=setup_units("fire"))
    return pn.Column(pn.pane.Markdown("**Firing units** (6.3): one row each; the results follow every change.",
                                      margin=(0, 5)), form, flow(night, defensive, terrain, drm),
                     pn.panel(out, sizing_mode="stretch_width"), sizing_mode="stretch_width", name="Fire")
