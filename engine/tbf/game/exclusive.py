"""The Dürenstein scenario's own rules: who may activate when (9.1 E, 9.2 H-I, 9.4 and the releases that lift
those limits), the Elite battalion's parent regiments (8.3 A-C), where mustering columns deploy (9.2 C-D),
the Rear Guard's rows (9.2 G) and the Coalition block of the Danube road (11.2 A, 10.2.1)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from engine.core.errors import RuleViolation
from engine.core.hexgrid import HexGrid

from ..scenario import Scenario
from .state import GameState, Piece
from .types import LIVE, Side

__all__ = ["releases", "releases_now", "ALL_RELEASED", "activation_allowed", "ELITE_PARENTS", "factors", "road_blocked",
           "muster_hexes", "REAR_GUARD_ROWS"]

REAR_GUARD_ROWS = 6          # 9.2 G: the Rear Guard stays in hex rows XX01-XX06


def road_blocked(sc: Scenario, st: GameState, town: str = "Dürenstein") -> bool:
    """Is a Coalition unit on the Danube road between ``town`` and the west edge (0109)? (11.2 A; the same
    stretch of road 10.2.1 asks to be free.)"""
    road = [h for r in sc.board.data.roads if r.name.startswith("Danube") for h in r.hexes]
    hs = sc.board.data.towns.get(town, [])
    idx = max((road.index(h) for h in hs if h in road), default=len(road))
    seg = set(road[:idx + 1])
    return any(p.hex in seg and sc.side(p.id) == Side.COALITION and p.status in LIVE and not sc.is_leader(p.id)
               for p in st.on_map())


@lru_cache(maxsize=64)
def _zone(grid: HexGrid, centres: tuple[str, ...], radius: int) -> frozenset[str]:
    """Every hex within ``radius`` of one of ``centres``."""
    return frozenset(h for c in centres for h in grid.within(c, radius))


_RELEASES: dict[tuple[str, GameState], tuple[Scenario, GameState]] = {}


def releases(sc: Scenario, st: GameState) -> GameState:
    """See :func:`releases_now` (memoised by state: every activation check asks it)."""
    key = (sc.key, st)
    got = _RELEASES.get(key)
    if got is None:
        if len(_RELEASES) > 2048:
            _RELEASES.clear()
        got = _RELEASES[key] = (sc, releases_now(sc, st))
    return got[1]


def releases_now(sc: Scenario, st: GameState) -> GameState:
    """Flags the scenario's release conditions that now hold: Column V (9.2 H) and VI (9.2 I) when a
    French unit comes within three hexes of their set-up; the rest of Gazan's division when Column I
    reaches hex row 18XX or turn 4 (9.4 C); the Elite battalion when a Coalition unit is next to it, or
    from turn 6 with Mortier or Gazan with or next to it (9.4 B)."""
    flags = st.flags
    if ALL_RELEASED <= flags:
        return st                                   # every release has happened
    act = sc.file.activation
    zone_v, zone_vi, column_i, west = _release_zones(sc)
    units, side_of, occ = sc.units, sc.side_of, st.by_hex

    def any_unit(hexes: Iterable[str], ok: Callable[[Piece], bool]) -> bool:
        """A live unit (not a leader) in one of ``hexes`` for which ``ok(piece)`` holds."""
        for h in hexes:
            for p in occ.get(h, ()):
                if p.id in units and p.status in LIVE and ok(p):
                    return True
        return False

    def french(p: Piece) -> bool:
        return side_of[p.id] == Side.FRENCH

    # only the occupied hexes of each zone are looked at (the position's hexes with pieces in them)
    if "column_V_released" not in flags and any_unit(occ.keys() & zone_v, french):
        st = st.with_flag("column_V_released")
    if zone_vi is not None and "column_VI_deployed" not in flags and any_unit(occ.keys() & zone_vi, french):
        st = st.with_flag("column_VI_deployed")
    if "french_released" not in flags and (st.turn >= act.french_release_turn or any_unit(
            occ.keys() & west, lambda p: p.id in column_i)):    # a Column I unit in hex row 18XX or west of it
        st = st.with_flag("french_released")
    elite = st.piece("elite") if "elite" in units else None
    if elite is not None and elite.hex and "elite_released" not in flags:
        g = sc.board.grid
        if any_unit(g.neighbours(elite.hex), lambda p: side_of[p.id] == Side.COALITION):      # next to it
            st = st.with_flag("elite_released")
        if st.turn >= act.elite_release_turn and any(
                st.piece(l).hex and g.distance(st.piece(l).hex, elite.hex) <= 1 for l in ("mortier", "gazan")
                if l in sc.leaders):
            st = st.with_flag("elite_released")
    return st


ALL_RELEASED = frozenset({"column_V_released", "column_VI_deployed", "french_released", "elite_released"})


#: Column V's zone, Column VI's (None without one), Column I's units, the hexes up to the release row
Zones = tuple[frozenset[str], frozenset[str] | None, frozenset[str], frozenset[str]]
_RELEASE_ZONES: dict[str, Zones] = {}


def _release_zones(sc: Scenario) -> Zones:
    """What :func:`releases_now` measures against, from the scenario alone (made once per scenario): the hexes
    within three of Column V's set-up (9.2 H) and of Column VI's (9.2 I; None without one), Column I's
    units, and the hexes of the hex rows up to the release row (9.4 C)."""
    got = _RELEASE_ZONES.get(sc.key)
    if got is None:
        g = sc.board.grid
        v_hexes = [h for pid, h in sc.file.setup.coalition.items() if pid.startswith("cv-") or pid == "kolloredo"]
        vi = sc.board.data.setup_numbers.get("VI")
        column_i = frozenset(u for u, d in sc.units.items() if d.command == "I" and d.side == Side.COALITION)
        row = sc.file.activation.french_release_row
        west = frozenset(h for h in sc.board.hexes() if g.parse(h)[0] <= row)
        got = _RELEASE_ZONES[sc.key] = (_zone(g, tuple(v_hexes), 3), _zone(g, (vi,), 3) if vi else None, column_i,
                                        west)
    return got


def activation_allowed(sc: Scenario, st: GameState, pid: str) -> tuple[bool, str]:
    """May this leader or unit activate now under the scenario's limits? (allowed, rule and reason)."""
    act = sc.file.activation
    st = releases(sc, st)
    if sc.side(pid) == Side.COALITION:
        if pid in sc.units:
            col = sc.units[pid].command
        else:
            ld = sc.leaders[pid]                    # (ids are unique: a leader; sc.side knew it)
            col = ld.command if ld.rank == "column" else "army"
        if col == "army":
            return True, "6.1.2 B: Kutusov"
        if col in act.coalition_start:
            return True, "9.1 E"
        if col in ("II", "III") and f"column_{col}_mustered" in st.flags:
            return True, "9.2 B"
        if col == "V" and "column_V_released" in st.flags:
            return True, "9.2 H"
        if col == "VI":
            # 9.2 I: once deployed, Column VI may fire and melee under Kutusov, but never moves (the
            # game protocol refuses its moves and charges)
            return ("column_VI_deployed" in st.flags, "9.2 I: Column VI acts only once deployed, and never moves")
        if col == "IV":
            return ("optional_11.4" in st.flags, "11.4: Column IV only with the optional rule")
        return False, f"9.1 E / 9.2: Column {col} is not available yet"
    if pid == "elite":
        return ("elite_released" in st.flags, "9.4 B")
    if pid in act.french_start_units or pid in act.french_start_leaders:
        return True, "9.4 A"
    if pid in sc.file.setup.french:
        return ("french_released" in st.flags, "9.4 C")
    return True, "9.6.2: reinforcements activate once on the map"


ELITE_PARENTS = ("100", "103")


def factors(sc: Scenario, st: GameState, uid: str) -> tuple[int, int]:
    """A unit's FF and MF as they fight now: the 100th and 103rd lose 1 FF and 2 MF while the Elite
    battalion exists or is eliminated and not regrouped (8.3 A-C)."""
    u = sc.units[uid]
    ff, mf = u.ff, u.mf
    if (u.side == Side.FRENCH and u.regiment in ELITE_PARENTS and "elite" in sc.units
            and not st.flags & {"elite_disbanded", "elite_regrouped"}):
        ff, mf = max(0, ff - 1), max(0, mf - 2)
    return ff, mf


def muster_hexes(sc: Scenario, column: str) -> list[str]:
    """Where a mustering column deploys (9.2 C-D): Column II within two hexes of 0805 on Level 1 or town
    hexes, Column III within two hexes of 1307 on Level 2 hexes only."""
    b, g = sc.board, sc.board.grid
    centre = b.data.setup_numbers.get(column)
    if column not in ("II", "III") or centre is None:
        raise RuleViolation("9.2", f"only Columns II and III muster onto the map, not {column!r}")
    if column == "II":
        ok = lambda h: b.terrain(h) == "town" or (b.level(h) == 1 and b.terrain(h) != "river")
    else:
        ok = lambda h: b.level(h) == 2
    return sorted(h for h in g.within(centre, 2) if ok(h))
