"""6.7 Rout, and the checks that may bring it: the rout move of a unit that has just routed (6.7 C-H) or is in
rout when its command activates (6.7 F), the checks of the friends a router runs through (6.7 K), a status
change after a check (6.7 A: a fatigued unit that fails routs at once; a surrender leaves the game), and the
Overstack checks (4.1.9, 4.1.10 B) -- one module, since a failed Overstack check routs a unit and a router
may overstack the hex it stops in."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from ..fatigue import CheckSpec, apply_effect, check_sub
from ..scenario import Scenario
from ..steps import Steps
from ..tables import Tables
from .memo import cached
from .position import current_fv, enemy_front, leader_cvs, leaders_in, nearest, occupants, occupied, refuges
from .stacking import stacking_problem
from .state import GameState, TbfState, book, replace, with_book
from .types import LIVE, SIDES, Status

__all__ = ["RoutPath", "rout_path", "rout_unit", "sub_rout", "apply_status", "overstack_checks",
           "end_of_activation_overstack", "takes_check", "checks_in_turn", "continue_rout", "leaders_follow"]


@dataclass(frozen=True)
class RoutPath:
    path: tuple[str, ...]
    fate: str            # "safe" (next to a friendly town), "exited" (eliminated, 6.7 H), "eliminated" (6.7 D), "moving"
    entered_friends: tuple[str, ...] = ()   # hexes with friends it entered (6.7 K checks)


def rout_path(sc: Scenario, st: GameState, unit_id: str, just_routed: bool = True) -> RoutPath:
    """The rout move (6.7 C-H): twice the MA when it has just routed, else its MA; toward the nearest
    friendly town or entry hex; never into an enemy front; each step as far from the enemy as it can.
    Level 2/3 hexes cost 2 MPs here (our simplification of the 6.7 clarification)."""
    p = st.piece(unit_id)
    if unit_id not in sc.units:
        raise RuleViolation("6.7 A", f"{unit_id} is a leader: only units rout (a leader may go with a routing unit, "
                                     "6.5 D)")
    if p.hex is None:
        raise RuleViolation("6.7", f"{unit_id} is not on the map")
    side = sc.side(unit_id)
    g, board = sc.board.grid, sc.board
    front = enemy_front(sc, st, side)
    enemies = occupied(sc, st, side)[0]                  # hexes of live enemy units
    towns = {h for name, owner in st.control if owner == side for h in board.data.towns.get(name, [])}
    targets = frozenset(refuges(sc, st, side))
    entries = set(getattr(board.data.entry_hexes, side))
    mp = 2 * sc.units[unit_id].ma_f if just_routed else sc.units[unit_id].ma_f
    here, path = p.hex, [p.hex]
    friends: list[str] = []

    def far(h: str) -> int:
        return nearest(g, h, enemies)

    if any(g.distance(here, t) <= 1 for t in towns) and not just_routed:
        return RoutPath(tuple(path), "safe")
    while mp > 0:
        cands: list[tuple[int, int, str, int]] = []
        for n in g.neighbours(here):
            if n in path or n in front or n in enemies:
                continue
            cost, _ = board.step_cost(here, n, sc.tables)
            if cost is None:
                continue
            c = 2 if isinstance(cost, tuple) else cost
            if c > mp:
                continue
            cands.append((nearest(g, n, targets), -far(n), n, c))
        if not cands:
            if len(path) == 1:
                return RoutPath(tuple(path), "eliminated")            # 6.7 D
            break
        cands.sort()
        _, _, n, c = cands[0]
        here, mp = n, mp - c
        path.append(n)
        if occupants(sc, st, n, side):
            friends.append(n)
        if n in entries:
            return RoutPath(tuple(path), "exited", tuple(friends))   # 6.7 H
        if any(g.distance(n, t) <= 1 for t in towns):
            return RoutPath(tuple(path), "safe", tuple(friends))     # 6.7 G
    return RoutPath(tuple(path), "moving", tuple(friends))



def rout_unit(sc: Scenario, st: GameState, uid: str) -> Steps[GameState]:
    """A unit that has just routed moves at once (6.7 C-H). Friends in the hexes it enters check (6.7 K);
    any of them routed by that check runs at once too (6.7 C), after the first router has finished its
    move and in the order their hexes were entered; then any overstack left where the router stopped is
    checked (6.7 K: that check comes after the 6.7 K checks, and only if still needed; 4.1.9).
    A procedure returning the new state."""
    _, path, checks = cached(_rout_start)(sc, st, uid)
    outs: tuple[str, ...] = ()
    if checks:
        outs = yield Sub(("tbf-6.7K", sc.tables.key, checks), partial(checks_in_turn, sc.tables, checks, "6.7 K"),
                         rule="6.7 K", label="checks of the units the router runs through")
    st, newly_routed, end = cached(_rout_moved)(sc, st, uid, tuple(outs))
    if end is not None:
        st = yield from leaders_follow(sc, st, path.path[0], end, uid, "rout")     # 6.5 D
    for other, where in newly_routed:                                   # 6.7 K failure, 6.7 A: rout now
        if st.piece(other).hex == where and st.piece(other).status == Status.ROUTED:
            st = yield sub_rout(sc, st, other)
    if end is not None and st.piece(uid).hex == end:
        st = yield from overstack_checks(sc, st, end)
    return st


def _rout_moved(sc: Scenario, st: GameState, uid: str, outs: tuple[str, ...]
                ) -> tuple[GameState, tuple[tuple[str, str | None], ...], str | None]:
    """The position once a fresh router has run (6.7 C-H) and the friends it ran through took their checks
    with statuses ``outs`` (6.7 K): (the position, the friends those checks routed with their hexes, in
    the order entered, the router's last hex or None). A pure function of its arguments (memoised: exact
    odds replay a procedure from its start for every branch)."""
    st, path, checks = cached(_rout_start)(sc, st, uid)
    newly_routed: list[tuple[str, str | None]] = []
    for spec, status in zip(checks, outs):
        if status == spec.status:
            continue
        if status == Status.SURRENDERED:
            st = st.with_piece(spec.unit, status=Status.SURRENDERED, hex=None)
            continue
        st = st.with_piece(spec.unit, status=status)
        if status == Status.ROUTED:
            newly_routed.append((spec.unit, st.piece(spec.unit).hex))   # runs at once, in rout_unit (6.7 C)
    if path.fate in ("eliminated", "exited"):
        st = st.with_piece(uid, status=Status.ELIMINATED, hex=None)          # 6.7 D, 6.7 H
        end: str | None = None
    else:
        end = path.path[-1]
        st = st.with_piece(uid, hex=end)
    return st, tuple(newly_routed), end


def _rout_start(sc: Scenario, st: GameState, uid: str) -> tuple[GameState, RoutPath, tuple[CheckSpec, ...]]:
    """What a fresh router's move starts from (6.7 C, 6.7 K): the state with it routed, its rout path and
    the checks of the friends it runs through. A pure function of its arguments (memoised: exact odds
    replay a procedure from its start for every branch)."""
    st = st.with_piece(uid, status=Status.ROUTED)
    path = cached(rout_path)(sc, st, uid, True)
    checks = tuple(CheckSpec("hex_entered_by_router", current_fv(sc, q), q.status, leader_cvs(sc, st, q.id), unit=q.id)
                   for h in path.entered_friends for q in occupants(sc, st, h, sc.side(uid))
                   if q.id != uid and takes_check(sc.tables, "hex_entered_by_router", q.status))
    return st, path, checks


def takes_check(tables: Tables, check: str, status: str) -> bool:
    """Whether a unit in this status has anything at stake in the check: its status may take it and
    passing or failing may change it (per the tables file). A routed unit on the shipped Overstack or
    Hex Entered rows has nothing at stake, so no die is rolled for it; a player's table may differ."""
    cd = tables.check(check)
    if status not in cd.allowed:
        return False
    return any(apply_effect(status, eff.get(status)) != status for eff in (cd.passed, cd.failed))


def checks_in_turn(tables: Tables, specs: Iterable[CheckSpec], rule: str) -> Steps[tuple[str, ...]]:
    """Several units' checks one after the other; returns their statuses (memoised as one step)."""
    out = []
    for spec in specs:
        o = yield check_sub(tables, spec, rule=rule)
        out.append(o.status)
    return tuple(out)


def overstack_checks(sc: Scenario, st: GameState, hex_: str, rule: str = "4.1.9", side: str | None = None
                     ) -> Steps[GameState]:
    """4.1.9: every unit of an overstacked hex checks at once (failing: fatigued, or routed if already
    fatigued, 6.7 A). All the stack checks first; then units routed by a check run at once (6.7 C).
    ``rule`` is 4.1.10 B for the check at the end of the Activation Phase. A procedure."""
    if stacking_problem(sc, st, hex_) is None:
        return st
    routed: list[str] = []
    for q in occupants(sc, st, hex_, side):
        if not takes_check(sc.tables, "overstack", q.status):
            continue
        out = yield check_sub(sc.tables, CheckSpec("overstack", current_fv(sc, q), q.status,
                                                   leader_cvs(sc, st, q.id), unit=q.id), rule=rule)
        if out.status == Status.ROUTED:
            routed.append(q.id)
        elif out.status != q.status:
            st = yield from apply_status(sc, st, q.id, out.status)
    for uid in routed:
        if st.piece(uid).hex is not None and st.piece(uid).status != Status.ROUTED:
            st = yield sub_rout(sc, st, uid)
    return st


def end_of_activation_overstack(sc: Scenario, st: GameState, side: str) -> Steps[GameState]:
    """4.1.10 B: at the end of a side's Activation Phase, every unit of that side still in an overstacked
    hex takes an Overstack check (each turn it stays overstacked). A procedure returning the new state."""
    if side not in SIDES:
        raise RuleViolation("4.1.10 B", f"side must be french or coalition, not {side!r}")
    hexes = sorted({p.hex for p in st.on_map() if p.hex is not None and not sc.is_leader(p.id) and sc.side(p.id) == side
                    and p.status in LIVE})
    for h in hexes:
        problem = stacking_problem(sc, st, h)
        if problem is not None:
            yield Log("4.1.10 B", f"{h} is still overstacked at the end of the {side} Activation Phase ({problem})")
            st = yield from overstack_checks(sc, st, h, rule="4.1.10 B", side=side)
    return st


def apply_status(sc: Scenario, st: GameState, uid: str, status: str) -> Steps[GameState]:
    """Set a unit's status after a check; routing units run (6.7 C), surrendered ones leave the game.
    A procedure returning the new state."""
    p = st.piece(uid)
    if status == p.status:
        return st
    if status == Status.SURRENDERED:
        return st.with_piece(uid, status=Status.SURRENDERED, hex=None)
    if status == Status.ROUTED:
        return (yield sub_rout(sc, st, uid))
    return st.with_piece(uid, status=status)


def leaders_follow(sc: Scenario, st: GameState, start: str, end: str, unit: str, how: str = "retreat"
                  ) -> Steps[GameState]:
    """6.5 D: each leader of ``unit``'s side in ``start`` may go with it to ``end`` as it retreats or routs
    (``how``), the owner's choice. The first option is the sensible one: to go when no friendly unit is left
    in his hex (else he would stand alone, and an enemy entering would capture him, 6.5 C), to stay with
    the units still there otherwise. A procedure returning the new state."""
    if start == end:
        return st
    side = sc.side(unit)
    for ldr in leaders_in(sc, st, start):
        if sc.side(ldr) != side:
            continue
        alone = not occupants(sc, st, start, side)
        pick = yield Choose(("go", "stay") if alone else ("stay", "go"), rule="6.5 D", player=side,
                            label=f"{ldr}: go with {unit} ({how}s to {end})?")
        if pick == "go":
            st = st.with_piece(ldr, hex=end)
            yield Log("6.5 D", f"{ldr} goes with {unit} to {end}")
    return st


def sub_rout(sc: Scenario, st: GameState, uid: str) -> Sub:
    return Sub(("tbf-rout", sc.key, st, uid), partial(rout_unit, sc, st, uid), rule="6.7 C", label=f"{uid} routs")



def continue_rout(sc: Scenario, s: TbfState, uid: str) -> Steps[TbfState]:
    """6.7 F: a unit in rout when its command activates rout-moves at its MA, then its movement is over."""
    g = s.game
    path = rout_path(sc, g, uid, just_routed=False)
    yield Log("6.7 F", f"{uid} is routed and rout-moves {'-'.join(path.path)} ({path.fate})")
    if path.fate in ("eliminated", "exited"):
        g = g.with_piece(uid, status=Status.ELIMINATED, hex=None)
    elif path.path[-1] != g.piece(uid).hex:
        start = path.path[0]                # (where it stands: the rout path starts there)
        g = g.with_piece(uid, hex=path.path[-1])
        g = yield from leaders_follow(sc, g, start, path.path[-1], uid, "rout")     # 6.5 D
        g = yield from overstack_checks(sc, g, path.path[-1])
    imp = with_book(s.activation, replace(book(s.activation, uid), done=True, moved=True))
    return replace(s, game=g, impulse=imp)
