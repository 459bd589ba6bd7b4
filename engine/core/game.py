"""The game protocol every system implements, and what is written once on top of it.

A system (Napoleonic 20, Lines of Battle, These Brave Fellows, Battle Commander) subclasses
:class:`GameRules` and supplies its rules only:

* ``new_game(scenario, options, seed)`` -- the first state (a value: applying never mutates it);
* ``to_act(state)`` -- the side to act, or ``None`` when the game is over;
* ``candidates(state)`` -- actions worth trying; :meth:`GameRules.legal_actions` keeps those that pass
  ``check``, the same check :meth:`GameRules.apply` runs, so legality has one source;
* ``check(state, action)`` -- raise :class:`RuleViolation` naming the rule (no dice, no change);
* ``perform(state, action)`` -- the action's rules procedure (a generator yielding ``Roll``, ``Draw``,
  ``Choose`` ...) returning the new state, so one action can be played, replayed or enumerated;
* ``outcome(state)`` -- an :class:`Outcome` once the game is over;
* JSON both ways for actions and states, a short text notation for actions, the position (turn and
  phase) and the invariants the conformance suite checks.

Core then gives every system the same record (:class:`~engine.core.record.GameRecord`), replay that names
the first event that no longer fits, undo, a :class:`Session` whose half-answered action is itself a value,
one seeding rule (:func:`action_seed`), one bot interface and one game loop (:func:`play_game`).

The game layer lives in one module per part, each importing only those above it (no cycle):

* :mod:`engine.core.game_values` -- :class:`Outcome`, :class:`Position`, :class:`Places`, :func:`other_side`,
  the seeding rule (:func:`action_seed`, :class:`EventDice`) and :func:`parse_dice`;
* :mod:`engine.core.protocol` -- :class:`GameRules`, :class:`Bot`, :class:`RandomBot`, :class:`Pending`, a
  record's first state (:func:`initial_state`, :func:`check_setup`) and :func:`make_event`;
* :mod:`engine.core.replay` -- :func:`apply_event`, :func:`replay`, :func:`undo`, :func:`new_record`;
* :mod:`engine.core.session` -- :class:`Session`;
* :mod:`engine.core.game_loop` -- :func:`play_game` and its heap switch ``STEADY_HEAP``
  (set it on :mod:`engine.core.game_loop`, the module :func:`play_game` reads it from);
* :mod:`engine.core.registry` -- :func:`register`, :func:`systems`, :func:`system_of`, :func:`factory_of`.

This module names them all in one place, so ``from engine.core.game import X`` keeps working.
"""
from __future__ import annotations

from .game_loop import Bots, bot_choose, make_bots, play_game, steady_heap
from .game_values import (MAX_ACTIONS, A, Chooser, Dice, EventDice, Options, Outcome, Places, Position, S,
                          action_seed, first_option, other_side, parse_dice)
from .procedure import RandomDice
from .protocol import Bot, GameRules, RandomBot, Pending, check_setup, initial_state, make_event
from .record import GameRecord
from .registry import factory_of, register, system_of, systems
from .replay import apply_event, new_record, replay, undo
from .session import Session
from .tables import check_tables

__all__ = ["Outcome", "Position", "Places", "GameRules", "Pending", "Session", "Bot", "RandomBot", "action_seed", "EventDice",
           "other_side", "replay", "initial_state", "check_tables", "undo", "play_game", "apply_event", "make_event",
           "system_of", "factory_of", "register", "systems", "parse_dice", "MAX_ACTIONS", "steady_heap",
           "check_setup", "new_record", "make_bots", "bot_choose", "first_option", "Bots", "Options", "Dice",
           "Chooser", "GameRecord", "RandomDice", "S", "A"]

#: the names these had before they were public (tests and other branches use them)
_make_bots = make_bots
_bot_choose = bot_choose
