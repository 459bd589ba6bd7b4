"""Battle Commander: each kind of question and result of an attack's probability tree in a player's words
(issue 25 point 1; :func:`engine.bc.game.words.bc_step`, ``bc_result``), worked by hand from the rulebook's names
(23.5 results, 21.0 and 23.5 icons) and the demonstration scenario (C1 in E2 attacks F1 in M2)."""
from __future__ import annotations

from dataclasses import replace

import engine.systems  # noqa: F401 - registers the systems
from engine.bc.blocks import Block
from engine.bc.combat import BlockFate, CombatOutcome
from engine.bc.deck import Face
from engine.bc.game.protocol import BcRules
from engine.bc.tally import CombatSetup, CombatSide
from engine.core.procedure import Draw, Sub

RULES = BcRules()
STATE = RULES.new_game()


def _sub(key, rule, label="step"):
    return Sub(key, lambda: None, rule=rule, label=label)


def step(label, rule="23.5"):
    return RULES.describe_step(STATE, _sub(("bc",), rule, label))


def test_questions_name_results_and_attacks_as_the_rulebook_does():
    assert step("effects of skull_bones") == "effects of Skull & Bones"
    assert step("effects of burst") == "effects of Burst"
    assert step("fire from E2 on M2", "23.1") == "Fire from E2 on M2"


def _fate(role, hits=0, retreats=0, eliminated=False):
    return BlockFate(role, "shaken", "none", 0, hits, 0, retreats, eliminated, 2)


def test_a_combat_outcome_says_the_result_then_what_it_did():
    # 23.5 Skull & Bones: the defender's Army loses 1 Morale, checks the Critical Combat Table (here 4 Flags),
    # then its Lead takes 1 hit
    o = CombatOutcome("skull_bones", "fire", "flags_4", 0, -1, 0, 0, (_fate("defender_lead", hits=1),))
    assert RULES.describe_result(STATE, _sub(("bc-combat",), "23.1"), o) == \
        "Skull & Bones: defender loses 1 Morale; critical icon 4 Flags; defending Lead takes 1 hit (23.5)"
    # Gun Smoke: no effect
    assert RULES.describe_result(STATE, _sub(("bc-combat",), "23.1"), CombatOutcome("gun_smoke", "fire", None, 0, 0,
                                                                                   0, 0, ())) == \
        "Gun Smoke: no effect (23.5)"
    # Retreat Flag with an Officer drawn (the Morale loss cancelled): 1 hit, back 1 Zone, +1 Morale on an advance
    rf = CombatOutcome("retreat_flag", "assault", "officer", 0, 0, 0, 0,
                       (_fate("defender_lead", hits=1, retreats=1),), advance_morale=True)
    assert RULES.describe_result(STATE, _sub(("bc-combat",), "23.1"), rf) == \
        ("Retreat Flag: critical icon Officer; defending Lead takes 1 hit and retreats 1 Zone; +1 Morale on an "
         "advance (23.5)")


def test_a_card_is_said_as_the_question_that_drew_it_reads_it():
    card = Draw((1, 2), rule="23.2", label="combat card (fire, column +2)")
    assert RULES.describe_result(STATE, card, Face("flags_4", shifted=(((2, 0), "muskets_shot"),))) == \
        "Muskets & Shot: card icon 4 Flags (23.2)"
    # two net shifts possible (23.4): the result at each
    assert RULES.describe_result(STATE, card, Face("officer", shifted=(((1, -1), "round_shot"),
                                                                       ((1, 1), "skull_bones")))) == \
        "Round Shot at shift -1, Skull & Bones at shift +1: card icon Officer (23.2)"
    assert RULES.describe_result(STATE, Draw((1, 2), rule="23.5", label="Critical Combat Table (defender)"),
                                 Face("death_head")) == "Critical Combat Table: Death Head (23.5)"
    assert RULES.describe_result(STATE, Draw((1, 2), rule="23.5", label="cavalry skill check (attacker)"),
                                 Face("flags_2")) == "Skill Check icon: 2 Flags (21.0)"
    assert RULES.describe_result(STATE, card, Face(reshuffle=True)) == \
        "the reshuffle card: the discards go back into the pile (15.0)"


def test_the_attack_set_up_names_the_two_leads():
    s = CombatSetup("fire", CombatSide(Block("artillery")), CombatSide(Block("infantry", skill=3)))
    assert RULES.describe_result(STATE, _sub(("bc-setup",), "23.1"), s) == \
        "Fire, Artillery (skill 2, Steady) against Infantry (skill 3, Steady) (23.1)"


def test_the_map_after_the_combat_is_said_by_what_changed_as_the_odds_label_does():
    # C1 (coalition, E2) attacks M2, whose Lead F1 becomes Shaken (1 hit, 9.1); the French lose 1 Morale
    g0 = STATE.g
    units = tuple(replace(u, block=replace(u.block, state="shaken")) if u.id == "F1" else u for u in g0.units)
    morale = tuple((s, replace(m, value=m.value - 1)) if s == "french" else (s, m) for s, m in g0.morale)
    g1 = replace(g0, units=units, morale=morale)
    assert RULES.describe_result(STATE, _sub(("bc-apply", g0, "E2", "M2", None), "24.1"), g1) == \
        "on the map: defender block takes 1 hit; french morale -1 (24.1)"


def test_the_combat_cards_steps_say_the_result_and_the_line_not_the_pile():
    # the combat card's inline steps (23.2-23.4, 27.6: engine/bc/combat.py read_combat_card, draw_combat_card,
    # hq_fate_checks) end in tuples that carry the pile left; the tree says what was read, never the pile
    def said(kind, rule, value):
        return RULES.describe_result(STATE, _sub((kind,), rule), value)

    pile = object()
    # an Assault read on the Assault line (23.3); an Ordre Mixte redraw read on the Fire line (27.6)
    assert said("bc-combat-card-read", "23.3", ("bayonets", "assault", pile)) == "Bayonets on the Assault line (23.3)"
    assert said("bc-combat-card-read", "23.3", ("round_shot", "fire", pile)) == "Round Shot on the Fire line (27.6)"
    # the card drawn: its result at the net shift chosen (23.4), or the attacker's redraw (27.6)
    assert said("bc-combat-card-draw", "23.3", ("horse_head", 1, False, pile)) == \
        "Horse Head, net shift +1 (23.4) (23.3)"
    assert said("bc-combat-card-draw", "23.3", (None, 0, True, pile)) == \
        "the attacker redraws on the Fire line (27.6), net shift +0 (23.4)"
    assert said("bc-combat-card-draw", "23.3", ("burst", None, False, pile)) == "Burst (23.3)"
    # the HQs' Fate of War cards (27.10, 27.11)
    assert said("bc-hq-fates", "27.10", ((("french", "HQ hit, one Morale lost"),), (("french", -1),), None)) == \
        "Fate of War: French HQ: HQ hit, one Morale lost (27.11)"


def test_an_ordre_mixte_assaults_tree_shows_no_pile():
    # the play page's Ordre Mixte assault (bot seed 5): before, its card steps read "-, 0, yes, draw 62; discard 1"
    import re
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(here / "dashboards"))
    from attack_records import kind_of, record_until
    from engine.core.quick_odds import _trees, action_tree

    def om(r, s, a):
        return kind_of(r, a) == "attack" and getattr(a, "attack", "") == "assault" and "Ordre Mixte" in r.describe_action(a)

    _, state, action, rules = record_until("bc", om, bot_seed=5, limit=3000)
    texts = set()
    for t in _trees(action_tree(rules, state, action)):
        for n in t.nodes():
            texts |= {str(c.outcome_text) for c in n.children if c.outcome_text is not None}
    assert any("Fire line" in t for t in texts)
    assert not [t for t in texts if re.search(r"\bdraw \d+|\bdiscard \d+|^-,", t)]
