"""Cavalry charges (6.2.8-6.2.11): a two-target chain worked out by hand, geometry errors, counter and
reaction charges, trees that sum to 1, play agreeing with the exact tree."""
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import RandomDice, Stepper, TypedDice, enumerate_tree, first_option, play, replay
from engine.tbf.charge import ChargeSetup, Reactor, Target, charge_from_spec, charge_proc
from engine.tbf.melee import Fighter
from engine.tbf.policies import passive
from engine.tbf.tables import default_tables

T = default_tables()


def two_target_spec(fv1=3, fv2=2, melee=False, **extra):
    spec = {
        "charger": {"name": "Drag", "hex": "1214", "facing": "NE", "fv": 4, "mf": 3, "ma": 8},
        "path": ["1314", "1413", "1513"],
        "targets": [
            {"hex": "1513", "units": [{"name": "A", "fv": fv1, "mf": 4}], "rout_to": "1611"},
            {"hex": "1612", "units": [{"name": "B", "fv": fv2, "mf": 4}], "rout_to": "1809"},
        ],
        "melee": melee,
    }
    spec.update(extra)
    return spec


def test_6_2_8_two_target_charge_by_hand(board):
    # Attempt: FV 4, DRM 0 -> pass on 1-4 = 2/3.        (6.2.8 D)
    # Target A: FV 3 -> stands on 1-3 = 1/2, routs 1/2.  (6.2.8 E)
    # Target B: FV 2 -> stands on 1-2 = 1/3, routs 2/3.  (6.2.8 G: no new attempt check)
    # no charge           1/3
    # A stands            2/3 * 1/2        = 1/3
    # A routs, B stands   2/3 * 1/2 * 1/3  = 1/9
    # both rout           2/3 * 1/2 * 2/3  = 2/9
    setup = charge_from_spec(two_target_spec(), board.grid)
    d = enumerate_tree(charge_proc(T, setup)).distribution()
    assert d.prob(lambda o: not o.attempted) == Fraction(1, 3)
    assert d.prob(lambda o: o.stopped == "target stands" and len(o.steps) == 1) == Fraction(1, 3)
    assert d.prob(lambda o: o.stopped == "target stands" and len(o.steps) == 2) == Fraction(1, 9)
    assert d.prob(lambda o: o.stopped == "no more targets") == Fraction(2, 9)
    # 6.2.8 I: after both rout the charger is in 1612, next to A's rout hex 1611: A surrenders.
    assert d.prob(lambda o: "A" in o.surrendered) == Fraction(2, 9)
    assert d.total == 1


def test_6_2_8_H_charge_stops_when_mps_run_out(board):
    # MA 6, declared with 6 MPs: approach 2 + target 1 = 3 used, 3 left; next target costs 4 -> stop.
    spec = two_target_spec()
    spec["charger"]["ma"] = 6
    spec["path_costs"] = {"1612": 4}
    setup = charge_from_spec(spec, board.grid)
    setup = ChargeSetup(setup.charger, (setup.targets[0], Target("1612", setup.targets[1].units, cost=4)),
                        setup.mp_left, setup.approach_cost, setup.start_next_to_first, (), False, board.grid)
    d = enumerate_tree(charge_proc(T, setup)).distribution()
    # attempt 2/3, A routs 1/2 -> 1/3 stops out of MPs.
    assert d.prob(lambda o: o.stopped == "out of MPs") == Fraction(1, 3)


def test_6_2_8_A_half_ma_needed(board):
    spec = two_target_spec(mp_left=3)
    with pytest.raises(RuleViolation) as e:
        charge_from_spec(spec, board.grid) and charge_proc(T, charge_from_spec(spec, board.grid))
    assert e.value.rule == "6.2.8 A"


def test_6_2_11_bent_path_is_refused(board):
    spec = two_target_spec()
    spec["path"] = ["1314", "1414", "1513"]
    with pytest.raises(RuleViolation) as e:
        charge_from_spec(spec, board.grid)
    assert e.value.rule == "6.2.11" and "not straight" in str(e.value)


def test_6_2_8_C_target_too_close(board):
    spec = two_target_spec()
    spec["path"] = ["1314", "1413"]
    spec["targets"][0]["hex"] = "1413"
    with pytest.raises(RuleViolation) as e:
        charge_from_spec(spec, board.grid)
    assert e.value.rule == "6.2.8 C"


def test_6_2_8_C_path_outside_frontal_arc(board):
    spec = two_target_spec()
    spec["charger"]["facing"] = "SW"
    with pytest.raises(RuleViolation) as e:
        charge_from_spec(spec, board.grid)
    assert "frontal arc" in str(e.value)


def test_4_2_4_F_fatigued_cavalry_cannot_charge(board):
    spec = two_target_spec()
    spec["charger"]["status"] = "fatigued"
    with pytest.raises(RuleViolation) as e:
        charge_proc(T, charge_from_spec(spec, board.grid))
    assert e.value.rule == "4.2.4 F"


def test_charge_file_missing_field_is_a_data_error(board):
    with pytest.raises(DataError) as e:
        charge_from_spec({"charger": {}, "path": []}, board.grid, "c.yaml")
    assert "targets" in str(e.value) and "c.yaml" in str(e.value)


def test_6_2_8_B_charge_through_level_2_refused(board, tables):
    spec = {"charger": {"name": "D", "hex": "1314", "facing": "N", "fv": 4, "mf": 3, "ma": 8},
            "path": ["1313", "1312", "1311", "1310"], "targets": [{"units": [{"name": "X", "fv": 3, "mf": 2}]}]}
    with pytest.raises(RuleViolation) as e:
        charge_from_spec(spec, board.grid, terrain=board.charge_terrain(tables))
    assert e.value.rule == "6.2.8 B"


def _cav_target_setup(board):
    spec = two_target_spec()
    spec["targets"] = [{"hex": "1513", "units": [{"name": "Hussars", "fv": 3, "mf": 3, "kind": "cavalry", "ma": 8}]}]
    return charge_from_spec(spec, board.grid)


def test_6_2_9_counter_charge_by_hand(board):
    # Attempt 2/3; the hussars' Being Charged check FV 3 passes 1/2 -> with the always-counter policy
    # they counter charge: 2/3 * 1/2 = 1/3; failing -> rout 1/3.
    setup = _cav_target_setup(board)
    d = enumerate_tree(charge_proc(T, setup), policy=first_option).distribution()
    assert d.prob(lambda o: o.stopped == "counter charge") == Fraction(1, 3)
    d2 = enumerate_tree(charge_proc(T, setup), policy=passive).distribution()
    assert d2.prob(lambda o: o.stopped == "counter charge") == 0
    assert d2.prob(lambda o: o.stopped == "target stands") == Fraction(1, 3)


def test_6_2_10_reaction_charge_halts_the_charge(board):
    # Reactor FV 5: its Attempting to Charge check passes on 1-5 = 5/6.  P = 2/3 * 5/6 = 5/9.
    base = charge_from_spec(two_target_spec(), board.grid)
    setup = ChargeSetup(base.charger, base.targets, base.mp_left, base.approach_cost, base.start_next_to_first,
                        (Reactor(Fighter("Cossacks", 2, 5, "cavalry", ma=9), 0),), False, board.grid)
    d = enumerate_tree(charge_proc(T, setup)).distribution()
    assert d.prob(lambda o: o.stopped == "reaction charge") == Fraction(5, 9)


def test_charge_with_typed_dice_and_replay(board):
    setup = charge_from_spec(two_target_spec(melee=True), board.grid)
    f = charge_proc(T, setup)
    # attempt 2 (pass), A rolls 5 (routs), B rolls 1 (stands), melee d10 7
    p = play(f, dice=TypedDice([2, 5, 1, 7]))
    assert p.result.stopped == "target stands" and p.result.melee
    assert replay(f, p.events).result == p.result


@settings(max_examples=20, deadline=None)
@given(fv0=st.integers(1, 6), fv1=st.integers(1, 6), fv2=st.integers(1, 6),
       status=st.sampled_from(["normal", "fatigued", "routed"]), melee=st.booleans())
def test_charge_trees_sum_to_exactly_one(fv0, fv1, fv2, status, melee):
    from engine.tbf.board import default_board
    spec = two_target_spec(fv1, fv2, melee)
    spec["charger"]["fv"] = fv0
    spec["targets"][0]["units"][0]["status"] = status
    t = enumerate_tree(charge_proc(T, charge_from_spec(spec, default_board().grid)))
    assert t.total() == 1
    assert sum(n.path_probability for n in t.leaf_nodes()) == 1


def test_charge_play_agrees_with_enumeration(board):
    setup = charge_from_spec(two_target_spec(), board.grid)
    f = charge_proc(T, setup)
    exact = enumerate_tree(f).distribution()
    n = 2000
    dice = RandomDice(3)
    counts = Counter(Stepper(f).run(dice, first_option).result.stopped for _ in range(n))
    for key in ("attempt failed", "target stands", "no more targets"):
        p = float(exact.prob(lambda o: o.stopped == key))
        sigma = (p * (1 - p) / n) ** 0.5
        assert abs(counts[key] / n - p) < 4.5 * sigma


def test_6_2_8_K_defensive_fire_can_stop_the_charge(board):
    # Attempt 2/3; A (FV 3) stands 1/2; A fires FF 3 (column 3): R, F or FR on 7-10 = 2/5 -> no melee.
    # 2/3 * 1/2 * 2/5 = 2/15.
    spec = two_target_spec(melee=True, defensive_fire=True)
    spec["targets"][0]["units"][0]["ff"] = 3
    d = enumerate_tree(charge_proc(T, charge_from_spec(spec, board.grid))).distribution()
    assert d.prob(lambda o: o.stopped == "defensive fire") == Fraction(2, 15)
    assert all(not o.melee for o in d if o.stopped == "defensive fire")
    assert d.total == 1


@pytest.mark.parametrize("mutate,field", [
    (lambda s: s.update(path=5), "path"),
    (lambda s: s["charger"].update(ma="x"), ""),
    (lambda s: s["targets"][0].update(units=5), ""),
    (lambda s: s["charger"].update(leader_cvs="a"), "charger.leader_cvs"),
    (lambda s: s["targets"][0]["units"][0].update(fv="3"), "targets[0].units[0].fv"),
    (lambda s: s["charger"].update(facing="UP"), "charger.facing"),
])
def test_malformed_charge_files_are_data_errors(board, mutate, field):
    spec = two_target_spec()
    mutate(spec)
    with pytest.raises(DataError) as e:
        charge_from_spec(spec, board.grid, "c.yaml")
    assert "c.yaml" in str(e.value) and field in str(e.value)
