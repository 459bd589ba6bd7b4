"""Map geometry and game rules on the provisional Dürenstein map: LOS across levels (4.4), facing (4.3),
movement limits (6.2), retreat priorities (6.6), rout (6.7), command (4.2.2 C, 6.1), stacking (4.1),
recovery (7.0), initiative (3.2), reinforcements (9.x) and victory (10.x)."""
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import TypedDice, distribution, enumerate_tree, first_option, play
from engine.tbf.board import Board, MapFile, frontal_hexes, load_board
from engine.tbf.game.activation import activation_plan
from engine.tbf.game.phases import initiative, recovery
from engine.tbf.game.position import enemy_front, leader_cvs
from engine.tbf.game.reinforcement import column_muster, dupont_arrival, mortier_alert
from engine.tbf.game.retreat import retreat, retreat_options
from engine.tbf.game.rout import rout_path
from engine.tbf.game.search import reachable
from engine.tbf.game.stacking import stacking_problem
from engine.tbf.game.victory import victory
from engine.tbf.scenario import default_scenario
from engine.tbf.game.setup import initial_state
from engine.tbf.game.state import GameState, Piece

SC = default_scenario()


# --- 4.4 line of sight --------------------------------------------------------------------------
def test_4_4_B_level_0_valley_leaves_los_open(board, tables):
    assert board.los("0917", "1218", tables).clear


def test_4_4_B_river_does_not_block(board, tables):
    # 2512 -> 2515 crosses 2513 (Level 0) and the river hex 2514.
    assert board.los("2512", "2515", tables).clear


def test_4_4_B_level_1_hex_between_blocks(board, tables):
    # 1514 -> 1511 passes 1513 (Level 0) then 1512 (Level 1): blocked at 1512.
    r = board.los("1514", "1511", tables)
    assert not r.clear and r.blocked_by == "1512" and r.rule == "4.4 B"


def test_4_4_B_vineyard_between_does_not_block(board, tables):
    # 1013 -> 1011 passes only 1012, a vineyard (Level 1 slope): open.
    assert board.terrain("1012") == "vineyard"
    assert board.los("1013", "1011", tables).clear


def test_4_4_C_los_into_a_blocking_hex_but_not_through(board, tables):
    # 1513 -> 1512 (Level 1 target, adjacent): open; 1513 -> 1511 through 1512: blocked.
    assert board.los("1513", "1512", tables).clear
    assert not board.los("1513", "1511", tables).clear


def test_4_4_B_town_between_blocks(board, tables):
    r = board.los("1516", "1816", tables)
    assert not r.clear and r.blocked_by == "1716"


def test_4_4_D_E_units_blocking(board, tables):
    assert not board.los("0917", "1218", tables, enemy=frozenset({"1017"})).clear             # 4.4 E
    assert board.los("0917", "1218", tables, viewer="artillery", friendly=frozenset({"1017"})).clear
    r = board.los("0917", "1218", tables, viewer="cavalry", friendly=frozenset({"1017"}))
    assert not r.clear and r.rule == "4.4 D"


def test_4_4_F_howitzer_ignores_los(board, tables):
    assert board.los("1514", "1511", tables, viewer="howitzer").clear


# --- 4.3 facing ---------------------------------------------------------------------------------
def test_4_3_C_three_frontal_hexes_and_none_when_fatigued(board):
    g = board.grid
    f = frontal_hexes(g, "1616", 1)           # facing NE
    assert f == frozenset({g.neighbour("1616", 0), g.neighbour("1616", 1), g.neighbour("1616", 2)})
    assert frontal_hexes(g, "1616", 1, "infantry", "fatigued") == frozenset()   # 4.2.4 E
    assert len(frontal_hexes(g, "1616", 1, "artillery", "fatigued")) == 3       # 4.3 A
    assert len(frontal_hexes(g, "1518", 1, all_round=True)) == 6                # 8.4 B


# --- 6.2 movement -------------------------------------------------------------------------------
def test_6_2_2_D_level_1_to_level_3_prohibited(board, tables):
    # The rulebook's own example: 0304 (Level 1) and 0204 (Level 3).
    assert board.level("0304") == 1 and board.level("0204") == 3
    assert board.step_cost("0304", "0204", tables)[0] is None
    assert board.step_cost("0204", "0304", tables)[0] is None


def test_6_2_7_walled_road_only_along_the_road(board, tables):
    assert board.step_cost("0715", "0716", tables)[0] == tables.terrain.road_mp
    side = [n for n in board.grid.neighbours("0716") if not board.road("0716", n) and board.terrain(n) != "river"]
    assert side and all(board.step_cost("0716", n, tables)[0] is None for n in side)


def test_6_2_5_C_coalition_never_enters_west_edge_road():
    st = initial_state(SC).with_piece("ci-1", hex="0209")
    r = reachable(SC, st, "ci-1")
    assert not set(r) & {"0107", "0108", "0109"}


def test_6_2_3_levels_need_the_roll():
    # Column III on Level 2 ground: without a Level 2/3 allowance it cannot enter Level 2 hexes.
    st = initial_state(SC).with_piece("ciii-1", hex="1307")
    none = reachable(SC, st, "ciii-1", {})
    some = reachable(SC, st, "ciii-1", {2: 2})
    lvl2 = lambda r: {h for h in r if SC.board.level(h) == 2 and h != "1307"}
    assert not lvl2(none) and lvl2(some)
    assert all(sum(1 for h in path[1:] if SC.board.level(h) == 2) <= 2 for _, path in some.values())


def test_6_2_5_A_stop_on_entering_enemy_front():
    st = initial_state(SC)
    r = reachable(SC, st, "ci-1", {})
    front = enemy_front(SC, st, "coalition")
    for h, (_, path) in r.items():
        assert not any(x in front for x in path[1:-1])


def test_9_5_1_french_stay_south_of_dark_blue_line_until_alert():
    st = initial_state(SC)
    r = reachable(SC, st, "drag-2", {})
    north = {b for a, b in SC.board.data.dark_blue_line}
    crossed = [h for h, (_, p) in r.items() if any(frozenset((x, y)) in SC.board.dark_blue and y in north
                                                    for x, y in zip(p, p[1:]))]
    assert not crossed
    r2 = reachable(SC, st.with_flag("alert"), "drag-2", {})
    assert len(r2) >= len(r)


# --- 6.6 retreat priorities ---------------------------------------------------------------------
def _empty_state(**placed):
    st = initial_state(SC)
    pieces = tuple(replace(p, hex=None) for p in st.pieces)
    st = replace(st, pieces=pieces)
    for pid, (h, facing) in placed.items():
        st = st.with_piece(pid, hex=h, facing=facing)
    return st


def test_6_6_A_retreat_toward_friendly_town_first():
    # A French battalion at 1616 with no enemy near: the only rank-0 hexes get it nearer a French town.
    st = _empty_state(**{"100-1": ("1514", 0)})
    opts = retreat_options(SC, st, ("100-1",), "1514")
    best = [h for h, r, _ in opts if r == 0]
    assert best and opts[0][2] == "6.6 A"


def test_6_6_B_priorities_inside_enemy_fronts():
    # Enemy battalion at 1613 facing S (3) covers 1614's neighbours to its south side.
    g = SC.board.grid
    st = _empty_state(**{"100-1": ("1615", 0), "100-2": ("1616", 0), "ci-1": ("1613", 3), "ci-2": ("1715", 4)})
    opts = retreat_options(SC, st, ("100-1",), "1615")
    ranks = {h: r for h, r, _ in opts}
    front = enemy_front(SC, st, "french")
    for h, r in ranks.items():
        if h in front:
            assert r == (2 if h == "1616" else 3)
        else:
            assert r in (0, 1)
    assert [r for _, r, _ in opts] == sorted(r for _, r, _ in opts)


def test_6_6_C_unable_to_retreat_fatigues_then_checks():
    # Surround 1616's neighbours with enemies: no hex to go to. FV fatigued 3, DRM +1, CV 0:
    # d6 + 1 <= 3 -> faces 1-2 pass (1/3); else surrender (2/3).
    g = SC.board.grid
    placed = {"100-1": ("1616", 0)}
    coal = [u for u in SC.units if u.startswith("cii-")]
    for uid, h in zip(coal, g.neighbours("1616")):
        placed[uid] = (h, 0)
    st = _empty_state(**placed)
    assert retreat_options(SC, st, ("100-1",), "1616") == []
    d = distribution(lambda: retreat(SC, st, ("100-1",), "1616"))
    assert d.prob(lambda o: o.units[0][1] == "surrendered") == Fraction(2, 3)
    assert d.prob(lambda o: o.units[0][1] == "fatigued") == Fraction(1, 3)


def test_6_6_D_retreat_into_enemy_front_checks():
    # Only hexes in enemy fronts are left: the unit checks (normal FV 5, DRM +1 -> faces 1-4 pass, 2/3).
    g = SC.board.grid
    nbrs = g.neighbours("1616")
    placed = {"100-1": ("1616", 0)}
    coal = iter(u for u in SC.units if u.startswith("cii-"))
    free = nbrs[0]
    for h in nbrs[1:]:
        placed[next(coal)] = (h, 0)
    # one more enemy whose front covers the free hex
    far = [n for n in g.neighbours(free) if n not in nbrs and n != "1616"][0]
    facing = g.direction(far, free)
    placed[next(coal)] = (far, facing)
    st = _empty_state(**placed)
    opts = retreat_options(SC, st, ("100-1",), "1616")
    assert [h for h, _, _ in opts] == [free] and opts[0][1] == 3
    d = distribution(lambda: retreat(SC, st, ("100-1",), "1616"))
    assert d.prob(lambda o: o.units[0][1] == "fatigued") == Fraction(1, 3)


# --- 6.7 rout -----------------------------------------------------------------------------------
def test_6_7_rout_runs_to_safety_and_never_into_enemy_fronts():
    st = initial_state(SC)
    r = rout_path(SC, st, "ci-1")
    front = enemy_front(SC, st, "coalition")
    assert r.fate in ("safe", "exited", "moving")
    assert not set(r.path[1:]) & front


def test_6_7_D_no_way_out_means_elimination():
    g = SC.board.grid
    placed = {"100-1": ("1616", 0)}
    coal = iter(u for u in SC.units if u.startswith("cii-"))
    for h in g.neighbours("1616"):
        placed[next(coal)] = (h, 0)
    st = _empty_state(**placed)
    assert rout_path(SC, st, "100-1").fate == "eliminated"


# --- command, stacking, recovery ----------------------------------------------------------------
def test_4_2_2_C_leader_cvs_in_or_next_to_the_unit():
    st = initial_state(SC)
    assert leader_cvs(SC, st, "100-2") == (1,)          # Campana in 1616 (CV 1); Gazan/Mortier 2 hexes off
    st2 = st.with_piece("mortier", hex="1617").with_piece("gazan", hex="1615")
    assert leader_cvs(SC, st2, "100-2") == (2, 1, 1)     # one leader per hex (4.1.3)


def test_6_1_2_A_column_leader_reaches_four_hexes():
    st = initial_state(SC).with_piece("ci-6", hex="1911")
    plan = activation_plan(SC, st, "miloradovich")
    assert "ci-6" in plan["out_of_command"] and "ci-1" in plan["units"]


def test_6_1_3_E_leader_activates_once():
    st = initial_state(SC)
    with pytest.raises(RuleViolation) as e:
        activation_plan(SC, st, "gaindorge")
    assert e.value.rule == "6.1.3 E"


def test_4_1_stacking_limits():
    st = _empty_state(**{"100-1": ("1616", 0), "100-2": ("1616", 0), "100-3": ("1616", 0)})
    assert stacking_problem(SC, st, "1616") is None                 # 4.1.2: one regiment
    st = _empty_state(**{"100-1": ("1616", 0), "100-2": ("1616", 0), "103-1": ("1616", 0)})
    assert stacking_problem(SC, st, "1616").startswith("4.1.1")     # three battalions of two regiments
    st = _empty_state(**{"100-1": ("1616", 0), "103-1": ("1616", 0), "art-1": ("1616", 0)})
    assert stacking_problem(SC, st, "1616").startswith("4.1.1")
    st = _empty_state(**{"drag-1": ("1616", 0), "art-1": ("1616", 0)})
    assert stacking_problem(SC, st, "1616").startswith("4.1.5")


def test_7_0_C_charged_cavalry_cannot_remove_fatigue():
    st = initial_state(SC).with_piece("drag-1", status="fatigued", charged=True)
    with pytest.raises(RuleViolation) as e:
        distribution(lambda: recovery(SC, st, "drag-1"))
    assert e.value.rule == "7.0 C"


def test_7_0_D_remove_fatigue_odds():
    # drag-1 fatigued FV 2, Remove Fatigue DRM 0, no leader near 1214: faces 1-2 -> 1/3 back to normal.
    st = initial_state(SC).with_piece("drag-1", status="fatigued")
    d = distribution(lambda: recovery(SC, st, "drag-1"))
    assert d["normal"] == Fraction(1, 3)


def test_3_2_initiative():
    assert play(lambda: initiative(1, True), dice=TypedDice([])).result == "coalition"
    # Mortier on map: French 3 + 1 = 4 vs 4 -> tie, reroll: 2 + 1 vs 5 -> Coalition.
    assert play(lambda: initiative(2, True), dice=TypedDice([3, 4, "coalition"])).result == "coalition"
    assert play(lambda: initiative(2, True), dice=TypedDice([5, 2])).result == "french"
    d = distribution(lambda: initiative(3, False))
    assert d["french"] == Fraction(1, 2)        # symmetric without Mortier
    d2 = distribution(lambda: initiative(3, True))
    # French win when f + 1 > c, i.e. f >= c: 21 of 36 pairs; ties (c = f + 1): 5; losses: 10.
    # Rerolling ties: 21 / (21 + 10) = 21/31.
    assert d2["french"] == Fraction(21, 31)


def test_9_6_2_dupont_progression_and_9_5_2_alert():
    assert distribution(lambda: dupont_arrival(SC, 6))[True] == Fraction(1, 6)
    assert distribution(lambda: dupont_arrival(SC, 8))[True] == Fraction(1, 3)
    with pytest.raises(RuleViolation):
        distribution(lambda: dupont_arrival(SC, 5))
    assert distribution(lambda: mortier_alert(SC, 0))[True] == Fraction(1, 2)   # 4+
    assert distribution(lambda: mortier_alert(SC, 3))[True] == 1               # 9.5.2 game play note
    with pytest.raises(RuleViolation):
        distribution(lambda: column_muster(SC, "V", 3))


def test_10_1_automatic_victory_and_10_2_5_draw():
    st = initial_state(SC)
    assert victory(SC, st)["winner"] == "draw"
    assert victory(SC, st.with_piece("kutusov", status="killed"))["winner"] == "french"
    assert victory(SC, st.with_piece("mortier", status="captured"))["winner"] == "coalition"


def test_10_2_3_coalition_tactical_by_losses():
    st = initial_state(SC)
    for uid in ["4l-1", "4l-2", "4l-3", "100-1", "100-2", "100-3"]:
        st = st.with_piece(uid, status="eliminated", hex=None)
    v = victory(SC, st)
    assert v["coalition_level"] == "tactical" and v["gazan_battalions_lost"] == 6


def test_bad_map_file_is_a_data_error(tmp_path):
    import yaml
    from engine.core.data import data_path
    data = yaml.safe_load(data_path("tbf", "durenstein", "map.yaml").read_text())
    data["terrain_rows"]["05"] = data["terrain_rows"]["05"][:-1]
    f = tmp_path / "m.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(DataError) as e:
        load_board(f)
    assert "terrain_rows" in str(e.value) or "row 05" in str(e.value)


def test_9_4_activation_limits():
    from dataclasses import replace
    from engine.tbf.game.exclusive import activation_allowed
    st = initial_state(SC)
    assert activation_allowed(SC, st, "miloradovich")[0]                      # 9.1 E
    assert not activation_allowed(SC, st, "cii-1")[0]                          # 9.2
    assert activation_allowed(SC, st.with_flag("column_II_mustered"), "cii-1")[0]
    assert activation_allowed(SC, st, "4l-1")[0]                               # 9.4 A
    assert not activation_allowed(SC, st, "100-1")[0]                          # 9.4 C
    assert activation_allowed(SC, replace(st, turn=4), "100-1")[0]
    assert activation_allowed(SC, st.with_piece("ci-1", hex="1812"), "100-1")[0]   # Column I into row 18XX
    assert not activation_allowed(SC, st, "elite")[0]                          # 9.4 B
    assert activation_allowed(SC, st.with_piece("ci-1", hex="1517"), "elite")[0]
    assert not activation_allowed(SC, st, "cv-1")[0]
    assert activation_allowed(SC, st.with_piece("4l-1", hex="2610"), "cv-1")[0]   # 9.2 H: within 3 of 2810


def test_5_2_D_entry_mps():
    from engine.tbf.game.reinforcement import entry_mp
    assert [entry_mp(5, k) for k in (1, 2, 3, 6, 7)] == [5, 4, 3, 0, 0]


def test_11_4_2_and_11_5_3_victory_changes():
    from engine.tbf.game.victory import victory_with_options
    st = initial_state(SC)
    for uid in ["4l-1", "4l-2", "4l-3", "100-1", "100-2", "100-3"]:
        st = st.with_piece(uid, status="eliminated", hex=None)
    assert victory_with_options(SC, st)["coalition_level"] == "tactical"
    # Bagration in play: 6 + 2 = 8 of Gazan's needed -> not reached.
    assert victory_with_options(SC, st, frozenset({"11.4"}), frozenset({"bagration"}))["coalition_level"] == "none"
    with pytest.raises(RuleViolation):
        victory_with_options(SC, st, frozenset({"11.9"}))


def test_6_1_4_leaderless_command():
    from engine.tbf.game.activation import leaderless_activation
    st = initial_state(SC)
    with pytest.raises(RuleViolation):
        leaderless_activation(SC, st, "I", "ci-1")
    st = st.with_piece("miloradovich", status="killed", hex=None).with_piece("ci-6", hex="2211")
    plan = leaderless_activation(SC, st, "I", "ci-1")          # ci-1 in 2411
    assert "ci-2" in plan["units"] and "ci-6" in plan["out_of_command"]


def test_6_1_3_A_extra_units_within_four_hexes():
    plan = activation_plan(SC, initial_state(SC), "kutusov")
    assert plan["extra_units_allowed"] == SC.leaders["kutusov"].cv
    g = SC.board.grid
    assert all(g.distance(initial_state(SC).piece(u).hex, "2810") <= 4 for u in plan["extra_candidates"])


def test_6_2_3_level_roll_chart():
    from engine.tbf.game.search import level_roll
    d = distribution(lambda: level_roll(SC, "infantry"))
    # shipped chart, Level 2 infantry hexes 1,1,2,2,3,3 and Level 3 0,0,1,1,1,2 by face
    assert d[(1, 0)] == Fraction(1, 3) and d[(3, 2)] == Fraction(1, 6)


def test_11_8_cavalry_retreat_before_combat():
    from engine.tbf.game.retreat import cavalry_retreat_before_combat
    st = _empty_state(**{"drag-3": ("1914", 0), "ci-1": ("1913", 3)})       # battalion north of it, facing S
    paths = cavalry_retreat_before_combat(SC, st, "drag-3")
    assert paths and all(len(p) == 2 for p in paths)
    front = enemy_front(SC, st, "french")
    assert all(p[1] not in front for p in paths)
    st2 = _empty_state(**{"drag-3": ("1914", 0), "ci-1": ("1913", 0)})      # facing away: not threatened
    assert cavalry_retreat_before_combat(SC, st2, "drag-3") == []


from hypothesis import given, settings, strategies as st_

_HEXES = SC.board.hexes()


@settings(max_examples=80, deadline=None)
@given(a=st_.sampled_from(_HEXES), b=st_.sampled_from(_HEXES))
def test_4_4_terrain_los_is_symmetric_and_open_next_door(a, b):
    t = SC.tables
    ab = SC.board.los(a, b, t).clear
    assert ab == SC.board.los(b, a, t).clear
    if SC.board.grid.distance(a, b) <= 1:
        assert ab                                   # nothing lies between (4.4 C)
    assert SC.board.los(a, b, t, viewer="howitzer").clear   # 4.4 F


@settings(max_examples=40, deadline=None)
@given(h=st_.sampled_from([h for h in _HEXES if SC.board.terrain(h) != "river"]))
def test_6_6_retreat_options_never_enter_enemy_units(h):
    st = _empty_state(**{"100-1": (h, 0), "ci-1": (SC.board.grid.neighbours(h)[0], 3)})
    opts = retreat_options(SC, st, ("100-1",), h)
    assert all(x != st.piece("ci-1").hex for x, _, _ in opts)
    assert [r for _, r, _ in opts] == sorted(r for _, r, _ in opts)


def test_9_1_9_3_setup_is_legal_and_problems_are_named():
    from engine.tbf.game.setup import setup_problems
    st = initial_state(SC)
    assert setup_problems(SC, st) == []
    bad = st.with_piece("ci-1", hex="2311").with_piece("cv-1", hex="2710")
    probs = setup_problems(SC, bad)
    assert any(p.startswith("9.1 C") for p in probs) and any(p.startswith("9.1 D") for p in probs)


def test_9_2_C_D_muster_hexes():
    from engine.tbf.game.exclusive import muster_hexes
    g, b = SC.board.grid, SC.board
    ii = muster_hexes(SC, "II")
    assert ii and all(g.distance(h, "0805") <= 2 and (b.level(h) == 1 or b.terrain(h) == "town") for h in ii)
    iii = muster_hexes(SC, "III")
    assert iii and all(g.distance(h, "1307") <= 2 and b.level(h) == 2 for h in iii)
    with pytest.raises(RuleViolation):
        muster_hexes(SC, "V")
