"""The one walker of recorded games (engine/core/walk.py): phases in order, every event told once, in words."""
from hypothesis import given, settings, strategies as st

from engine.core.data import data_path
from engine.core.game import replay, system_of
from engine.core.record import GameRecord
from engine.core.walk import (action_sentence, answer_sentence, by_turn, metric_changes, outcome_sentence,
                              turns_of, walk_record)

BC = system_of("bc")
BC_RECORD = GameRecord.load(data_path("records", "bc_demo_greedy_seed1.json"))
BC_STATES = replay(BC, BC_RECORD)


def test_a_die_a_card_a_choice_and_a_note_in_words():
    # the label, then the raw face with its die, then the rule: what the notebooks print under an action
    assert answer_sentence({"kind": "roll", "rule": "9.0 F", "label": "CRT column -2", "value": 5,
                            "detail": {"die": "d6"}}) == "CRT column -2: a 5 on the d6 (rule 9.0 F)."
    assert answer_sentence({"kind": "draw", "rule": "16.2", "label": "order cube", "value": "white"}) \
        == "Order cube: white drawn (rule 16.2)."
    assert answer_sentence({"kind": "choose", "rule": "12.5", "label": "defender commits reserves",
                            "value": False}) == "Defender commits reserves: no (rule 12.5)."
    assert answer_sentence({"kind": "log", "rule": "9.0 B-C", "label": "attack 2 vs defence 4",
                            "value": None}) == "Attack 2 vs defence 4 (rule 9.0 B-C)."
    # a note that already cites its rule is not given it twice; an id opening a sentence keeps its case
    assert answer_sentence({"kind": "log", "rule": "6.2", "label": "ci-1 stops in an enemy front (6.2)"}) \
        == "ci-1 stops in an enemy front (6.2)."


class _Words:
    """Just what action_sentence asks of a system: its action from JSON, in words, and whether it passes."""

    def __init__(self, words):
        self.words = words

    def action_from_json(self, data):
        return data

    def describe_action(self, action):
        return self.words[action["kind"]]

    def is_pass(self, action):
        return action["kind"] == "pass"


def test_an_action_in_words_drops_the_side_prefix_and_keeps_its_rule():
    rules = _Words({"draw": "french draw", "pass": "french: pass", "cube": "draw a cube (16.2)",
                    "move": "move_unit F4 W2"})

    def ev(kind, rule="16.2"):
        return {"kind": "action", "rule": rule, "side": "french", "action": {"kind": kind}, "answers": []}
    # the side is said once, in front; a bare pass reads as being done; a rule the words cite is not repeated;
    # the verb's underscores become spaces, the ids after it are kept as they are
    assert action_sentence(rules, ev("draw")) == "French: draw (rule 16.2)."
    assert action_sentence(rules, ev("pass", "18.0")) == "French is done here (pass) (rule 18.0)."
    assert action_sentence(rules, ev("cube")) == "French: draw a cube (16.2)."
    assert action_sentence(rules, ev("move", "19.0")) == "French: move unit F4 W2 (rule 19.0)."


def test_metrics_that_moved_in_words():
    # 12 -> 11 moved, 3 -> 3 did not; a key only on one side is left out
    assert metric_changes({"morale.french": 12, "losses.allied": 3, "x": 1},
                          {"morale.french": 11, "losses.allied": 3}) == ["French Morale went from 12 to 11."]
    assert metric_changes({"losses.french": 1.0}, {"losses.french": 1.3333}) == ["French losses went from 1 to 1.33."]


def test_the_walk_tells_every_event_once_in_order_and_by_position():
    phases = walk_record(BC, BC_RECORD, states=BC_STATES)
    told = [t.index for p in phases for t in p.told]
    assert told == list(range(len(BC_RECORD.events)))
    for p in phases:
        # every event of a phase was made on a state of that phase's position (the default key)
        assert {BC.position(BC_STATES[t.index]) for t in p.told} == {BC.position(p.before)}
        assert p.before is BC_STATES[p.first] and p.after is BC_STATES[p.last + 1]
        assert all(t.sentence.endswith(".") and t.rule in t.sentence for t in p.told if t.rule)
    # two neighbouring phases never share a key (else they would be one)
    assert all(a.key != b.key for a, b in zip(phases, phases[1:]))
    # the demonstration's four turns (BC 16.3: the game ends in its last turn, the marker goes no further)
    assert list(by_turn(phases)) == turns_of(BC, BC_STATES) == [1, 2, 3, 4]
    assert outcome_sentence(BC, BC_STATES[-1]).startswith("French win (flags)")


def test_a_custom_key_groups_the_walk_by_turn():
    phases = walk_record(BC, BC_RECORD, key=lambda before, _after: before.g.turn, states=BC_STATES)
    assert [p.key for p in phases] == [1, 2, 3, 4]
    assert sum(len(p.told) for p in phases) == len(BC_RECORD.events)


@settings(max_examples=15)
@given(st.integers(min_value=0, max_value=len(BC_RECORD.events)))
def test_any_prefix_of_a_record_walks_over_exactly_its_events(n):
    short = BC_RECORD.truncated(n)
    phases = walk_record(BC, short, states=BC_STATES[:n + 1])
    assert sum(len(p.told) for p in phases) == n
    if n:
        assert phases[-1].after is BC_STATES[n]
        assert outcome_sentence(BC, phases[-1].after).startswith("The record stops at") == (n < len(BC_RECORD.events))
