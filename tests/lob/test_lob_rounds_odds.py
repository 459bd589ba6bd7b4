"""The combat rounds' exact odds worked out round by round (engine/lob/rounds.py ``Stepwise``, issue 26
Speed): the same distributions, fraction for fraction and in the same order, as the nested sub-procedures
the rounds were enumerated by before, and the same play records.

The reference side runs every :class:`~engine.lob.rounds.Stepwise` request as the plain sub-procedure it
stands for (:func:`as_before`: its key, its procedure :func:`~engine.lob.rounds.rounds` or the combat dice
with their note, its flags), which is how the rounds (5.2 - 5.2.5) and the combat dice (5.2.1) were
enumerated before: each round's roll, then its decisions and the rest of the fight, every end of the rest
carried back through each round. The new side goes round by round over the fights reached, and takes the
dice keyed by the leads' kinds and modifiers only. Both must give the same end positions with the same
fractions, listed in the same order (the odds bot adds floats in that order).

Positions: a few late, crowded attacks of greedy-bot games (the slow ones of issue 26's benchmark of whole
games, tests/bench/test_odds_spread_bench.py), the combat procedure alone under every combat policy (so that
retreats, 5.2.2 - 5.2.3, and replacements, 5.2.4, happen), and random small fights (hypothesis)."""
from __future__ import annotations

from collections.abc import Callable, Generator
from functools import partial
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.dist import Dist
from engine.core.odds import MAX_OUTCOMES, MAX_STEPS, enumerate_action, summarise
from engine.core.procedure import RandomDice, Stepper, Sub, distribution, enumerate_tree, first_option
from engine.core.quick_odds import odds_data
from engine.lob import rounds as lob_rounds
from engine.lob.combat import combat
from engine.lob.fight import NextRound
from engine.lob.policies import CombatPolicy
from engine.lob.rounds import Stepwise
from tests.dashboards.attack_records import kind_of, record_until

from lob_helpers import BORDERS, combat_of, unit

# ------------------------------------------------------------------------------------------------
# The reference: every Stepwise request run as the plain sub-procedure it stands for
# ------------------------------------------------------------------------------------------------
def as_before(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Relay ``gen``'s requests, each :class:`Stepwise` as a plain :class:`Sub` (its key, procedure, rule,
    label and depth), at any depth: the enumeration the combat had before the rounds went round by round."""
    try:
        req = next(gen)
        while True:
            if isinstance(req, Stepwise):
                req = Sub(req.key, partial(_proc_as_before, req.proc), req.rule, req.label, inline=req.inline)
            elif isinstance(req, Sub):
                req = req.wrapped(_wrap_as_before)
            req = gen.send((yield req))
    except StopIteration as stop:
        return stop.value


def _wrap_as_before(proc: Callable[[], Generator[Any, Any, Any]]) -> Callable[[], Generator[Any, Any, Any]]:
    return partial(_proc_as_before, proc)


def _proc_as_before(proc: Callable[[], Generator[Any, Any, Any]]) -> Generator[Any, Any, Any]:
    return as_before(proc())


class AsBefore:
    """The LoB rules with every Stepwise request run as before (:func:`as_before`); the rest is theirs."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def perform(self, state: Any, action: Any) -> Generator[Any, Any, Any]:
        return as_before(self._rules.perform(state, action))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)


def combat_odds(ctx, att, dfn, policy, memo=None, before=False):
    """The combat's distribution, its end positions listed in the order the driver reached them."""
    proc = partial(combat, ctx, att, dfn)
    if before:
        proc = partial(_proc_as_before, proc)
    return list(distribution(proc, policy=policy, memo=memo).items())


def action_leaves(rules, state, action):
    """The action's end positions with their fractions, in the order the driver reached them (what the
    odds bot adds its floats in), and the steps it took."""
    tree, budget = enumerate_action(rules, state, action, first_option, MAX_STEPS, MAX_OUTCOMES)
    return list(tree.leaves.items()), budget.used


def odds_shown(rules, state, action, leaves) -> dict:
    """What the page prints of an action's end positions (engine/core/quick_odds.py ``odds_data``)."""
    dist = Dist(dict(leaves))
    data = odds_data(rules, state, action, summarise(rules, state, action, dist, "by the first listed option"),
                     end_positions=len(dist))
    return {k: data[k] for k in ("lines", "expected", "end_positions")}


# ------------------------------------------------------------------------------------------------
# Late, crowded attacks of greedy-bot games
# ------------------------------------------------------------------------------------------------
def _attack(units: int, target: str | None = None, side: str = ""):
    def wanted(rules, state, action) -> bool:
        return (kind_of(rules, action) == "attack" and len(action.units) >= units
                and target in (None, action.target) and action.units[0].startswith(side))
    return wanted


#: (what, wanted, bot seed): the first such attack the greedy bots offer (game seed 1;
#: tests/dashboards/attack_records.py), with the enumeration steps before -> now
POSITIONS = [
    # 74 actions in: 3 Allied battalions on Albuera, held by 12 French units (108,941 -> 6,143 steps)
    ("three Allied battalions on Albuera", _attack(3, "Albuera", "A-"), 1),
    # 29 actions in: 11 French units, cavalry among them, on Albuera (31,786 -> 2,910 steps)
    ("eleven French units on Albuera", _attack(3, "Albuera"), 1),
    # 22 actions in: 3 Spanish battalions on area 16 (40,454 -> 3,706 steps)
    ("three Spanish battalions on 16", _attack(3), 3),
]


@pytest.fixture(scope="module", params=POSITIONS, ids=[p[0] for p in POSITIONS])
def position(request):
    _, wanted, bot_seed = request.param
    _, state, action, rules = record_until("lob", wanted, seed=1, bot_seed=bot_seed, bot="greedy")
    return rules, state, action


def test_an_attack_has_the_same_odds_as_before_in_fewer_steps(position):
    rules, state, action = position
    new, steps = action_leaves(rules, state, action)
    old, old_steps = action_leaves(AsBefore(rules), state, action)
    assert new == old                                   # the same positions, fractions and order
    assert sum(p for _, p in new) == 1 and len(new) > 1
    assert steps * 5 < old_steps                        # (the point of it)
    # what the page prints of them: every line, expected change and the number of end positions
    assert odds_shown(rules, state, action, new) == odds_shown(rules, state, action, old)


# ------------------------------------------------------------------------------------------------
# The combat alone, under each combat policy (retreats 5.2.2 - 5.2.3, replacement 5.2.4)
# ------------------------------------------------------------------------------------------------
POLICIES = ["stay", "until:1", "until:0", "spent:1", "spent:2", "outnumbered", "rbc"]

# heavy cavalry and infantry into a defended open area with an approach (15 from 23); light cavalry and
# infantry on a town over the bridge (Albuera from 17): cavalry against cavalry takes the difference (5.2.1)
COMBATS = {
    "open, cavalry and infantry": combat_of(
        "15", "23",
        [{"uid": "C", "kind": "cav", "cav": "heavy", "rating": 3}, {"uid": "I", "kind": "inf", "rating": 3},
         {"uid": "J", "kind": "inf", "rating": 2}],
        [{"uid": "D", "kind": "inf", "rating": 3, "approach": "23"}, {"uid": "E", "kind": "inf", "rating": 2},
         {"uid": "L", "kind": "cav", "cav": "light", "rating": 2}]),
    "town over the bridge": combat_of(
        "Albuera", "17",
        [{"uid": "H", "kind": "inf", "rating": 3}, {"uid": "K", "kind": "inf", "rating": 3, "hits": 1},
         {"uid": "M", "kind": "cav", "cav": "lancer", "rating": 2}],
        [{"uid": "T", "kind": "inf", "rating": 3}, {"uid": "U", "kind": "inf", "rating": 2},
         {"uid": "G", "kind": "art", "deployed": False}]),
}


@pytest.mark.parametrize("where", list(COMBATS))
@pytest.mark.parametrize("att_policy,dfn_policy", [(p, q) for p in POLICIES[:4] for q in POLICIES[:4]]
                         + [("stay", "outnumbered"), ("outnumbered", "rbc"), ("spent:2", "spent:1")])
def test_a_combat_has_the_same_distribution_in_the_same_order_as_before(where, att_policy, dfn_policy):
    ctx, att, dfn = COMBATS[where]
    pol = CombatPolicy(att_policy, dfn_policy)
    assert combat_odds(ctx, att, dfn, pol) == combat_odds(ctx, att, dfn, pol, before=True)


@pytest.mark.parametrize("where", list(COMBATS))
def test_a_combat_tree_is_drawn_as_before(where):
    # a built tree runs the rounds as play does (rounds(), each round one level deeper): the same nodes,
    # the same notes, the same sub-procedure trees
    ctx, att, dfn = COMBATS[where]
    pol = CombatPolicy("until:1", "until:1")
    proc = partial(combat, ctx, att, dfn)
    new = enumerate_tree(proc, policy=pol).to_json(result=str)
    assert new == enumerate_tree(partial(_proc_as_before, proc), policy=pol).to_json(result=str)


# ------------------------------------------------------------------------------------------------
# Random small fights (hypothesis)
# ------------------------------------------------------------------------------------------------
@st.composite
def fights(draw):
    target, origin = draw(st.sampled_from(BORDERS))
    att = [draw(unit(f"A{i}", True, target, 3, ("inf", "inf", "cav", "art"))) for i in range(draw(st.integers(1, 3)))]
    dfn = [draw(unit(f"D{i}", False, target, 3, ("inf", "inf", "cav", "art"))) for i in range(draw(st.integers(1, 3)))]
    if target in ("15", "23") and dfn[0]["kind"] == "inf" and draw(st.booleans()):
        dfn[0]["approach"] = origin
    extra = {"charge": True} if draw(st.integers(0, 4)) == 0 else {}
    pol = CombatPolicy(draw(st.sampled_from(POLICIES)), draw(st.sampled_from(POLICIES)))
    return combat_of(target, origin, att, dfn, **extra), pol


@settings(max_examples=60, deadline=None)
@given(fights())
def test_random_fights_have_the_same_distribution_in_the_same_order_as_before(case):
    (ctx, att, dfn), pol = case
    assert combat_odds(ctx, att, dfn, pol) == combat_odds(ctx, att, dfn, pol, before=True)


@settings(max_examples=30, deadline=None)
@given(fights(), st.integers(0, 10 ** 6))
def test_play_records_the_same_events_as_before(case, seed):
    # play runs the rounds as rules.rounds nests them: the same dice, answers and notes at the same depths
    (ctx, att, dfn), pol = case
    proc = partial(combat, ctx, att, dfn)
    new = Stepper(proc).run(RandomDice(seed), pol)
    old = Stepper(partial(_proc_as_before, proc)).run(RandomDice(seed), pol)
    assert new == old
    assert [e.to_json() for e in new.events] == [e.to_json() for e in old.events]


# ------------------------------------------------------------------------------------------------
# A short key is caught
# ------------------------------------------------------------------------------------------------
def test_a_round_keyed_without_the_units_gone_is_caught(monkeypatch):
    # a round from a fight whose units that left it (5.2.2 - 5.2.3 retreats, 1.2 eliminations) are left
    # out of the key: ways that reach the same fight with other units gone are taken for one another
    def short(self, i, value):
        seen = value.fight if isinstance(value, NextRound) else value
        return Sub(("stepwise", self.name, seen), partial(self.steps[i], value), self.rule, self.label,
                   inline=True, own_choices=True)
    ctx, att, dfn = COMBATS["open, cavalry and infantry"]
    pol = CombatPolicy("until:1", "until:1")
    before = combat_odds(ctx, att, dfn, pol, before=True)
    assert combat_odds(ctx, att, dfn, pol) == before
    monkeypatch.setattr(Stepwise, "step", short)
    assert combat_odds(ctx, att, dfn, pol) != before


def test_dice_keyed_without_the_leads_kinds_are_caught(monkeypatch):
    # 5.2.1: cavalry against cavalry, against infantry and infantry against infantry take other hits from
    # the same totals; dice shared by modifiers alone (the bot's memo is shared between fights) go wrong
    made = lob_rounds.Stepwise.__init__

    def short(self, key, proc, rule, label, name, start, step, times=1, inline=False):
        if name[0] == "lob dice":
            name = ("lob dice",) + name[3:]
        made(self, key, proc, rule, label, name, start, step, times, inline)
    ctx, att, dfn = COMBATS["open, cavalry and infantry"]
    pol = CombatPolicy("stay", "stay")
    before = combat_odds(ctx, att, dfn, pol, before=True)
    lob_rounds.clear_roll_cache()
    monkeypatch.setattr(Stepwise, "__init__", short)
    assert combat_odds(ctx, att, dfn, pol) != before
    lob_rounds.clear_roll_cache()
