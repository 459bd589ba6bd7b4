"""The play page says results, odds, optional rules and long lists in a player's words (issue 25 points 1,
3 and 5): the result panel through each system's describe_answer, the odds' figures through metric_title,
the new-game form's optional rules through option_title and only for the scenarios they fit, the list
grouped by the unit each action concerns. The browser side is tests/e2e/test_play_words.py."""
from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

from dashboards.play.action_odds import odds_html, result_lines
from dashboards.play.page_words import option_pairs
from engine.core.game import replay
from engine.core.odds import ActionOdds, OddsLine
from engine.core.record import GameRecord
from engine.systems import system_of

REPO = Path(__file__).resolve().parents[2]
NOT_WORDS = re.compile(r"[{}]|\[\[|\[['\"]|<[\w.]+ object at|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")


def _bussaco_first_battle():
    """The Bussaco greedy seed-1 record's first battle (event 10) and the state it was fought in."""
    rules = system_of("n20")
    rec = json.loads((REPO / "data/records/n20_bussaco_greedy_seed1.json").read_text())
    k = next(i for i, e in enumerate(rec["events"]) if e["action"]["kind"] == "resolve")
    event = rec["events"][k]
    rec["events"] = rec["events"][:k]
    state = replay(rules, GameRecord.loads(json.dumps(rec)))[-1]
    return rules, state, event


def test_n20_result_names_the_crt_result_and_says_choices_in_words():
    rules, state, event = _bussaco_first_battle()
    lines = result_lines(event, rules, state)
    text = [t for t, _ in lines]
    # the record: attack 1 vs defence 3 -> column -2 (9.0 B-C), die 2; the v2 CRT (Bussaco is the older
    # edition) gives AR at column -2 with a 2: "the attacker is routed", rule 9.6.2 (v2 numbering 9.6.1-9.6.8)
    assert "CRT column -2: die 2: AR, the attacker is routed (9.6.2)" in text
    # the retreat and the advance said as hexes, not as their JSON (9.8.2, 9.9.3)
    assert "retreat path of FLTC: retreat by 1208, no hazard (9.8.2)" in text
    assert "advance after combat: advance AIB 1 hex along retreat path 1 (9.9.3)" in text
    assert not [t for t in text if NOT_WORDS.search(t)]
    # a line that cites its rule is not given the rule column again
    assert dict(lines)["CRT column -2: die 2: AR, the attacker is routed (9.6.2)"] == ""


def test_result_lines_without_a_system_say_values_plainly_and_count_repeats():
    event = {"answers": [{"kind": "choose", "rule": "9.8.2", "label": "path", "value": {"hexes": ["1208"]}},
                         {"kind": "log", "rule": "24.1", "label": "attacker block takes 1 hit"},
                         {"kind": "log", "rule": "24.1", "label": "attacker block takes 1 hit"},
                         {"kind": "roll", "rule": "23.4", "label": "result", "value": "muskets_shot"}]}
    assert result_lines(event) == [("path: hexes 1208", "9.8.2"), ("attacker block takes 1 hit (x 2)", "24.1"),
                                   ("result: rolled muskets shot", "23.4")]


def test_odds_expected_changes_by_their_names():
    odds = ActionOdds("fight", "9.0", (OddsLine("both sides hold", Fraction(1), "9.0"),),
                      (("units_map.french", Fraction(-1, 3)), ("morale.allied", Fraction(1, 2))))
    rules = system_of("n20")
    text = odds_html(odds, "fight declared battle no. 1 (9.0)", rules.metric_title)
    assert "French units on the map -0.333 (-1/3)" in text and "Allied Morale +0.500 (1/2)" in text
    assert "units_map" not in text.replace("data-metric='units_map.french'", "")


def test_optional_rules_named_and_offered_for_the_scenarios_they_fit():
    pairs = {k: (rule, title, only) for k, rule, title, only in option_pairs(system_of("n20"))}
    assert pairs["fog_of_war"][1] == "Fog of war: hidden units and dummies (16.1)" and pairs["fog_of_war"][2] is None
    # 17.2 Bessieres: the standard Fuentes scenario only; 17.1 squares: Fuentes (both); 16.9 Portuguese
    # reliability: Bussaco only (the engine refuses each elsewhere)
    assert pairs["bessieres"][2] == ("fuentes",)
    assert pairs["squares"][2] == ("fuentes", "fuentes-5may")
    assert pairs["portuguese_reliability"][2] == ("bussaco",)
    for system in ("tbf", "lob", "bc"):
        for k, _, title, _ in option_pairs(system_of(system)):
            assert re.search(r"[A-Za-z]{3}", title) and not NOT_WORDS.search(title), (system, k, title)
