"""Whole games by the book (issue 29, Battle Commander): each reading worked out by hand on the demonstration
map (data/bc/demo/scenario.yaml: M2 holds F1, a Long Infantry of skill 3, and F2; M3 the Infantry F5; W3 the
Cavalry F4; E1 the Cavalry C3; E2 C1, a Long Infantry of skill 2, and the Artillery C4; E3 C2 and the
Coalition HQ), each failing on the engine before bc-game-3."""
from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from engine.bc.blocks import Block
from engine.bc.calc import next_card_odds
from engine.bc.combat import resolve
from engine.bc.cup import Cup
from engine.bc.deck import Pile
from engine.bc.game.actions import action as A
from engine.bc.game.attacks import attack_setup
from engine.bc.game.combat import combat_from_map
from engine.bc.game.movement import move_order
from engine.bc.game.protocol import ENGINE_VERSION, BcRules
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map, set_block
from engine.bc.tally import check_attacker, prepare
from engine.core.errors import DataError, RecordError, RuleViolation
from engine.core.game import initial_state, play_game, replay
from engine.core.procedure import RandomDice, TypedDice, play
from engine.core.record import GameRecord

R = BcRules()
DECK = R.deck


def _card(pred) -> int:
    return next(n for n in DECK.event_numbers if pred(DECK.card(n)))


def _red(st=None, **kw):
    """The French to attack on a Red cube (16.2 then 23.0), with the piles fresh so cards can be typed in."""
    st = st or R.new_game()
    g = replace(st.g, hands=(("french", ()), ("coalition", ())), pile=Pile.for_play(DECK),
                tokens=(("french", 4), ("coalition", 3)), cup=None)
    return replace(st, g=g, phase="red", actor="french", cube="red", **kw)


def _scenario(tmp_path, old: str, new: str):
    text = open(load_scenario().file).read()
    assert old in text
    p = tmp_path / "s.yaml"
    p.write_text(text.replace(old, new))
    return load_scenario(p)


FRENCH = '''french: {name: "General of the Left (invented)", cubes: 5, tokens: 3, skill: 3, range: 2, abilities: [ordre_mixte]}'''
COALITION = '''coalition: {name: "Field Commander (invented)", cubes: 5, tokens: 3, skill: 2, range: 2}'''


# ------------------------------------------------------------------------------------------------
# 19.1: one Move Order moves a Block once
# ------------------------------------------------------------------------------------------------
def test_19_1_a_block_named_again_does_not_chain_its_moves():
    g = new_map()
    # F2 (M2) named four times would walk M2 > M1 > W1 > W2 > W3 with one order: one Zone only (19.1)
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(g, "french", ["M2"], [("F2", "M1"), ("F2", "W1"), ("F2", "W2"), ("F2", "W3")]),
             seed=1)
    assert e.value.rule == "19.1" and "F2 is named twice" in e.value.message
    # an HQ marker named twice is refused the same way; once, it moves up to its skill (3) in Zones
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(g, "french", ["W2"], [], hq_moves=(("FHQ", "W1"), ("FHQ", "M1"))), seed=1)
    assert e.value.rule == "19.1"
    assert play(lambda: move_order(g, "french", ["W2"], [], hq_moves=(("FHQ", "W1>M1"),)), seed=1).result.hq("FHQ").zone == "M1"


# ------------------------------------------------------------------------------------------------
# 27.6 Ordre Mixte: the Commander's ability (28.9, scenario data), once per Red cube draw
# ------------------------------------------------------------------------------------------------
def test_27_6_ordre_mixte_only_with_the_commanders_ability():
    st = _red()
    om = A("attack", "french", frm="M2", to="E2", attack="assault", special="ordre_mixte")
    assert R.is_legal(st, om)            # F1: Steady Long Infantry of skill 3, its Commander has the ability
    # the Coalition Commander has not: C1 (Steady Long Infantry, skill 2) may not lead one (old engine: offered)
    st_c = replace(st, actor="coalition")
    with pytest.raises(RuleViolation) as e:
        R.check(st_c, A("attack", "coalition", frm="E2", to="M2", attack="assault", special="ordre_mixte"))
    assert e.value.rule == "27.6" and "Ordre Mixte ability" in e.value.message
    assert R.is_legal(st_c, A("attack", "coalition", frm="E2", to="M2", attack="assault"))


def test_27_6_one_ordre_mixte_per_red_cube_but_a_grognard_is_outside_the_limit_29_8():
    st = _red()
    om = A("attack", "french", frm="M2", to="E2", attack="assault", special="ordre_mixte")
    after, _ = R.apply(st, om, dice=RandomDice(3))
    assert "french:ordre_mixte" in after.specials
    used = _red(specials=("french:ordre_mixte",))
    with pytest.raises(RuleViolation) as e:
        R.check(used, om)
    assert e.value.rule == "27.6" and "per Red cube" in e.value.message
    # 29.8: a Grognard Lead makes its Ordre Mixte outside the one-per-draw limit, and it is not counted
    f1 = used.g.unit("F1")
    grog = replace(used, g=set_block(used.g, "F1", replace(f1.block, grognard=True)))
    assert R.is_legal(grog, om)


def test_27_6_large_battle_lets_a_short_infantry_lead_alone():
    # F5 (Infantry, skill 2) alone in M3 on E3: an Ordre Mixte needs a supporting second line ...
    setup = combat_from_map(new_map(), "M3", "E3", "assault")
    om = replace(setup, special="ordre_mixte")
    with pytest.raises(RuleViolation) as e:
        check_attacker(om)
    assert e.value.rule == "27.6"
    # ... except in a Large Battle (27.6 EXCEPTION, the scenario's switch)
    check_attacker(replace(om, large_battle=True))


def test_27_8_disciplined_infantry_defends_once_per_red_cube(tmp_path):
    sc = _scenario(tmp_path, COALITION, COALITION.replace("range: 2}", "range: 2, abilities: [disciplined_infantry]}"))
    st = _red(replace(R.new_game(), g=new_map(sc, DECK)))
    a = A("attack", "french", frm="M2", to="E2", attack="assault")
    # C1 leads E2: a Steady Infantry of skill 2 defending in an Assault: one shift left (27.8)
    _, tally = attack_setup(st, a)
    assert [s.amount for s in tally.shifts if s.rule == "27.8"] == [-1]
    after, _ = R.apply(st, a, dice=RandomDice(5))
    assert "coalition:disciplined_infantry" in after.specials
    # used: the next Assault in this Red cube has no such shift
    _, again = attack_setup(replace(st, specials=("coalition:disciplined_infantry",)), a)
    assert not [s for s in again.shifts if s.rule == "27.8"]


def test_28_9_an_unknown_ability_is_refused_naming_the_field(tmp_path):
    with pytest.raises(DataError) as e:
        _scenario(tmp_path, FRENCH, FRENCH.replace("[ordre_mixte]", "[teleport]"))
    assert "abilities" in str(e.value)


# ------------------------------------------------------------------------------------------------
# 27.7 Clash of Wills, 24.1 No Retreat!, 23.1 step 6 Square: the players' choices in the game
# ------------------------------------------------------------------------------------------------
def _answers(rec_event, rule):
    return [x for x in rec_event["answers"] if x["kind"] == "choose" and x["rule"] == rule]


def test_27_7_clash_of_wills_is_declared_by_the_side_that_may(tmp_path):
    # F1 (skill 3, no HQ) assaults C1 (skill 2, no HQ in E2): 3 > 2, the French may declare (27.7)
    st = _red()
    a = A("attack", "french", frm="M2", to="E2", attack="assault")
    declared, ev = R.apply(st, a, dice=RandomDice(2), chooser=lambda req: req.rule == "27.7" or req.options[0])
    asked = _answers(ev, "27.7")
    assert len(asked) == 1 and asked[0]["value"] is True
    logs = [x["label"] for x in ev["answers"] if x["kind"] == "log" and x["rule"] == "27.7"]
    assert "Clash of Wills declared by the attacker: one Morale lost" in logs
    # declined (the first option): no Morale is paid for it
    _, ev2 = R.apply(st, a, dice=RandomDice(2))
    assert _answers(ev2, "27.7")[0]["value"] is False
    assert not [x for x in ev2["answers"] if x["kind"] == "log" and x["rule"] == "27.7"]
    # an Unsteady Commander cannot use it (27.7 EXCEPTION): not asked
    sc = _scenario(tmp_path, FRENCH, FRENCH.replace("[ordre_mixte]", "[unsteady]"))
    _, ev3 = R.apply(_red(replace(R.new_game(), g=new_map(sc, DECK))), a, dice=RandomDice(2))
    assert _answers(ev3, "27.7") == []


def test_24_1_no_retreat_is_the_owners_choice_in_a_game():
    """A Disrupted Long Infantry of skill 3 hit by Round Shot must retreat (24.1); its owner may try No Retreat!
    first: the check card flags_2 passes (skill 3 >= 2), the Block stays and its army pays one Morale for the
    Zone. Declining, it retreats one Zone. (The Fire is at column 0 with one shift right, the Disrupted Lead
    being flanked, 9.4: the card is one whose row reads Round Shot there.)"""
    g = new_map()
    g = set_block(g, "C1", Block("long_infantry", skill=3, state="disrupted"))
    setup = combat_from_map(g, "M2", "E2", "fire")
    assert setup.defender.no_retreat is None and setup.attacker.no_retreat is None and setup.players == ("french",
                                                                                                         "coalition")
    t = prepare(setup)
    shot = next(n for n in DECK.event_numbers if DECK.skill(n) != "flags_2"
                and DECK.results(n, "fire", ((t.column, t.net_shift),))[0][1] == "round_shot")
    two = _card(lambda c: c.skill == "flags_2")
    asked = []

    def chooser(req, yes):
        if req.rule == "24.1":
            asked.append(req.player)
            return yes
        return req.options[0]
    held = play(lambda: resolve(setup, DECK, g.pile), dice=TypedDice([shot, two]),
                chooser=lambda req: chooser(req, True)).result
    assert asked == ["coalition"]
    f = held.fate("defender_lead")
    assert f.retreats == 0 and held.defender_morale == -1
    gone = play(lambda: resolve(setup, DECK, g.pile), dice=TypedDice([shot]), chooser=lambda req: chooser(req, False)).result
    assert gone.fate("defender_lead").retreats == 1 and gone.defender_morale == 0


def test_23_1_forming_square_is_the_defenders_choice_in_a_game():
    # the Cavalry C3 (E1) assaults M1, where the Infantry F2 stands alone (F3 taken off): 23.1 step 6
    g = new_map()
    g = replace(g, units=tuple(replace(u, zone="M1") if u.id == "F2" else u for u in g.units if u.id != "F3"))
    setup = combat_from_map(g, "E1", "M1", "assault")
    assert setup.square_attempt is None
    asked = []

    def no(req):
        if req.rule == "23.1":
            asked.append(req.player)
            return False
        return req.options[0]
    p = play(lambda: resolve(setup, DECK, g.pile), seed=4, chooser=no)
    assert asked == ["french"]
    # declined: no Square check card is drawn (old engine: always drawn, 23.1 step 6)
    assert not [e for e in p.events if e.kind == "draw" and e.rule == "23.1"]
    p2 = play(lambda: resolve(setup, DECK, g.pile), seed=4)
    assert [e for e in p2.events if e.kind == "draw" and e.rule == "23.1"]


# ------------------------------------------------------------------------------------------------
# 16.3: the turn marker during Give Ground and after the last turn
# ------------------------------------------------------------------------------------------------
def test_16_3_turn_marker_moves_after_give_ground_and_not_past_the_last_box():
    final, rec = play_game(R, ("greedy", "greedy"), None, seed=1)
    states = replay(R, rec)
    gg = [s for s in states if s.phase == "give_ground"]
    assert gg
    # the Give Ground withdrawals (24.3) belong to the turn whose last Black cube was just drawn: turns 1..4
    assert sorted({s.g.turn for s in gg}) == [1, 2, 3, 4]
    # the demonstration has four turns: the game ends in turn 4 (old engine: turn 5, a box past the track)
    assert R.outcome(final) is not None and final.g.turn == 4 == load_scenario().model.turns


# ------------------------------------------------------------------------------------------------
# 15.0: the attack odds `legal` shows use the known discards and the side's own hand, as rally odds do
# ------------------------------------------------------------------------------------------------
def test_15_0_attack_odds_use_the_known_discards():
    st = _red()
    # 10 cards seen on the discard pile and 2 in the French hand; 71 - 10 - 2 = 59 cards may be drawn
    disc = tuple(DECK.event_numbers[:10])
    hand = tuple(DECK.event_numbers[10:12])
    st = replace(st, g=replace(st.g, pile=Pile.for_play(DECK, disc, hand), hands=(("french", hand), ("coalition", ()))))
    odds = R.action_odds(st, A("attack", "french", frm="M2", to="E2", attack="fire"))
    # column 0 (M2 on E2: 1 CP - woods 1), no shift: Gun Smoke is the 0 column's entry of the Fire row (index 2).
    # P = n/59 + (1/59) * m/68: n Gun Smoke among the 58 event cards of the pile, and after the reshuffle (1 in
    # 59) the draw is again among the 68 event cards not in the hand, m of them Gun Smoke
    n = sum(1 for c in DECK.event_numbers if c not in disc + hand and DECK.row(c, "fire")[2] == "gun_smoke")
    m = sum(1 for c in DECK.event_numbers if c not in hand and DECK.row(c, "fire")[2] == "gun_smoke")
    want = Fraction(n, 59) + Fraction(1, 59) * Fraction(m, 68)
    assert odds["column"] == 0 and odds["next_card"]["gun_smoke"]["fraction"] == f"{want.numerator}/{want.denominator}"
    assert odds["next_card"] == next_card_odds("fire", 0, 0, DECK, disc, hand)
    # a fresh deck (nothing seen) gives n/70 as before
    fresh = R.action_odds(_red(), A("attack", "french", frm="M2", to="E2", attack="fire"))
    gun = sum(1 for c in DECK.event_numbers if DECK.row(c, "fire")[2] == "gun_smoke")
    assert fresh["next_card"]["gun_smoke"]["fraction"] == str(Fraction(gun, 70))


# ------------------------------------------------------------------------------------------------
# 29.6 Leader-assisted Skill Check (optional, with 29.7): a friendly Leader card for an automatic Officer
# ------------------------------------------------------------------------------------------------
def _rally_state(leader_card: int, options=("leader_assist",)):
    st = R.new_game(options=options)
    g = set_block(st.g, "F5", replace(st.g.unit("F5").block, state="disrupted"))
    hand = (leader_card,)
    g = replace(g, hands=(("french", hand), ("coalition", ())), pile=Pile.for_play(DECK, (), hand),
                reserve=(("french", 2), ("coalition", 0)), cup=Cup.of({"black": 3}))
    return replace(st, g=g, phase="yellow_rally", actor="french")


def test_29_6_leader_assisted_zone_rally():
    lead = _card(lambda c: c.leader and c.side == "french")
    st = _rally_state(lead)
    a = A("rally", "french", frm="M3", leader=lead)
    assert a in R.legal_actions(st)
    after, ev = R.apply(st, a, dice=TypedDice([]))
    # no card drawn: an automatic Officer; Disrupted Infantry rallies to Shaken (20.0), the cube comes back
    # (21.1 Officer), the Leader card is discarded and the army loses one Morale: 6 - 1 = 5
    assert not [x for x in ev["answers"] if x["kind"] == "draw"]
    g = after.g
    assert g.unit("F5").block.state == "shaken" and g.reserve_of("french") == 2
    assert g.hand("french") == () and g.pile.discard[-1] == lead and g.morale_of("french").value == 5
    assert R.invariants(after) == []


def test_29_6_leader_assisted_army_rally_puts_the_leader_hors_de_combat():
    lead = _card(lambda c: c.leader and c.side == "french")
    st = _rally_state(lead)
    after, _ = R.apply(st, A("army_rally", "french", leader=lead), dice=TypedDice([]))
    # Officer: +1 Morale (6 -> 7, under the maximum 8), no Morale cost, the card out of play (27.12)
    g = after.g
    assert g.morale_of("french").value == 7 and g.out_of_play == (lead,) and lead not in g.pile.discard
    assert R.invariants(after) == []


def test_29_6_refused_without_the_option_or_an_enemy_leader():
    lead = _card(lambda c: c.leader and c.side == "french")
    with pytest.raises(RuleViolation) as e:
        R.check(_rally_state(lead, options=()), A("rally", "french", frm="M3", leader=lead))
    assert e.value.rule == "29.6"
    enemy = _card(lambda c: c.leader and c.side == "coalition")
    with pytest.raises(RuleViolation) as e:
        R.check(_rally_state(enemy), A("rally", "french", frm="M3", leader=enemy))
    assert e.value.rule == "29.6" and "not a french Leader card" in e.value.message


# ------------------------------------------------------------------------------------------------
# Records: bc-game-3; older ones are refused, naming their version
# ------------------------------------------------------------------------------------------------
def test_older_records_are_refused_naming_their_version():
    assert ENGINE_VERSION == "bc-game-3"
    _, rec = play_game(R, ("greedy", "greedy"), None, seed=1, max_actions=3)
    old = GameRecord.from_json({**rec.to_json(), "engine_version": "bc-game-2"})
    with pytest.raises(RecordError) as e:
        initial_state(R, old)
    assert "bc-game-2" in str(e.value) and "bc-game-3" in str(e.value)
    assert json.dumps(rec.to_json())
