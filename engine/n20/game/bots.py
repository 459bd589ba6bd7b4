"""Bots that play a Napoleonic 20 game unattended, on the core bot interface (:class:`engine.core.game.Bot`:
``choose_action(rules, state, legal)`` and ``choose(request, state)``), played by the core loop
(:func:`engine.core.game.play_game`): a simple greedy bot (the random-legal bot is the core one).

Bots sit above the protocol: they read positions through the public queries (:mod:`.queries`, :mod:`.zoc`)
and import the protocol; the protocol never imports them (the package registers them, :func:`register_bot`).
"""
from __future__ import annotations

import operator
from functools import lru_cache

from engine.core.game import GameRecord, play_game as core_play_game
from engine.core.procedure import Choose

from .actions import Action
from .exclusive import fieldworks_possible, needs_release_pick
from .memo import memo
from .movement import stacks
from .protocol import RULES, N20Rules
from .queries import reachable
from .reach import cadre_meets_cadre
from .state import GameState
from .types import is_garrison, other
from .zoc import distance, neighbours_map, on_map_units

__all__ = ["GreedyBot", "NearestSteps", "play_game"]


@lru_cache(maxsize=4096)
def _distances(board, targets: tuple) -> dict:
    """Hex -> steps to the nearest of ``targets`` (one breadth-first search per board and target set)."""
    dist = {t: 0 for t in targets}
    frontier = list(dist)
    nbrs = neighbours_map(board)
    while frontier:
        nxt = []
        for h in frontier:
            for n in nbrs[h]:
                if n not in dist:
                    dist[n] = dist[h] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


@lru_cache(maxsize=8192)
def _steps_from(board, target: str) -> dict:
    """Hex -> steps from ``target`` (one breadth-first search per map and hex, kept across games)."""
    return _distances(board, (target,))


class _Ground(dict):
    """hex -> ``weight`` times the combat value of its terrain (TEC), made for a hex when first asked."""

    def __init__(self, board, tables, weight: float):
        super().__init__()
        self.board, self.tables, self.weight = board, tables, weight

    def __missing__(self, hex_):
        v = self[hex_] = self.weight * self.tables.terrain_combat(self.board.terrain(hex_))
        return v


@lru_cache(maxsize=64)
def _ground(board, tables, weight: float) -> _Ground:
    """The greedy bot's terrain term per board (a Fieldworks board is one of its own), tables and weight."""
    return _Ground(board, tables, weight)


class NearestSteps:
    """Hex -> steps to the nearest of ``targets`` on ``board``: what :func:`_distances` gives, looked up
    hex by hex as the scorer asks (the nearest of several targets is the least of the steps from each,
    and those are worked out once per map and hex). Compared by its board and targets."""

    __slots__ = ("board", "targets", "_fields", "_seen")

    def __init__(self, board, targets: tuple):
        self.board = board
        self.targets = targets
        self._fields = tuple(_steps_from(board, t) for t in dict.fromkeys(targets))
        self._seen: dict = {}

    def get(self, h, default=None):
        v = self._seen.get(h, _UNSEEN)
        if v is _UNSEEN:
            try:
                v = min(map(operator.itemgetter(h), self._fields))
            except (KeyError, ValueError):          # a hex some target cannot get to, or no targets
                ds = [f[h] for f in self._fields if h in f]
                v = min(ds) if ds else None
            self._seen[h] = v
        return default if v is None else v

    def __eq__(self, other):
        return type(other) is NearestSteps and other.board is self.board and other.targets == self.targets

    def __hash__(self):
        return hash(self.targets)


_UNSEEN = object()


def _dist_map(state: GameState, side: str) -> NearestSteps:
    sc = state.scenario
    board = state.board
    targets = [u.hex for u in on_map_units(state, other(side)) if sc.units[u.id].type != "leader"]
    targets += [h for h, owner, _ in board.objectives if owner != side]
    return _nearest(board.base, tuple(sorted(targets)))         # steps only: the map's own grid


@lru_cache(maxsize=256)
def _nearest(board, targets: tuple) -> NearestSteps:
    """One :class:`NearestSteps` per map and target set (by value), so the hexes it has looked up stay
    looked up in every state with those targets (a movement phase: the other side's units do not move)."""
    return NearestSteps(board, targets)


class _Scores(dict):
    """hex -> the greedy bot's score of a hex (see :meth:`GreedyBot._scorer`) for one side, target set and
    board, made for a hex when first asked (the same sum, so the same number, as worked out each time)."""

    def __init__(self, dists: NearestSteps, ground: _Ground, allied: bool):
        super().__init__()
        self.dists, self.ground, self.allied = dists.get, ground, allied

    def __missing__(self, hex_):
        if self.allied:
            v = self[hex_] = -0.5 * self.dists(hex_, 0) + self.ground[hex_]
        else:
            v = self[hex_] = -self.dists(hex_, 0) + self.ground[hex_]
        return v


@lru_cache(maxsize=256)
def _scores(dists: NearestSteps, board, tables, allied: bool) -> _Scores:
    """:class:`_Scores` per target set, board (a Fieldworks board is one of its own), tables and side."""
    return _Scores(dists, _ground(board, tables, 1.0 if allied else 0.3), allied)


class GreedyBot:
    """A simple one-step greedy player.

    Movement: each unit goes to the reachable hex that best trades closeness to the enemy (the French
    attack, the allies close in only on good ground) against the hex's defensive terrain; no forced march.
    Reaction: countercharges when the doubled strength beats the target, else nothing.
    Combat: the first legal declaration; reserves when the battle is close; the safest retreat path.
    Night: rallies everything, spending a Morale Point when ahead.
    """

    name = "greedy"
    needs_legal = False          # in the movement phase it asks one unit at a time (see _movement)

    def __init__(self, seed: int | None = None):
        self._skip: tuple = ((), set())

    def choose_action(self, rules, state: GameState, legal: list | None) -> Action:
        if state.step == "movement":
            return self._movement(rules, state)
        if legal is not None:
            return self._pick(state, legal)
        # the candidates, and the pick checked once (the full legal list only when the pick is refused)
        acts = rules.candidates(state)
        a = self._pick(state, acts) if acts else None
        if a is None or not rules.is_legal(state, a):
            a = self._pick(state, rules.legal_actions(state))
        return a

    def _pick(self, state: GameState, acts: list[Action]) -> Action:
        s = state.step
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
            return by_kind["end_phase"][0] if "end_phase" in by_kind else acts[0]
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
            return by_kind["end_phase"][0] if "end_phase" in by_kind else acts[0]
        return acts[0]

    def _dist_map(self, state: GameState, side: str) -> dict:
        """Hex -> distance to the nearest enemy unit or enemy objective (memoised beside the state)."""
        return memo(state, ("greedy-distances", side), lambda: _dist_map(state, side))

    def _movement(self, rules, state: GameState) -> Action:
        """One unit at a time (its own legal moves only): the first unit with a worthwhile move goes;
        units without one are not asked again this phase."""
        key = (state.turn, state.player, state.step)
        if self._skip[0] != key:
            self._skip = (key, set())
        skip = self._skip[1]
        if needs_release_pick(state):
            return Action("pick_released")
        if state.fieldworks_left:
            return next(a for a in rules.legal_actions(state) if a.kind in ("place_fieldworks", "end_phase"))
        if fieldworks_possible(state):
            return Action("fieldworks")
        sc = state.scenario
        side = state.player
        for _, stack in stacks(state):                  # 6.9: a stack left by another player's move parts
            for uid in stack:
                best = self._best_reach(state, state.unit(uid), threshold=None)
                if best is not None:
                    return Action.move("move", uid, best.path)
        for u in state.units:
            if u.id in skip or u.moved or u.status not in ("map", "due") or sc.units[u.id].side != side:
                continue
            # a unit's move candidates are its reachable hexes (the ones handlers.candidates lists for it,
            # each legal): scored straight from the reach, and only the pick made an action (the loop
            # checks the pick again before playing it)
            best = self._best_reach(state, u)
            if best is not None:
                return Action.move("move", u.id, best.path)
            skip.add(u.id)
        return Action("end_phase")

    def _best_reach(self, state: GameState, u, threshold: float | None = 0.25):
        """The best of the unit's moves (as :meth:`_best_move` would pick among its move actions): the
        highest gain above ``threshold`` (None: any move), ties to the first hex in label order; None when
        none is worth it. It never ends a move on a friendly unit (6.9 would then oblige it to move that one
        on), save a leader's (stack-free, 16.9.2) or a Cadre's build-up (16.6.2)."""
        where = reachable(state, u.id)
        if not where:
            return None
        score = self._scorer(state, u.id)
        here = score(u.hex) if u.status == "map" else -99.0
        best_h, best_gain = None, (float("-inf") if threshold is None else threshold)
        d = state.scenario.units[u.id]
        for h in where:
            if h in state.occupants and d.type != "leader" and not cadre_meets_cadre(state, d, h) \
                    and any(state.scenario.units[x].type != "leader" for x in state.occupants[h]):
                continue
            gain = score(h) - here
            if gain > best_gain or (gain == best_gain and best_h is not None and h < best_h):
                best_h, best_gain = h, gain
        return None if best_h is None else where[best_h]

    def _score(self, state: GameState, uid: str, hex_: str) -> float:
        return self._scorer(state, uid)(hex_)

    def _scorer(self, state: GameState, uid: str):
        """hex -> how good ``uid`` standing there looks (what is the same for every hex looked up once)."""
        sc = state.scenario
        board = state.board
        d = sc.units[uid]
        side = d.side
        if d.id == sc.spec.exclusive.supply_column and sc.spec.exclusive.almeida:
            almeida = sc.spec.exclusive.almeida
            return lambda hex_: -distance(board, hex_, almeida)
        # the French close in (terrain counts 0.3); the allies hold good ground and close in only where it
        # is strong (steps count half, terrain in full): -steps + 0.3 TEC, or -0.5 steps + TEC
        return _scores(self._dist_map(state, side), board, sc.tables, side != "french").__getitem__

    def _best_move(self, state: GameState, moves: list[Action]) -> Action | None:
        best, best_gain = None, 0.25
        cache: dict[str, tuple] = {}
        for a in moves:
            hit = cache.get(a.unit)
            if hit is None:
                u = state.unit(a.unit)
                score = self._scorer(state, a.unit)
                hit = cache[a.unit] = (score, score(u.hex) if u.status == "map" else -99.0)
            score, here = hit
            gain = score(a.path[-1]) - here
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def _good_charge(self, state: GameState, a: Action) -> bool:
        sc = state.scenario
        b = a.battles[0]
        att = sum(sc.units[x].strength for x in b.attackers)
        dfd = 0
        for x in b.defenders:
            if is_garrison(x):
                return False
            dd = sc.units[x]
            if dd.type == "cavalry":
                return False
            dfd += dd.strength + sc.tables.terrain_combat(state.board.terrain(state.unit(x).hex))
        return 2 * att - dfd >= 3

    def choose(self, req: Choose, state=None):
        """No reserves (12.5); rallied units placed at the first hex offered; a Cadre when one may come."""
        opts = req.options
        if req.rule == "12.5":
            return False
        if req.rule == "10.0" and "stay broken" in opts and len(opts) > 1:
            return opts[0]
        if req.rule == "16.5.1":
            return "cadre" if "cadre" in opts else opts[0]
        return opts[0]


def play_game(scenario: str = "fuentes", bots=("greedy", "greedy"), seed: int = 0, options=(), tables=None,
              max_actions: int = 20000, record: bool = True) -> tuple[GameState, GameRecord | None]:
    """Play a whole game bot against bot (``bots`` = French bot, allied bot, by name or as bots) with the
    core game loop and seeding rule. Returns (final state, record)."""
    rules = N20Rules(tables=tables) if tables else RULES
    return core_play_game(rules, tuple(bots), scenario, tuple(options), seed, max_actions=max_actions,
                          record=record)
