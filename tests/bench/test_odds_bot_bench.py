"""Speed of the odds-aware bot (engine/core/odds.py OddsBot, engine/n20/game/odds_bot.py; issues 16 point 3
and 26 point 4): whole games, the odds bot against the greedy bot, per system, timed in process CPU time as
the other benchmarks; and one decision of each system on its own, with a fresh bot (nothing cached): the
first decision of the odds bot's seed-1 game in which it weighs two attacks or more (for Napoleonic 20 a
declaration, 9.1-9.2); and every decision of that game that weighed an attack, each by a fresh bot (the
per-decision cost, issue 26 point 4). ``extra_info`` says what the decisions weighed: attacks, those past
the bound, enumeration steps.

Whole games take seconds each, so they are marked ``slow``. Run:
``python -m pytest tests/bench/test_odds_bot_bench.py --benchmark-enable -m "" -p no:cacheprovider``.
"""
from __future__ import annotations

import time
from functools import lru_cache

import pytest

from engine.core.game import _make_bots, play_game, system_of

SYSTEMS = ["n20", "lob", "tbf", "bc"]


@pytest.mark.slow
@pytest.mark.benchmark(group="odds-bot-game", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("seed", [1, 2])
def test_bench_odds_vs_greedy_game(benchmark, system, seed):
    rules = system_of(system)
    players = _make_bots(rules, ("odds", "greedy"), seed)          # the bots play_game makes from the names
    final, _ = benchmark.pedantic(lambda: play_game(rules, players, seed=seed, record=False),
                                  rounds=1, iterations=1)
    assert rules.outcome(final) is not None
    bot = players[rules.sides[0]]
    benchmark.extra_info.update(weighed=bot.weighed, too_big=bot.too_big, solved=bot.solved,
                                steps=getattr(bot, "steps", None))


class _Watch:
    """The odds bot of one seat, noting the first position where a decision weighed two attacks or more."""

    def __init__(self, bot):
        self.bot, self.name, self.found = bot, bot.name, None

    @property
    def needs_legal(self):
        return self.bot.needs_legal

    def choose(self, request, state=None):
        return self.bot.choose(request, state)

    def choose_action(self, rules, state, legal):
        before = self.bot.weighed
        a = self.bot.choose_action(rules, state, legal)
        if self.found is None and self.bot.weighed - before >= 2:
            self.found = (state, legal)
        return a


@lru_cache(maxsize=None)
def weighing_position(system: str):
    """(rules, state, legal) of the first decision of the seed-1 odds-vs-greedy game that weighs 2+ attacks."""
    rules = system_of(system)
    watch = _Watch(rules.bots()["odds"](seed=1))
    play_game(rules, (watch, "greedy"), seed=1, record=False, max_actions=2000)
    assert watch.found is not None
    return (rules, *watch.found)


@pytest.mark.benchmark(group="odds-bot-decision", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_odds_bot_decision(benchmark, system):
    rules, st, legal = weighing_position(system)
    bots = []

    def decide():
        bot = rules.bots()["odds"](seed=1)               # a fresh bot: nothing cached
        bots.append(bot)
        return bot.choose_action(rules, st, legal)
    benchmark.pedantic(decide, rounds=3, iterations=1)
    bot = bots[-1]
    benchmark.extra_info.update(weighed=bot.weighed, too_big=bot.too_big, solved=bot.solved,
                                steps=getattr(bot, "steps", None))
    assert bot.weighed >= 2


class _Every(_Watch):
    """The odds bot of one seat, noting every position where a decision weighed an attack or more."""

    def __init__(self, bot):
        super().__init__(bot)
        self.weighing: list = []

    def choose_action(self, rules, state, legal):
        before = self.bot.weighed
        a = self.bot.choose_action(rules, state, legal)
        if self.bot.weighed > before:
            self.weighing.append((state, legal))
        return a


@lru_cache(maxsize=None)
def weighing_positions(system: str):
    """(rules, [(state, legal)]) of every decision of the seed-1 odds-vs-greedy game that weighed an attack."""
    rules = system_of(system)
    watch = _Every(rules.bots()["odds"](seed=1))
    play_game(rules, (watch, "greedy"), seed=1, record=False, max_actions=2000)
    assert watch.weighing
    return rules, watch.weighing


@pytest.mark.benchmark(group="odds-bot-every-decision", timer=time.process_time)
@pytest.mark.parametrize("system", SYSTEMS)
def test_bench_odds_bot_every_decision_of_a_game(benchmark, system):
    """Issue 26 point 4, the per-decision cost: every decision of the seed-1 odds-vs-greedy game that weighed
    an attack, each made again by a fresh bot (nothing cached: the most a decision costs within its budget,
    ``max_steps`` per attack and ``top_k`` attacks). Divide the time by ``extra_info["decisions"]``."""
    rules, positions = weighing_positions(system)
    bots = []

    def decide_all():
        bots.clear()
        for st, legal in positions:
            bot = rules.bots()["odds"](seed=1)
            bots.append(bot)
            bot.choose_action(rules, st, legal)
    benchmark.pedantic(decide_all, rounds=1, iterations=1)
    benchmark.extra_info.update(decisions=len(positions), weighed=sum(b.weighed for b in bots),
                                too_big=sum(b.too_big for b in bots), steps=sum(b.steps for b in bots),
                                most_steps=max(b.steps for b in bots))
    assert len(bots) == len(positions)


@pytest.mark.benchmark(group="odds-bot-decision", timer=time.process_time)
def test_bench_n20_declaration_by_odds(benchmark):
    from engine.n20.game import combat as C
    from engine.n20.game.odds_bot import N20OddsBot
    rules = system_of("n20")
    st, _ = play_game(rules, ("greedy", "greedy"), seed=1, max_actions=119, record=False)

    def declare():
        bot = N20OddsBot(seed=1)                 # a fresh bot: nothing cached
        bot.base(rules)
        return bot.choose_declaration(rules, st, C.declaration_options(st))
    pick = benchmark.pedantic(declare, rounds=3, iterations=1)
    assert pick.kind == "declare"


@pytest.mark.benchmark(group="odds-bot-decision", timer=time.process_time)
def test_bench_lob_attack_decision(benchmark):
    rules = system_of("lob")
    seen = []
    play_game(rules, ("greedy", "greedy"), seed=2, max_actions=60, record=False,
              on_action=lambda s, n: seen.append(s) if len(rules.attack_candidates(s)) > 4 and not seen else None)
    assert seen
    st = seen[0]

    def decide():
        bot = rules.bots()["odds"](seed=1)
        return bot.choose_action(rules, st, None)
    benchmark.pedantic(decide, rounds=3, iterations=1)
