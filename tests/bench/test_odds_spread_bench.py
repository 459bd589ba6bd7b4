"""How the exact odds of attacks spread over whole games (issue 26, Speed), in the engine alone: the
benchmark of the play page (test_play_odds_bench.py) times the first positions where each kind of attack
is offered; this one walks bot games to the end and, at every position that offers the kind, works out the
odds of the first such action listed (``quick_odds`` without a cache, the page's worker's call), so the
fights that late, crowded positions bring (a TBF melee that ends the turn, a BC cavalry assault the
defender may meet in Square) are counted too.

Printed per kind and bot: picks, how many were refused at the bound, p50 / p95 / max and how many took over
0.5 s and over 1 s, and how many odds stopped before what follows the action (a TBF turn's end, 3.3 B:
``until`` in the data) (no timed assertion). Run:
``python -m pytest tests/bench/test_odds_spread_bench.py -m slow -s -p no:cacheprovider``."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from engine.core.errors import LimitError
from engine.core.game import Session, system_of
from engine.core.quick_odds import quick_odds

pytestmark = [pytest.mark.benchmark, pytest.mark.slow]   # minutes: run with -m slow

sys.path.insert(0, str(Path(__file__).parent))
from test_play_odds_bench import CASES  # noqa: E402

BOTS = ("random", "greedy")
BOT_SEEDS = (1, 2)
GAME_SEEDS = (1, 2)
MAX_ACTIONS = 1500          # a game's actions at most (every system's scenario ends well before)
MAX_PICKS = 150             # per kind and bot: a bound on the minutes it takes


def spread(system: str, wanted, bot_name: str) -> dict:
    """The odds of the first wanted action at each position of the bots' games, timed."""
    rules = system_of(system)
    times: list[float] = []
    refused = stopped = 0
    for bot_seed in BOT_SEEDS:
        bot = rules.bots()[bot_name](seed=bot_seed)
        for game_seed in GAME_SEEDS:
            sess = Session.new(rules, None, (), game_seed)
            for _ in range(MAX_ACTIONS):
                legal = sess.legal_actions()
                if not legal or len(times) >= MAX_PICKS:
                    break
                pick = next((a for a in legal if wanted(rules, sess.state, a)), None)
                if pick is not None:
                    t = time.perf_counter()
                    try:
                        stopped += "until" in quick_odds(rules, sess.state, pick, cache=None)
                    except LimitError:
                        refused += 1
                    times.append(time.perf_counter() - t)
                a = bot.choose_action(rules, sess.state, legal)
                sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    times.sort()

    def ms(q: float) -> float:
        return round(times[min(len(times) - 1, int(q * len(times)))] * 1000, 1) if times else 0.0
    return {"picks": len(times), "refused": refused, "stopped_before": stopped, "p50_ms": ms(0.5), "p95_ms": ms(0.95),
            "max_ms": round(times[-1] * 1000, 1) if times else 0.0,
            "over_0_5_s": sum(t > 0.5 for t in times), "over_1_s": sum(t > 1 for t in times)}


@pytest.mark.parametrize("bot_name", BOTS)
@pytest.mark.parametrize("name,system,wanted", CASES, ids=[c[0].replace(" ", "-") for c in CASES])
def test_bench_odds_over_whole_games(benchmark, name, system, wanted, bot_name):
    info = benchmark.pedantic(lambda: spread(system, wanted, bot_name), rounds=1, iterations=1)
    benchmark.extra_info.update(info)
    print(f"\n{name}, {bot_name} bots: {info['picks']} picks, {info['refused']} refused at the bound, "
          f"{info['stopped_before']} stopped before what follows (a turn's end), p50 "
          f"{info['p50_ms']:.0f} ms, p95 {info['p95_ms']:.0f} ms, max {info['max_ms']:.0f} ms, "
          f"{info['over_0_5_s']} over 0.5 s, {info['over_1_s']} over 1 s")
