"""The reaction phase (8.0-8.3, 16.2 penetration): the handlers of countercharges (a battle run by the
battle procedure, 8.2) and of disengagement and penetration moves. Who may react and where to is read
by :mod:`.combat` (:func:`~.combat.reaction_actions`, :func:`~.combat.check_reaction`)."""
from __future__ import annotations

from engine.core.errors import RuleViolation

from .actions import Action
from .state import GameState
from . import combat as C

__all__ = ["check_reaction", "do_reaction_move", "countercharge", "finish_countercharge", "candidates"]


def check_reaction(state: GameState, a: Action) -> None:
    if state.night:
        raise RuleViolation("14.0", "no reaction phase at night")
    C.check_reaction(state, a)


def do_reaction_move(state: GameState, a: Action) -> GameState:
    return C.do_reaction_move(state, a)


def countercharge(state: GameState, a: Action):
    """8.2: the countercharge is a battle with the reacting cavalry as attackers (12.5 reserves first)."""
    return (yield from C.battle_in_game(state, a))


def finish_countercharge(state: GameState, a: Action, result) -> GameState:
    return C.finish_battle(state, a, result)


def candidates(state: GameState, unit: str | None = None) -> list[Action]:
    return C.reaction_actions(state, unit)
