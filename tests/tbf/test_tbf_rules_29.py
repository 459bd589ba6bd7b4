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
