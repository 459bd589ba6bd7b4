"""The Dürenstein game on the core protocol: the sequence of play, hand-worked cases and bad input.

Positions are built from the shipped set-up with pieces moved by hand (the state is a value), so each
case says exactly where everything stands."""
import json
from dataclasses import replace
from fractions import Fraction
from functools import partial

import pytest

from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import system_of
from engine.core.procedure import TypedDice, distribution
from engine.tbf.game.cavalry_charge import charge_setup, counter_charge_meeting, reaction_wedge
from engine.tbf.charge import charge
from engine.tbf.game.actions import Activate, Attach, Charge, EndSegment, Face, Fire, Melee, Move, OutOfCommand, Pass
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.state import Impulse
from engine.tbf.game.position import refuges
from engine.tbf.game.search import crosses_dark_blue, reachable
from engine.tbf.game.setup import setup_problems
from engine.tbf.scenario import default_scenario
from engine.tbf.game.setup import initial_state

SC = default_scenario()
R = TbfRules()
S, SW, N = 3, 4, 0          # facings (hexsides): N, NE, SE, S, SW, NW = 0..5


def canon(s):
    return json.dumps(R.state_to_json(s), sort_keys=True)


def refused(s, action, rule):
    """``action`` is refused in ``s`` naming ``rule``, and ``s`` is unchanged."""
    before = canon(s)
    with pytest.raises(RuleViolation) as exc:
        R.apply(s, action, dice=TypedDice([]))
    assert exc.value.rule == rule, str(exc.value)
    assert canon(s) == before
    return exc.value


def start():
    return R.new_game()


def with_game(s, **pieces):
    """Move pieces: name=(hex, facing) or name=hex."""
    g = s.game
    for pid, v in pieces.items():
        pid = pid.replace("_", "-")
        h, f = v if isinstance(v, tuple) else (v, g.piece(pid).facing)
        g = g.with_piece(pid, hex=h, facing=f)
    return replace(s, game=g)


# ------------------------------------------------------------------------------------------------
# Set-up and sequence
# ------------------------------------------------------------------------------------------------
def test_registered_and_first_state():
    r = system_of("tbf")
    s = r.new_game()
    assert r.to_act(s) == "coalition"                     # 9.0: the game opens on a Coalition impulse
    texts = [r.format_action(a) for a in r.legal_actions(s)]
    # 9.1 E: only Column I (Miloradovich) and Kutusov may activate; Gaindorge is already flipped (9.0)
    assert texts == ["coalition: activate kutusov", "coalition: activate miloradovich", "coalition: pass"]


def test_shipped_setup_is_legal():
    # 4.1.1 A: ci-5 and the cossacks no longer share 2513 (a cavalry regiment stacks alone)
    assert setup_problems(SC, initial_state(SC)) == []
    st = initial_state(SC).with_piece("ci-5", hex="2513")
    assert any(p.startswith("4.1.1 A") for p in setup_problems(SC, st))


def test_impulses_alternate_and_two_passes_end_the_phase():
    s = start()
    s1, _ = R.apply(s, Pass("coalition"), seed=1)
    assert R.to_act(s1) == "french" and s1.passes == 1
    # the French have no leader they may activate on turn 1 (9.4 A: only Gaindorge, flipped): pass only
    assert [a.kind for a in R.legal_actions(s1)] == ["pass"]
    s2, ev = R.apply(s1, Pass("french"), seed=1)
    # both passed in turn: 4.1.10 B, Recovery (7.0), then turn 2's Reinforcement and Initiative (3.1-3.2)
    assert s2.turn == 2 and s2.impulse is None and s2.activations == ()
    assert not any(p.activated for p in s2.game.pieces)
    rules = [a["rule"] for a in ev["answers"]]
    assert "9.2 B" in rules and "3.2 A" in rules and "3.2 B" in rules


def test_activation_runs_its_segments_in_order():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    assert s.impulse.segment == "movement"
    # 6.2.3 A: a 1 on the Level 2/3 chart -> infantry 1 Level 2 hex, cavalry and artillery none
    assert dict((k, (a, b)) for k, a, b in s.impulse.levels)["infantry"][0] == 1
    refused(s, Fire("coalition", ("ci-art",), "2014"), "3.3 B")       # fire is not a movement
    refused(s, Melee("coalition", ("ci-1",), "2014"), "3.3 B")
    s2, _ = R.apply(s, EndSegment("coalition"), seed=0)
    # no French unit is next to an activated Coalition unit and no Coalition unit can fire or melee:
    # the three combat segments have nothing in them and end by themselves; the French impulse is next
    assert s2.impulse is None and R.to_act(s2) == "french"


def test_each_leader_once_per_turn():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s, _ = R.apply(s, EndSegment("coalition"), seed=0)
    s, _ = R.apply(s, Pass("french"), seed=0)
    e = refused(s, Activate("coalition", "miloradovich"), "6.1.3 E")
    assert "already" in e.message
    # Kutusov may still activate, but Miloradovich's units are not his to move again (6.1.3 E)
    s2, _ = R.apply(s, Activate("coalition", "kutusov"), dice=TypedDice([1]))
    refused(s2, Move("coalition", "ci-1", "2312"), "6.1.3 E")


# ------------------------------------------------------------------------------------------------
# 6.1.3 C: an activation with an out-of-command unit
# ------------------------------------------------------------------------------------------------
def ooc_position():
    # ci-5 stands in 3112: 6 hexes from Miloradovich (2512), beyond a column leader's 4 (6.1.2 A), and
    # 3 hexes from Kutusov (2810), too far for his CV to help its check (4.2.2 C)
    s = with_game(start(), ci_5="3112")
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    return s


def test_out_of_command_unit_must_check_before_it_moves():
    s = ooc_position()
    assert s.impulse.out_of_command == ("ci-5",) and "ci-5" not in s.impulse.units
    e = refused(s, Move("coalition", "ci-5", "3111"), "6.1.3 C")
    assert "Out of Command check first" in e.message
    assert OutOfCommand("coalition", "ci-5") in R.legal_actions(s)


def test_out_of_command_check_pass_and_fail():
    s = ooc_position()
    # 6.1.3 C: a d6 at or under the FV (3, no leader near, no DRM) passes: 3 passes, 4 fails
    passed, _ = R.apply(s, OutOfCommand("coalition", "ci-5"), dice=TypedDice([3]))
    assert "ci-5" in passed.impulse.units and passed.game.piece("ci-5").activated
    assert R.is_legal(passed, Move("coalition", "ci-5", "3111"))
    failed, _ = R.apply(s, OutOfCommand("coalition", "ci-5"), dice=TypedDice([4]))
    assert "ci-5" not in failed.impulse.units and failed.game.piece("ci-5").status == "normal"
    e = refused(failed, Move("coalition", "ci-5", "3111"), "6.1.3 C")
    assert "failed" in e.message
    refused(failed, OutOfCommand("coalition", "ci-5"), "6.1.3 C")                  # no second try


# ------------------------------------------------------------------------------------------------
# Movement bookkeeping
# ------------------------------------------------------------------------------------------------
def test_a_unit_finishes_its_move_before_another_moves():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s, _ = R.apply(s, Move("coalition", "ci-1", "2312"), seed=0)                  # 1 MP (level 0)
    assert [ (b.unit, b.mp) for b in s.impulse.book] == [("ci-1", 1)]
    # it may go on (the same movement) with the 3 MPs it has left of MA 4 ...
    assert R.is_legal(s, Move("coalition", "ci-1", "2212"))
    s, _ = R.apply(s, Move("coalition", "ci-2", "2313"), seed=0)
    # ... but once another unit has moved, its movement is over (6.2.4 B)
    refused(s, Move("coalition", "ci-1", "2212"), "6.2.4 B")


def test_beyond_mps_and_into_an_enemy_hex_are_refused():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    e = refused(s, Move("coalition", "ci-1", "1912"), "6.2.1")                   # 6 hexes away, MA 4
    assert "MPs" in e.message
    s = with_game(s, **{"4l-1": "2311"})                                        # a French unit next door
    refused(s, Move("coalition", "ci-1", "2311"), "6.2.5 B")


def test_overstacking_move_refused():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    # 2511 holds ci-3 and the battery: a third unit would break 4.1.1 A at the end of its move (4.1.7)
    refused(s, Move("coalition", "ci-2", "2511"), "4.1.1 A")


def test_wrong_side_out_of_sequence_and_unknown_unit():
    s = start()
    refused(s, Activate("french", "gazan"), "3.3 A")                           # the Coalition's impulse
    refused(s, Move("coalition", "ci-1", "2312"), "3.3 A")                     # nothing activated yet
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    refused(s, Move("coalition", "cv-1", "2710"), "6.1")                      # Column V: not in this activation
    refused(s, Pass("coalition"), "3.3 B")                                    # an impulse is under way
    refused(s, Move("coalition", "nobody", "2710"), "2.4")


def test_facing_change_once_per_segment():
    s, _ = R.apply(start(), Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s, _ = R.apply(s, Face("coalition", "ci-1", 5), seed=0)
    assert s.game.piece("ci-1").facing == 5
    refused(s, Face("coalition", "ci-1", 0), "4.3")
    refused(s, Face("coalition", "ci-2", 9), "4.3 B")


# ------------------------------------------------------------------------------------------------
# 6.2.8 A: a charge after a move uses the MPs left
# ------------------------------------------------------------------------------------------------
def charge_position():
    # The cossacks (MA 9) in 3209 with Miloradovich next door (3009); a French battalion in 2712 facing
    # south (its front away from the cossacks). Level 0 all along row 09-12 between them.
    s = with_game(start(), ci_cav1=("3209", S), miloradovich="3009", **{"103-1": ("2712", S)})
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    return s


def test_charge_after_a_move_with_half_ma_left():
    s = charge_position()
    s, _ = R.apply(s, Move("coalition", "ci-cav1", "2709"), seed=0)
    # 3209 -> 2709 is five level-0 hexes at 1 MP: 5 spent, 9 - 5 = 4 left = half of MA 9 (rounded down)
    assert [b.mp for b in s.impulse.book if b.unit == "ci-cav1"] == [5]
    ch = Charge("coalition", "ci-cav1", ("2710", "2711", "2712"))
    assert R.is_legal(s, ch)                                  # 2 MPs to close, 1 to enter: 3 <= 4
    assert ch in R.legal_actions(s)
    # one MP more spent (6), 3 left: fewer than half the MA -> no charge (6.2.8 A)
    s6 = replace(s, impulse=replace(s.impulse, book=tuple(replace(b, mp=6) for b in s.impulse.book)))
    e = refused(s6, ch, "6.2.8 A")
    assert "fewer than half" in e.message


def test_charge_once_per_segment_and_bent_path():
    s = charge_position()
    s, _ = R.apply(s, Move("coalition", "ci-cav1", "2709"), seed=0)
    bent = Charge("coalition", "ci-cav1", ("2710", "2611", "2712"))
    refused(s, bent, "6.2.11")
    # the attempt check fails on a 6 (FV 3): no charge; the cossacks may not try again this segment
    # (6.2.8 D) but may go on moving with their 4 MPs
    s2, _ = R.apply(s, Charge("coalition", "ci-cav1", ("2710", "2711", "2712")), dice=TypedDice([6]))
    assert s2.game.piece("ci-cav1").hex == "2709" and not s2.game.piece("ci-cav1").charged
    refused(s2, Charge("coalition", "ci-cav1", ("2710", "2711", "2712")), "6.2.8 A")
    assert R.is_legal(s2, Move("coalition", "ci-cav1", "2809"))


# ------------------------------------------------------------------------------------------------
# 6.2.9 A: counter charge only from inside the frontal charge arc; 6.2.9 B alternating approach
# ------------------------------------------------------------------------------------------------
def counter_setup(drag_facing):
    st = initial_state(SC).with_piece("ci-cav1", hex="2709", facing=S).with_piece("drag-1", hex="2712",
                                                                                  facing=drag_facing)
    return charge_setup(SC, st, "ci-cav1", ("2710", "2711", "2712"))


def test_counter_charge_inside_the_arc():
    setup = counter_setup(N)          # the dragoons face north: 2711, 2710, 2709 lie on their N charge line
    assert setup.targets[0].counter_arc
    d = distribution(partial(charge, SC.tables, setup))
    # attempt (FV 3, no leader near): 3/6 = 1/2; the dragoons' Being Charged check (FV 4): 4/6 = 2/3;
    # then they choose to counter (the first option): 1/2 * 2/3 = 1/3
    assert d.prob(lambda o: o.stopped == "counter charge") == Fraction(1, 3)


def test_no_counter_charge_outside_the_arc():
    setup = counter_setup(S)          # facing south: the charger comes from behind them
    assert not setup.targets[0].counter_arc
    d = distribution(partial(charge, SC.tables, setup))
    assert d.prob(lambda o: o.stopped == "counter charge") == 0
    # they stand (2/3) or rout (1/3) instead, after the 1/2 attempt: the attempt fails half the time
    assert d.prob(lambda o: not o.attempted) == Fraction(1, 2)


def test_counter_charge_alternating_approach():
    line = ("a", "b", "c", "d", "e")
    # charger MA 9 > 8: charger b, counter d, charger c -> they meet at c|d
    assert counter_charge_meeting(line, 9, 8) == ("c", "d")
    # the counter-charger has the higher MA: it steps first: d, then charger b, then counter c
    assert counter_charge_meeting(line, 8, 9) == ("b", "c")
    assert counter_charge_meeting(("a", "b"), 9, 9) == ("a", "b")             # already adjacent


def test_reaction_wedge_is_the_whole_two_hex_arc():
    g = SC.board.grid
    w = reaction_wedge(g, "2709", S)
    # three hexes at one (SE, S, SW) and five at two: 8 in all (the old three lines gave 6)
    assert len(w) == 8
    assert {g.distance("2709", h) for h in w} == {1, 2}
    # 2711 (S, S) and the in-between hexes at two are in; the hex behind (2708) is not
    assert "2711" in w and "2708" not in w


# ------------------------------------------------------------------------------------------------
# 9.5.1: the dark blue line, diagonal steps included
# ------------------------------------------------------------------------------------------------
def test_dark_blue_line_closed_on_a_diagonal():
    # the line is stored as 0816|0815, 0916|0915 ...: 0916 -> 0815 (NW) crosses between two of them
    assert crosses_dark_blue(SC, "0916", "0815")
    assert crosses_dark_blue(SC, "1015", "0915")          # a NW step that keeps the row number
    assert not crosses_dark_blue(SC, "0816", "0916")      # along the south side
    assert not crosses_dark_blue(SC, "0815", "0916")      # north to south is not restricted
    st = initial_state(SC).with_piece("103-1", hex="0916")
    r = reachable(SC, st, "103-1", {2: 3, 3: 3})
    assert "0815" not in r and "0915" not in r            # 9.5.1 before Mortier's Alert
    r2 = reachable(SC, st.with_flag("alert"), "103-1", {2: 3, 3: 3})
    assert "0815" in r2


def test_coalition_refuges_leave_out_french_entries():
    st = initial_state(SC)
    assert not {"0801", "1901"} & refuges(SC, st, "coalition")
    assert {"0107", "0108", "0109"} <= refuges(SC, st, "french")


def test_tables_missing_a_terrain_is_a_clear_error(tmp_path):
    from engine.tbf.tables import DEFAULT_TABLES, load_tables
    import yaml
    data = yaml.safe_load(open(DEFAULT_TABLES, encoding="utf-8"))
    del data["terrain"]["terrain"]["town"]
    p = tmp_path / "t.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    with pytest.raises(VedetteError) as exc:
        load_tables(p)
    assert "missing: town" in str(exc.value)


def test_column_vi_may_fire_but_never_moves():
    from engine.tbf.game.exclusive import activation_allowed
    st = initial_state(SC)
    assert not activation_allowed(SC, st, "cvi-1")[0]
    st = st.with_flag("column_VI_deployed").with_piece("cvi-1", hex="3309")
    assert activation_allowed(SC, st, "cvi-1")[0]                                   # 9.2 I
    s = replace(start(), game=st, impulse=Impulse("coalition", "kutusov", units=("cvi-1",)))
    refused(s, Move("coalition", "cvi-1", "3209"), "9.2 I")


# ------------------------------------------------------------------------------------------------
# Fire and melee bookkeeping
# ------------------------------------------------------------------------------------------------
def test_fire_once_per_segment():
    # 4l-1 in 2311 (facing SE, toward 2411) next to ci-1 and ci-6 in 2411; ci-1 turned NW toward it
    s = with_game(start(), **{"4l-1": ("2311", 2)})
    s = replace(s, game=s.game.with_piece("ci-1", facing=5))
    s, _ = R.apply(s, Activate("coalition", "miloradovich"), dice=TypedDice([1]))
    s, _ = R.apply(s, EndSegment("coalition"), seed=0)
    # 3.3 B: the Defensive Fire Segment belongs to the side not activated, at activated units next to it
    assert R.to_act(s) == "french" and s.impulse.segment == "defensive_fire"
    assert [R.format_action(a) for a in R.legal_actions(s)] == ["french: end", "french: fire 4l-1 at 2411"]
    refused(s, Fire("coalition", ("ci-1",), "2311"), "3.3 A")
    s, _ = R.apply(s, EndSegment("french"), seed=0)
    assert s.impulse.segment == "offensive_fire"
    shot = Fire("coalition", ("ci-1",), "2311")
    # seed 3 rolls a 4 on the d10, -2 DRM: 2, no effect, so everyone is still there
    s2, _ = R.apply(s, shot, seed=3)
    assert s2.impulse.segment == "offensive_fire"
    refused(s2, shot, "6.3.2 B")
    refused(s2, Fire("coalition", ("ci-1", "ci-6"), "2311"), "6.3.2 B")
    assert R.is_legal(s2, Fire("coalition", ("ci-6",), "2311"))
    refused(s2, Melee("coalition", ("ci-1",), "2311"), "3.3 B")           # melee comes after the fire


# ------------------------------------------------------------------------------------------------
# JSON and text
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", [
    Activate("coalition", "miloradovich"), Pass("french"), Move("coalition", "ci-1", "2312"),
    Move("coalition", "ci-1", "2312", ("2411", "2312"), 1), Face("french", "4l-1", 2),
    Charge("coalition", "ci-cav1", ("2710", "2711", "2712")), Charge("french", "drag-3", ("a", "b", "c"), ("d",)),
    OutOfCommand("coalition", "ci-5"), Attach("coalition", "cv-1"), Fire("french", ("4l-1", "4l-2"), "2213"),
    Melee("coalition", ("ci-1",), "2014"), EndSegment("french"), __import__("engine.tbf.game.actions", fromlist=["x"])
    .ActivateCommand("coalition", "I", "ci-3")])
def test_action_round_trips(action):
    assert R.action_from_json(json.loads(json.dumps(R.action_to_json(action)))) == action
    assert R.parse_action(R.format_action(action)) == action


@pytest.mark.parametrize("bad,needle", [
    ({"kind": "teleport", "side": "french"}, "kind"), ([1, 2], "object"),
    ({"kind": "move", "side": "french", "unit": 3, "to": "2312"}, "unit"),
    ("french: move 4l-1", "cannot read"), ("charge!", "cannot read")])
def test_bad_action_shapes(bad, needle):
    with pytest.raises(VedetteError) as exc:
        R.parse_action(bad) if isinstance(bad, str) else R.action_from_json(bad)
    assert needle in str(exc.value)


def test_state_round_trip_mid_activation():
    s = charge_position()
    s, _ = R.apply(s, Move("coalition", "ci-cav1", "2709"), seed=0)
    back = R.state_from_json(json.loads(json.dumps(R.state_to_json(s))))
    assert back == s


def test_odds_of_an_out_of_command_check():
    # FV 3, no DRM: a d6 of 1-3 passes -> the unit joins the activation with probability 3/6 = 1/2
    s = ooc_position()
    d = R.odds(s, OutOfCommand("coalition", "ci-5"))
    assert d.prob(lambda st: "ci-5" in st.impulse.units) == Fraction(1, 2)
    with pytest.raises(VedetteError):
        R.odds(s, EndSegment("coalition"))


def test_odds_of_a_charge_on_the_map_sum_to_one():
    s = charge_position()
    s, _ = R.apply(s, Move("coalition", "ci-cav1", "2709"), seed=0)
    d = R.odds(s, Charge("coalition", "ci-cav1", ("2710", "2711", "2712")))
    assert d.total == 1
    # the attempt check (FV 3, no leader next to 2709) fails half the time: the cossacks stay in 2709
    assert d.prob(lambda st: st.game.piece("ci-cav1").hex == "2709" and not st.game.piece("ci-cav1").charged) == Fraction(1, 2)


def test_charger_tires_at_the_end_of_the_melee_segment():
    s = charge_position()
    s, _ = R.apply(s, Move("coalition", "ci-cav1", "2709"), seed=0)
    # the attempt passes on a 1; the battalion fails its Being Charged check on a 6 (FV 5) and routs
    p = R.begin(s, Charge("coalition", "ci-cav1", ("2710", "2711", "2712")))
    p = p.run(lambda req: 1 if "Attempting" in req.label else 6, lambda req: req.options[0])
    s2 = p.state
    cav = s2.game.piece("ci-cav1")
    assert cav.charged and cav.status == "normal"          # 6.2.8 L marker now, fatigue later
    while s2.impulse is not None:
        s2, _ = R.apply(s2, EndSegment(R.to_act(s2)), seed=0)
    assert s2.game.piece("ci-cav1").status == "fatigued"    # 6.2.8 J, 4.2.3


def test_night_turns_shift_fire(monkeypatch):
    # 8.1: from turn 11 on every fire is at night; the same shot on turn 10 is not
    from engine.tbf.game.fire_combat import cached_fire_setup
    g = with_game(start(), **{"4l-1": ("2311", 2)}).game.with_piece("ci-1", facing=5)
    assert not cached_fire_setup(replace(g, turn=10), ("ci-1",), "2311", False).night
    assert cached_fire_setup(replace(g, turn=11), ("ci-1",), "2311", False).night


def test_last_turn_ends_with_a_victory_level():
    # two passes on turn 13 end the phase, the Recovery Phase, and the game (3.4 C, 10.2)
    s = replace(start(), game=replace(start().game, turn=13))
    s, _ = R.apply(s, Pass("coalition"), seed=0)
    s, _ = R.apply(s, Pass("french"), seed=0)
    oc = R.outcome(s)
    assert R.to_act(s) is None and oc.rule == "10.2" and s.turn == 13
    # in the set-up Dürenstein (0715) holds two battalions but Oberloiben (1318, 1418) only leaders, so
    # no French level (10.2.1.2 A); no French unit lost, so no Coalition level: a draw (10.2.5)
    assert oc.winner is None and oc.level == "none"
    refused(s, Pass("french"), "10.0")


def test_state_summary_and_metrics():
    s = ooc_position()
    summ = R.state_summary(s)
    assert summ["impulse"]["leader"] == "miloradovich" and summ["impulse"]["out_of_command"] == ["ci-5"]
    assert summ["leaders_to_activate"]["coalition"] == ["kutusov"]
    m = R.metrics(s)
    assert m["losses.french"] == 0 and m["level.coalition"] == 0


def test_leaderless_command_activates_around_a_designated_unit():
    from engine.tbf.game.actions import ActivateCommand
    # Miloradovich is dead: Column I has no leader left (6.1.4); ci-3 in 2511 takes local command
    s = replace(start(), game=start().game.with_piece("miloradovich", hex=None, status="killed"))
    assert ActivateCommand("coalition", "I", "ci-3") in R.legal_actions(s)
    refused(s, ActivateCommand("coalition", "V", "cv-1"), "6.1.4")          # Kolloredo is still there
    s2, _ = R.apply(s, ActivateCommand("coalition", "I", "ci-3"), dice=TypedDice([1]))
    imp = s2.impulse
    # 6.1.4 A: units in 2511 (ci-3, the battery) or next to it (2411: ci-1, ci-6; 2512: ci-4) are in
    # command; 2412 and 2513 are two hexes away: ci-2, ci-5 and the cossacks must pass a 6.1.3 C check
    assert set(imp.units) == {"ci-3", "ci-art", "ci-1", "ci-6", "ci-4"}
    assert set(imp.out_of_command) == {"ci-2", "ci-5", "ci-cav1"}
    s3, _ = R.apply(s2, EndSegment("coalition"), seed=0)
    assert R.to_act(s3) == "french"
    s3, _ = R.apply(s3, Pass("french"), seed=0)
    refused(s3, ActivateCommand("coalition", "I", "ci-2"), "6.1.4 B")         # once per turn


def test_elite_may_be_disbanded_in_the_reinforcement_phase():
    s, _ = R.apply(start(), Pass("coalition"), seed=1)
    p = R.begin(s, Pass("french"))
    answers = {"8.3 B": "disband"}
    p = p.run(__import__("engine.core.procedure", fromlist=["x"]).RandomDice(1),
              lambda req: answers.get(req.rule, req.options[0]))
    g = p.state.game
    assert g.piece("elite").hex is None and "elite_disbanded" in g.flags
    from engine.tbf.game.exclusive import factors
    assert factors(SC, g, "100-1") == (SC.units["100-1"].ff, SC.units["100-1"].mf)     # 8.3 B: printed values
    assert R.invariants(p.state) == []
