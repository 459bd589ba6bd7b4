"""The pages' main components as Panel viewers, for a Jupyter notebook (or any Panel app).

In a notebook::

    import panel as pn
    pn.extension("tabulator")
    from dashboards.viewers import OddsExplorer, TreeExplorer
    OddsExplorer("data/examples/n20_worked_example.yaml")     # shown inline, live: change a unit, see the odds

Each one is a :class:`panel.viewable.Viewer`: the last expression of a cell shows it inline, with the same
widgets and the same engine calls as the served page. The objects behind them stay reachable
(``.plan``, ``.model``, ``.session``) so a notebook can also read the numbers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import panel as pn
import param

__all__ = ["OddsExplorer", "TreeExplorer", "MapExplorer", "LobCalculator", "TbfCalculator", "BcCalculator",
           "TreePlot"]

from dashboards.render.tree_plot import TreePlot  # noqa: E402  (re-exported: a tree of any procedure)


def _plan(battle: Any, title: str):
    from dashboards.calculators.n20.battle_form import BattlePlan, example_battles

    plan = BattlePlan(title=title)
    if battle is None:
        battle = example_battles().get("n20_worked_example")
    if isinstance(battle, dict):
        plan.load_battle_data(battle)
    elif battle is not None:
        plan.load_battle_file(Path(battle))
    return plan


class OddsExplorer(pn.viewable.Viewer):
    """The n20 odds explorer: a battle's inputs and its exact odds (``battle``: a battle file or its data)."""

    def __init__(self, battle: Any = None, **params):
        super().__init__(**params)
        self.plan = _plan(battle, "Plan A")

    @property
    def result(self):
        return self.plan.result

    def __panel__(self):
        from dashboards.common.layout import columns
        from dashboards.calculators.n20.odds_view import plan_inputs, plan_results

        return columns(pn.Column(plan_inputs(self.plan), sizing_mode="stretch_width"),
                       pn.Column(plan_results(self.plan), sizing_mode="stretch_width"), basis=460)


class TreeExplorer(pn.viewable.Viewer):
    """The n20 probability tree of a battle, as a picture with its text outline."""

    keep_decisions = param.Boolean(default=False)

    def __init__(self, battle: Any = None, **params):
        super().__init__(**params)
        from dashboards.pages.tree import TreeModel

        self.plan = _plan(battle, "Tree")
        self.model = TreeModel(self.plan, keep_decisions=self.keep_decisions)
        self.param.watch(lambda e: setattr(self.model, "keep_decisions", e.new), "keep_decisions")
        self.plot = TreePlot(self.model.layout)
        self.model.param.watch(lambda e: setattr(self.plot, "layout", e.new), "layout")

    def __panel__(self):
        from dashboards.common.provenance import STYLESHEET

        info = pn.pane.HTML(self.model.param.info, stylesheets=[STYLESHEET], sizing_mode="stretch_width")
        return pn.Column(info, self.plot, sizing_mode="stretch_width")


class MapExplorer(pn.viewable.Viewer):
    """The n20 map of a scenario: click a hex or a unit; plan an attack on the map."""

    def __init__(self, scenario: str = "fuentes", **params):
        super().__init__(**params)
        from dashboards.pages.map import MapModel

        self.model = MapModel(scenario=scenario)

    def __panel__(self):
        from dashboards.common.layout import flow

        m = self.model
        return flow(m.view.panel(), pn.Column(
            pn.widgets.RadioButtonGroup.from_param(m.param.mode),
            pn.pane.HTML(m.param.hex_info, sizing_mode="stretch_width"),
            pn.pane.HTML(m.param.odds, sizing_mode="stretch_width"), width=440))


class LobCalculator(pn.viewable.Viewer):
    """Lines of Battle: combat odds on the Albuera map, artillery fire, command points."""

    def __init__(self, **params):
        super().__init__(**params)
        from dashboards.calculators.lob.views import LobSession

        self.session = LobSession()

    def __panel__(self):
        from dashboards.calculators.lob.views import combat_panel, fire_panel, schedule_panel

        return pn.Tabs(combat_panel(self.session), fire_panel(self.session), schedule_panel(self.session),
                       dynamic=True, sizing_mode="stretch_width")


class TbfCalculator(pn.viewable.Viewer):
    """These Brave Fellows: Fatigue Checks, a charge as a tree, fire and melee."""

    def __init__(self, **params):
        super().__init__(**params)
        from dashboards.calculators.tbf.views import TbfSession

        self.session = TbfSession()

    def __panel__(self):
        from dashboards.calculators.tbf.views import charge_panel, check_panel, fire_panel, melee_panel

        return pn.Tabs(check_panel(self.session), charge_panel(self.session), fire_panel(self.session),
                       melee_panel(self.session), dynamic=True, sizing_mode="stretch_width")


class BcCalculator(pn.viewable.Viewer):
    """Battle Commander: combat odds from the event deck (with its tree), skill checks, the cube cup."""

    def __init__(self, **params):
        super().__init__(**params)
        from dashboards.calculators.bc.views import BcSession

        self.session = BcSession()

    def __panel__(self):
        from dashboards.calculators.bc.views import check_panel, combat_panel, cup_panel

        return pn.Tabs(combat_panel(self.session), check_panel(self.session), cup_panel(self.session),
                       dynamic=True, sizing_mode="stretch_width")
