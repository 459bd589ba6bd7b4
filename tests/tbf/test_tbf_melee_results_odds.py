"""A melee's results as steps in the exact odds (issue 26, Speed): once the Melee Combat Table has given its
outcome, its effect on the units (the routs and surrenders before the roll, 6.4 D and F; the result to the
defenders, then to the attackers, 6.4 H) is a chain of steps keyed without the leaders' fates, so the
outcomes that differ only in those share it, each step worked out once for each position the step before
leaves; the result applied to a hex is a step keyed by what it reads; a killed or captured leader's units
check one step each (6.5 B, C).

And an action's odds are given up as soon as they pass the end-position bound (its own results, or the
positions a chain carries from one step to the next), not after working out every end position. The greedy
bots' cossack melee on 1317 (Column I cossacks 1; bot seed 1, game seed 1, 511 actions in) has three
leaders in the hex: its own step leaves 3,970 positions, and the 2d6 turns out of each wounded leader (6.5 A)
split them past 4,000. It was refused after 400,000 enumeration steps (10-28 s); now after about 60,000
(about 2 s), for what it is.

Differential: the same melees with the new steps run in place (:mod:`inline_in_place`: the enumeration as it
was) give the same end positions with the same exact probabilities, hence the same odds; in play, the same
record from the same dice. On the greedy games' melees in which a leader is killed."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest
from inline_in_place import InPlace

from engine.core.game import Session
from engine.core.odds import OddsLimitError, action_odds, enumerate_action
from engine.core.procedure import RandomDice, Stepper, Sub, first_option
from engine.core.quick_odds import quick_odds
from engine.systems import system_of

R = system_of("tbf")
#: the keys of the steps this change made: the melee's results, a hex's result, a leader's units' checks
NEW_STEPS = ("tbf-melee-results", "tbf-leader-loss", "tbf-melee-effect")


def _new_step(req: Sub) -> bool:
    key = req.key
    name = key[1] if key[0] in ("chain", "chain step") else key
    return isinstance(name, tuple) and name[0] in NEW_STEPS


#: the rules with the melee's result steps run in place: the enumeration as it was before them
WRITTEN_OUT = InPlace(R, _new_step)


@lru_cache(maxsize=None)
def _greedy_melee(game_seed: int, actions: int) -> tuple[Any, Any]:
    """The greedy bots' game (bot seed 1) after ``actions`` actions, and its first melee there."""
    bot = R.bots()["greedy"](seed=1)
    sess = Session.new(R, None, (), game_seed)
    for _ in range(actions):
        legal = sess.legal_actions()
        sess.act(bot.choose_action(R, sess.state, legal), chooser=lambda req: bot.choose(req, sess.state))
    melee = next(a for a in sess.legal_actions() if R.action_to_json(a).get("kind") == "melee")
    return sess.state, melee


def _ends(rules: Any, s: Any, a: Any) -> tuple[dict[Any, Any], int]:
    tree, budget = enumerate_action(rules, s, a, first_option, 400_000, 100_000)
    return dict(tree.distribution().items()), budget.used


def _odds(data: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple((x["label"], x["fraction"]) for x in data["lines"]),
            tuple((x["metric"], x["fraction"]) for x in data["expected"]), data["end_positions"], data.get("until"))


#: (game seed, actions played, the melee): a leader may be killed in each (the greedy games' first melees)
LEADER_MELEES = [(2, 209, "Coalition: BUT 1 bn attacks 0815 in melee (6.4)"),
                 (2, 259, "Coalition: BRY 2 bn attacks 0714 in melee (6.4)")]


@pytest.mark.parametrize("game_seed,actions,said", LEADER_MELEES)
def test_melees_with_leaders_lost_have_the_same_end_positions_and_odds(game_seed, actions, said):
    s, a = _greedy_melee(game_seed, actions)
    assert R.describe_action(a) == said
    before, before_steps = _ends(WRITTEN_OUT, s, a)
    now, now_steps = _ends(R, s, a)
    assert now == before                                     # every end position, the same exact fraction
    assert now_steps < before_steps
    assert _odds(quick_odds(R, s, a, cache=None)) == _odds(quick_odds(WRITTEN_OUT, s, a, cache=None))
    labels = [x["label"] for x in quick_odds(R, s, a, cache=None)["lines"]]
    assert any("leader killed" in x for x in labels)


@pytest.mark.parametrize("game_seed,actions,said", LEADER_MELEES)
def test_play_records_the_same_from_the_same_dice(game_seed, actions, said):
    s, a = _greedy_melee(game_seed, actions)
    for seed in range(12):
        now = Stepper(lambda: R.perform(s, a)).run(RandomDice(seed), first_option)
        before = Stepper(lambda: WRITTEN_OUT.perform(s, a)).run(RandomDice(seed), first_option)
        assert now.events == before.events and now.result == before.result


def test_odds_past_the_end_positions_bound_are_given_up_as_soon_as_they_pass_it():
    s, a = _greedy_melee(1, 511)
    assert R.describe_action(a) == "Coalition: Column I cossacks 1 attacks 1317 in melee (6.4)"
    with pytest.raises(OddsLimitError) as e:
        action_odds(R, s, a)
    assert str(e.value) == ("odds of coalition: melee ci-cav1 at 1317: end positions: at most 4000: more than 4,000 "
                            "positions reached on the way to the end, worked out no further")
    # the melee's 3,970 positions, and the turns out of the leaders wounded (6.5 A) of the first few of them:
    # 60,462 steps when made; all 3,970 positions' turns out took more than the 400,000 steps of the bound
    assert e.value.steps < 100_000
