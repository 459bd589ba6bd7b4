"""Battle Commander: exact combat, skill check and cube-cup odds from the event deck, with known discards."""
from __future__ import annotations

import panel as pn

from dashboards.calculators.bc.views import BcSession, check_panel, combat_panel, cup_panel, deck_panel, demo_panel

TITLE = "Battle Commander (card deck odds)"
SUMMARY = ("Exact chances of a Fire or Assault combat, of a Skill Check and of the order-cube cup, drawn from "
           "the 70-card deck, fresh or after known discards.")


def page():
    sess = BcSession()
    intro = pn.pane.Markdown(
        "Battle Commander draws cards instead of rolling dice, and cards leave the deck. Every number here is "
        "enumerated exactly by the engine, card by card (the reshuffle card included), from the same procedures "
        "a game on the map uses. The card faces and the terrain chart are not printed in the rulebook, so the "
        "shipped deck and chart are **provisional** designs (orange badges): load your own files on the "
        "*Deck and files* tab (format in `docs/bc.md`).", sizing_mode="stretch_width")
    discards = pn.widgets.TextInput.from_param(sess.param.discards_text, name="Known discard pile (card numbers)",
                                               placeholder="e.g. 3, 12, 40", css_classes=["bc-discards"],
                                               sizing_mode="stretch_width")
    # Only the combat tab is computed at page load; the others on first opening (page load stays light).
    makers = {1: check_panel, 2: cup_panel, 3: demo_panel, 4: deck_panel}
    names = {1: "Skill checks", 2: "Cube cup", 3: "Demonstration battle", 4: "Deck and files"}
    holders = {i: pn.Column(pn.pane.Markdown("_computing…_"), name=names[i], sizing_mode="stretch_width")
               for i in makers}
    tabs = pn.Tabs(combat_panel(sess), holders[1], holders[2], holders[3], holders[4],
                   sizing_mode="stretch_width", css_classes=["bc-tabs"])

    def open_tab(event):
        i = event.new
        if i in makers:
            holders[i][:] = list(makers.pop(i)(sess).objects)

    tabs.param.watch(open_tab, "active")
    return pn.Column(intro, discards, tabs, sizing_mode="stretch_width", css_classes=["bc-page"])
