"""The cup calculator with Pass Orders and the Gold cube (18.0), through the game's own cube draw."""
import json
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from engine.bc.calc import cup_odds
from engine.bc.cup import Cup, cube_draw, cup_policy, turn_procedure
from engine.bc.game.orders import gold_choice
from engine.bc.game.state import new_map
from engine.bc.game.turn import order_cube_draw, pass_order
from engine.cli import main
from engine.core.errors import RuleViolation
from engine.core.procedure import TypedDice, distribution, play


def _f(j):
    return Fraction(j["fraction"])


def test_18_0_pass_order_puts_the_next_same_colour_cube_back_by_hand():
    # Cup: 2 blue + 1 black; the French pass on every blue cube.
    # 1st draw black (1/3): turn over, no blue.
    # 1st draw blue (2/3), passed: cup {blue, black}. Next: black (1/2) ends with 1 blue;
    #   blue (1/2) goes back (Pass), cup unchanged; then black (1/2) ends with 1 blue, blue (1/2) counts a 2nd
    #   blue and the last black ends.  P(2 blue) = 2/3 * 1/2 * 1/2 = 1/6, P(1 blue) = 2/3 - 1/6 = 1/2.
    # Without Pass Orders it would be 1/3 each (the black cube's place among three is uniform).
    out = cup_odds(Cup.of({"blue": 2, "black": 1}), "blue", passes=("blue",))
    own = {k: _f(v) for k, v in out["own_before_end"].items()}
    assert own == {"0": Fraction(1, 3), "1": Fraction(1, 2), "2": Fraction(1, 6)}
    # draws: 1 (1/3), 2 (blue, black: 2/3*1/2 = 1/3), 3 (blue, back, black: 1/6), 4 (blue, back, blue, black: 1/6)
    ends = {k: _f(v) for k, v in out["turn_ends_on_draw"].items()}
    assert ends == {"1": Fraction(1, 3), "2": Fraction(1, 3), "3": Fraction(1, 6), "4": Fraction(1, 6)}
    plain = cup_odds(Cup.of({"blue": 2, "black": 1}), "blue")
    assert {k: _f(v) for k, v in plain["own_before_end"].items()} == {"0": Fraction(1, 3), "1": Fraction(1, 3),
                                                                       "2": Fraction(1, 3)}


def test_18_0_gold_cube_naming_black_by_hand():
    # Cup: gold, blue, 2 black; the Gold cube's owner names Black.
    # gold first (1/4): a black comes out, cup {blue, black}: blue before the last black 1/2 -> 1/8
    # blue first (1/4): counted -> 1/4
    # black first (1/2): cup {gold, blue, black}: gold (1/3) forces the last black, blue (1/3) counted,
    #   black (1/3) ends -> 1/2 * 1/3 = 1/6
    # P(blue before the end) = 1/8 + 1/4 + 1/6 = 13/24 (an event card instead: 2/3, blue before the 2nd black)
    cup = Cup.of({"gold": 1, "blue": 1, "black": 2})
    assert _f(cup_odds(cup, "blue", gold_next="black")["at_least_own_before_end"]["1"]) == Fraction(13, 24)
    assert _f(cup_odds(cup, "blue")["at_least_own_before_end"]["1"]) == Fraction(2, 3)


def test_18_0_gold_naming_a_colour_not_in_the_cup_draws_a_card_instead():
    cup = Cup.of({"gold": 1, "blue": 1, "black": 2})
    assert cup_odds(cup, "blue", gold_next="red")["own_before_end"] == cup_odds(cup, "blue")["own_before_end"]


def test_18_0_bad_pass_colour_is_refused():
    with pytest.raises(RuleViolation) as e:
        cup_odds(Cup.of({"blue": 1, "black": 1}), "blue", passes=("red",))
    assert e.value.rule == "18.0"


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 3), st.integers(0, 3), st.integers(0, 1), st.integers(1, 3),
       st.sampled_from([(), ("blue",), ("white",), ("blue", "white")]), st.sampled_from([None, "black", "blue"]))
def test_cup_with_passes_and_gold_sums_to_one(blue, white, gold, black, passes, gold_next):
    cup = Cup.of({"blue": blue, "white": white, "gold": gold, "black": black})
    d = distribution(turn_procedure(cup, ("blue",), passes, gold_next is not None and gold > 0),
                     policy=cup_policy(passes, gold_next))
    assert d.total == 1
    assert all(r.count("blue") <= blue for r in d)


def test_18_0_game_draw_and_calculator_share_the_cube_draw():
    # The game's order_cube_draw runs cube_draw: after a French Pass, a blue cube typed in goes back.
    g = new_map()
    from engine.bc.game.turn import start_turn
    g = start_turn(g)
    n_blue = g.cup.count("blue")
    g2 = pass_order(g, "french")
    p = play(lambda: order_cube_draw(g2), dice=TypedDice(["blue"]))
    st2, colour, over = p.result
    assert colour == "blue" and not over and st2.cup.count("blue") == n_blue and st2.passed is None
    # the same request sequence in the calculator's procedure: one Draw, answer blue, returned
    q = play(lambda: cube_draw(g.cup, "blue"), dice=TypedDice(["blue"]))
    assert q.result[2] is True and q.result[1] == g.cup


def test_18_0_game_gold_choice_forces_the_next_cube():
    from engine.bc.game.turn import start_turn
    g = start_turn(new_map())
    g = replace(g, cup=Cup.of({**g.cup.to_json(), "gold": 1}))
    g2 = play(lambda: gold_choice(g, "black")).result
    assert g.cup.count("black") == 3          # 16.1: three Black cubes, so this one is not the last
    # no cube is drawn (a black one is taken); the cards both players draw on a Black cube come from the seed
    st2, colour, over = play(lambda: order_cube_draw(g2), seed=3).result
    assert colour == "black" and not over and st2.cup.count("black") == 2 and st2.forced_next is None


def test_cli_cup_with_pass_and_gold(tmp_path, capsys):
    f = tmp_path / "cup.yaml"
    f.write_text("own: blue\ncubes: {gold: 1, blue: 1, black: 2}\ngold_next: black\n")
    assert main(["bc", "cup", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["at_least_own_before_end"]["1"]["fraction"] == "13/24"
    g = tmp_path / "cup2.yaml"
    g.write_text("own: blue\ncubes: {blue: 2, black: 1}\n")
    assert main(["bc", "cup", str(g), "--pass", "blue"]) == 0
    assert json.loads(capsys.readouterr().out)["own_before_end"]["2"]["fraction"] == "1/6"
    bad = tmp_path / "bad.yaml"
    bad.write_text("own: blue\ncubes: {blue: 2, black: 1}\npasses: [red]\n")
    assert main(["bc", "cup", str(bad)]) == 2
    assert "passes" in capsys.readouterr().err
