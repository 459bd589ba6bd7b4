"""The These Brave Fellows greedy bot (ours, not a rule): it scores each legal action by what it does
for its side's victory levels (10.2) and takes the best. It asks the rules only through the protocol and
its public queries (:class:`~.queries.Queries`); it imports the protocol, never the reverse (it adds itself
to the protocol's bots on import)."""
from __future__ import annotations

import heapq
import random
from collections.abc import Hashable
from typing import Any

from engine.core.errors import RuleViolation, VedetteError
from engine.core.game import GameRules
from engine.core.procedure import Choose

from ..board import TbfGrid

from .actions import (Activate, ActivateCommand, Attach, CavalryRetreat, Charge, EndSegment, Fire, Melee, Move,
                      OutOfCommand, Pass, TbfAction)
from .activation import activation_plan, leaderless_activation
from .melee_combat import cached_melee_setup
from .movement import FaceBlock, MoveBlock, overstack_movers
from .protocol import BOTS, TbfRules
from .search import Reach, min_step_mp
from .state import TbfState
from .types import Segment, other

__all__ = ["GreedyBot"]

# ------------------------------------------------------------------------------------------------
# A greedy bot: plays toward its side's victory levels (10.2)
# ------------------------------------------------------------------------------------------------
class Extreme:
    """Distances from any hex to the nearest (``far``: the farthest) of a fixed set of hexes, each worked
    out once (99 when the set is empty). ``got`` holds those worked out (callers may read it first)."""

    __slots__ = ("grid", "hexes", "far", "got", "cubes", "_floor")
    grid: TbfGrid
    hexes: tuple[str, ...]
    far: bool
    got: dict[str, int]
    cubes: list[tuple[int, int, int]]
    _floor: int | None

    def __init__(self, grid: TbfGrid, hexes: tuple[str, ...], far: bool) -> None:
        self.grid, self.hexes, self.far, self.got = grid, hexes, far, {}
        cubes = grid.cube_of
        # (stacked pieces share a hex: each hex counted once)
        self.cubes = [cubes.get(x) or grid.to_cube(x) for x in dict.fromkeys(hexes)]
        self._floor = None

    def floor(self) -> int:
        """(``far`` only) a distance no hex is below: from any hex, the farthest of two of the hexes is at
        least half their distance apart away, so half the widest pair, rounded up."""
        if self._floor is None:
            cs = self.cubes
            wide = max((abs(a - x) + abs(b - y) + abs(c - z) for i, (a, b, c) in enumerate(cs)
                        for x, y, z in cs[i + 1:]), default=0) // 2
            self._floor = (wide + 1) // 2
        return self._floor

    def __call__(self, h: str) -> int:
        d = self.got.get(h)
        if d is None:
            if not self.hexes:
                d = 99
            else:
                # hex distance on cube coordinates (grid.distance): half the sum of the three differences
                a, b, c = self.grid.cube_of.get(h) or self.grid.to_cube(h)
                ds = [abs(a - x) + abs(b - y) + abs(c - z) for x, y, z in self.cubes]
                d = (max(ds) if self.far else min(ds)) // 2
            self.got[h] = d
        return d


class GreedyBot:
    """Scores each legal action by what it does for its side's victory level (10.2) and takes the best:
    the French hold Dürenstein, Oberloiben and Unterloiben (10.2.1) and shoot whatever comes near; the
    Coalition closes on French units and attacks them (10.2.3 counts French battalions lost). Fire with the
    most strength first, melee at good odds, charges when standing cavalry has a target, moves that close
    the distance to the side's objective; otherwise it ends the segment or passes."""

    name = "greedy"
    # what the bot asks once per decision (:meth:`begin_decision`): its answers, the units that moved this
    # segment, the overstack to resolve (4.1.10 A)
    _dist: dict[Any, Any]
    _moved: frozenset[str]
    _ovs: tuple[str, str] | None

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        # (hexes, far) -> {hex: distance to the nearest (far: farthest) of hexes}, kept between decisions
        self._far: dict[tuple[tuple[str, ...], bool], Extreme] = {}
        # hex -> the levels in or next to it (6.2.3 B-C), of the one map
        self._start_levels: dict[str, frozenset[int]] = {}
        # unit -> (hex, objectives, reach, the scores of its moves) at the last decision that scored them
        self._scored: dict[str, tuple[str, tuple[str, ...], Reach, list[tuple[float, str]]]] = {}
        self._towns: tuple[str, ...] | None = None      # the French objectives (the same all game)
        # (unit, hex, status, its book, the Level 2/3 roll) -> (MPs left, free steps): see _budget
        self._budgets: dict[tuple[Any, ...], tuple[int, int]] = {}
        # unit -> (side, command), of the order of battle (see where)
        self._unit_info: dict[str, tuple[str, str]] | None = None

    def _extremes(self, grid: TbfGrid, hexes: tuple[str, ...], far: bool) -> Extreme:
        key = (hexes, far)
        got = self._far.get(key)
        if got is None:
            if len(self._far) > 4096:
                self._far.clear()
            got = self._far[key] = Extreme(grid, hexes, far)
        return got

    def _extreme(self, grid: TbfGrid, hexes: tuple[str, ...], h: str, far: bool) -> int:
        """The distance from ``h`` to the nearest (or, ``far``, the farthest) of ``hexes`` (99 when none)."""
        return self._extremes(grid, hexes, far)(h)

    def choose(self, request: Choose, state: object = None) -> Hashable:
        """The first option (the rules list the sensible one first: advance after fire, 6.3.8; a leader left
        alone goes with his routing unit, 6.5 D ...), except that it always tries to regroup a unit (5.3 B)."""
        opts = request.options
        if request.rule == "5.3 B":
            return opts[1] if len(opts) > 1 else opts[0]
        return opts[0]

    #: core's game loop need not list every legal action first: the bot scores the candidates (a score
    #: never needs the action performed; a unit's moves are weighed from its one movement search without
    #: being spelt out) and checks them with the one check, best score first, so it takes the same action
    #: as from the full legal list (the best-scored legal one, the first in candidate order of equals)
    needs_legal = False

    def begin_decision(self, rules: TbfRules, s: TbfState) -> None:
        """What the bot asks once per decision, not once per move scored: the units that moved this segment
        and an overstack to resolve (4.1.10 A). :meth:`choose_action` starts with it."""
        self._dist = {}
        imp = s.impulse
        self._moved = frozenset(b.unit for b in imp.book if b.moved) if imp is not None else frozenset()
        self._ovs = overstack_movers(rules.queries, s) if imp is not None and imp.segment == Segment.MOVEMENT else None

    @property
    def moved(self) -> frozenset[str]:
        """The units that have moved this Movement Segment (their moves score 0), as of the last decision."""
        return self._moved

    def choose_action(self, rules: GameRules[Any, Any], s: TbfState, legal: list[TbfAction] | None) -> TbfAction:
        if not isinstance(rules, TbfRules):
            raise VedetteError(f"the greedy TBF bot plays These Brave Fellows, not {rules.system}")
        self.begin_decision(rules, s)
        if legal is not None:
            best, score = None, 0.0
            for a in legal:
                v = self._score(rules, s, a)
                if v > score:
                    best, score = a, v
            if best is not None:
                return best
            for a in legal:
                if isinstance(a, (EndSegment, Pass)):
                    return a
            return legal[0]
        blocks = rules.candidate_blocks(s)
        sc = rules.sc
        # Branch and bound, for the same pick as scoring every candidate and checking them best first:
        # each unit's moves get a bound no move of it can beat (worked out without its movement search);
        # a unit's moves are scored only while its bound could still beat the best candidate not yet
        # checked, and that candidate is checked only once no unscored unit could come before it.
        # (-score, place in the candidate order, hex of a move, its block; or -score, place, "", action)
        heap: list[tuple[float, int, str, TbfAction | MoveBlock]] = []
        waiting: list[tuple[float, int, MoveBlock]] = []    # (-bound, place, block): units not scored yet
        for i, item in enumerate(blocks):
            if isinstance(item, FaceBlock):
                continue                # a facing change scores 0 (see _score)
            if isinstance(item, MoveBlock):
                bound = self.move_bound(rules, s, item)
                if bound > 0:
                    waiting.append((-bound, i, item))
                continue
            try:
                v = self._score(rules, s, item)
            except RuleViolation:
                if rules.is_legal(s, item):
                    raise
                continue                # an illegal candidate (e.g. a leader already activated, 6.1.3 E)
            if v > 0:
                heap.append((-v, i, "", item))
        heapq.heapify(heap)
        heapq.heapify(waiting)          # the most promising unit first
        while heap or waiting:
            if waiting and (not heap or (waiting[0][0], waiting[0][1]) < (heap[0][0], heap[0][1])):
                _, i, blk = heapq.heappop(waiting)
                if sc.is_leader(blk.unit) and ("pre", blk.unit) not in self._dist:
                    # his first bound was the quick one: the scores before his search give a closer one
                    pre = self._leader_pre(rules, s, blk)
                    if pre:
                        heapq.heappush(waiting, (-max(v for v, _ in pre), i, blk))
                    continue
                for v, h in self.move_scores(rules, s, blk):
                    heapq.heappush(heap, (-v, i, h, blk))
                continue
            _, _, h, item = heapq.heappop(heap)
            a = item.move(h) if isinstance(item, MoveBlock) else item     # (a block's entries name a hex)
            if rules.is_legal(s, a):
                return a
        for b in blocks:                # ending or passing comes before any block's move or facing
            if isinstance(b, (EndSegment, Pass)) and rules.is_legal(s, b):
                return b
        for c in rules.candidates(s):
            if rules.is_legal(s, c):
                return c
        raise VedetteError(f"tbf: no legal action for {rules.to_act(s)} at {rules.position(s)}")

    def move_scores(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> list[tuple[float, str]]:
        """(score, hex) of the moves of ``blk`` that score above 0: what :meth:`_score` gives each of them,
        worked out from the unit's reach without making the moves."""
        sc = rules.sc
        uid, here = blk.unit, blk.here
        if self._ovs is not None and self._ovs[1] == uid and uid not in self._moved:
            return [(12, h) for h in blk.reach if h != here]      # 4.1.10 A, as in _score
        if uid in self._moved:
            return []                   # its moves score 0: no need of its movement search
        if sc.is_leader(uid):
            return self.leader_scores(rules, s, blk)
        near = self._objective_near(rules, s, blk.side)
        targets = near.hexes
        if not targets:
            return []
        d0 = near(here)
        if blk.side == "french" and d0 == 0:
            return []
        reach = blk.reach
        # the same reach from the same hex toward the same objectives as at an earlier decision (the unit
        # has stood still while others moved): the same scores, not worked out again
        seen = self._scored.get(uid)
        if seen is not None and seen[0] == here and seen[1] == targets and seen[2] == reach:
            return seen[3]
        out: list[tuple[float, str]] = []
        known = near.got
        for h, (mp, _) in reach.items():
            if h != here:
                d = known.get(h)
                gain = d0 - (near(h) if d is None else d)
                if gain > 0:
                    out.append((gain + 0.01 * (10 - mp), h))
        self._scored[uid] = (here, targets, reach, out)     # (one entry a unit: bounded by the units)
        return out

    def move_bound(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> float:
        """A score no move of ``blk`` exceeds (0: none scores), without its movement search: a unit's gain
        toward its objective is at most that distance and at most the hexes it may still step through
        (its MPs left over the cheapest step's MPs, plus its Level 2/3 hexes, 6.2.2-6.2.3), plus the 0.1
        of the MP bonus; a leader's scores are worked out before his search anyway."""
        sc = rules.sc
        uid, here = blk.unit, blk.here
        if self._ovs is not None and self._ovs[1] == uid and uid not in self._moved:
            return 12                   # 4.1.10 A, as in move_scores
        if uid in self._moved:
            return 0
        if sc.is_leader(uid):
            pre = self._dist.get(("pre", uid))
            if pre is not None:
                return max(v for v, _ in pre) if pre else 0
            return self.leader_bound(rules, s, blk)
        near = self._objective_near(rules, s, blk.side)
        if not near.hexes:
            return 0
        d0 = near(here)
        if d0 <= 0:
            return 0                    # (a French unit in its objective, as in move_scores)
        # the Coalition's objectives are the French units' hexes, which it never enters (6.2.5 B): it ends
        # a move at least one hex from them
        top = d0 - 1 if blk.side != "french" else d0
        least = min_step_mp(sc)
        if not least:
            return top + 0.1 if top > 0 else 0
        # each hex gained is one step at least: a Level 2/3 step costs no MP (6.2.3 A), any other step at
        # least ``least`` MPs (6.2.2, 6.2.6); so a gain of g costs at least (g - free) * least MPs and
        # the best score is at the largest gain (the MP bonus falls 0.01 * least a step), worked out as
        # move_scores works it out (the same float when some move reaches it)
        mp_left, free = self._budget(rules, s, uid, here)
        g = min(top, mp_left // least + free)
        if g <= 0:
            return 0
        return g + 0.01 * (10 - max(0, g - free) * least)

    def _budget(self, rules: TbfRules, s: TbfState, uid: str, here: str) -> tuple[int, int]:
        """The unit's MPs left (4.2.4 B, 6.2.2) and at most how many steps of its move cost no MP: Level 2/3
        hexes, as many as the Level 2/3 roll leaves it (6.2.3 A), and only of a level found in or next to
        its starting hex (6.2.3 B-C). Both as the rules say; kept while what they depend on (its hex and
        status, its own book this segment, the segment's Level 2/3 roll) stays the same, so a unit that
        stands still while the others move is not asked again at every decision."""
        imp = s.activation
        books = self._dist.get("books")
        if books is None:
            books = self._dist["books"] = {b.unit: b for b in imp.book}
        # (of its book, what the two answers read: the MPs spent and the Level 2/3 hexes used)
        bk = books.get(uid)
        key = (uid, here, rules.queries.pieces(s)[uid].status, imp.levels) + (
            (bk.mp, bk.l2, bk.l3) if bk is not None else (0, 0, 0))
        got = self._budgets.get(key)
        if got is None:
            l2, l3 = rules.queries.levels_left(imp, uid)
            free = 0
            if l2 or l3:
                lv = self._start_levels.get(here)
                if lv is None:
                    board = rules.sc.board
                    lv = self._start_levels[here] = frozenset([board.level(here)] + [
                        board.level(n) for n in board.grid.neighbours(here)])
                free = (l2 if 2 in lv else 0) + (l3 if 3 in lv else 0)
            if len(self._budgets) > 4096:
                self._budgets.clear()
            got = self._budgets[key] = (rules.queries.mp_left(s, uid), free)
        return got

    def _steps(self, rules: TbfRules, s: TbfState, uid: str, here: str) -> int:
        """At most how many hexes a move of ``uid`` may step through now (see :meth:`move_bound`)."""
        least = min_step_mp(rules.sc)
        if not least:
            return 99
        mp_left, free = self._budget(rules, s, uid, here)
        return mp_left // least + free

    def leader_bound(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> float:
        """A score no move of a leader's block exceeds, before the hexes he might score a move to are
        looked at (:meth:`_leader_pre`): each step changes a distance by one hex at most, so fleeing
        (6.5 C) gains at most his steps, and keeping up with his people at most his steps and his distance
        to the farthest of them."""
        here = blk.here
        grid = rules.sc.board.grid
        steps = self._steps(rules, s, blk.unit, here)
        if steps <= 0:
            return 0
        near = self._extremes(grid, self._foes(rules, s, other(blk.side)), False)
        if near(here) <= 2:
            return 20 + steps           # as _leader_pre_now: 20 + n_to - n_here, n_to <= n_here + steps
        mine = self._mine(rules, s, blk.unit)
        if not mine:
            return 0
        far = self._extremes(grid, mine, True)
        g = min(steps, far(here) - far.floor())
        return 0.5 * g if g > 0 else 0

    def leader_scores(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> list[tuple[float, str]]:
        """:meth:`_leader_move` for each move of a leader's block: only a hex holding friendly units can
        score (a lone leader is captured by any enemy entering, 6.5 C), so only those are looked at."""
        out = self._leader_pre(rules, s, blk)
        if not out:
            return out                      # nothing to gain anywhere: no need of his movement search
        reach = blk.reach
        return [(v, h) for v, h in out if h in reach]

    def _leader_pre(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> list[tuple[float, str]]:
        """The scores of a leader's moves to every hex he might reach, before his movement search says
        which he can (asked twice per decision: once kept)."""
        key = ("pre", blk.unit)
        got = self._dist.get(key)
        if got is None:
            got = self._dist[key] = self._leader_pre_now(rules, s, blk)
        return got

    def _leader_pre_now(self, rules: TbfRules, s: TbfState, blk: MoveBlock) -> list[tuple[float, str]]:
        here = blk.here
        side = blk.side
        grid = rules.sc.board.grid
        near = self._extremes(grid, self._foes(rules, s, other(side)), False)
        spots = self._leader_spots(rules, s, side, near)
        n_here = near(here)
        # a hex farther off than the steps he may still take (see move_bound) is out of his reach: not
        # kept, so that his bound is that of the hexes he might reach
        steps = self._steps(rules, s, blk.unit, here)
        dist = grid.distance
        out: list[tuple[float, str]]
        if n_here <= 2:                     # in danger of capture (6.5 C) or a melee (6.5 A): get away
            out = [(20 + n_to - n_here, h) for h, n_to in spots if n_to > n_here and h != here
                   and dist(here, h) <= steps]
        else:
            out = []
            if any(h != here for h, _ in spots):
                mine = self._mine(rules, s, blk.unit)
                if not mine:
                    return []
                far = self._extremes(grid, mine, True)
                f_here = far(here)
                for h, _ in spots:
                    if h != here:
                        gain = f_here - far(h)
                        if gain > 0 and dist(here, h) <= steps:
                            out.append((0.5 * gain, h))
        return out

    def _leader_spots(self, rules: TbfRules, s: TbfState, side: str, near: Extreme) -> list[tuple[str, int]]:
        """The hexes a leader of ``side`` may score a move to (the same for each of his side's leaders this
        decision): hexes holding units, all of them friendly, more than one hex from any enemy unit;
        with that distance, in the order of the position's pieces by hex."""
        key = ("spots", side)
        got = self._dist.get(key)
        if got is None:
            got = []
            known = near.got
            # (hexes with units only, as by_hex lists them: never a lone leader)
            for h in self.where(rules, s)["only"].get(side, ()):
                n_to = known.get(h)
                if n_to is None:
                    n_to = near(h)
                if n_to > 1:
                    got.append((h, n_to))
            self._dist[key] = got
        return got

    def where(self, rules: TbfRules, s: TbfState) -> dict[str, Any]:
        """Where the live units stand this decision, from one pass over them: each side's hexes (sorted,
        each once: the same key for the same hexes at the next decision) and each command's hexes."""
        got = self._dist.get("where")
        if got is None:
            info = self._unit_info
            if info is None:            # unit -> (its side, its command): the order of battle's, made once
                sc = rules.sc
                info = self._unit_info = {u: (sc.side_of[u], d.command) for u, d in sc.units.items()}
            sides: dict[str, dict[str, None]] = {}
            only: dict[str, list[str]] = {}     # side -> the hexes holding its units and no other side's
            by_cmd: dict[str, list[str]] = {}
            for h, ps in rules.queries.units_in(s).items():        # (live units only, by hex)
                if len(ps) == 1:        # (most hexes hold one unit: the loop below, for one)
                    side, cmd = info[ps[0].id]
                    seen = sides.get(side)
                    if seen is None:
                        seen = sides[side] = {}
                    seen[h] = None
                    row = by_cmd.get(cmd)
                    if row is None:
                        by_cmd[cmd] = [h]
                    else:
                        row.append(h)
                    row = only.get(side)
                    if row is None:
                        only[side] = [h]
                    else:
                        row.append(h)
                    continue
                first = info[ps[0].id][0]
                mixed = False
                for p in ps:
                    side, cmd = info[p.id]
                    sides.setdefault(side, {})[h] = None
                    by_cmd.setdefault(cmd, []).append(h)
                    mixed = mixed or side != first
                if not mixed:
                    only.setdefault(first, []).append(h)
            got = self._dist["where"] = {"sides": {k: tuple(sorted(v)) for k, v in sides.items()},
                                         "only": only, "by_command": by_cmd}
        return got

    def _foes(self, rules: TbfRules, s: TbfState, enemy: str) -> tuple[str, ...]:
        return self.where(rules, s)["sides"].get(enemy, ())

    def _mine(self, rules: TbfRules, s: TbfState, uid: str) -> tuple[str, ...]:
        """Where the leader's own people are: subordinate leaders (higher ranks) or his command's units."""
        key = ("mine", uid)
        if key not in self._dist:
            sc, g = rules.sc, s.game
            ldr = sc.leaders[uid]
            if ldr.rank in ("army", "corps", "division"):
                self._dist[key] = tuple(g.piece(x).hex for x, d in sc.leaders.items() if d.superior == uid
                                        and g.piece(x).hex)
            else:
                by_cmd = self.where(rules, s)["by_command"]
                # (only their distances count: the order of the hexes does not matter)
                self._dist[key] = tuple(h for c in {ldr.command, ldr.command.split("-")[0]}
                                        for h in by_cmd.get(c, ()))
        return self._dist[key]

    def _leader_move(self, rules: TbfRules, s: TbfState, a: Move) -> float:
        """Leaders keep up with the units they command (units, or subordinate leaders for the higher
        ranks) and keep out of the enemy's reach: never next to an enemy unit."""
        sc = rules.sc
        grid = sc.board.grid
        foes = self._foes(rules, s, other(a.side))
        here = rules.queries.pieces(s)[a.unit].hex
        assert here is not None, "a leader who moves stands on the map"

        def near(h: str) -> int:
            return self._extreme(grid, foes, h, False)

        if near(a.to) <= 1:
            return 0
        if not rules.queries.units_in(s).get(a.to) or any(sc.side(p.id) != a.side for p in rules.queries.units_in(s)[a.to]):
            return 0                        # a leader alone in a hex is captured by any enemy entering (6.5 C)
        if near(here) <= 2:                 # in danger of capture (6.5 C) or a melee (6.5 A): get away
            return 20 + near(a.to) - near(here) if near(a.to) > near(here) else 0
        mine = self._mine(rules, s, a.unit)
        if not mine:
            return 0
        gain = self._extreme(grid, mine, here, True) - self._extreme(grid, mine, a.to, True)
        return 0.5 * gain if gain > 0 else 0

    def _objective_near(self, rules: TbfRules, s: TbfState, side: str) -> Extreme:
        """Distances to the side's objectives (:meth:`_objectives`), looked up once per decision."""
        key = ("objective near", side)
        got = self._dist.get(key)
        if got is None:
            got = self._dist[key] = self._extremes(rules.sc.board.grid, self._objectives(rules, s, side), False)
        return got

    def _objectives(self, rules: TbfRules, s: TbfState, side: str) -> tuple[str, ...]:
        """The French hold the three towns (10.2.1); the Coalition goes for the French units (10.2.3)."""
        if side == "french":
            got = self._towns
            if got is None:
                towns = rules.sc.board.data.towns
                got = self._towns = tuple(h for t in ("Dürenstein", "Oberloiben", "Unterloiben")
                                          for h in towns.get(t, []))
            return got
        return self._foes(rules, s, "french")

    def _score(self, rules: TbfRules, s: TbfState, a: TbfAction) -> float:
        sc, g = rules.sc, s.game
        grid = sc.board.grid
        if isinstance(a, Activate):
            plan = activation_plan(sc, g, a.leader)
            return 1 + len(plan["units"]) + 0.5 * len(plan["out_of_command"])
        if isinstance(a, ActivateCommand):
            plan = leaderless_activation(sc, g, a.command, a.unit)
            return 1 + len(plan["units"]) + 0.5 * len(plan["out_of_command"])
        if isinstance(a, Attach):
            return 3
        if isinstance(a, OutOfCommand):
            return 2
        if isinstance(a, Fire):
            if any(u in sc.leaders for u in a.units):     # 6.3.5: the shot sends him back two hexes or to capture
                return 0 if any(sc.leaders[u].rank in ("army", "corps") for u in a.units if u in sc.leaders) else 1
            return 10 + sum(sc.units[u].ff or sc.units[u].ff_red for u in a.units) + 5 * (len(a.units) > 1)
        if isinstance(a, CavalryRetreat):
            return 4
        if isinstance(a, Move) and self._ovs is not None and self._ovs[1] == a.unit and a.unit not in self._moved:
            return 12                                     # 4.1.10 A: the overstack must be resolved
        if isinstance(a, Melee):
            try:
                ms = cached_melee_setup(g, tuple(a.units), a.target, rules.sc)
            except RuleViolation:
                return 0
            att = sum(f.mf for f in ms.attackers)
            dfn = sum(f.mf for f in ms.defenders) or 1
            return 8 + att / dfn if att / dfn >= 1.5 else 0
        if isinstance(a, Charge):
            return 9 if not a.next else 9.5
        if isinstance(a, Move):
            if a.unit in self._moved:
                return 0
            if sc.is_leader(a.unit):
                return self._leader_move(rules, s, a)
            targets = self._objectives(rules, s, a.side)
            if not targets:
                return 0
            here = rules.queries.pieces(s)[a.unit].hex
            assert here is not None, "a unit that moves stands on the map"
            d0, d1 = self._extreme(grid, targets, here, False), self._extreme(grid, targets, a.to, False)
            if a.side == "french" and d0 == 0:
                return 0
            gain = d0 - d1
            return gain + 0.01 * (10 - a.mp) if gain > 0 else 0
        return 0


BOTS["greedy"] = GreedyBot
