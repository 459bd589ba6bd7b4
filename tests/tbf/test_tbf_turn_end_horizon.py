"""The odds of a fight whose turn end is too big to work out with it stop before the end of the turn
(3.3 B), and say so (issue 26, Speed).

The greedy bots' melee of 2/100th Ligne on 1915 (bot seed 1, the busy-line test's old example) ends the
turn: every fatigued or routed unit then rolls for recovery (7.0), so each of the 39 positions the melee
can leave the end of the turn from splits into 2,048 to 8,192 (2**11 to 2**13 recovery rolls), 52,151 end
positions in all (past the 4,000 bound; it was refused after 400,000 enumeration steps, 13-28 s). Now the
odds are those of the melee and what the action brings up to the end of the Activation Phase.

Differential: those odds are the odds of the same rules with the three parts of the end of the turn (7.0
with 4.1.10 B, 3.1, 3.2) made to change nothing, worked out by the plain enumeration (no horizon); the
tree stops at the same place; a melee whose whole fits is unchanged (test_tbf_turn_end_odds.py)."""
from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import pytest
from tests.dashboards.attack_records import kind_of, record_until

from engine.cli import main
from engine.core.odds import MAX_OUTCOMES, MAX_STEPS, action_odds, enumerate_odds, summarise
from engine.core.procedure import distribution, first_option
from engine.core.quick_odds import action_tree, quick_odds
from engine.systems import system_of
from engine.tbf.game import phases


def _big_melee(r: Any, s: Any, a: Any) -> bool:
    return kind_of(r, a) == "melee" and a.target == "1915" and "100-2" in a.units


@pytest.fixture(scope="module")
def big() -> tuple[Any, Any, Any]:
    rec, state, melee, rules = record_until("tbf", _big_melee, bot_seed=1, bot="greedy")
    return rules, state, melee, rec


def _nothing(ctx: Any, s: Any) -> Generator[Any, Any, Any]:
    return s
    yield  # a generator that changes nothing


def _without_the_turn_end(monkeypatch: pytest.MonkeyPatch, rules: Any, state: Any, melee: Any) -> Any:
    """The melee's odds by the rules with the end of the turn's three parts doing nothing, enumerated whole."""
    for part in ("_recovery_part", "_reinforcement_part", "_initiative_part"):
        monkeypatch.setattr(phases, part, _nothing)
    dist = distribution(lambda: rules.perform(state, melee))
    monkeypatch.undo()
    return summarise(rules, state, melee, dist, "")


def _lines(odds: Any) -> tuple[Any, ...]:
    return tuple((o.label, o.probability, o.rule) for o in odds.outcomes), odds.expected


def test_the_odds_stop_before_the_end_of_the_turn_and_say_why(big, monkeypatch):
    rules, state, melee, _ = big
    assert rules.describe_action(melee) == "French: 2/100th Ligne attacks 1915 in melee (6.4)"
    odds = action_odds(rules, state, melee)
    assert odds.until.startswith("These odds stop before the end of the turn (rule 3.3 B): the action alone "
                                 "ends in 606 different positions")
    # 2 x 4,000 end positions (PROJECTION_MARGIN x the bound) over the 606: a share of 13 each; the first
    # turn end's recovery rolls (2**11 ends at least) pass it at once
    assert "splits the first of them into more than 13: with it the odds would pass 4,000 end positions 2 times " \
           "over" in odds.until
    assert _lines(odds) == _lines(_without_the_turn_end(monkeypatch, rules, state, melee))
    assert odds.total == 1


def test_the_page_and_the_cli_show_the_same(big):
    rules, state, melee, _ = big
    data = quick_odds(rules, state, melee, cache=None)
    odds = action_odds(rules, state, melee)
    assert data["until"] == odds.until and data["end_positions"] == 606
    assert [(x["label"], x["fraction"]) for x in data["lines"]] == [
        (o.label, f"{o.probability.numerator}/{o.probability.denominator}") for o in odds.outcomes]
    # the page's bound, 20,000: a share of 2 x 20,000 / 606 = 66 each, and the first turn end splits into
    # 2,048 or more: it stops there too
    assert quick_odds(rules, state, melee, cache=None, max_outcomes=20_000)["until"] != ""


def test_the_tree_stops_at_the_same_place(big):
    rules, state, melee, _ = big
    tree = action_tree(rules, state, melee)
    odds, _, stopped = enumerate_odds(rules, state, melee, first_option, MAX_STEPS, MAX_OUTCOMES)
    assert stopped is not None and tree.distribution() == odds.distribution() and len(odds.distribution()) == 606
    stops = [n for n in tree.nodes() if n.request is not None and getattr(n.request, "horizon", "")]
    assert stops and all(len(n.children) == 1 for n in stops)
    assert all(any("the end of the turn is not worked out" in text for _, text in n.notes) for n in stops)


def test_the_cli_says_the_same(big, tmp_path, capsys):
    rules, state, melee, rec = big
    path = tmp_path / "melee.json"
    rec.save(path)
    assert main(["tbf", "odds", "--record", str(path), rules.format_action(melee)]) == 0
    out = json.loads(capsys.readouterr().out)
    odds = action_odds(rules, state, melee)
    assert out["until"] == odds.until
    assert [(o["label"], o["probability"]["fraction"]) for o in out["outcomes"]] == [
        (o.label, f"{o.probability.numerator}/{o.probability.denominator}") for o in odds.outcomes]
