"""The game loop (issue 27.6: split from :mod:`engine.core.game`): the bots of a game by name
(:func:`make_bots`) and :func:`play_game`, bot against bot, with the heap set aside before each game
(:data:`STEADY_HEAP`, :func:`steady_heap`)."""
from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, cast

from .errors import VedetteError
from .game_values import MAX_ACTIONS, A, EventDice, Options, S, action_seed
from .procedure import Choose
from .protocol import Bot, GameRules
from .record import GameRecord
from .replay import new_record
from .tables import GameTables

__all__ = ["Bots", "make_bots", "bot_choose", "STEADY_HEAP", "steady_heap", "play_game"]


#: the players of a game: one bot per side, in the order of ``rules.sides`` (names or bots), or by side
Bots = Sequence[str | Bot] | Mapping[str, str | Bot]


def make_bots(rules: GameRules[Any, Any], bots: Bots, seed: int) -> dict[str, Bot]:
    items: list[tuple[str, str | Bot]]
    if isinstance(bots, Mapping):
        items = list(bots.items())
    else:
        names = list(bots)
        if len(names) != 2:
            raise VedetteError(f"--bots: expected two bots, one per side ({' and '.join(rules.sides)}), got {len(names)}")
        items = list(zip(rules.sides, names))
    out: dict[str, Bot] = {}
    factories = rules.bots()
    for i, (side, b) in enumerate(items):
        if isinstance(b, str):
            if b not in factories:
                raise VedetteError(f"unknown bot {b[:30]!r}: choose from {', '.join(factories)}")
            b = factories[b](seed=action_seed(seed, -1 - i))
        out[side] = b
    return out


_HEAP_LOCK = threading.Lock()


#: whether :func:`play_game` calls :func:`steady_heap` before each game. A process that serves pages turns it
#: off (dashboards.server.background): its live objects include the open sessions, whose cycles must
#: stay collectable when they close; studies, the CLI and benchmarks keep it on.
STEADY_HEAP = True


def steady_heap() -> None:
    """Put what is alive now out of the cyclic collector's sight before a game (one collection first, so no
    garbage is kept): the scenarios, tables, boards and the bounded module caches that games fill. Without
    it, Python's full collections walk all of them again and again in the middle of games, ever longer as
    the caches grow over a study (measured: about a sixth of a Fuentes game's CPU after ten games). Objects
    set aside this way are still freed as soon as nothing refers to them; only a cycle among them that is
    dropped later stays in memory (the values of a game, states and cached results, form none: after
    twelve Fuentes games in one process, gc.unfreeze() and a collection find nothing to free)."""
    with _HEAP_LOCK:
        gc.collect()
        gc.freeze()


def play_game(rules: GameRules[S, A], bots: Bots = ("greedy", "greedy"), scenario: str | None = None,
              options: Options = (), seed: int = 0, max_actions: int = MAX_ACTIONS,
              record: bool = True, on_action: Callable[[S, int], object] | None = None,
              on_move: Callable[[str, A], object] | None = None,
              tables: GameTables | None = None) -> tuple[S, GameRecord | None]:
    """Play a whole game, bot against bot (``bots``: one per side, in the order of ``rules.sides``, as
    names or :class:`Bot` objects). Returns the final state and its record. After each action,
    ``on_action(state, n)`` sees the new state and ``on_move(side, action)`` who played what. ``tables``:
    a player's printed values to play with (the record keeps them)."""
    rules = rules.with_tables(tables) if tables is not None else rules
    players = make_bots(rules, bots, seed)
    state = rules.new_game(scenario or rules.default_scenario, options, seed)
    if STEADY_HEAP and gc.isenabled():
        steady_heap()
    rec = new_record(rules, state, seed, {"bots": {s: getattr(b, "name", str(b)) for s, b in players.items()}})
    events: list[dict[str, Any]] = []
    n = 0
    while n < max_actions:
        side = rules.to_act(state)
        if side is None:
            break
        bot = players[side]
        # a bot with ``needs_legal = False`` looks at the candidates it wants itself (what it picks is
        # checked by begin all the same): listing every legal move first is the costly part of a game
        legal = rules.legal_actions(state) if getattr(bot, "needs_legal", True) else None
        if legal is not None and not legal:
            raise VedetteError(f"{rules.system}: no legal action for {side} at {rules.position(state)}")
        a = bot.choose_action(rules, state, legal)
        p = rules.begin(state, a).run(EventDice(seed, n), partial(bot_choose, players, bot, state))
        if record:
            events.append(p.event())
        state = cast(S, p.state)
        n += 1
        if on_action is not None:
            on_action(state, n)
        if on_move is not None:
            on_move(side, a)
    return state, (replace(rec, events=tuple(events)) if record else None)


def bot_choose(players: Mapping[Any, Bot], bot: Bot, state: Any, req: Choose) -> Hashable:
    """A question inside a procedure goes to the bot of the side it names (a defender's retreat, a
    fired-on unit's choice), else to the acting side's bot."""
    return players.get(getattr(req, "player", None), bot).choose(req, state)
