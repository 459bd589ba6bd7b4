"""Quick requests answered at once (issue 12.3): a request whose cost the caller has bounded to a few
milliseconds (``Background.start(..., inline=True)``; the TBF Fatigue Check of the shipped tables) runs in
the callback, with no busy line and no round trip to a worker; every request's time per hop is kept
(``last_hops``) so the figures of tests/e2e/test_stall_load.py can be split up."""
from __future__ import annotations

from functools import partial

import pytest

from dashboards.server import background as bg
from dashboards.calculators.tbf.views import (INLINE_CHECK_CELLS, TbfSession, check_cost, check_grid, check_head,
                                              check_panel, check_work)
from engine.core.errors import VedetteError
from engine.tbf.tables import default_tables


@pytest.fixture
def on_server(monkeypatch):
    """As if in a served session (the inline path needs no event loop: it runs in the caller)."""
    monkeypatch.setattr(bg, "on_server", lambda: True)


def test_an_inline_request_is_answered_in_the_call_without_a_busy_line(on_server):
    runner = bg.Background()
    got, errors, busy_seen = [], [], []
    runner.param.watch(lambda e: busy_seen.append(e.new), "busy")
    runner.start(partial(check_work, None, "being_charged", 4, "normal", "1", (), 0), got.append, errors.append,
                 inline=True)
    # Being Charged at FV 4 with one leader of CV 1: d6 1-5 pass, 5/6 (4.2.2 C)
    assert got and "data-pass='5/6'" in got[0][0] and not errors
    assert runner.last_mode == "inline" and not runner.busy and busy_seen == []   # never drawn
    hops = runner.last_hops
    assert set(hops) == {"compute", "show", "total"}
    assert 0 <= hops["compute"] <= hops["total"] and hops["show"] <= hops["total"]


def test_an_inline_request_reports_bad_input_in_one_line_and_replaces_a_request_in_flight(on_server):
    runner = bg.Background()
    job = runner._job = bg._Job()            # a request still running in a worker ...
    runner._show(True, "working…")
    errors = []
    runner.start(partial(check_work, None, "being_charged", 4, "normal", "12", (), 0), errors.append,
                 errors.append, inline=True)
    assert job.stopped and runner._job is None and not runner.busy    # ... is stopped, its busy line cleared
    assert len(errors) == 1 and isinstance(errors[0], VedetteError) and "from 0 to 9" in str(errors[0])


def test_hops_split_a_request_into_its_legs():
    # marks in seconds: the callback at 0, the coroutine at 0.002, a pool thread at 0.003, a worker at 0.004,
    # its answer at 0.020 (of which 0.010 computing), the event loop back at 0.021, on the page at 0.030
    marks = {"start": 0.0, "waiter": 0.002, "thread": 0.003, "worker": 0.004, "answer": 0.020, "compute": 0.010,
             "loop": 0.021, "shown": 0.030}
    hops = bg._hops(marks)
    want = {"to_loop": 2, "to_thread": 1, "to_worker": 1, "compute": 10, "ipc": 6,    # 16 ms round trip - 10
            "back": 1, "show": 9, "total": 30}
    assert hops.keys() == want.keys() and all(abs(hops[k] - v) < 1e-6 for k, v in want.items())


def test_the_fatigue_check_of_the_shipped_tables_is_cheap_enough_to_answer_inline():
    # 12 checks at FV 1-6 for the grid, and the asked check: 12 * 6 + 1 = 73 d6 checks
    assert check_cost(default_tables()) == 73 <= INLINE_CHECK_CELLS
    row = check_panel(TbfSession())
    results = row.objects[1]
    # the odds and the grid only: no busy line built for answers given at once
    assert [o.css_classes for o in results.objects] == [["tbf-check-out"], ["tbf-check-grid"]]
    out, grid = results.objects
    assert "data-pass='5/6'" in out.object and "tbf-grid" in grid.object and "leaders [1]" in grid.object
    cvs = row.objects[0].objects[3]
    # the text box's change reaches the server's watchers at once (Panel otherwise waits 50 ms for more)
    assert {"value", "value_input"} <= set(cvs._priority_changes)
    cvs.value = "2"        # Being Charged, FV 4, CV 2: net DRM -2, d6 1-6 pass: 1/1 (4.2.2 C); its own grid
    assert "data-pass='1/1'" in out.object and "leaders [2]" in grid.object
    cvs.value = "x"        # bad input: one line, and no grid left over from the last good input
    assert "whole numbers" in out.object and grid.object == ""


def test_the_check_in_two_parts_is_the_check_in_one():
    args = (None, "being_charged", 4, "fatigued", "1, 2", ("in_town",), 1)
    assert check_work(*args) == (check_head(*args), check_grid(None, "fatigued", "1, 2"))
