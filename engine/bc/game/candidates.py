"""The actions worth trying in a position, phase by phase (the protocol keeps those that pass the check, so
legality has one source). Cheap first cuts only: what is refused is refused by the check, never here."""
from __future__ import annotations

from .actions import (Advance, ArmyRally, Attack, BcAction, ChangeFormation, CombatMove, Done, DrawCube, Face,
                      GiveGround, Gold, InReserve, Move, Pass, Purchase, Rally, ReadyArms, Reinforce, StartTurn,
                      Surrender, Swap)
from .reinforcements import due_reinforcements
from .state import STACK_LIMIT, BcState, MapState
from .types import ENEMY, LEADER_ASSIST, Phase
from .zones import facing_options, road_zone, shortest_path, side_zones

__all__ = ["candidates", "move_candidates", "reinforce_candidates", "reform_candidates", "attack_candidates",
           "FORMATION_CHOICES"]

#: the formations a reform offers (9.2, 27.3, 28.2)
FORMATION_CHOICES = ("square", "massed_column", "none")


def _product(lists, limit):
    out = [()]
    for lst in lists:
        out = [o + (x,) for o in out for x in lst][:limit]
    return out


def move_candidates(g: MapState, side: str) -> list[BcAction]:
    """Move Orders worth trying (19.0-19.3): each Block one Zone (and along a road, in Roadway formation, one or
    two Zones), both Blocks of a Zone together into an empty Zone, each HQ marker up to its skill in Zones."""
    out: list[BcAction] = []
    sc = g.scenario

    def open_(z):           # a cheap first cut; check() still decides (9.3: no enemy, not full)
        here = g.in_zone(z)
        return not here or (here[0].side == side and len(here) < STACK_LIMIT)

    for u in g.units:
        if u.side != side or u.block.redoubt_block:
            continue
        for n in sc.graph.neighbours(u.zone):
            if not open_(n) and g.side_of_zone(n) != side:
                continue
            out.append(Move(side, zones=(u.zone,), moves=((u.id, n),)))
            if road_zone(sc, u.zone) and road_zone(sc, n):
                out.append(Move(side, zones=(u.zone,), moves=((u.id, n),), roadway=(u.id,)))
                for m in sc.graph.neighbours(n):
                    if m != u.zone and road_zone(sc, m):
                        out.append(Move(side, zones=(u.zone,), moves=((u.id, f"{n}>{m}"),), roadway=(u.id,)))
    for z in sc.graph.areas:
        here = [u for u in g.in_zone(z) if u.side == side]
        if len(here) == 2:
            for n in sc.graph.neighbours(z):
                if not g.in_zone(n):
                    out.append(Move(side, zones=(z,), moves=tuple((u.id, n) for u in here)))
    for h in g.hqs:
        if h.side != side:
            continue
        dist = sc.graph.distances(h.zone)
        for z, d in dist.items():
            if 0 < d <= max(h.hq.skill, 1):
                path = shortest_path(sc, h.zone, z)
                if path:
                    out.append(Move(side, zones=(h.zone,), hqs=((h.id, ">".join(path)),)))
    return out


def reinforce_candidates(g: MapState, side: str) -> list[BcAction]:
    """The reinforcements due (18.0): one action, or one per set of Zones for those placed by the player."""
    due = due_reinforcements(g, side)
    free = [u for u, z in due.items() if z is None]
    if not free:
        return [Reinforce(side)]
    return [Reinforce(side, units=tuple(f"{u}:{z}" for u, z in zip(free, combo)))
            for combo in _product([g.scenario.graph.areas] * len(free), 40)]


def attack_candidates(g: MapState, side: str, follow: str = "") -> list[BcAction]:
    """The attacks and Combat Moves worth trying on a Red cube (23.1, 19.4, 27.5, 27.6); after a Combat Move
    (``follow``: the Zone it reached) only that Lead's attacks."""
    out: list[BcAction] = []
    if follow:
        for t in g.scenario.graph.neighbours(follow):
            if g.side_of_zone(t) == ENEMY[side]:
                out += [Attack(side, frm=follow, to=t, attack="fire"), Attack(side, frm=follow, to=t, attack="assault")]
        return out
    for z in side_zones(g, side):
        lead = g.lead(z)
        if lead.block.kind in ("cavalry", "horse_artillery"):
            out += [CombatMove(side, frm=z, to=n) for n in g.scenario.graph.neighbours(z)]
        for t in g.scenario.graph.neighbours(z):
            if g.side_of_zone(t) == ENEMY[side]:
                out += [Attack(side, frm=z, to=t, attack="fire"), Attack(side, frm=z, to=t, attack="assault")]
        if lead is not None and lead.block.artillery:
            for t in g.scenario.graph.areas:
                if g.side_of_zone(t) == ENEMY[side]:
                    out.append(Attack(side, frm=z, to=t, attack="bombard"))
        if lead is not None and lead.block.infantry:
            for t in g.scenario.graph.neighbours(z):
                if g.side_of_zone(t) == ENEMY[side]:
                    out.append(Attack(side, frm=z, to=t, attack="assault", special="ordre_mixte"))
        if lead is not None and lead.block.kind == "horse_artillery":        # 27.6 Artillery Expert
            for t in g.scenario.graph.neighbours(z):
                if g.side_of_zone(t) == ENEMY[side]:
                    out.append(Attack(side, frm=z, to=t, attack="assault", special="artillery_assault"))
    return out


def reform_candidates(st: BcState, side: str) -> list[BcAction]:
    """Swaps, formation changes and facings worth trying in the Zones of the reform window (9.2, 9.4), and
    the end of the window."""
    g = st.g
    out: list[BcAction] = []
    for z in st.reform:
        here = [u for u in g.in_zone(z) if u.side == side]
        if len(here) == 2:
            out.append(Swap(side, frm=z))
        for f in FORMATION_CHOICES:
            if here:
                out.append(ChangeFormation(side, frm=z, formation=f))
        for u in here:
            if u.block.artillery or u.block.formation == "massed_column":
                out += [Face(side, block=u.id, facing=f) for f in facing_options(g, u.id)]
    return out + [Done(side)]


def candidates(st: BcState) -> list[BcAction]:
    """The actions to try in ``st`` for the side to act, phase by phase."""
    side = st.actor
    if side is None or st.phase == Phase.OVER:
        return []
    g = st.g
    ph = st.phase
    out: list[BcAction] = []
    if ph == Phase.PREPARE:
        return [StartTurn(side)]
    if ph == Phase.DRAW:
        return [DrawCube(side)]
    if ph in (Phase.ORDER, Phase.REACTION):
        out += move_candidates(g, side)
        out.append(ReadyArms(side))
        if ph == Phase.ORDER:
            out.append(InReserve(side))
        out.append(Pass(side))
        return out
    if ph == Phase.GOLD:
        return [Gold(side, colour=c) for c, _ in (g.cup.counts if g.cup else ())] + [Gold(side, colour="card")]
    if ph == Phase.YELLOW_REINF:
        return reinforce_candidates(g, side)
    if ph == Phase.YELLOW_BUY:
        for c in sorted(set(g.hand(side))):
            out += [Purchase(side, cards=(c,), buy="tokens"), Purchase(side, cards=(c,), buy="cubes")]
        return out + [Pass(side)]
    if ph == Phase.YELLOW_RALLY:
        zones = sorted({u.zone for u in g.units if u.side == side} | {h.zone for h in g.hqs if h.side == side})
        out += [Rally(side, frm=z) for z in zones]
        out.append(ArmyRally(side))
        if LEADER_ASSIST in st.options:                 # 29.6: a friendly Leader card for an automatic Officer
            for c in sorted(set(g.hand(side))):
                out += [Rally(side, frm=z, leader=c) for z in zones] + [ArmyRally(side, leader=c)]
        return out + [Pass(side)]
    if ph == Phase.RED:
        return attack_candidates(g, side, st.follow) + [Pass(side)]
    if ph == Phase.ADVANCE:
        frm, to = st.advance[0], st.advance[1]
        here = [u.id for u in g.in_zone(frm)]
        opts = [()] + [tuple(here[:k]) for k in range(1, len(here) + 1)]
        hqs = tuple(h.id for h in g.hqs_in(frm, side))
        opts += [o + hqs for o in opts if o] if hqs else []
        return [Advance(side, frm=frm, to=to, units=u) for u in opts]
    if ph == Phase.REFORM:
        return reform_candidates(st, side)
    if ph == Phase.GIVE_GROUND:
        for u in g.units:
            if u.side == side:
                out += [GiveGround(side, block=u.id), Surrender(side, block=u.id)]
        return out + [Pass(side)]
    return out
