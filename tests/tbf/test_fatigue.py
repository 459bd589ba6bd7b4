"""Fatigue Checks (4.2): probabilities worked out by hand from the rules and the shipped table."""
from collections import Counter
from fractions import Fraction
from functools import partial

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, distribution, play, replay
from engine.tbf.fatigue import CheckSpec, check_distribution, check_proc, fatigue_check, pass_chance
from engine.tbf.tables import default_tables

T = default_tables()


def test_4_2_2_C_being_charged_fv4_with_cv1_leader_passes_on_1_to_5(tables):
    # Being Charged has DRM 0 in the shipped table; a CV 1 leader gives -1.
    # d6 - 1 <= 4  <=>  d6 <= 5  -> faces 1..5 -> 5/6.
    assert pass_chance(tables, CheckSpec("being_charged", 4, leader_cvs=(1,))) == Fraction(5, 6)


def test_4_2_2_C_leaders_of_the_chain_add_up(tables):
    # Brigade CV 1 and corps CV 2 both next to the unit (4.2.2 C clarification): d6 - 3 <= 2 -> d6 <= 5.
    assert pass_chance(tables, CheckSpec("being_charged", 2, leader_cvs=(1, 2))) == Fraction(5, 6)


def test_6_1_3_C_pass_is_at_or_under_fv(tables):
    # Out of Command, DRM 0, FV 3: faces 1, 2, 3 pass -> 1/2; the result 3 equals the FV and passes.
    d = check_distribution(tables, CheckSpec("out_of_command", 3))
    assert d.prob(lambda o: o.passed) == Fraction(1, 2)
    out = play(check_proc(tables, CheckSpec("out_of_command", 3)), dice=TypedDice([3])).result
    assert out.passed and out.effect == "act"


def test_6_4_D_half_fv_doubling_without_leader(tables):
    # Attacker check, DRM 0, FV 4: pass on 1-4 (4/6); doubled when the result < 4 // 2 = 2 -> face 1 -> 1/6.
    d = check_distribution(tables, CheckSpec("attacker_melee", 4))
    assert d.prob(lambda o: o.passed) == Fraction(2, 3)
    assert d.prob(lambda o: o.doubled) == Fraction(1, 6)


def test_6_4_D_half_fv_doubling_with_cv1_leader(tables):
    # d6 - 1 < 2  <=>  d6 <= 2 -> 2/6 = 1/3 doubled; pass d6 - 1 <= 4 -> 5/6.
    d = check_distribution(tables, CheckSpec("attacker_melee", 4, leader_cvs=(1,)))
    assert d.prob(lambda o: o.doubled) == Fraction(1, 3)
    assert d.prob(lambda o: o.passed) == Fraction(5, 6)


def test_6_4_D_odd_fv_half_rounds_down(tables):
    # FV 5: half rounded down = 2, so only a result of 1 doubles -> 1/6.
    assert check_distribution(tables, CheckSpec("attacker_melee", 5)).prob(lambda o: o.doubled) == Fraction(1, 6)


def test_6_2_8_F_routed_target_plus_2_surrenders_on_failure(tables):
    # Routed, FV 3: d6 + 2 <= 3 -> face 1 -> 1/6 stands at half MF; 5/6 surrenders.
    d = check_distribution(tables, CheckSpec("being_charged", 3, "routed"))
    assert d.prob(lambda o: o.effect == "stand_half") == Fraction(1, 6)
    assert d.prob(lambda o: o.effect == "surrender") == Fraction(5, 6)


def test_6_7_J_routed_defender_plus_1(tables):
    # Routed, FV 3: d6 + 1 <= 3 -> faces 1, 2 -> 1/3 stands at half MF, else surrenders.
    d = check_distribution(tables, CheckSpec("defender_melee", 3, "routed"))
    assert d.prob(lambda o: o.effect == "stand_half") == Fraction(1, 3)
    assert d.prob(lambda o: o.status == "surrendered") == Fraction(2, 3)


def test_6_7_A_fatigued_unit_failing_routs_but_not_on_remove_fatigue(tables):
    # Leader Loss DRM +1, fatigued FV 2: d6 + 1 <= 2 -> face 1 passes; 5/6 fail -> rout.
    d = check_distribution(tables, CheckSpec("leader_loss", 2, "fatigued"))
    assert d.prob(lambda o: o.status == "routed") == Fraction(5, 6)
    d2 = check_distribution(tables, CheckSpec("remove_fatigue", 2, "fatigued"))
    assert d2.prob(lambda o: o.status == "routed") == 0
    assert d2.prob(lambda o: o.status == "normal") == Fraction(1, 3)   # faces 1, 2


def test_7_0_E_rally_leaves_unit_fatigued(tables):
    # Rally DRM +1, FV 4: d6 + 1 <= 4 -> faces 1..3 -> 1/2, and the unit is then fatigued.
    d = check_distribution(tables, CheckSpec("rally_from_rout", 4, "routed"))
    assert d[next(o for o in d if o.passed)] == Fraction(1, 2)
    assert all(o.status == "fatigued" for o in d if o.passed)


def test_4_2_1_unknown_check_is_a_clear_error(tables):
    with pytest.raises(RuleViolation) as e:
        pass_chance(tables, CheckSpec("being_tickled", 4))
    assert "being_tickled" in str(e.value) and "being_charged" in str(e.value)


@pytest.mark.parametrize("fv", [0, 7, -1])
def test_2_4_3_9_fv_outside_counter_range_is_refused(tables, fv):
    with pytest.raises(RuleViolation) as e:
        pass_chance(tables, CheckSpec("being_charged", fv))
    assert "outside" in str(e.value)


def test_4_2_4_F_fatigued_cavalry_does_not_take_the_charge_check(tables):
    with pytest.raises(RuleViolation) as e:
        pass_chance(tables, CheckSpec("attempting_to_charge", 4, "fatigued"))
    assert e.value.rule == "6.2.8 D"


def test_replay_reproduces_a_played_check(tables):
    f = check_proc(tables, CheckSpec("defender_melee", 4, leader_cvs=(1,)))
    p = play(f, seed=11)
    assert replay(f, p.events).result == p.result


@settings(max_examples=60, deadline=None)
@given(check=st.sampled_from(sorted(T.fatigue.checks)), fv=st.integers(1, 6),
       status=st.sampled_from(["normal", "fatigued", "routed"]), cvs=st.lists(st.integers(0, 3), max_size=3))
def test_4_2_2_every_check_distribution_sums_to_one_and_matches_face_count(check, fv, status, cvs):
    cd = T.fatigue.checks[check]
    if status not in cd.allowed:
        return
    spec = CheckSpec(check, fv, status, tuple(cvs))
    d = check_distribution(T, spec)
    assert d.total == 1
    faces = sum(1 for f in range(1, 7) if f + spec.total_drm(T) <= fv)
    assert d.prob(lambda o: o.passed) == Fraction(faces, 6)


@settings(max_examples=25, deadline=None)
@given(fv=st.integers(1, 5), cv=st.integers(0, 2))
def test_4_2_2_higher_fv_never_lowers_the_pass_chance(fv, cv):
    a = pass_chance(T, CheckSpec("being_charged", fv, leader_cvs=(cv,)))
    b = pass_chance(T, CheckSpec("being_charged", fv + 1, leader_cvs=(cv,)))
    assert b >= a


def test_4_2_2_play_agrees_with_enumeration(tables):
    spec = CheckSpec("attacker_melee", 4, leader_cvs=(1,))
    exact = check_distribution(tables, spec)
    f = check_proc(tables, spec)
    n = 3000
    from engine.core.procedure import RandomDice, Stepper
    dice = RandomDice(5)
    counts = Counter(Stepper(f).run(dice, None).result for _ in range(n))
    for outcome, p in exact.items():
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(counts[outcome] / n - float(p)) < 4.5 * sigma + 1e-9
