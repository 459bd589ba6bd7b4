"""The greedy bot's fight odds kept for the whole process (issues 10, 16): the shared caches change no
pick and no number, only how often the same work is done."""
import json
from functools import partial
from pathlib import Path

from hypothesis import given, settings, strategies as st
import pytest

from engine.core.game import play_game
from engine.core.procedure import distribution
from engine.core.sampling import sample
from engine.lob import bots as B
from engine.lob import handlers as H
from engine.lob import movement as M
from engine.lob.actions import Action
from engine.lob.setup import new_game
from engine.lob.analysis import parse_combat
from engine.lob.combat import combat
from engine.lob.policies import CombatPolicy
from engine.lob.protocol import LobRules

R = LobRules()
ROOT = Path(__file__).resolve().parents[2]

# fights too big for the exact odds (attackers x defenders > 4), as the bot samples them: a cavalry
# and infantry group against a mixed stack with a gun (5.1.3 fire, 5.2.4 cavalry lead), and a
# 2 against 3 infantry fight on an approach (5.2.1 d)
BIG = ["""
target: "15"
origin: "23"
attackers: [{uid: C, kind: cav, cav: heavy, rating: 3}, {uid: I, kind: inf, rating: 3}]
defenders: [{uid: D, kind: inf, rating: 3, approach: "23"}, {uid: E, kind: cav, cav: light, rating: 2},
            {uid: G, kind: art, deployed: true}]
""", """
target: "15"
origin: "16"
attackers: [{uid: A, kind: inf, rating: 4}, {uid: B, kind: inf, rating: 2}]
defenders: [{uid: D, kind: inf, rating: 3}, {uid: E, kind: inf, rating: 2}, {uid: F, kind: inf, rating: 1}]
"""]


@settings(max_examples=12, deadline=None)
@given(which=st.sampled_from(range(len(BIG))), seed=st.integers(0, 10 ** 6 - 1),
       policy=st.sampled_from([CombatPolicy("until:1", "until:1"), CombatPolicy("stay", "rbc"),
                               CombatPolicy("spent:2", "outnumbered")]))
def test_shared_plays_count_what_core_sampling_counts(which, seed, policy):
    # the same seeded dice asked the same requests in the same order: the same results, counted in the
    # same order (the bot's sampled mean and spread are sums over that order), whether the shared play
    # tree is empty (first call) or already holds the paths of earlier plays (second call)
    ctx, att, dfn = parse_combat(BIG[which])
    factory = partial(combat, ctx, att, dfn)
    want = list(sample(factory, B.SAMPLES, seed=seed, chooser=policy).counts.items())
    part = ("test", policy)
    for _ in range(2):
        got = list(B._sample_counts(part, ("combat", ctx, att, dfn), factory, B.SAMPLES, seed, policy).items())
        assert got == want


def test_exact_fight_worth_is_the_same_from_the_shared_cache():
    # Pepin (strength 1) against the KGL in Albuera, as in test_lob_bot_policy: worth -5/24, worked out
    # once; a second bot (another game) reads it from the shared cache, and a cold cache gives it again
    from dataclasses import replace
    from engine.core.procedure import TypedDice, play
    g = play(partial(H.perform, new_game(), Action("end-admin")), dice=TypedDice([]),
             chooser=lambda r: r.options[0]).result
    g = g.with_units([replace(g.unit("F-Pepin"), area="16", hits=1)])
    attack = Action("attack", units=("F-Pepin",), target="Albuera")
    first = B.GreedyBot(seed=1).attack_value(g, attack)
    again = B.GreedyBot(seed=2).attack_value(g, attack)
    B._FIGHTS.clear()
    B._MEMOS.clear()
    cold = B.GreedyBot(seed=3).attack_value(g, attack)
    assert first == again == cold == pytest.approx(-5 / 24)


def test_exact_odds_with_the_shared_memo_match_a_fresh_enumeration():
    # the shared sub-procedure memo (keys are values) gives the distribution a fresh memo gives
    ctx, att, dfn = parse_combat("""
target: "15"
origin: "16"
attackers: [{uid: A, kind: inf, rating: 4}, {uid: B, kind: inf, rating: 3}]
defenders: [{uid: D, kind: inf, rating: 4}, {uid: E, kind: inf, rating: 3}]
""")
    pol = CombatPolicy("until:1", "until:1")
    shared: dict = {}
    distribution(partial(combat, ctx, att[:1], dfn), policy=pol, memo=shared)     # fills part of it
    assert distribution(partial(combat, ctx, att, dfn), policy=pol, memo=shared) == \
        distribution(partial(combat, ctx, att, dfn), policy=pol)


def test_the_module_caches_stay_bounded(monkeypatch):
    monkeypatch.setattr(B, "FIGHT_CACHE", 3)
    monkeypatch.setattr(B, "TRIE_CACHE", 50)
    monkeypatch.setattr(M, "REACH_CACHE", 10)
    B._FIGHTS.clear()
    B._TRIES.clear()
    M._REACH.clear()
    play_game(R, ("greedy", "greedy"), seed=2, max_actions=60)
    assert len(B._FIGHTS) <= 4 and len(M._REACH) <= 11
    assert all(len(t) <= 50 for t in B._TRIES.values())


def test_cached_move_searches_match_a_fresh_search():
    # every unit able to move, at every decision of a greedy game's first 60 actions: the kept search
    # (4.2.2, Albuera terrain 3, 6-9) is what a new search finds
    seen = []

    def check(g, n):
        if g.phase != "command":
            return
        for u in g.live():
            if u.side == g.player:
                full, budget = M.allowance(g, u), M.points_left(g, u)
                enemy = frozenset(a for a, s in g.occupied().items() if s != u.side)
                assert M.reach(g, u) == M.search_reach(g, u, budget, full, enemy)
                seen.append(u.uid)

    play_game(R, ("greedy", "greedy"), seed=3, max_actions=60, on_action=check)
    assert len(seen) > 100


def test_a_greedy_game_is_the_shipped_record():
    # data/records/lob_albuera_greedy_seed4.json (vedette lob play --seed 4 --bots greedy,greedy): the
    # bot's picks, its sampled fights' seeds and every roll are the same with the shared caches
    want = json.loads((ROOT / "data/records/lob_albuera_greedy_seed4.json").read_text())
    _, rec = play_game(R, ("greedy", "greedy"), seed=4)
    assert rec.to_json()["events"] == want["events"]


def test_a_combat_context_from_another_process_hashes_as_one_made_here():
    # a string hashes differently in each process (PYTHONHASHSEED): a context pickled in a worker with
    # another seed must not carry that process's hash, or the process-wide fight caches (keyed by value)
    # would file equal contexts apart
    import os
    import pickle
    import subprocess
    import sys
    code = ("import pickle, sys\nfrom engine.lob.analysis import parse_combat\n"
            "ctx, _, _ = parse_combat('{\"target\": \"15\", \"origin\": \"16\", \"attackers\": "
            "[{\"uid\": \"A\", \"kind\": \"inf\", \"rating\": 4}], \"defenders\": "
            "[{\"uid\": \"D\", \"kind\": \"inf\", \"rating\": 4}]}')\n"
            "sys.stdout.buffer.write(pickle.dumps(ctx))\n")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    blob = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, env=env).stdout
    theirs = pickle.loads(blob)
    ours, _, _ = parse_combat('{"target": "15", "origin": "16", "attackers": [{"uid": "A", "kind": "inf", '
                              '"rating": 4}], "defenders": [{"uid": "D", "kind": "inf", "rating": 4}]}')
    assert theirs == ours and hash(theirs) == hash(ours)
    assert {ours: 1}.get(theirs) == 1
