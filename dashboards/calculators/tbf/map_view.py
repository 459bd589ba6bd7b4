"""The Map and LOS tab of the These Brave Fellows page: the Dürenstein map (provisional), the set-up's units,
a clicked hex's terrain (2.2) and the line of sight between two hexes (4.4)."""
from __future__ import annotations

import html

import panel as pn

from dashboards.common.provenance import badge_html
from engine.core.errors import VedetteError

from .session import TbfSession

__all__ = ["map_panel"]


def map_panel(sess: TbfSession) -> pn.Column:
    """The Dürenstein map with the set-up's counters, a hex's terrain on a click and the line of sight between
    two hexes (4.4) for a viewer."""
    from dashboards.render.hexmap import TBF_COLOURS, Counter, HexMapFigure, MapSpec, Marked
    from engine.tbf.scenario import default_scenario
    from engine.tbf.game.setup import initial_state

    sc = default_scenario()
    b = sc.board
    names = {hs[0]: n for n, hs in b.data.towns.items()}
    names.update({h: f"col {k}" for k, h in b.data.setup_numbers.items() if h not in names})
    roads = [r.hexes for r in b.data.roads]
    spec = MapSpec(b.grid, {h: b.terrain(h) for h in b.hexes()}, names=names, roads=roads,
                   title="Dürenstein (provisional map)", source=b.data.source)
    fig = HexMapFigure(spec, width=980, show_labels=True)
    fig.terrain_source.data = dict(fig.terrain_source.data,
                                   colour=[TBF_COLOURS.get(t, "#eeeeee") for t in fig.terrain_source.data["terrain"]])
    st = initial_state(sc)
    counters = []
    for p in st.on_map():
        if sc.is_leader(p.id) or p.hex is None:
            continue
        u = sc.units[p.id]
        counters.append(Counter(p.id, p.hex, "french" if u.side == "french" else "allied", u.kind, u.fv, u.ma, u.name))
    fig.set_counters(counters)
    a = pn.widgets.TextInput(label="LOS from", value="1514", width=100, css_classes=["tbf-los-a"])
    c = pn.widgets.TextInput(label="to", value="1511", width=100, css_classes=["tbf-los-b"])
    viewer = pn.widgets.Select(label="viewer", options=["artillery", "howitzer", "cavalry", "infantry"], width=140)
    info = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["tbf-los-result"])
    picked = pn.pane.HTML("<i>click a hex to see its terrain</i>", sizing_mode="stretch_width", css_classes=["tbf-hex-info"])

    def los(*_: object) -> None:
        try:
            r = b.los((a.value or "").strip(), (c.value or "").strip(), sess.charts, viewer=viewer.value)
        except VedetteError as exc:
            info.object = f"<span class='tbf-error'>{html.escape(str(exc))}</span>"
            fig.set_paths([])
            return
        fig.set_paths([(list(r.path), "#2e7d32" if r.clear else "#c62828", "LOS")])
        fig.set_highlights([Marked(r.blocked_by, "X", "#e53935")] if r.blocked_by else [])
        info.object = (f"<b class='tbf-los' data-clear='{str(r.clear).lower()}'>LOS {html.escape(a.value or '')} → "
                       f"{html.escape(c.value or '')}: {'clear' if r.clear else 'blocked at ' + str(r.blocked_by)}</b> "
                       f"(rule {r.rule}) {badge_html(b.data.source, b.data.notes, 'map')}")

    def tapped(h: str | None) -> None:
        if h is None:
            return
        d = b.describe(h)
        picked.object = (f"<b>{h}</b>: {d['terrain']}, level {d['level']}" + (f", {d['town']}" if d["town"] else "")
                         + (", walled road" if d["walled_road"] else "") + (", Strong Point" if d["strong_point"] else "")
                         + (f", road to {', '.join(d['road_to'])}" if d["road_to"] else ""))

    for w in (a, c, viewer):
        w.param.watch(los, "value")
    sess.param.watch(los, "tables")
    fig.on_tap(tapped)
    los()
    legend = " ".join(f"<span style='background:{col};padding:0 6px;border:1px solid #999'>{k}</span>"
                      for k, col in TBF_COLOURS.items())
    return pn.Column(pn.Row(a, c, viewer), info, picked, pn.pane.HTML(legend), pn.pane.Bokeh(fig.fig),
                     sizing_mode="stretch_width", name="Map and LOS")
