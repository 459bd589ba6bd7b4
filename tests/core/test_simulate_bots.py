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
