"""The play page's odds panel while an attack is declared, and the result once it is resolved
(dashboards/play/action_odds.py, game_view.py; issue 15.2).

Outside a server the panel's off-loop runner computes at once, so these tests read the result directly."""
from __future__ import annotations

import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from attack_records import view_at as _view_at, kind_of, record_until, tbf_long_range_artillery_fire  # noqa: E402

from dashboards.play.action_odds import odds_html, percent, result_lines  # noqa: E402
from dashboards.play.view import GamePlayView  # noqa: E402
from dashboards.server.storage import GameStore  # noqa: E402
from engine.core.odds import ActionOdds, OddsLine, action_odds  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


def _fractions(html_text: str) -> list[Fraction]:
    return [Fraction(p) for p in re.findall(r"class='odds-line' data-p='([0-9/]+)'", html_text)]


def test_percent_reads_at_a_glance():
    assert percent(Fraction(3, 5)) == "60.00 %"
    assert percent(Fraction(1, 3)) == "33.33 %"
    assert percent(Fraction(1, 36)) == "2.78 %"          # 100/36 = 2.777...
    assert percent(Fraction(1, 100000)) == "< 0.01 %"     # never shown as 0 when it can happen
    assert percent(Fraction(99999, 100000)) == "> 99.99 %"
    assert percent(Fraction(0)) == "0 %" and percent(Fraction(1)) == "100 %"


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=60))
def test_every_outcome_is_listed_and_the_lines_add_up_to_one(weights):
    total = sum(weights)
    lines = tuple(OddsLine(f"outcome {i}", Fraction(w, total), "6.3") for i, w in enumerate(weights))
    text = odds_html(ActionOdds("fire", "6.3", lines, (), ""))
    shown = _fractions(text)
    rest = re.findall(r"class='odds-rest'><td>\d+ other outcomes</td><td class='pct'>[^<]*</td>"
                      r"<td class='frac'>([0-9/]+)</td>", text)
    assert sum(shown) + sum(Fraction(r) for r in rest) == 1
    assert len(shown) == min(len(weights), 40)


def test_tbf_fire_odds_shown_before_committing_hand_checked(store):
    rec, state, fire, rules = record_until("tbf", tbf_long_range_artillery_fire, bot_seed=2)
    v = _view_at(store, rec)
    v.select(fire)                      # selected, not committed
    text = v.odds.pane.object
    # Hand check (provisional Fire Combat Table, data/tbf/tables.yaml): one artillery unit of FF 4 at
    # 4 hexes fires at half strength, 4 // 2 = 2 (6.3.4 B): column 2, no DRM. On the d10 (6.3.7 D) the
    # column reads "-" for rolls 1-6, R for 7, F for 8 and 9, FR for 10: no effect 6/10 = 3/5, retreat
    # 1/10, fatigued 2/10 = 1/5, fatigued and retreat 1/10 (the last two may be told as one line, 3/10).
    assert "data-state='ready'" in text
    assert "<td>no effect</td><td class='pct'>60.00 %</td><td class='frac'>3/5</td>" in text
    assert sorted(_fractions(text)) in ([Fraction(1, 10), Fraction(1, 10), Fraction(1, 5), Fraction(3, 5)],
                                        [Fraction(1, 10), Fraction(3, 10), Fraction(3, 5)])
    assert v.model.events == list(rec.events)   # nothing committed by looking at the odds


def test_lob_combat_odds_match_the_engine_and_the_result_is_stated(store):
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    v = _view_at(store, rec)
    v.select(attack)
    text = v.odds.pane.object
    want = action_odds(rules, state, attack)
    assert _fractions(text) == [o.probability for o in want.outcomes[:40]]
    assert "(rule 5)" in text and "data-state='ready'" in text
    n = len(v.model.events)
    v._do(v.controls.selected)
    while v.model.pending is not None:          # the players' choices inside the combat (5.1.2 ...)
        v._answer(v.model.pending.request.options[0])
    assert len(v.model.events) == n + 1
    said = v.odds.result.object
    assert "data-state='resolved'" in said and "Resolved: " in said
    # each die in the system's words, with its rule (engine/lob/words.py describe_answer)
    assert "attacker combat roll: the d6 shows" in said and "(5.2.1)" in said


def test_result_lines_say_each_die_choice_and_note():
    ev = {"answers": [{"kind": "choose", "rule": "5.1.2", "label": "defender: retreat before combat?",
                       "value": "fight"},
                      {"kind": "roll", "rule": "5.2.1", "label": "attacker combat roll", "value": 3},
                      {"kind": "log", "rule": "5.2.1", "label": "F-Dulong 3 -> 6, A-KGL 3 -> 9: defender wins"}]}
    assert result_lines(ev) == [("defender: retreat before combat?: fight", "5.1.2"),
                                ("attacker combat roll: rolled 3", "5.2.1"),
                                ("F-Dulong 3 -> 6, A-KGL 3 -> 9: defender wins", "5.2.1")]


def test_non_attacks_show_no_odds(store):
    v = GamePlayView(system="lob", store=store)
    v._start()
    v.select(next(a for a in v.listed().values() if not v.model.rules.is_attack(a)))
    assert "data-state='idle'" in v.odds.pane.object


def test_n20_battle_odds_on_the_same_panel(store):
    rec, state, battle, rules = record_until("n20", lambda r, s, a: r.is_attack(a), limit=3000)
    v = _view_at(store, rec)
    v.select(battle)
    text = v.odds.pane.object
    want = action_odds(rules, state, battle)
    assert "data-state='ready'" in text
    assert _fractions(text) == [o.probability for o in want.outcomes[:40]]
    assert sum(o.probability for o in want.outcomes) == 1


def test_tbf_click_the_firer_then_its_target_selects_the_fire_with_its_odds(store):
    rec, state, fire, rules = record_until("tbf", tbf_long_range_artillery_fire, bot_seed=2)
    v = _view_at(store, rec)
    v.board._picked(state.game.piece(fire.units[0]).hex)
    v.board._picked(fire.target)                  # an attack: selected with its odds, not made
    assert v.selected_action() == fire and len(v.model.events) == len(rec.events)
    assert "3/5" in v.odds.pane.object


def test_a_bc_assault_gets_its_odds_on_the_page():
    """A Battle Commander assault (23.3) ends in about 10,000 distinct positions (the tracked pile
    remembers which cards came out): past the engine's default bound, inside the page's wider one, so
    the panel shows its odds rather than 'No odds'; its lines add up to 1."""
    from engine.core.odds import MAX_OUTCOMES
    from dashboards.play.action_odds import PAGE_MAX_OUTCOMES, compute_odds
    rec, state, assault, rules = record_until(
        "bc", lambda r, s, a: kind_of(r, a) == "attack" and getattr(a, "attack", "") == "assault")
    assert PAGE_MAX_OUTCOMES > MAX_OUTCOMES
    out = compute_odds("bc", rules.state_to_json(state), rules.action_to_json(assault))
    assert "data-state='ready'" in out and "No odds" not in out
