"""The combat phase (9.0-9.2): declaring every battle at once (checked whole before any die, 9.1-9.2.2)
and resolving them one by one through the battle procedure of :mod:`engine.n20.resolution` (see
:mod:`.combat`)."""
from __future__ import annotations

from engine.core.errors import RuleViolation

from .actions import Action
from .state import GameState
from . import combat as C

__all__ = ["check_declare", "do_declare", "check_resolve", "resolve", "finish_resolve"]


def check_declare(state: GameState, a: Action) -> None:
    if state.declared is not None:
        raise RuleViolation("9.2", "battles are already declared this combat phase")
    C.check_declaration(state, a.battles)


def do_declare(state: GameState, a: Action) -> GameState:
    return C.do_declare(state, a.battles)


def check_resolve(state: GameState, a: Action) -> None:
    if state.declared is None:
        raise RuleViolation("9.2", "declare all battles before resolving any")
    if a.index is None or not 0 <= a.index < len(state.declared) or a.index in state.done_battles:
        raise RuleViolation("9.0", f"no unresolved declared battle #{a.index}")
    C.check_resolve(state, a)


def resolve(state: GameState, a: Action):
    return (yield from C.battle_in_game(state, a))


def finish_resolve(state: GameState, a: Action, result) -> GameState:
    return C.finish_battle(state, a, result)
