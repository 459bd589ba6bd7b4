"""One procedure, three drivers: play (many seeds) agrees statistically with exact enumeration, replay
reproduces play, trees sum to exactly 1 (hypothesis)."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction as F
import math

from hypothesis import given, settings, strategies as st
from sizes import examples

from engine import n20
from engine.core.procedure import replay

from n20_battle_helpers import EXAMPLES, battle

N_PLAY = 3000


def _within(freq: float, p: F, n: int, z: float = 4.5) -> bool:
    p = float(p)
    sd = math.sqrt(max(p * (1 - p), 1e-12) / n)
    return abs(freq - p) <= z * sd + 1e-9


def test_play_agrees_with_enumeration_worked_example():
    b = n20.load_battle(EXAMPLES / "n20_worked_example.yaml")
    exact = n20.odds(b)
    results = [n20.play_battle(b, seed=s).result for s in range(N_PLAY)]
    codes = Counter(o.result for o in results)
    for code, p in exact.crt.items():
        assert _within(codes[code] / N_PLAY, p, N_PLAY), (code, codes[code] / N_PLAY, float(p))
    broken = sum(any(f.role == "defender" and f.fate == "broken" for f in o.fates) for o in results) / N_PLAY
    assert _within(broken, exact.summary["defender_broken"], N_PLAY)
    allied = sum(o.delta("allied") for o in results) / N_PLAY
    # morale deltas lie in [-3, 1]: a 4.5-sigma bound with the exact variance
    var = float(exact.outcomes.expect(lambda o: o.delta("allied") ** 2) - exact.summary["expected_morale"]["allied"] ** 2)
    assert abs(allied - float(exact.summary["expected_morale"]["allied"])) <= 4.5 * math.sqrt(var / N_PLAY)
    # every played outcome is one the enumeration knows
    assert all(o in exact.outcomes for o in results)


def test_replay_reproduces_play():
    b = n20.load_battle(EXAMPLES / "n20_worked_example.yaml")
    for seed in range(20):
        played = n20.play_battle(b, seed=seed)
        again = replay(n20.procedure(b), [e.to_json() for e in played.events])
        assert again.result == played.result


units = st.fixed_dictionaries({
    "id": st.sampled_from(["u"]),
    "type": st.sampled_from(["infantry", "cavalry", "artillery"]),
    "strength": st.integers(0, 5),
    "movement": st.integers(1, 4),
    "elite": st.booleans(), "guard": st.booleans(), "heavy": st.booleans(), "routed": st.booleans(),
    "unreliable": st.booleans(), "spanish_irregular": st.booleans(), "straggler": st.booleans(),
    "reluctant": st.booleans(),
})


@settings(max_examples=examples(20))
@given(att=st.lists(units, min_size=1, max_size=3), dfd=st.lists(units, min_size=1, max_size=2),
       terrain=st.sampled_from(["clear", "forest", "town", "fortified"]),
       hazards=st.lists(st.integers(0, 2), max_size=4), reserve=st.booleans(), edition=st.sampled_from(["v3", "v2"]))
def test_every_tree_sums_to_exactly_one(att, dfd, terrain, hazards, reserve, edition):
    att = [{**u, "id": f"a{i}"} for i, u in enumerate(att)]
    dfd = [{**u, "id": f"d{i}", "type": "infantry" if u["type"] == "artillery" else u["type"]} for i, u in enumerate(dfd)]
    if edition == "v2":
        for u in att + dfd:
            u["routed"] = False
    spec = {"edition": edition, "attackers": att, "defenders": dfd, "terrain": terrain,
            "paths": {u["id"]: hazards for u in att + dfd},
            "reserves": {"defender": reserve and not all(u["routed"] or u["straggler"] for u in dfd)}}
    b = battle(spec, n20.default_tables(edition))
    res = n20.odds(b, with_tree=True)
    assert res.outcomes.total == 1
    assert res.tree.total() == 1
    assert sum(res.crt.values()) == 1
    # play (seeded dice) only ever reaches outcomes the enumeration gives a positive probability
    for seed in range(3):
        assert n20.play_battle(b, seed=seed).result in res.outcomes
    # the tree's leaves carry the same probabilities as the distribution
    leaves = {}
    for node in res.tree.leaf_nodes():
        leaves[node.result] = leaves.get(node.result, 0) + node.path_probability
    assert leaves == dict(res.outcomes.items())
