"""Forts and Redoubts (28.5) on the map: data/bc/examples/fort_redoubt.yaml (ours, invented).

F is a Fort inside B (it borders B only); B's Redoubt covers its border with A. Garrison FG holds the Fort,
Coalition Infantry C1 (B), C2 (C), C3 (A)."""
from dataclasses import replace

import pytest

from engine.bc.tally import prepare
from engine.bc.game.combat import combat_from_map
from engine.bc.game.movement import move_order
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map
from engine.bc.game.zones import battle_zones
from engine.core.data import data_path
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import play

FILE = data_path("bc", "examples", "fort_redoubt.yaml")


@pytest.fixture(scope="module")
def st():
    return new_map(load_scenario(FILE))


def test_28_5_fort_assault_from_the_encircling_zone_with_wings_around_it(st):
    # C1 in B assaults the Fort. Wings come from the Zones next to B (A: C3, C: C2), though neither touches F.
    # CPs: lead Infantry assault 1 (10.0) + two wing supports 1 + 1 (23.1) = 3; Garrison 0, clear 0 -> +3
    t = prepare(combat_from_map(st, "B", "F", "assault"))
    assert t.attacker_cp == 1 + 1 + 1 and t.defender_cp == 0 and t.column == 3
    assert sum(1 for line in t.lines if line.rule == "23.1") == 2


def test_28_5_fort_can_only_be_attacked_from_its_zone(st):
    with pytest.raises(RuleViolation) as e:
        combat_from_map(st, "A", "F", "assault")
    assert e.value.rule == "23.1"


def test_28_5_garrison_battle_zone_only_in_the_encircling_zone(st):
    # 9.4 exempts a Garrison in a Fort from the no-Zones rule: its Battle Zone is the encircling Zone B,
    # the Fort's only border
    assert battle_zones(st, st.unit("FG")) == {"B"}
    assert st.scenario.graph.neighbours("F") == ["B"]


def test_28_5_only_one_garrison_in_a_fort(st):
    s = replace(st, units=tuple(u for u in st.units if u.id != "FG"))
    s = replace(s, units=tuple(replace(u, side="coalition") for u in s.units))
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(s, "coalition", ["B"], [("C1", "F")]), seed=1)
    assert e.value.rule == "28.5"


def test_28_5_redoubt_adds_its_cps_across_the_intervals_it_covers(st):
    # Make C1 (B) French: attacked from A, across the Redoubt's interval: the Redoubt adds 2 assault CPs
    # (provisional chart) on top of the clear Zone (0) and the lead Infantry (1): defender 1 + 2 = 3.
    s = replace(st, units=tuple(replace(u, side="french") if u.id == "C1" else u for u in st.units
                                if u.id != "FG"))
    t = prepare(combat_from_map(s, "A", "B", "assault"))
    assert [line.cp for line in t.lines if line.rule == "28.5"] == [2]
    # from C the Redoubt does not cover the interval: no redoubt line
    t2 = prepare(combat_from_map(s, "C", "B", "assault"))
    assert not [line for line in t2.lines if line.rule == "28.5"]
    assert t.defender_cp - t2.defender_cp == 2


def test_28_5_fort_with_two_borders_is_refused(tmp_path):
    bad = FILE.read_text().replace("  - [B, F]", "  - [B, F]\n  - [C, F]")
    p = tmp_path / "s.yaml"
    p.write_text(bad)
    with pytest.raises(DataError) as e:
        load_scenario(p)
    assert "fort_of" in str(e.value)
