"""Napoleonic 20 whole games: Fuentes de Oñoro 20 (standard, 18.1) and Bussaco 20, with every rule of the
sequence of play enforced, on the core game protocol (:class:`~engine.n20.game.protocol.N20Rules`,
registered as ``"n20"``: the records, replay, undo, sessions, seeding rule and bot loop are the core ones).
The module API below is a thin face over it (used by the hotseat dashboard and the notebooks)::

    from engine.n20 import game as g
    s = g.new_game("fuentes", options=("leaders", "fatigue"), seed=7)   # scenario ids: g.scenario_ids()
    g.actor(s)                        # "french": the side to act now
    acts = g.legal_actions(s)         # every legal Action of that side (moves carry their paths)
    g.reachable(s, "FFER")            # {hex: Reach(cost, path, entry, road, guard_cost)} for one unit
    s2 = g.apply(s, acts[1])          # a NEW state; s is unchanged. Illegal -> RuleViolation(rule, message)
    s2 = g.apply(s, {"kind": "move", "unit": "FFER", "path": ["0713", "0712"]})   # JSON form works too
    s2.to_json(view="allied")         # units, hexes, morale, markers (hidden units masked for that side)

    p = g.begin(s, g.Action("draw_event"))   # step-by-step (typed dice, a person's choices):
    p.pending                         # the Roll / Draw / Choose waiting; p.answer(value); p.done; p.state

    final, rec = g.play_game("fuentes", bots=("greedy", "random"), seed=3)   # a whole unattended game
    rec.save("game.json"); rec = g.GameRecord.load("game.json")
    states = g.replay_record(rec)     # every state; RecordError(index) when an event does not replay
    rec2, s_prev = g.undo(rec)        # the record without its last event and the state before it

Random steps (event cards 5.0, battles 9.0 through :func:`engine.n20.battle.battle_procedure`, rallies 10.0,
sudden death 4.0, the exclusive tables) are procedures run by the core drivers: seeded dice by default,
typed dice with ``apply(s, a, dice=TypedDice([...]))`` or :func:`begin`, recorded answers on replay.
"""
from __future__ import annotations

from engine.core.errors import DataError, RecordError, RuleViolation, VedetteError
from engine.core.procedure import RandomDice, TypedDice
from engine.core.record import GameRecord

from .actions import Action, KINDS, RANDOM_KINDS
from .protocol import ENGINE_VERSION, N20Rules
from .bots import BOTS, GreedyBot, RandomBot, play_game
from .engine import Pending, actor, apply, apply_logged, begin, end_of_game, legal_actions, new_game, rally_hexes
from .record import apply_event, initial_state, make_record, replay_record, state_at_turn, undo
from .rules import Reach, enemy_zoc, movement_allowance
from .scenario import Scenario, load_scenario, scenario_ids
from .state import OPTIONS, Battle, GameState, UnitState

__all__ = ["N20Rules", "ENGINE_VERSION", "new_game", "legal_actions", "reachable", "apply", "apply_logged", "begin", "actor", "Pending",
           "Action", "Battle", "GameState", "UnitState", "Reach", "OPTIONS", "KINDS", "RANDOM_KINDS",
           "scenario_ids", "load_scenario", "Scenario", "GameRecord", "make_record", "replay_record",
           "initial_state", "apply_event", "undo", "state_at_turn", "play_game", "BOTS", "RandomBot", "GreedyBot",
           "RandomDice", "TypedDice", "RuleViolation", "DataError", "RecordError", "VedetteError",
           "enemy_zoc", "movement_allowance", "rally_hexes", "end_of_game", "zoc_hexes", "battle_options"]


def reachable(state: GameState, unit_id: str) -> dict:
    """Where ``unit_id`` can move this phase: ``{hex: Reach}`` with the Movement Points spent and the path
    (a reinforcement's path starts at its entry hex). Empty when the unit may not move now."""
    from .engine import _check_can_move, _reach
    if state.over or not (state.step == "movement" or (state.step == "reaction" and state.night_march_left)):
        return {}   # reactions (8.x) are listed by legal_actions: disengagement is not ordinary movement
    try:
        _check_can_move(state, unit_id)
    except RuleViolation:
        return {}
    return _reach(state, unit_id)


def zoc_hexes(state: GameState, side: str) -> list[str]:
    """Hexes in the ZOC of ``side``'s units and garrisons (what its enemies must respect), sorted."""
    from .state import other
    return sorted(enemy_zoc(state, other(side)))


def battle_options(state: GameState) -> dict:
    """For the combat phase: which phasing units must attack (9.1), which enemies must be attacked
    (7.3, 9.1.1), and for each phasing unit the enemies adjacent to it (candidates for 9.2.2 battles)."""
    from . import combat as C
    from . import rules as R
    side = state.player
    mine = [u.id for u in C._fighters(state, side)]
    targets = C._enemy_targets(state, side)
    return {
        "must_attack": sorted(C.mandatory_battles(state)),
        "must_be_attacked": sorted(C.required_defenders(state, side)),
        "adjacent": {a: [e for e in targets if R.combat_adjacent(state, C._hex_of(state, a), C._hex_of(state, e))]
                     for a in mine},
    }
