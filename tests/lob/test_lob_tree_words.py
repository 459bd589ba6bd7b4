"""Lines of Battle: what a combat's and a fire's sub-procedures came to, in a player's words (issue 25
point 1): the answers of the probability tree the play page draws under an attack's odds ("show the
tree"; engine/core/quick_odds.py ``action_tree``) via :meth:`LobRules.describe_result`
(engine/lob/words.py). Before, they were dumps of the results' fields, e.g. "winner defender; stage rounds;
taken no; morale French -3; ...", "fight att uid F-Dulong; side French; kind inf; rating 3; ...",
"0, 1, attacker" and "hits 2; retreated no".

Each expected text is worked out by hand from the values given and the rules they cite (1.2 hits and
elimination: a unit is eliminated once its hits pass its rating; 5.3 morale: minus the rating of each
eliminated unit, +1 for taking the area)."""
from __future__ import annotations


from engine.core.procedure import Choose, Sub
from engine.core.quick_odds import RESULT_CHARS
from tests.dashboards.attack_records import tree_answers as _tree_answers
from engine.lob.fight import AfterRoll, CombatContext, CombatResult, End, Fight, NextRound
from engine.lob.fire import FireOutcome, FireSetup
from engine.lob.protocol import LobRules
from engine.lob.units import Unit

R = LobRules()
G = R.new_game("albuera", (), 1)
CTX = CombatContext(target="Albuera", origin="17")
DULONG = Unit("F-Dulong", "French", "inf", rating=3, area="17")        # strength 3
KGL = Unit("A-KGL", "Allied", "inf", rating=2, area="Albuera")         # strength 2: gone at its 3rd hit
FIGHT = Fight((DULONG,), (KGL,), "F-Dulong", "A-KGL")


def _sub(key, rule: str, label: str = "") -> Sub:
    return Sub(key, lambda: iter(()), rule=rule, label=label)


def _fire(hits_left: int, rule: str = "4.2.1") -> Sub:
    return _sub(("fire", FireSetup(target_hits_left=hits_left), "fingerprint", "Allied"), rule,
                "F-2ndArt fires at A-Head")


def test_fire_says_the_hits_and_whether_the_target_retreated():
    # a target of strength 2 takes 3 hits before it goes (1.2): 2 hits leave it on the map
    assert R.describe_result(G, _fire(3), FireOutcome(2, False)) == "2 hits, no retreat (4.2.1)"
    assert R.describe_result(G, _fire(3), FireOutcome(1, True)) == "1 hit, the target retreats (4.2.1)"
    assert R.describe_result(G, _fire(3, "5.1.3"), FireOutcome(0, False)) == "no hit, no retreat (5.1.3)"
    # strength 1: its 2nd hit eliminates it
    assert R.describe_result(G, _fire(2), FireOutcome(2, False)) == "2 hits: the target is eliminated (4.2.1, 1.2)"


def test_the_combat_dice_say_who_won_the_round_and_who_took_the_hits():
    # 5.2.1 infantry against infantry: the loser's lead takes 1 hit
    dice = _sub(("dice", "F-Dulong", "inf", "A-KGL", "inf", 3, 2, True, "fingerprint"), "5.2.1", "combat dice")
    assert R.describe_result(G, dice, (0, 1, "attacker")) == "the attacker wins the round: A-KGL takes 1 hit (5.2.1)"
    # cavalry against cavalry: the loser takes the difference (here 2), the winner 1
    cav = _sub(("dice", "F-Lancers", "cav", "A-Hussars", "cav", 2, 2, False, "fingerprint"), "5.2.1")
    assert R.describe_result(G, cav, (2, 1, "defender")) == \
        "the defender wins the round: F-Lancers takes 2 hits, A-Hussars takes 1 hit (5.2.1)"


def test_a_combat_roll_says_the_hits_since_the_roll_began():
    roll = _sub(("roll", CTX, FIGHT.key()), "5.2.1", "combat roll")
    won = AfterRoll(Fight((DULONG,), (KGL.hit(1),), "F-Dulong", "A-KGL", False), (), "attacker")
    assert R.describe_result(G, roll, won) == "the attacker wins the round: A-KGL takes 1 hit (5.2.1)"
    # F-Dulong already carrying 3 hits (strength 0) loses the roll: its 4th hit eliminates it (1.2)
    worn = Fight((DULONG.hit(3),), (KGL,), "F-Dulong", "A-KGL", False)
    lost = AfterRoll(Fight((), (KGL,), None, "A-KGL", False), (DULONG.hit(4),), "defender")
    assert R.describe_result(G, _sub(("roll", CTX, worn.key()), "5.2.1"), lost) == \
        "the defender wins the round: F-Dulong eliminated (5.2.1)"


def test_the_rounds_say_who_holds_the_area_and_what_each_unit_lost():
    rounds = _sub(("rounds", CTX, FIGHT.key()), "5.2", "combat rounds")
    # A-KGL takes 3 hits (eliminated, 1.2); F-Dulong 1 hit and moves into Albuera
    end = End((KGL.hit(3), DULONG.hit(1).moved("Albuera")), "attacker")
    assert R.describe_result(G, rounds, end) == \
        "the attacker takes Albuera: A-KGL eliminated, F-Dulong takes 1 hit (5.2)"
    # the defender gives the area up: A-KGL retreats to area 10 with 1 hit (5.2.3)
    gave_up = End((KGL.hit(1).moved("10"), DULONG.moved("Albuera")), "attacker")
    assert R.describe_result(G, rounds, gave_up) == \
        "the attacker takes Albuera: A-KGL takes 1 hit and falls back to area 10 (5.2)"
    # after the decisions, both fight on (5.2.5)
    ar = AfterRoll(FIGHT, (), "defender")
    decide = _sub(("decide", CTX, ar.key()), "5.2.2", "retreats and replacement")
    assert R.describe_result(G, decide, NextRound(FIGHT, ())) == "another round, F-Dulong against A-KGL (5.2.5)"


def test_a_combat_says_who_holds_the_area_how_and_the_morale():
    combat = _sub(("combat", CTX, (DULONG,), (KGL,)), "5", "combat at Albuera")
    taken = CombatResult((KGL.hit(3), DULONG.hit(1).moved("Albuera")), "attacker", "rounds", "Albuera", "French",
                         "Allied", True)
    # 5.3: the Allies lose A-KGL's rating of 2; the French gain 1 for taking the area
    assert R.describe_result(G, combat, taken) == \
        "the attacker takes Albuera: A-KGL eliminated, F-Dulong takes 1 hit (5.2); morale French +1, Allied -2 (5.3)"
    feint = CombatResult((KGL, DULONG), "defender", "feint", "Albuera", "French", "Allied", False)
    assert R.describe_result(G, combat, feint) == "the defender holds Albuera, the attacker feinted, no losses (5.1.4)"


def test_a_combat_too_long_to_name_every_unit_says_each_sides_losses_as_counts():
    att = tuple(Unit(f"F-Brigade{i}", "French", "inf", rating=3, area="17") for i in range(4))
    dfn = tuple(Unit(f"A-Brigade{i}", "Allied", "inf", rating=2, area="Albuera") for i in range(3))
    ctx_fight = Fight(att, dfn, att[0].uid, dfn[0].uid)
    # every attacker takes 1 hit (4 hits); two defenders take 3 hits and go (1.2), the third takes 1
    end = End(tuple(u.hit(1) for u in att) + (dfn[0].hit(3), dfn[1].hit(3), dfn[2].hit(1)), "defender")
    text = R.describe_result(G, _sub(("rounds", CTX, ctx_fight.key()), "5.2"), end)
    assert text == "the defender holds Albuera: attacker loses 4 hits, defender loses 1 hit and 2 units (5.2)"
    assert len(text) < RESULT_CHARS


def test_a_leaders_loss_and_a_choice_in_a_tree():
    loss = _sub(("loss", "Beresford"), "7.1.1", "Beresford caught alone")
    assert R.describe_result(G, loss, "slight") == "the leader is slightly wounded and steps away (7.1.1)"
    feint = Choose(("attack", "feint"), rule="5.1.4", label="attacker: press the attack or feint?")
    assert R.describe_result(G, feint, "feint") == "feint and fall back (5.1.4)"


def test_the_play_pages_attack_and_fire_trees_answer_in_words():
    # the play page's odds benchmark (tests/bench/test_play_odds_bench.py): F-Dulong (rating 3) attacks
    # A-KGL (rating 2) in Albuera from area 17; F-2ndArt fires at A-Head (strength 1: 2 hits eliminate it)
    attack = _tree_answers("LoB attack")
    assert "the defender holds Albuera: F-Dulong eliminated (5.2); morale French -3 (5.3)" in attack
    assert "the attacker takes Albuera: A-KGL eliminated (5.2); morale French +1, Allied -2 (5.3)" in attack
    fire = _tree_answers("LoB fire")
    assert fire == ["no hit, no retreat (4.2.1)", "1 hit, no retreat (4.2.1)",
                    "2 hits: the target is eliminated (4.2.1, 1.2)"]


def test_a_combats_note_in_the_tree_says_each_sides_morale_in_words():
    # attack.py logs the end of a combat (5.3) with the morale changes as a mapping; the tree's note says it as
    # a record's answer does: the Allies held area 23 after the rounds (5.2), French -3, Allied 0
    from engine.lob.words import describe_note
    said = describe_note("5.3", "combat at 23: defender holds it (rounds); morale {'French': -3, 'Allied': 0}")
    assert said == "combat at area 23: the defender holds it, after the combat rounds (5.2); French morale -3, Allied morale +0"
    assert describe_note("5.2.1", "a note of its own") == "a note of its own"
