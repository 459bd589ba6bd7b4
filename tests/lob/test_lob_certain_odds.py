"""A 100 % result says why (issue 25 point 5): an attack whose every combat roll goes to the defender carries
the reason, with its rules, in its odds label."""
from fractions import Fraction

from engine.core.game import play_game
from engine.core.odds import action_odds
from engine.lob.actions import Action, Kind
from engine.lob.protocol import LobRules

R = LobRules()


def position():
    state, _ = play_game(R, ("greedy", "greedy"), seed=1, max_actions=10)    # French command phase, turn 1
    assert state.phase == "command" and state.unit("F-Arenberg").area == "17"
    return state


def test_an_attack_that_cannot_win_a_roll_says_so_with_the_arithmetic():
    g = position()
    o = action_odds(R, g, Action(Kind.ATTACK, units=("F-Arenberg",), target="Albuera"))
    (line,) = o.outcomes
    assert line.probability == Fraction(1) and line.rule == "5"
    # F-Arenberg, light cavalry of rating 2, attacks Albuera (the town, close terrain) from 17 over the river
    # bridge; A-KGL, infantry of rating 2, holds it. Attacker: strength 2 (5.2.1 a) = +2, best total 6+2 = 8.
    # Defender: strength 2 (a) + 1 infantry against light cavalry (b) + 2 infantry against cavalry in close
    # terrain (h) + 2 infantry in the town (Albuera terrain 2) = +7, worst total 1+7 = 8 (the first roll
    # adds 2 for the river, terrain 6 and 8). 8 never beats 8: a draw goes to the defender (5.2.1).
    assert ("the attacker cannot win a combat roll: its best total, 6+2 = 8, never beats the defender's worst, "
            "1+7 = 8, and a draw goes to the defender (5.2.1)") in line.label
    assert line.label.startswith("defender holds Albuera; attacker 1 unit eliminated")


def test_a_group_names_the_order_of_its_leads():
    g = position()
    o = action_odds(R, g, Action(Kind.ATTACK, units=("F-Arenberg", "F-Briche"), target="Albuera"))
    (line,) = o.outcomes
    # F-Briche (rating 3) leads first: 6+3 = 9 against 1+9 = 10 in the first roll (the +7 above and the
    # river's +2); a lost roll costs it a hit, and 6+2 = 8 never beats 1+7 = 8 later; F-Arenberg comes in
    # fresh at 6+2 = 8 against 8
    assert line.probability == 1
    assert "its best first total, 6+3 = 9, never beats the defender's worst, 1+9 = 10" in line.label
    assert "F-Briche leads first, then F-Arenberg" in line.label


def test_an_attack_that_can_be_won_carries_no_such_reason():
    # F-Legrand, infantry, against A-KGL in the town: no cavalry modifiers, so its best roll can win
    g = position()
    a = next(a for a in R.legal_actions(g) if a.kind == Kind.ATTACK and a.units == ("F-Legrand",))
    o = action_odds(R, g, a, max_steps=100_000)
    assert len(o.outcomes) > 1 and not any("cannot win" in x.label for x in o.outcomes)
