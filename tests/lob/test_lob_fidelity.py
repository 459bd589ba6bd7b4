"""Rule readings of Lines of Battle settled for issue 11 (rulebook 002): one hand-worked test each.

Map facts used (data/lob/albuera/map.yaml): 15-16 and 15-23 carry approaches; 15 borders 10, 11, 14,
16, 23; 10 is a hill on the road into Albuera (a town), which borders 4; 24 borders 65 and 67 (woods)
across streams and 19 at a ford; 72 borders 17, 19, 25 (no water) and 32 across the river.
"""
from dataclasses import replace
from fractions import Fraction
from functools import partial
import json

import pytest

from engine.cli import main
from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import TypedDice, play
from engine.lob.analysis import analyse
from engine.lob.actions import Action
from engine.lob.artillery import fire_retreats as _fire_retreats
from engine.lob.combat import combat
from engine.lob.handlers import legal_actions, perform
from engine.lob.movement import move_cost, points_left
from engine.lob.retreats import retreat_sets
from engine.lob.setup import new_game
from engine.lob.policies import CombatPolicy

from lob_helpers import combat_of


def do(g, action, dice=(), chooser=None):
    return play(partial(perform, g, action), dice=TypedDice(list(dice)),
                chooser=chooser or (lambda r: r.options[0])).result


def command(options=()):
    return do(new_game(options=options), Action("end-admin"))


def cli(capsys, *argv):
    rc = main(["lob", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


# ------------------------------------------------------------------------------------------------
# 4.2.2 NB: infantry on an approach may step back into its own area and go on
# ------------------------------------------------------------------------------------------------
def test_4_2_2_nb_infantry_steps_back_off_its_approach_and_moves_on():
    g = command()
    # Brayer stands in 25 on the approach facing 19; an Allied light cavalry unit holds 72
    g = g.with_units([replace(g.unit("F-Brayer"), area="25", approach="19"),
                      replace(g.unit("A-Head"), area="72")]
                     + [replace(u, area="75") for u in g.units if u.area == "72" and u.side == "French"])
    g = do(g, Action("activate", area="25"))
    brayer = g.unit("F-Brayer")
    # back into 25 (1) then into 75 (1) = 2; on to 67 over the stream (1 + 1) = 4 > 3
    assert move_cost(g, brayer, ("25", "75")) == 1 + 1
    # re-facing: off the approach (1) and onto the one facing 72 (1) = 2, with or without the path
    assert move_cost(g, brayer, (), end="approach:72") == 2
    assert move_cost(g, brayer, ("25",), end="approach:72") == 2
    # attack another area: back (1) + into 72 (1) + enemy area (1) = 3 = infantry allowance
    assert move_cost(g, brayer, ("25",), attack="72") == 3
    act = Action("attack", units=("F-Brayer",), path=("25",), target="72")
    assert act in legal_actions(g)
    # without stepping back its first move must be the faced area 19
    with pytest.raises(RuleViolation, match="4.2.2"):
        move_cost(g, brayer, ("75",))
    # the step back is for the approach unit alone, not a group (4.2.2)
    with pytest.raises(RuleViolation, match="single infantry"):
        do(g, Action("move", units=("F-Brayer", "F-Dellard"), path=("25", "75")))
    g2 = do(g, Action("move", units=("F-Brayer",), path=("25", "75")))
    assert g2.unit("F-Brayer").area == "75" and g2.unit("F-Brayer").approach is None


# ------------------------------------------------------------------------------------------------
# 4.2.2: a square may change formation in place and then move (points add up)
# ------------------------------------------------------------------------------------------------
def test_4_2_2_square_unforms_then_moves_two_areas():
    g = command()
    g = g.with_units([replace(g.unit("F-Brayer"), square=True)])
    g = do(g, Action("activate", area="75"))
    # moving two areas in square: (1 + 1) + (1 + 1) = 4 > 3 -> refused
    with pytest.raises(RuleViolation, match="movement points"):
        do(g, Action("move", units=("F-Brayer",), path=("25", "72")))
    # unform in place: 1 point, the unit may still move
    g2 = do(g, Action("move", units=("F-Brayer",), end="line"))
    assert "F-Brayer" not in g2.acted and points_left(g2, g2.unit("F-Brayer")) == 3 - 1
    # then two areas in line: 1 + 1 = 2 = what is left (1 + 2 = 3)
    g3 = do(g2, Action("move", units=("F-Brayer",), path=("25", "72")))
    assert g3.unit("F-Brayer").area == "72" and not g3.unit("F-Brayer").square and "F-Brayer" in g3.acted
    # the rulebook's example: form square (1) then move one area in square (1 + 1) = 3
    g4 = do(do(g, Action("move", units=("F-Veilande",), end="square")),
            Action("move", units=("F-Veilande",), path=("25",)))
    assert g4.unit("F-Veilande").square and g4.unit("F-Veilande").area == "25"


def test_4_2_2_square_pays_its_extra_only_until_close_terrain_breaks_it():
    g = command()
    sq = replace(g.unit("A-Colborne"), square=True)        # in 10 (hill, open)
    # 10 -> Albuera in square (1 + 1), then no longer a square: Albuera -> 4 costs 1: total 3
    assert move_cost(g, sq, ("Albuera", "4")) == 2 + 1
    # open ground all the way: 10 -> 4 -> 3 in square: (1 + 1) + (1 + 1) = 4
    assert move_cost(g, sq, ("4", "3")) == 4


# ------------------------------------------------------------------------------------------------
# 5.2.2 / 5.2.3: any set of units that includes the lead may retreat
# ------------------------------------------------------------------------------------------------
def test_5_2_2_retreat_sets_offered():
    # the lead alone, the lead with each set of the others short of all, and everyone
    assert retreat_sets(("B", "C")) == ("lead", "lead+B", "lead+C", "all")
    assert retreat_sets(("B",)) == ("lead", "all")
    assert retreat_sets(()) == ("all",)
    # 3 others: 3 singles + 3 pairs between "lead" and "all" = 8 = 2**3 choices
    assert len(retreat_sets(("B", "C", "D"))) == 2 ** 3


def test_5_2_2_attacker_pulls_back_the_lead_and_a_spent_unit_only():
    # A (inf 3, the lead: strongest first), B (inf 1), C (inf 3) attack D (inf 1) in 15 from 16.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 3},
                                           {"uid": "B", "kind": "inf", "rating": 1},
                                           {"uid": "C", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 1}])
    seen = []
    pol = CombatPolicy("spent:2", "stay")

    def chooser(req):
        seen.append((req.rule, req.options))
        return pol(req)
    # round 1: A 1+3 = 4 vs D 6+1 = 7 -> A takes 1 hit (strength 2 <= 2): A goes back with B (strength
    # 1 <= 2), C (3) stays and leads. Round 2: C 6+3 = 9 vs D 1+1 = 2 -> D 1 hit (strength 0);
    # round 3: 9 vs 2 again -> D has 2 hits > rating 1: eliminated; C takes 15 (no lead hit: 5.2.3).
    res = play(partial(combat, ctx, att, dfn), dice=TypedDice([1, 6, 6, 1, 6, 1]), chooser=chooser).result
    assert ("5.2.2", ("stay", "lead", "lead+B", "lead+C", "all")) in seen
    assert res.unit("A").area == "16" and res.unit("A").hits == 1
    assert res.unit("B").area == "16" and res.unit("B").hits == 0
    assert res.unit("C").area == "15" and res.unit("C").hits == 0
    assert res.unit("D").eliminated
    # 5.3: French +1 for the area, Allied -1 (rating 1)
    assert res.morale() == {"French": 1, "Allied": -1}


def test_5_2_3_defender_retreats_the_lead_with_some_units_and_holds_with_the_rest():
    # D1 (inf 3 on the approach facing 16: the lead, 5.1.1 priority 1), D2 (inf 1), D3 (inf 4) hold 15
    # against A (inf 3) from 16. Defender 'spent:3': after round 1 D1 is at 3 or 2 (<= 3): it goes with
    # D2 (1 <= 3); D3 (4) stays, so the area is not given up (5.2.3).
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 3}],
                              [{"uid": "D1", "kind": "inf", "rating": 3, "approach": "16"},
                               {"uid": "D2", "kind": "inf", "rating": 1},
                               {"uid": "D3", "kind": "inf", "rating": 4}])
    an = analyse(ctx, att, dfn, CombatPolicy("stay", "spent:3"))
    # round 1: A d6+3 vs D1 d6+3+1 (approach): A wins on a difference of 2+: (4+3+2+1)/36 = 5/18.
    # Retreat (5.1.2): the lead takes 1 hit (infantry attacker lead), D2 none. E[D1] = 5/18 + 1 = 23/18.
    assert an.expected_hits("D1") == Fraction(23, 18)
    assert an.expected_hits("D2") == 0
    # both go to 10, the cheapest free neighbour of 15 (not the attackers' 16), off the approach
    for res in an.dist:
        assert res.unit("D1").area == "10" and res.unit("D1").approach is None
        assert res.unit("D2").area == "10"


# ------------------------------------------------------------------------------------------------
# 5.3.1 / 7.1: any number of the eligible cavalry charge; leaders may join
# ------------------------------------------------------------------------------------------------
def test_5_3_1_some_cavalry_charge_and_a_leader_rides_with_them():
    g = command(options=("leaders",))
    # empty 72 and 17 of French units, put de Espana (inf 1) in 72 and Murgeon (inf 3) in 17
    g = g.with_units([replace(u, area="75") for u in g.units if u.area in ("72", "17") and u.side == "French"]
                     + [replace(g.unit("A-Espana"), area="72"), replace(g.unit("A-Murgeon"), area="17")])
    g = g.with_leaders([replace(ld, area="75") for ld in g.leaders if ld.area in ("72", "17")])
    g = do(g, Action("activate", area="25", units=("Latour-Maubourg",)))
    asked = []

    def chooser(req):
        asked.append(req.context[0] if isinstance(req.context, tuple) else getattr(req.context, "kind", None))
        ctx = req.context
        if isinstance(ctx, tuple) and ctx[0] == "charge":
            return "17" if "17" in req.options else "none"
        if isinstance(ctx, tuple) and ctx[0] == "charge-unit":
            return "hold" if ctx[2] == "F-Bron" else "charge"
        if isinstance(ctx, tuple) and ctx[0] == "charge-leader":
            return "join"
        return CombatPolicy()(req)
    # Attack on 72: Bron (heavy 3) 6+3 = 9 vs de Espana 1+1 = 2: cavalry win by 7 -> 7 hits, eliminated;
    # Bron takes 1. Leader loss roll: 6 (no effect). Charge on 17: Bron holds, Eclat (3) alone:
    # 6+3 = 9 vs Murgeon 1+3 = 4 -> 5 hits, eliminated; Eclat 1 hit. Loss roll 6.
    dice = [6, 1, 6, 6, 1, 6]
    g2 = do(g, Action("attack", units=("F-Bron", "F-Eclat", "Latour-Maubourg"), target="72"), dice, chooser)
    assert "charge-unit" in asked and "charge-leader" in asked
    assert g2.unit("F-Bron").area == "72" and g2.unit("F-Bron").hits == 1     # held back
    assert g2.unit("F-Eclat").area == "17" and g2.unit("F-Eclat").hits == 1   # charged
    assert g2.unit("A-Espana").eliminated and g2.unit("A-Murgeon").eliminated
    assert g2.leader("Latour-Maubourg").area == "17"                           # rode with the charge
    # morale: French +1 +1 for two areas taken; Allied -1 (de Espana) -3 (Murgeon)
    assert g2.morale_of("French") == 12 and g2.morale_of("Allied") == 6


# ------------------------------------------------------------------------------------------------
# 5.1.3: defensive fire does not depend on the attackers' area
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target,origin,blocked", [("16", "Albuera", ["15", "23", "24"]),
                                                    ("24", "65", ["16", "23", "28", "67"]),
                                                    ("15", "16", ["10", "14", "23"])])
def test_5_1_3_defensive_fire_is_the_same_from_town_wood_or_open(target, origin, blocked):
    # A deployed foot gun alone fires at an infantry 3 attacker: 4-5 one hit or retreat, 6 one hit then a
    # second or retreat; the attacker stands unless destroyed: E[hits] = (2/6)*1 + (1/6)*2 = 2/3 -- out
    # of the town (no -2) and out of a wood (not barred) as out of the open.
    ctx, att, dfn = combat_of(target, origin, [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "deployed": True}], enemy_adjacent=blocked)
    assert analyse(ctx, att, dfn).expected_hits("I") == Fraction(2, 3)


# ------------------------------------------------------------------------------------------------
# 7.2.1: a lone horse battery that gets away gives no capture point
# ------------------------------------------------------------------------------------------------
def test_7_2_1_lone_horse_battery_retreating_gives_no_capture_point():
    blocked = ["10", "14", "23"]                 # only 11 (clear, no water) is free
    # limbered horse battery: d6 + 2 (limbered) + 1 (horse) >= 4 always: it escapes, no point
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "arty": "horse"}], enemy_adjacent=blocked)
    an = analyse(ctx, att, dfn)
    assert an.eliminated("G") == 0 and an.attacker_takes_area == 1
    assert an.expected_morale("French") == 0
    # deployed: it fires first, then d6 + 0 + 1 >= 4 <=> d6 >= 3: escapes 2/3 (no point), lost 1/3
    # (the area is taken from a destroyed battery: +1). E[French] = 1/3; E[Allied] = -1/3.
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art", "arty": "horse", "deployed": True}],
                              enemy_adjacent=blocked)
    an = analyse(ctx, att, dfn)
    assert an.expected_morale("French") == Fraction(1, 3)
    assert an.expected_morale("Allied") == Fraction(-1, 3)
    # a foot battery, limbered: d6 + 2 >= 4 (5/6 escape) and the point is always scored: E = +1
    ctx, att, dfn = combat_of("15", "16", [{"uid": "I", "kind": "inf", "rating": 3}],
                              [{"uid": "G", "kind": "art"}], enemy_adjacent=blocked)
    assert analyse(ctx, att, dfn).expected_morale("French") == 1


# ------------------------------------------------------------------------------------------------
# 4.2.1: a fired-on unit retreats only where it could normally move
# ------------------------------------------------------------------------------------------------
def test_4_2_1_fire_retreat_only_into_areas_the_unit_could_move_into():
    g = command()
    g = g.with_units([replace(g.unit("A-BrArt"), area="24", deployed=True),
                      replace(g.unit("A-Colborne"), area="24"),
                      replace(g.unit("F-ResArt"), area="19", deployed=True)])
    gun = g.unit("F-ResArt")
    # 24's neighbours: 16, 23, 28 (open), 19 (French: barred), 65 and 67 (woods over a stream). A gun
    # would pay 1 + 1 (wood) + 2 (stream) = 4 > 3 for the woods, so it cannot go there;
    # infantry pay 1 + 1 (stream) = 2 <= 3.
    assert _fire_retreats(g, gun, g.unit("A-BrArt"), "near") == ("16", "23", "28")
    assert _fire_retreats(g, gun, g.unit("A-Colborne"), "near") == ("16", "23", "28", "65", "67")


# ------------------------------------------------------------------------------------------------
# Bad input (issue 11): refused with one line, exit 2
# ------------------------------------------------------------------------------------------------
BASE = {"target": "15", "origin": "16", "attackers": [{"uid": "A", "kind": "inf", "rating": 3}],
        "defenders": [{"uid": "D", "kind": "inf", "rating": 3}]}


@pytest.mark.parametrize("change,words", [
    ({"attackers": [{"uid": "A", "kind": "inf", "rating": 3, "approach": "15"}],
      "defenders": [{"uid": "D", "kind": "inf", "rating": 3, "approach": "16"}]}, "holds one infantry"),
    ({"enemy_adjacent": ["10"], "friendly_adjacent": ["10"]}, "both"),
    ({"enemy_adjacent": ["28"]}, "does not border"),
    ({"friendly_adjacent": ["16"]}, "own area"),
    ({"enemy_adjacent": ["nowhere"]}, "no enemy_adjacent area"),
])
def test_7_2_1_and_1_1_bad_combat_files_refused(tmp_path, capsys, change, words):
    spec = dict(BASE, **change)
    with pytest.raises(RuleViolation, match=words):
        combat_of(**{k: spec[k] for k in ("target", "origin", "attackers", "defenders")},
                  **{k: v for k, v in spec.items() if k not in ("target", "origin", "attackers", "defenders")})
    f = tmp_path / "c.json"
    f.write_text(json.dumps(spec))
    rc, out, err = cli(capsys, "combat", str(f))
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [("fire", "--strength", "-3"), ("fire", "--strength", "99"),
                                  ("schedule", "--turns", "-5"), ("schedule", "--turns", "0")])
def test_cli_numbers_out_of_range_refused(capsys, argv):
    rc, out, err = cli(capsys, *argv)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and argv[1] in err


@pytest.mark.parametrize("action", [
    {"type": "activate", "units": "F-Vare", "area": "72"},      # a string where a list is expected
    {"type": "move", "units": 5, "path": ["25"]},
    {"type": "move", "units": ["F-Vare"], "path": 25},
    {"type": "move", "units": ["F-Vare"], "path": ["25"], "end": 5},
    {"type": "activate", "area": {"id": "72"}},
    {"type": "activate", "area": ["72"]},
    {"type": 3},
])
def test_bad_action_fields_refused_in_act_and_in_records(tmp_path, capsys, action):
    with pytest.raises(VedetteError):
        Action.from_json(action)
    rec = tmp_path / "g.json"
    rc, out, err = cli(capsys, "act", str(rec), json.dumps(action))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and not rec.exists()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "vedette-record", "format_version": 1, "game": "lob",
                               "scenario": "albuera", "events": [
                                   {"kind": "action", "action": {"type": "end-admin"}, "answers": []},
                                   {"kind": "action", "action": action, "answers": []}]}))
    rc, out, err = cli(capsys, "replay", str(bad))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "event 1" in err


def test_cli_act_bad_dice_and_choices_refused(tmp_path, capsys):
    rec = tmp_path / "g.json"
    rc, out, err = cli(capsys, "act", str(rec), '{"type": "end-admin"}', "--dice", "x")
    assert rc == 2 and "--dice" in err and not rec.exists()
    rc, out, err = cli(capsys, "act", str(rec), '{"type": "end-admin"}', "--choices", "notjson")
    assert rc == 2 and "--choices" in err and not rec.exists()


# ------------------------------------------------------------------------------------------------
# Invariant: any JSON value as an action is either an Action or a one-line VedetteError
# ------------------------------------------------------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
                    max_leaves=8)
FIELDS = st.fixed_dictionaries({}, optional={"type": JSON | st.sampled_from(["move", "attack", "activate"]),
                                             "units": JSON, "path": JSON, "area": JSON, "target": JSON,
                                             "end": JSON})


@settings(max_examples=200, deadline=None)
@given(FIELDS | JSON)
def test_action_from_json_never_crashes(value):
    try:
        a = Action.from_json(value)
    except VedetteError as exc:
        assert "\n" not in str(exc)
    else:
        assert all(isinstance(x, str) for x in a.units + a.path) and isinstance(a.end, str)


@st.composite
def three_unit_fights(draw):
    def unit(uid):
        kind = draw(st.sampled_from(["inf", "cav"]))
        rating = draw(st.integers(1, 3))
        u = {"uid": uid, "kind": kind, "rating": rating, "hits": draw(st.integers(0, rating - 1))}
        if kind == "cav":
            u["cav"] = draw(st.sampled_from(["heavy", "light", "lancer"]))
        return u
    att = [unit(f"A{i}") for i in range(3)]
    dfn = [unit(f"D{i}") for i in range(draw(st.integers(2, 3)))]
    pol = CombatPolicy(draw(st.sampled_from(["spent:1", "spent:2", "until:1"])),
                       draw(st.sampled_from(["spent:1", "spent:2", "stay"])))
    return combat_of("15", "16", att, dfn), pol


@settings(max_examples=12, deadline=None)
@given(three_unit_fights())
def test_5_2_2_5_2_3_partial_retreats_keep_the_combat_consistent(case):
    # whatever set retreats, the distribution is exact (sums to 1), every unit is accounted for once, a
    # retreated unit stands outside the target, and the area holds one side only (1.1)
    (ctx, att, dfn), pol = case
    an = analyse(ctx, att, dfn, pol)
    assert an.dist.total == 1
    for res in an.dist:
        assert sorted(u.uid for u in res.units) == sorted(u.uid for u in att + dfn)
        assert len({u.side for u in res.units if u.area == ctx.target}) <= 1
        for u in res.units:
            assert (u.area is None) == u.eliminated
