"""Scenario balance: who wins a scenario, how often and when, from many bot games (issue 16)."""
from __future__ import annotations

import panel as pn

from dashboards.calculators.study_view import MAX_BROWSER_GAMES, StudyView

TITLE = "Scenario balance"
SUMMARY = ("Many bot games of one scenario played in the background: each side's win rate with its 95% "
           "interval, Morale turn by turn, when games end, and any game replayed.")


def page():
    intro = pn.pane.Markdown(
        "Whole games cannot be enumerated exactly, so this page **samples** them: the bots play the scenario "
        f"the number of times you ask (at most {MAX_BROWSER_GAMES} here; the command `vedette GAME simulate` "
        "has no such bound and can use a Dask cluster). Every rate is shown with its 95% Wilson interval. "
        "Game *i* of a study with seed *S* is always the same game, whoever runs it.", sizing_mode="stretch_width")
    return pn.Column(intro, StudyView(), sizing_mode="stretch_width", css_classes=["balance-page"])
