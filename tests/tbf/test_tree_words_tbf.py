"""These Brave Fellows: each kind of question and sub-procedure result of an attack's probability tree in a
player's words (issue 25 point 1; :func:`engine.tbf.game.odds_words.tbf_step`, ``tbf_result``), worked by hand
from the shipped tables (data/tbf/tables.yaml) and the Dürenstein counters (ci-1 "NOV 1 bn", ci-2 "POD 1 bn",
ci-5 "NOV 3 bn", 4l-3 "3/4th Legere", drag-3 "4th Dragoons sqn 3", kutusov "General Kutusov")."""
from __future__ import annotations

import pytest

import engine.systems  # noqa: F401 - registers the systems
from engine.core.procedure import Roll, Sub
from engine.tbf.charge import ChargeOutcome
from engine.tbf.fatigue import CheckOutcome, CheckSpec
from engine.tbf.fire import FireOutcome, LeaderFate
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.retreat import RetreatOutcome
from engine.tbf.game.types import Status
from engine.tbf.melee import MeleeOutcome

RULES = TbfRules()
STATE = RULES.new_game()


def _sub(key, rule, label="step"):
    return Sub(key, lambda: None, rule=rule, label=label)


def said(key, rule, value):
    return RULES.describe_result(STATE, _sub(key, rule), value)


def test_a_fatigue_check_is_asked_by_its_table_name_and_the_counters_name():
    # label as the procedure writes it: "<check name> Fatigue Check for <unit id>" (engine/tbf/fatigue.py)
    label = "Attempting to Charge Fatigue Check for drag-3"
    assert RULES.describe_step(STATE, _sub(("tbf-check",), "6.2.8 D", label)) == \
        "Fatigue Check (Attempting to Charge) for 4th Dragoons sqn 3"
    assert RULES.describe_step(STATE, Roll("d6", rule="6.2.8 D", label=label)) == \
        "d6 (Fatigue Check (Attempting to Charge) for 4th Dragoons sqn 3)"
    # a name that ends in "Fatigue" itself (7.0 D Remove Fatigue) and a rout step (6.7 C) named
    assert RULES.describe_step(STATE, _sub(("tbf-check",), "7.0 D", "Remove Fatigue Fatigue Check for ci-5")) == \
        "Fatigue Check (Remove Fatigue) for NOV 3 bn"
    assert RULES.describe_step(STATE, _sub(("tbf-rout",), "6.7 C", "ci-5 routs")) == "NOV 3 bn routs"


def test_a_fatigue_checks_result_says_passed_or_failed_its_effect_and_rule():
    # attempting_to_charge passed -> effect "charge" (6.2.8 D); leader_loss failed by a fatigued unit -> rout
    # (6.5 B, 6.7 A); attacker_melee passed under half the FV -> MF doubled (6.4 D)
    assert said(("tbf-check",), "6.2.8 D", CheckOutcome("attempting_to_charge", True, "charge", "normal",
                                                         unit="drag-3")) == "passed: charges (6.2.8 D)"
    assert said(("tbf-check",), "6.2.8 D", CheckOutcome("attempting_to_charge", False, "no_charge", "normal",
                                                         unit="drag-3")) == "failed: no charge this segment (6.2.8 D)"
    assert said(("tbf-check",), "6.5 B", CheckOutcome("leader_loss", False, "rout", "routed", unit="ci-5")) == \
        "failed: routs (6.5 B)"
    assert said(("tbf-check",), "6.4 D", CheckOutcome("attacker_melee", True, "attack", "normal", True, "ci-5")) == \
        "passed: attacks, MF doubled (6.4 D)"
    # no rule on the request: the check's own row (Remove Fatigue, 7.0 D)
    assert said(("tbf-check",), "", CheckOutcome("remove_fatigue", True, "recover", "normal", unit="ci-5")) == \
        "passed: fatigue removed (7.0 D)"


def test_fire_says_its_column_the_code_and_the_tables_words():
    # Fire Combat Table results R: "retreat one hex", "-": "no effect" (6.3.7)
    assert said(("tbf-fire",), "6.3.7", FireOutcome("3", "R")) == "column 3: R, retreat one hex (6.3.7)"
    assert said(("tbf-fire",), "6.3.7", FireOutcome("3", "-")) == "column 3: no effect (6.3.7)"
    assert said(("tbf-fire",), "6.3.7", FireOutcome(None, "-")) == "nothing fires (6.3.7)"


def test_melee_says_the_column_the_result_by_its_effects_the_leader_and_what_came_before():
    # EX row: attacker_eliminate 1, defender_eliminate 1; 6.5 A leader fate; 6.4 D doubled; 6.4 F fatigued
    o = MeleeOutcome("4-1", "EX", (("ci-5", "attacks doubled"),), (("4l-3", "fatigued"),), ("kutusov: killed",))
    assert said(("tbf-melee",), "6.4", o) == ("column 4-1: EX, 1 attacker eliminated; 1 defender eliminated; "
                                              "General Kutusov killed; NOV 3 bn MF doubled (6.4 H)")
    # DR row: defender_fatigue, defender_retreat 1; the defenders' checks and the roll as one step (6.4 F-H)
    t = ("2-1", "DR", (("4l-3", "stands"),), ("kutusov: unhurt",))
    assert said(("tbf-melee-resolve",), "6.4 F", t) == \
        "column 2-1: DR, defenders fatigued and retreat 1 hex; General Kutusov unhurt (6.4 H)"
    # DE row: one eliminated, the others fatigued and back 2 hexes
    de = MeleeOutcome("4-1", "DE", (("ci-5", "attacks"),), (("4l-3", "stands"),), ("kutusov: wounded (2d6 turns)",))
    assert said(("tbf-melee",), "6.4", de) == ("column 4-1: DE, 1 defender eliminated, the others fatigued and "
                                               "retreat 2 hexes; General Kutusov wounded (6.4 H)")
    # the attacker failed its 6.4 D check: no roll
    no = MeleeOutcome(None, "no attack", (("ci-5", "no_attack"),), (("4l-3", "in hex"),))
    assert said(("tbf-melee",), "6.4", no) == "no attack; NOV 3 bn does not attack (6.4 D)"


def test_a_retreat_a_leaders_fate_and_a_charge_in_words():
    assert said(("tbf-retreat",), "6.6", RetreatOutcome("1914", (("ci-5", "fatigued"),))) == \
        "NOV 3 bn (fatigued) retreats to 1914 (6.6)"
    assert said(("tbf-retreat",), "6.6", RetreatOutcome(None, (("ci-5", "surrendered"),))) == \
        "no hex to retreat to: NOV 3 bn (surrenders) (6.6 C)"
    assert said(("tbf-leader",), "6.5 A", LeaderFate("kutusov", "wounded")) == \
        "General Kutusov wounded, out 2d6 turns (6.5 A)"
    assert said(("tbf-charge",), "6.2.8", ChargeOutcome(False, (), "attempt failed", "2312")) == \
        "no charge: the attempt failed (6.2.8 D)"
    assert said(("tbf-charge",), "6.2.8", ChargeOutcome(True, ("2411: ci-1 routs",), "no more targets", "2411")) == \
        "ends in 2411, no more targets; 2411: NOV 1 bn routs (6.2.8)"


def test_a_map_a_sub_procedure_leaves_is_said_by_what_changed_on_it():
    # ci-5 stands in 2412 at the start; the rout step (6.7 C) keys the map it started from
    g0 = STATE.game
    g1 = g0.with_piece("ci-5", status=Status.ROUTED, hex="1812").with_piece("ci-1", status=Status.FATIGUED)
    assert said(("tbf-rout", RULES.sc.key, g0, "ci-5"), "6.7 C", g1) == "NOV 1 bn fatigued; NOV 3 bn routs to 1812 (6.7 C)"
    assert said(("tbf-rout", RULES.sc.key, g0, "ci-5"), "6.7 C", g0) == "nothing changes (6.7 C)"
    # the units a router runs through check in turn (6.7 K): their statuses after, by name
    specs = (CheckSpec("hex_entered_by_router", 3, unit="ci-1"), CheckSpec("hex_entered_by_router", 3, unit="ci-2"))
    assert said(("tbf-6.7K", "tables", specs), "6.7 K", ("fatigued", "normal")) == \
        "NOV 1 bn fatigued; POD 1 bn stands (6.7 K)"
    assert said(("tbf-initiative", False, True, 2), "3.2 A", "french") == "the French win the initiative (3.2 A)"


@pytest.mark.parametrize("n", [1, 4, 12])
def test_a_long_result_is_cut_at_a_whole_part_never_mid_word(n):
    # many units changed: as many as fit, then how many more, under the tree's bound (core RESULT_CHARS 120)
    g0 = STATE.game
    ids = [p.id for p in g0.pieces if p.id in RULES.sc.units and p.hex is not None][:n]
    g1 = g0
    for i in ids:
        g1 = g1.with_piece(i, status=Status.FATIGUED)
    text = said(("tbf-rout", RULES.sc.key, g0, ids[0]), "6.7 C", g1)
    assert len(text) < 120 and text.endswith("(6.7 C)")
    assert text.count("fatigued") + (int(text.split(" more")[0].rsplit("; ", 1)[1]) if " more" in text else 0) == n
