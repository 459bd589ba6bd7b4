"""6.3 Fire Combat on the map: the fire set-up taken from the pieces (facing 4.3, line of sight 4.4, range
6.3.3-6.3.4, leaders 6.3.5, defensive fire 6.3.6, the Grand Battery 8.2 C, the Strong Point 8.4 B, optional
11.1 and 11.2), the result applied (6.3.7 F) and the advance into a vacated hex (6.3.8); in the game, the
candidates, the check and the fire action of both Fire Segments (6.3.1)."""
from __future__ import annotations

from collections.abc import Iterable, Set
from functools import lru_cache, partial
from itertools import combinations

from engine.core.errors import RuleViolation
from engine.core.hexgrid import HexGrid
from engine.core.procedure import Log, Roll, Sub

from ..charge import frontal_directions
from ..fire import Firer, FireSetup, fire_combat
from ..scenario import Scenario, default_scenario
from ..steps import Steps
from ..turn import turn_data
from .actions import Fire
from .activation import check_actor, may_activate
from .exclusive import factors, road_blocked
from .leaders import leader_fire_retreat
from .memo import cached
from .position import acting_side, frontal, occupants, occupied
from .queries import Queries
from .results import apply_effect, choose_advance
from .state import GameState, Piece, TbfState, book, replace, with_book
from .types import ACTING, GONE, LIVE, Segment, Side, Status, other

__all__ = ["fire_setup", "fire_action", "ammo_shortage", "cached_fire_setup", "fire_candidates", "check_fire",
           "fire_options", "do_fire"]


def fire_setup(sc: Scenario, st: GameState, firer_ids: tuple[str, ...], target: str, defensive: bool = False,
               cavalry_fire: bool = False, moved: tuple[str, ...] = (), short_ammo: tuple[str, ...] = ()) -> FireSetup:
    """The FireSetup for firing units on the map (checks 4.3, 4.4, 6.3.2-6.3.6, 8.1, TEC DRMs). Optional
    rules: ``cavalry_fire`` (11.1 A-B) with ``moved`` the cavalry that moved this segment (11.1 C);
    ``short_ammo`` the infantry whose FF is halved by the ammunition roll (11.2 B, rounded down)."""
    if not firer_ids:
        raise RuleViolation("6.3.7 A", "no unit is firing")
    side = acting_side(sc, firer_ids)
    b, g, t = sc.board, sc.board.grid, sc.tables
    target = b.check_hex(target, "6.3")
    enemies = occupants(sc, st, target, other(side))
    if not enemies:
        raise RuleViolation("6.3", f"no enemy unit in {target}")
    enemy_hexes = occupied(sc, st, side)[0]                  # hexes of live enemy units (kept per position)
    firers: list[Firer] = []
    from_hexes: list[str] = []          # the Grand Batteries' and the units' hexes, in the firers' order
    for fid in firer_ids:
        if fid.startswith("gb:"):
            firers.append(_grand_battery_firer(sc, st, fid, target, enemy_hexes))
            from_hexes.append(fid[3:])
            continue
        p = st.piece(fid)
        if p.hex is not None and sc.is_leader(fid):
            if not defensive or occupants(sc, st, p.hex, side) or g.distance(p.hex, target) != 1:
                raise RuleViolation("6.3.5", f"{fid} may fire only defensively, alone in his hex, at an adjacent hex")
            firers.append(Firer(1, "leader", 1, "normal", False, True, fid))
            continue
        if p.hex is None:
            raise RuleViolation("6.3", f"{fid} is not on the map")
        if fid in sc.units:
            from_hexes.append(p.hex)
        u = sc.units[fid]
        d = g.distance(p.hex, target)
        kind = "howitzer" if u.howitzer else u.kind
        if d == 1:
            if target not in frontal(sc, st, p) and not (p.status == Status.FATIGUED and defensive):
                raise RuleViolation("6.3.2 A", f"{fid} does not face {target}")
        else:
            if u.kind != "artillery":
                raise RuleViolation("6.3.3", f"{fid} is {d} hexes away; only artillery fires beyond adjacent hexes")
            if d > 4:
                raise RuleViolation("6.3.3", f"{fid} is {d} hexes from {target}: artillery reaches 4 hexes at most")
            if target not in _arc(g, p.hex, p.facing, d):
                raise RuleViolation("6.3.2 A", f"{target} is not in the front of {fid}")
            los = b.los(p.hex, target, t, viewer=kind, enemy=enemy_hexes - {target})
            if not los.clear:
                raise RuleViolation("6.3.4 A", f"{fid} has no line of sight to {target} (blocked at {los.blocked_by})")
        ff = u.ff_red if u.kind == "cavalry" else factors(sc, st, fid)[0]          # 11.1 B, 8.3 A
        if fid in short_ammo and u.kind == "infantry":
            ff = ff // 2                                                            # 11.2 B
        firers.append(Firer(ff, kind, d, p.status, fid in moved, True, fid))
    tt = t.terrain.terrain[b.terrain(target)]
    drm = tt.fire_drm
    if any(b.level(target) > b.level(h) for h in from_hexes):
        drm += t.terrain.uphill_fire_drm
    if target == b.data.strong_point and any(p.id == "elite" for p in enemies):
        drm += t.terrain.strong_point_fire_drm                      # 8.4 B, TEC
    mods: tuple[str, ...] = ("target_stacked",) if len(enemies) >= 2 and "target_stacked" in t.fire.drms else ()
    if any(f.kind == "artillery" and f.range == 1 for f in firers) and "point_blank_artillery" in t.fire.drms:
        mods += ("point_blank_artillery",)                          # 6.3.6
    return FireSetup(tuple(firers), defensive=defensive, night=st.turn >= sc.file.night_from, terrain_drm=drm,
                     modifiers=mods, cavalry_fire=cavalry_fire)


def _grand_battery_firer(sc: Scenario, st: GameState, fid: str, target: str, enemy_hexes: frozenset[str]) -> Firer:
    """8.2 C: a Grand Battery hex fires at FF 20 out of each hexside that has a gun (artillery range and LOS)."""
    b, g = sc.board, sc.board.grid
    h = fid[3:]
    guns = b.data.grand_battery.get(h)
    if guns is None:
        raise RuleViolation("8.2 A", f"{h} is not a Grand Battery hex (they are {', '.join(b.data.grand_battery)})")
    d = g.distance(h, target)
    if not 1 <= d <= 4:
        raise RuleViolation("6.3.3", f"the Grand Battery in {h} reaches 4 hexes, not {d}")
    names = [n.upper() for n in g.direction_names]
    dirs = {names.index(x.upper()) for x in guns}
    line = g.line(h, target)
    if g.direction(h, line[1]) not in dirs:
        raise RuleViolation("8.2 C", f"no gun of the Grand Battery in {h} points toward {target}")
    if d > 1 and not b.los(h, target, sc.tables, viewer="artillery", enemy=enemy_hexes - {target}).clear:
        raise RuleViolation("6.3.4 A", f"the Grand Battery in {h} has no line of sight to {target}")
    return Firer(0, "grand_battery", d, "normal", False, True, fid)


@lru_cache(maxsize=8192)
def _arc(g: HexGrid, hex_: str, facing: int, dist: int) -> frozenset[str]:
    """Hexes at ``dist`` inside the 120-degree wedge in front of a unit (its frontal arc extended); pure
    geometry, memoised (the grid is a value)."""
    out: set[str] = set()
    dirs = frontal_directions(facing)
    for h in g.ring(hex_, dist):
        line = g.line(hex_, h)
        if len(line) > 1 and g.direction(hex_, line[1]) in dirs:
            out.add(h)
    return frozenset(out)


def fire_action(sc: Scenario, st: GameState, firer_ids: tuple[str, ...], target: str, defensive: bool = False,
                cavalry_fire: bool = False, moved: tuple[str, ...] = (), short_ammo: tuple[str, ...] = ()
                ) -> Steps[GameState]:
    """Fire at ``target`` and apply the result (6.3.7 F), advance into a vacated hex (6.3.8)."""
    setup = cached(fire_setup)(sc, st, tuple(firer_ids), target, defensive, cavalry_fire, tuple(moved),
                                tuple(short_ammo))
    if not defensive:
        may_activate(sc, st, firer_ids)
    side = acting_side(sc, firer_ids)
    enemy = other(side)
    out = yield Sub(("tbf-fire", sc.tables.key, setup), partial(fire_combat, sc.tables, setup), rule="6.3.7",
                    label="Fire Combat")
    eff = sc.tables.fire.results[out.result]
    st = yield from apply_effect(sc, st, target, enemy, eff.fatigue, eff.retreat, eff.eliminate, "6.3.7 F")
    for fid in firer_ids:
        if fid in sc.leaders:
            st = leader_fire_retreat(sc, st, fid)                         # 6.3.5
        elif not fid.startswith("gb:"):
            st = st.with_piece(fid, activated=st.piece(fid).activated or not defensive)
    if not defensive and not occupants(sc, st, target):
        movers = tuple(f for f in firer_ids if f in sc.units and sc.units[f].kind != "artillery"
                       and sc.board.grid.distance(st.piece(f).hex, target) == 1)
        if movers:
            st = yield from choose_advance(sc, st, movers, target, must=False)            # 6.3.8
    return st



def ammo_shortage() -> Steps[bool]:
    """11.2 B (optional): on 3-6 Gazan's infantry fire at half FF."""
    r = yield Roll("d6", rule="11.2 B", label="French ammunition")
    return r in turn_data().rolls.ammo_short_on



@lru_cache(maxsize=4096)
def cached_fire_setup(game: GameState, units: tuple[str, ...], target: str, defensive: bool, cavalry_fire: bool = False,
                      moved: tuple[str, ...] = (), sc: Scenario | None = None) -> FireSetup:
    """The fire set-up of the Dürenstein game (the check asks it; the fire then finds it made): through
    :func:`fire_action`'s own memo, with its arguments as it passes them (no ammunition short)."""
    return cached(fire_setup)(sc or default_scenario(), game, units, target, defensive, cavalry_fire, moved, ())


# ------------------------------------------------------------------------------------------------
# In the game: both Fire Segments (6.3.1)
# ------------------------------------------------------------------------------------------------
def fire_candidates(ctx: Queries, s: TbfState, side: str, defensive: bool) -> list[Fire]:
    sc, g = ctx.sc, s.game
    grid = sc.board.grid
    imp = s.activation
    targets: Set[str]
    if defensive:
        side_of, units = sc.side_of, sc.units
        shooters = [q for q in g.placed if side_of[q.id] == side and q.id in units
                    and q.id not in imp.defensive_fired]
        targets = {h for u in imp.units if (h := g.piece(u).hex) and g.piece(u).status in LIVE}
    else:
        shooters = [g.piece(u) for u in imp.units if g.piece(u).hex and not book(imp, u).fired]
        targets = occupied(sc, g, side)[0]         # the hexes of live enemy units
    cav = "11.1" in s.options
    shooters = [q for q in shooters if q.status in ACTING and (
        (sc.units[q.id].ff > 0 and sc.units[q.id].kind != "cavalry")
        or (cav and sc.units[q.id].kind == "cavalry" and sc.units[q.id].ff_red > 0))]        # 11.1 A
    lone: list[Piece] = []
    if defensive:                   # 6.3.5: a leader alone in his hex may fire defensively
        by_hex = ctx.units_in(s)
        lone = [q for q in g.on_map() if q.id in sc.leaders and sc.side(q.id) == side and q.status == Status.NORMAL
                and q.id not in imp.defensive_fired and q.hex is not None and not by_hex.get(q.hex)]
    out: list[Fire] = []
    # 6.3.3: artillery reaches 4 hexes in offensive fire; everyone else fires at adjacent hexes only.
    # Each target's firers, in the order of the shooters (each shooter asks about the targets it reaches)
    by_target: dict[str, list[str]] = {}
    alone: dict[str, list[str]] = {}
    nbs = grid.neighbours
    for q in lone:
        for t in nbs(q.hex):
            if t in targets:
                alone.setdefault(t, []).append(q.id)
    for q in shooters:
        if q.hex is None:
            continue                                # (shooters stand on the map)
        if not defensive and sc.units[q.id].kind == "artillery":
            ring = ctx.artillery_hexes(q.hex)
            reached = [t for t in targets if t in ring]
        else:
            reached = [t for t in nbs(q.hex) if t in targets]
        for t in reached:
            by_target.setdefault(t, []).append(q.id)
    for t in sorted(by_target.keys() | alone.keys()):
        out += [Fire(side, (u,), t) for u in alone.get(t, ())]
        ids = by_target.get(t, ())
        for u in ids:
            out.append(Fire(side, (u,), t))
        # 6.3.7 A: any of the units that may fire at a hex may combine: every group of two or more, smaller
        # groups first, all of them last
        for n in range(2, len(ids) + 1):
            out += [Fire(side, grp, t) for grp in combinations(sorted(ids), n)]
    return out


def check_fire(ctx: Queries, s: TbfState, a: Fire) -> None:
    sc, g, imp = ctx.sc, s.game, s.activation
    defensive = imp.segment == Segment.DEFENSIVE_FIRE
    if not a.units or len(set(a.units)) != len(a.units):
        raise RuleViolation("6.3.7 A", "name each firing unit once")
    target = sc.board.check_hex(a.target, "6.3")
    for uid in a.units:
        if uid not in sc.units and uid not in sc.leaders:
            raise RuleViolation("2.4", f"no unit or leader {uid!r} in this game")
        if sc.side(uid) != a.side:
            raise RuleViolation("6.3.7 A", f"{uid} is not a {a.side} unit")
        p = g.piece(uid)
        if p.hex is None or p.status in GONE:
            raise RuleViolation("6.3", f"{uid} is not on the map")
        if sc.is_leader(uid):
            if not defensive:
                raise RuleViolation("6.3.5", f"leader {uid} fires only in the Defensive Fire Segment")
            if p.status != Status.NORMAL or ctx.units_in(s).get(p.hex):
                raise RuleViolation("6.3.5", f"leader {uid} fires only when alone in his hex")
            if uid in imp.defensive_fired:
                raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
            continue
        u = sc.units[uid]
        if u.kind == "cavalry":
            if "11.1" not in s.options:
                raise RuleViolation("6.3.2 D", f"{uid} is cavalry: cavalry does not fire (optional rule 11.1 not chosen)")
            if u.ff_red <= 0:
                raise RuleViolation("11.1 A", f"{uid} has no red FF: only dragoons and carabiniers fire")
            if sc.board.grid.distance(p.hex, target) != 1:
                raise RuleViolation("11.1 B", f"{uid} fires only at an adjacent hex")
        elif p.status == Status.ROUTED or u.ff <= 0:
            raise RuleViolation("6.3.2 C", f"{uid} may not fire (routed or no FF)")
        if p.status == Status.ROUTED:
            raise RuleViolation("6.3.2 C", f"{uid} is routed: it may not fire")
        if uid in s.rear_guard and not ctx.in_rear_rows(target):
            raise RuleViolation("9.2 G", f"{uid} is in the Rear Guard: it acts only inside rows XX01-XX06")
        if defensive:
            if uid in imp.defensive_fired:
                raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
        else:
            check_actor(ctx, s, uid, "fire")
            if p.status == Status.FATIGUED:
                raise RuleViolation("4.2.4 C", f"{uid} is fatigued: it may fire only defensively")
            if book(imp, uid).fired:
                raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
    if defensive:
        if not any(g.piece(u).hex == target for u in imp.units):
            raise RuleViolation("6.3.1 A", f"defensive fire is at activated enemy units; none is in {target}")
        for uid in a.units:
            if sc.board.grid.distance(g.piece(uid).hex, target) != 1:
                raise RuleViolation("6.3.6", f"defensive fire is only into adjacent hexes; {uid} is not next to {target}")
    cached_fire_setup(g, tuple(a.units), target, defensive, *fire_options(ctx, s, a.units, defensive), sc=sc)


def fire_options(ctx: Queries, s: TbfState, units: Iterable[str], defensive: bool) -> tuple[bool, tuple[str, ...]]:
    """11.1: cavalry may fire when the option is on; those that moved this segment take -1 (11.1 C)."""
    if "11.1" not in s.options:
        return False, ()
    moved = () if defensive else tuple(u for u in units if u in ctx.sc.units
                                       and ctx.sc.units[u].kind == "cavalry" and book(s.activation, u).moved)
    return True, moved


def do_fire(ctx: Queries, s: TbfState, a: Fire) -> Steps[TbfState]:
    defensive = s.activation.segment == Segment.DEFENSIVE_FIRE
    sc = ctx.sc
    short: tuple[str, ...] = ()
    if ("11.2" in s.options and a.side == Side.FRENCH and s.turn >= ctx.td.ammo.first_turn
            and road_blocked(sc, s.game, "Dürenstein")):                   # 11.2 A
        gazan = tuple(u for u in a.units if u in sc.units and sc.units[u].kind == "infantry"
                      and sc.units[u].command.split("-")[0] == "II")     # 11.2 clarification: Gazan's only
        if gazan:
            if (yield from ammo_shortage()):
                short = gazan
                yield Log("11.2 B", f"ammunition short: {', '.join(gazan)} fire at half FF")
    cav, moved = fire_options(ctx, s, a.units, defensive)
    g = yield from fire_action(sc, s.game, tuple(a.units), a.target, defensive, cav, moved, short)
    imp = s.activation
    if defensive:
        imp = replace(imp, defensive_fired=imp.defensive_fired + tuple(a.units))
        # a defensive shot does not activate the firer
        for u in a.units:
            if g.piece(u).hex is not None:
                g = g.with_piece(u, activated=s.game.piece(u).activated)
    else:
        for u in a.units:
            imp = with_book(imp, replace(book(imp, u), fired=True))
    return replace(s, game=g, impulse=imp)
