"""Bots that play a Napoleonic 20 game unattended: a random-legal bot and a simple greedy bot.

A bot is a callable ``bot(state, rng) -> Action`` choosing among :func:`legal_actions`, plus a
``chooser(rng)`` for the questions asked inside procedures (reserves, retreat paths, advances, rally
hexes). :func:`play_game` runs a whole game and returns the final state and its record.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from engine.core.procedure import Choose, RandomDice

from .actions import Action
from .engine import actor, apply_logged, legal_actions, new_game
from .record import make_record
from .state import GameState, other
from . import rules as R

__all__ = ["RandomBot", "GreedyBot", "BOTS", "play_game"]


_DIST_CACHE: dict = {}


class RandomBot:
    """Picks uniformly among the legal actions (ending the phase with a fixed small chance, so games move
    on); answers procedure questions at random."""

    name = "random"

    def choose(self, state: GameState, rng: random.Random) -> Action:
        acts = legal_actions(state)
        ends = [a for a in acts if a.kind == "end_phase"]
        others = [a for a in acts if a.kind != "end_phase"]
        if ends and (not others or rng.random() < 0.15):
            return ends[0]
        return rng.choice(others)

    def chooser(self, rng: random.Random):
        return lambda req: rng.choice(req.options)


class GreedyBot:
    """A simple one-step greedy player.

    Movement: each unit goes to the reachable hex that best trades closeness to the enemy (the French
    attack, the allies close in only on good ground) against the hex's defensive terrain; no forced march.
    Reaction: countercharges when the doubled strength beats the target, else nothing.
    Combat: the first legal declaration; reserves when the battle is close; the safest retreat path.
    Night: rallies everything, spending a Morale Point when ahead.
    """

    name = "greedy"

    def __init__(self):
        self._skip: tuple = ((), set())

    def choose(self, state: GameState, rng: random.Random) -> Action:
        s = state.step
        if s == "movement":
            return self._movement(state)
        acts = legal_actions(state)
        by_kind: dict[str, list[Action]] = {}
        for a in acts:
            by_kind.setdefault(a.kind, []).append(a)
        if len(acts) == 1:
            return acts[0]
        if s == "reaction":
            for a in by_kind.get("countercharge", []):
                if self._good_charge(state, a):
                    return a
            if "night_march" in by_kind and state.morale_of("french") > 3:
                return by_kind["night_march"][0]
            if "night_move" in by_kind:
                best = self._best_move(state, by_kind["night_move"])
                if best is not None:
                    return best
            return by_kind["end_phase"][0]
        if s == "combat":
            if "declare" in by_kind:
                return by_kind["declare"][0]
            if "resolve" in by_kind:
                return by_kind["resolve"][0]
            return acts[0]
        if s == "night_ops":
            rally = by_kind.get("rally", [])
            if rally:
                side = state.player
                ahead = state.morale_of(side) > state.morale_of(other(side)) + 1
                spend = [a for a in rally if a.spend]
                return spend[0] if (ahead and spend) else rally[0]
            return acts[0]
        if s == "setup":
            return by_kind["end_phase"][0]
        return acts[0]

    def _dist_map(self, state: GameState, side: str) -> dict:
        """Hex -> distance to the nearest enemy unit or enemy objective (one breadth-first search)."""
        cache = state.__dict__.setdefault("_bot", {})
        if side not in cache:
            sc = state.scenario
            board = state.board
            targets = [u.hex for u in R.on_map_units(state, other(side)) if sc.units[u.id].type != "leader"]
            targets += [h for h, owner, _ in board.objectives if owner != side]
            key = (board, tuple(sorted(targets)))
            if key in _DIST_CACHE:
                cache[side] = _DIST_CACHE[key]
                return cache[side]
            dist = {t: 0 for t in targets}
            frontier = list(dist)
            nbrs = R.neighbours_map(board)
            while frontier:
                nxt = []
                for h in frontier:
                    for n in nbrs[h]:
                        if n not in dist:
                            dist[n] = dist[h] + 1
                            nxt.append(n)
                frontier = nxt
            if len(_DIST_CACHE) > 4096:
                _DIST_CACHE.clear()
            _DIST_CACHE[key] = dist
            cache[side] = dist
        return cache[side]

    def _movement(self, state: GameState) -> Action:
        """One unit at a time (its own legal moves only): the first unit with a worthwhile move goes;
        units without one are not asked again this phase."""
        key = (state.turn, state.player, state.step)
        if self._skip[0] != key:
            self._skip = (key, set())
        skip = self._skip[1]
        from .engine import _fieldworks_possible, _needs_release_pick
        if _needs_release_pick(state):
            return Action("pick_released")
        if state.fieldworks_left:
            return next(a for a in legal_actions(state) if a.kind in ("place_fieldworks", "end_phase"))
        if _fieldworks_possible(state):
            return Action("fieldworks")
        sc = state.scenario
        side = state.player
        for u in state.units:
            if u.id in skip or u.moved or u.status not in ("map", "due") or sc.units[u.id].side != side:
                continue
            moves = [a for a in legal_actions(state, unit=u.id) if a.kind == "move"]
            best = self._best_move(state, moves) if moves else None
            if best is not None:
                return best
            skip.add(u.id)
        return Action("end_phase")

    def _score(self, state: GameState, uid: str, hex_: str) -> float:
        sc = state.scenario
        board = state.board
        d = sc.units[uid]
        side = d.side
        if d.id == sc.spec.exclusive.supply_column and sc.spec.exclusive.almeida:
            return -R.distance(board, hex_, sc.spec.exclusive.almeida)
        dist = self._dist_map(state, side).get(hex_, 0)
        terrain = sc.tables.terrain_combat(board.terrain(hex_))
        if side == "french":
            return -dist + 0.3 * terrain
        # the allies hold good ground and close in only where it is strong
        return -0.5 * dist + 1.0 * terrain

    def _best_move(self, state: GameState, moves: list[Action]) -> Action | None:
        best, best_gain = None, 0.25
        cache: dict[str, float] = {}
        for a in moves:
            u = state.unit(a.unit)
            here = cache.get(a.unit)
            if here is None:
                here = self._score(state, a.unit, u.hex) if u.status == "map" else -99.0
                cache[a.unit] = here
            gain = self._score(state, a.unit, a.path[-1]) - here
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def _good_charge(self, state: GameState, a: Action) -> bool:
        sc = state.scenario
        b = a.battles[0]
        att = sum(sc.units[x].strength for x in b.attackers)
        dfd = 0
        for x in b.defenders:
            if x.startswith("garrison:"):
                return False
            dd = sc.units[x]
            if dd.type == "cavalry":
                return False
            dfd += dd.strength + sc.tables.terrain_combat(state.board.terrain(state.unit(x).hex))
        return 2 * att - dfd >= 3

    def chooser(self, rng: random.Random):
        def pick(req: Choose):
            opts = req.options
            if req.rule == "12.5":
                return False
            if req.rule == "10.0" and "stay broken" in opts and len(opts) > 1:
                return opts[0]
            if req.rule == "16.5.1":
                return "cadre" if "cadre" in opts else opts[0]
            return opts[0]
        return pick


BOTS = {"random": RandomBot, "greedy": GreedyBot}


def play_game(scenario: str = "fuentes", bots=("greedy", "greedy"), seed: int = 0, options=(), tables=None,
              max_actions: int = 20000, record: bool = True):
    """Play a whole game bot against bot (``bots`` = French bot, allied bot). Returns (final state, record)."""
    players = {"french": BOTS[bots[0]](), "allied": BOTS[bots[1]]()}
    rng = random.Random(seed)
    state = new_game(scenario, options=options, seed=seed, tables=tables)
    events = []
    n = 0
    while not state.over and n < max_actions:
        side = actor(state)
        bot = players[side]
        a = bot.choose(state, rng)
        state, ev = apply_logged(state, a, chooser=bot.chooser(rng))
        if record:
            events.append(ev)
        n += 1
    rec = make_record(state, events, meta={"bots": list(bots)}) if record else None
    return state, rec
