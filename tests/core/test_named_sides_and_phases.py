"""Issue 10, point 6: sides and phases as StrEnums, one ``other_side`` (core's), in n20 and LoB.

A StrEnum member equals the string the records and data files always used, writes to JSON as it, and (LoB,
whose notes print dicts of sides) keeps its repr, so records and their notes stay byte for byte the same
(tests/lob/test_lob_bot_shared_odds.py::test_a_greedy_game_is_the_shipped_record holds the whole game).
"""
from __future__ import annotations

import json
from enum import StrEnum

import pytest

from engine.core.errors import VedetteError
from engine.lob.setup import new_game
from engine.lob.units import SIDES as LOB_SIDES, Phase, Side as LobSide, other_side as lob_other
from engine.n20.game.types import SIDES as N20_SIDES, Side as N20Side, Step, other as n20_other


def test_lob_sides_and_phases_are_str_enums_equal_to_the_record_strings():
    assert issubclass(LobSide, StrEnum) and issubclass(Phase, StrEnum)
    assert LOB_SIDES == ("French", "Allied") and all(isinstance(s, LobSide) for s in LOB_SIDES)
    assert [p.value for p in Phase] == ["setup", "admin", "command", "over"]
    assert json.dumps({LobSide.FRENCH: [LobSide.ALLIED, Phase.ADMIN]}) == '{"French": ["Allied", "admin"]}'
    assert repr({LobSide.ALLIED: -1}) == "{'Allied': -1}"          # a note's text is what it was
    g = new_game()
    assert g.phase is Phase.ADMIN and g.phase == "admin" and g.player == LobSide.FRENCH


@pytest.mark.parametrize("other,sides,Side", [(lob_other, LOB_SIDES, LobSide), (n20_other, N20_SIDES, N20Side)])
def test_one_other_side_and_an_unknown_side_is_refused(other, sides, Side):
    a, b = sides
    assert other(a) is Side(b) and other(b) is Side(a)
    assert other(str(a)) is Side(b)                                  # a plain string from a record works too
    with pytest.raises(VedetteError, match=r"unknown side 'nobody'; sides are '\w+' and '\w+'"):
        other("nobody")                                              # never silently read as one side


def test_n20_steps_are_str_enums():
    assert issubclass(Step, StrEnum) and Step.MOVEMENT == "movement"
