"""Battle Commander: exact odds of one declared attack over the game's own procedure (engine/core/odds.py
``action_odds``), on the positions of the play page's odds tests (tests/dashboards/attack_records.py) and on a
greedy game's position where both sides hold cards.

Three ways, the same procedure: over the cards by their numbers (the real position: each card a branch, each
pile an end position), with every card known but enumerated by what changes a result
(``BcRules.odds_state``: its icon and CRT results; the same fractions, tests/bc/test_bc_exact_odds.py), and as
the attacking side knows the cards (``BcRules.odds_view``, 15.0: the draw pile and the other hand as one
unseen pool). The combat (23.1 step 6 to 27.11), its set-up and its outcome on the map are inline
sub-procedures keyed by value, so each is enumerated once; positions are hashable, so equal end positions meet.

The play page's assault positions (random bots, bot seeds 5 and 6, tests/bench/test_play_odds_bench.py): the
plain assaults, the Ordre Mixte assaults (27.6) and the assault on a Zone with an HQ (27.10), timed as the page
asks them (core's quick odds, no cache); the steps of each enumeration are in ``extra_info``. Figures of issue 26
on this machine, steps before -> after the card steps (engine/bc/combat.py ``read_combat_card``): Ordre Mixte
32,851 -> 5,565 and 32,822 -> 5,536; M3 -> E3 6,707 -> 4,069.

Run: ``python -m pytest tests/bench/test_bc_action_odds_bench.py --benchmark-enable -p no:cacheprovider``
(``-m slow`` adds the assault over the cards by their numbers, about 9,900 end positions).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from engine.bc.game.actions import Attack
from engine.core.game import Session
from engine.core.odds import action_odds
from engine.core.quick_odds import quick_odds
from engine.systems import system_of
from tests.dashboards.attack_records import kind_of, record_until


def _position(attack: str):
    _, st, a, rules = record_until("bc", lambda r, s, x: kind_of(r, x) == "attack" and x.attack == attack)
    return rules, st, a


def _page_assaults():
    """(name, rules, state, action) of each assault the play page's benchmark offers first (bot seeds 5, 6)."""
    rules = system_of("bc")
    wanted = (lambda r, s, a: kind_of(r, a) == "attack" and a.attack == "assault")
    out = []
    for bot_seed in (5, 6):
        _, st, _, _ = record_until("bc", wanted, bot_seed=bot_seed, limit=3000)
        for a in [a for a in rules.legal_actions(st) if wanted(rules, st, a)][:3]:
            special = "" if a.special == "none" else f"-{a.special}"
            out.append((f"seed{bot_seed}-{a.frm}-{a.to}{special}", rules, st, a))
    return out


def _greedy_position(attack: str, seed: int = 2):
    rules = system_of("bc")
    sess = Session.new(rules, None, (), seed)
    bot = rules.bots()["greedy"](seed=1)
    for _ in range(3000):
        legal = sess.legal_actions()
        hits = [x for x in legal if isinstance(x, Attack) and x.attack == attack]
        if hits and all(h for _, h in sess.state.g.hands):
            return rules, sess.state, hits[0]
        x = bot.choose_action(rules, sess.state, legal)
        sess.act(x, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError(attack)


@pytest.mark.benchmark(group="bc-action-odds")
@pytest.mark.parametrize("attack", ["bombard", "fire"])
def test_bench_bc_action_odds(benchmark, attack):
    rules, st, a = _position(attack)
    odds = benchmark.pedantic(lambda: action_odds(rules, st, a), rounds=1, iterations=1)
    assert odds.total == 1


@pytest.mark.slow
@pytest.mark.benchmark(group="bc-action-odds-slow")
def test_bench_bc_action_odds_assault(benchmark):
    # about 9,900 distinct end positions (the tracked pile keeps which cards were drawn): past the default
    # bound of end positions, so the bound is raised here
    rules, st, a = _position("assault")
    odds = benchmark.pedantic(lambda: action_odds(rules, st, a, max_outcomes=20_000), rounds=1, iterations=1)
    assert odds.total == 1


@pytest.mark.benchmark(group="bc-action-odds-by-what-matters")
@pytest.mark.parametrize("attack", ["bombard", "fire", "assault"])
@pytest.mark.parametrize("where", ["page", "greedy"])
def test_bench_bc_odds_state(benchmark, attack, where):
    rules, st, a = _position(attack) if where == "page" else _greedy_position(attack)
    pos = rules.odds_state(st)
    odds = benchmark.pedantic(lambda: action_odds(rules, pos, a), rounds=3, iterations=1)
    assert odds.total == 1


@pytest.mark.benchmark(group="bc-action-odds-as-a-side-knows")
@pytest.mark.parametrize("attack", ["bombard", "fire", "assault"])
def test_bench_bc_odds_view(benchmark, attack):
    rules, st, a = _greedy_position(attack)
    pos = rules.odds_view(st, a.side)
    odds = benchmark.pedantic(lambda: action_odds(rules, pos, a), rounds=3, iterations=1)
    assert odds.total == 1


#: the play page's assaults, as _page_assaults names them
PAGE_ASSAULTS = ("seed5-M2-E2", "seed5-M2-E2-ordre_mixte", "seed6-M2-E2", "seed6-M2-E2-ordre_mixte", "seed6-M3-E3")


@pytest.fixture(scope="module")
def page_assaults():
    return {c[0]: c for c in _page_assaults()}


@pytest.mark.benchmark(group="bc-page-assault-odds")
@pytest.mark.parametrize("name", PAGE_ASSAULTS)
def test_bench_bc_page_assault_odds(benchmark, page_assaults, name):
    _, rules, st, a = page_assaults[name]
    data = benchmark.pedantic(lambda: quick_odds(rules, st, a, cache=None), rounds=3, iterations=1)
    benchmark.extra_info["steps"] = data["steps"]
    benchmark.extra_info["end_positions"] = data["end_positions"]
    assert sum(Fraction(x["fraction"]) for x in data["lines"]) == 1
