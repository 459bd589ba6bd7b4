"""The three drivers over one procedure: play, replay and exact enumeration agree."""
from fractions import Fraction
from functools import partial

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.errors import RecordError, RuleViolation
from engine.core.procedure import (Choose, Draw, Log, NeedInput, Roll, Stepper, Sub, TypedDice, distribution,
                                   enumerate_tree, play, replay)
from engine.core.sampling import sample


def rout_like(elite: bool, hazards: tuple[int, ...]):
    """A small rout-shaped procedure: a distance die, then one hazard die per hazard on the path."""
    raw = yield Roll("d6", rule="9.6", label="rout distance")
    distance = raw - (2 if elite else 0)
    yield Log("9.6.2", "rout die modified", {"raw": raw, "modified": distance})
    if distance < 1:
        return ("withdraw", 1)
    for step in range(distance):
        for _ in range(hazards[step] if step < len(hazards) else 0):
            if (yield Roll("d6", rule="9.8.3", label="hazard")) <= 3:
                return ("broken", step + 1)
    return ("routed", distance)


def test_enumerate_elite_rout_by_hand():
    # Elite: distance = d6 - 2. Faces 1, 2 -> below 1 -> withdraw: 2/6 = 1/3.
    # One hazard in the first hex: faces 3..6 (4/6) meet it; it breaks on 1-3 (1/2): 4/6 * 1/2 = 1/3 broken.
    # Surviving: faces 3..6 each 1/6 * 1/2 = 1/12 routed 1..4 hexes.
    d = distribution(partial(rout_like, True, (1,)))
    assert d[("withdraw", 1)] == Fraction(1, 3)
    assert d[("broken", 1)] == Fraction(1, 3)
    for k in range(1, 5):
        assert d[("routed", k)] == Fraction(1, 12)
    assert d.total == 1


def test_tree_nodes_carry_rules_and_probabilities():
    t = enumerate_tree(partial(rout_like, False, (0, 2)))
    assert t.root.rule == "9.6" and len(t.root.children) == 6
    assert all(c.probability == Fraction(1, 6) for c in t.root.children)
    rules = {n.rule for n in t.nodes() if not n.is_leaf}
    assert rules == {"9.6", "9.8.3"}
    assert sum(n.path_probability for n in t.leaf_nodes()) == 1
    assert t.to_dict()["children"][0]["probability"] == {"fraction": "1/6", "float": 1 / 6}
    assert any("9.6.2" == r for n in t.nodes() for r, _ in n.notes)


@settings(max_examples=40, deadline=None)
@given(st.booleans(), st.lists(st.integers(0, 2), max_size=4))
def test_every_tree_sums_to_one(elite, hazards):
    t = enumerate_tree(partial(rout_like, elite, tuple(hazards)))
    assert t.total() == 1
    assert sum(n.path_probability for n in t.leaf_nodes()) == 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.booleans(), st.lists(st.integers(0, 2), max_size=4))
def test_replay_reproduces_play(seed, elite, hazards):
    factory = partial(rout_like, elite, tuple(hazards))
    played = play(factory, seed=seed)
    again = replay(factory, [e.to_json() for e in played.events])
    assert again.result == played.result and again.events == played.events


def test_typed_dice_are_validated_and_logged():
    factory = partial(rout_like, True, (1,))
    with pytest.raises(RuleViolation, match=r"rule 9.6.*d6 shows 1..6, got 7"):
        play(factory, dice=TypedDice([7]))
    p = play(factory, dice=TypedDice([5, 6]))
    assert p.result == ("routed", 3)
    assert [(e.kind, e.value) for e in p.events] == [("roll", 5), ("log", None), ("roll", 6)]
    assert p.events[1].detail == {"raw": 5, "modified": 3}
    with pytest.raises(NeedInput):
        play(factory, dice=TypedDice([5]))


def test_stepper_rejects_bad_answer_without_changing_anything():
    s = Stepper(partial(rout_like, False, ()))
    before = (s.pending, list(s.events))
    with pytest.raises(RuleViolation):
        s.answer(0)
    assert (s.pending, s.events) == before
    s.answer(4)
    assert s.done and s.result == ("routed", 4)


def test_replay_names_the_event_that_does_not_fit():
    factory = partial(rout_like, False, (1,))
    events = [{"kind": "roll", "rule": "9.6", "value": 3}, {"kind": "roll", "rule": "9.9.3", "value": 5}]
    with pytest.raises(RecordError, match="event 1"):
        replay(factory, events)
    with pytest.raises(RecordError, match="left over"):
        replay(partial(rout_like, False, ()), [{"kind": "roll", "rule": "9.6", "value": 1},
                                               {"kind": "roll", "rule": "9.6", "value": 1}])


def duel(a: int, b: int, stay_until: int = 0):
    """A memoised multi-round duel: each round one side loses a step; the attacker may stop."""
    if a == 0 or b == 0:
        return (a, b)
    r = yield Roll("d6", rule="R", label="round")
    a, b = (a, b - 1) if r >= 4 else (a - 1, b)
    if a == 0 or b == 0:
        return (a, b)
    if (yield Choose(("stay", "leave"), rule="C", player="attacker", context=(a, b))) == "leave":
        return (a, b)
    return (yield Sub((a, b), partial(duel, a, b), rule="repeat"))


def test_sub_procedures_are_memoised_and_exact():
    # a fair coin per round, always staying: P(attacker wins 1 v 1) = 1/2; 2 v 1 -> 1/2 + 1/2 * 1/2 = 3/4.
    d = distribution(partial(duel, 2, 1))
    assert d.prob(lambda ab: ab[1] == 0) == Fraction(3, 4)
    memo = {}
    distribution(partial(duel, 6, 6), memo=memo)
    assert len(memo) <= 36  # one entry per reachable (a, b)


def test_policy_and_decision_nodes():
    leave = lambda req: "leave"  # noqa: E731
    d = distribution(partial(duel, 3, 3), policy=leave)
    assert d == {(3, 2): Fraction(1, 2), (2, 3): Fraction(1, 2)}
    t = enumerate_tree(partial(duel, 2, 2), keep_decisions=True)
    assert any(n.kind == "choose" for n in t.nodes())
    with pytest.raises(ValueError):
        t.distribution()


def test_draw_without_replacement_is_the_procedures_business():
    def two_cards(pile):
        first = yield Draw(pile, rule="15.0")
        rest = list(pile)
        rest.remove(first)
        second = yield Draw(rest, rule="15.0")
        return tuple(sorted((first, second)))
    d = distribution(partial(two_cards, ("A", "A", "B")))
    # AA: 2/3 * 1/2 = 1/3; AB: 2/3 * 1/2 + 1/3 * 1 = 2/3
    assert d == {("A", "A"): Fraction(1, 3), ("A", "B"): Fraction(2, 3)}


def test_play_agrees_with_enumerate_statistically():
    factory = partial(rout_like, False, (1, 1))
    exact = distribution(factory)
    s = sample(factory, 20_000, seed=7)
    for outcome, p in exact.items():
        lo, hi = s.interval(lambda o, x=outcome: o == x, z=4.0)
        assert lo <= float(p) <= hi, (outcome, float(p), lo, hi)


def banded_hazards(n: int):
    """n hazard rolls; each breaks on 1-3 (9.8.3), declared as bands so enumeration branches twice, not six times."""
    for i in range(n):
        if (yield Roll("d6", rule="9.8.3", label="hazard", bands=((1, 2, 3), (4, 5, 6)))) <= 3:
            return ("broken", i + 1)
    return ("safe", n)


def test_banded_rolls_shrink_trees_not_probabilities():
    # two hazards: broken at the 1st 1/2; at the 2nd 1/2 * 1/2 = 1/4; safe 1/4.
    t = enumerate_tree(partial(banded_hazards, 2))
    assert t.distribution() == {("broken", 1): Fraction(1, 2), ("broken", 2): Fraction(1, 4),
                                ("safe", 2): Fraction(1, 4)}
    assert [c.shown_outcome for c in t.root.children] == ["1-3", "4-6"]
    assert len(t.leaf_nodes()) == 3
    p = play(partial(banded_hazards, 2), dice=TypedDice([5, 2]))
    assert p.result == ("broken", 2) and [e.value for e in p.events] == [5, 2]  # raw faces recorded


def test_tree_json_lists_each_sub_tree_once():
    # duel(2, 2) reaches the sub-state (1, 1) by two routes (win-lose, lose-win): one sub-tree, listed once.
    t = enumerate_tree(partial(duel, 2, 2))
    out = t.to_json()
    keys = [s["tree"] for s in out["subtrees"]]
    assert len(keys) == len(out["subtrees"]) >= 1
    refs = []

    def walk(d):
        if "subtree" in d:
            refs.append(d["subtree"])
        for c in d.get("children", []):
            walk(c)
    walk(out["tree"])
    for s in out["subtrees"]:
        walk(s["tree"])
    assert set(refs) == set(range(len(out["subtrees"])))
    assert out["tree"]["rule"] == "R" and out["tree"]["children"][0]["probability"]["fraction"] == "1/6"
