"""Scenario studies on Dask (engine/core/simulate.py), on the tiny dice race of race_game.py."""
from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from engine.core.errors import VedetteError
from engine.core.sampling import wilson_interval
from engine.core.simulate import (Study, StudyInterrupted, compare, game_seed, read_parquet, run_study,
                                  summarise, write_parquet)

HERE = Path(__file__).parent
STUDY = Study("race", "short", (), ("random", "random"), games=24, seed=7, plugin="race_game")


@pytest.fixture
def workers_see_race_game(monkeypatch):
    """Dask worker processes import the race from this folder."""
    monkeypatch.syspath_prepend(str(HERE))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]))


def test_wilson_interval_by_hand():
    # 5 wins in 10, z = 1.96: z^2 = 3.8416; denominator 1 + 3.8416/10 = 1.38416;
    # centre (0.5 + 3.8416/20) / 1.38416 = 0.69208 / 1.38416 = 0.5;
    # half-width 1.96 * sqrt(0.25/10 + 3.8416/400) / 1.38416 = 1.96 * sqrt(0.034604) / 1.38416
    #            = 1.96 * 0.186022 / 1.38416 = 0.263410  ->  (0.236590, 0.763410)
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.236590, abs=1e-6) and high == pytest.approx(0.763410, abs=1e-6)


def test_game_seeds_depend_only_on_study_seed_and_index():
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(1000)}) == 1000


def test_rows_in_process_and_summary_counts(workers_see_race_game):
    rows = run_study(STUDY, workers=0)
    assert [r["game"] for r in rows] == list(range(24))
    s = summarise(rows, STUDY)
    assert sum(w["count"] for w in s["winners"].values()) == 24 == s["games"]
    assert sum(o["count"] for o in s["outcomes"]) == 24
    assert sum(s["last_turn"]["histogram"].values()) == 24
    assert "red" in s["metrics_by_turn"]["1"]


def test_same_rows_with_one_and_two_workers(workers_see_race_game):
    inproc = run_study(STUDY, workers=0)
    one = run_study(STUDY, workers=1)
    two = run_study(STUDY, workers=2)
    assert one == two == inproc


def test_a_worker_killed_mid_run_loses_no_game(workers_see_race_game):
    from distributed import Client, LocalCluster
    slow = Study("race", "short", ("slow",), ("random", "random"), games=40, seed=3, plugin="race_game")
    done = []
    killed = threading.Event()

    def on_row(row):
        done.append(row["game"])
        if len(done) == 4 and not killed.is_set():
            killed.set()
            pids = client.run(os.getpid)
            os.kill(next(iter(pids.values())), signal.SIGKILL)

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        rows = run_study(slow, scheduler=cluster.scheduler_address, on_row=on_row)
    assert killed.is_set()
    assert sorted(r["game"] for r in rows) == list(range(40))          # none lost, none twice
    assert rows == run_study(slow, workers=0)                           # and the same games


def test_parquet_round_trip(tmp_path, workers_see_race_game):
    rows = run_study(STUDY, workers=0)
    write_parquet(rows, tmp_path / "r.parquet", STUDY)
    assert read_parquet(tmp_path / "r.parquet") == rows


def test_compare_two_option_sets(workers_see_race_game):
    a = run_study(STUDY, workers=0)
    b = run_study(Study("race", "short", ("mercy",), ("random", "random"), 24, 7, plugin="race_game"), workers=0)
    c = compare(a, b, "red")
    assert c["a"]["wins"] == sum(r["winner"] == "red" for r in a)
    assert c["ci95"][0] <= c["difference"] <= c["ci95"][1]


@pytest.mark.parametrize("bad, match", [
    (dict(games=0), "--games"), (dict(games=-5), "--games"), (dict(bots=("random", "clever")), "unknown bot"),
    (dict(options=("nosuch",)), "unknown option"), (dict(scenario="moon"), "unknown scenario"),
    (dict(plugin="os; rm"), "module name"),
])
def test_bad_study_is_refused_before_any_game(bad, match, workers_see_race_game):
    kw = dict(system="race", scenario="short", bots=("random", "random"), games=5, plugin="race_game")
    kw.update(bad)
    with pytest.raises(VedetteError, match=match):
        run_study(Study(**kw), workers=0)


def test_unreachable_scheduler_is_one_clear_error(workers_see_race_game):
    with pytest.raises(VedetteError, match="cannot reach"):
        run_study(STUDY, scheduler="tcp://127.0.0.1:9")


# ------------------------------------------------------------------------------------------------
# Dask overhead (issue 16 speed): task sizes and the study's own LocalCluster settings
# ------------------------------------------------------------------------------------------------
from hypothesis import given, strategies as st  # noqa: E402

from engine.core.simulate import LOCAL_DASK_CONFIG, MAX_CHUNK, TASKS_PER_WORKER, batch_games, local_cluster  # noqa: E402


def test_batch_sizes_by_hand():
    # 400 games, 2 workers: 400 // (32 * 2) = 6 games a task -> 66 tasks of 6 and one of 4 (66*6 = 396)
    b = batch_games(range(400), 2)
    assert [len(x) for x in b] == [6] * 66 + [4]
    # 400 games, 1 worker: 400 // 32 = 12 -> 33 tasks of 12 and one of 4 (33*12 = 396)
    assert [len(x) for x in batch_games(range(400), 1)] == [12] * 33 + [4]
    # 10,000 games, 2 workers: 10000 // 64 = 156, capped at 25 -> 400 tasks of 25
    assert [len(x) for x in batch_games(range(10_000), 2)] == [25] * 400
    # fewer games than tasks wanted: one game a task
    assert batch_games([5, 3, 9], 2) == [[5], [3], [9]]


@given(st.lists(st.integers(0, 10**6), unique=True, max_size=3000), st.integers(1, 64))
def test_batches_cover_every_game_once_in_order(todo, workers):
    b = batch_games(todo, workers)
    assert [i for x in b for i in x] == todo                     # none lost, none twice, same order
    assert all(1 <= len(x) <= MAX_CHUNK for x in b)
    if len(todo) >= TASKS_PER_WORKER * workers:                 # enough games: every worker has many tasks
        assert len(b) >= TASKS_PER_WORKER * workers


def test_local_dask_config_names_real_settings():
    import dask
    import distributed  # noqa: F401  (loads distributed's defaults into dask.config)
    for key in LOCAL_DASK_CONFIG:                                # a misspelt key would be silently ignored
        assert dask.config.get(key, default=KeyError) is not KeyError, key


def test_study_cluster_workers_run_with_the_quiet_settings():
    import dask
    from distributed import Client
    with local_cluster(1) as cluster, Client(cluster) as client:
        got = client.run(lambda: (dask.config.get("distributed.worker.profile.enabled"),
                                  dask.config.get("distributed.admin.tick.interval")))
    assert list(got.values()) == [(False, "1s")]


def _worker_processes():
    import psutil
    return [p for p in psutil.Process().children(recursive=True) if "spawn_main" in " ".join(p.cmdline())]


@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C handler for the test, as at a terminal: pytest started in the background by a
    non-interactive shell (a script's ``cmd &``) inherits SIGINT ignored, and Python then installs none."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_ctrl_c_keeps_the_finished_games_and_closes_the_cluster(workers_see_race_game, python_ctrl_c):
    # a real SIGINT to this process once the first game is in: the study stops, hands back the games
    # finished so far (each the same as when played alone), and leaves no worker process behind
    slow = Study("race", "short", ("slow",), ("random", "random"), games=40, seed=3, plugin="race_game")
    first = threading.Event()

    def ctrl_c():
        if first.wait(120):
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=ctrl_c, daemon=True).start()
    # worker processes another test left running (a server's worker pool) are not this study's
    before = {p.pid for p in _worker_processes()}
    with pytest.raises(StudyInterrupted) as stopped:
        run_study(slow, workers=2, on_row=lambda row: first.set())
    ours = [p for p in _worker_processes() if p.pid not in before]
    rows = stopped.value.rows
    assert 1 <= len(rows) < 40
    alone = run_study(slow, workers=0)
    assert rows == [alone[r["game"]] for r in rows]
    # the cluster was closed: its processes are ending (on a loaded machine one may still be on its way out)
    import psutil
    _, alive = psutil.wait_procs(ours, timeout=60)
    assert alive == [], [" ".join(p.cmdline())[:200] for p in alive]


def test_progress_bar_shows_games_done_rate_and_running_win_rates(capsys, workers_see_race_game):
    rows = run_study(STUDY, workers=0, progress=True)
    err = capsys.readouterr().err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "24/24" in last and ("game/s" in last or "s/game" in last)       # games done, games a second
    # running win rates of the finished games, e.g. "blue=42% red=58%": each side's share of the 24
    for side in {r["winner"] for r in rows}:
        share = sum(r["winner"] == side for r in rows) / 24
        assert f"{side}={share:.0%}" in last
