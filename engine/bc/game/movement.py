"""Move Orders (19.0-19.3) and Combat Moves (19.4): activating a chain of Zones within command range (or past
an Out of Command check, 21.3), moving Blocks and HQ markers one Zone (two along a road in Roadway formation),
and the restrictions of each step (stacking 9.3, enemy Battle Zones, Disrupted Blocks, impassable borders).
"""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from ..blocks import Block, hit_block
from ..checks import read_check
from ..cup import activation_limit
from ..deck import Deck, default_deck, draw_card
from .scenario import Scenario
from .state import MapState, check_stacking, set_block
from .types import ENEMY
from .zones import command_zones, enemy_battle_zones, road_zone

__all__ = ["ROADWAY_ZONES", "activation_chain", "move_path", "move_state", "check_road_stacking", "move_order",
           "combat_move"]


def activation_chain(sc: Scenario, zones: list[str]) -> bool:
    """Do the activated Zones form one chain of bordering Zones (19.0)?"""
    if not zones:
        return False
    todo, seen = [zones[0]], {zones[0]}
    while todo:
        z = todo.pop()
        for n in sc.graph.neighbours(z):
            if n in zones and n not in seen:
                seen.add(n)
                todo.append(n)
    return seen == set(zones)


ROADWAY_ZONES = 2   # 19.3: a Roadway Block moves up to two Zones along a road or lane


def move_path(to) -> tuple[str, ...]:
    """The Zones of a move's destination: one Zone, or a Roadway path ``"A>B"`` (or a list), in order."""
    if isinstance(to, str):
        return tuple(p for p in to.split(">") if p) if ">" in to else (to,)
    return tuple(to)


def move_state(b: Block) -> str:
    """A Roadway Block is flipped as if Disrupted for combat only (19.3); it moves as the Steady Block it is."""
    return "steady" if b.formation == "roadway" else b.state


def check_road_stacking(st: MapState, zone: str) -> None:
    """19.3 road stacking, for the Roadway Blocks ending in ``zone``: a Road Zone takes one Long Block or two
    other Blocks, a Lane Zone one Block of any type."""
    rw = [u for u in st.in_zone(zone) if u.block.formation == "roadway"]
    if not rw:
        return
    m = st.scenario.zone(zone)
    if m.road:
        if any(u.block.kind == "long_infantry" for u in rw) and len(rw) > 1:
            raise RuleViolation("19.3", f"a Road Zone ({zone}) holds one Long Block in Roadway formation, "
                                        "or two other Blocks")
        if len(rw) > 2:
            raise RuleViolation("19.3", f"a Road Zone ({zone}) holds at most two Roadway Blocks")
    elif len(rw) > 1:
        raise RuleViolation("19.3", f"a Lane Zone ({zone}) holds a single Roadway Block")


def _once(pieces: tuple[str, ...]) -> None:
    """19.1: a Move Order moves each Block (and HQ marker) once: one Zone (two by Roadway, 19.3); naming it
    again would chain its moves."""
    twice = sorted({p for p in pieces if pieces.count(p) > 1})
    if twice:
        raise RuleViolation("19.1", f"{twice[0]} is named twice: a Move Order moves each Block once, one Zone "
                                    "(two along a road in Roadway formation, 19.3)")


def move_order(st: MapState, side: str, zones: list[str], moves: list[tuple], deck: Deck | None = None,
               reaction: bool = False, roadway: tuple[str, ...] = (), free_in_command: bool = False,
               hq_moves: tuple = ()):
    """Procedure: a Move Order (19.0) activating ``zones`` and moving Blocks ``moves`` = [(block id, to)].

    Checks the activation (a chain of occupied friendly Zones, how many, command range; otherwise an Out of
    Command check, 21.3), then each move (adjacent, passable, stacking 9.3, no enemy Zone, no Battle Zone to
    Battle Zone of the same enemy, no Disrupted Block into an enemy Battle Zone). Returns the new state.

    ``roadway`` names the Blocks that take Roadway formation for this move (19.3): for them ``to`` may be a
    path of up to two Zones (``"M3>E3"`` or a list), every Zone of it, the start included, on a road or lane;
    the Block must be Steady and not in Square or Massed Column; it ends in Roadway formation (combat: as
    Disrupted, 19.3) unless it stops with Blocks not in that formation, where it becomes the second line Block
    in its normal formation. When every move is a Roadway move, up to four Zones may be activated (19.0).
    A Roadway Block that makes a regular move first goes back to its normal formation.

    ``hq_moves`` = [(HQ id, path)]: an HQ marker in an activated Zone moves up to its skill in Zones (19.1),
    never into an enemy-held Zone, one HQ marker per Zone at the end (9.3). An Artillery or Massed Column
    that moves loses its facing: its owner gives it a new one (9.4). An Officer on the Out of Command check
    sets ``order_cube_back`` (21.3: the cube goes back into the cup).
    """
    deck = deck or default_deck()
    sc = st.scenario
    com = st.commander(side)
    if st.order_cube_back:
        st = replace(st, order_cube_back=False)
    _once(tuple(m[0] for m in moves) + tuple(h for h, _ in hq_moves))
    hq_paths = []
    for hid, to in hq_moves:
        h = next((x for x in st.hqs if x.id == hid), None)
        if h is None or h.side != side:
            raise RuleViolation("19.1", f"no {side} HQ marker {hid!r} on the map")
        if h.zone not in zones:
            raise RuleViolation("19.0", f"the HQ marker {hid} is not in an activated Zone")
        path = move_path(to)
        if not path or len(path) > max(h.hq.skill, 1):
            raise RuleViolation("19.1", f"an HQ marker moves up to its skill ({h.hq.skill}) in Zones")
        here = h.zone
        for z in path:
            sc.zone(z)
            if not sc.graph.adjacent(here, z):
                raise RuleViolation("19.1", f"{hid} moves to adjacent Zones, {z} is not next to {here}")
            if sc.impassable(here, z):
                raise RuleViolation("19.1", f"impassable terrain between {here} and {z}")
            if st.side_of_zone(z) == ENEMY[side]:
                raise RuleViolation("9.3", f"{z} holds enemy Blocks")
            here = z
        hq_paths.append((hid, here))
    for z in zones:
        sc.zone(z)
        if not (st.in_zone(z) and st.side_of_zone(z) == side) and not st.hqs_in(z, side):
            raise RuleViolation("19.0", f"Zone {z} holds no {side} Block or HQ to activate")
    if not activation_chain(sc, zones):
        raise RuleViolation("19.0", "activated Zones must form a chain of adjacent Zones")
    roadway = tuple(roadway)
    paths = [(m[0], move_path(m[1])) for m in moves]
    for uid, path in paths:
        if st.unit(uid).block.redoubt_block:
            raise RuleViolation("28.5", f"{uid} is an Artillery Redoubt Block: it never moves")
        if not path:
            raise RuleViolation("19.1", f"no destination given for {uid}")
        if uid not in roadway and len(path) > 1:
            raise RuleViolation("19.1", f"{uid} moves one Zone; only a Roadway move goes two Zones (19.3)")
        if uid in roadway:
            u = st.unit(uid)
            if move_state(u.block) != "steady":
                raise RuleViolation("19.3", f"only a Steady Block takes Roadway formation ({uid} is "
                                            f"{u.block.state})")
            if u.block.square or u.block.formation == "massed_column":
                raise RuleViolation("19.3", f"a Square or a Massed Column cannot take Roadway formation ({uid})")
            if len(path) > ROADWAY_ZONES:
                raise RuleViolation("19.3", f"a Roadway move goes at most {ROADWAY_ZONES} Zones ({uid})")
            off = [z for z in (u.zone,) + path if not road_zone(sc, z)]
            if off:
                raise RuleViolation("19.3", f"a Roadway move starts and ends along a road or lane: {off[0]} has "
                                            "neither")
    for uid in roadway:
        if uid not in {m[0] for m in moves}:
            raise RuleViolation("19.3", f"{uid} is named for a Roadway move but does not move")
    road_only = bool(moves) and all(uid in roadway for uid, _ in paths)
    free = [z for z in zones if st.steady_hq_in(z, side)]
    counted = len(zones) - (1 if free else 0)
    limit = activation_limit(com.skill, road_only)
    if counted > limit and not free_in_command:
        raise RuleViolation("19.0", f"a skill {com.skill} commander activates at most {limit} Zones "
                                    f"({counted} asked, a Steady HQs Zone is free)")
    if reaction:
        ebz = enemy_battle_zones(st, side)
        if any(z in ebz for z in zones):
            raise RuleViolation("19.2", "a Reaction cannot activate a Zone in an enemy Battle Zone")
        if dict(st.reserve)[side] < 1:
            raise RuleViolation("19.2", "a Reaction is paid with a cube from the Reserve Orders Box")
        st = replace(st, reserve=tuple((s_, n - 1 if s_ == side else n) for s_, n in st.reserve))
    in_range = set()
    for h in st.hqs:
        if h.side == side:
            in_range |= command_zones(st, h.id)
    in_command = free_in_command or any(z in in_range for z in zones)     # 19.1: arriving reinforcements
    for uid, _ in paths:
        if st.unit(uid).zone not in zones:
            raise RuleViolation("19.0", f"Block {uid} is not in an activated Zone")
        if st.unit(uid).side != side:
            raise RuleViolation("19.0", f"Block {uid} is not {side}")
    if not in_command:
        pile = st.pile
        face, pile = yield from draw_card(pile, deck, "21.3", "out of command check")
        out = read_check("command", deck.skill(face), com.skill, st.morale_of(side).good)   # 21.0: no HQ bonus
        st = replace(st, pile=pile.discarded(face), order_cube_back=out.cube_back)
        yield Log("21.3", f"out of command: {out.icon}, {'success' if out.success else 'failure'}")
        if not out.success:
            return replace(st, log=st.log + (f"{side} move order out of command failed ({out.icon})",))
    ebz_before = enemy_battle_zones(st, side)
    for uid, path in paths:
        u = st.unit(uid)
        on_road = uid in roadway
        rule = "19.3" if on_road else "19.1"
        here = u.zone
        for to in path:
            sc.zone(to)
            if not sc.graph.adjacent(here, to):
                raise RuleViolation(rule, f"{uid} can only move to an adjacent Zone, {to} is not next to {here}")
            if sc.impassable(here, to):
                raise RuleViolation(rule, f"impassable terrain between {here} and {to}")
            if st.side_of_zone(to) == ENEMY[side]:
                raise RuleViolation("9.3", f"{to} holds enemy Blocks")
            if to in ebz_before:
                if move_state(u.block) == "disrupted":
                    raise RuleViolation("19.0", f"a Disrupted Block cannot enter an enemy Battle Zone ({to})")
                same = ebz_before.get(here, set()) & ebz_before[to]
                if same:
                    raise RuleViolation("19.0", f"{uid} cannot move from one Battle Zone to another of the same "
                                                f"enemy Block ({sorted(same)[0]})")
            here = to
        block = u.block
        if on_road:                             # 19.3: flipped as if Disrupted, with a Roadway marker
            block = replace(block, formation="roadway", state="disrupted")
        elif block.formation == "roadway":      # 19.3: a formation change back to Steady before the move
            block = replace(block, formation="none", state="steady")
        if on_road and any(x.block.formation != "roadway" for x in st.in_zone(here) if x.id != uid):
            block = replace(block, formation="none", state="steady")    # 19.3: joins them as second line
            yield Log("19.3", f"{uid} ends with Blocks not in Roadway formation: it leaves that formation")
        facing = u.facing
        if (block.artillery or block.formation == "massed_column") and here != u.zone:
            facing = ()                          # 9.4: the owner faces it again after the move
        st = replace(st, units=tuple(x for x in st.units if x.id != uid) + (replace(u, zone=here, block=block,
                                                                                      facing=facing),))
        check_stacking(st, here)
        check_road_stacking(st, here)
        if u.block.square:
            yield Log("19.0", f"{uid} moved in Square: it takes a Cohesion Hit")
            nb, _, note = hit_block(block)       # 27.3: the third hit breaks the Square, as in combat
            if note:
                yield Log(*note)
            st = set_block(st, uid, nb)
    for hid, to in hq_paths:
        st = replace(st, hqs=tuple(replace(h, zone=to) if h.id == hid else h for h in st.hqs))
        check_stacking(st, to)
    return replace(st, log=st.log + (f"{side} moves {moves}" + (f" (Roadway: {list(roadway)})" if roadway else ""),))


def combat_move(st: MapState, zone: str, to: str) -> MapState:
    """A Combat Move (19.4) on a Red cube: a Steady Cavalry or Horse Artillery Lead moves one Zone with its
    Attack Token (placed by the caller), enemy Battle Zones and command range do not matter, nor is a Skill
    Check made. Our reading of "no split moves": a Second Line Block that is Steady Cavalry or Horse Artillery
    too goes with it, the others stay."""
    sc = st.scenario
    sc.zone(zone)
    sc.zone(to)
    lead = st.lead(zone)
    if lead is None or lead.block.kind not in ("cavalry", "horse_artillery") or lead.block.state != "steady" \
            or lead.block.formation not in ("none",):
        raise RuleViolation("19.4", f"only a Steady Cavalry or Horse Artillery Lead makes a Combat Move, not in {zone}")
    if not sc.graph.adjacent(zone, to) or sc.impassable(zone, to):
        raise RuleViolation("19.4", f"a Combat Move goes to a bordering Zone across passable ground, not {to}")
    if st.side_of_zone(to) == ENEMY[lead.side]:
        raise RuleViolation("9.3", f"{to} holds enemy Blocks")
    movers = [u for u in st.in_zone(zone)
              if u.id == lead.id or (u.block.kind in ("cavalry", "horse_artillery") and u.block.state == "steady")]
    ids = {u.id for u in movers}
    moved = tuple(replace(u, zone=to, facing=() if u.block.artillery else u.facing) for u in movers)
    rest = tuple(x for x in st.units if x.id not in ids)
    # the moving Lead leads in its new Zone (9.4: stacking is set after a move)
    new = replace(st, units=tuple(x for x in rest if x.zone != to) + moved + tuple(x for x in rest if x.zone == to))
    check_stacking(new, to)
    return new
