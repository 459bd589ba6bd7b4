"""`vedette GAME simulate` as a user types it (issue 16), for every system on the game protocol: the JSON
summary and the parquet rows, and each bad input refused in one line with exit status 2, nothing written."""
from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.core.simulate import Study, game_seed, read_parquet

#: every system shipped on the protocol, with a scenario of each (n20 has three; both fought ones here)
SYSTEMS = [("n20", "fuentes"), ("n20", "bussaco"), ("lob", "albuera"), ("tbf", "durenstein"), ("bc", "demo")]


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("system, scenario", SYSTEMS)
def test_simulate_every_system_writes_rows_and_an_honest_summary(system, scenario, capsys, tmp_path):
    out_file = tmp_path / "s.parquet"
    rc, out, err = _run(capsys, system, "simulate", "--scenario", scenario, "--bots", "random,random",
                        "--games", "2", "--seed", "4", "--workers", "0", "--no-progress", "--out", str(out_file))
    assert rc == 0, err
    s = json.loads(out)
    rows = read_parquet(out_file)
    assert [r["game"] for r in rows] == [0, 1] and s["games"] == 2 and s["out"] == str(out_file)
    # game i has the seed game_seed(4, i) whoever plays it (tests/core/test_simulate.py: same rows in and
    # out of Dask); the parquet file holds the rows the summary counts
    assert [r["seed"] for r in rows] == [game_seed(4, 0), game_seed(4, 1)]
    # counts equal the rows; each rate has a 95% interval around it
    assert sum(w["count"] for w in s["winners"].values()) == 2 == sum(o["count"] for o in s["outcomes"])
    for w, v in s["winners"].items():
        assert v["count"] == sum(r["winner"] == w for r in rows)
        assert 0 <= v["ci95"][0] <= v["rate"] <= v["ci95"][1] <= 1
    assert s["last_turn"]["mean"] == sum(r["last_turn"] for r in rows) / 2
    assert sum(s["last_turn"]["histogram"].values()) == 2
    first = s["metrics_by_turn"][min(s["metrics_by_turn"], key=int)]     # Fuentes starts on turn 3
    # a curve per side of each figure the system follows: Morale, except in TBF, which has no Morale
    # track (its victory is counted in battalions lost and levels reached)
    follow = "losses" if system == "tbf" else "morale"
    curves = [k for k in first if k.startswith(follow + ".")]
    assert len(curves) == 2, first
    band = first[curves[0]]
    assert band["low"] <= band["mean"] <= band["high"]
    assert s["study"]["bots"] == ["random", "random"] and s["study"]["options"] == []
    assert s["study"]["scenario"] == scenario and s["study"]["seed"] == 4


def test_simulate_rows_are_the_same_with_one_and_two_workers(capsys, tmp_path):
    # through the CLI and a real LocalCluster each time (Bussaco: the quickest greedy game, ~0.2 s)
    got = []
    for workers in ("1", "2"):
        f = tmp_path / f"w{workers}.parquet"
        rc, out, err = _run(capsys, "n20", "simulate", "--scenario", "bussaco", "--games", "4", "--seed", "9",
                            "--workers", workers, "--no-progress", "--out", str(f))
        assert rc == 0, err
        got.append((read_parquet(f), json.loads(out)["winners"]))
    assert got[0] == got[1]


def test_compare_reports_the_win_rate_difference_with_its_interval(capsys):
    rc, out, err = _run(capsys, "n20", "simulate", "--scenario", "fuentes", "--bots", "random,random",
                        "--games", "3", "--seed", "2", "--workers", "0", "--no-progress", "--compare", "bessieres")
    assert rc == 0, err
    s = json.loads(out)
    assert s["compare"]["b"]["study"]["options"] == ["bessieres"] and s["study"]["options"] == []
    for side, d in s["compare"]["difference"].items():
        # difference = rate with 17.2 minus the standard rate, each from its own 3 games
        assert d["a"]["wins"] == s["winners"].get(side, {}).get("count", 0)
        assert d["b"]["wins"] == s["compare"]["b"]["winners"].get(side, {}).get("count", 0)
        assert d["difference"] == pytest.approx(d["b"]["wins"] / 3 - d["a"]["wins"] / 3)
        assert -1 <= d["ci95"][0] <= d["difference"] <= d["ci95"][1] <= 1


@pytest.mark.parametrize("args, names", [
    (["--bots", "greedy,clever"], "--bots: unknown bot 'clever'"),
    (["--bots", "greedy"], "--bots: expected two bots"),
    (["--options", "nosuch"], "--options: unknown option 'nosuch'"),
    (["--compare", "nosuch"], "--compare: unknown option 'nosuch'"),
    (["--scenario", "moon"], "--scenario: unknown scenario 'moon'"),
    (["--games", "0"], "--games"),
    (["--games", "-3"], "--games"),
    (["--workers", "-1"], "--workers"),
    (["--scheduler", "tcp://127.0.0.1:9"], "--scheduler: cannot reach a Dask scheduler"),
    (["--out", "rows.txt"], "--out: expected a FILE.parquet"),
    (["--out", "no/such/folder/rows.parquet"], "--out: no folder"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, names, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["n20", "simulate", "--games", "2", "--seed", "1", "--no-progress", "--out", "rows.parquet", *args]
    try:
        rc, out, err = _run(capsys, *argv)
    except SystemExit as exc:            # argparse refuses a bad number itself, also with status 2
        rc = exc.code
        out, err = capsys.readouterr()
    assert rc == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and names in lines[0], err
    assert list(tmp_path.iterdir()) == []             # no rows file, nothing else


def test_ctrl_c_keeps_the_finished_games_in_the_summary_and_the_file(capsys, tmp_path, monkeypatch):
    # Ctrl-C inside run_study hands back the games finished so far (tests/core/test_simulate.py sends a
    # real SIGINT); the verb then summarises and writes those, marked as interrupted
    from engine.core import simulate
    from engine.core.simulate import StudyInterrupted
    real = simulate.run_study

    def stopped_after_two(study, *a, **kw):
        raise StudyInterrupted(real(Study("n20", "bussaco", (), ("random", "random"), 2, 5), workers=0))

    monkeypatch.setattr(simulate, "run_study", stopped_after_two)
    f = tmp_path / "part.parquet"
    rc, out, err = _run(capsys, "n20", "simulate", "--scenario", "bussaco", "--bots", "random,random",
                        "--games", "50", "--seed", "5", "--no-progress", "--out", str(f))
    assert rc == 0, err
    s = json.loads(out)
    assert s["interrupted"] is True and s["games"] == 2
    assert [r["game"] for r in read_parquet(f)] == [0, 1]


def test_ctrl_c_before_any_game_is_one_line_and_writes_nothing(capsys, tmp_path, monkeypatch):
    from engine.core import simulate
    from engine.core.simulate import StudyInterrupted

    def stopped_at_once(study, *a, **kw):
        raise StudyInterrupted([])

    monkeypatch.setattr(simulate, "run_study", stopped_at_once)
    f = tmp_path / "none.parquet"
    rc, out, err = _run(capsys, "n20", "simulate", "--games", "5", "--no-progress", "--out", str(f))
    assert rc == 2 and out == "" and err.strip() == "vedette: error: stopped after 0 finished game(s)"
    assert not f.exists()
