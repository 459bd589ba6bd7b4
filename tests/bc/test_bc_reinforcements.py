"""Reinforcements (18.0 Yellow Cube, 19.1 free In Command move; 27.2 Cavalry back from a Grand Charge).

The arrival schedule is a scenario's (the Playbook's): the scenario file lists it under ``reinforcements``."""
from dataclasses import replace

import pytest

from engine.bc.game.reinforcements import due_reinforcements, reinforcements
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map
from engine.core.errors import RuleViolation
from engine.core.procedure import play


@pytest.fixture(scope="module")
def st(tmp_path_factory):
    text = open(load_scenario().file).read() + (
        "reinforcements:\n"
        "  - {id: F9, side: french, kind: infantry, skill: 2, zone: W3, turn: 2}\n")
    p = tmp_path_factory.mktemp("sc") / "s.yaml"
    p.write_text(text)
    return new_map(load_scenario(p))


def test_18_0_reinforcement_due_from_its_turn(st):
    assert due_reinforcements(st, "french") == {}          # turn 1: not yet
    with pytest.raises(RuleViolation) as e:
        play(lambda: reinforcements(st, "french"), seed=1)
    assert e.value.rule == "18.0"
    s2 = replace(st, turn=2)
    assert due_reinforcements(s2, "french") == {"F9": "W3"}


def test_19_1_arriving_block_gets_a_free_roadway_move(st):
    # F9 enters at W3 (where F4 already is) and moves at once along the road W3 -> M3? M3 holds F5, so we take
    # F4 and F5 off the map: F9 rides W3 -> M3 in Roadway formation, no command check drawn.
    s2 = replace(st, turn=2, units=tuple(u for u in st.units if u.id not in ("F4", "F5")))
    new = play(lambda: reinforcements(s2, "french", moves=[("F9", "M3")], roadway=("F9",)), seed=1).result
    assert new.unit("F9").zone == "M3" and new.unit("F9").block.formation == "roadway"
    assert due_reinforcements(new, "french") == {}
    with pytest.raises(RuleViolation) as e:        # only the arriving Blocks move
        play(lambda: reinforcements(s2, "french", moves=[("F1", "M1")]), seed=1)
    assert e.value.rule == "19.1"


def test_27_2_cavalry_back_two_turns_after_a_grand_charge(st):
    c3 = st.unit("C3")
    s = replace(st, units=tuple(u for u in st.units if u.id != "C3"), returning=((c3, 3),), turn=3)
    assert due_reinforcements(s, "coalition") == {"C3": None}
    with pytest.raises(RuleViolation) as e:      # E2 borders M2 (French): not next to the enemy
        play(lambda: reinforcements(s, "coalition", zones={"C3": "E2"}), seed=1)
    assert e.value.rule == "27.2"
    # E3 holds the Coalition HQ; with F5 gone from M3 (and C2 out of E3), E3 borders no French Block
    s = replace(s, units=tuple(u for u in s.units if u.id not in ("C2", "F5")))
    new = play(lambda: reinforcements(s, "coalition", zones={"C3": "E3"}), seed=1).result
    assert new.unit("C3").zone == "E3" and new.unit("C3").block.state == "steady" and new.returning == ()
    with pytest.raises(RuleViolation) as e:      # W1 is nowhere near a Coalition HQ
        play(lambda: reinforcements(s, "coalition", zones={"C3": "W1"}), seed=1)
    assert e.value.rule == "27.2"
