"""These Brave Fellows (Dürenstein 1805): Fatigue Check odds, charge trees, fire and melee, map and LOS."""
from __future__ import annotations

from functools import partial

import panel as pn

from dashboards.common.lazy import lazy_tabs
from dashboards.calculators.tbf.views import (TbfSession, charge_panel, check_panel, fire_panel, map_panel, melee_panel,
                                              situation_panel)

TITLE = "These Brave Fellows (Dürenstein 1805)"
SUMMARY = ("Chance to pass every Fatigue Check, a cavalry charge as an exact probability tree, fire and melee "
           "results, the Dürenstein map with line of sight, and the fate of every piece in an action on the map.")

#: the tabs after the first, built the first time each is opened (a session that only checks fatigue never
#: pays for the charge tree, the unit tables or the 720-hex map: issue 12.3 / 17.1)
LATER_TABS = (("Charge", charge_panel), ("Fire", fire_panel), ("Melee", melee_panel), ("Map and LOS", map_panel),
              ("Situation", situation_panel))

#: shown as HTML: a Markdown pane parses its text again in every session and makes each browser fetch and
#: apply Panel's Markdown stylesheet (issue 12.3 / 17.1)
INTRO_HTML = ("<p>Odds for <em>These Brave Fellows</em>. Every number is enumerated exactly by the engine from the "
              "same rules procedures a game uses. The charts (Fatigue Check, Fire, Melee, Terrain, Level 2/3) are not "
              "in the rulebook text, so the shipped values are <strong>provisional</strong> (orange badges); load a "
              "file with the printed values to replace them (format in <code>docs/tbf.md</code>).</p>")


def ask_for_tabulator() -> None:
    """This session's page brings Tabulator's script: what ``pn.extension("tabulator")`` does for a served
    session once the module is loaded (the name listed for the session's document), without its 5 ms of
    work every call that a page build does not need (issue 12.3: it looks over every ReactiveHTML class and
    every function signature again)."""
    from panel.config import panel_extension
    from panel.io.state import state

    doc = state.curdoc
    if doc is None or "tabulator" not in panel_extension._loaded_extensions:
        pn.extension("tabulator")
        return
    wanted = state._extensions_.setdefault(doc, [])
    if "tabulator" not in wanted:
        wanted.append("tabulator")


def page():
    # the later tabs' unit tables are Tabulators built after the page has loaded: the page must bring their
    # script (vedette-serve fetches it once the first view is drawn, not before: dashboards/server/serve.py)
    ask_for_tabulator()
    sess = TbfSession()
    intro = pn.pane.HTML(INTRO_HTML, sizing_mode="stretch_width")
    tabs = lazy_tabs(check_panel(sess), [(name, partial(build, sess)) for name, build in LATER_TABS], "tbf-tabs")
    return pn.Column(intro, sess.loader.panel(), tabs, sizing_mode="stretch_width", css_classes=["tbf-page"])
