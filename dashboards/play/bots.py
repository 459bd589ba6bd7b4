"""A bot's move in a live game, worked out in a calculation worker process (issue 28 point 3).

The server sends the position as the protocol's JSON (:meth:`GameRules.state_to_json`, a few kB), the bot
seated at the side to act, and the seeds; the worker makes the bot (:meth:`GameRules.bots`, the same
factories as ``vedette GAME play`` and the studies) and plays its action through as :func:`play_game`
does: the event's dice are the one seeding rule's (:class:`EventDice`), a question inside the action goes
to the bot of the side it names. A question for a person's side ends the work there: the answers so far
come back and the server leaves that question waiting for the person. The server then makes the action
with those answers through its own session (so it is checked again and recorded once); nothing the
worker says is taken on trust.

Bots are kept per worker process between moves (their caches stay warm), keyed by system, bot, side and
seed: deterministic as the bots are, a bot made afresh would choose the same.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, cast

from engine.core.game import EventDice, Pending, action_seed
from engine.systems import system_of
from engine.core.procedure import Choose
from engine.core.tables import tables_from_json
from engine.core.values import jsonable

__all__ = ["bot_move", "bot_answer", "bot_seed"]

_BOTS: OrderedDict = OrderedDict()
_RULES: dict = {}
_KEEP = 16


def bot_seed(game_seed: int, side_index: int) -> int:
    """The seed a game's bot of side number ``side_index`` is made with (as :func:`play_game` makes its bots)."""
    return action_seed(int(game_seed or 0), -1 - side_index)


def _rules(system: str, tables: Any = None):
    """The rules of ``system``; with ``tables`` (a game's own tables in their record form,
    ``GameTables.to_json``) the rules that play with them, as the game's session does (rules_for)."""
    r = _RULES.get(system)
    if r is None:
        r = _RULES[system] = system_of(system)
        if hasattr(r, "allow_paths"):
            r.allow_paths = False
    if tables is not None:
        own = tables_from_json(r, tables)              # checked: fingerprint and content
        key = (system, own.fingerprint)
        mine = _RULES.get(key)
        if mine is None:
            mine = _RULES[key] = r.with_tables(own)
        return mine
    return r


def _bot(system: str, name: str, side: str, seed: int):
    key = (system, name, side, seed)
    bot = _BOTS.get(key)
    if bot is None:
        bot = _rules(system).bots()[name](seed=seed)
        _BOTS[key] = bot
        while len(_BOTS) > _KEEP:
            _BOTS.popitem(last=False)
    else:
        _BOTS.move_to_end(key)
    return bot


def _choose(rules, state, seats: dict, acting: str, seeds: dict, system: str, req: Choose):
    """The bot answer to ``req`` (a question for the side it names, else for the acting side), or None when
    that side is a person's."""
    who = getattr(req, "player", None) or acting
    name = seats.get(who)
    if not name:
        return None
    return _bot(system, name, who, seeds[who]).choose(req, state)


def bot_move(system: str, state_json: Any, seats: dict, seeds: dict, game_seed: int, index: int,
             tables: Any = None) -> dict:
    """The move of the bot seated at the side to act: ``{"action": its JSON, "answers": [...], "done": bool}``
    (``answers``: every answer of the action in order, dice and choices, up to a question for a person).
    ``tables``: the game's own tables (TBF, BC hold them in their rules), so the bot plays the same game."""
    rules = _rules(system, tables)
    state = rules.state_from_json(state_json)
    side = rules.to_act(state)
    bot = _bot(system, seats[side], side, seeds[side])
    legal = rules.legal_actions(state) if getattr(bot, "needs_legal", True) else None
    action = bot.choose_action(rules, state, legal)
    p = rules.begin(state, action)
    dice = EventDice(int(game_seed or 0), int(index))
    while not p.done:
        req = p.request
        if isinstance(req, Choose):
            value = _choose(rules, state, seats, side, seeds, system, req)
            if value is None:
                break
        else:
            value = dice(req)
        p = p.answer(value)
    return {"action": rules.action_to_json(action), "answers": [jsonable(v) for v in p.answers], "done": p.done}


def bot_answer(system: str, state_json: Any, pending_json: Any, seats: dict, seeds: dict,
               tables: Any = None) -> Any:
    """A bot's answer to the question waiting in an action a person began (a defender's retreat ...)."""
    rules = _rules(system, tables)
    state = rules.state_from_json(state_json)
    p = Pending.from_json(rules, state, pending_json)
    acting = rules.to_act(state)
    value = _choose(rules, state, seats, acting, seeds, system, cast(Choose, p.request))
    return jsonable(value)
