"""Lines of Battle (Albuera 1811): exact combat odds on the area map, artillery fire, command points."""
from __future__ import annotations

from functools import partial

import panel as pn

from dashboards.common.lazy import lazy_tabs
from dashboards.calculators.lob.views import LobSession, combat_panel, custom_panel, fire_panel, schedule_panel

TITLE = "Lines of Battle (Albuera 1811)"
SUMMARY = ("Click two areas of the Albuera map to see the exact odds of a multi-round combat under your "
           "policies, with the round-by-round tree; artillery fire and command-point calculators.")

#: the tabs after the first, built the first time each is opened (a session that only looks at the map's
#: combat never pays for the Any combat form and its first enumeration, nor the two calculators: issue 17.1)
LATER_TABS = (("Any combat", custom_panel), ("Artillery fire", fire_panel), ("Command points", schedule_panel))


def page():
    # the Any combat tab's units tables are Tabulators built after the page has loaded: their script must
    # come with the page
    pn.extension("tabulator")
    sess = LobSession()
    intro = pn.pane.Markdown(
        "Exact odds for *Lines of Battle: Albuera 1811*. The engine enumerates every die of every combat round "
        "(5.2.1) and follows your policies for the decisions of each side, memoising on the combat state. "
        "The combat modifiers and hits come from the rulebook (green badges); the map's adjacency is our "
        "provisional reconstruction (orange badge), as the rulebook does not print it. File formats and the "
        "CLI: `docs/lob.md`.", sizing_mode="stretch_width")
    tabs = lazy_tabs(combat_panel(sess), [(name, partial(build, sess)) for name, build in LATER_TABS], "lob-tabs")
    return pn.Column(intro, sess.loader.panel(), tabs, sizing_mode="stretch_width", css_classes=["lob-page"])
