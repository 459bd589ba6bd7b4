"""The end of a turn reached inside a fire or a melee (issue 26): the Initiative roll (3.2 A) and the
Reinforcement Phase's rolls (9.2 B mustering, 9.5.2 Mortier's Alert, 9.6.2 Dupont, 11.4.1 Column IV, 5.3 D
regroup) are inline sub-procedures, so the exact odds weigh their two results once per branch instead of
every face of each die (two d6 for the initiative: 36 branches become 2).

Differential: the same odds with every inline step run in place (the driver then branches over each die face,
as the enumeration did before) give the same fractions, line by line and metric by metric, on positions of
bots' games; and the shared steps make the work smaller where the turn ends inside the action."""
from __future__ import annotations

from typing import Any

import pytest
from inline_in_place import InPlace

from engine.core.errors import LimitError
from engine.core.game import play_game
from engine.core.quick_odds import quick_odds
from engine.systems import system_of

#: bounds for the run without shared steps (the positions past them are left out of the comparison)
STEPS = 60_000


def _attacks() -> list[tuple[Any, Any]]:
    """(position, fire or melee) from greedy games (seeds 1, 2) and random games (seeds 3-6): up to four
    attacks of each kind per game, each in the first position offering one."""
    rules = system_of("tbf")
    out = []
    for bots, seeds in ((("greedy", "greedy"), (1, 2)), (("random", "random"), (3, 4, 5, 6))):
        for seed in seeds:
            states: list[Any] = []
            play_game(rules, bots, seed=seed, record=False, max_actions=600,
                      on_action=lambda s, n: states.append(s))
            per = {"fire": 0, "melee": 0}
            for s in states:
                if rules.to_act(s) is None:
                    continue
                for a in rules.attack_candidates(s):
                    kind = rules.action_to_json(a).get("kind")
                    if kind in per and per[kind] < 4:
                        per[kind] += 1
                        out.append((s, a))
                        break
    return out


def _odds(data: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple((x["label"], x["fraction"]) for x in data["lines"]),
            tuple((x["metric"], x["fraction"]) for x in data["expected"]))


@pytest.fixture(scope="module")
def compared() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    rules = system_of("tbf")
    pairs = []
    for s, a in _attacks():
        try:
            before = quick_odds(InPlace(rules), s, a, cache=None, max_steps=STEPS)
        except LimitError:
            continue
        pairs.append((before, quick_odds(rules, s, a, cache=None)))
    return pairs


def test_shared_rolls_give_the_same_fractions(compared):
    assert len(compared) >= 25                       # 6 games x up to 4 fires and 4 melees, a few past STEPS
    for before, now in compared:
        assert _odds(now) == _odds(before), now["action"]
        assert now["end_positions"] == before["end_positions"]
        assert now["steps"] <= before["steps"]


def test_shared_rolls_cut_the_work_where_the_turn_ends(compared):
    # an attack that ends the turn runs the initiative's two d6 (3.2 A) on each branch: shared, they cost
    # a few steps per branch instead of 36 ways
    cut = [(before["steps"], now["steps"]) for before, now in compared if now["steps"] < before["steps"]]
    assert cut, "no position where the shared rolls made the work smaller"
    assert max(b / n for b, n in cut) > 5
