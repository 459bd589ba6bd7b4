"""The balance page's model (dashboards/calculators/study_view.py) on the tiny race of tests/core."""
from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
import race_game  # noqa: E402,F401  (registers the "race" system)

from engine.core.errors import VedetteError  # noqa: E402
from engine.core.simulate import Study, run_study  # noqa: E402
from dashboards.calculators.study_view import MAX_BROWSER_GAMES, StudyModel, StudyView, replay_link  # noqa: E402


def test_model_runs_in_the_background_and_matches_the_cli_study():
    m = StudyModel(system="race")
    assert m.scenario == "short" and set(m.param.bot_a.objects) == {"random", "greedy"}
    m.bot_a = m.bot_b = "random"
    m.games, m.seed = 23, 5
    with ThreadPoolExecutor(2) as ex:
        m.run(executor=ex)
        m.wait()
    assert not m.running and m.done == 23
    expect = run_study(Study("race", "short", (), ("random", "random"), 23, 5), workers=0)
    assert m.rows == expect
    s = m.summary()
    assert sum(v["count"] for v in s["winners"].values()) == 23


def test_bounds_and_bad_settings_are_refused():
    m = StudyModel(system="race")
    with pytest.raises(ValueError):
        m.games = MAX_BROWSER_GAMES + 1
    with pytest.raises(ValueError):
        m.games = 0


def test_view_builds_and_shows_results():
    m = StudyModel(system="race")
    m.bot_a = m.bot_b = "random"
    m.games = 12
    view = StudyView(m)
    with ThreadPoolExecutor(1) as ex:
        m.run(executor=ex)
        m.wait()
    assert m.rows and len(view.results) >= 3
    assert "study-row" in view.results[-1].object and "/play?" in view.results[-1].object


def test_replay_link_carries_the_game_seed():
    st = Study("race", "short", ("mercy",), ("random", "greedy"), 3, 1)
    link = replay_link(st, {"seed": 99, "game": 0})
    assert "seed=99" in link and "system=race" in link and "options=mercy" in link


def test_the_study_worker_gives_way_to_the_sessions_from_its_start():
    """A study is the longest work a browser can start (issue 12.3): its worker process runs at the lowest
    priority (``LONG_NICE``) from its first game, not at the server's."""
    import os

    from dashboards.server import background
    from dashboards.calculators import study_view
    if not hasattr(os, "getpriority"):
        return
    niceness = study_view._client().submit(os.getpriority, os.PRIO_PROCESS, 0, pure=False).result(timeout=120)
    assert niceness >= min(background.LONG_NICE, 19) > os.getpriority(os.PRIO_PROCESS, 0)


def test_the_page_runs_its_study_on_the_clis_dask_path():
    """The page's own cluster is the CLI's: the quiet Dask settings of LOCAL_DASK_CONFIG on its worker, and
    the rows of a Fuentes study the same as ``run_study`` gives in one process (same seeds, same games)."""
    import dask

    from dashboards.calculators import study_view
    from engine.core.simulate import LOCAL_DASK_CONFIG
    client = study_view._client()
    got = client.run(lambda: {k: dask.config.get(k) for k in LOCAL_DASK_CONFIG})
    assert list(got.values()) == [LOCAL_DASK_CONFIG]
    m = StudyModel(system="n20")
    m.scenario, m.games, m.seed = "fuentes", 3, 11
    m.run()
    m.wait(timeout=600)
    assert not m.running and m.done == 3 and m.message == ""
    assert m.rows == run_study(Study("n20", "fuentes", (), ("greedy", "greedy"), 3, 11), workers=0)


def test_a_cancelled_study_keeps_its_finished_games():
    # cancel before any task can finish: the page stops, reports, and shows no game twice
    m = StudyModel(system="race")
    m.bot_a = m.bot_b = "random"
    m.games = 40
    with ThreadPoolExecutor(1) as ex:
        m.run(executor=ex)
        m.cancel()
        m.wait(timeout=120)
    assert not m.running and "cancelled after" in m.message
    games = [r["game"] for r in m.rows]
    assert games == sorted(set(games))


def test_the_plots_are_whiskered_bars_banded_curves_and_a_last_turn_histogram():
    import holoviews as hv

    from dashboards.calculators.study_view import _plots
    from engine.core.simulate import summarise
    rows = run_study(Study("race", "short", (), ("random", "random"), 12, 2), workers=0)
    s = summarise(rows)
    bars, curves, hist = _plots(s)
    # outcome bars: one per outcome, each with its Wilson interval as whiskers (rate - low, high - rate)
    errs = [el for el in bars if isinstance(el, hv.ErrorBars)][0]
    for o, (name, rate, neg, pos) in zip(s["outcomes"], errs.data.itertuples(index=False)):
        assert rate == o["rate"] and rate - neg == pytest.approx(o["ci95"][0])
        assert rate + pos == pytest.approx(o["ci95"][1])
    # a band (Spread) and a mean curve for each metric the race follows
    kinds = [type(el).__name__ for el in curves]
    assert kinds.count("Spread") == kinds.count("Curve") >= 1
    # the histogram's bars add up to the games played
    assert isinstance(hist, hv.Bars) and hist.data["games"].sum() == 12


def test_a_page_worker_killed_mid_study_loses_no_game_and_steps_aside_again():
    """The page's cluster reruns the tasks of a worker that dies (Dask retries), the nanny starts a new
    worker, which gives way to the sessions again before its first game; no game lost or counted twice."""
    import os
    import signal
    import time

    from dashboards.server import background
    from dashboards.calculators import study_view
    client = study_view._client()
    m = StudyModel(system="n20")
    m.scenario, m.bot_a, m.bot_b, m.games, m.seed = "bussaco", "random", "random", 10, 8
    m.run()
    deadline = time.monotonic() + 300
    while m._pending_done < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert m.running, "the study should still be running when its worker is killed"
    (pid,) = client.run(os.getpid).values()
    os.kill(pid, signal.SIGKILL)
    m.wait(timeout=600)
    assert not m.running and m.message == ""
    assert [r["game"] for r in m.rows] == list(range(10))
    assert m.rows == run_study(Study("n20", "bussaco", (), ("random", "random"), 10, 8), workers=0)
    (new_pid,) = client.run(os.getpid).values()
    assert new_pid != pid
    if hasattr(os, "getpriority"):
        nice = client.submit(os.getpriority, os.PRIO_PROCESS, 0, pure=False).result(timeout=120)
        assert nice >= min(background.LONG_NICE, 19)


@pytest.mark.parametrize("system", ["n20", "lob", "tbf", "bc"])
def test_the_page_offers_each_systems_own_scenarios_options_and_bots(system):
    from engine.core.game import system_of
    rules = system_of(system)
    m = StudyModel(system=system)
    assert system in m.param.system.objects
    assert m.param.scenario.objects == list(rules.scenarios()) and m.scenario == rules.default_scenario
    assert m.param.options.objects == list(rules.options()) and m.options == []
    assert {"random", "greedy", "odds"} <= set(m.param.bot_a.objects) == set(rules.bots())
    st = m.make_study()                    # what the page would run: the CLI's own checked Study
    assert (st.system, st.scenario, st.bots) == (system, rules.default_scenario, ("greedy", "greedy"))
