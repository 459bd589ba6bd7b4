"""Lines of Battle (Albuera 1811): exact combat odds on the area map, artillery fire, command points."""
from __future__ import annotations

import panel as pn

from dashboards.components.lob_views import LobSession, combat_panel, custom_panel, fire_panel, schedule_panel

TITLE = "Lines of Battle (Albuera 1811)"
SUMMARY = ("Click two areas of the Albuera map to see the exact odds of a multi-round combat under your "
           "policies, with the round-by-round tree; artillery fire and command-point calculators.")


def page():
    # the Any combat tab's units tables are Tabulators drawn only when the tab opens (dynamic tabs): their
    # script must be on the page from the start
    pn.extension("tabulator")
    sess = LobSession()
    intro = pn.pane.Markdown(
        "Exact odds for *Lines of Battle: Albuera 1811*. The engine enumerates every die of every combat round "
        "(5.2.1) and follows your policies for the decisions of each side, memoising on the combat state. "
        "The combat modifiers and hits come from the rulebook (green badges); the map's adjacency is our "
        "provisional reconstruction (orange badge), as the rulebook does not print it. File formats and the "
        "CLI: `docs/lob.md`.", sizing_mode="stretch_width")
    tabs = pn.Tabs(combat_panel(sess), custom_panel(sess), fire_panel(sess), schedule_panel(sess), sizing_mode="stretch_width",
                   css_classes=["lob-tabs"], dynamic=True)
    return pn.Column(intro, sess.loader.panel(), tabs, sizing_mode="stretch_width", css_classes=["lob-page"])
