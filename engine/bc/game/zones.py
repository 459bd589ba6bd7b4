"""What a Zone is to each Block (9.4, 19.0): Battle Zones and Flanked Zones, command range, facings, roads.

These are the public queries the rules, the bots and the boards ask of a map: which Zones a Lead Block's Battle
Zone covers (9.4), which Zones flank it, where an enemy's Battle Zones lie, how far an HQ commands (19.0), which
way an Artillery may face (9.4), which Zones are on a road or lane (19.3). They change nothing.
"""
from __future__ import annotations

from engine.core.errors import RuleViolation

from ..blocks import Block
from .scenario import Scenario
from .state import MapState, Unit
from .types import ENEMY

__all__ = ["battle_zones", "redoubt_zones", "flanked_zones", "enemy_battle_zones", "command_zones", "side_zones",
           "enemy_adjacent", "road_zone", "faces", "facing_options", "needs_facing", "shortest_path"]


def battle_zones(st: MapState, unit: Unit) -> set[str]:
    """Zones a Lead Steady Block projects its Battle Zone into (9.4): not across impassable terrain;
    Artillery only towards the Zones it faces. Second-line, Square, Shaken, Garrison: none."""
    sc = st.scenario
    if st.lead(unit.zone) is None or st.lead(unit.zone).id != unit.id:
        return set()
    b = unit.block
    fort_of = sc.zone(unit.zone).fort_of
    if b.kind == "garrison" and fort_of is not None and b.state == "steady":
        return {fort_of}                          # 9.4, 28.5: a Garrison in a Fort projects into its Zone
    if b.state != "steady" or b.square or b.kind == "garrison" or b.formation == "roadway":
        return set()
    adj = {z for z in sc.graph.neighbours(unit.zone) if not sc.impassable(unit.zone, z)}
    if b.redoubt_block:                          # 28.5: the Redoubt's intervals (and any facing given)
        return adj & redoubt_zones(st, unit)
    if b.artillery or b.formation == "massed_column":
        return adj & set(adj if unit.facing is None else unit.facing)   # (): not yet faced after a move
    return adj


def redoubt_zones(st: MapState, unit: Unit) -> set[str]:
    """Zones an Artillery Redoubt Block covers (28.5): the intervals its Redoubt covers (the Zone's ``redoubt``
    list) plus any Zones its ``facing`` names; its facing never changes."""
    return set(st.scenario.zone(unit.zone).redoubt) | set(unit.facing or ())


def flanked_zones(st: MapState, unit: Unit) -> set[str]:
    """Flanked Zones (9.4): all Zones of a Disrupted Lead Block, the non-Battle Zones of a Lead Artillery."""
    sc = st.scenario
    lead = st.lead(unit.zone)
    if lead is None or lead.id != unit.id or unit.block.square:
        return set()
    adj = set(sc.graph.neighbours(unit.zone))
    if unit.block.state == "disrupted":
        return adj
    if unit.block.artillery and unit.block.state == "steady":
        return adj - battle_zones(st, unit)
    return set()


def enemy_battle_zones(st: MapState, side: str, exclude_engaged: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Zone -> ids of enemy Lead Blocks projecting a Battle Zone there."""
    out: dict[str, set[str]] = {}
    for u in st.units:
        if u.side == side or u.id in exclude_engaged:
            continue
        for z in battle_zones(st, u):
            out.setdefault(z, set()).add(u.id)
    return out


def command_zones(st: MapState, hq_id: str) -> set[str]:
    """Zones within command range of a Steady HQ/SHQ (19.0): the range may cross impassable terrain but not
    enemy Blocks or empty enemy Battle Zones; +1 (at most) in a Town, Village or Up Cliff Zone."""
    h = next((h for h in st.hqs if h.id == hq_id), None)
    if h is None:
        raise RuleViolation("19.0", f"no HQ marker {hq_id!r}")
    if h.hq.state != "steady":
        return set()
    sc = st.scenario
    rng = st.commander(h.side).range if h.hq.kind == "hq" else 1          # 28.4: SHQ range 1
    if h.hq.kind == "hq" and h.hq.perspective:
        rng += 1                                                            # 29.1: main HQ range +1
    if sc.zone(h.zone).terrain in ("town", "village", "up_cliff"):
        rng += 1
    ebz = enemy_battle_zones(st, h.side)
    seen = {h.zone: 0}
    frontier = [h.zone]
    while frontier:
        nxt = []
        for z in frontier:
            for n in sc.graph.neighbours(z):
                if n in seen:
                    continue
                if st.side_of_zone(n) == ENEMY[h.side] or (n in ebz and not st.in_zone(n)):
                    continue
                seen[n] = seen[z] + 1
                if seen[n] < rng:
                    nxt.append(n)
        frontier = nxt
    return {z for z, d in seen.items() if 0 < d <= rng} | {h.zone}


def side_zones(st: MapState, side: str) -> list[str]:
    """The Zones holding ``side``'s Blocks, in the map's order."""
    return [z for z in st.scenario.graph.areas if st.side_of_zone(z) == side]


def enemy_adjacent(st: MapState, zone: str, side: str) -> bool:
    """Does a Zone bordering ``zone`` hold Blocks of ``side``'s enemy?"""
    return any(st.side_of_zone(n) == ENEMY[side] for n in st.scenario.graph.neighbours(zone))


def road_zone(sc: Scenario, z: str) -> bool:
    """Is ``z`` a Road or Lane Zone (19.3: where a Roadway move may go)?"""
    m = sc.zone(z)
    return m.road or m.lane


def facing_options(st: MapState, uid: str) -> tuple[tuple[str, ...], ...]:
    """The facings an Artillery (or Massed Column) may take (9.4): towards one bordering Zone, or towards two
    bordering Zones that border each other (our reading of "parallel to a Zone's side": the guns cover the
    Zone in front and may take in the next one along that front)."""
    u = st.unit(uid)
    sc = st.scenario
    nb = sorted(sc.graph.neighbours(u.zone))
    out = [(z,) for z in nb]
    out += [(a, b) for i, a in enumerate(nb) for b in nb[i + 1:] if sc.graph.adjacent(a, b)]
    return tuple(out)


def faces(b: Block) -> bool:
    """Does this Block have a facing (9.4, 28.2): an Artillery (not a Redoubt's) or a Massed Column."""
    return (b.artillery and not b.redoubt_block) or b.formation == "massed_column"


def needs_facing(st: MapState, u: Unit) -> bool:
    """An Artillery or Massed Column without a valid facing (9.4): ``()`` after a move, or a facing left
    over from another Zone after a retreat or an advance. ``None`` (a scenario's all-round set-up) is valid."""
    if not faces(u.block) or u.facing is None:
        return False
    return not u.facing or not set(u.facing) <= set(st.scenario.graph.neighbours(u.zone))


def shortest_path(sc: Scenario, a: str, b: str) -> tuple[str, ...]:
    """A shortest path from ``a`` to ``b`` (the Zones after ``a``; neighbours in name order), () if none."""
    prev: dict[str, str | None] = {a: None}
    todo = [a]
    while todo:
        nxt = []
        for z in todo:
            for n in sorted(sc.graph.neighbours(z)):
                if n not in prev:
                    prev[n] = z
                    nxt.append(n)
        todo = nxt
    if b not in prev:
        return ()
    path = []
    z = b
    while z != a:
        path.append(z)
        z = prev[z]
    return tuple(reversed(path))
