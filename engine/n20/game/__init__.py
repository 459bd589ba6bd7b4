"""Napoleonic 20 whole games: Fuentes de Oñoro 20 (standard, 18.1) and Bussaco 20, with every rule of the
sequence of play enforced, on the core game protocol (:class:`~engine.n20.game.protocol.N20Rules`,
registered as ``"n20"``: the records, replay, undo, sessions, seeding rule and bot loop are the core ones).

The package is laid out as every system is: :mod:`.actions` (value types), :mod:`.state`, one module per
rule chapter (:mod:`.setup`, :mod:`.zoc`, :mod:`.reach`, :mod:`.movement`, :mod:`.reaction`,
:mod:`.combat` and :mod:`.battles`, :mod:`.rally`, :mod:`.phases`, :mod:`.victory`, :mod:`.exclusive`),
:mod:`.handlers` (kind -> check / perform), a thin :mod:`.protocol`, :mod:`.queries` (what bots and boards
ask), :mod:`.bots` and :mod:`.odds_bot`, and :mod:`.words`. This module only gathers their public names::

    from engine.n20 import game as g
    rules = g.RULES                   # the protocol (core GameRules); a Session drives it for a person
    s = g.new_game("fuentes", options=("leaders", "fatigue"), seed=7)   # scenario ids: g.scenario_ids()
    g.actor(s)                        # "french": the side to act now
    acts = rules.legal_actions(s)     # every legal Action of that side (moves carry their paths)
    g.reachable(s, "FFER")            # {hex: Reach(cost, path, entry, road, guard_cost)} for one unit
    s2, event = rules.apply(s, acts[1])                 # a NEW state and its record event; s is unchanged
    rules.apply(s, {"kind": "move", "unit": "FFER", "path": ["0713", "0712"]})   # JSON (or text) works too
    p = rules.begin(s, g.Action("draw_event"))          # step by step: p.request, p = p.answer(v), p.state

    final, rec = g.play_game("fuentes", bots=("greedy", "random"), seed=3)   # a whole unattended game
    states = g.replay_record(rec)     # every state; RecordError(index) when an event does not replay

Random steps (event cards 5.0, battles 9.0 through :func:`engine.n20.resolution.battle_procedure`, rallies 10.0,
sudden death 4.0, the exclusive tables) are procedures run by the core drivers: seeded dice by default,
typed dice with ``rules.apply(s, a, dice=TypedDice([...]))`` or ``rules.begin``, recorded answers on replay.
"""
from __future__ import annotations

from engine.core.errors import DataError, RecordError, RuleViolation, VedetteError
from engine.core.procedure import RandomDice, TypedDice
from engine.core.record import GameRecord

from .actions import Action, KINDS, RANDOM_KINDS
from .protocol import ENGINE_VERSION, RULES, N20Rules, register_bot
from .bots import GreedyBot, play_game
from .odds_bot import N20OddsBot
from .queries import BattleOptions, battle_options, may_move_now, movement_left, reachable, zoc_hexes
from .rally import rally_hexes
from .reach import Reach, movement_allowance
from .record import apply_event, initial_state, make_record, replay_record, state_at_turn, undo
from .scenario import Scenario, load_scenario, scenario_ids
from .setup import new_game
from .state import OPTIONS, Battle, GameState, UnitState
from .turn import actor
from .victory import end_of_game
from .zoc import enemy_zoc

__all__ = ["N20Rules", "RULES", "ENGINE_VERSION", "new_game", "actor", "reachable", "may_move_now", "movement_left",
           "zoc_hexes", "battle_options", "BattleOptions", "Action", "Battle", "GameState", "UnitState", "Reach",
           "OPTIONS", "KINDS", "RANDOM_KINDS", "scenario_ids", "load_scenario", "Scenario", "GameRecord",
           "make_record", "replay_record", "initial_state", "apply_event", "undo", "state_at_turn", "play_game",
           "GreedyBot", "N20OddsBot", "RandomDice", "TypedDice", "RuleViolation", "DataError", "RecordError",
           "VedetteError", "enemy_zoc", "movement_allowance", "rally_hexes", "end_of_game"]

# the bots sit above the protocol (they import it): they are offered by name here, once the package is
# imported (as it is before any of its modules), so N20Rules.bots() always lists random, greedy and odds
register_bot("greedy", GreedyBot)
register_bot("odds", N20OddsBot)
