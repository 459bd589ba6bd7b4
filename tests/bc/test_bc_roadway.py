"""Roadway moves (19.3) in the game model's Move Orders, on the demonstration scenario (ours, invented).

The demonstration road runs W3 - M3 - E3 (all three Zones have ``road: true``)."""
from dataclasses import replace

import pytest

from engine.bc.game.combat import combat_from_map
from engine.bc.game.movement import move_order
from engine.bc.game.state import new_map
from engine.core.errors import RuleViolation
from engine.core.procedure import play


@pytest.fixture(scope="module")
def st():
    return new_map()


def _without(st, *ids):
    return replace(st, units=tuple(u for u in st.units if u.id not in ids))


def _move(st, zones, moves, roadway=()):
    return play(lambda: move_order(st, "french", zones, moves, roadway=roadway), seed=1).result


def test_19_3_roadway_move_goes_two_zones_along_the_road(st):
    # F5 (M3) and C2 (E3) taken off: F4 in W3 rides W3 -> M3 -> E3, two Zones, all on the road.
    # W3 lies in the French HQ's command range (W2, range 2), so no Out of Command check is drawn.
    s = _without(st, "F5", "C2")
    new = _move(s, ["W3"], [("F4", "M3>E3")], roadway=("F4",))
    f4 = new.unit("F4")
    assert f4.zone == "E3" and f4.block.formation == "roadway"
    assert f4.block.state == "disrupted"            # 19.3: flipped as if Disrupted
    assert s.unit("F4").zone == "W3"                # the old state is unchanged


def test_19_3_roadway_block_fights_as_disrupted(st):
    s = _without(st, "F5", "C2")
    new = _move(s, ["W3"], [("F4", ["M3", "E3"])], roadway=("F4",))
    setup = combat_from_map(new, "E2", "E3", "assault")
    assert setup.defender.lead.state == "disrupted" and setup.defender.lead.formation == "roadway"


def test_19_1_regular_move_is_one_zone_only(st):
    s = _without(st, "F5", "C2")
    with pytest.raises(RuleViolation) as e:
        _move(s, ["W3"], [("F4", "M3>E3")])
    assert e.value.rule == "19.1"


@pytest.mark.parametrize("path,rule", [
    ("W2", "19.3"),            # W2 has no road: a Roadway move runs along roads and lanes only
    ("M3>W3>M3", "19.3"),      # three Zones: two at most
])
def test_19_3_roadway_limits(st, path, rule):
    s = _without(st, "F5", "C2")
    with pytest.raises(RuleViolation) as e:
        _move(s, ["W3"], [("F4", path)], roadway=("F4",))
    assert e.value.rule == rule


def test_19_3_only_steady_blocks_take_roadway_formation(st):
    s = _without(st, "F5", "C2")
    f4 = s.unit("F4")
    s = replace(s, units=tuple(replace(u, block=replace(u.block, state="disrupted")) if u.id == "F4" else u
                               for u in s.units))
    with pytest.raises(RuleViolation) as e:
        _move(s, ["W3"], [("F4", "M3")], roadway=("F4",))
    assert e.value.rule == "19.3" and f4.block.state == "steady"


def test_19_3_roadway_block_ending_with_other_blocks_becomes_second_line(st):
    # F5 stays in M3 in its normal formation: F4 arriving by road drops Roadway formation, second line.
    new = _move(st, ["W3"], [("F4", "M3")], roadway=("F4",))
    assert [u.id for u in new.in_zone("M3")] == ["F5", "F4"]
    assert new.unit("F4").block.formation == "none" and new.unit("F4").block.state == "steady"


def test_19_3_road_stacking_one_long_block(st):
    # 19.3 stacking on a Road Zone: at most a single Long Block, or else a pair of non-Long Blocks. F1 (long infantry) cannot reach the road
    # here, so we put a long Block next to F4: W3 holds F4 and F1 (moved there on the board) and both ride to M3.
    s = _without(st, "F5", "C2")
    s = replace(s, units=tuple(replace(u, zone="W3") if u.id == "F1" else u for u in s.units))
    with pytest.raises(RuleViolation) as e:
        _move(s, ["W3"], [("F4", "M3"), ("F1", "M3")], roadway=("F4", "F1"))
    assert e.value.rule == "19.3"
    # two short Blocks may share a Road Zone
    s2 = replace(s, units=tuple(replace(u, zone="W3") if u.id == "F2" else u for u in s.units if u.id != "F1"))
    new = _move(s2, ["W3"], [("F4", "M3"), ("F2", "M3")], roadway=("F4", "F2"))
    assert {u.id for u in new.in_zone("M3")} == {"F4", "F2"}


def test_19_0_four_zones_when_every_move_is_a_roadway_move(st):
    # Commander skill 3 activates 3 Zones (19.0); four when all the moves are Roadway moves.
    # W3, M3, M2, M1 hold French Blocks and no HQ: 4 counted Zones, one too many for a regular order.
    s = _without(st, "C2")
    with pytest.raises(RuleViolation):
        _move(s, ["W3", "M3", "M2", "M1"], [("F4", "W2")])
    new = _move(s, ["W3", "M3", "M2", "M1"], [("F5", "E3")], roadway=("F5",))
    assert new.unit("F5").zone == "E3"


def test_19_3_regular_move_ends_roadway_formation(st):
    s = _without(st, "F5", "C2")
    s = _move(s, ["W3"], [("F4", "M3")], roadway=("F4",))
    assert s.unit("F4").block.formation == "roadway"
    s = _move(s, ["M3"], [("F4", "W3")])      # back to W3 by a regular move
    assert s.unit("F4").block.formation == "none" and s.unit("F4").block.state == "steady"
