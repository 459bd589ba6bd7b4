"""6.2 Movement and 4.3 facing in the game: a move on the map (6.2, capturing lone leaders 6.5 C, the Strong
Point 8.4 C, Column II's lines 9.5.2, the overstack check at the end 4.1.7-4.1.9), whether a unit may move
now (6.2.1, 6.2.4 B, 6.2.8 L, 6.7 F, 9.2 I), the check and the action of a move and of a facing change, the
4.1.10 A overstack that keeps a Movement Segment open, and each unit's moves and facings as candidate
blocks (one movement search each, spelt out only when asked). The search itself is :mod:`.search`."""
from __future__ import annotations

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from ..scenario import Scenario
from ..steps import Steps
from .actions import EndSegment, Face, Move
from .activation import check_actor, may_activate
from .leaders import capture_leaders
from .position import occupy
from .queries import Queries, Reach
from .rout import overstack_checks
from .search import reachable
from .stacking import stacking_problem, stacking_problem_with
from .state import GameState, Impulse, TbfState, UnitTurn, book, replace, with_book
from .types import ACTING, GONE, Segment, Side, Status

__all__ = ["move_action", "MoveBlock", "FaceBlock", "moving", "check_move", "check_face", "finish_mover", "do_move",
           "do_face", "legal_move", "overstack_movers", "check_end_of_movement"]


def move_action(sc: Scenario, st: GameState, uid: str, dest: str, level_hexes: tuple[tuple[int, int], ...] = (),
                facing: int | None = None, bridge_intact: bool = False, mp_left: int | None = None
                ) -> Steps[GameState]:
    """Move a unit to ``dest`` by its cheapest legal path (6.2), capturing lone enemy leaders on the way
    (6.2.5 B, 6.5 C), removing the Strong Point when the Elite leaves it (8.4 C), noting Column II
    crossing the light blue line (9.5.2) or coming within four hexes of the French at-start units
    (9.5.2 C), then checking an overstack at the end (4.1.7, 4.1.9). ``mp_left``: the MPs the unit has left
    this segment (6.2.1; None: its whole MA), the same search the game's check of the move made.
    A procedure returning the new state."""
    may_activate(sc, st, (uid,))
    if uid in sc.units and sc.units[uid].command == "VI":
        raise RuleViolation("9.2 I", f"{uid} belongs to Column VI, which never moves unless a combat retreat forces it")
    r = reachable(sc, st, uid, dict(level_hexes), bridge_intact, mp_left)
    dest = sc.board.check_hex(dest, "6.2")
    if dest not in r or dest == st.piece(uid).hex:
        raise RuleViolation("6.2.1", f"{uid} cannot reach {dest} this Movement Segment")
    _, path = r[dest]
    side = sc.side(uid)
    g, b = sc.board.grid, sc.board
    for h in path[1:]:
        st = yield from capture_leaders(sc, st, h, side)                       # 6.2.5 B, 6.5 C
    if uid == "elite" and st.piece(uid).hex == b.data.strong_point:
        st = st.with_flag("strong_point_removed")                               # 8.4 C
    if uid in sc.units and sc.units[uid].command == "II" and side == Side.COALITION:
        if any(frozenset(pair) in b.light_blue for pair in zip(path, path[1:])):
            st = st.with_flag("light_blue_crossed")                            # 9.5.2
        at_start = [st.piece(f).hex for f in sc.file.setup.french if st.piece(f).hex]
        if any(g.distance(dest, h) <= 4 for h in at_start):
            st = st.with_flag("alert")                                          # 9.5.2 C
    st = st.with_piece(uid, hex=dest, activated=True, facing=st.piece(uid).facing if facing is None else facing % 6)
    st = occupy(sc, st, dest, side)
    st = yield from overstack_checks(sc, st, dest)
    return st



# ------------------------------------------------------------------------------------------------
# Candidate blocks: one unit's moves, one unit's facings
# ------------------------------------------------------------------------------------------------
class MoveBlock:
    """The moves of one unit or leader this Movement Segment, from its one movement search (6.2), made
    when first asked for: :attr:`reach` is hex -> (MPs, cheapest path); spelt out in hex order, its own
    hex left out. (A plain class with slots, made for every candidate list: never written after it is
    made; compared and hashed by identity.)"""

    __slots__ = ("side", "unit", "here", "queries", "state")

    def __init__(self, side: str, unit: str, here: str, queries: Queries, state: TbfState) -> None:
        self.side, self.unit, self.here, self.queries, self.state = side, unit, here, queries, state

    def __repr__(self) -> str:
        return f"MoveBlock(side={self.side!r}, unit={self.unit!r}, here={self.here!r})"

    @property
    def reach(self) -> Reach:
        try:
            return self.queries.reach(self.state, self.unit)
        except RuleViolation:
            return {}

    def actions(self) -> list[Move]:
        side, uid, here = self.side, self.unit, self.here
        return [Move(side, uid, h, path, mp) for h, (mp, path) in sorted(self.reach.items()) if h != here]

    def move(self, h: str) -> Move:
        mp, path = self.reach[h]
        return Move(self.side, self.unit, h, path, mp)


class FaceBlock:
    """The facing changes of one unit (4.3): every hexside but the one it faces, in hexside order (a plain
    class with slots, never written after it is made, like :class:`MoveBlock`)."""

    __slots__ = ("side", "unit", "facing")

    def __init__(self, side: str, unit: str, facing: int) -> None:
        self.side, self.unit, self.facing = side, unit, facing

    def __repr__(self) -> str:
        return f"FaceBlock(side={self.side!r}, unit={self.unit!r}, facing={self.facing})"

    def actions(self) -> list[Face]:
        return [Face(self.side, self.unit, f) for f in range(6) if f != self.facing]


# ------------------------------------------------------------------------------------------------
# Checks and actions
# ------------------------------------------------------------------------------------------------
def moving(ctx: Queries, s: TbfState, uid: str, what: str) -> UnitTurn:
    """The unit's book when it may move (or turn, or charge) now; else the RuleViolation saying why.
    Asked once per unit and state (every candidate move of a unit asks the same question)."""
    memo = ctx.memo(s)
    key = ("moving", uid, what)
    got = memo.get(key)
    if got is None:
        try:
            got = _moving_now(ctx, s, uid, what)
        except RuleViolation as exc:
            got = exc
        memo[key] = got
    if isinstance(got, RuleViolation):
        raise got.with_traceback(None)
    return got


def _moving_now(ctx: Queries, s: TbfState, uid: str, what: str) -> UnitTurn:
    check_actor(ctx, s, uid, what, leaders_ok=(what == "move"))
    sc = ctx.sc
    p = ctx.pieces(s)[uid]
    if p.hex is None or p.status in GONE:
        raise RuleViolation("6.2.1", f"{uid} is not on the map")
    if uid in sc.units and sc.units[uid].command == "VI":
        raise RuleViolation("9.2 I", f"{uid} belongs to Column VI, which never moves unless forced to retreat")
    if p.status == Status.ROUTED:
        raise RuleViolation("6.7 F", f"{uid} is routed: it rout-moves at the start of the Movement Segment")
    bk = book(s.activation, uid)
    if bk.charged:
        raise RuleViolation("6.2.8 L", f"{uid} has charged: its movement is over")
    if bk.done:
        raise RuleViolation("6.2.4 B", f"{uid} has finished its movement this segment")
    return bk


def check_move(ctx: Queries, s: TbfState, a: Move) -> None:
    moving(ctx, s, a.unit, "move")
    sc, g = ctx.sc, s.game
    dest = sc.board.check_hex(a.to, "6.2.1")
    side_of = ctx.side_of
    side = side_of[a.unit]
    if any(side_of[p.id] != side for p in ctx.units_in(s).get(dest, ())):
        raise RuleViolation("6.2.5 B", f"{dest} is occupied by the enemy")
    r = ctx.reach(s, a.unit)
    here = ctx.pieces(s)[a.unit].hex
    if dest == here:
        raise RuleViolation("6.2.1", f"{a.unit} is already in {dest}")
    if dest not in r and a.unit in s.rear_guard and ctx.reaches_outside_rear_rows(s, a.unit, dest):
        raise RuleViolation("9.2 G", f"{a.unit} is in the Rear Guard: it stays inside hex rows XX01-XX06")
    if dest not in r:
        raise RuleViolation("6.2.1", f"{a.unit} cannot reach {dest} with the {ctx.mp_left(s, a.unit)} MPs it has "
                                     f"left (terrain 6.2.2, levels 6.2.3, enemy fronts 6.2.5 A, 9.5.1)")
    mp, path = r[dest]
    if a.path and tuple(a.path) != path:
        raise RuleViolation("6.2.1", f"{a.unit} moves by its cheapest legal path {'-'.join(path)}, not "
                                     f"{'-'.join(a.path)}")
    if a.mp not in (-1, mp):
        raise RuleViolation("6.2.2", f"the move to {dest} costs {mp} MPs, not {a.mp}")
    problem = None
    if a.unit in sc.units and ctx.units_in(s).get(dest):
        memo = ctx.memo(s)
        key = ("stack", a.unit, dest)
        if key not in memo:
            memo[key] = stacking_problem_with(sc, g, dest, a.unit)
        problem = memo[key]
        if problem is not None:
            raise RuleViolation(problem.split(":")[0], f"{a.unit} may not end its move in {dest}: {problem} (4.1.7)")


def check_face(ctx: Queries, s: TbfState, a: Face) -> None:
    bk = moving(ctx, s, a.unit, "change facing")
    if isinstance(a.facing, bool) or not isinstance(a.facing, int) or not 0 <= a.facing <= 5:
        raise RuleViolation("4.3 B", f"a facing is a hexside 0..5 (N, NE, SE, S, SW, NW), not {a.facing!r}")
    if s.game.piece(a.unit).facing == a.facing:
        raise RuleViolation("4.3 B", f"{a.unit} already faces that hexside")
    fc = ctx.td.facing_change
    if bk.facings >= fc.per_segment:
        raise RuleViolation("4.3", f"{a.unit} has already changed facing this Movement Segment "
                                   f"(once per segment, {fc.source})")
    if ctx.mp_left(s, a.unit) < fc.mp:
        raise RuleViolation("4.3", f"{a.unit} has no MP left to change facing")


def finish_mover(imp: Impulse, uid: str) -> Impulse:
    if imp.mover and imp.mover != uid:
        imp = with_book(imp, replace(book(imp, imp.mover), done=True))       # 6.2.4 B
    return replace(imp, mover=uid)


def do_move(ctx: Queries, s: TbfState, a: Move) -> Steps[TbfState]:
    sc = ctx.sc
    g = s.game
    mp, path = ctx.reach(s, a.unit)[a.to]
    l2, l3 = ctx.levels_left(s.activation, a.unit)
    bk = book(s.activation, a.unit)
    used2 = used3 = 0
    for x, y in zip(path, path[1:]):
        cost, _ = sc.board.step_cost(x, y, sc.tables)
        if isinstance(cost, tuple):
            used2 += cost[1] == 2
            used3 += cost[1] == 3
    if sc.is_leader(a.unit):
        g = g.with_piece(a.unit, hex=a.to)
    else:
        g = yield from move_action(sc, g, a.unit, a.to, ((2, l2), (3, l3)), mp_left=ctx.mp_left(s, a.unit))
    stop = a.to in ctx.front(s.game, sc.side(a.unit))                       # 6.2.5 A
    imp = finish_mover(s.activation, a.unit)
    imp = with_book(imp, replace(bk, mp=bk.mp + mp, l2=bk.l2 + used2, l3=bk.l3 + used3, moved=True,
                                  done=stop or bk.done))
    yield Log("6.2", f"{a.unit} moves {'-'.join(path)} for {mp} MPs" + (" and stops in an enemy front (6.2.5 A)"
                                                                          if stop else ""))
    return replace(s, game=g, impulse=imp)


def do_face(ctx: Queries, s: TbfState, a: Face) -> Steps[TbfState]:
    bk = book(s.activation, a.unit)
    imp = finish_mover(s.activation, a.unit)
    imp = with_book(imp, replace(bk, facings=bk.facings + 1, mp=bk.mp + ctx.td.facing_change.mp))
    yield Log("4.3", f"{a.unit} faces {ctx.sc.board.grid.direction_names[a.facing]}")
    return replace(s, game=s.game.with_piece(a.unit, facing=a.facing), impulse=imp)


def legal_move(ctx: Queries, s: TbfState, a: Move) -> bool:
    """Whether move ``a`` of the side moving now passes its check (the Movement Segment of its impulse)."""
    try:
        check_move(ctx, s, a)
    except RuleViolation:
        return False
    return True


def overstack_movers(ctx: Queries, s: TbfState) -> tuple[str, str] | None:
    """An overstacked hex and a unit of it that may still move this segment to a hex where it stacks."""
    memo = ctx.memo(s)
    if "overstack_movers" in memo:
        return memo["overstack_movers"]
    got = None
    imp, sc = s.activation, ctx.sc
    by_hex = ctx.units_in(s)
    for h in ctx.overstacks(s.game):
        for p in by_hex.get(h, ()):
            if p.id not in imp.units or sc.side(p.id) != imp.side or p.status not in ACTING:
                continue
            bk = book(imp, p.id)
            if bk.done or bk.charged or sc.units[p.id].command == "VI":
                continue
            try:
                r = ctx.reach(s, p.id)
            except RuleViolation:
                continue
            for dest in sorted(r):
                if dest != h and legal_move(ctx, s, Move(imp.side, p.id, dest)):
                    got = (h, p.id)
                    break
            if got:
                break
        if got:
            break
    memo["overstack_movers"] = got
    return got


def check_end_of_movement(ctx: Queries, s: TbfState, a: EndSegment) -> None:
    """4.1.10 A: a side's Movement Segment may not end while one of its hexes stays overstacked and a
    unit there that this activation moves could still leave it."""
    if s.activation.segment != Segment.MOVEMENT:
        return
    stuck = overstack_movers(ctx, s)
    if stuck:
        h, uid = stuck
        raise RuleViolation("4.1.10 A", f"{h} is still overstacked ({stacking_problem(ctx.sc, s.game, h)}) and "
                                        f"{uid} can still move out: resolve it before the Movement Segment ends")
