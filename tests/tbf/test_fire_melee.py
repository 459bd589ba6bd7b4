"""Fire combat (6.3) and melee (6.4) against the shipped provisional tables, worked by hand."""
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, distribution, play
from engine.tbf.fire import Firer, FireSetup, effective_ff, fire_distribution, fire_proc, leader_casualty
from engine.tbf.melee import Fighter, MeleeSetup, melee_distribution, melee_proc
from engine.tbf.tables import default_tables

T = default_tables()


def test_6_3_7_three_ff_adjacent_by_hand(tables):
    # Column 3, no DRM. Shipped table column 3: 1-6 "-", 7 R, 8-9 F, 10 FR.
    d = fire_distribution(tables, FireSetup((Firer(2), Firer(1))))
    assert d.prob(lambda o: o.result == "-") == Fraction(6, 10)
    assert d.prob(lambda o: o.result == "R") == Fraction(1, 10)
    assert d.prob(lambda o: o.result == "F") == Fraction(2, 10)
    assert d.prob(lambda o: o.result == "FR") == Fraction(1, 10)
    assert all(o.column == "3" for o in d)


def test_6_3_7_B_totals_over_13_use_13_plus(tables):
    d = fire_distribution(tables, FireSetup((Firer(9), Firer(8))))
    assert {o.column for o in d} == {"13+"}


def test_6_3_4_B_artillery_halved_at_four_hexes(tables):
    # FF 5 at 4 hexes -> 5 // 2 = 2; at 3 hexes it stays 5.
    s = FireSetup((Firer(5, "artillery", 4),))
    assert effective_ff(s.firers[0], s, tables) == 2
    s3 = FireSetup((Firer(5, "artillery", 3),))
    assert effective_ff(s3.firers[0], s3, tables) == 5


def test_6_3_4_C_howitzer_misses_on_natural_1(tables):
    f = fire_proc(tables, FireSetup((Firer(4, "howitzer", 3),)))
    out = play(f, dice=TypedDice([1])).result
    assert out.column is None and out.result == "-"
    # halved at 3 hexes: 4 // 2 = 2 -> column 2
    assert play(f, dice=TypedDice([2])).result.column == "2"


def test_8_1_night_shifts(tables):
    # Adjacent fire FF 4 at night: one column left -> column 3. Artillery at 2 hexes: two left -> 2.
    d = fire_distribution(tables, FireSetup((Firer(4),), night=True))
    assert {o.column for o in d} == {"3"}
    d2 = fire_distribution(tables, FireSetup((Firer(4, "artillery", 2),), night=True))
    assert {o.column for o in d2} == {"2"}


def test_8_2_C_grand_battery_fires_at_20(tables):
    s = FireSetup((Firer(0, "grand_battery", 2),))
    assert effective_ff(s.firers[0], s, tables) == 20


@pytest.mark.parametrize("firer,setup_kw,rule", [
    (Firer(3, "infantry", 2), {}, "6.3.3"),
    (Firer(3, "artillery", 5), {}, "6.3.3"),
    (Firer(2, "cavalry"), {}, "6.3.2 D"),
    (Firer(2, status="routed"), {}, "6.3.2 C"),
    (Firer(2, status="fatigued"), {}, "4.2.4 C"),
    (Firer(1, "leader", alone=True), {}, "6.3.5"),
    (Firer(3, "artillery", 2), {"defensive": True}, "6.3.6"),
])
def test_6_3_illegal_fire_is_refused(tables, firer, setup_kw, rule):
    with pytest.raises(RuleViolation) as e:
        fire_proc(tables, FireSetup((firer,), **setup_kw))
    assert e.value.rule == rule


def test_4_3_D_fatigued_defensive_fire_gets_adverse_drm(tables):
    # FF 3 fatigued, defensive: DRM -2. Column 3 needs 7 for R -> natural 9 gives R, 10 gives F.
    f = fire_proc(tables, FireSetup((Firer(3, status="fatigued"),), defensive=True))
    assert play(f, dice=TypedDice([9])).result.result == "R"
    assert play(f, dice=TypedDice([10])).result.result == "F"


def test_6_5_A_leader_casualty_by_hand():
    # killed: 1/6 * 1/6 = 1/36; wounded: 1/36; unhurt: 34/36.
    d = distribution(lambda: leader_casualty("Gazan"))
    assert d.prob(lambda o: o.fate == "killed") == Fraction(1, 36)
    assert d.prob(lambda o: o.fate == "wounded") == Fraction(1, 36)
    # wounded for 2d6 turns: 7 turns has 6/36 of the wounded branch.
    assert d.prob(lambda o: o.fate == "wounded" and o.turns_out == 7) == Fraction(1, 36) * Fraction(6, 36)


def test_6_4_D_F_melee_by_hand(tables):
    # Attacker MF 4 FV 4, defender MF 4 FV 4, no shifts.
    # Attacker check: 1 -> doubled (MF 8, odds 2-1 -> defender checks), 2-4 -> attacks at 1-1, 5-6 -> no attack.
    d = melee_distribution(tables, MeleeSetup((Fighter("a", 4, 4),), (Fighter("d", 4, 4),)))
    assert d.prob(lambda o: o.result == "no attack") == Fraction(1, 3)
    assert d.prob(lambda o: o.column == "1-1") == Fraction(1, 2)
    # doubled branch 1/6: defender check FV 4 passes 4/6 -> stays at 2-1; fails 2/6 -> fatigued,
    # MF 2 -> 8:2 = 4-1.
    assert d.prob(lambda o: o.column == "2-1") == Fraction(1, 6) * Fraction(2, 3)
    assert d.prob(lambda o: o.column == "4-1") == Fraction(1, 6) * Fraction(1, 3)
    assert d.total == 1


def test_6_4_E_flank_doubles_once(tables):
    # Flank attacker MF 3 vs MF 3: passes (FV 6 -> 1..6 pass) and doubles by flank: 6:3 = 2-1, or by
    # a result under 3 (faces 1-2) -- never both (so never 12:3).
    d = melee_distribution(tables, MeleeSetup((Fighter("a", 3, 6, flank=True),), (Fighter("d", 3, 6),)))
    assert {o.column for o in d} <= {"2-1", "4-1"}


def test_6_4_C_cavalry_and_infantry_may_not_combine(tables):
    with pytest.raises(RuleViolation) as e:
        melee_proc(tables, MeleeSetup((Fighter("i", 3, 4), Fighter("c", 3, 4, "cavalry")), (Fighter("d", 3, 4),)))
    assert e.value.rule == "6.4 C"


def test_6_7_J_routed_defender_checks_at_any_odds(tables):
    # 1:4 odds would never trigger 6.4 F, but a routed defender always checks (+1): FV 3 -> faces 1-2
    # stand at half MF (1/3), else surrender and the hex is vacated (6.4 J).
    setup = MeleeSetup((Fighter("a", 1, 6, "infantry", "normal", (3,)),), (Fighter("d", 4, 3, status="routed"),))
    d = melee_distribution(tables, setup)
    # attacker FV 6 with CV 3 always passes; doubled when d6 - 3 < 3 -> faces 1..5.
    assert d.prob(lambda o: o.result == "vacated") == Fraction(2, 3)


@settings(max_examples=30, deadline=None)
@given(amf=st.integers(1, 12), dmf=st.integers(1, 12), afv=st.integers(1, 6), dfv=st.integers(1, 6),
       dstatus=st.sampled_from(["normal", "fatigued", "routed"]), flank=st.booleans(), shift=st.integers(-2, 2))
def test_6_4_melee_distribution_sums_to_one(amf, dmf, afv, dfv, dstatus, flank, shift):
    d = melee_distribution(T, MeleeSetup((Fighter("a", amf, afv, flank=flank),), (Fighter("d", dmf, dfv, status=dstatus),),
                                         shift=shift))
    assert d.total == 1


@settings(max_examples=30, deadline=None)
@given(ffs=st.lists(st.integers(1, 8), min_size=1, max_size=3), night=st.booleans(), drm=st.integers(-3, 3))
def test_6_3_fire_distribution_sums_to_one(ffs, night, drm):
    d = fire_distribution(T, FireSetup(tuple(Firer(f) for f in ffs), night=night, drm=drm))
    assert d.total == 1
