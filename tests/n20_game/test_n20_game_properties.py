"""Property tests: whole random-bot games keep every invariant and replay exactly; reachable paths obey
the movement rules. The default run plays a few games per scenario; the full 200 per scenario run under
``-m slow``."""
from __future__ import annotations

import random
from functools import partial

import pytest
from hypothesis import given, settings, strategies as st

from engine.n20 import game as g
from engine.n20.game.reach import movement_allowance

from n20_game_helpers import apply_action, apply_logged, legal

SCENARIOS = ["fuentes", "fuentes-5may", "bussaco"]
ALL_OPTIONS = {
    "fuentes": ("leaders", "fatigue", "special_units", "fog_of_war", "rally_hexes", "unit_reduction", "squares",
                "penetration", "artillery_support", "breakdown"),
    "fuentes-5may": ("leaders", "special_units", "fatigue"),
    "bussaco": ("portuguese_reliability", "special_units", "fog_of_war", "penetration", "artillery_support"),
}


def check_invariants(s: g.GameState) -> None:
    sc = s.scenario
    board = s.board
    seen: dict[str, str] = {}
    sides: dict[str, set] = {}
    for u in s.units:
        d = sc.units[u.id]
        if u.status == "map":
            assert u.hex is not None and board.on_map(u.hex), u
            sides.setdefault(u.hex, set()).add(d.side)
            if d.type != "leader":
                # 6.9 is judged at the end of the movement phase: within it units may share a hex (a move that
                # ended on a friend who moves on, a dummy and the unit it arrived with 16.1.3, Cadres 16.6), and
                # the game may end within it
                assert u.hex not in seen or s.step in ("movement", "over"), \
                    f"6.9: {u.id} and {seen.get(u.hex)} stacked in {u.hex} ({s.step}, turn {s.turn})"
                seen[u.hex] = u.id
            g_ = board.garrisons.get(u.hex)
            if g_ is not None and not s.garrison_gone:
                assert g_.side == d.side, f"9.4.4: {u.id} inside an enemy garrison"
        else:
            assert u.hex is None or u.status == "map", u
    for h, ss in sides.items():
        assert len(ss) == 1, f"6.3: both sides in {h}"
    for side, m in s.morale:
        assert 0 <= m <= 10, f"12.1.1: {side} morale {m}"


def play_random(scenario, seed, options=(), bots=("random", "random")):
    bots_by_name = g.RULES.bots()
    players = {"french": bots_by_name[bots[0]](seed=seed), "allied": bots_by_name[bots[1]](seed=seed + 1)}
    s = g.new_game(scenario, options=options, seed=seed)
    states, events = [s], []
    check_invariants(s)
    for _ in range(6000):
        if s.over:
            break
        bot = players[g.actor(s)]
        a = bot.choose_action(g.RULES, s, legal(s))
        s, ev = apply_logged(s, a, chooser=partial(bot.choose, state=s))
        check_invariants(s)
        states.append(s)
        events.append(ev)
    assert s.over, "the game reached a result"
    rec = g.make_record(s, events)
    replayed = g.replay_record(g.GameRecord.loads(rec.dumps()))
    assert len(replayed) == len(states)
    for a, b in zip(states, replayed):
        assert a.to_json() == b.to_json()
    return s


@pytest.mark.parametrize("scenario", SCENARIOS)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10 ** 6), with_options=st.booleans())
def test_random_games_keep_invariants_and_replay(scenario, seed, with_options):
    play_random(scenario, seed, ALL_OPTIONS[scenario] if with_options else ())


@pytest.mark.slow
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_200_random_games_per_scenario(scenario):
    results = {}
    for seed in range(200):
        s = play_random(scenario, seed, ALL_OPTIONS[scenario] if seed % 2 else ())
        results[s.result[0]] = results.get(s.result[0], 0) + 1
    assert sum(results.values()) == 200


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_reachable_paths_obey_the_movement_rules(seed):
    """Every listed move: a contiguous path from the unit (or its entry hex), never through an enemy hex
    (6.3), not ending on a friend (6.9), costing no more than the allowance (+1 on a road, 6.6) unless it is
    the single hex always allowed (6.2)."""
    rng = random.Random(seed)
    s = g.new_game(rng.choice(SCENARIOS), seed=seed)
    for _ in range(rng.randrange(0, 40)):
        if s.over:
            return
        bot = g.RULES.bots()["random"](seed=rng.randrange(10 ** 6))
        s = apply_action(s, bot.choose_action(g.RULES, s, legal(s)), chooser=partial(bot.choose, state=s))
    if s.step != "movement" or s.over:
        return
    sc = s.scenario
    board = s.board
    for u in s.units:
        d = sc.units[u.id]
        if d.side != s.player:
            continue
        r = g.reachable(s, u.id)
        for h, reach in r.items():
            path = reach.path
            assert path[-1] == h
            for a, b in zip(path, path[1:]):
                assert board.grid.adjacent(a, b)
            enemy = {x.hex for x in s.units if x.status == "map" and sc.units[x.id].side != d.side}
            assert not set(path) & enemy
            ma = movement_allowance(s, u.id) + (1 if reach.road else 0)
            steps = len(path) - (1 if u.status == "map" else 0)
            assert reach.cost <= ma or steps == 1
