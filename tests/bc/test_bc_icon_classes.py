"""Battle Commander exact odds with each card read only by what decides the rest of the combat (issue 26): the
Skill Check icons (21.0) grouped by what every reading the combat's draws may make gives them
(engine/bc/readings.py), and the pile's cards as their classes (engine/bc/deck.py ``Pile.classed``) at each step
of a combat's odds (engine/bc/combat.py ``resolve``).

Classes worked out by hand for each kind of reading (21.2, 23.5 with 29.7, 27.11) and for a Cavalry Battle
(23.5); hypothesis for what a grouping is (every icon in one class, each reading alike within a class, any two
classes told apart by a reading, more readings only split classes); the same outcomes as over the cards by their
numbers for random combat set-ups (hypothesis; a small pile, so the card-by-card enumeration stays small), with
the Critical Combat Table's icon kept (the calculators) and left out (a game's odds); the same odds as with every
icon its own on a Square assault of the spread benchmark's games (23.1 step 6, 23.5, 27.10), with half the
steps or fewer; and a class that lumps icons a draw tells apart refused by that draw."""
from __future__ import annotations

import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as hs
from sizes import examples

from engine.bc import combat as bc_combat
from engine.bc.blocks import HQ, Block
from engine.bc.combat import _fate_classes, neutral_policy, resolve, square_outcome
from engine.bc.deck import SKILL_ICONS, Pile, default_deck
from engine.bc.game.actions import Attack
from engine.bc.game.attacks import attack_setup
from engine.bc.readings import effects_readings, icon_classes, reading
from engine.bc.tally import CombatSetup, CombatSide, prepare
from engine.core.errors import RuleViolation
from engine.core.procedure import distribution
from engine.core.quick_odds import WHOLE, quick_odds
from engine.systems import system_of
from tests.bc.card_steps import odds_of, unclassed

DECK = default_deck()
R = system_of("bc")
O, F1, F2, F3, F4, C, D = SKILL_ICONS      # officer, flags_1..4, crossed_flags, death_head


def classes(*readings) -> tuple[tuple[str, ...], ...]:
    return icon_classes(frozenset(readings))


# ---- the classes of each kind of reading, by hand -----------------------------------------------------------
def test_general_check_classes_21_2():
    # 21.2: an Officer passes, N Flags pass at a skill of N or more, Crossed Flags pass in Good Morale only,
    # a Death Head fails. Skill 3 in Good Morale: Officer, 1-3 Flags, Crossed Flags pass; 4 Flags, Death Head fail
    assert classes(("check", 3, True)) == ((O, F1, F2, F3, C), (F4, D))
    # skill 2 in Bad Morale: Officer, 1-2 Flags pass; 3-4 Flags, Crossed Flags, Death Head fail
    assert classes(("check", 2, False)) == ((O, F1, F2), (F3, F4, C, D))
    # both: (pass, pass) Officer 1-2 Flags; (fail at 2 bad, pass at 3 good) 3 Flags and Crossed Flags; (fail, fail)
    assert classes(("check", 3, True), ("check", 2, False)) == ((O, F1, F2), (F3, C), (F4, D))


def test_critical_combat_table_classes_23_5_and_29_7():
    # 23.5: an Officer cancels the Morale loss; Flags do nothing; Crossed Flags cost a step in Bad Morale only;
    # a Death Head costs an Attack Token (and a step of a Disrupted Lead). A skill 2 Lead in Good Morale:
    assert classes(("critical", 2, False, 0, True, False)) == ((O,), (F1, F2, F3, F4, C), (D,))
    # in Bad Morale Crossed Flags take a step: a class of their own
    assert classes(("critical", 2, False, 0, False, False)) == ((O,), (F1, F2, F3, F4), (C,), (D,))
    # 29.7 Wavering Troops: more Flags than skill + HQ (2 + 0) lower the skill: 3 and 4 Flags
    assert classes(("critical", 2, False, 0, True, True)) == ((O,), (F1, F2, C), (F3, F4), (D,))
    # a skill 0 Lead (militia) is removed on any Flags; Crossed Flags in Good Morale do nothing
    assert classes(("critical", 0, False, 0, True, True)) == ((O,), (F1, F2, F3, F4), (C,), (D,))
    # Artillery never wavers
    assert classes(("critical", 0, True, 0, True, True)) == ((O,), (F1, F2, F3, F4, C), (D,))
    # the icon itself (the calculators show it): every icon its own
    assert classes(("icon",)) == tuple((i,) for i in SKILL_ICONS)


def test_fate_of_war_classes_27_11():
    # 27.11, an HQ of skill 2: no hit on an Officer or 1-2 Flags; a hit on 3-4 Flags; Crossed Flags hit only in
    # Bad Morale; a Death Head hits, costs one Morale and, in an Assault, strikes the Commander
    assert classes(("fate", 2, True, "hq", True)) == ((O, F1, F2, C), (F3, F4), (D,))
    assert classes(("fate", 2, False, "hq", True)) == ((O, F1, F2), (F3, F4, C), (D,))
    # the Fate of War step's own classes are these readings'
    hq = HQ(skill=2)
    assert _fate_classes((("defender", hq, True),), True) == classes(("fate", 2, True, "hq", True))


def _cavalry_on_infantry_with_hq() -> CombatSetup:
    # a skill 3 Cavalry Lead assaults a skill 2 Long Line Infantry with a skill 2 HQ (Steady: +1, 21.0)
    return CombatSetup("assault", CombatSide(Block("cavalry", skill=3)),
                       CombatSide(Block("long_infantry", skill=2), hq=HQ(skill=2)))


def _blocks(s: CombatSetup) -> tuple:
    return (("attacker_lead", s.attacker.lead), ("attacker_second", s.attacker.second),
            ("defender_lead", s.defender.lead), ("defender_second", s.defender.second))


def test_cavalry_battle_reads_the_cavalry_check_and_the_hq_fate_23_5():
    s = _cavalry_on_infantry_with_hq()
    got = effects_readings(s, _blocks(s), "horse_head", "assault", False)
    # 23.5 Cavalry Battle: the Cavalry's General Skill Check at 3 in Good Morale; 27.10: the defending HQ's Fate
    # of War (skill 2, an Assault); the Infantry (skill 2) may not try No Retreat! (24.1: skill 3 or Russian)
    assert got == {("check", 3, True), ("fate", 2, True, "hq", True)}
    # pass/fail at 3: (O 1 2 3 C | 4 D); the fate: (O 1 2 C | 3 4 | D); together four classes
    assert icon_classes(got) == ((O, F1, F2, C), (F3,), (F4,), (D,))
    # Black Cross: the attacking Lead's Critical Combat Table (O | 1-4 C | D) and the HQ's fate
    assert icon_classes(effects_readings(s, _blocks(s), "black_cross", "assault", False)) == \
        ((O,), (F1, F2, C), (F3, F4), (D,))
    # Bayonets draw no card but the HQ's fate
    assert icon_classes(effects_readings(s, _blocks(s), "bayonets", "assault", False)) == \
        ((O, F1, F2, C), (F3, F4), (D,))


# ---- what a grouping is (hypothesis) -----------------------------------------------------------------------
READINGS = hs.one_of(
    hs.tuples(hs.just("check"), hs.integers(0, 6), hs.booleans()),
    hs.tuples(hs.just("critical"), hs.integers(0, 4), hs.booleans(), hs.integers(0, 1), hs.booleans(), hs.booleans()),
    hs.tuples(hs.just("fate"), hs.integers(0, 4), hs.booleans(), hs.sampled_from(["hq", "shq"]), hs.booleans()),
    hs.just(("icon",)))


@settings(max_examples=examples(60), deadline=None)
@given(hs.frozensets(READINGS, max_size=5), hs.frozensets(READINGS, max_size=3))
def test_classes_are_what_the_readings_tell_apart(readings, more):
    got = icon_classes(readings)
    assert sorted(i for c in got for i in c) == sorted(SKILL_ICONS)            # each icon in one class
    assert [c[0] for c in got] == [i for i in SKILL_ICONS if any(i == c[0] for c in got)]   # in the icons' order
    for c in got:                                                              # alike within a class
        assert all(reading(r, i) == reading(r, c[0]) for r in readings for i in c)
    for c1 in got:                                                             # told apart between classes
        for c2 in got:
            if c1 != c2:
                assert any(reading(r, c1[0]) != reading(r, c2[0]) for r in readings)
    finer = icon_classes(readings | more)                                      # more readings only split
    assert all(any(set(f) <= set(c) for c in got) for f in finer)


# ---- the same outcomes as over the cards themselves (hypothesis) -------------------------------------------
BLOCK = hs.builds(Block, kind=hs.sampled_from(["long_infantry", "infantry", "cavalry", "artillery"]),
                  skill=hs.integers(0, 4), state=hs.sampled_from(["steady", "disrupted"]), russian=hs.booleans())
HQS = hs.one_of(hs.none(), hs.builds(HQ, kind=hs.sampled_from(["hq", "shq"]), skill=hs.integers(1, 4),
                                     perspective=hs.booleans()))


def _side(lead, second, hq, bad, no_retreat):
    return CombatSide(lead, second, hq, morale="bad" if bad else "good", no_retreat=no_retreat)


SETUPS = hs.builds(
    CombatSetup, hs.sampled_from(["assault", "fire"]),
    hs.builds(_side, BLOCK, hs.one_of(hs.none(), BLOCK), HQS, hs.booleans(), hs.booleans()),
    hs.builds(_side, BLOCK, hs.one_of(hs.none(), BLOCK), HQS, hs.booleans(), hs.booleans()),
    wavering_troops=hs.booleans(), square_attempt=hs.booleans())


def _outcomes(setup, pile, critical_icon):
    dist = distribution(partial(resolve, setup, DECK, pile, critical_icon=critical_icon), policy=neutral_policy)
    return dist.map(lambda o: replace(o, pile=None, critical=o.critical if critical_icon else None))


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETUPS, hs.sets(hs.sampled_from(DECK.event_numbers), min_size=5, max_size=7), hs.booleans())
def test_the_same_outcomes_as_the_cards_one_by_one(setup, kept, critical_icon):
    # a pile of a few cards (the others in hands, 15.0), so every card's own branch stays cheap; the odds read
    # each card as its class of icons at each step, the play path by its number
    try:
        prepare(setup)
    except RuleViolation:
        assume(False)
    out = [n for n in DECK.event_numbers if n not in kept]
    fast = _outcomes(setup, Pile.for_odds(DECK, hand=out), critical_icon)
    cards = _outcomes(setup, Pile.for_play(DECK, hand=out), critical_icon)
    assert fast == cards and fast.total == 1


def test_a_class_that_lumps_what_a_draw_reads_is_refused(monkeypatch):
    # the effects of a Horse Head read as if only the HQ's fate followed (the Cavalry Battle's check left out):
    # 3 Flags pass the skill 3 Cavalry's check and 4 Flags fail it (21.2), yet both strike the HQ (27.11), so
    # the check draws a card standing for both; it refuses it rather than give other odds
    s = _cavalry_on_infantry_with_hq()
    proc = partial(resolve, s, DECK, Pile.for_odds(DECK), critical_icon=False)
    assert distribution(proc, policy=neutral_policy).total == 1
    own = bc_combat.effects_readings
    monkeypatch.setattr(bc_combat, "effects_readings",
                        lambda s, b, result, *a: frozenset(r for r in own(s, b, result, *a) if r[0] != "check"))
    with pytest.raises(ValueError, match="lumped as alike"):
        distribution(proc, policy=neutral_policy)


# ---- a Square assault of the spread benchmark's games ------------------------------------------------------
def _square_assault_on_an_hq(rules, st, a) -> bool:
    """A Lead Cavalry assault the defender may meet in Square (23.1 step 6) on a Zone with an HQ (27.10)."""
    if not (isinstance(a, Attack) and a.attack == "assault" and st.g.lead(a.frm).block.kind == "cavalry"):
        return False
    return bool(square_outcome(attack_setup(st, a)[0], "officer")) and bool(st.g.hqs_in(a.to))


@pytest.fixture(scope="module")
def square_assault():
    # random bots, bot seed 1, game seed 1 (tests/bench/test_odds_spread_bench.py): the French cavalry's assault
    # from M2 on E2 after 54 actions, a Square check, then a Cavalry Battle or a Critical Combat Table, the
    # Coalition HQ's fate
    sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
    from attack_records import record_until
    _, st, a, _ = record_until("bc", _square_assault_on_an_hq, seed=1, bot_seed=1, games=1)
    return st, a


def _classed_and_not(st, a, seen_by, monkeypatch):
    fast = quick_odds(R, st, a, cache=None, seen_by=seen_by)
    with monkeypatch.context() as m:
        unclassed(m)
        every_icon = quick_odds(R, st, a, cache=None, seen_by=seen_by, max_steps=1_000_000)
    return fast, every_icon


def test_square_assault_same_odds_in_half_the_steps(square_assault, monkeypatch):
    st, a = square_assault
    fast, every_icon = _classed_and_not(st, a, WHOLE, monkeypatch)
    assert odds_of(fast) == odds_of(every_icon)
    assert fast["steps"] * 2 < every_icon["steps"]


@pytest.mark.slow
@pytest.mark.parametrize("side", ["french", "coalition"])
def test_square_assault_same_odds_from_each_side(square_assault, side, monkeypatch):
    st, a = square_assault
    fast, every_icon = _classed_and_not(st, a, side, monkeypatch)
    assert odds_of(fast) == odds_of(every_icon)
    assert fast["steps"] * 2 < every_icon["steps"]
