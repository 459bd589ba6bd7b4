"""6.5 Leader Casualty, and the other ways a leader leaves the map: killed or wounded after a fight (6.5 A,
his subordinates checking when he is killed, 6.5 B), captured alone by an enemy entering his hex (6.5 C),
falling back after his own defensive shot (6.3.5), and coming back from a wound (6.5 A)."""
from __future__ import annotations

from functools import partial

from engine.core.procedure import Choose, Log, Roll, chain

from ..fatigue import CheckSpec, check_sub
from ..fire import LeaderFate
from ..scenario import Scenario
from ..steps import Steps
from .memo import cached
from .position import current_fv, leader_cvs, leaders_in
from .queries import Queries
from .rout import apply_status
from .state import GameState, TbfState, replace
from .types import LIVE, Status

__all__ = ["leader_fate", "leader_loss", "capture_leaders", "leader_fire_retreat", "roll_wounds", "wounded_return"]


def leader_fate(sc: Scenario, st: GameState, ldr: str, fate: LeaderFate) -> GameState:
    if fate.fate == "killed":
        return st.with_piece(ldr, status=Status.KILLED, hex=None)
    if fate.fate == "wounded":
        return st.with_piece(ldr, status=Status.WOUNDED, hex=None)
    return st


def leader_loss(sc: Scenario, st: GameState, ldr: str, where: str, rule: str = "6.5 B") -> Steps[GameState]:
    """6.5 B: a killed leader's subordinates in or next to his hex check for leader loss (6.5 C: the
    same check for a captured leader's subordinates next to him).

    A :func:`~engine.core.procedure.chain` of one step per unit he commands on the map: a unit's check can
    rout it, and the exact odds carry each position reached into the next unit's check once (play and
    replay ask the same questions in the same order)."""
    mine = cached(_commanded)(sc, ldr)
    units = tuple(p.id for p in st.on_map() if p.id in mine)
    return (yield chain(("tbf-leader-loss", sc.key, ldr, where, rule, units), st,
                        tuple(partial(_loss_check, sc, ldr, where, rule, u) for u in units), rule=rule,
                        label=f"{ldr}'s units check"))


def _commanded(sc: Scenario, ldr: str) -> frozenset[str]:
    """The units with ``ldr`` in their chain of command (4.2.2 C), from the order of battle."""
    return frozenset(u for u in sc.units if sc.side(u) == sc.side(ldr) and ldr in sc.chain_of_command(u))


def _loss_check(sc: Scenario, ldr: str, where: str, rule: str, uid: str, st: GameState) -> Steps[GameState]:
    p = st.piece(uid)                  # as it is now: an earlier unit's rout may have changed it (6.7 K)
    if p.hex is None or p.status not in LIVE or sc.board.grid.distance(p.hex, where) > 1:
        return st
    out = yield check_sub(sc.tables, CheckSpec("leader_loss", current_fv(sc, p), p.status,
                                               leader_cvs(sc, st, p.id), unit=p.id), rule=rule)
    return (yield from apply_status(sc, st, p.id, out.status))


def capture_leaders(sc: Scenario, st: GameState, hex_: str, side: str) -> Steps[GameState]:
    """6.5 C: enemy leaders left in a hex that ``side`` enters are captured; each one's subordinate units
    next to the hex take a Leader Loss check (6.5 C, applied as 6.5 B). A procedure."""
    for ldr in leaders_in(sc, st, hex_):
        if sc.side(ldr) != side:
            st = st.with_piece(ldr, status=Status.CAPTURED, hex=None)
            yield Log("6.5 C", f"{ldr} is captured in {hex_}")
            st = yield from leader_loss(sc, st, ldr, hex_, rule="6.5 C")
    return st


def leader_fire_retreat(sc: Scenario, st: GameState, ldr: str) -> GameState:
    """6.3.5: after firing, a lone leader falls back two hexes away from the enemy, or is captured."""
    g, b = sc.board.grid, sc.board
    side = sc.side(ldr)
    enemies = [p.hex for p in st.on_map() if sc.side(p.id) != side and not sc.is_leader(p.id) and p.status in LIVE]
    here = st.piece(ldr).hex
    assert here is not None, "a leader who fired stands on the map"
    for _ in range(2):
        options = [n for n in g.neighbours(here) if n not in enemies and b.step_cost(here, n, sc.tables)[0] is not None]
        if not options:
            return st.with_piece(ldr, status=Status.CAPTURED, hex=None)
        here = max(options, key=lambda n: (min((g.distance(n, e) for e in enemies), default=99), n))
    return st.with_piece(ldr, hex=here)



def roll_wounds(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """6.5 A: a wounded leader is out for 2d6 turns, rolled as the wound is applied; he comes back in
    the Reinforcement Phase of the turn that many turns on (never, past the last turn)."""
    known = {l for l, _ in s.wounded}
    by_id = ctx.pieces(s)
    for l in sorted(ctx.sc.leaders):
        if by_id[l].status == Status.WOUNDED and l not in known:
            n = yield Roll("2d6", rule="6.5 A", label=f"turns {l} is out of play")
            back = s.turn + n
            s = replace(s, wounded=s.wounded + ((l, back),))
            yield Log("6.5 A", f"{l} is wounded and out for {n} turns: " + (
                f"back on turn {back}" if back <= ctx.sc.file.turns else "out for the rest of the game"))
    return s


def wounded_return(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """6.5 A: a wounded leader whose turns out are over comes back in the Reinforcement Phase, set down
    with a unit he commands (our reading: the rule gives no place; his owner picks the hex)."""
    sc = ctx.sc
    g = s.game
    keep: list[tuple[str, int]] = []
    for l, back in s.wounded:
        if g.turn < back or g.piece(l).status != Status.WOUNDED:
            keep.append((l, back))
            continue
        side = sc.side(l)
        hexes = sorted({p.hex for p in g.on_map() if p.hex is not None and p.id in sc.units and sc.side(p.id) == side
                        and p.status in LIVE and l in sc.chain_of_command(p.id)})
        if not hexes:
            keep.append((l, back))
            yield Log("6.5 A", f"{l} may come back but no unit he commands is on the map")
            continue
        h = hexes[0] if len(hexes) == 1 else (yield Choose(tuple(hexes), rule="6.5 A", player=side,
                                                           label=f"where does {l} come back?"))
        g = g.with_piece(l, hex=h, status=Status.NORMAL, activated=False)
        yield Log("6.5 A", f"{l} is back from his wound, with his troops in {h}")
    return replace(s, game=g, wounded=tuple(keep))
