"""Reinforcements (18.0 Yellow cube, 27.2, 27.10): the Blocks a scenario brings on, Cavalry back from a Grand
Charge and eliminated HQ markers coming back, each placed and then given a free In Command Move Order (19.1)."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from ..blocks import Block, BlockModel
from ..deck import Deck
from .actions import Reinforce
from .dry import dry_run
from .movement import move_order
from .state import BcState, MapState, Unit, check_stacking
from .types import ENEMY

__all__ = ["due_reinforcements", "reinforcements", "reinforce_proc", "check_reinforce"]


def due_reinforcements(st: MapState, side: str) -> dict[str, str | None]:
    """Blocks of ``side`` due to arrive now (18.0): the scenario's schedule (Block id -> entry Zone) and the
    Cavalry back from a Grand Charge two turns on (27.2; Block id -> None: the player picks the Zone)."""
    out: dict[str, str | None] = {r.id: r.zone for r in st.scenario.model.reinforcements
                                  if r.side == side and r.turn <= st.turn and r.id not in st.arrived}
    out.update({u.id: None for u, t in st.returning if u.side == side and t <= st.turn})
    out.update({h.id: None for h, t in st.hqs_out if h.side == side and t <= st.turn})     # 27.10
    return out


def reinforcements(st: MapState, side: str, zones: dict[str, str] | None = None,
                   moves: list[tuple] = (), roadway: tuple[str, ...] = (), deck: Deck | None = None):
    """Procedure: the Yellow Cube's Reinforcement step for ``side`` (18.0): every due Block is placed, then the
    Steady ones make a free Move Order that needs no command range and no Out of Command check (19.1; Roadway
    moves allowed, 19.3). A scenario Block enters at its scheduled Zone; a Cavalry back from a Grand Charge
    (27.2) comes back Steady in a Zone of ``zones`` that holds or borders a friendly HQ and borders no enemy
    Block; an eliminated HQ marker (27.10) comes back Disrupted in a Zone of ``zones`` holding a friendly Block.
    Only arriving Blocks may move. Returns the new state."""
    zones = dict(zones or {})
    due = due_reinforcements(st, side)
    if not due:
        raise RuleViolation("18.0", f"no {side} reinforcement is due on turn {st.turn}")
    sc = st.scenario
    placed, hq_placed = [], []
    for uid, entry in due.items():
        hq_back = next((h for h, _ in st.hqs_out if h.id == uid), None)
        if hq_back is not None:            # 27.10: an eliminated HQ returns Disrupted with a friendly Block
            z = zones.get(uid)
            if z is None:
                raise RuleViolation("27.10", f"say where {uid} comes back (a Zone holding a friendly Block)")
            sc.zone(z)
            if st.side_of_zone(z) != side:
                raise RuleViolation("27.10", f"{uid} comes back in a Zone holding a friendly Block, not {z}")
            st = replace(st, hqs=st.hqs + (replace(hq_back, zone=z),), hqs_out=tuple(r for r in st.hqs_out if r[0].id != uid))
            check_stacking(st, z)
            yield Log("27.10", f"{uid} comes back Disrupted in {z}")
            hq_placed.append(uid)
            continue
        if entry is None:
            unit = next(u for u, _ in st.returning if u.id == uid)
            z = zones.get(uid)
            if z is None:
                raise RuleViolation("27.2", f"say where {uid} comes back (a Zone with or next to a friendly HQ)")
            sc.zone(z)
            hq_near = any(h.zone == z or sc.graph.adjacent(h.zone, z) for h in st.hqs if h.side == side)
            if not hq_near:
                raise RuleViolation("27.2", f"{uid} comes back in or next to a friendly HQ's Zone, not {z}")
            if any(st.side_of_zone(n) == ENEMY[side] for n in sc.graph.neighbours(z)) or \
                    st.side_of_zone(z) == ENEMY[side]:
                raise RuleViolation("27.2", f"{uid} cannot come back next to the enemy ({z})")
            st = replace(st, units=st.units + (replace(unit, zone=z),),
                         returning=tuple(r for r in st.returning if r[0].id != uid))
        else:
            r = next(r for r in sc.model.reinforcements if r.id == uid)
            if st.side_of_zone(entry) == ENEMY[side]:
                raise RuleViolation("18.0", f"{uid} cannot enter: enemy Blocks hold {entry}")
            block = Block.from_model(BlockModel(**r.model_dump(exclude={"id", "side", "zone", "facing", "turn"})))
            st = replace(st, units=st.units + (Unit(uid, side, block, entry, r.facing),), arrived=st.arrived + (uid,))
            z = entry
        check_stacking(st, z)
        placed.append(uid)
        yield Log("18.0", f"{uid} arrives in {z}")
    for uid, _ in moves:
        if uid not in placed:
            raise RuleViolation("19.1", f"only the arriving Blocks use the free Move Order, not {uid}")
        if st.unit(uid).block.state != "steady":
            raise RuleViolation("19.1", f"only Steady reinforcements get the free Move Order ({uid})")
    if moves:                       # 18.0: each new Block arrives with its own free Move Order
        st = yield from _each_move(st, side, list(moves), roadway, deck)
    return replace(st, log=st.log + (f"{side} reinforcements: {placed + hq_placed}",))


def _each_move(st: MapState, side: str, moves: list[tuple], roadway, deck):
    for m in moves:
        st = yield from move_order(st, side, [st.unit(m[0]).zone], [m], deck,
                                   roadway=tuple(r for r in roadway if r == m[0]), free_in_command=True)
    return st


def reinforce_proc(g: MapState, a: Reinforce, deck: Deck):
    """Procedure: the reinforcements of action ``a`` (its ``BLOCK:ZONE`` places, then its free moves)."""
    places = {}
    for p in a.units:
        if ":" not in p:
            raise RuleViolation("18.0", f"a reinforcement place is BLOCK:ZONE, not {p!r}")
        u, z = p.split(":", 1)
        places[u] = z
    return reinforcements(g, a.side, places, [tuple(m) for m in a.moves], a.roadway, deck)


def check_reinforce(st: BcState, a: Reinforce, deck: Deck) -> None:
    """The reinforcements' procedure run dry: every refusal it makes (18.0, 19.1, 27.2, 27.10)."""
    dry_run(reinforce_proc(st.g, a, deck), deck)
