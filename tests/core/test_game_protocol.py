"""The core game protocol on a tiny dice race (tests/core/race_game.py): sessions, pending actions as
values, records, replay naming the failing event, undo, the seeding rule, bots, the conformance suite
and the game CLI verbs."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.conformance import ConformanceError, check_game
from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import (Pending, Session, action_seed, apply_event, other_side, parse_dice, play_game,
                              replay, undo)
from engine.core.procedure import TypedDice, distribution
from engine.core.record import GameRecord

from race_game import RaceAction, RaceRules, RaceState

R = RaceRules()


def test_legal_actions_are_the_candidates_that_pass_check():
    s = R.new_game("short")
    # turn 1: passing is refused by R2, blue's roll by R1: only red's roll is left of three candidates
    assert R.legal_actions(s) == [RaceAction("roll", "red")]
    with pytest.raises(RuleViolation) as exc:
        R.check(s, RaceAction("pass", "red"))
    assert exc.value.rule == "R2"


def test_perform_is_a_procedure_the_enumerator_can_solve():
    s = RaceState(goal=10, red=8)
    # red at 8 rolls: 2..6 reach 10 or more (5/6); a 1 asks stay/back, first option "stay" keeps 8 (1/6)
    dist = distribution(lambda: R.perform(s, RaceAction("roll", "red")))
    wins = sum((p for st_, p in dist.items() if st_.winner == "red"), Fraction(0))
    assert wins == Fraction(5, 6)


def test_refused_action_changes_nothing_and_names_the_rule():
    session = Session.new(R, "short", seed=3)
    before = session.to_json()
    with pytest.raises(RuleViolation, match=r"\[rule R1\]"):
        session.act(RaceAction("roll", "blue"))
    assert session.to_json() == before


def test_typed_dice_one_at_a_time_and_the_pending_value_survives_a_save():
    session = Session.new(R, "short", seed=1)
    p = session.begin(RaceAction("roll", "red"))
    assert p.request.kind == "roll" and p.request.rule == "R1"
    with pytest.raises(RuleViolation):
        session.answer(7)                       # a d6 shows 1..6: refused, nothing recorded
    assert session.pending is p and not session.record.events
    session.answer(1)                           # a 1: the R2 question waits
    assert session.pending.request.kind == "choose"
    saved = json.loads(json.dumps(session.to_json()))
    resumed = Session.from_json(R, saved)
    assert resumed.pending.request.rule == "R2" and resumed.pending.answers == (1,)
    resumed.answer("back")
    assert resumed.pending is None and resumed.state.red == 0 and len(resumed.record.events) == 1
    ev = resumed.record.events[0]
    assert [a["value"] for a in ev["answers"] if a["kind"] != "log"] == [1, "back"]
    assert ev["side"] == "red"


def test_pending_is_a_value_answering_twice_branches():
    s = RaceState(goal=10)
    p0 = R.begin(s, RaceAction("roll", "red"))
    a = p0.answer(3)
    b = p0.answer(5)                            # p0 is unchanged by the first answer
    assert a.state.red == 3 and b.state.red == 5 and p0.request is not None


def test_replay_rebuilds_every_state_and_names_the_bad_event():
    final, rec = play_game(R, ("random", "random"), "short", seed=5)
    states = replay(R, rec)
    assert states[-1] == final and R.outcome(final) is not None
    bad = json.loads(rec.dumps())
    bad["events"][2]["answers"][0]["value"] = 9        # a d6 never shows 9
    with pytest.raises(RecordError, match="event 2"):
        replay(R, GameRecord.from_json(bad))


def test_record_of_another_system_or_version_is_refused():
    _, rec = play_game(R, ("random", "random"), "short", seed=2)
    data = json.loads(rec.dumps())
    with pytest.raises(RecordError, match="'game'"):
        replay(R, GameRecord.from_json({**data, "game": "n20"}))
    with pytest.raises(RecordError, match="engine_version"):
        replay(R, GameRecord.from_json({**data, "engine_version": "race-0"}))
    with pytest.raises(RecordError, match="seed"):
        replay(R, GameRecord.from_json({**data, "seed": "abc"}))


def test_undo_drops_events_and_gives_the_state_before():
    _, rec = play_game(R, ("random", "random"), "short", seed=8)
    short, state = undo(R, rec, 2)
    assert len(short.events) == len(rec.events) - 2 and state == replay(R, rec)[-3]
    s = Session(R, rec)
    s.undo(1)
    assert s.state == replay(R, rec)[-2]


def test_one_seeding_rule_makes_games_reproducible():
    a = play_game(R, ("random", "random"), "long", seed=11)[1]
    b = play_game(R, ("random", "random"), "long", seed=11)[1]
    c = play_game(R, ("random", "random"), "long", seed=12)[1]
    assert a.events == b.events and a.events != c.events
    assert action_seed(1, 0) != action_seed(1, 1) != action_seed(2, 0)


def test_unknown_bot_and_wrong_bot_count_are_refused():
    with pytest.raises(VedetteError, match="unknown bot"):
        play_game(R, ("random", "clever"), "short")
    with pytest.raises(VedetteError, match="two bots"):
        play_game(R, ("random",), "short")


def test_other_side():
    assert other_side(("french", "allied"), "french") == "allied"
    with pytest.raises(VedetteError):
        other_side(("french", "allied"), "prussian")


def test_parse_dice():
    assert parse_dice("3, 5,1") == [3, 5, 1]
    with pytest.raises(VedetteError, match="--dice"):
        parse_dice("x")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_conformance_suite_passes_on_the_race(seed):
    rep = check_game(R, "short", seed=seed)
    assert rep.over and rep.actions > 0 and rep.illegal_refused > 0


def test_conformance_suite_catches_a_broken_round_trip():
    class Broken(RaceRules):
        def state_from_json(self, d):
            return RaceState(goal=d["goal"])          # forgets the markers
    with pytest.raises(ConformanceError, match="round-trip"):
        check_game(Broken(), "short", seed=0)


@settings(max_examples=40, deadline=None)
@given(st.builds(RaceState, goal=st.integers(1, 50), turn=st.integers(1, 99),
                 player=st.sampled_from(["red", "blue"]), red=st.integers(0, 60), blue=st.integers(0, 60),
                 winner=st.none() | st.sampled_from(["red", "blue"]),
                 options=st.lists(st.sampled_from(["mercy"]), max_size=1).map(tuple)))
def test_state_json_round_trip(state):
    assert R.state_from_json(json.loads(json.dumps(R.state_to_json(state)))) == state


def test_action_json_of_wrong_shape_names_the_field():
    with pytest.raises(VedetteError, match="kind"):
        R.action_from_json({"kind": ["roll"], "side": "red"})
    with pytest.raises(VedetteError, match="side"):
        R.action_from_json({"kind": "roll", "side": 3})


# --- the CLI verbs, on the race (registered as a throwaway system) ------------------------------
def _cli(argv):
    import argparse
    from engine.cli import OneLineParser
    from engine.core.game_cli import register_game_verbs
    parser = OneLineParser(prog="race")
    sub = parser.add_subparsers(dest="verb")
    register_game_verbs(sub, RaceRules)
    args = parser.parse_args(argv)
    return args.handler(args)


def test_cli_new_act_legal_undo_replay(tmp_path):
    rec = str(tmp_path / "race.json")
    out = _cli(["new", "--scenario", "short", "--seed", "4", "--record", rec])
    assert out["to_act"] == "red" and out["events"] == 0
    legal = _cli(["legal", "--record", rec])
    assert [x["text"] for x in legal["legal"]] == ["red:roll"]
    with pytest.raises(RuleViolation):
        _cli(["act", "--record", rec, "blue:roll"])
    assert GameRecord.load(rec).events == ()                     # refused: file untouched
    with pytest.raises(RuleViolation):
        _cli(["act", "--record", rec, "red:roll", "--dice", "8"])
    out = _cli(["act", "--record", rec, "red:roll", "--dice", "4"])
    assert out["events"] == 1 and out["to_act"] == "blue"
    with pytest.raises(VedetteError, match="needs another choice"):
        _cli(["act", "--record", rec, "blue:roll", "--dice", "1", "--choices", "[]"])
    with pytest.raises(VedetteError, match="--choices"):
        _cli(["act", "--record", rec, "blue:roll", "--dice", "1", "--choices", "notjson"])
    _cli(["act", "--record", rec, "blue:roll", "--dice", "1", "--choices", '["back"]'])
    assert _cli(["replay", rec])["events"] == 2
    assert _cli(["replay", rec, "--upto", "1"])["to_act"] == "blue"
    _cli(["undo", "--record", rec])
    assert len(GameRecord.load(rec).events) == 1
    out = _cli(["play", "--scenario", "short", "--seed", "3", "--bots", "random,greedy"])
    assert out["outcome"]["winner"] in ("red", "blue")


def test_dice_resumed_after_a_choice_continue_the_events_stream():
    """Issue 28.1: an action whose computer dice stop for a player's choice rolls on from the same stream
    (:meth:`EventDice.resumed`), so it ends as the same action played in one run (``vedette GAME act``,
    :func:`play_game`). A Lines of Battle combat of several rounds (5.2.1, 5.2.4: the attacker chooses to
    go on between rounds) played both ways gives one record; re-seeding at each stop (as the page did)
    repeated the first round's dice and gave another."""
    from engine.core.game import system_of
    rules = system_of("lob")
    _, rec = play_game(rules, ("greedy", "greedy"), "albuera", seed=1, max_actions=40)
    k = next(i for i, e in enumerate(rec.events)
             if sum(1 for a in e["answers"] if a["kind"] == "roll") > 2
             and any(a["kind"] == "choose" for a in e["answers"][3:]))
    ev = rec.events[k]
    stepwise = Session(rules, rec.truncated(k))
    choices = [a["value"] for a in ev["answers"] if a["kind"] == "choose"]
    stepwise.begin(rules.action_from_json(ev["action"]))
    stops = 0
    while stepwise.pending is not None:
        stepwise.roll_pending()                      # the computer's dice, up to the next question
        if stepwise.pending is not None:
            stops += 1
            stepwise.answer(choices.pop(0))
    assert stops >= 2 and stepwise.record.events[k] == ev
    one_run = Session(rules, rec.truncated(k))
    queue = [a["value"] for a in ev["answers"] if a["kind"] == "choose"]
    one_run.act(rules.action_from_json(ev["action"]), chooser=lambda req: queue.pop(0))
    assert one_run.record.events[k] == ev
