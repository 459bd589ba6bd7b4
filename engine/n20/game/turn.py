"""Who acts (4.0): the phasing player, the other player in the reaction phase, the French for the Fuentes
Night March (14.1), the second player for the sudden-death roll."""
from __future__ import annotations

from .state import GameState
from .types import other

__all__ = ["actor", "night_march_possible"]


def actor(state: GameState) -> str | None:
    """The side to act now: the phasing player, except in the reaction phase (the other player; the
    French for a Fuentes night march, 14.1) and the sudden-death roll (the second player, 4.0)."""
    if state.over:
        return None
    if state.step == "reaction":
        if state.night_march_left is not None or (state.night and night_march_possible(state)):
            return "french"
        return other(state.player)
    if state.step == "sudden_death":
        return state.scenario.second_player
    return state.player


def night_march_possible(state: GameState) -> bool:
    sc = state.scenario
    return (sc.spec.exclusive.night_march and state.night and state.player == "allied" and not state.night_march_used
            and state.step == "reaction" and state.morale_of("french") >= 1)
