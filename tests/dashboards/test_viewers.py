"""The pages' main components as notebook viewers (issue 17 point 7): each builds with one line."""
from __future__ import annotations

from fractions import Fraction

import panel as pn
import pytest

from dashboards import viewers

WORKED = "data/examples/n20_worked_example.yaml"


def test_odds_explorer_one_line():
    v = viewers.OddsExplorer(WORKED)
    assert isinstance(v, pn.viewable.Viewer)
    # the worked example on column +2: 1 EX, 2 N, 3-4 DW, 5-6 DR (shipped chart) -> DR 2/6
    assert v.result.crt["DR"] == Fraction(1, 3)
    assert v.__panel__() is not None


def test_tree_explorer_one_line():
    v = viewers.TreeExplorer(WORKED)
    assert len(v.model.layout) == 53 and v.__panel__() is not None


@pytest.mark.parametrize("cls", ["MapExplorer", "LobCalculator", "TbfCalculator", "BcCalculator"])
def test_other_viewers_build(cls):
    v = getattr(viewers, cls)()
    assert isinstance(v, pn.viewable.Viewer) and v.__panel__() is not None
