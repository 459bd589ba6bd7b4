"""What the rules, the bots and the boards ask of a These Brave Fellows game, as one public, typed query
surface (:class:`Queries`): where each piece is, the movement a unit has left and where it can go (6.2),
who may still activate (6.1, 6.1.4), the overstacked hexes (4.1), the victory levels now (10.2), the
scenario's fixed lists (commands, columns, rows). Answers about a state are memoised while that state is
asked about again and again (its candidates, then a check per candidate); answers about the order of
battle or the map are made once."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.core.errors import RuleViolation

from ..scenario import Scenario, default_scenario
from ..turn import TurnData, turn_data
from .exclusive import REAR_GUARD_ROWS, activation_allowed
from .options import OPTIONS
from .position import current_ma, enemy_front, frontal
from .search import Reach, reachable
from .stacking import stacking_problem
from .state import GameState, Impulse, Piece, TbfState, book
from .types import LIVE, Side, Status
from .victory import victory_with_options

__all__ = ["Queries", "Reach"]

#: a position's pieces by id, and its live units in each hex
Index = tuple[dict[str, Piece], dict[str, list[Piece]]]


# keyed by the scenario too (a value, by its content's digest): a game with its own tables moves and
# fronts by its own terrain costs
@lru_cache(maxsize=2048)
def _reach(sc: Scenario, game: GameState, uid: str, l2: int, l3: int, mp_left: int) -> Reach:
    return reachable(sc, game, uid, {2: l2, 3: l3}, mp_left=mp_left)


@lru_cache(maxsize=512)
def _front(sc: Scenario, game: GameState, side: str) -> frozenset[str]:
    return enemy_front(sc, game, side)


class Queries:
    """The questions asked of a Dürenstein game (one per :class:`~.protocol.TbfRules`)."""

    def __init__(self, sc: Scenario | None = None) -> None:
        self.sc: Scenario = sc or default_scenario()
        self.td: TurnData = turn_data()
        #: piece id -> its side (units and leaders)
        self.side_of: dict[str, str] = {**{u: d.side for u, d in self.sc.units.items()},
                                        **{x: d.side for x, d in self.sc.leaders.items()}}
        self._memo_state: TbfState | None = None    # the state the memo below belongs to (held, compared by value)
        self._memo: dict[Any, Any] = {}
        self._rear_rows: dict[str, bool] = {}      # hex -> inside the Rear Guard's rows (9.2 G)
        self._memo_rear: frozenset[str] | None = None     # the hexes of those rows
        self._index_memo: dict[GameState, Index] = {}     # position -> (pieces by id, live units by hex)
        # the last position indexed: (its pieces by hex, its units by hex)
        self._index_last: tuple[dict[str, tuple[Piece, ...]], dict[str, list[Piece]]] = ({}, {})
        self._columns: dict[str, tuple[str, ...]] = {}      # Coalition column -> its units
        self._near: dict[tuple[str, int], tuple[str, ...]] = {}   # (centre, radius) -> hexes, nearest first
        self._coalition: tuple[str, ...] | None = None      # every Coalition unit
        self._overstack_memo: dict[GameState, tuple[str, ...]] = {}   # position -> its overstacked hexes (4.1)
        self._command_lists: dict[Any, Any] = {}    # side -> its commands, their leaders and units
        self._victory_memo: dict[Any, dict[str, Any]] = {}   # (position, what else 10.2 reads) -> its levels

    def forget(self) -> None:
        """Empty the memos about positions (answers are the same afterwards, only worked out again)."""
        self._memo_state, self._memo = None, {}
        self._index_memo.clear()
        self._index_last = ({}, {})
        self._overstack_memo.clear()
        self._victory_memo.clear()

    # --- one state, asked about many times ------------------------------------------------------------
    def memo(self, s: TbfState) -> dict[Any, Any]:
        """Answers about one state (reach of each unit ...), computed once while that state is asked
        about again and again (candidates, then a check per candidate)."""
        if self._memo_state is not s and self._memo_state != s:      # by value (the same object: at once)
            self._memo_state, self._memo = s, {}
        return self._memo

    def index(self, s: TbfState) -> Index:
        """Pieces by id, and the live units in each hex, of state ``s`` (memoised with it)."""
        memo = self.memo(s)
        got = memo.get("index")
        if got is None:
            g = s.game
            got = self._index_memo.get(g)           # by value: states of one position share it
            if got is None:
                if len(self._index_memo) > 64:
                    self._index_memo.clear()
                pos = g.index               # piece id -> its place in the pieces (ids are unique, 2.4)
                by_id = dict(zip(pos, g.pieces)) if len(pos) == len(g.pieces) else {p.id: p for p in g.pieces}
                units = self.sc.units
                by_hex: dict[str, list[Piece]] = {}     # (from the position's pieces by hex, each in the pieces' order)
                # a hex holding the very pieces it held in the last position indexed keeps its live units
                last_in_hex, last_by_hex = self._index_last
                for h, ps in g.by_hex.items():
                    if last_in_hex.get(h) is ps:
                        here = last_by_hex.get(h)
                    else:
                        here = [p for p in ps if p.status in LIVE and p.id in units]
                    if here:
                        by_hex[h] = here
                self._index_last = (g.by_hex, by_hex)
                got = self._index_memo[g] = (by_id, by_hex)
            memo["index"] = got
        return got

    def pieces(self, s: TbfState) -> dict[str, Piece]:
        """Every piece of ``s`` by id."""
        return self.index(s)[0]

    def units_in(self, s: TbfState) -> dict[str, list[Piece]]:
        """The live units (no leaders) in each occupied hex of ``s``."""
        return self.index(s)[1]

    # --- movement (6.2) ------------------------------------------------------------------------------
    def mp_left(self, s: TbfState, uid: str) -> int:
        """The MPs ``uid`` has left this Movement Segment (its MA, fatigued 4.2.4 B, less what it spent)."""
        memo = self.memo(s)
        key = ("mp_left", uid)
        got = memo.get(key)
        if got is None:
            p = self.index(s)[0][uid]
            ma = self.sc.leaders[uid].ma if self.sc.is_leader(uid) else current_ma(self.sc, p)
            got = memo[key] = max(0, ma - book(s.activation, uid).mp)
        return got

    def levels_left(self, imp: Impulse, uid: str) -> tuple[int, int]:
        """The Level 2 and Level 3 hexes ``uid`` may still enter this segment (6.2.3 A; leaders as cavalry)."""
        kind = "cavalry" if self.sc.is_leader(uid) else self.sc.units[uid].kind
        bk = book(imp, uid)
        for k, l2, l3 in imp.levels:
            if k == kind:
                return max(0, l2 - bk.l2), max(0, l3 - bk.l3)
        return 0, 0

    def reach(self, s: TbfState, uid: str) -> Reach:
        """Where ``uid`` can move now and by which cheapest path (6.2; the Rear Guard inside rows XX01-XX06,
        9.2 G); raises :class:`RuleViolation` when it may not move at all (off the map, routed)."""
        memo = self.memo(s)
        key = ("reach", uid)
        if key not in memo:
            l2, l3 = self.levels_left(s.activation, uid)
            try:
                r = _reach(self.sc, s.game, uid, l2, l3, self.mp_left(s, uid))
                if uid in s.rear_guard:         # 9.2 G: the Rear Guard moves only inside rows XX01-XX06
                    rows = self.rear_hexes()
                    r = {h: v for h, v in r.items() if rows.issuperset(v[1][1:])}
                memo[key] = r
            except RuleViolation as exc:
                memo[key] = exc
        got = memo[key]
        if isinstance(got, RuleViolation):
            raise got
        return got

    def reaches_outside_rear_rows(self, s: TbfState, uid: str, dest: str) -> bool:
        """Whether ``dest`` is in reach once the Rear Guard's rows are left aside (9.2 G, for refusals)."""
        l2, l3 = self.levels_left(s.activation, uid)
        try:
            return dest in _reach(self.sc, s.game, uid, l2, l3, self.mp_left(s, uid))
        except RuleViolation:
            return False

    def front(self, g: GameState, side: str) -> frozenset[str]:
        """Every hex in the front of a unit opposed to ``side`` (4.3 C; 6.2.5 A stops a mover there)."""
        return _front(self.sc, g, side)

    def frontal_hexes(self, g: GameState, uid: str) -> frozenset[str]:
        """The hexes in front of ``uid`` where it stands now (4.3 C, 4.2.4 E, 8.4 B): what boards draw."""
        return frontal(self.sc, g, g.piece(uid))

    def rear_hexes(self) -> frozenset[str]:
        """9.2 G: every hex of rows XX01-XX06 (made once)."""
        got = self._memo_rear
        if got is None:
            got = self._memo_rear = frozenset(h for h in self.sc.board.hexes() if self.in_rear_rows(h))
        return got

    def in_rear_rows(self, h: str) -> bool:
        """9.2 G: may a Rear Guard unit act in hex ``h`` (rows XX01-XX06)?"""
        ok = self._rear_rows.get(h)
        if ok is None:
            ok = self._rear_rows[h] = self.sc.board.grid.parse(h)[1] <= REAR_GUARD_ROWS
        return ok

    def artillery_hexes(self, h: str) -> frozenset[str]:
        """6.3.3: the hexes 1 to 4 hexes from ``h`` (the reach of offensive artillery fire; the map never
        changes: made once per hex)."""
        memo = self._command_lists
        key = ("artillery reach", h)
        got = memo.get(key)
        if got is None:
            grid = self.sc.board.grid
            got = memo[key] = frozenset(t for t in grid.within(h, 4) if t != h)
        return got

    # --- command (6.1) -------------------------------------------------------------------------------
    def can_activate(self, s: TbfState, leader: str) -> str | None:
        """Why ``leader`` may not open an activation now (the rule), None when he may."""
        sc, g = self.sc, s.game
        p = g.piece(leader)
        if p.hex is None or p.status != Status.NORMAL:
            return "6.1 B"
        if p.activated or leader in s.activations:
            return "6.1.3 E"
        ok, why = activation_allowed(sc, g, leader)
        return None if ok else why.split(":")[0]

    def leaders_left(self, s: TbfState, side: str) -> list[str]:
        """The leaders of ``side`` who may still open an activation this turn."""
        return [l for l in self.side_leaders(side) if self.can_activate(s, l) is None]

    def side_leaders(self, side: str) -> tuple[str, ...]:
        """The order of battle's leaders of one side, in its order."""
        got = self._command_lists.get(("leaders", side))
        if got is None:
            got = self._command_lists[("leaders", side)] = tuple(l for l, d in self.sc.leaders.items()
                                                                 if d.side == side)
        return got

    def leaderless(self, s: TbfState, side: str) -> list[str]:
        """Commands of ``side`` with units on the map, no leader of their own left (6.1.4), not yet activated
        this turn (6.1.4 B)."""
        g = s.game
        out = []
        for c, own, units in self.commands(side):
            if not own or f"command {c}" in s.activations:
                continue                # no leader of its own (Column VI: Kutusov's) or already activated
            if any(g.piece(x).hex and g.piece(x).status == Status.NORMAL for x in own):
                continue
            if any(g.piece(u).hex and g.piece(u).status in LIVE for u in units):
                out.append(c)           # (units of it on the map)
        return out

    def commands(self, side: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
        """The side's commands in order, each with the leaders of that command and its units (the order of
        battle's: made once)."""
        got = self._command_lists.get(side)
        if got is None:
            sc = self.sc
            cmds = sorted({d.command for d in sc.units.values() if d.side == side})
            got = self._command_lists[side] = tuple(
                (c, tuple(x.id for x in sc.leaders.values() if x.command == c),
                 tuple(u for u, d in sc.units.items() if d.side == side and d.command == c)) for c in cmds)
        return got

    def column(self, col: str) -> list[str]:
        """The units of Coalition column ``col`` (the order of battle's)."""
        got = self._columns.get(col)
        if got is None:             # the order of battle never changes: each column listed once
            got = self._columns[col] = tuple(u for u, d in self.sc.units.items()
                                             if d.side == Side.COALITION and d.command == col)
        return list(got)

    def coalition_units(self) -> tuple[str, ...]:
        """Every Coalition unit of the order of battle (its losses are counted at every end position)."""
        if self._coalition is None:
            self._coalition = tuple(u for u, d in self.sc.units.items() if d.side == Side.COALITION)
        return self._coalition

    def near(self, centre: str, radius: int) -> list[str]:
        """The hexes within ``radius`` of ``centre``, nearest first (then by label)."""
        got = self._near.get((centre, radius))
        if got is None:             # the map never changes: asked at every Reinforcement Phase an odds reaches
            g = self.sc.board.grid
            got = self._near[(centre, radius)] = tuple(sorted(g.within(centre, radius),
                                                              key=lambda h: (g.distance(centre, h), h)))
        return list(got)

    # --- stacking (4.1) and victory (10.2) -------------------------------------------------------------
    def overstacks(self, g: GameState, prev: GameState | None = None) -> list[str]:
        """The overstacked hexes of position ``g`` (4.1), sorted. ``prev``: the position ``g`` was made from
        (the one before the action): where a hex holds the very pieces it held there, its answer is
        taken from there, so only the hexes the action changed are judged again."""
        got = self._overstack_memo.get(g)            # by value: positions keep their hash
        if got is None:
            if len(self._overstack_memo) > 1024:
                self._overstack_memo.clear()
            # a hex with one piece cannot break a stacking limit (4.1): only the crowded hexes are checked
            sc = self.sc
            now = g.by_hex
            before = self._overstack_memo.get(prev) if prev is not None else None
            if before is None or prev is None:
                got = tuple(sorted(h for h, ps in now.items() if len(ps) > 1 and stacking_problem(sc, g, h) is not None))
            else:
                was = prev.by_hex
                got = tuple(sorted([h for h in before if now.get(h) is was.get(h)]
                                   + [h for h, ps in now.items() if len(ps) > 1 and ps is not was.get(h)
                                      and stacking_problem(sc, g, h) is not None]))
            self._overstack_memo[g] = got
        return list(got)

    def victory(self, s: TbfState, g: GameState | None = None) -> dict[str, Any]:
        """10.2 now, with the Rear Guard's shortfall (9.2 G) and Column IV in play (11.4.2)."""
        g = g if g is not None else s.game
        forces = frozenset({"bagration"}) if "optional_11.4" in g.flags and "11.4" in s.options else frozenset()
        key = (g, frozenset(o for o in s.options if o in OPTIONS), forces, s.rear_guard_short, s.regrouped)
        got = self._victory_memo.get(key)
        if got is None:
            # positions that differ in nothing the levels read (a leader's turns out, who moves first) are
            # judged once (exact odds ask it of every end position)
            if len(self._victory_memo) > 4096:
                self._victory_memo.clear()
            got = self._victory_memo[key] = victory_with_options(self.sc, g, key[1], forces, s.rear_guard_short,
                                                                 regrouped=s.regrouped)
        return dict(got)
