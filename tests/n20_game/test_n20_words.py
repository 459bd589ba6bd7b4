"""Napoleonic 20 in a player's words (issue 25, point 1; engine/n20/game/words.py): CRT results named with
their rule, retreat and advance choices as hex lists with their hazards in words, event cards by title and
effect, names for every option and figure, the same piece name on the counter and in the lists, and
nowhere JSON, a Python repr or an identifier with an underscore (random games, every legal action, every
answer of the record, every option of every choice)."""
from __future__ import annotations

import random
import re

from hypothesis import given, settings, strategies as st

from engine.core.game import EventDice
from engine.core.procedure import Choose, Draw
from engine.n20 import game as g
from engine.n20.advance import AdvancePlan
from engine.n20.game.words import card_words, result_words
from engine.n20.retreat import RetreatOption

R = g.RULES
#: what a player's words never hold: braces or brackets, an identifier with an underscore, a Python
#: constant, a call's parenthesis right after a word, a quoted identifier, a fraction's repr
NOT_WORDS = re.compile(r"[{}\[\]<>]|[A-Za-z0-9]_[A-Za-z0-9]|\b(?:None|True|False)\b|\w\(|'\w+'|Fraction")
RESULT = re.compile(r"\b(?:AB|AR|AW|DB|DR|DW|EX|N), [a-z].* \((?:9\.6 \[[A-H]\]|9\.6\.[1-8]|16\.3\.2)\)")


RULE_LETTER = re.compile(r"9\.6 \[[A-H]\]")       # the v3.0 rules number the CRT results 9.6 [A] to [H]


def _words_ok(text: str) -> bool:
    return isinstance(text, str) and text.strip() != "" and NOT_WORDS.search(RULE_LETTER.sub("", text)) is None


def test_crt_results_are_named_with_their_rule_per_edition():
    # 000 9.6 [E] Defender Routed; the older edition numbers the same result 9.6.5 (001)
    assert result_words("v3", "DR") == "DR, the defender is routed (9.6 [E])"
    assert result_words("v2", "DR") == "DR, the defender is routed (9.6.5)"
    assert result_words("v3", "EX->N").startswith("EX, which bombardment alone makes N, engaged")
    # the CRT die of a game names the result the tables give: Fuentes (v3 tables), column +2, die 4
    s = R.new_game("fuentes", seed=1)
    code = s.scenario.tables.crt_result(2, 4)
    words = R.describe_answer(s, {"kind": "roll", "rule": "9.0 F", "label": "CRT column +2", "value": 4})
    assert words == f"CRT column +2: die 4: {result_words('v3', code)}"


def test_retreat_and_advance_choices_are_hex_lists_with_their_hazards_in_words():
    s = R.new_game("fuentes", seed=1)
    path = RetreatOption(("1110", "1111"), ((), ("9.8.4",)))
    req = Choose((path,), rule="9.8.2", label="retreat path of A5")
    assert R.describe_option(s, req, path) == "retreat by 1110, 1111, rolling for a river at 1111 (9.8.4)"
    # the same option as a record keeps it (its JSON), and one that ends at the LOC (9.8.7)
    assert R.describe_answer(s, {"kind": "choose", "rule": "9.8.2", "label": "retreat path of A5",
                                 "value": path.to_json()}) == \
        "retreat path of A5: retreat by 1110, 1111, rolling for a river at 1111 (9.8.4) (9.8.2)"
    loc = RetreatOption(("0101",), ((),), "loc")
    assert R.describe_option(s, req, loc) == "retreat by 0101, no hazard; it reaches its LOC early and breaks (9.8.7)"
    plan = AdvancePlan(0, (("FFER", 2),))
    assert R.describe_option(s, Choose((plan,), rule="9.9.3", label="advance"), plan) == \
        "advance FFER 2 hexes along retreat path 1"
    assert R.describe_option(s, Choose((False, True), rule="12.5", label="r"), True) == \
        "commit reserves: +1 for one Morale Point"


def test_event_cards_by_title_and_effect():
    # data/n20/fuentes/events.yaml F03: the French lose a Morale Point; the allies' forced march is free
    s = R.new_game("fuentes", seed=1)
    words = "event card F03, “Ill will among the generals”: French -1 Morale; allied a forced march costs no " \
            "Morale Point this turn"
    assert card_words(s, "F03") == words
    assert R.describe_answer(s, {"kind": "draw", "rule": "5.0", "label": "random event card", "value": "F03"}) == \
        words + " (5.0)"
    assert R.describe_option(s, Draw(("F03",), rule="5.0", label="random event card"), "F03") == words


def test_options_and_figures_have_players_names_and_bussaco_is_offered_its_own():
    assert R.option_title("fog_of_war") == "Fog of war: hidden units and dummies (16.1)"
    assert R.option_title("portuguese_reliability") == "Portuguese reliability (16.9, Bussaco)"
    assert all(_words_ok(R.option_title(o)) for o in R.options())
    s = R.new_game("fuentes", seed=1)
    assert R.metric_title("units_map.french") == "French units on the map"
    assert R.metric_title("morale.allied") == "Allied Morale"
    assert all(_words_ok(R.metric_title(k)) for k in R.metrics(s))
    # Bussaco (the older edition) has no squares, Bessières, leaders or fatigue; Fuentes no 16.9 of Bussaco
    assert set(R.scenario_options("bussaco")) == {"fog_of_war", "penetration", "artillery_support", "rally_hexes",
                                                  "unit_reduction", "breakdown", "special_units",
                                                  "portuguese_reliability"}
    assert "portuguese_reliability" not in R.scenario_options("fuentes")
    for sid in ("fuentes", "bussaco"):
        for name in R.options():
            offered = name in R.scenario_options(sid)
            try:
                R.new_game(sid, (name,))
                accepted = True
            except g.RuleViolation:
                accepted = False
            assert offered == accepted, (sid, name)


def test_the_counter_and_the_list_use_one_name():
    s = R.new_game("fuentes", ("fog_of_war",), seed=1)
    a = g.Action("move", unit="FFER", path=("0713", "0712"))
    assert R.piece_name(s, "FFER") in R.describe_action(a)
    v = R.view(s, "french")
    token = next(u.id for u in v.units if v.scenario.units[u.id].type == "hidden")
    seen = R.visible_action(s, g.Action("declare", battles=(g.Battle(("FFER",), (next(
        x for x, t in g.view.hidden_tokens(s, "french").items() if t == token),)),)), "french")
    assert R.piece_name(v, token) == token and token in R.describe_action(seen)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10 ** 6), scenario=st.sampled_from(["fuentes", "bussaco"]), fog=st.booleans())
def test_random_games_speak_a_players_words(seed, scenario, fog):
    opts = ("fog_of_war", "special_units", "unit_reduction", "rally_hexes") if fog else ()
    if scenario == "fuentes" and fog:
        opts += ("leaders", "squares", "fatigue")
    s = R.new_game(scenario, opts, seed=seed)
    rng = random.Random(seed)
    bot = R.bots()["random"](seed=seed)
    checked = {"actions": 0, "answers": 0, "options": 0}

    def chooser(req):
        for o in req.options:
            assert _words_ok(R.describe_option(s, req, o)), (req.rule, o, R.describe_option(s, req, o))
            checked["options"] += 1
        return rng.choice(req.options)

    for i in range(120):
        if R.to_act(s) is None:
            break
        legal = R.legal_actions(s)
        for a in legal:
            text = R.describe_action(a)
            assert _words_ok(text), text
            checked["actions"] += 1
        for side in ("french", "allied"):
            for a in legal[:5]:
                assert _words_ok(R.describe_action(R.visible_action(s, a, side)))
        p = R.begin(s, bot.choose_action(R, s, legal)).run(EventDice(seed, i), chooser)
        event = p.event()
        for ans in event["answers"]:
            text = R.describe_answer(s, ans)
            assert _words_ok(text), (ans, text)
            if ans["kind"] == "roll" and ans["rule"] == "9.0 F":
                assert RESULT.search(text), text                     # the result, named with its rule
            if ans["kind"] == "draw" and ans["rule"] == "5.0":
                assert "“" in text and "”" in text, text             # the card's title
            if ans["kind"] == "choose" and ans["rule"] == "9.8.2":
                assert "retreat by" in text or "stay in place" in text, text
            checked["answers"] += 1
        for ans in R.visible_event(s, event, "french").get("answers", []):
            assert _words_ok(R.describe_answer(s, ans))
        s = p.state
    for u in s.units:
        assert _words_ok(R.piece_name(s, u.id))
    assert checked["actions"] > 50
