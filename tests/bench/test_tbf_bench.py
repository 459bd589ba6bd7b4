"""These Brave Fellows speed: exact odds of a check, a two-target charge tree (with melee), a melee,
and the movement search on the Dürenstein map.

Run: ``python -m pytest tests/bench/test_tbf_bench.py --benchmark-enable -p no:cacheprovider``.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.core.procedure import enumerate_tree
from engine.tbf.board import default_board
from engine.tbf.charge import charge_from_spec, charge_proc
from engine.tbf.fatigue import CheckSpec, check_distribution
from engine.tbf.melee import Fighter, MeleeSetup, melee_distribution
from engine.tbf.game.search import reachable
from engine.tbf.game.setup import initial_state
from engine.tbf.scenario import default_scenario
from engine.tbf.tables import default_tables

EX = Path(__file__).resolve().parents[2] / "data" / "tbf" / "examples" / "charge_two_targets.yaml"
T = default_tables()


@pytest.mark.benchmark(group="tbf")
def test_bench_check_odds(benchmark):
    d = benchmark(lambda: check_distribution(T, CheckSpec("attacker_melee", 4, leader_cvs=(1,))))
    assert d.total == 1


@pytest.mark.benchmark(group="tbf")
def test_bench_two_target_charge_tree_with_melee(benchmark):
    b = default_board()
    setup = charge_from_spec(yaml.safe_load(EX.read_text()), b.grid, terrain=b.charge_terrain(T))
    tree = benchmark(lambda: enumerate_tree(charge_proc(T, setup)))
    assert tree.total() == 1


@pytest.mark.benchmark(group="tbf")
def test_bench_melee_two_against_two(benchmark):
    setup = MeleeSetup((Fighter("a", 4, 4, leader_cvs=(1,)), Fighter("b", 4, 5, flank=True)),
                       (Fighter("c", 4, 3), Fighter("d", 3, 3, status="fatigued")), attacker_leaders=("Campana",))
    d = benchmark(lambda: melee_distribution(T, setup))
    assert d.total == 1


@pytest.mark.benchmark(group="tbf")
def test_bench_cavalry_movement_search(benchmark):
    sc = default_scenario()
    st = initial_state(sc).with_flag("alert")
    r = benchmark(lambda: reachable(sc, st, "drag-2", {2: 2, 3: 1}))
    assert len(r) > 5


@pytest.mark.benchmark(group="tbf")
def test_bench_charge_action_on_the_full_setup(benchmark):
    from functools import partial
    from engine.core.procedure import distribution
    from engine.tbf.game import memo
    from engine.tbf.game.cavalry_charge import charge_action
    sc = default_scenario()
    st = initial_state(sc).with_piece("ci-1", hex="2212", facing=4).with_piece("ci-2", hex="2312", facing=4)

    def run():
        memo.forget()                   # cold: set-ups and rout paths recomputed
        return distribution(partial(charge_action, sc, st, "drag-3", ("2013", "2113", "2212"), ("2312",)))

    d = benchmark(run)
    assert d.total == 1


@pytest.mark.benchmark(group="tbf")
def test_bench_rout_chain_with_6_7_K_checks(benchmark):
    """A rout through two fatigued friends that may rout and run in turn (6.7 C, 6.7 K), exact odds."""
    from dataclasses import replace
    from functools import partial
    from engine.core.procedure import distribution
    from engine.tbf.game import memo
    from engine.tbf.game.rout import rout_unit
    sc = default_scenario()
    st0 = initial_state(sc)
    st = replace(st0, pieces=tuple(replace(p, hex=None) for p in st0.pieces))
    st = (st.with_piece("100-1", hex="1006").with_piece("100-2", hex="0906", status="fatigued")
          .with_piece("100-3", hex="0805", status="fatigued"))

    def run():
        memo.forget()
        return distribution(partial(rout_unit, sc, st, "100-1"))

    d = benchmark(run)
    assert d.total == 1


@pytest.mark.benchmark(group="tbf-game")
def test_bench_greedy_game(benchmark):
    """A whole Dürenstein game, greedy bot against greedy bot, on the core protocol (goal: 5 games/s)."""
    from engine.core.game import play_game
    from engine.tbf.game.protocol import TbfRules
    rules = TbfRules()
    rules.bots()                # the bot modules' imports (engine.core.odds) are not part of a game
    final, _ = benchmark.pedantic(lambda: play_game(rules, ("greedy", "greedy"), seed=4, record=False),
                                  rounds=1, iterations=1)
    assert rules.outcome(final) is not None


@pytest.mark.benchmark(group="tbf-game")
def test_bench_legal_actions_first_movement_segment(benchmark):
    """Every legal action (moves with paths, facings, charges) of Column I's first Movement Segment."""
    from engine.core.procedure import TypedDice
    from engine.tbf.game.actions import Activate
    from engine.tbf.game.protocol import TbfRules
    rules = TbfRules()
    s, _ = rules.apply(rules.new_game(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))

    def run():
        rules.queries.forget()              # cold: the per-state memo is rebuilt each round
        return rules.legal_actions(s)

    legal = benchmark(run)
    assert len(legal) > 100


def _first_melees_at_bot_seed_3():
    """The play-page benchmark's TBF melee position (tests/bench/test_play_odds_bench.py: the random bot's
    first position offering a melee, bot seed 3) and its first two melees, which end turn 2."""
    import sys
    sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
    from attack_records import kind_of, record_until
    _, state, _, rules = record_until("tbf", lambda r, s, a: kind_of(r, a) == "melee", bot_seed=3, limit=3000)
    return rules, state, [a for a in rules.legal_actions(state) if kind_of(rules, a) == "melee"][:2]


@pytest.mark.benchmark(group="tbf-odds")
@pytest.mark.parametrize("which", [0, 1], ids=["NOV-3-bn-at-2015", "NOV-3-bn-at-2115"])
def test_bench_quick_odds_of_a_melee_that_ends_the_turn(benchmark, which):
    """Exact odds of a melee that ends the turn (issue 26, Speed; the engine's part of a pick on /play), cold:
    no cached answer, the position's memos emptied each round. Before the fight and the end of the turn were
    chains (commit 7a64f71): 54,339 and 36,414 enumeration steps, about 2.2 s and 1.7 s of CPU on the shared
    2-core machine; after: 6,048 and 5,557 steps. The steps and end positions go in ``extra_info``."""
    from engine.core.quick_odds import quick_odds
    rules, state, melees = _first_melees_at_bot_seed_3()
    action = melees[which]

    def run():
        rules.queries.forget()
        return quick_odds(rules, state, action, cache=None)

    data = benchmark(run)
    benchmark.extra_info.update(steps=data["steps"], end_positions=data["end_positions"])
    assert data["end_positions"] == (1263, 1166)[which]
