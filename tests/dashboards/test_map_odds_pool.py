"""The map page's attack odds run off the server's event loop (issue 12.3): the page hands a picklable
job to its ``Background`` runner (busy line, cancel), the worker pool computes it in a child process, and
an answer that arrives after the plan changed is not shown."""
from __future__ import annotations

import pickle
from functools import partial

import pytest

from dashboards.server import background as bg
from dashboards.calculators.n20.battle_form import odds_work
from engine import n20
from engine.core.data import data_path
from engine.core.record import GameRecord
from engine.n20.game import combat as C
from engine.n20.game.record import replay_record


class Recorder:
    """A runner that keeps the jobs it is given instead of running them (as a server would, later)."""

    busy = False

    def __init__(self):
        self.jobs = []

    def start(self, fn, on_result, on_error, label="", process=None):
        self.jobs.append((fn, on_result, on_error, label))

    def cancel(self):
        pass


@pytest.fixture(scope="module")
def planned():
    """Bussaco, the greedy seed-1 record up to its first resolved battle: the battle declared there."""
    rec = GameRecord.load(data_path("records", "n20_bussaco_greedy_seed1.json"))
    k = next(i for i, e in enumerate(rec.events) if e["action"]["kind"] == "resolve")
    state = replay_record(rec.truncated(k))[-1]
    return state, state.declared[rec.events[k]["action"]["index"]]


def _model(state, runner):
    from dashboards.pages.map import MapModel

    m = MapModel(scenario="bussaco")
    m.state = state
    m.view.set_state(state)
    m.runner = runner
    m.mode = "plan an attack"
    return m


def test_the_map_odds_go_to_the_runner_as_a_job_that_pickles(planned):
    state, battle = planned
    rec = Recorder()
    m = _model(state, rec)
    m.attackers, m.defenders = list(battle.attackers), list(battle.defenders)
    assert rec.jobs, "the odds were not handed to the runner"
    fn, on_result, _, label = rec.jobs[-1]
    assert isinstance(fn, partial) and fn.func is odds_work and "odds" in label
    assert "data-state='busy'" in m.odds                   # the page says it is working meanwhile
    assert "retreat" in m.retreat_info                      # the retreat preview does not wait for the odds
    pickle.dumps(fn)                                        # so it can go to a worker process
    on_result(fn())
    assert "differential" in m.odds and "odds-error" not in m.odds


def test_an_answer_for_a_plan_since_changed_is_dropped(planned):
    state, battle = planned
    rec = Recorder()
    m = _model(state, rec)
    m.attackers, m.defenders = list(battle.attackers), list(battle.defenders)
    fn, on_result, on_error, _ = rec.jobs[-1]
    m.defenders = []                                        # the plan changed before the answer came
    hint = m.odds
    assert "Click your attacking units" in hint
    on_result(fn())
    on_error(bg.Cancelled("cancelled: nothing changed"))
    assert m.odds == hint


def test_the_map_odds_job_runs_in_a_worker_process_and_equals_the_engines_odds(planned):
    state, battle = planned
    rec = Recorder()
    m = _model(state, rec)
    m.attackers, m.defenders = list(battle.attackers), list(battle.defenders)
    fn = rec.jobs[-1][0]
    owner = type("Owner", (), {"last_mode": ""})()
    try:
        ok, value = bg._in_process(fn, bg._Job(), lambda: False, owner)
    finally:
        bg.shutdown()
    assert ok and owner.last_mode == "process"
    side = state.scenario.units[battle.attackers[0]].side
    here = n20.odds(C.engine_battle(state, battle, side, (False, False), False))
    res = value[0]
    assert (res.attack, res.defence, res.differential, res.column) == (here.attack, here.defence,
                                                                      here.differential, here.column)
    assert dict(res.crt) == dict(here.crt)
