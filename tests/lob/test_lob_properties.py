"""Invariants of the combat procedure (hypothesis) and play-vs-enumerate agreement."""
from functools import partial
import math

from hypothesis import given, settings, strategies as st

from engine.core.procedure import RandomDice, enumerate_tree, play
from engine.core.sampling import sample, wilson_interval
from engine.lob.analysis import analyse
from engine.lob.combat import combat
from engine.lob.policies import CombatPolicy

from lob_helpers import BORDERS, combat_of, unit

POLICIES = ["stay", "until:1", "until:0", "spent:1", "spent:2", "outnumbered", "rbc", "feint"]


@st.composite
def combats(draw):
    target, origin = draw(st.sampled_from(BORDERS))
    att = [draw(unit(f"A{i}", True, target)) for i in range(draw(st.integers(1, 2)))]
    dfn = [draw(unit(f"D{i}", False, target)) for i in range(draw(st.integers(1, 2)))]
    if target in ("15", "23") and dfn[0]["kind"] == "inf" and draw(st.booleans()):
        dfn[0]["approach"] = origin
    pol = CombatPolicy(draw(st.sampled_from(POLICIES)), draw(st.sampled_from(POLICIES)))
    return combat_of(target, origin, att, dfn), pol


@settings(max_examples=40)
@given(combats())
def test_combat_distribution_sums_to_exactly_one_and_results_are_consistent(case):
    (ctx, att, dfn), pol = case
    an = analyse(ctx, att, dfn, pol)
    assert an.dist.total == 1
    for res in an.dist:
        ids = sorted(u.uid for u in res.units)
        assert ids == sorted(u.uid for u in att + dfn)           # every participant accounted for
        for u in res.units:
            assert 0 <= u.hits <= (1 if u.kind == "art" else u.rating + 1)
            assert (u.area is None) == u.eliminated
        holders = {u.side for u in res.units if u.area == ctx.target}
        assert len(holders) <= 1                                    # one side per area (1.1)
        if res.taken:
            assert holders == {ctx.attacker_side}
        m = res.morale()
        assert m[ctx.defender_side] <= 0


@settings(max_examples=15)
@given(combats())
def test_combat_tree_total_is_exactly_one(case):
    (ctx, att, dfn), pol = case
    tree = enumerate_tree(partial(combat, ctx, att, dfn), policy=pol)
    assert tree.total() == 1
    assert tree.distribution() == analyse(ctx, att, dfn, pol).dist


def test_play_and_enumerate_agree_statistically():
    # heavy cavalry 3 + infantry 3 attack infantry 3 on the approach; both stay until strength 1
    ctx, att, dfn = combat_of("15", "23", [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3},
                                           {"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3, "approach": "23"},
                               {"uid": "E", "kind": "inf", "rating": 2}])
    pol = CombatPolicy("until:1", "until:1")
    exact = analyse(ctx, att, dfn, pol)
    n = 1500
    s = sample(partial(combat, ctx, att, dfn), n, seed=11, chooser=pol)
    p = float(exact.attacker_takes_area)
    lo, hi = wilson_interval(sum(c for r, c in s.counts.items() if r.taken), n, z=4.0)
    assert lo <= p <= hi
    mean_hits = sum(r.unit("D").hits * c for r, c in s.counts.items()) / n
    var = float(exact.hits_dist("D").expect(lambda h: h * h) - exact.expected_hits("D") ** 2)
    assert abs(mean_hits - float(exact.expected_hits("D"))) <= 4.5 * math.sqrt(var / n)
