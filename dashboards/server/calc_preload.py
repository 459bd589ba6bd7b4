"""Imported once by the fork server of page computations (:mod:`dashboards.server.background`).

Every worker process is forked from that server, so it starts with the engine and the page modules whose
work functions it runs already imported (icepool too, which the dice load on first use: 50-80 ms a
fresh worker paid on its first request), the shipped TBF tables read and every shipped game's scenarios
read (a live game's bot thinks in a worker: issue 28), at the workers' lower CPU priority. A module that fails to import (a bug, a file being edited) is
logged and skipped: the worker then imports it on its first job, and the error surfaces there.
"""
from __future__ import annotations

import importlib
import logging

MODULES = ("icepool", "engine.core.procedure", "engine.n20", "dashboards.calculators.n20.battle_form",
           "dashboards.calculators.tbf.views", "dashboards.calculators.bc.views", "dashboards.calculators.lob.views",
           "dashboards.render.tree_plot", "dashboards.render.tree_view", "dashboards.pages.tree", "dashboards.play.action_odds", "engine.systems",
           "dashboards.play.bots")

from dashboards.server.background import lower_priority

lower_priority()        # loading the modules, like the work itself, gives way to the server's page builds

for _name in MODULES:
    try:
        importlib.import_module(_name)
    except Exception:  # noqa: BLE001 - a preload is an optimisation only
        logging.getLogger("vedette.dashboards").exception("the calculation workers could not preload %s", _name)

try:        # the shipped TBF tables, read once here rather than in every fresh worker (a charge's first 20 ms)
    from engine.tbf.tables import default_tables

    default_tables()
except Exception:  # noqa: BLE001 - an optimisation only: the work reads them (and reports the error) itself
    logging.getLogger("vedette.dashboards").exception("the calculation workers could not preload the TBF tables")

try:        # every shipped game's scenarios read once (a bot's first move in a fresh worker: 0.4 s otherwise,
    from engine.systems import SHIPPED   # past the quick-request mark, so that worker would retire after it)

    for _rules in SHIPPED.values():
        _r = _rules()
        for _scenario in _r.scenarios():
            _r.state_from_json(_r.state_to_json(_r.new_game(_scenario, (), 0)))
except Exception:  # noqa: BLE001 - an optimisation only
    logging.getLogger("vedette.dashboards").exception("the calculation workers could not read the games' scenarios")
