"""The cube cup (16.x), turn preparation, morale (13), and the `vedette bc` CLI."""
import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.bc.cup import Cup, Morale, activation_limit, initiative, prepare_turn, turn_procedure
from engine.cli import main
from engine.core.errors import RuleViolation
from engine.core.procedure import distribution, play, replay


def test_cup_with_three_black_cubes_ends_on_third_draw_by_hand_16_2():
    # 3 black + 2 red: the turn ends on the 3rd draw only if the first three are all black:
    # 3/5 * 2/4 * 1/3 = 1/10. It ends on the 5th when the last cube is black: 3/5.
    d = distribution(turn_procedure(Cup.of({"black": 3, "red": 2}), ()))
    ends = d.map(lambda r: r.draws)
    assert ends[3] == Fraction(1, 10) and ends[5] == Fraction(3, 5) and ends[4] == Fraction(3, 10)


def test_own_orders_before_turn_end_by_hand_16_2():
    # 2 blue + 3 black: no blue before the last black only if the three blacks come first: 1 / C(5,2) = 1/10
    d = distribution(turn_procedure(Cup.of({"blue": 2, "black": 3}), ("blue",)))
    assert d.prob(lambda r: r.count("blue") >= 1) == Fraction(9, 10)
    # both blues before the last black: the last cube is black, 3/5
    assert d.prob(lambda r: r.count("blue") == 2) == Fraction(3, 5)


def test_untracked_colours_do_not_change_the_answer():
    cup = Cup.of({"blue": 3, "white": 2, "red": 2, "black": 3})
    a = distribution(turn_procedure(cup, ("blue",))).map(lambda r: (r.draws, r.count("blue")))
    b = distribution(turn_procedure(cup, ("blue", "white", "red"))).map(lambda r: (r.draws, r.count("blue")))
    assert a == b


def test_cup_play_and_replay():
    cup = Cup.of({"blue": 4, "white": 3, "yellow": 2, "red": 3, "black": 3})
    p = play(turn_procedure(cup, ("blue", "white")), seed=5)
    assert p.result.draws >= 3 and replay(turn_procedure(cup, ("blue", "white")), p.events).result == p.result


def test_cup_needs_a_black_cube():
    with pytest.raises(RuleViolation) as e:
        Cup.of({"blue": 3})
    assert e.value.rule == "16.2"
    with pytest.raises(RuleViolation):
        Cup.of({"purple": 1, "black": 3})


@settings(max_examples=15)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 3), st.integers(1, 3))
def test_cup_distributions_sum_to_one(blue, white, red, black):
    cup = Cup.of({"blue": blue, "white": white, "red": red, "black": black})
    d = distribution(turn_procedure(cup, ("blue",)))
    assert d.total == 1
    assert all(black <= r.draws <= cup.size and r.count("blue") <= blue for r in d)


def test_turn_preparation_16_1_bonuses_and_caps():
    # French: 6 cubes + daylight initiative 1 + both HQs steady 1 = 8; tokens 4 + 1 + 1 = 6 (cap 3 + 10).
    # Coalition: 5 cubes; keeps only 2 of its 5 leftover reserve cubes (skill 2) and puts 1 in the cup.
    t = prepare_turn({"french": {"cubes": 6, "tokens": 4, "skill": 3},
                      "coalition": {"cubes": 5, "tokens": 3, "skill": 2}}, "french",
                     both_hqs_steady={"french": True}, reserve={"coalition": 5}, reserve_to_cup={"coalition": 1})
    assert t.cup.to_json() == {"blue": 8, "white": 6, "yellow": 2, "red": 3, "black": 3}
    assert dict(t.tokens) == {"french": 6, "coalition": 3}
    assert dict(t.reserve) == {"french": 0, "coalition": 1}
    with pytest.raises(RuleViolation):
        prepare_turn({"french": {"cubes": 6, "tokens": 4, "skill": 3},
                      "coalition": {"cubes": 5, "tokens": 3, "skill": 2}}, "french", reserve_to_cup={"french": 1})


def test_activation_limit_19_0():
    assert activation_limit(2) == 2 and activation_limit(3) == 3 and activation_limit(1, road_only=True) == 4


def test_morale_13_flip_and_demoralisation():
    m = Morale(1).change(-1)
    assert (m.value, m.good) == (10, False)
    assert Morale(1, good=False).change(-1).demoralised
    assert not Morale(1, good=False, resilient=True).change(-1).demoralised
    assert Morale(10).change(+1).value == 10
    # an Army Rally never brings a Bad army back to Good (20.0)
    assert not Morale(10, good=False).change(+1, army_rally=True).good


def test_initiative_13_2_good_beats_bad():
    # rule example: French Good 4 beats Coalition Bad 8
    assert initiative(Morale(4), Morale(8, good=False)) == "french"
    assert initiative(Morale(5), Morale(7)) == "coalition"
    assert initiative(Morale(5), Morale(5), last_changed="coalition") == "coalition"


# ---- CLI --------------------------------------------------------------------------------------------
def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_combat_prints_exact_fractions(capsys):
    rc, out, err = run(capsys, "bc", "combat", "data/bc/examples/fire.yaml")
    assert rc == 0, err
    d = json.loads(out)
    assert d["tally"]["column"] == 2 and d["deck"]["provenance"] == "provisional"
    total = sum(Fraction(v["fraction"]) for v in d["result"].values())
    assert total == 1


def test_cli_combat_with_discards(capsys):
    rc, out, err = run(capsys, "bc", "combat", "data/bc/examples/assault.yaml", "--discards",
                       "data/bc/examples/discards.yaml")
    assert rc == 0, err
    d = json.loads(out)
    assert d["discards"] == [3, 4, 12, 27, 40] and d["hand"] == [8, 55]


def test_cli_bad_combat_exits_2(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("attack: fire\nattacker: {lead: {kind: cavalry}}\ndefender: {lead: {kind: infantry}}\n")
    rc, out, err = run(capsys, "bc", "combat", str(f))
    assert rc == 2 and "23.6" in err and "cannot make a Fire attack" in err and out == ""


def test_cli_discards_naming_a_card_twice_exits_2(tmp_path, capsys):
    f = tmp_path / "d.yaml"
    f.write_text("[5, 6, 5]\n")
    rc, out, err = run(capsys, "bc", "combat", "data/bc/examples/fire.yaml", "--discards", str(f))
    assert rc == 2 and "d.yaml" in err and "at most once" in err


def test_cli_bad_deck_exits_2(tmp_path, capsys):
    f = tmp_path / "deck.yaml"
    f.write_text("source: provisional\ncards:\n  - {number: 31, name: x, side: shared, reshuffle: true}\n")
    rc, out, err = run(capsys, "bc", "check", "--skill", "2", "--deck", str(f))
    assert rc == 2 and "70 event cards" in err


def test_cli_check_and_cup(capsys):
    rc, out, _ = run(capsys, "bc", "check", "--skill", "2", "--hq")
    assert rc == 0 and json.loads(out)["success"]["fraction"] == "27/35"
    rc, out, _ = run(capsys, "bc", "cup", "data/bc/examples/cup.yaml")
    d = json.loads(out)
    assert rc == 0 and d["cup"]["blue"] == 8 and d["preparation"]["tokens"]["french"] == 6
    assert Fraction(d["at_least_own_before_end"]["0"]["fraction"]) == 1


def test_cli_deck_summary(capsys):
    rc, out, _ = run(capsys, "bc", "deck")
    d = json.loads(out)
    # fresh deck, column +4 Fire: 27 of 70 cards show Skull & Bones (the reshuffle card keeps it uniform)
    assert rc == 0 and d["next_card"]["fire"]["+4"]["skull_bones"]["fraction"] == "27/70"


def test_cli_scenario_and_map_combat(capsys):
    rc, out, _ = run(capsys, "bc", "scenario")
    d = json.loads(out)
    assert rc == 0 and d["source"] == "provisional" and d["battle_zones"]["F3"] == ["E1", "M2"]
    rc, out, _ = run(capsys, "bc", "map-combat", "M2", "E2")
    d = json.loads(out)
    # 3 CP (Long Infantry 2 + second line 1) against 5 (Long Infantry 2, Artillery support 1, woods 1, stream 1)
    assert rc == 0 and d["tally"]["difference"] == -2 and d["tally"]["column"] == -2
    rc, out, err = run(capsys, "bc", "map-combat", "M2", "M3")
    assert rc == 2 and "23.1" in err


def test_cli_combat_tree_names_rules(capsys):
    rc, out, _ = run(capsys, "bc", "combat", "data/bc/examples/fire.yaml", "--tree", "--depth", "3")
    t = json.loads(out)["tree"]
    # the combat's steps are drawn as its own (a chain run in place): first the card read (23.2, an inline
    # step keyed by the pile), which draws the card (23.2)
    card = t
    assert rc == 0 and card["kind"] == "sub" and card["rule"] == "23.2"
    assert card["sub"]["kind"] == "draw" and card["sub"]["rule"] == "23.2"
    for node in (card, card["sub"]):
        assert sum(Fraction(c["probability"]["fraction"]) for c in node["children"]) == 1
