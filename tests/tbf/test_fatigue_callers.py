"""Every Fatigue Check caller on the map (4.1.9-4.1.10, 6.1.3 C, 6.5 B-C, 6.7 K) and the turn structure
(3.2, 5.1/9.2/9.6.2, 6.1, 7.0, 10.x) driven end to end through the engine's API.

Expected values are worked out by hand from the shipped provisional tables (``data/tbf/tables.yaml``):
Overstack DRM +1, Leader Loss DRM +1, Hex Entered by Routing Unit DRM 0; a check passes when
d6 + DRMs - leaders' CVs is at or under the unit's current FV (6.1.3 C)."""
from dataclasses import replace
from fractions import Fraction
from functools import partial

import pytest

from engine.core.errors import RuleViolation
from engine.core.procedure import RandomDice, TypedDice, distribution, play, replay
from engine.tbf.game.activation import activate, out_of_command_check
from engine.tbf.game.leaders import leader_loss
from engine.tbf.game.movement import move_action
from engine.tbf.game.phases import initiative_phase, recovery_phase
from engine.tbf.game.reinforcement import reinforcement_phase
from engine.tbf.game.results import advance
from engine.tbf.game.rout import end_of_activation_overstack, rout_unit
from engine.tbf.game.rout import rout_path
from engine.tbf.game.search import reachable
from engine.tbf.game.victory import victory
from engine.tbf.scenario import default_scenario
from engine.tbf.game.setup import initial_state

SC = default_scenario()
ST = initial_state(SC)


def _only(**placed):
    """A state with only the named pieces on the map: id=(hex, facing) or id=(hex, facing, status)."""
    st = replace(ST, pieces=tuple(replace(p, hex=None) for p in ST.pieces))
    for pid, spec in placed.items():
        h, facing, *rest = spec
        st = st.with_piece(pid, hex=h, facing=facing, status=rest[0] if rest else "normal")
    return st


# --- 6.7 K: a unit routed by a router's passage runs at once -----------------------------------------
def test_6_7_K_unit_routed_by_the_check_routs_at_once():
    # 1/100 routs from 2212 and runs 2212 -> 2113 -> 2013 (next to Rothenhof, a French town).
    # 2/100 stands fatigued (FV 3) in 2113: Hex Entered check d6 + 0 <= 3 passes on 1-3 = 1/2.
    # Failing (4-6, 1/2), a fatigued unit routs (6.7 A) and runs at once (6.7 C): 2113 -> 2013.
    st = _only(**{"100-1": ("2212", 0), "100-2": ("2113", 0, "fatigued")})
    assert rout_path(SC, st.with_piece("100-1", status="routed"), "100-1").path == ("2212", "2113", "2013")
    d = distribution(partial(rout_unit, SC, st, "100-1"))
    assert d.total == 1
    assert all(s.piece("100-1").hex == "2013" and s.piece("100-1").status == "routed" for s in d)
    assert d.prob(lambda s: s.piece("100-2").status == "fatigued" and s.piece("100-2").hex == "2113") == Fraction(1, 2)
    assert d.prob(lambda s: s.piece("100-2").status == "routed" and s.piece("100-2").hex == "2013") == Fraction(1, 2)
    # never left routed where it was checked (the old behaviour waited for its next move)
    assert d.prob(lambda s: s.piece("100-2").status == "routed" and s.piece("100-2").hex == "2113") == 0


def test_6_7_K_chain_each_unit_checks_once_and_every_routed_unit_runs():
    # 1/100 routs 1006 -> 0906 -> 0805 -> ... through 2/100 (0906) and 3/100 (0805), both fatigued
    # (FV 3): each fails its Hex Entered check on 4-6 (1/2) and routs. 2/100 then runs through 0805,
    # where 3/100 has already routed: no second check (two dice in all), and both routed units run.
    st = _only(**{"100-1": ("1006", 0), "100-2": ("0906", 0, "fatigued"), "100-3": ("0805", 0, "fatigued")})
    assert rout_path(SC, st.with_piece("100-1", status="routed"), "100-1").path[:3] == ("1006", "0906", "0805")
    f = partial(rout_unit, SC, st, "100-1")
    p = play(f, dice=TypedDice([6, 6]))
    assert [e.rule for e in p.events if e.kind == "roll"] == ["6.7 K", "6.7 K"]
    for uid, start in (("100-2", "0906"), ("100-3", "0805")):
        assert p.result.piece(uid).status in ("routed", "eliminated") and p.result.piece(uid).hex != start
    d = distribution(f)
    # both run: both fail at once (1/2 * 1/2 = 1/4), or 3/100 passes, 2/100 fails and then runs through
    # 0805, a new router entering, so 3/100 checks again and fails (1/2 * 1/2 * 1/2 = 1/8): 3/8.
    assert d.prob(lambda s: s.piece("100-2").hex != "0906" and s.piece("100-3").hex != "0805") == Fraction(3, 8)


def test_6_7_K_check_comes_before_the_overstack_check():
    # 1/100 routs into 2013 where 1/4 and 2/4 Ligne stand: three infantry battalions of two regiments
    # overstack (4.1.1 A). First each 4L battalion takes the Hex Entered check (FV 5, +0: pass 1-5 = 5/6,
    # failing makes it fatigued), then, the hex still overstacked, the Overstack check (4.1.9):
    # normal FV 5, +1: pass on 1-4 = 2/3; fatigued FV 3, +1: pass on 1-2 = 1/3, failing routs.
    # 1/4 ends normal: 5/6 * 2/3 = 5/9; routed: 1/6 * 2/3 = 1/9; fatigued: 1/6 * 1/3 + 5/6 * 1/3 = 1/3.
    st = _only(**{"100-1": ("2212", 0), "4l-1": ("2013", 0), "4l-2": ("2013", 0)})
    f = partial(rout_unit, SC, st, "100-1")
    d = distribution(f)
    assert d.total == 1
    assert d.prob(lambda s: s.piece("4l-1").status == "normal") == Fraction(5, 9)
    assert d.prob(lambda s: s.piece("4l-1").status in ("routed", "eliminated")) == Fraction(1, 9)
    assert d.prob(lambda s: s.piece("4l-1").status == "fatigued") == Fraction(1, 3)
    # and in a played game the 6.7 K rolls come before the 4.1.9 rolls (dice: 6.7 K 1, 1; 4.1.9 2, 6)
    p = play(f, dice=TypedDice([1, 1, 2, 6]))
    rules = [e.rule for e in p.events if e.kind == "roll"]
    assert rules == ["6.7 K", "6.7 K", "4.1.9", "4.1.9"]
    assert p.result.piece("4l-1").status == "normal" and p.result.piece("4l-2").status == "fatigued"
    assert replay(f, p.events).result == p.result


def test_6_7_K_routed_by_a_check_then_the_overstack_is_gone():
    # Both 4L battalions fatigued (FV 3) in 2013: each fails its Hex Entered check on 4-6 and routs away
    # at once; once they have left, the hex is no longer overstacked and no 4.1.9 check is rolled.
    st = _only(**{"100-1": ("2212", 0), "4l-1": ("2013", 0, "fatigued"), "4l-2": ("2013", 0, "fatigued")})
    p = play(partial(rout_unit, SC, st, "100-1"), dice=TypedDice([6, 6, 1, 1, 1, 1]))
    rolls = [e.rule for e in p.events if e.kind == "roll"]
    assert "4.1.9" not in rolls and rolls[:2] == ["6.7 K", "6.7 K"]
    assert p.result.piece("4l-1").hex != "2013" and p.result.piece("4l-2").hex != "2013"


# --- 4.1.10 B: still overstacked at the end of the Activation Phase ----------------------------------
def test_4_1_10_B_overstack_checks_at_end_of_activation_phase():
    # 1/100, 1/103 (two regiments) and a battery overstack 1616. Infantry FV 5, +1: pass 1-4 = 2/3;
    # battery FV 4: pass 1-3 = 1/2. All three pass: 2/3 * 2/3 * 1/2 = 2/9. Only the owner's units check.
    st = _only(**{"100-1": ("1616", 0), "103-1": ("1616", 0), "art-1": ("1616", 0), "ci-1": ("2411", 4)})
    f = partial(end_of_activation_overstack, SC, st, "french")
    d = distribution(f)
    assert d.prob(lambda s: all(s.piece(u).status == "normal" for u in ("100-1", "103-1", "art-1"))) == Fraction(2, 9)
    assert d.prob(lambda s: s.piece("100-1").status == "fatigued") == Fraction(1, 3)
    p = play(f, dice=RandomDice(4))
    assert [e.rule for e in p.events if e.kind == "log"][0] == "4.1.10 B"      # why the checks happen
    assert [e.rule for e in p.events if e.kind == "roll"] == ["4.1.9"] * 3    # the Overstack check row
    # the Coalition's phase end: none of its hexes is overstacked, nothing rolls, nothing changes
    assert list(distribution(partial(end_of_activation_overstack, SC, st, "coalition")).items()) == [(st, 1)]
    with pytest.raises(RuleViolation) as e:
        distribution(partial(end_of_activation_overstack, SC, st, "austria"))
    assert e.value.rule == "4.1.10 B"


# --- 6.5 B and C: Leader Loss checks ----------------------------------------------------------------
def test_6_5_B_leader_loss_checks_subordinates_in_or_next_to_the_hex():
    # Miloradovich (Column I) killed in 2114. ci-1 in 2114 and ci-2 next door (2214) are his; ci-6 two
    # hexes away and cii-1 (Column II) next door are not checked. No other leader near: DRM +1.
    # ci-1 normal FV 3: pass on 1-2 = 1/3, else fatigued. ci-2 fatigued FV 2: pass on 1 = 1/6, else routs.
    st = _only(**{"ci-1": ("2114", 4), "ci-2": ("2214", 4, "fatigued"), "ci-6": ("2314", 4), "cii-1": ("2113", 4)})
    st = st.with_piece("miloradovich", status="killed", hex=None)
    d = distribution(partial(leader_loss, SC, st, "miloradovich", "2114"))
    assert d.prob(lambda s: s.piece("ci-1").status == "normal") == Fraction(1, 3)
    assert d.prob(lambda s: s.piece("ci-1").status == "fatigued") == Fraction(2, 3)
    assert d.prob(lambda s: s.piece("ci-2").status in ("routed", "eliminated")) == Fraction(5, 6)
    # two rolls only, for ci-1 and ci-2 (dice 1 and 1: both pass); ci-6 and cii-1 do not check
    p = play(partial(leader_loss, SC, st, "miloradovich", "2114"), dice=TypedDice([1, 1]))
    rolled = [e.label for e in p.events if e.kind == "roll"]
    assert len(rolled) == 2 and "ci-1" in rolled[0] + rolled[1] and "ci-2" in rolled[0] + rolled[1]
    assert p.result == st


def test_6_5_B_a_unit_changed_by_an_earlier_router_checks_as_it_now_is():
    # Miloradovich killed in 2114. ci-1 (fatigued, FV 2) in 2115 checks first: d6 + 1 <= 2 only on a 1
    # (1/6); failing (5/6) it routs and runs 2115 -> 2214 -> ..., through ci-2 (normal, FV 3) in 2214,
    # whose Hex Entered check (+0) passes on 1-3 (1/2), else it is fatigued. Then ci-2 takes its own
    # Leader Loss check as it now is: normal FV 3, +1: pass on 1-2 (1/3), else fatigued; fatigued
    # FV 2, +1: pass on 1 (1/6), else routed.
    # ci-2 normal:  1/6 * 1/3 + 5/6 * 1/2 * 1/3 = 2/36 + 5/36 = 7/36
    # ci-2 routed:  5/6 * 1/2 * 5/6 = 25/72
    # ci-2 fatigued: the rest, 1 - 14/72 - 25/72 = 33/72 = 11/24
    st = _only(**{"ci-1": ("2115", 4, "fatigued"), "ci-2": ("2214", 4)})
    assert rout_path(SC, st.with_piece("ci-1", status="routed"), "ci-1").path[:2] == ("2115", "2214")
    st = st.with_piece("miloradovich", status="killed", hex=None)
    d = distribution(partial(leader_loss, SC, st, "miloradovich", "2114"))
    assert d.prob(lambda s: s.piece("ci-2").status == "normal") == Fraction(7, 36)
    assert d.prob(lambda s: s.piece("ci-2").status in ("routed", "eliminated")) == Fraction(25, 72)
    assert d.prob(lambda s: s.piece("ci-2").status == "fatigued") == Fraction(11, 24)


def test_6_5_C_capturing_a_lone_leader_by_moving_checks_his_units_next_to_him():
    # 1/4 Ligne moves 2014 -> 2114 onto Miloradovich alone: captured; ci-1 in 2214 (his) checks at
    # FV 3, +1: pass on 1-2 = 1/3; cii-1 in 2113 (not his) does not check.
    st = _only(**{"4l-1": ("2014", 1), "miloradovich": ("2114", 0), "ci-1": ("2214", 1), "cii-1": ("2113", 1)})
    f = partial(move_action, SC, st, "4l-1", "2114")
    d = distribution(f)
    assert all(s.piece("miloradovich").status == "captured" for s in d)
    assert d.prob(lambda s: s.piece("ci-1").status == "normal") == Fraction(1, 3)
    assert all(s.piece("cii-1").status == "normal" for s in d)
    p = play(f, dice=TypedDice([6]))
    assert [e.rule for e in p.events if e.kind == "roll"] == ["6.5 B"]       # the Leader Loss check row
    assert any(e.kind == "log" and e.rule == "6.5 C" for e in p.events)
    assert p.result.piece("ci-1").status == "fatigued"                       # 6 + 1 = 7 > FV 3


def test_6_5_C_advance_after_combat_captures_and_checks():
    # The same capture by an advance after combat (6.3.8 / 6.4 J).
    st = _only(**{"4l-1": ("2014", 1), "miloradovich": ("2114", 0), "ci-1": ("2214", 1)})
    d = distribution(partial(advance, SC, st, ("4l-1",), "2114"))
    assert all(s.piece("4l-1").hex == "2114" and s.piece("miloradovich").status == "captured" for s in d)
    assert d.prob(lambda s: s.piece("ci-1").status == "fatigued") == Fraction(2, 3)


# --- 6.1 activation, 3.2 initiative ----------------------------------------------------------------
def test_6_1_3_B_E_activation_flips_the_leaders_once():
    plan, st = activate(SC, ST, "miloradovich")
    assert st.piece("miloradovich").activated and not ST.piece("miloradovich").activated   # new state
    assert "ci-1" in plan["units"]
    with pytest.raises(RuleViolation) as e:
        activate(SC, st, "miloradovich")
    assert e.value.rule == "6.1.3 E"
    with pytest.raises(RuleViolation) as e:
        activate(SC, ST, "kolloredo")            # Column V waits for the French (9.2 H)
    assert e.value.rule.startswith("9.")


def test_3_2_initiative_phase_reads_mortier_from_the_state():
    # Turn 1: the Coalition, no roll. Turn 2, Mortier on the map: French win 21 of the 31 non-tied
    # pairs of (French d6 + 1, Coalition d6) -> 21/31. Mortier off the map: symmetric, 1/2.
    assert play(partial(initiative_phase, SC, ST), dice=TypedDice([])).result == "coalition"
    t2 = replace(ST, turn=2)
    assert distribution(partial(initiative_phase, SC, t2))["french"] == Fraction(21, 31)
    off = t2.with_piece("mortier", hex=None, status="wounded")
    assert distribution(partial(initiative_phase, SC, off))["french"] == Fraction(1, 2)


# --- a whole turn through the API ------------------------------------------------------------------
def _turn_one(seed):
    """Turn 1 of Dürenstein through the public API: Reinforcement Phase (3.1), Initiative (3.2),
    activation of Miloradovich (6.1) with a move and an Out of Command check, the end-of-phase
    overstack checks (4.1.10 B), the Recovery Phase (7.0), then turn 2's Reinforcement Phase and
    Initiative and the victory level (10.2)."""
    dice = RandomDice(seed)
    st = play(partial(reinforcement_phase, SC, ST), dice=dice).result
    first = play(partial(initiative_phase, SC, st), dice=dice).result
    plan, st = activate(SC, st, "miloradovich")
    mover = plan["units"][0]
    r = reachable(SC, st, mover)
    dest = sorted(h for h in r if h != st.piece(mover).hex)[0]
    st = play(partial(move_action, SC, st, mover, dest), dice=dice).result
    for uid in plan["out_of_command"]:
        _, st = play(partial(out_of_command_check, SC, st, uid), dice=dice).result
    for side in ("coalition", "french"):
        st = play(partial(end_of_activation_overstack, SC, st, side), dice=dice).result
    st = play(partial(recovery_phase, SC, st), dice=dice).result
    st = play(partial(reinforcement_phase, SC, st), dice=dice).result
    second = play(partial(initiative_phase, SC, st), dice=dice).result
    return first, mover, dest, st, second, victory(SC, st)


def test_3_0_a_whole_turn_runs_end_to_end_through_the_api():
    first, mover, dest, st, second, v = _turn_one(11)
    assert first == "coalition"                                  # 3.2 B: turn 1 without a roll
    assert st.turn == 2                                          # 7.0 H: the turn marker advanced
    assert st.piece(mover).hex == dest                           # the move stands
    assert not any(p.activated for p in st.pieces)               # leaders and units ready again
    assert second in ("french", "coalition")
    assert v["winner"] in ("french", "coalition", "draw") and v["rule"] == "10.2"
    assert _turn_one(11) == (first, mover, dest, st, second, v)   # same seed, same game


def test_7_0_to_9_2_turn_two_reinforcements_follow_the_recovery_phase():
    # Recovery at the end of turn 1 moves the game to turn 2, where Columns II and III roll to muster
    # (9.2 B): the chance of each flag must be what column_muster gives on its own for turn 2.
    from engine.tbf.game.reinforcement import column_muster
    st = play(partial(recovery_phase, SC, ST), dice=TypedDice([])).result
    assert st.turn == 2
    d = distribution(partial(reinforcement_phase, SC, st))
    for col in ("II", "III"):
        alone = distribution(partial(column_muster, SC, col, 2))[True]
        assert d.prob(lambda s: f"column_{col}_mustered" in s.flags) == alone
    assert d.total == 1


def test_4_1_9_a_routed_unit_checks_when_the_players_table_gives_it_something_at_stake(tmp_path):
    # Shipped table: a routed unit has nothing at stake on the Overstack row, so it rolls no die.
    # A player's table where a routed unit failing it surrenders: now it checks too. Routed 1/100 (FV 3,
    # +1) passes on 1-2 = 1/3, so it surrenders with 2/3.
    from pathlib import Path
    from engine.tbf.game.rout import overstack_checks
    from engine.tbf.scenario import load_scenario
    from engine.tbf.tables import parse_tables
    st = _only(**{"100-1": ("1616", 0, "routed"), "103-1": ("1616", 0), "art-1": ("1616", 0)})
    p = play(partial(overstack_checks, SC, st, "1616"), dice=TypedDice([1, 1]))
    assert ["100-1" in e.label for e in p.events if e.kind == "roll"] == [False, False]
    text = (Path(__file__).resolve().parents[2] / "data/tbf/tables.yaml").read_text(encoding="utf-8")
    start = text.index("    overstack:")
    row = text.index("failed: {normal: fatigued, fatigued: rout, routed: none}", start)
    text = text[:row] + "failed: {normal: fatigued, fatigued: rout, routed: surrender}" + \
        text[row + len("failed: {normal: fatigued, fatigued: rout, routed: none}"):]
    sc2 = load_scenario(tables=parse_tables(text, "mine.yaml"))
    d = distribution(partial(overstack_checks, sc2, st, "1616"))
    assert d.prob(lambda s: s.piece("100-1").status == "surrendered") == Fraction(2, 3)
