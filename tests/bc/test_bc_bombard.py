"""Two-Zone Artillery Bombardment with its line of sight (27.5), on the demonstration map (ours, invented).

F3 (French Artillery) stands in M1 facing E1 and M2. E2 (C1, C4) is two Zones away, through M2 or E1."""
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.bc.calc import combat_odds
from engine.bc.tally import prepare as tally
from engine.bc.game.combat import bombard_line_of_sight, bombardment_from_map, map_bombardment
from engine.bc.game.state import new_map
from engine.core.errors import RuleViolation
from engine.core.procedure import play


@pytest.fixture(scope="module")
def st():
    return new_map()


def _without(st, *ids):
    return replace(st, units=tuple(u for u in st.units if u.id not in ids))


def test_27_5_line_of_sight_blocked_by_blocks_between(st):
    # M2 holds F1/F2 and E1 holds C3: both sit next to M1 and E2, both stop the fire
    assert bombard_line_of_sight(st, "M1", "E2") == ("E1", "M2")
    with pytest.raises(RuleViolation) as e:
        bombardment_from_map(st, "M1", "E2")
    assert e.value.rule == "27.5" and "E1, M2" in e.value.message
    # one Block left between is enough to stop it (our reading of 27.5)
    assert bombard_line_of_sight(_without(st, "C3"), "M1", "E2") == ("M2",)


def test_27_5_line_of_sight_blocked_by_terrain_with_fire_value(st):
    # M3 from M1: the Zones between are W2 (woods, Fire value 1 in the terrain chart) and M2 (Blocks).
    # Emptying M2 leaves the woods: still blocked.
    s = _without(st, "F1", "F2")
    assert bombard_line_of_sight(s, "M1", "M3") == ("W2",)


def test_27_5_two_zone_bombardment_when_clear(st):
    s = _without(st, "C3", "F1", "F2")
    setup = bombardment_from_map(s, "M1", "E2")
    assert setup.special == "bombardment" and setup.bombard_range == 2 and setup.interval == "none"
    assert setup.attacker.wings == () and setup.defender.terrain == "woods"
    # the tally carries the 27.5 left shift
    t = tally(setup)
    assert any(sh.rule == "27.5" and sh.amount == -1 for sh in t.shifts)


def test_27_5_range_one_is_the_adjacent_bombardment(st):
    setup = bombardment_from_map(st, "M1", "E1")
    assert setup.bombard_range == 1 and setup.interval == "stream"


def test_27_5_out_of_range_and_not_artillery(st):
    with pytest.raises(RuleViolation) as e:
        bombardment_from_map(st, "M1", "E3")       # M1 to E3: three Zones
    assert e.value.rule == "27.5"
    with pytest.raises(RuleViolation) as e:
        bombardment_from_map(st, "M2", "E2")       # F1 is not an Artillery
    assert e.value.rule == "27.5"


def test_27_5_two_zone_bombardment_played_on_the_map(st):
    s = _without(st, "C3", "F1", "F2")
    new = play(lambda: map_bombardment(s, "M1", "E2"), seed=4).result
    # F3 bombarding (not against a Lead Artillery: C1 leads) is immune to hits (27.5)
    assert new.unit("F3").block.state == "steady"
    d = combat_odds(bombardment_from_map(s, "M1", "E2")).dist
    assert d.total == Fraction(1)
    assert d.prob(lambda o: o.fate("attacker_lead") is not None and o.fate("attacker_lead").state != "steady") == 0
