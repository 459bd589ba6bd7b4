"""6.6 Retreats: where a retreating stack may go, best first (6.6 A-B), and the retreat as a procedure with its
checks (6.6 C-D); optional 11.8, cavalry falling back before the Defensive Fire Segment, in the game."""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log

from ..fatigue import CheckSpec, check_sub
from ..scenario import Scenario
from ..steps import Steps
from .actions import CavalryRetreat
from .position import current_fv, distance_to, enemy_front, frontal, leader_cvs, occupants, occupy, refuges
from .queries import Queries
from .rout import apply_status, leaders_follow
from .state import GameState, TbfState, replace
from .types import Status, other

__all__ = ["retreat_options", "RetreatOutcome", "retreat", "cavalry_retreat_before_combat", "cavalry_retreat_action",
           "check_cavalry_retreat", "do_cavalry_retreat", "cavalry_retreat_candidates"]


def retreat_options(sc: Scenario, st: GameState, unit_ids: tuple[str, ...], from_hex: str | None
                    ) -> list[tuple[str, int, str]]:
    """Hexes a retreating stack may enter, best first: (hex, rank, rule). Rank 0 = toward the nearest
    friendly town or entry hex and out of enemy fronts (6.6 A); then the order of 6.6 B: 1 = empty or
    friendly and out of enemy fronts, 2 = friendly-occupied in an enemy front, 3 = empty in an enemy front.
    ``from_hex`` None (the units are off the map): refused (6.6)."""
    if not unit_ids or from_hex is None:
        raise RuleViolation("6.6", f"{', '.join(unit_ids) or 'no unit'}: a retreat starts from a hex of the map")
    for uid in unit_ids:
        if uid not in sc.units:
            sc.side(uid)                                  # (no such piece: RuleViolation 2.4)
            raise RuleViolation("6.6", f"{uid} is a leader: units retreat (a leader may go with them, 6.5 D)")
        if st.piece(uid).hex != from_hex:
            raise RuleViolation("6.6", f"{uid} is not in {from_hex}: a retreating stack is the units of one hex")
    side = sc.side(unit_ids[0])
    g, board = sc.board.grid, sc.board
    front = enemy_front(sc, st, side)
    targets = refuges(sc, st, side)
    d0 = distance_to(sc, from_hex, targets)
    out: list[tuple[str, int, str]] = []
    for h in g.neighbours(from_hex):
        if occupants(sc, st, h, other(side)):
            continue
        cost, _ = board.step_cost(from_hex, h, sc.tables)
        if cost is None:
            continue
        friendly = bool([q for q in occupants(sc, st, h, side) if q.id not in unit_ids])
        toward = distance_to(sc, h, targets) < d0
        if h not in front:
            rank, rule = (0, "6.6 A") if toward else (1, "6.6 B")
        elif friendly:
            rank, rule = 2, "6.6 B"
        else:
            rank, rule = 3, "6.6 B"
        out.append((h, rank, rule))
    out.sort(key=lambda x: (x[1], x[0]))
    return out


@dataclass(frozen=True)
class RetreatOutcome:
    hex: str | None                        # where the stack ends (None: did not move)
    units: tuple[tuple[str, str], ...]     # (unit, status afterwards)
    into_front: bool = False

    def __str__(self) -> str:
        where = f"to {self.hex}" if self.hex else "could not retreat"
        return f"{where}: " + ", ".join(f"{u} {s}" for u, s in self.units)


def retreat(sc: Scenario, st: GameState, unit_ids: tuple[str, ...], from_hex: str | None) -> Steps[RetreatOutcome]:
    """6.6 as a procedure: the owner picks among the best hexes; checks for an enemy front (6.6 D) or
    for being unable to retreat (6.6 C, after becoming fatigued)."""
    opts = retreat_options(sc, st, unit_ids, from_hex)
    results: list[tuple[str, str]] = []
    if not opts:
        for uid in unit_ids:
            p = st.piece(uid)
            status = Status.FATIGUED if p.status == Status.NORMAL else p.status
            fv = sc.units[uid].fv_f
            out = yield check_sub(sc.tables, CheckSpec("unable_to_retreat", fv, status, leader_cvs(sc, st, uid),
                                                       unit=uid), rule="6.6 C")
            results.append((uid, out.status))
        return RetreatOutcome(None, tuple(results))
    best = opts[0][1]
    choices = tuple(h for h, r, _ in opts if r == best)
    h = yield Choose(choices, rule=opts[0][2], player=sc.side(unit_ids[0]), label="retreat into which hex?")
    into = best >= 2
    for uid in unit_ids:
        p = st.piece(uid)
        if into:
            out = yield check_sub(sc.tables, CheckSpec("retreat_into_enemy_front", current_fv(sc, p), p.status,
                                                       leader_cvs(sc, st, uid), unit=uid), rule="6.6 D")
            results.append((uid, out.status))
        else:
            results.append((uid, p.status))
    return RetreatOutcome(h, tuple(results), into)


def cavalry_retreat_before_combat(sc: Scenario, st: GameState, uid: str) -> list[tuple[str, ...]]:
    """Optional 11.8: at the start of the Defensive Fire Segment, non-phasing cavalry in Level 0/1, town or
    vineyard ground that sits in the front of an adjacent enemy infantry or artillery unit may fall back two
    hexes, following the retreat priorities (6.6); on a road in Level 2 only along the road. Returns the
    possible two-hex paths (empty when it may not)."""
    p = st.piece(uid)
    if uid not in sc.units or sc.units[uid].kind != "cavalry" or p.hex is None or p.status == Status.ROUTED:
        return []
    b, g = sc.board, sc.board.grid
    side = sc.side(uid)
    threatened = any(q.hex and g.distance(q.hex, p.hex) == 1 and sc.side(q.id) != side and not sc.is_leader(q.id)
                     and sc.units[q.id].kind in ("infantry", "artillery") and p.hex in frontal(sc, st, q)
                     for q in st.on_map())
    if not threatened:
        return []
    on_level2_road = b.level(p.hex) == 2 and any(b.road(p.hex, n) for n in g.neighbours(p.hex))
    if b.level(p.hex) > 1 and not on_level2_road:
        return []
    paths: list[tuple[tuple[int, int], tuple[str, str]]] = []
    for h1, r1, _ in retreat_options(sc, st, (uid,), p.hex):
        if on_level2_road and not b.road(p.hex, h1):
            continue
        st1 = st.with_piece(uid, hex=h1)
        for h2, r2, _ in retreat_options(sc, st1, (uid,), h1):
            if h2 == p.hex or (on_level2_road and not b.road(h1, h2)):
                continue
            paths.append(((r1, r2), (h1, h2)))
    if not paths:
        return []
    best = min(r for r, _ in paths)
    return sorted(path for r, path in paths if r == best)



def cavalry_retreat_action(sc: Scenario, st: GameState, uid: str, path: tuple[str, ...]) -> Steps[GameState]:
    """Optional 11.8 B-D: non-phasing cavalry falls back two hexes before the Defensive Fire Segment, by
    one of the paths :func:`rules.cavalry_retreat_before_combat` allows (6.6 priorities); a step into an
    enemy front takes the 6.6 D check. A procedure returning the new state."""
    paths = cavalry_retreat_before_combat(sc, st, uid)
    if tuple(path) not in paths:
        allowed = "; ".join("-".join(x) for x in paths) or "none"
        raise RuleViolation("11.8 B", f"{uid} may not fall back by {'-'.join(path)} (allowed: {allowed})")
    start = st.piece(uid).hex
    assert start is not None, "a piece off the map has no path to fall back by (refused above)"
    here = start
    side = sc.side(uid)
    for h in path:
        rank = {x: r for x, r, _ in retreat_options(sc, st, (uid,), here)}[h]
        st = st.with_piece(uid, hex=h)
        if rank >= 2:                                                   # 6.6 D, by 11.8 D
            p = st.piece(uid)
            out = yield check_sub(sc.tables, CheckSpec("retreat_into_enemy_front", current_fv(sc, p), p.status,
                                                       leader_cvs(sc, st, uid), unit=uid), rule="6.6 D")
            st = yield from apply_status(sc, st, uid, out.status)
            if st.piece(uid).hex != h:
                return st
        here = h
    yield Log("11.8 B", f"{uid} falls back {'-'.join(path)} before the Defensive Fire Segment")
    st = yield from leaders_follow(sc, st, start, here, uid)                  # 6.5 D
    return occupy(sc, st, here, side)



# ------------------------------------------------------------------------------------------------
# In the game (optional 11.8)
# ------------------------------------------------------------------------------------------------
def cavalry_retreat_candidates(ctx: Queries, s: TbfState, side: str) -> list[CavalryRetreat]:
    """11.8 B: every fall-back path of each cavalry unit of ``side`` that has not fallen back yet."""
    sc, g, imp = ctx.sc, s.game, s.activation
    out: list[CavalryRetreat] = []
    for p in g.on_map():
        if p.id in sc.units and sc.side(p.id) == side and p.id not in imp.evaded and sc.units[p.id].kind == "cavalry":
            out += [CavalryRetreat(side, p.id, path) for path in cavalry_retreat_before_combat(sc, g, p.id)]
    return out


def check_cavalry_retreat(ctx: Queries, s: TbfState, a: CavalryRetreat) -> None:
    sc, imp = ctx.sc, s.activation
    if "11.8" not in s.options:
        raise RuleViolation("11.8", "cavalry retreat before combat is an optional rule not chosen for this game")
    if a.unit not in sc.units or sc.side(a.unit) != a.side or sc.units[a.unit].kind != "cavalry":
        raise RuleViolation("11.8 B", f"{a.unit} is not a {a.side} cavalry unit")
    if imp.defensive_fired:
        raise RuleViolation("11.8 B", "cavalry falls back only at the start of the Defensive Fire Segment, "
                                      "before any defensive fire")
    if a.unit in imp.evaded:
        raise RuleViolation("11.8 B", f"{a.unit} has already fallen back this segment")
    paths = cavalry_retreat_before_combat(sc, s.game, a.unit)
    if tuple(a.path) not in paths:
        allowed = "; ".join("-".join(x) for x in paths) or "none (11.8 B-C conditions not met)"
        raise RuleViolation("11.8 B", f"{a.unit} may not fall back by {'-'.join(a.path)}; allowed: {allowed}")


def do_cavalry_retreat(ctx: Queries, s: TbfState, a: CavalryRetreat) -> Steps[TbfState]:
    g = yield from cavalry_retreat_action(ctx.sc, s.game, a.unit, tuple(a.path))
    return replace(s, game=g, impulse=replace(s.activation, evaded=s.activation.evaded + (a.unit,)))
