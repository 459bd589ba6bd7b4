"""These Brave Fellows (Dürenstein 1805): Fatigue Check odds, charge trees, fire and melee, map and LOS."""
from __future__ import annotations

import panel as pn

from dashboards.components.tbf_views import (TbfSession, charge_panel, check_panel, fire_panel, map_panel, melee_panel,
                                             situation_panel)

TITLE = "These Brave Fellows (Dürenstein 1805)"
SUMMARY = ("Chance to pass every Fatigue Check, a cavalry charge as an exact probability tree, fire and melee "
           "results, the Dürenstein map with line of sight, and the fate of every piece in an action on the map.")


def page():
    sess = TbfSession()
    intro = pn.pane.Markdown(
        "Odds for *These Brave Fellows*. Every number is enumerated exactly by the engine from the same rules "
        "procedures a game uses. The charts (Fatigue Check, Fire, Melee, Terrain, Level 2/3) are not in the "
        "rulebook text, so the shipped values are **provisional** (orange badges); load a file with the printed "
        "values to replace them (format in `docs/tbf.md`).", sizing_mode="stretch_width")
    # The map (720 hexes) is drawn the first time its tab is opened, to keep the page load light.
    map_tab = pn.Column(pn.pane.Markdown("_drawing the map…_"), name="Map and LOS", sizing_mode="stretch_width")
    situation = situation_panel(sess)
    tabs = pn.Tabs(check_panel(sess), charge_panel(sess), fire_panel(sess), melee_panel(sess), map_tab, situation,
                   sizing_mode="stretch_width", css_classes=["tbf-tabs"])

    opened: set[int] = set()

    def open_map(event):
        if event.new == 4 and 4 not in opened:
            map_tab[:] = list(map_panel(sess).objects)
            opened.add(4)
        if event.new == 5 and 5 not in opened:
            situation.compute()
            opened.add(5)

    tabs.param.watch(open_map, "active")
    return pn.Column(intro, sess.loader.panel(), tabs, sizing_mode="stretch_width", css_classes=["tbf-page"])
