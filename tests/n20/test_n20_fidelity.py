"""Rule readings fixed after the expert audit (issue 11, Napoleonic 20). Each test names its rule and
works its expected values by hand in the comments. CRTs are forced to one result so that only the rule
under test moves the odds."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from engine import n20
from engine.core.errors import RuleViolation
from engine.n20.battle_file import BattleModel, battle_from_model
from engine.n20.board import parse_board
from engine.n20.morale import MoraleItem, apply_morale
from engine.n20.tables import Tables, TablesModel, default_tables

from n20_battle_helpers import battle, cav, forced_tables, inf

# A 5x3 flat grid (even columns shifted down). Neighbours used below:
#   0302: 0301 0401 0402 0303 0202 0201      0402: 0401 0502 0503 0403 0303 0302
#   0202: 0201 0302 0303 0203 0103 0102      0203: 0202 0303 0103
SMALL = """
source: provisional
name: small
grid: {orientation: flat, shifted: even, cols: 5, rows: 3}
loc: {allied: ["%s"], french: ["0502"]}
prohibited: [%s]
"""


def map_battle(tables, attackers, defenders, others=(), loc="0102", prohibited=""):
    m = BattleModel.model_validate({"attackers": attackers, "defenders": defenders, "others": list(others)})
    return battle_from_model(m, "<small>", tables, board=parse_board(SMALL % (loc, prohibited)))


# --- 9.8.5 after 9.8.3 -----------------------------------------------------------------------------------
def test_9_8_5_friendly_hex_only_when_no_route_through_enemy_zocs():
    # Allied d in 0302 withdraws 1 hex (DW) from French a in 0402. 0301 and 0201 are prohibited, 0402 is
    # the enemy, a friend stands in 0202. Left: 0401 and 0303, both in a's ZOC, and the friend's 0202.
    # 9.8.5 allows the friend's hex only when no other route is open; the EZOC hexes are such a route (9.8.3),
    # so d must take one of them and roll: breaks on 1-3 = 3/6 = 1/2. (The old order ranked the friend's hex
    # level with an EZOC hex and, having no die, picked it: broken 0.)
    friend = {"id": "f", "side": "allied", "type": "infantry", "strength": 1, "hex": "0202"}
    b = map_battle(forced_tables("DW"), [inf("a", 3, hex="0402")], [inf("d", 2, hex="0302", side="allied")],
                   [friend], prohibited='"0301", "0201"')
    res = n20.odds(b)
    assert res.summary["defender_broken"] == F(1, 2)
    # the two EZOC hexes tie (one die each, neither closer to the LOC 0102 than 0302: 9.8.6), so hex labels
    # decide: 0303 before 0401; nothing ever ends beyond the friend's hex
    assert res.outcomes.prob(lambda o: o.fate("d").end_hex == "0303") == F(1, 2)
    opts = n20.retreat_options(b, "d", 1)
    assert [o.hexes for o in opts] == [("0303",), ("0401",)]
    assert all("0202" not in o.hexes for o in opts)


def test_9_8_5_friendly_hex_still_used_when_nothing_else_is_open():
    # same, but 0401 and 0303 are prohibited too: the friend's 0202 is the only way out, and a retreat
    # ending on a friend goes one hex on (9.8.5): 0202 then a vacant hex outside a's ZOC -> never broken
    friend = {"id": "f", "side": "allied", "type": "infantry", "strength": 1, "hex": "0202"}
    b = map_battle(forced_tables("DW"), [inf("a", 3, hex="0402")], [inf("d", 2, hex="0302", side="allied")],
                   [friend], prohibited='"0301", "0201", "0401", "0303"')
    res = n20.odds(b)
    assert res.summary["defender_broken"] == 0
    assert res.outcomes.prob(lambda o: o.fate("d").hexes == 2) == 1


# --- 12.1.2 with 12.5 ------------------------------------------------------------------------------------
def test_12_1_2_last_point_on_reserves_loses_at_once():
    # French at 1 commit reserves (12.5, step B): 1 - 1 = 0 -> they have lost the game there (12.1.2).
    # The DB that follows would give them +1 for the broken defender (1 - 1 + 1 = 1 the old way, never 0),
    # but it comes too late: lost with probability 1, levels frozen at that moment (french 0, allied 5).
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")],
                "reserves": {"attacker": True}, "morale": {"french": 1, "allied": 5}}, forced_tables("DB"))
    res = n20.odds(b)
    assert res.summary["game_lost"] == {"french": 1, "allied": 0}
    (o,) = res.outcomes
    assert o.lost_game == ("french",) and dict(o.morale_after) == {"french": 0, "allied": 5}
    # the battle's own lines are still reported: -1 reserve +1 broken enemy = 0 for the French
    assert dict(o.morale) == {"french": 0, "allied": 0}
    # with 2 points the same battle is no loss: 2 - 1 = 1, + 1 = 2
    b2 = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")],
                 "reserves": {"attacker": True}, "morale": {"french": 2, "allied": 5}}, forced_tables("DB"))
    (o2,) = n20.odds(b2).outcomes
    assert o2.lost_game == () and dict(o2.morale_after) == {"french": 2, "allied": 5}


def test_12_1_2_attacker_reserve_in_step_b_comes_before_the_defenders_in_step_c():
    # both at 1, both commit: the attacker's point goes first (step B) and ends the game; the defender's
    # step C never comes, so the Allies stay at 1 and only the French lose
    items = (MoraleItem("french", -1, "reserve_committed", "12.5"), MoraleItem("allied", -1, "reserve_committed", "12.5"),
             MoraleItem("french", 1, "enemy_unit_broken", "12.1"))
    t = default_tables("v3")
    deltas, after, lost = apply_morale(t, {"french": 1, "allied": 1}, items, ("french", "allied"))
    assert lost == ("french",) and dict(after) == {"french": 1 - 1, "allied": 1}
    deltas, after, lost = apply_morale(t, {"french": 1, "allied": 1}, items, ("allied", "french"))
    assert lost == ("allied",) and dict(after) == {"french": 1, "allied": 0}


# --- 12.2 example: rout then break ------------------------------------------------------------------------
def _tables_with_break_cost(edition: str = "v3") -> Tables:
    """The shipped tables with every CRT cell DR and a unit_broken_owner line of -1 (the shipped charts
    give it 0, which would hide the double charge)."""
    base = forced_tables("DR", edition).model.model_dump()
    base["morale_chart"]["entries"]["unit_broken_owner"] = {"side": "owner", "points": -1, "source": "provisional"}
    return Tables(TablesModel.model_validate(base), "<DR, break -1>")


def test_12_2_routed_unit_that_breaks_is_charged_the_rout_only():
    # d (movement 2) must rout but its path is blocked at once (blocked_after 0): it breaks where it stands.
    # Rout die 1-6 -> distance 1-6; beyond its allowance 2 on dice 3-6 (4/6): -1 rout_beyond_movement.
    # The break itself adds no loss for the Allies (12.2 example), so E[allied] = 4/6 * -1 = -2/3
    # (charging the break as well would give -2/3 - 1 = -5/3). The French gain +1 for the broken unit always.
    b = battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")],
                "paths": {"d": {"blocked_after": 0}}}, _tables_with_break_cost())
    res = n20.odds(b)
    assert res.summary["defender_broken"] == 1
    assert res.summary["expected_morale"] == {"french": 1, "allied": F(-2, 3)}
    assert all(i.entry != "unit_broken_owner" for o in res.outcomes for i in o.morale_items)


def test_12_2_unit_broken_without_a_rout_still_costs_its_owner():
    # a DB breaks d with no rout: the -1 line applies (and +1 to the French)
    t = _tables_with_break_cost()
    t = Tables(t.model.model_copy(update={"crt": forced_tables("DB").model.crt}), "<DB, break -1>")
    (o,) = n20.odds(battle({"attackers": [inf("a", 3)], "defenders": [inf("d", 2, side="allied")]}, t)).outcomes
    assert dict(o.morale) == {"french": 1, "allied": -1}


# --- 9.8.1 (001): the elite -3 in a fortified hex ---------------------------------------------------------
def test_9_8_1_v2_elite_fortified_minus_3_already_holds_the_one_hex_fewer():
    spec = {"edition": "v2", "attackers": [inf("a", 4)], "defenders": [inf("e", 2, elite=True, side="allied")],
            "terrain": "fortified"}
    res = n20.odds(battle(spec, forced_tables("DR", "v2")))
    d = res.outcomes.map(lambda o: (o.fate("e").fate, o.fate("e").hexes))
    # die - 3: 1,2,3 -> below 1 -> a withdrawal, which the fortified hex lets it ignore: held 3/6;
    # 4,5,6 -> rout 1,2,3 hexes, with no second hex off (that would be the effective -4 of the old reading)
    assert d[("held", 0)] == F(1, 2)
    assert d[("routed", 1)] == d[("routed", 2)] == d[("routed", 3)] == F(1, 6)
    # a non-elite in the same hex keeps the option: rout d -> d - 1 hexes (die 1: routed in place)
    plain = n20.odds(battle({**spec, "defenders": [inf("p", 2, side="allied")]}, forced_tables("DR", "v2")))
    dp = plain.outcomes.map(lambda o: (o.fate("p").fate, o.fate("p").hexes))
    assert dp[("routed", 0)] == dp[("routed", 5)] == F(1, 6)


# --- 7.0 / 9.4.3: a bridged Major River -------------------------------------------------------------------
CORRIDOR_RIVER = """
source: provisional
name: corridor with a river
grid: {orientation: flat, shifted: even, cols: 6, rows: 1}
loc: {allied: ["0101"], french: ["0601"]}
hexsides: [{hexes: ["0401", "0501"], features: %s}]
"""


@pytest.mark.parametrize("edition", ["v3", "v2"])
def test_7_0_9_4_3_attack_across_a_bridged_major_river_is_allowed(edition):
    # a (0501) attacks d (0401) over a bridged Major River: allowed in both editions (9.4.2 example, 9.4.3,
    # 12.2 example); the bridge gives the single best benefit +1 (9.4.1): 3 vs 2 + 1 = differential 0
    m = BattleModel.model_validate({"edition": edition, "attackers": [inf("a", 3, hex="0501")],
                                    "defenders": [inf("d", 2, hex="0401", side="allied")]})
    b = battle_from_model(m, "<river>", default_tables(edition),
                          board=parse_board(CORRIDOR_RIVER % "[major_river, bridge]"))
    assert n20.odds(b).differential == 0
    # no bridge: only bombarding artillery attacks across it (16.3.2)
    with pytest.raises(RuleViolation) as e:
        battle_from_model(m, "<river>", default_tables(edition), board=parse_board(CORRIDOR_RIVER % "[major_river]"))
    assert e.value.rule == "16.3.2"
    # the reading is one switch shared with the game (engine/n20/game/zoc.py combat_adjacent)
    assert default_tables(edition).rules.major_river_bridge_adjacent is True


# --- 12.2.2: a Guard whose defender keeps its hex -----------------------------------------------------------
def test_12_2_2_guard_recule_when_the_defender_holds_its_fortified_hex():
    # DW against d in a fortified hex: by default d ignores the withdrawal (9.8.1, one hex fewer), so no
    # hex is vacated and the Guard cannot advance (9.9.1-9.9.2): French -1 (12.2.2), probability 1
    spec = {"attackers": [inf("guard", 4, guard=True)], "defenders": [inf("d", 2, side="allied")],
            "terrain": "fortified"}
    res = n20.odds(battle(spec, forced_tables("DW")))
    assert res.summary["guard_recule"] == 1
    assert res.summary["expected_morale"]["french"] == -1
    # had d taken the full withdrawal, the hex is vacant: the Guard could advance, no point lost
    full = n20.odds(battle(spec, forced_tables("DW")),
                    policy=lambda req: "full retreat" if req.rule == "9.8.1" else req.options[0])
    assert full.summary["guard_recule"] == 0
    # DR: die 1 -> rout 1, one hex fewer -> routed in place (held hex: -1); dice 2-6 leave 1-5 hexes (no loss)
    dr = n20.odds(battle(spec, forced_tables("DR")))
    assert dr.summary["guard_recule"] == F(1, 6)


def test_12_2_2_guard_against_a_lone_garrison_is_not_charged():
    # a garrison never retreats (9.4.4) but the attacker may advance into its hex, destroying it: the Guard
    # can advance, so no 12.2.2 point (DR: garrisons are outside the Morale Chart, French 0)
    res = n20.odds(battle({"attackers": [inf("guard", 4, guard=True)],
                           "defenders": [{"id": "g", "type": "garrison", "strength": 0, "side": "allied"}]},
                          forced_tables("DR")))
    assert res.summary["guard_recule"] == 0
    assert res.summary["expected_morale"]["french"] == 0


# --- 17.1: a square and any enemy cavalry ZOC ----------------------------------------------------------------
def test_17_1_square_checks_for_a_bystander_cavalry_zoc():
    # square s (0202) routs from a (infantry, 0302). x (0203) is not in the battle. LOC 0101.
    # Rout 1 -> 0102 (no hazard); rout 2 -> 0101 at full distance; rout 3-6 reach the LOC early and break
    # (9.8.7): broken 4/6 = 2/3 on the path. With x a cavalry unit its ZOC covers 0202, so the square first
    # makes a 9.8.3 check (17.1): broken 1/2 + 1/2 * 2/3 = 5/6. With x infantry (same ZOCs) no check: 2/3.
    def run(typ):
        x = {"id": "x", "side": "french", "type": typ, "strength": 1, "hex": "0203"}
        return n20.odds(map_battle(forced_tables("DR"), [inf("a", 3, hex="0302")],
                                   [inf("s", 2, hex="0202", side="allied", square=True)], [x], loc="0101"))
    assert run("cavalry").summary["defender_broken"] == F(5, 6)
    assert run("infantry").summary["defender_broken"] == F(2, 3)


def test_17_1_attacking_square_checks_against_defending_cavalry():
    # a square that attacks a cavalry unit and gets AR stands in that cavalry's ZOC (adjacent, 9.2.2):
    # one 9.8.3 check first, 1/2; its rout path has no hazards -> attacker broken 1/2 (was 0)
    res = n20.odds(battle({"attackers": [inf("s", 3, square=True)], "defenders": [cav("c", 1, side="allied")]},
                          forced_tables("AR")))
    assert res.summary["attacker_broken"] == F(1, 2)


# --- 9.8.5 as an invariant on random maps --------------------------------------------------------------------
from hypothesis import given, settings  # noqa: E402

from engine.n20.retreat import retreat_options  # noqa: E402

from test_n20_battle_props import situations  # noqa: E402


def _free_path_exists(board, start, distance, blocked, avoid):
    """Is there a simple path of ``distance`` hexes from ``start`` entering no hex of ``blocked`` or
    ``avoid`` and crossing major rivers only at bridges or fords (9.8.1)?"""
    def walk(path):
        if len(path) - 1 == distance:
            return True
        here = path[-1]
        return any(walk(path + [n]) for n in board.neighbours(here)
                   if n not in path and n not in blocked and n not in avoid and board.crossing_allowed(here, n))
    return walk([start])


@settings(max_examples=120, deadline=None)
@given(situations())
def test_9_8_5_no_listed_path_enters_a_friend_when_a_friend_free_route_exists(sit):
    # 9.8.5 after 9.8.2/9.8.3: a route that avoids every friend-held hex, whatever its enemy ZOCs, beats any
    # route through a friend; and one that also avoids every enemy ZOC beats both (9.8.2)
    board, start, friends, enemies, ezoc, distance, loc_breaks = sit
    opts = retreat_options(board, loc_breaks, "allied", False, start, distance, friends, enemies, ezoc)
    if _free_path_exists(board, start, distance, enemies, friends):
        assert all(h not in friends for o in opts for h in o.hexes)
        if _free_path_exists(board, start, distance, enemies, friends | ezoc):
            assert all(h not in ezoc for o in opts for h in o.hexes)
