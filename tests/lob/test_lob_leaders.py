"""Optional rule 7.1: leaders (activation, loss roll, lone leaders), 7.1.2 attributes, 7.1.3 light cavalry."""
from dataclasses import replace
from fractions import Fraction
from functools import partial

import pytest

from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, distribution, play
from engine.lob.actions import Action
from engine.lob.handlers import perform
from engine.lob.setup import new_game
from engine.lob.state import Setup
from engine.lob.leaders import loss_roll
from engine.lob.units import Leader


def do(g, action, dice=(), chooser=None):
    return play(partial(perform, g, action), dice=TypedDice(list(dice)),
                chooser=chooser or (lambda r: r.options[0])).result


def command(options=("leaders",)):
    g = new_game(options=options)
    return do(g, Action("end-admin"))


def test_7_1_1_loss_roll_odds():
    # first d6 = 1 (1/6), then 1 killed, 2 badly wounded, 3 slightly wounded (1/6 each): 1/36 each
    d = distribution(partial(loss_roll, Leader("X", "French", "72")))
    assert d["killed"] == d["wounded"] == d["slight"] == Fraction(1, 36)
    assert d["unhurt"] == Fraction(33, 36)
    # 7.1.2 foolhardy: the first roll counts on 1 or 2 -> 2/36 each
    d = distribution(partial(loss_roll, Leader("X", "French", "72", attributes=("foolhardy",))))
    assert d["killed"] == Fraction(2, 36)


def test_7_1_cp_spent_only_through_a_leader_who_commands():
    g = command()
    with pytest.raises(RuleViolation, match="7.1"):
        do(g, Action("activate", area="25"))                     # no leader named
    # Latour-Maubourg commands the cavalry only: the two dragoon brigades wake, not Godinot's infantry
    g2 = do(g, Action("activate", area="25", units=("Latour-Maubourg",)))
    assert {"F-Bron", "F-Eclat", "Latour-Maubourg"} <= g2.activated
    assert "F-Dellard" not in g2.activated
    # Godinot (independent force) then wakes the infantry of the same area for a second CP
    g3 = do(g2, Action("activate", area="25", units=("Godinot",)))
    assert "F-Dellard" in g3.activated and g3.cp == 2
    with pytest.raises(RuleViolation, match="leader's area"):
        do(g3, Action("activate", area="75", units=("Soult",)))   # Soult is in 72


def test_7_1_leader_moves_four_and_not_into_enemies():
    g = do(command(), Action("activate", area="72", units=("Soult",)))
    g2 = do(g, Action("move", units=("Soult",), path=("17", "19", "25", "75")))
    assert g2.leader("Soult").area == "75"
    with pytest.raises(RuleViolation, match="enemy"):
        do(g, Action("move", units=("Soult",), path=("17", "Albuera")))


def test_7_1_2_imbecile_costs_two_and_fat_moves_three():
    g = command()
    ld = g.leader("Soult")
    g = g.with_leaders([replace(ld, attributes=("imbecile", "fat"))])
    g2 = do(g, Action("activate", area="72", units=("Soult",)))
    assert g2.cp == 2
    with pytest.raises(RuleViolation, match="movement"):
        do(g2, Action("move", units=("Soult",), path=("17", "19", "25", "75")))


def test_7_1_3_light_cavalry_without_a_leader():
    g = command(("leaders", "light-cavalry"))
    g2 = do(g, Action("activate", area="17"))
    assert {"F-Briche", "F-Arenberg"} <= g2.activated
    g = command(("leaders",))
    with pytest.raises(RuleViolation):
        do(g, Action("activate", area="17"))


def test_7_1_rally_needs_a_leader_in_the_area():
    g = command()
    g = g.with_units([replace(g.unit("F-Briche"), hits=1)])
    with pytest.raises(RuleViolation, match="leader"):
        do(g, Action("rally", units=("F-Briche",)))            # no leader in 17
    g = g.with_leaders([replace(g.leader("Latour-Maubourg"), area="17")])
    assert do(g, Action("rally", units=("F-Briche",))).unit("F-Briche").hits == 0


def test_7_1_lone_leader_is_pushed_away_or_captured():
    g = command()
    # Werle waits alone in 19 beside the lancers' area; the lancers leave, then Allied units arrive
    g = g.with_leaders([replace(g.leader("Werle"), area="16")])
    g = g.with_units([replace(g.unit("F-Konopka"), area="24")])
    # move an Allied unit into 16 on the Allied go: Werle (alone) rolls for loss (4: unhurt) and steps away
    g = replace(g, player="Allied", activated=frozenset({"A-deGrey"}))
    g2 = do(g, Action("move", units=("A-deGrey",), path=("16",)), dice=[4])
    assert g2.leader("Werle").present and g2.leader("Werle").area != "16"


def test_7_2_1_horse_artillery_moves_one_point_and_fires():
    g = new_game()
    gun = g.unit("F-ResArt")
    g = g.with_units([replace(gun, arty="horse", deployed=True)])
    g = do(do(g, Action("end-admin")), Action("activate", area="72"))
    g2 = do(g, Action("move", units=("F-ResArt",), path=("17",)))
    assert g2.unit("F-ResArt").deployed and "F-ResArt" not in g2.acted
    with pytest.raises(RuleViolation, match="7.2.1"):
        do(g2, Action("move", units=("F-ResArt",), path=("19",)))
    g3 = do(g2, Action("fire", units=("F-ResArt",), target="A-KGL"), dice=[1])
    assert "F-ResArt" in g3.acted
    # foot artillery limbers when it moves and cannot fire
    g4 = do(do(new_game(), Action("end-admin")), Action("activate", area="72"))
    g4 = do(g4, Action("move", units=("F-ResArt",), path=("17",)))
    assert not g4.unit("F-ResArt").deployed


def test_7_1_2_combat_attributes():
    import sys
    from engine.lob.analysis import analyse
    from engine.lob.fight import ATTACKER, DEFENDER, Fight
    from engine.lob.rounds import roll_modifier
    from engine.lob.policies import CombatPolicy
    from lob_helpers import combat_of
    ctx, att, dfn = combat_of("15", "16", [{"uid": "A", "kind": "inf", "rating": 3}],
                              [{"uid": "D", "kind": "inf", "rating": 3}])
    insp = replace(ctx, att_traits=frozenset({"inspiring"}), dfn_traits=frozenset({"demoralising"}))
    f1, f2 = Fight(att, dfn, "A", "D", True), Fight(att, dfn, "A", "D", False)
    # inspiring: +1 to its side's first roll; the defender's demoralising leader gives the attacker +1 too
    assert roll_modifier(insp, f1, ATTACKER) == 3 + 2 and roll_modifier(insp, f2, ATTACKER) == 3
    assert roll_modifier(insp, f1, DEFENDER) == 3
    # foaming: no retreat before combat, no feint, no retreat in the rounds, whatever the policy
    foam = replace(ctx, att_traits=frozenset({"foaming"}), dfn_traits=frozenset({"foaming"}))
    an = analyse(foam, att, dfn, CombatPolicy("feint", "rbc"))
    assert an.stage_dist() == {"rounds": 1}
    assert all(u.eliminated for r in an.dist for u in r.units if u.side != r.winner_side())
    # fearful attacker: always pulls back after the first round, so it is never the winner of a long fight
    fear = replace(ctx, att_traits=frozenset({"fearful"}))
    an = analyse(fear, att, dfn, CombatPolicy("stay", "stay"))
    # the attacker wins the area only by taking... nothing: it must leave after round 1 unless the
    # defender is gone by then (a 3-strength defender cannot be eliminated in one infantry round)
    assert an.attacker_takes_area == 0


def test_7_1_2_marcher_and_artilleryman():
    g = command()
    g = g.with_leaders([replace(g.leader("Girard"), attributes=("marcher",)),
                        replace(g.leader("Soult"), attributes=("artilleryman",))])
    g2 = do(g, Action("activate", area="75", units=("Girard",)))
    from engine.lob.movement import allowance
    assert allowance(g2, g2.unit("F-Brayer")) == 4
    g3 = do(g2, Action("activate", area="72", units=("Soult",)))
    # d6 3 + 1 (artilleryman) = 4 against Head in 32 (light cavalry, strength 1): hit or retreat
    g4 = do(g3, Action("fire", units=("F-ResArt",), target="A-Head"), dice=[3],
            chooser=lambda r: "retreat" if "retreat" in r.options else r.options[0])
    assert g4.unit("A-Head").area != "32"


@pytest.mark.parametrize("seed", [0, 4])
def test_games_with_random_leader_attributes_keep_invariants(seed):
    import random
    import sys
    from engine.core.procedure import RandomDice
    from engine.lob.bots import make_bot
    from engine.lob.scenario import LEADER_ATTRIBUTES
    from test_lob_game import bot_action, invariants
    rng = random.Random(seed)
    g = new_game(options=["leaders", "light-cavalry", "rain"])
    g = g.with_leaders([replace(ld, attributes=tuple(rng.sample(LEADER_ATTRIBUTES, 3))) for ld in g.leaders])
    bots = {"French": make_bot("random", seed), "Allied": make_bot("random", seed + 1)}
    dice = RandomDice(seed)
    for _ in range(4000):
        if g.over:
            break
        g = play(partial(perform, g, bot_action(bots[g.player], g)), dice=dice,
                 chooser=lambda r: bots[r.player].choose(r)).result
        invariants(g)
    assert g.over
