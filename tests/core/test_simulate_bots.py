"""The odds bot of every system in a study (issue 16.3): deterministic given its seed, so a game played on a
fresh Dask worker process (cold caches) is the game played here (warm caches), move for move."""
from __future__ import annotations

from engine.core.simulate import Study, local_cluster, run_study, submit_study

#: a short stretch of each system's game (the first actions, odds bots on both sides), kept small: the
#: odds bot enumerates every attack it weighs
STUDIES = [Study("n20", "fuentes", (), ("odds", "odds"), 1, 3, max_actions=80),
           Study("lob", "albuera", (), ("odds", "greedy"), 1, 3, max_actions=30),
           Study("tbf", "durenstein", (), ("odds", "odds"), 1, 3, max_actions=40),
           Study("bc", "demo", (), ("greedy", "odds"), 1, 3, max_actions=20)]


def test_odds_bot_games_are_the_same_on_a_fresh_worker_and_here():
    from distributed import Client
    here = {st.system: run_study(st, workers=0) for st in STUDIES}
    with local_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        there = {}
        for st in STUDIES:
            futures = submit_study(client, st.validate(), range(st.games))
            there[st.system] = sorted((r for f in futures for r in f.result()), key=lambda r: r["game"])
    for system, rows in here.items():
        assert rows == there[system], system
        assert rows[0]["metrics_by_turn"], system               # the stretch reached past the set-up


def test_a_rows_attacks_per_side_are_the_battles_in_its_record():
    # n20: a fight is a declared battle resolved (9.0) or a countercharge (8.2); the row counts each by the
    # side that made it, the same count as the game's own record, event by event
    from collections import Counter

    from engine.core.game import play_game, system_of
    from engine.core.simulate import game_seed, play_one
    study = Study("n20", "bussaco", (), ("random", "random"), 1, 1)
    row = play_one(study, 0)
    _, rec = play_game(system_of("n20"), ("random", "random"), "bussaco", (), game_seed(1, 0))
    fights = Counter(e["side"] for e in rec.events if e["action"]["kind"] in ("resolve", "countercharge"))
    assert fights["french"] + fights["allied"] > 0
    assert row["metrics"]["attacks.french"] == fights["french"]
    assert row["metrics"]["attacks.allied"] == fights["allied"]
