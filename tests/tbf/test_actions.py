"""Actions on the Dürenstein state: fire, melee and charge applied to pieces (6.2.8, 6.3, 6.4)."""
from fractions import Fraction
from functools import partial

import pytest

from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, distribution, play, replay
from engine.tbf.game.cavalry_charge import charge_action, charge_setup
from engine.tbf.game.fire_combat import fire_action, fire_setup
from engine.tbf.game.melee_combat import melee_action, melee_setup
from engine.tbf.scenario import default_scenario
from engine.tbf.game.setup import initial_state

SC = default_scenario()
ST = initial_state(SC)


def test_6_3_2_A_fire_only_into_the_front():
    st = ST.with_piece("ci-1", hex="2114", facing=4)
    assert fire_setup(SC, st, ("4l-1",), "2114").firers[0].ff == SC.units["4l-1"].ff
    st2 = st.with_piece("4l-1", facing=4)        # now facing away (SW)
    with pytest.raises(RuleViolation) as e:
        fire_setup(SC, st2, ("4l-1",), "2114")
    assert e.value.rule == "6.3.2 A"


def test_4_2_4_C_fatigued_unit_fires_defensively_into_any_adjacent_hex():
    st = ST.with_piece("ci-1", hex="2114", facing=4).with_piece("4l-1", facing=4, status="fatigued")
    with pytest.raises(RuleViolation):
        fire_setup(SC, st, ("4l-1",), "2114")
    s = fire_setup(SC, st, ("4l-1",), "2114", defensive=True)
    assert s.defensive and s.firers[0].status == "fatigued"


def test_8_1_night_from_turn_11():
    st = ST.with_piece("ci-1", hex="2114", facing=4)
    from dataclasses import replace
    assert not fire_setup(SC, st, ("4l-1",), "2114").night
    assert fire_setup(SC, replace(st, turn=11), ("4l-1",), "2114").night


def test_6_3_7_fire_result_fatigues_the_target():
    # FF 3, column 3: F on 8-9 and FR on 10 both fatigue; R on 7 only retreats.
    st = ST.with_piece("ci-1", hex="2114", facing=4)
    d = distribution(partial(fire_action, SC, st, ("4l-1",), "2114"))
    assert d.prob(lambda s: s.piece("ci-1").status == "fatigued") == Fraction(3, 10)
    assert d.total == 1


def test_6_3_8_advance_into_a_vacated_hex_is_offered():
    # A d10 of 10 gives FR: the battalion is fatigued and retreats; the hex is empty, the French advance.
    st = ST.with_piece("ci-1", hex="2114", facing=4)
    f = partial(fire_action, SC, st, ("4l-1",), "2114")
    p = play(f, dice=TypedDice([10]), chooser=lambda req: req.options[0])
    assert p.result.piece("ci-1").hex != "2114"
    assert p.result.piece("4l-1").hex == "2114"
    assert replay(f, p.events).result == p.result


def test_6_4_E_attack_from_behind_is_a_flank_attack():
    st = ST.with_piece("ci-1", hex="2114", facing=1)   # faces NE, away from 2014
    s = melee_setup(SC, st, ("4l-1",), "2114")
    assert s.attackers[0].flank
    st2 = ST.with_piece("ci-1", hex="2114", facing=4)  # faces SW, toward 2014
    assert not melee_setup(SC, st2, ("4l-1",), "2114").attackers[0].flank


def test_6_4_J_melee_state_distribution_and_mandatory_advance():
    st = ST.with_piece("ci-1", hex="2114", facing=4)
    d = distribution(partial(melee_action, SC, st, ("4l-1",), "2114"))
    assert d.total == 1
    for s in d:
        if not [p for p in s.on_map() if p.hex == "2114" and p.id.startswith("c")]:
            # vacated: somebody French advanced unless the attacker itself fell back or was destroyed
            assert s.piece("4l-1").hex in ("2114", "2014") or s.piece("4l-1").hex is None


def _only(**placed):
    from dataclasses import replace
    st = replace(ST, pieces=tuple(replace(p, hex=None) for p in ST.pieces))
    for pid, (h, facing) in placed.items():
        st = st.with_piece(pid, hex=h, facing=facing)
    return st


def test_6_2_8_charge_from_the_map_sets_charged_and_fatigue():
    st = _only(**{"drag-3": ("1914", 1), "ci-1": ("2212", 4), "ci-2": ("2312", 4)})
    f = partial(charge_action, SC, st, "drag-3", ("2013", "2113", "2212"), ("2312",))
    d = distribution(f)
    assert d.total == 1
    # attempt fails on 5-6 (FV 4): nothing changes, 1/3
    assert d[st] == Fraction(1, 3)
    for s in d:
        if s != st and s.piece("drag-3").hex is not None:
            assert s.piece("drag-3").charged and s.piece("drag-3").status == "fatigued"   # 6.2.8 J-L


def test_6_2_8_charge_setup_computes_rout_destinations():
    st = ST.with_piece("ci-1", hex="2212", facing=4)
    s = charge_setup(SC, st, "drag-3", ("2013", "2113", "2212"))
    assert s.targets[0].rout_to is not None and s.targets[0].units[0].name == "ci-1"


def test_6_2_9_counter_charge_on_the_map_marks_both():
    # Attempt 2/3 (FV 4); the Cossacks' Being Charged check FV 3 passes 1/2 and they counter charge.
    st = _only(**{"drag-3": ("1914", 1), "ci-cav1": ("2212", 4)})
    d = distribution(partial(charge_action, SC, st, "drag-3", ("2013", "2113", "2212")))
    assert d.prob(lambda s: s.piece("ci-cav1").charged) == Fraction(1, 3)


def test_6_2_10_reaction_charge_on_the_map():
    # Cossacks at 2114 facing N see the path hex 2013 within two hexes: attempt 2/3 x their check 1/2.
    st = _only(**{"drag-3": ("1914", 1), "ci-1": ("2212", 4), "cii-cav1": ("2114", 0)})
    assert charge_setup(SC, st, "drag-3", ("2013", "2113", "2212")).reactors
    d = distribution(partial(charge_action, SC, st, "drag-3", ("2013", "2113", "2212")))
    assert d.prob(lambda s: s.piece("cii-cav1").charged) == Fraction(1, 3)


def test_8_2_C_grand_battery_fires_at_ff_20():
    st = ST.with_piece("100-1", hex="3313")
    s = fire_setup(SC, st, ("gb:3412",), "3313")
    from engine.tbf.fire import effective_ff
    assert effective_ff(s.firers[0], s, SC.tables) == 20
    with pytest.raises(RuleViolation) as e:
        fire_setup(SC, ST.with_piece("100-1", hex="3411"), ("gb:3412",), "3411")   # north: no gun that way
    assert e.value.rule == "8.2 C"


def test_4_1_9_overstack_checks_every_unit():
    from engine.tbf.game.rout import overstack_checks
    st = _only(**{"100-1": ("1616", 0), "103-1": ("1616", 0), "art-1": ("1616", 0)})
    # infantry FV 5 with DRM +1, no leader: pass on 1-4 (2/3), fail -> fatigued; the battery FV 4 passes
    # on 1-3 (1/2). All three pass: 2/3 * 2/3 * 1/2 = 2/9.
    d = distribution(partial(overstack_checks, SC, st, "1616"))
    assert d.prob(lambda s: s.piece("100-1").status == "fatigued") == Fraction(1, 3)
    assert d.prob(lambda s: all(s.piece(u).status == "normal" for u in ("100-1", "103-1", "art-1"))) == Fraction(2, 9)


def test_6_2_move_action_and_8_4_C_strong_point_removal():
    from engine.tbf.game.movement import move_action
    st = ST.with_piece("ci-1", hex="1618", facing=4)      # next to the Elite: it may move (9.4 B)
    d = distribution(partial(move_action, SC, st, "elite", "1517"))
    for s in d:
        assert s.piece("elite").hex == "1517" and "strong_point_removed" in s.flags
    from dataclasses import replace as rp
    with pytest.raises(RuleViolation) as e:
        distribution(partial(move_action, SC, rp(ST, turn=4), "100-1", "1518"))   # 8.4 A: only the Elite
    assert e.value.rule == "6.2.1"
    with pytest.raises(RuleViolation) as e:
        distribution(partial(move_action, SC, ST, "elite", "1517"))           # 9.4 B: not released yet
    assert e.value.rule == "9.4 B"


def test_6_2_5_B_moving_into_a_lone_leader_captures_him():
    from engine.tbf.game.movement import move_action
    st = _only(**{"4l-1": ("2014", 1), "miloradovich": ("2114", 0)})
    d = distribution(partial(move_action, SC, st, "4l-1", "2114"))
    assert all(s.piece("miloradovich").status == "captured" for s in d)


def test_4_1_9_moving_into_an_overstack_checks():
    from engine.tbf.game.movement import move_action
    from dataclasses import replace as rp
    st = _only(**{"100-1": ("1616", 0), "103-1": ("1616", 0), "100-2": ("1615", 0)})
    st = rp(st.with_flag("alert"), turn=4)                  # Gazan's division free to act from turn 4 (9.4 C)
    d = distribution(partial(move_action, SC, st, "100-2", "1616"))
    assert d.prob(lambda s: s.piece("100-2").status == "fatigued") == Fraction(1, 3)   # FV 5, +1: fail on 5-6


def test_8_3_A_elite_parents_fight_weaker():
    from engine.tbf.game.exclusive import factors
    u = SC.units["100-1"]
    assert factors(SC, ST, "100-1") == (u.ff - 1, u.mf - 2)
    assert factors(SC, ST.with_flag("elite_disbanded"), "100-1") == (u.ff, u.mf)
    assert factors(SC, ST, "4l-1") == (SC.units["4l-1"].ff, SC.units["4l-1"].mf)


def test_6_3_5_lone_leader_fires_defensively_then_falls_back():
    st = _only(**{"gazan": ("1418", 0), "ci-1": ("1417", 3)})
    s = fire_setup(SC, st, ("gazan",), "1417", defensive=True)
    assert s.firers[0].kind == "leader"
    d = distribution(partial(fire_action, SC, st, ("gazan",), "1417", True))
    for res in d:
        h = res.piece("gazan").hex
        assert h is None or SC.board.grid.distance(h, "1417") >= 2
    with pytest.raises(RuleViolation):
        fire_setup(SC, st, ("gazan",), "1417", defensive=False)


def test_5_3_E_regroup_placement():
    from engine.tbf.game.reinforcement import regroup_hexes
    hs = regroup_hexes(SC, ST, "100-1")
    g = SC.board.grid
    assert hs and all(min(g.distance(h, ST.piece(l).hex) for l in ("campana", "gazan", "mortier")) <= 2 for h in hs)
    enemies = [p.hex for p in ST.on_map() if SC.side(p.id) == "coalition" and not SC.is_leader(p.id)]
    assert all(min(g.distance(h, e) for e in enemies) > 2 for h in hs)


def test_6_6_A_entering_an_empty_enemy_town_takes_control():
    from engine.tbf.game.movement import move_action
    st = _only(**{"ci-1": ("2114", 4)})
    assert st.controller("Rothenhof") == "french"
    d = distribution(partial(move_action, SC, st, "ci-1", "2014"))
    assert all(s.controller("Rothenhof") == "coalition" for s in d)
    # a town hex next to a French battalion still in the town: no change (Unterloiben 1716/1717)
    st2 = _only(**{"ci-1": ("1815", 4), "100-1": ("1717", 0)})
    d2 = distribution(partial(move_action, SC, st2, "ci-1", "1716"))
    assert all(s.controller("Unterloiben") == "french" for s in d2)


def test_6_1_3_C_out_of_command_check_on_the_map():
    from engine.tbf.game.activation import out_of_command_check
    st = _only(**{"ci-6": ("1911", 4)})
    # FV 3, DRM 0, no leader near: acts on 1-3 -> 1/2; a fresh unit failing simply stays put.
    d = distribution(partial(out_of_command_check, SC, st, "ci-6"))
    assert d.prob(lambda r: r[0]) == Fraction(1, 2)
    assert all(r[1].piece("ci-6").status == "normal" for r in d)
    # fatigued (FV 2) failing routs (6.7 A): fails on 3-6 -> 2/3
    st2 = st.with_piece("ci-6", status="fatigued")
    d2 = distribution(partial(out_of_command_check, SC, st2, "ci-6"))
    assert d2.prob(lambda r: r[1].piece("ci-6").status in ("routed", "eliminated")) == Fraction(2, 3)


def test_7_0_recovery_phase():
    from engine.tbf.game.phases import recovery_phase
    st = _only(**{"drag-1": ("1214", 0), "100-1": ("1616", 0), "ci-1": ("2411", 4)})
    st = st.with_piece("drag-1", status="fatigued", charged=True).with_piece("100-1", status="fatigued")
    d = distribution(partial(recovery_phase, SC, st))
    # drag-1 charged: no attempt (7.0 C). 100-1 fatigued FV 3, Remove Fatigue DRM 0, Campana/Gazan off map: 1/2.
    assert all(s.piece("drag-1").status == "fatigued" and not s.piece("drag-1").charged for s in d)
    assert d.prob(lambda s: s.piece("100-1").status == "normal") == Fraction(1, 2)
    assert all(s.turn == 2 for s in d)


def test_9_2_9_6_2_reinforcement_phase_flags():
    from dataclasses import replace as rp
    from engine.tbf.game.reinforcement import reinforcement_phase
    st = rp(ST, turn=6)
    d = distribution(partial(reinforcement_phase, SC, st))
    # Dupont on a 6 at turn 6 (1/6).
    assert d.prob(lambda s: "dupont_arrived" in s.flags) == Fraction(1, 6)
    assert d.total == 1


def test_6_4_I_a_leader_in_a_melee_checks_exactly_once():
    # Gaindorge stacked with the attacker: killed 1/36 (a 6, then a 6), wounded 1/36 -- whatever the result.
    st = _only(**{"4l-1": ("2014", 1), "gaindorge": ("2014", 0), "ci-1": ("2114", 4)})
    d = distribution(partial(melee_action, SC, st, ("4l-1",), "2114"))
    killed = d.prob(lambda s: s.piece("gaindorge").status == "killed")
    wounded = d.prob(lambda s: s.piece("gaindorge").status == "wounded")
    assert killed == Fraction(1, 36) and wounded == Fraction(1, 36)
