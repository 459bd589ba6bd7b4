"""The zone map, move orders, retreats, rallies and the turn on the demonstration scenario (ours, invented)."""
from dataclasses import replace

import pytest

from engine.bc.blocks import Block
from engine.bc.game.combat import combat_from_map, map_combat
from engine.bc.game.movement import move_order
from engine.bc.game.orders import in_reserve, ready_arms
from engine.bc.game.rally import rally_zone
from engine.bc.game.retreat import retreat_options
from engine.bc.game.scenario import load_scenario
from engine.bc.game.state import new_map, set_block
from engine.bc.game.turn import order_cube_draw, start_turn
from engine.bc.game.zones import battle_zones, command_zones, flanked_zones
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import TypedDice, play, replay


@pytest.fixture(scope="module")
def st():
    return new_map()


def test_scenario_loads_and_is_marked_provisional(st):
    assert st.scenario.model.source == "provisional" and "invented" in st.scenario.name
    assert st.lead("M2").id == "F1" and [u.id for u in st.in_zone("E2")] == ["C1", "C4"]


def test_scenario_with_unknown_zone_is_rejected(tmp_path):
    text = load_scenario().file
    bad = open(text).read().replace("zone: M2}", "zone: Z9}", 1)
    p = tmp_path / "s.yaml"
    p.write_text(bad)
    with pytest.raises(DataError) as e:
        load_scenario(p)
    assert "blocks[0].zone" in str(e.value)


def test_9_4_battle_zones_stop_at_impassable_and_artillery_faces(st):
    # C3 (E1) borders M1, E2 and M2, but E1-M2 is impassable: no Battle Zone there
    assert battle_zones(st, st.unit("C3")) == {"M1", "E2"}
    # the artillery F3 in M1 faces E1 and M2 only; its other Zones are Flanked Zones
    assert battle_zones(st, st.unit("F3")) == {"E1", "M2"}
    assert flanked_zones(st, st.unit("F3")) == {"W1", "W2"}
    # a second-line Block projects nothing
    assert battle_zones(st, st.unit("F2")) == set()


def test_19_0_command_range_stops_at_enemy_blocks(st):
    # French HQ in W2, range 2: reaches the W and M columns but not the Coalition-held E Zones
    z = command_zones(st, "FHQ")
    assert {"M1", "M2", "M3", "W1", "W3"} <= z and not z & {"E1", "E2", "E3"}


def test_19_1_move_to_adjacent_zone(st):
    new = play(lambda: move_order(st, "french", ["W3"], [("F4", "W2")]), seed=1).result
    assert new.unit("F4").zone == "W2" and st.unit("F4").zone == "W3"   # the old state is unchanged


@pytest.mark.parametrize("zones,moves,rule", [
    (["M2"], [("F1", "E2")], "9.3"),            # enemy-occupied Zone
    (["W3"], [("F4", "M1")], "19.1"),           # not adjacent
    (["M2"], [("C1", "M1")], "19.0"),           # not in an activated Zone
    (["W1"], [], "19.0"),                       # nothing to activate there
    (["M1", "E1"], [], "19.0"),
])
def test_illegal_move_orders_are_refused(st, zones, moves, rule):
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(st, "french", zones, moves), seed=1)
    assert e.value.rule == rule


def test_19_0_activation_limit(st):
    # skill 3 commander: 3 Zones; W2 holds the Steady HQ and is free: W2, W3, M3, M2 is 3 counted.
    play(lambda: move_order(st, "french", ["W2", "W3", "M3", "M2"], []), seed=1)
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(st, "french", ["W3", "M3", "M2", "M1"], []), seed=1)
    assert e.value.rule == "19.0" and "at most 3" in e.value.message


def test_9_3_stacking(st):
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(st, "french", ["M3", "M2"], [("F5", "M2")]), seed=1)
    assert e.value.rule == "9.3"


def test_24_1_retreat_priority(st):
    # C3 in E1: M1 is French-held, M2 behind impassable terrain, so only E2 (an overstack, last choice)
    assert retreat_options(st, "C3")[0] == ("E2",)
    # F5 in M3: W3 (friendly cavalry, fine), M2 (full: overstack), W2 (next to nothing enemy) ...
    zones, _ = retreat_options(st, "F5")
    assert "E3" not in zones and "M2" not in zones


def test_combat_from_map_and_played_through(st):
    setup = combat_from_map(st, "M2", "E2", "assault")
    assert setup.interval == "stream" and setup.attacker.lead.kind == "long_infantry"
    p = play(lambda: map_combat(st, "M2", "E2", "assault"), seed=4)
    again = replay(lambda: map_combat(st, "M2", "E2", "assault"), p.events)
    assert again.result.to_json() == p.result.to_json()
    assert p.result.pile.discard  # the combat card went to the discard pile


def test_rally_21_1_zone(st):
    s = set_block(st, "F5", replace(st.unit("F5").block, state="disrupted"))
    s = replace(s, reserve=(("french", 1), ("coalition", 0)))
    # typed card 7 is an Officer: success, the cube comes back (21.1); Disrupted Infantry rallies to Shaken
    (new, back) = play(lambda: rally_zone(s, "french", "M3"), dice=TypedDice([7])).result
    assert back and new.unit("F5").block.state == "shaken" and dict(new.reserve)["french"] == 1
    with pytest.raises(RuleViolation):
        play(lambda: rally_zone(st, "french", "M3"), dice=TypedDice([7]))     # no reserve cube


def test_turn_preparation_and_last_black_cube(st):
    s = start_turn(st)
    # French initiative, daylight: 5 + 1 cubes; Coalition 5 (demo scenario has no SHQs)
    assert s.cup.count("blue") == 6 and s.cup.count("white") == 5 and s.cup.count("black") == 3
    steps = 0
    while s.cup is not None:
        s, colour, over = play(lambda s=s: order_cube_draw(s), seed=steps).result
        steps += 1
    # 16.2: the last Black cube ends the turn; 16.3: the turn marker moves on only in the End of Turn Phase, after
    # the Give Ground withdrawals (24.3) of this turn (issue 29: it used to show turn 2 already)
    assert over and colour == "black" and s.turn == 1 and steps <= 19


def test_reserve_and_ready_arms_caps_18_0(st):
    s = replace(st, reserve=(("french", 8), ("coalition", 0)), tokens=(("french", 13), ("coalition", 0)))
    with pytest.raises(RuleViolation):
        in_reserve(s, "french")          # skill 3 + 5
    with pytest.raises(RuleViolation):
        ready_arms(s, "french")          # skill 3 + 10


from engine.bc.game.combat import advance
from engine.bc.game.orders import press_on
from engine.bc.game.retreat import cavalry_withdrawal, give_ground, retreat_block, surrender  # noqa: E402
from engine.core.procedure import first_option  # noqa: E402


def _move(st, uid, zone):
    u = st.unit(uid)
    return replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=zone),))


def test_24_1_blocked_retreat_costs_a_step(st):
    # C3 in E1 with E2 full of Coalition... make E2 enemy-held instead: then E1 has no way out
    s = _move(_move(_move(st, "C1", "W1"), "C4", "W1"), "F1", "E2")
    s = replace(s, units=tuple(x for x in s.units if x.id not in ("C1", "C4")))
    assert retreat_options(s, "C3")[0] == ()
    new = play(lambda: retreat_block(s, "C3", "french"), dice=TypedDice([]), chooser=first_option).result
    assert all(x.id != "C3" for x in new.units)          # one-step cavalry: eliminated
    assert new.morale_of("coalition").value == s.morale_of("coalition").value - 1    # 26.0


def test_24_1_square_takes_a_hit_instead_of_retreating(st):
    s = set_block(st, "F5", Block("infantry", formation="square"))
    new = play(lambda: retreat_block(s, "F5", "coalition"), chooser=first_option).result
    assert new.unit("F5").zone == "M3" and new.unit("F5").block.square_hits == 1


def test_24_2_cavalry_withdrawal_only_against_infantry_or_artillery(st):
    # C3 (E1) is assaulted from M1 by an Artillery: it may withdraw; E2 is its only way out (24.1)
    p = play(lambda: cavalry_withdrawal(st, "C3", "M1"), chooser=first_option)
    assert [e.value for e in p.events if e.kind == "choose"][0] == "E2"
    assert p.result.unit("C3").zone != "E1"
    with pytest.raises(RuleViolation):
        play(lambda: cavalry_withdrawal(st, "C1", "M2"), chooser=first_option)     # not cavalry


def test_25_advance_rules_and_capture_check(st):
    s = replace(st, units=tuple(x for x in st.units if x.id not in ("C2",)))     # E3 emptied
    new = play(lambda: advance(s, "M3", "E3", ("F5",)), dice=TypedDice([])).result
    assert new.unit("F5").zone == "E3"
    with pytest.raises(RuleViolation):
        play(lambda: advance(s, "M1", "E1", ("F3",)))                      # foot artillery, and E1 occupied
    s2 = replace(st, units=tuple(x for x in st.units if x.id not in ("C1", "C4")))   # E2 emptied
    with pytest.raises(RuleViolation) as e:
        play(lambda: advance(s2, "M2", "E2", ("F2",)))
    assert e.value.rule == "25.0" and "second line" in e.value.message
    # capture check: the Coalition artillery C4 "just retreated" to E3's neighbour; a Death Head card fails
    s3 = replace(st, units=tuple(x for x in st.units if x.id not in ("C1", "C3")))
    s3 = _move(s3, "C4", "E1")
    dh = next(n for n in default_deck_numbers() if default_card(n).skill == "death_head")
    new = play(lambda: advance(s3, "M2", "E2", ("F1", "F2"), retreated_artillery="C4"), dice=TypedDice([dh])).result
    assert all(x.id != "C4" for x in new.units)        # one-step artillery loses its step


def default_deck_numbers():
    from engine.bc.deck import default_deck
    return default_deck().event_numbers


def default_card(n):
    from engine.bc.deck import default_deck
    return default_deck().card(n)


def test_24_3_give_ground_and_26_surrender(st):
    # C3 in E1 is next to the French artillery and in its Battle Zone: it withdraws and checks skill
    officer = next(n for n in default_deck_numbers() if default_card(n).skill == "officer")
    # (C3 withdraws into E2, a French Battle Zone already holding two Blocks: a hit (Disrupted), an
    # overstack, and the retreat goes on; the chain never returns to a Zone it left)
    p = play(lambda: give_ground(st, "C3"), dice=TypedDice([officer]), chooser=first_option)
    new = p.result
    assert new.unit("C3").zone in ("E2", "E3") and new.unit("C3").block.state == "disrupted"
    moves = [e.value for e in p.events if e.kind == "choose"]
    assert moves[0] == "E2" and "E1" not in moves
    assert [e.rule for e in p.events if e.kind == "draw"] == ["24.3"]
    with pytest.raises(RuleViolation):
        play(lambda: give_ground(st, "F4"), chooser=first_option)           # W3 is not next to the enemy
    with pytest.raises(RuleViolation) as e:
        surrender(st, "C3")                                              # Steady
    assert e.value.rule == "26.0"
    s = set_block(st, "C3", Block("cavalry", state="disrupted"))
    s = replace(s, units=tuple(x for x in s.units if x.id not in ("C1", "C4")))
    gone = surrender(s, "C3")
    assert all(x.id != "C3" for x in gone.units) and gone.morale == s.morale


def test_29_2_press_on(st):
    officer = next(n for n in default_deck_numbers() if default_card(n).skill == "officer")
    new, back = play(lambda: press_on(st, "french"), dice=TypedDice([officer])).result
    assert back and new.morale == st.morale
    dh = next(n for n in default_deck_numbers() if default_card(n).skill == "death_head")
    new, back = play(lambda: press_on(st, "french"), dice=TypedDice([dh])).result
    assert not back and new.morale_of("french").value == 5 and new.morale_of("coalition").value == 5


from engine.bc.game.orders import gold_choice
from engine.bc.game.turn import draw_cards, pass_order, turn_card_draws  # noqa: E402


def test_15_0_hands_draw_and_discard_down_to_six(st):
    s = play(lambda: turn_card_draws(st), seed=2).result
    assert len(s.hand("french")) == 4 and len(s.hand("coalition")) == 4
    assert len(s.pile.draw) == 71 - 8 and not set(s.hand("french")) & set(s.pile.draw)
    s = play(lambda: draw_cards(s, "french", 3), seed=3, chooser=first_option).result
    assert len(s.hand("french")) == 6 and len(s.pile.discard) == 1      # seven cards: one discarded


def test_18_0_black_cube_draws_cards_pass_and_gold(st):
    s = start_turn(st)
    s = play(lambda: gold_choice(s, "black")).result
    s, colour, over = play(lambda: order_cube_draw(s), seed=1).result
    assert colour == "black" and not over and len(s.hand("french")) == 1 and len(s.hand("coalition")) == 1
    s = pass_order(s, "french")
    blue = play(lambda: order_cube_draw(s), dice=TypedDice(["blue"])).result
    assert blue[0].cup == s.cup and blue[0].passed is None           # back into the cup, nothing happens
    with pytest.raises(RuleViolation):
        play(lambda: gold_choice(s, "gold"))


def test_20_0_army_rally(st):
    from engine.bc.game.rally import rally_army
    s = replace(st, reserve=(("french", 2), ("coalition", 0)))
    two = next(n for n in default_deck_numbers() if default_card(n).skill == "flags_2")
    new, back = play(lambda: rally_army(s, "french"), dice=TypedDice([two])).result
    # skill 3 commander passes two flags: +1 Morale (6 -> 7, maximum 8), the cube is spent
    assert new.morale_of("french").value == 7 and not back and dict(new.reserve)["french"] == 1
    dh = next(n for n in default_deck_numbers() if default_card(n).skill == "death_head")
    new, back = play(lambda: rally_army(s, "french"), dice=TypedDice([dh])).result
    assert new.morale_of("french").value == 5
    with pytest.raises(RuleViolation):
        play(lambda: rally_army(st, "french"), dice=TypedDice([two]))     # no reserve cube


def test_18_0_purchase_and_19_2_reaction_cost(st):
    from engine.bc.game.orders import purchase
    s = play(lambda: turn_card_draws(st), seed=2).result
    two = s.hand("french")[:2]
    s2 = purchase(s, "french", two, "cubes")
    assert dict(s2.reserve)["french"] == 2 and len(s2.hand("french")) == 2 and s2.pile.discard[-2:] == two
    with pytest.raises(RuleViolation):
        purchase(s, "french", (999,), "cubes")
    # a Reaction needs a reserve cube and spends it
    with pytest.raises(RuleViolation) as e:
        play(lambda: move_order(st, "french", ["W3"], [("F4", "W2")], reaction=True), seed=1)
    assert e.value.rule == "19.2"
    r = play(lambda: move_order(s2, "french", ["W3"], [("F4", "W2")], reaction=True), seed=1).result
    assert dict(r.reserve)["french"] == 1


def test_17_0_flag_control_victory(st):
    from engine.bc.game.victory import flag_control, flag_victory
    ctl = flag_control(st)
    # M2 (French flag) and M3 (both flags) hold French infantry, E2 (Coalition flag) Coalition infantry
    assert ctl == {"M2": "french", "M3": "french", "E2": "coalition"}
    v = flag_victory(st, ctl)
    assert v["flags"] == {"french": 2, "coalition": 1} and v["winner"] == "french"


def test_23_1_lead_artillery_attacks_only_into_the_zones_it_faces(st):
    # F3 in M1 faces E1 and M2 only: it may fire at C3 in E1
    assert combat_from_map(st, "M1", "E1", "fire").attacker.lead.kind == "artillery"
    s = _move(st, "C3", "W1")
    s = replace(s, units=tuple(x for x in s.units if x.id != "F4"))
    with pytest.raises(RuleViolation) as e:
        combat_from_map(s, "M1", "W1", "fire")
    assert e.value.rule == "23.1"
