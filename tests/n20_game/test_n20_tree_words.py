"""Napoleonic 20: what a battle's sub-procedures came to, in a player's words (issue 25 point 1): the
answers of the probability tree the play page draws under a battle's odds ("show the tree";
engine/core/quick_odds.py ``action_tree``) via :meth:`N20Rules.describe_result`
(engine/n20/game/words.py). Before, they were dumps of the results' fields, e.g. "unit FLTC; fate routed;
hexes 3; end hex 1012; rout distance 3; marker yes; beyond ma no; ..." and "AR, no".

Each expected text is worked out by hand from the value given and the rule it cites."""
from __future__ import annotations


import pytest

from engine.core.procedure import Choose, Sub
from engine.core.quick_odds import RESULT_CHARS
from tests.dashboards.attack_records import tree_answers as _tree_answers
from engine.n20 import game as g
from engine.n20.advance import AdvancePlan, AdvanceResult
from engine.n20.battle import CrtResult
from engine.n20.retreat import RetreatResult

R = g.RULES
FUENTES = R.new_game("fuentes", seed=1)      # the v3.0 rules (000): CRT results 9.6 [A]-[H]
BUSSACO = R.new_game("bussaco", seed=1)      # the older edition (001): 9.6.1-9.6.8


def _sub(kind: str, rule: str, label: str = "") -> Sub:
    return Sub((kind, "a battle"), lambda: iter(()), rule=rule, label=label)


STEPS = _sub("steps B-F", "9.0", "strengths, differential and the CRT")
RETREAT = _sub("retreat", "9.8", "rout of FLTC")
ADVANCE = _sub("advance", "9.9", "advance after combat")


def test_the_crt_step_names_its_result_with_the_rule_of_the_edition():
    # 000 9.6 [B]: AR, the attacker is routed; the older edition numbers Defender Routed 9.6.5 (001)
    assert R.describe_result(FUENTES, STEPS, CrtResult("AR")) == "AR, the attacker is routed (9.6 [B])"
    assert R.describe_result(BUSSACO, STEPS, CrtResult("DR")) == "DR, the defender is routed (9.6.5)"
    # a 6 on a British reliability check (16.9.2) rides along with the code
    assert R.describe_result(FUENTES, STEPS, CrtResult("EX", True)) == (
        "EX, an exchange: the defender breaks, the attacker loses as much strength (9.6 [G]); "
        "British reliability lapsed (16.9.2)")


@pytest.mark.parametrize("result,words", [
    # routed 3 hexes, 1311 -> 1210 -> 1112 -> 1012, within FLTC's movement allowance of 3 (9.6 [B], 9.8)
    (RetreatResult("FLTC", "routed", 3, "1012", 3, True, False, True, ("1311", "1210", "1112"), 3, "9.8"),
     "FLTC routs 3 hexes to 1012 (9.8)"),
    # 4 hexes is beyond the movement allowance of 3: the Morale Chart's "rout beyond movement" entry
    (RetreatResult("FLTC", "routed", 4, "0912", 4, True, True, True, (), 4, "9.8"),
     "FLTC routs 4 hexes to 0912, beyond its movement allowance (9.8)"),
    (RetreatResult("A5", "withdrew", 1, "1409", None, False, False, False, ("1410",), 1, "9.8"),
     "A5 withdraws 1 hex to 1409 (9.8)"),
    # broken by the CRT itself (AB, DB, EX: 9.6), no hex entered
    (RetreatResult("FLTC", "broken", 0, None, advance_path=("1311",), advance_room=1, rule="9.6"),
     "FLTC breaks (9.6)"),
    # a river die of 1-3 breaks the unit in the hex before the crossing (9.8.4): 3 hexes done, at 0109
    (RetreatResult("ASAN", "broken", 3, "0109", None, False, True, True, (), 4, "9.8.4"),
     "ASAN breaks before a river crossing at 0109 after 3 hexes (9.8.4)"),
    (RetreatResult("ASAN", "broken", 1, "0310", None, False, False, True, (), 2, "9.8.3"),
     "ASAN breaks in an enemy ZOC at 0310 after 1 hex (9.8.3)"),
    (RetreatResult("ASAN", "broken", 2, "0209", None, False, False, True, (), 3, "9.8.7"),
     "ASAN reaches its LOC and breaks at 0209 after 2 hexes (9.8.7)"),
    (RetreatResult("FX", "destroyed", 1, "0510", None, False, False, True, (), 2, "16.7.6"),
     "FX leaves the road and is destroyed at 0510 after 1 hex (16.7.6)"),
    # a garrison never retreats (9.4.4), named as its counter is
    (RetreatResult("garrison:1902", "held", advance_path=("1902",), advance_room=1, rule="9.4.4"),
     "the garrison of 1902 stays where it is (9.4.4)"),
    (RetreatResult("A5", "routed", 0, "1410", 0, False, False, True, (), 0, "9.8.1"),
     "A5 is routed but stays in its fortified hex (9.8.1)"),
])
def test_a_retreat_says_how_far_the_unit_went_or_why_it_broke(result, words):
    assert R.describe_result(FUENTES, RETREAT, result) == words


@pytest.mark.parametrize("result,words", [
    (AdvanceResult(None, (("A5", 1, "1311"),)), "A5 advances 1 hex to 1311 (9.9)"),
    (AdvanceResult(None), "no advance (9.9)"),
    # the Controlled Advance roll (9.9.3): kept, nobody has to go; lost, a cavalry unit must
    (AdvanceResult("kept"), "control kept: no advance (9.9.3)"),
    (AdvanceResult("lost", (("FLTC", 2, "1409"), ("F1", 1, "1410"))),
     "control lost: FLTC advances 2 hexes to 1409 and F1 1 hex to 1410 (9.9.3)"),
    # a reluctant unit that lost control hangs back (16.7.4); a garrison overrun by the advance (9.4.4)
    (AdvanceResult("lost", (("FLTC", 1, "1902"),), ("FDRA",), "1902"),
     "control lost: FLTC advances 1 hex to 1902 (9.9.3); FDRA hangs back (16.7.4); "
     "the garrison of 1902 is destroyed (9.4.4)"),
])
def test_an_advance_says_who_went_where(result, words):
    assert R.describe_result(FUENTES, ADVANCE, result) == words


def test_a_choice_in_a_tree_is_said_as_its_option():
    plan = AdvancePlan(0, (("FFER", 2),))
    req = Choose((plan,), rule="9.9.3", label="advance")
    assert R.describe_result(FUENTES, req, plan) == "advance FFER 2 hexes along retreat path 1"


def test_the_play_pages_battle_tree_answers_in_words():
    # the play page's odds benchmark battle (tests/bench/test_play_odds_bench.py): FLTC (cavalry, movement
    # 3) attacks A5 at CRT column -2; the die's AR routs it d6 hexes from 1311, three hexes to 1012
    answers = _tree_answers("n20 battle")
    assert "AR, the attacker is routed (9.6 [B])" in answers
    assert "FLTC routs 3 hexes to 1012 (9.8)" in answers
    assert "FLTC routs 4 hexes to 0912, beyond its movement allowance (9.8)" in answers
    assert "A5 advances 1 hex to 1311 (9.9)" in answers
    assert all(len(a) < RESULT_CHARS and "end hex" not in a for a in answers)
