"""Issue 29, These Brave Fellows: the readings a rules audit found wrong in the whole game, each worked out by
hand from rulebook 004 (the rule cited in each test). Dürenstein set-up (9.1, 9.3): Gazan's division is
command II (4l-* in II-1, 100-* and 103-* in II-2, the Elite, art-1..3 and the dragoons drag-1..3);
Dupont's is command I (his hussars dupont-hus-1, his batteries dupont-art-1..2)."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import partial

from engine.core.procedure import TypedDice, play
from engine.tbf.game.exclusive import factors
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.reinforcement import regroup_segment
from engine.tbf.game.setup import initial_state
from engine.tbf.game.victory import battalions_text, french_losses, victory, victory_json

R = TbfRules()
SC = R.sc
START = initial_state(SC)
GAZAN_FIVE = ("4l-1", "4l-2", "4l-3", "100-1", "100-2")


def _lost(st, *ids, status="eliminated"):
    for uid in ids:
        st = st.with_piece(uid, status=status, hex=None)
    return st


# --- 10.2.2-10.2.4: thirds counted exactly ---------------------------------------------------------------
def test_10_2_2_three_dragoon_thirds_make_a_whole_battalion():
    # 10.2.2 A: the three at-start dragoon squadrons equal one battalion. Five of Gazan's battalions and the
    # three squadrons: 5 + 1/3 + 1/3 + 1/3 = 6 exactly, Gazan's six of 10.2.3.2: a Coalition Tactical Victory
    # (summed as floats it was 5.999999999999999 < 6, shown as "6.0" and awarding nothing)
    st = _lost(START, *GAZAN_FIVE, "drag-1", "drag-2", "drag-3")
    v = victory(SC, st)
    assert v["gazan_battalions_lost"] == 6 and v["french_battalions_lost"] == 6
    assert (v["coalition_level"], v["winner"]) == ("tactical", "coalition")   # 10.2.5: the French hold nothing
    assert victory_json(v)["gazan_battalions_lost"] == {"fraction": "6/1", "float": 6.0, "text": "6"}


def test_10_2_2_thirds_and_halves_are_shown_as_fractions():
    # one battalion, one of Gazan's batteries (1/3, 10.2.2 B) and one of Dupont's (1/2, 10.2.2 C):
    # 1 + 1/3 + 1/2 = 11/6, written "1 5/6"
    st = _lost(START, "4l-1", "art-1", "dupont-art-1")
    total, gazan = french_losses(SC, st)
    assert (total, gazan) == (Fraction(11, 6), Fraction(4, 3))
    assert battalions_text(total) == "1 5/6" and battalions_text(gazan) == "1 1/3"


def test_10_2_2_D_a_killed_general_of_gazans_counts_toward_gazans_total():
    # 10.2.2 D: each French general killed or captured is one battalion. Gaindorge (brigade II-1, Gazan's
    # division) killed and five of Gazan's battalions: Gazan's 5 + 1 = 6 -> Coalition Tactical (10.2.3.2)
    st = _lost(START, *GAZAN_FIVE).with_piece("gaindorge", status="killed", hex=None)
    v = victory(SC, st)
    assert (v["gazan_battalions_lost"], v["coalition_level"]) == (6, "tactical")
    # Dupont (division I) captured counts toward the total only: Gazan's stays 5
    v2 = victory(SC, _lost(START, *GAZAN_FIVE).with_piece("dupont", status="captured", hex=None))
    assert (v2["gazan_battalions_lost"], v2["french_battalions_lost"], v2["coalition_level"]) == (5, 6, "none")


def test_dupont_hussars_are_no_battalion_equivalent():
    # 10.2.2 lists the equivalents of the French units that are not battalions: the dragoons (A), Gazan's and
    # Dupont's guns (B, C), generals (D); the hussars are none of these: they count 0 (our reading), not 1/2
    assert french_losses(SC, _lost(START, "dupont-hus-1")) == (0, 0)


# --- 10.2.6 and 8.3 C: regrouped units --------------------------------------------------------------------
def test_10_2_6_a_regrouped_unit_still_counts_as_lost():
    # six of Gazan's battalions lost, then 100-3 regrouped and back on the map (5.3 D on a 1): still six
    # lost (10.2.6), Coalition Tactical; lost again, it counts twice: seven
    st = _lost(START, *GAZAN_FIVE, "100-3")
    s = replace(R.new_game(), game=replace(st, turn=5))
    got = play(partial(regroup_segment, R.queries, s), TypedDice([1]),
               lambda req: "100-3" if "100-3" in req.options else req.options[0]).result
    assert got.regrouped == ("100-3",) and got.game.piece("100-3").hex is not None
    assert R.queries.victory(got)["gazan_battalions_lost"] == 6
    assert R.queries.victory(got)["coalition_level"] == "tactical"
    again = replace(got, game=_lost(got.game, "100-3"))
    assert R.queries.victory(again)["gazan_battalions_lost"] == 7


def test_8_3_C_the_elite_may_be_regrouped_and_stays_one_unit_lost():
    # 8.3 C: the Elite eliminated is offered to the regroup roll (5.3 B); on a 1 it is not placed, the 100th
    # and 103rd fight at their printed FF 3, MF 4 again (8.3 A: -1 FF, -2 MF while the Elite is in play or lost
    # and not regrouped), and it stays one unit lost for 10.2.3
    st = _lost(START, "elite")
    assert factors(SC, st, "100-1") == (2, 2)
    s = replace(R.new_game(), game=replace(st, turn=5))
    asked = []

    def choose(req):
        asked.append(req.options)
        return "elite" if "elite" in req.options else req.options[0]

    got = play(partial(regroup_segment, R.queries, s), TypedDice([1]), choose).result
    assert any("elite" in o for o in asked)
    assert "elite_regrouped" in got.game.flags and got.game.piece("elite").hex is None
    assert factors(SC, got.game, "100-1") == (3, 4)
    assert R.queries.victory(got)["french_battalions_lost"] == 1 and got.regrouped == ()
    # regrouped once, never offered again
    again = play(partial(regroup_segment, R.queries, got), TypedDice([]), choose)
    assert not any("elite" in o for o in asked[1:]) and again.result.game == got.game


# --- 6.5 D: leaders go with routing and retreating units --------------------------------------------------
def _rout(st, uid, choose=None):
    from engine.tbf.game.rout import rout_unit
    # every check passes on 1s (the 6.7 K checks of friends run through, an overstack check where it stops)
    return play(partial(rout_unit, SC, st, uid), TypedDice([1] * 20), choose or (lambda r: r.options[0]))


def test_6_5_D_a_leader_left_alone_goes_with_the_router():
    # Gaindorge stands with 4l-1 in 2014 (9.3 B; 4l-2 is in 2015). 4l-1 routs (6.7 C): the leader would be
    # left alone, so the first option is to go with it (6.5 D); he ends where the router ends (before: he
    # stayed in 2014 alone and the next enemy to enter took him, 6.5 C)
    st = START.with_piece("4l-2", hex="2016")
    asked = []
    out = _rout(st, "4l-1", lambda r: asked.append((r.rule, r.options)) or r.options[0])
    end = out.result.piece("4l-1").hex
    assert end not in (None, "2014")
    assert ("6.5 D", ("go", "stay")) in asked
    assert out.result.piece("gaindorge").hex == end


def test_6_5_D_a_leader_with_friends_left_stays_unless_he_chooses():
    # 4l-2 moved in with 4l-1 (one regiment stacks, 4.1.2): when 4l-1 routs, staying with 4l-2 comes first
    st = START.with_piece("4l-2", hex="2014")
    out = _rout(st, "4l-1")
    assert out.result.piece("gaindorge").hex == "2014"
    went = _rout(st, "4l-1", lambda r: "go" if r.rule == "6.5 D" else r.options[0])
    assert went.result.piece("gaindorge").hex == went.result.piece("4l-1").hex != "2014"


def test_6_5_D_a_leader_goes_with_a_unit_still_routing_when_its_command_activates():
    # 6.7 F: ci-1, routed in 2213 with Miloradovich, rout-moves at its MA (2213-2313-2412) when its command
    # activates; the leader, alone after it leaves, goes along (the overstack check in 2412 passes on a 1)
    from engine.tbf.game.rout import continue_rout
    from engine.core.procedure import TypedDice as TD
    from engine.tbf.game.actions import Activate
    s, _ = R.apply(R.new_game(), Activate("coalition", "kutusov"), dice=TD([1]))
    g = s.game.with_piece("ci-1", hex="2213", status="routed").with_piece("miloradovich", hex="2213")
    got = play(partial(continue_rout, SC, replace(s, game=g), "ci-1"), TD([1] * 4), lambda r: r.options[0]).result
    assert got.game.piece("ci-1").hex == "2412"
    assert got.game.piece("miloradovich").hex == got.game.piece("ci-1").hex


# --- 3.3 B, 6.2.8 H-K, 6.3.2 B: a charge moves in the Movement Segment, is fired at in the Defensive Fire
# Segment and melees in the Melee Segment --------------------------------------------------------------------
def _charge_position():
    """Miloradovich's impulse (6.1; Level 2/3 die 1). ci-cav1 (MA 9, MF 3) stands in 2412 facing SW; the
    hexes 2313, 2213 and 2114 run straight SW from it (level 0: a charge line, 6.2.8 B-C, 6.2.11)."""
    from engine.tbf.game.actions import Activate
    s, _ = R.apply(R.new_game(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    g = s.game.with_piece("ci-2", hex="2311").with_piece("ci-cav1", hex="2412", facing=4)
    return s, g


def _to_segment(s, segment):
    from engine.tbf.game.actions import EndSegment
    while s.impulse is not None and s.impulse.segment != segment:
        s, _ = R.apply(s, EndSegment(R.to_act(s)))
    return s


def test_3_3_B_a_charge_moves_in_movement_is_fired_at_in_defensive_fire_and_melees_in_melee():
    from engine.tbf.game.actions import Charge, EndSegment, Fire, Melee
    s, g = _charge_position()
    # 4l-1 in 2114 faces NE, toward the charge (its front covers 2213, 4.3 C)
    s = replace(s, game=g.with_piece("4l-1", hex="2114", facing=1))
    a = Charge("coalition", "ci-cav1", ("2313", "2213", "2114"))
    # Movement Segment: the attempt (6.2.8 D, d6 1 - CV 1 = 0 <= FV 3) and 4l-1's Being Charged check (6.2.8 E,
    # 1 - 1 = 0 <= FV 5): it stands; the charger stops next to it in 2213. No fire and no melee yet.
    s1, ev = R.apply(s, a, dice=TypedDice([1, 1]))
    rolls = [x["rule"] for x in ev["answers"] if x["kind"] == "roll"]
    assert rolls == ["6.2.8 D", "6.2.8 E"]
    assert s1.game.piece("ci-cav1").hex == "2213" and s1.impulse.charge_melees[0].target == "2114"
    # Defensive Fire Segment (6.3.1 A): 4l-1 may fire at the charger once (6.3.2 B), here a miss (d10 1: "-")
    s2 = _to_segment(s1, "defensive_fire")
    assert Fire("french", ("4l-1",), "2213") in R.legal_actions(s2)
    s3, ev = R.apply(s2, Fire("french", ("4l-1",), "2213"), dice=TypedDice([1]))
    assert [x["rule"] for x in ev["answers"] if x["kind"] == "roll"] == ["6.3.7 D"]
    # nothing else to fire: on to the Melee Segment, where the charge's melee must be fought first
    assert s3.impulse.segment == "melee" and R.legal_actions(s3) == [Melee("coalition", ("ci-cav1",), "2114")]
    assert not R.is_legal(s3, EndSegment("coalition"))
    # 6.4 D: charging cavalry takes no Attacker to Perform Melee check; 6.4 F: 4l-1 checked as the charge's
    # target. MF 3 doubled by the charge = 6 against 4l-1's 4: initial odds 6:4, and the one roll is the d10
    s4, ev = R.apply(s3, Melee("coalition", ("ci-cav1",), "2114"), dice=TypedDice([5]))
    assert [x["rule"] for x in ev["answers"] if x["kind"] == "roll"] == ["6.4 H"]
    assert any(x["label"] == "initial odds 6:4" for x in ev["answers"])


def test_6_2_8_K_a_charger_fatigued_by_defensive_fire_does_not_melee():
    from engine.tbf.game.actions import Charge, Fire
    s, g = _charge_position()
    s = replace(s, game=g.with_piece("4l-1", hex="2114", facing=1))
    s1, _ = R.apply(s, Charge("coalition", "ci-cav1", ("2313", "2213", "2114")), dice=TypedDice([1, 1]))
    s2 = _to_segment(s1, "defensive_fire")
    # fire column 3 (4l-1's FF 3), d10 8: F, the charger fatigued where it stands. Its charge ends (6.2.8 K):
    # the Melee Segment has nothing to fight and the impulse ends with no melee roll
    s3, ev = R.apply(s2, Fire("french", ("4l-1",), "2213"), dice=TypedDice([8]))
    assert s3.impulse is None and s3.game.piece("ci-cav1").status == "fatigued"
    assert [x["rule"] for x in ev["answers"] if x["kind"] == "roll"] == ["6.3.7 D"]
    assert s3.game.piece("4l-1").status == "normal"


def test_6_4_D_a_counter_charge_melee_has_no_attacker_check_and_agrees_with_the_charge_calculator():
    from engine.core.procedure import distribution
    from engine.tbf.charge import charge_from_spec
    from engine.tbf.game.actions import Charge, Melee
    from engine.tbf.game.melee_combat import charge_melee_setup
    from engine.tbf.melee import melee_proc
    s, g = _charge_position()
    # drag-1 (MF 3, MA 8) in 2114 faces NE: ci-cav1 charges down its charge line, it passes its check (d6 1
    # <= FV 4) and counter charges (6.2.9 A). 6.2.9 B: the higher MA (ci-cav1, 9) moves first, to 2313; then
    # drag-1 to 2213: adjacent, the melee waits for the Melee Segment
    s = replace(s, game=g.with_piece("drag-1", hex="2114", facing=1))
    s1, _ = R.apply(s, Charge("coalition", "ci-cav1", ("2313", "2213", "2114")), dice=TypedDice([1, 1]),
                    chooser=lambda r: "counter" if "counter" in r.options else r.options[0])
    assert (s1.game.piece("ci-cav1").hex, s1.game.piece("drag-1").hex) == ("2313", "2213")
    s2 = _to_segment(s1, "melee")
    # 6.4 D: no check for the charger; 6.2.9 B: nobody's MF doubled: 3:3, the d10 the only roll
    s3, ev = R.apply(s2, Melee("coalition", ("ci-cav1",), "2213"), dice=TypedDice([5]))
    assert [x["rule"] for x in ev["answers"] if x["kind"] == "roll"] == ["6.4 H"]
    assert any(x["label"] == "initial odds 3:3" for x in ev["answers"])
    # the charge calculator's counter charge melee (6.2.9 B) against the same units gives the same odds
    game = distribution(melee_proc(SC.tables, charge_melee_setup(SC, s2.game, "ci-cav1", "2213", "counter")))
    spec = {"charger": {"name": "ci-cav1", "hex": "2412", "facing": "SW", "fv": 3, "mf": 3, "ma": 9},
            "path": ["2313", "2213", "2114"], "targets": [{"hex": "2114", "units": [
                {"name": "drag-1", "fv": 4, "mf": 3, "kind": "cavalry", "ma": 8}]}]}
    from engine.tbf.game.melee_combat import MeleeSetup
    calc = charge_from_spec(spec, SC.board.grid)
    calc_melee = MeleeSetup((replace(calc.charger, charging=True),), (replace(calc.targets[0].units[0], checked=True),),
                            no_doubling=True)
    calc_d = distribution(melee_proc(SC.tables, calc_melee))
    assert {o.result: p for o, p in game.items()} == {o.result: p for o, p in calc_d.items()}


def test_4_2_3_counter_and_reaction_chargers_are_fatigued_when_the_melee_segment_ends():
    # our reading of 6.2.8 J ("all charging cavalry units"): drag-1, which counter charged, is fatigued at the
    # end of the impulse's Melee Segment like the charger, and keeps its Charged marker (no recovery, 7.0 C)
    from engine.tbf.game.actions import Charge, Melee
    s, g = _charge_position()
    s = replace(s, game=g.with_piece("drag-1", hex="2114", facing=1))
    s1, _ = R.apply(s, Charge("coalition", "ci-cav1", ("2313", "2213", "2114")), dice=TypedDice([1, 1]),
                    chooser=lambda r: "counter" if "counter" in r.options else r.options[0])
    s2 = _to_segment(s1, "melee")
    # 1-1 column, d10 5: AF, the attackers fatigued; drag-1 untouched by the melee. The segment then ends (ci-cav1
    # has nothing left to do) and drag-1, still normal, is fatigued for its counter charge
    s3, ev = R.apply(s2, Melee("coalition", ("ci-cav1",), "2213"), dice=TypedDice([5]))
    assert s3.impulse is None
    assert any(x["label"] == "drag-1 charged this impulse: it is fatigued now (4.2.3)" for x in ev["answers"])
    drag = s3.game.piece("drag-1")
    assert (drag.status, drag.charged) == ("fatigued", True)


# --- 6.3.3 and 6.3.7 A --------------------------------------------------------------------------------------
def _french_fire_segment(units, placed):
    """A French impulse (Gaindorge's) in its Offensive Fire Segment with ``units`` activated, the pieces placed
    as ``placed`` {id: (hex, facing)}."""
    from engine.tbf.game.state import Impulse
    from engine.tbf.game.types import Segment
    g = START
    for pid, (h, f) in placed.items():
        g = g.with_piece(pid, hex=h, facing=f, activated=pid in units)
    return replace(R.new_game(), game=g, impulse=Impulse("french", "gaindorge", Segment.OFFENSIVE_FIRE,
                                                         ("gaindorge",), tuple(units)))


def test_6_3_3_artillery_beyond_four_hexes_is_refused_by_the_check():
    # art-1 in 2114 facing N, ci-1 five hexes north of it in 2109: 6.3.3 gives artillery four hexes (the
    # check refused it only when the fire was applied, before)
    import pytest
    from engine.core.errors import RuleViolation
    from engine.tbf.game.actions import Fire
    assert SC.board.grid.distance("2114", "2109") == 5
    s = _french_fire_segment(("art-1",), {"art-1": ("2114", 0), "ci-1": ("2109", 3)})
    with pytest.raises(RuleViolation) as e:
        R.check(s, Fire("french", ("art-1",), "2109"))
    assert e.value.rule == "6.3.3"


def test_6_3_7_A_every_group_of_eligible_firers_is_offered():
    # three battalions of the 4th Legere around ci-1 in 2114, each facing it (from S, SW and NW): besides each
    # alone and all three together, each pair may combine (6.3.7 A): 3 singles + 3 pairs + 1 three
    from engine.tbf.game.actions import Fire
    g = SC.board.grid
    placed = {"ci-1": ("2114", 0)}
    for uid, d in (("4l-1", 3), ("4l-2", 4), ("4l-3", 5)):
        placed[uid] = (g.neighbour("2114", d), (d + 3) % 6)
    s = _french_fire_segment(("4l-1", "4l-2", "4l-3"), placed)
    fires = {a.units for a in R.legal_actions(s) if isinstance(a, Fire) and a.target == "2114"}
    assert fires == {("4l-1",), ("4l-2",), ("4l-3",), ("4l-1", "4l-2"), ("4l-1", "4l-3"), ("4l-2", "4l-3"),
                     ("4l-1", "4l-2", "4l-3")}


# --- 6.3.8 and 6.4 J: the attacker picks who advances ---------------------------------------------------------
def _around_ci1(segment, ci1_status="normal"):
    """4l-1 south of ci-1's 2114 (in 2115) and 4l-2 south-west of it (in 2014), both facing it, both activated
    in Gaindorge's impulse (Gaindorge moved aside to 2016)."""
    from engine.tbf.game.state import Impulse
    g = SC.board.grid
    st = START.with_piece("gaindorge", hex="2016").with_piece("ci-1", hex="2114", facing=0, status=ci1_status)
    for uid, d in (("4l-1", 3), ("4l-2", 4)):
        st = st.with_piece(uid, hex=g.neighbour("2114", d), facing=(d + 3) % 6, activated=True)
    return replace(R.new_game(), game=st, impulse=Impulse("french", "gaindorge", segment, ("gaindorge",),
                                                            ("4l-1", "4l-2")))


def test_6_3_8_the_firer_picks_which_units_advance():
    # FF 3 + 3 = 6, column 6, d10 6: R, ci-1 retreats one hex and 2114 is empty. 6.3.8: any firing
    # non-artillery unit may advance: here only 4l-2 (before: advance all or none)
    from engine.tbf.game.actions import Fire
    from engine.tbf.game.types import Segment
    s = _around_ci1(Segment.OFFENSIVE_FIRE)
    asked = []

    def choose(req):
        asked.append((req.rule, req.options))
        if req.rule != "6.3.8":
            return req.options[0]
        return "4l-2" if "4l-2" in req.options else "stay"

    s2, _ = R.apply(s, Fire("french", ("4l-1", "4l-2"), "2114"), dice=TypedDice([6]), chooser=choose)
    assert ("6.3.8", ("4l-1", "4l-2", "stay")) in asked
    assert (s2.game.piece("4l-2").hex, s2.game.piece("4l-1").hex) == ("2114", "2115")


def test_6_4_J_the_attacker_picks_which_unit_advances_and_may_add_more():
    # ci-1 routed in 2114; both battalions pass their attack checks on 1s (MF 4 doubled each, 16 against ci-1's
    # 4 halved to 2); ci-1's 6.7 J check: 6 + 1 = 7 > FV 2: it surrenders and 2114 is empty. 6.4 J: at least
    # one attacker advances, the attacker's pick (before: always the first listed); then more may follow up
    # to the stacking limits (two battalions of the 4th Legere stack, 4.1.2)
    from engine.tbf.game.actions import Melee
    from engine.tbf.game.types import Segment
    s = _around_ci1(Segment.MELEE, "routed")
    asked = []

    def choose(req):
        asked.append((req.rule, req.options))
        return "4l-2" if "4l-2" in req.options else req.options[0]

    s2, _ = R.apply(s, Melee("french", ("4l-1", "4l-2"), "2114"), dice=TypedDice([1, 1, 6]), chooser=choose)
    assert asked == [("6.4 J", ("4l-1", "4l-2")), ("6.4 J", ("stay", "4l-1"))]
    assert (s2.game.piece("4l-2").hex, s2.game.piece("4l-1").hex) == ("2114", "2115")
    both, _ = R.apply(s, Melee("french", ("4l-1", "4l-2"), "2114"), dice=TypedDice([1, 1, 6]),
                      chooser=lambda req: "4l-1" if "4l-1" in req.options else req.options[0])
    assert both.game.piece("4l-1").hex == "2114" and both.game.piece("4l-2").hex == "2014"
    all_in, _ = R.apply(s, Melee("french", ("4l-1", "4l-2"), "2114"), dice=TypedDice([1, 1, 6]),
                        chooser=lambda req: req.options[-1])
    assert all_in.game.piece("4l-1").hex == all_in.game.piece("4l-2").hex == "2114"


# --- 6.1.1 B-C, 6.1.2 A-B: activating subordinate leaders is a choice ---------------------------------------------
def test_6_1_2_B_kutusov_may_keep_a_column_leader_back():
    # Kutusov (2810) reaches Miloradovich (2512, 3 hexes: within his 6, 6.1.2 B); Kolloredo's Column V is not
    # released yet (9.2 H), so only Miloradovich is asked about. Kept back, he is not flipped (6.1.3 B) and
    # his Column I is not in Kutusov's impulse; he may open his own impulse later this turn (6.1.3 E)
    from engine.tbf.game.actions import Activate
    asked = []

    def keep(req):
        asked.append((req.rule, req.options, req.label))
        return "keep" if "keep" in req.options else req.options[0]

    s, _ = R.apply(R.new_game(), Activate("coalition", "kutusov"), dice=TypedDice([1]), chooser=keep)
    assert asked == [("6.1.2 B", ("activate", "keep"), "kutusov activates miloradovich too?")]
    assert s.impulse.leaders == ("kutusov",) and not set(s.impulse.units) & {"ci-1", "ci-2"}
    assert not s.game.piece("miloradovich").activated and R.queries.can_activate(s, "miloradovich") is None
    # activating him too (the first option) reaches Column I as before
    s2, _ = R.apply(R.new_game(), Activate("coalition", "kutusov"), dice=TypedDice([1]))
    assert s2.impulse.leaders == ("kutusov", "miloradovich") and "ci-1" in s2.impulse.units


# --- 9.1, 9.3 B: the players' set-up (option 9.1) -------------------------------------------------------------
def test_9_1_and_9_3_B_the_players_set_up_then_turn_1_begins():
    import pytest
    from engine.core.errors import RuleViolation
    from engine.tbf.game.actions import Activate, EndSegment, Place
    s = R.new_game(options=["9.1"])
    assert R.to_act(s) == "coalition" and str(R.position(s).phase) == "set-up, coalition"
    legal = R.legal_actions(s)
    # 9.1 C: ci-1 (Column I, in 2411) may go to any other hex of 2411-12, 2511-13 that its stacking allows:
    # 2412 holds ci-2 and ci-5 (two battalions already, 4.1.1 A), 2511 ci-3 and ci-art (one battalion and one
    # battery, the limit), 2513 the cossacks (a cavalry regiment stacks alone): 2512, with ci-4 alone, remains
    assert {a.hex for a in legal if isinstance(a, Place) and a.unit == "ci-1" and a.facing == 4} == {"2512"}
    with pytest.raises(RuleViolation) as e:                    # 9.1 C: not outside Column I's hexes
        R.check(s, Place("coalition", "ci-1", "2311", 4))
    assert e.value.rule == "9.1 C"
    with pytest.raises(RuleViolation) as e:                    # 9.1 D: Column V not west of the 28XX row
        R.check(s, Place("coalition", "cv-1", "2710", 4))
    assert e.value.rule == "9.1 D"
    with pytest.raises(RuleViolation) as e:                    # the French set up second (9.3 A)
        R.check(s, Place("french", "4l-1", "2014", 0))
    assert e.value.rule == "3.3 A"
    with pytest.raises(RuleViolation) as e:                    # no impulse before the set-up is done
        R.check(s, Activate("coalition", "miloradovich"))
    assert e.value.rule == "9.1"
    s, _ = R.apply(s, Place("coalition", "ci-1", "2512", 3))
    assert (s.game.piece("ci-1").hex, s.game.piece("ci-1").facing) == ("2512", 3)
    s, _ = R.apply(s, EndSegment("coalition"))
    assert R.to_act(s) == "french"
    # 9.3 B: the French keep their hexes and face as they wish
    with pytest.raises(RuleViolation) as e:
        R.check(s, Place("french", "4l-1", "2114", 1))
    assert e.value.rule == "9.3 B"
    s, _ = R.apply(s, Place("french", "4l-1", "2014", 2))
    s, _ = R.apply(s, EndSegment("french"))
    assert s.setting_up is None and R.to_act(s) == "coalition" and s.impulse is None and s.turn == 1
    assert R.is_legal(s, Activate("coalition", "miloradovich"))
    assert not R.is_legal(s, Place("coalition", "ci-1", "2411", 3))


# --- the record version -------------------------------------------------------------------------------------
def test_a_record_of_the_engine_before_these_readings_is_refused_naming_its_version():
    import pytest
    from engine.core.errors import RecordError
    from engine.core.game import replay
    from engine.core.record import GameRecord
    old = GameRecord("tbf", "durenstein", options={"options": []}, seed=4, engine_version="tbf-game-1")
    with pytest.raises(RecordError) as e:
        replay(R, old)
    assert "tbf-game-1" in str(e.value) and "tbf-game-2" in str(e.value) and "engine_version" in str(e.value)
    assert R.engine_version == "tbf-game-2"
