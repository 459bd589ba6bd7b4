"""These Brave Fellows page parts, one module per tab (what each shows): the session and its panes
(:mod:`.session`), Fatigue Checks (:mod:`.check_view`), the charge tree (:mod:`.charge_view`), fire
(:mod:`.fire_view`), melee (:mod:`.melee_view`), the Dürenstein map with line of sight (:mod:`.map_view`) and
the fate of every piece in an action on the map (:mod:`.situation_view`); the units' forms
(:mod:`.unit_form`). The page, the viewers and the tests import the tabs from here.

No rule is computed here: every number comes from ``engine.tbf`` procedures driven by the engine.
"""
from __future__ import annotations

from .charge_view import (EVERY_CSS, EXAMPLE_CHARGE, MAX_CHARGE_TEXT, MAX_DEFENDERS, MAX_OUTCOME_ROWS, MAX_TARGETS,
                          MAX_UNITS_PER_TARGET, TARGET_FIELDS, TARGET_TITLES, charge_panel, charge_targets,
                          charge_work, charge_yaml, outcome_bars, parse_charge_text, target_rows)
from .check_view import (GRID_CSS, INLINE_CHECK_CELLS, MAX_CHECK_DRM, MAX_CV, MAX_CVS_TEXT, MAX_LEADERS, check_cost,
                         check_grid, check_head, check_panel, check_work, parse_leader_cvs)
from .fire_view import MAX_FIRERS, fire_panel
from .map_view import map_panel
from .melee_view import MAX_MELEE_UNITS, melee_panel, melee_work
from .session import TbfSession, error_pane, html_pane
from .situation_view import situation_panel, situation_work
from .unit_form import MAX_UNITS_TEXT, setup_units, unit_form, unit_lines

__all__ = ["TbfSession", "check_panel", "charge_panel", "fire_panel", "melee_panel", "map_panel", "situation_panel",
           "EXAMPLE_CHARGE", "MAX_CHARGE_TEXT", "MAX_UNITS_PER_TARGET", "MAX_TARGETS", "MAX_DEFENDERS",
           "MAX_OUTCOME_ROWS", "TARGET_FIELDS", "TARGET_TITLES", "EVERY_CSS", "parse_charge_text", "outcome_bars",
           "charge_work", "charge_targets", "target_rows", "charge_yaml",
           "MAX_LEADERS", "MAX_CV", "MAX_CHECK_DRM", "MAX_CVS_TEXT", "INLINE_CHECK_CELLS", "GRID_CSS",
           "parse_leader_cvs", "check_head", "check_grid", "check_work", "check_cost",
           "MAX_FIRERS", "MAX_MELEE_UNITS", "MAX_UNITS_TEXT", "melee_work", "situation_work", "unit_form",
           "setup_units", "unit_lines", "error_pane", "html_pane"]
