"""The Napoleonic 20 map as an immutable value: hexes and terrain, hexside features, roads, LOC hexes,
objectives, entry areas, garrisons, and the Zones of Control units project onto it (7.0).

Loaded from ``data/n20/<game>/map.yaml`` (format in docs/n20-battles.md and ARCHITECTURE.md) by
:func:`load_board`; a bad file raises :class:`~engine.core.errors.DataError` naming file, field and
expectation (unknown terrain, a hexside between hexes that are not adjacent, a hex off the grid, ...).
Combat and movement values of terrain are not here: they come from the tables file's TEC.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Union

from pydantic import Field, model_validator

from engine.core.data import Source, Strict, load_yaml, parse_yaml
from engine.core.hexgrid import HexGrid

from .units import Unit

__all__ = ["Board", "MapModel", "load_board", "parse_board", "Garrison", "BUILT_UP", "RUGGED"]

Terrain = Literal["clear", "forest", "rough", "marsh", "town", "fortified", "redoubt"]
Feature = Literal["minor_river", "major_river", "bridge", "ford", "slope", "steep_slope"]
#: 7.0 / 9.4.3: built-up hexes; ZOCs do not pass between two adjacent ones.
BUILT_UP = frozenset({"town", "fortified", "redoubt"})
#: 6.5: rugged terrain stops a mover.
RUGGED = frozenset({"forest", "rough", "marsh"})


# ------------------------------------------------------------------------------------------------
# File model
# ------------------------------------------------------------------------------------------------
class GridModel(Strict):
    orientation: Literal["flat", "pointy"] = "flat"
    shifted: Literal["even", "odd"] = "even"
    cols: int = Field(ge=1)
    rows: int = Field(ge=1)


class GarrisonModel(Strict):
    side: Literal["french", "allied"]
    strength: int = Field(default=0, ge=0)


class HexModel(Strict):
    terrain: Terrain = "clear"
    name: str = ""
    garrison: GarrisonModel | None = None


class HexsideModel(Strict):
    hexes: tuple[str, str]
    features: list[Feature] = Field(min_length=1)
    upslope: str | None = None


class ObjectiveModel(Strict):
    hex: str
    side: Literal["french", "allied"]
    points: int = 1


class MapModel(Strict):
    source: Source
    notes: str = ""
    name: str = ""
    grid: GridModel
    default_terrain: Terrain = "clear"
    hexes: dict[str, Union[Terrain, HexModel]] = {}
    hexsides: list[HexsideModel] = []
    roads: list[list[str]] = []
    loc: dict[Literal["french", "allied"], list[str]] = {}
    objectives: list[ObjectiveModel] = []
    entry_areas: dict[str, list[str]] = {}
    prohibited: list[str] = []

    @model_validator(mode="after")
    def _geometry(self):
        g = HexGrid(self.grid.orientation, self.grid.shifted, self.grid.cols, self.grid.rows)

        def on_map(label: str, where: str) -> None:
            if not g.in_bounds(label):
                raise ValueError(f"{where}: a hex label on the {self.grid.cols}x{self.grid.rows} grid (got {label!r})")

        for h in self.hexes:
            on_map(h, "hexes")
        for i, hs in enumerate(self.hexsides):
            a, b = hs.hexes
            on_map(a, f"hexsides[{i}].hexes")
            on_map(b, f"hexsides[{i}].hexes")
            if not g.adjacent(a, b):
                raise ValueError(f"hexsides[{i}].hexes: two adjacent hexes ({a} and {b} are not adjacent)")
            slopes = {"slope", "steep_slope"} & set(hs.features)
            if slopes and hs.upslope not in (a, b):
                raise ValueError(f"hexsides[{i}].upslope: one of {a}, {b} (the higher hex of a slope)")
        for i, road in enumerate(self.roads):
            for j, h in enumerate(road):
                on_map(h, f"roads[{i}][{j}]")
                if j and not g.adjacent(road[j - 1], h):
                    raise ValueError(f"roads[{i}][{j}]: a hex adjacent to the previous road hex ({road[j - 1]})")
        for side, hexes in self.loc.items():
            for h in hexes:
                on_map(h, f"loc.{side}")
        for i, o in enumerate(self.objectives):
            on_map(o.hex, f"objectives[{i}].hex")
        for name, hexes in self.entry_areas.items():
            for h in hexes:
                on_map(h, f"entry_areas.{name}")
        for h in self.prohibited:
            on_map(h, "prohibited")
        return self


# ------------------------------------------------------------------------------------------------
# The value type
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Garrison:
    """9.4.4: an intrinsic garrison in a hex (strength 0 unless the exclusive rules say otherwise)."""

    hex: str
    side: str
    strength: int = 0


@dataclass(frozen=True, eq=False)
class Board:
    """A Napoleonic 20 map. Immutable; compared by identity. Build it with :func:`load_board`."""

    name: str
    grid: HexGrid
    source: str
    notes: str = ""
    default_terrain: str = "clear"
    terrain_of: dict = field(default_factory=dict)        # hex -> terrain (only non-default)
    names: dict = field(default_factory=dict)             # hex -> place name
    garrisons: dict = field(default_factory=dict)         # hex -> Garrison
    features: dict = field(default_factory=dict)          # frozenset(a, b) -> frozenset of features
    upslope: dict = field(default_factory=dict)           # frozenset(a, b) -> the higher hex
    road_links: frozenset = frozenset()                   # frozensets of two adjacent road hexes
    road_hexes: frozenset = frozenset()
    loc: dict = field(default_factory=dict)               # side -> tuple of LOC hexes (9.8.6)
    objectives: tuple = ()                                # (hex, side, points)
    entry_areas: dict = field(default_factory=dict)       # name -> tuple of hexes
    prohibited: frozenset = frozenset()
    # derived when the board is made (never written afterwards; not compared: boards compare by identity)
    hexes: tuple = field(init=False, repr=False)        # every hex of a bounded grid
    _cubes: dict = field(init=False, repr=False)        # hex -> cube coordinates
    _zoc: dict = field(init=False, repr=False)          # hex -> the hexes its ZOC reaches (7.0)
    #: the loaded map this one was made from by :meth:`with_terrain` (itself for a loaded map): it has the
    #: same grid, hexsides, roads and prohibited hexes, so what is worked out from those alone (neighbours,
    #: distances, retreat steps) is worked out once for both
    base: "Board" = field(init=False, repr=False)
    #: hexes whose terrain differs from ``base``'s (empty for a loaded map)
    terrain_changed: frozenset = field(init=False, repr=False)

    def __post_init__(self):
        bounded = self.grid.cols is not None and self.grid.rows is not None
        hexes = tuple(self.grid.all_hexes()) if bounded else ()
        d = self.__dict__
        d["hexes"] = hexes
        d["_cubes"] = {h: self.grid.to_cube(h) for h in hexes}
        d["_zoc"] = {h: self._zoc_now(h) for h in hexes}
        d["base"] = self
        d["terrain_changed"] = frozenset()

    def with_terrain(self, changes: dict) -> "Board":
        """This map with the terrain of some hexes changed (Fuentes 14.2: Fieldworks count as Redoubt), a
        new board made from this one: only the ZOCs of the changed hexes and of their neighbours are
        worked out again (7.0: a ZOC depends on the terrain of the two hexes alone)."""
        new = object.__new__(Board)
        d = new.__dict__
        d.update(self.__dict__)
        terrain = dict(self.terrain_of)
        terrain.update(changes)
        d["terrain_of"] = terrain
        base = self.base
        changed = {h for h in set(self.terrain_changed) | set(changes) if new.terrain(h) != base.terrain(h)}
        d["terrain_changed"] = frozenset(changed)
        zoc = dict(self._zoc)
        touched = set(changes)
        for h in changes:
            touched.update(self.neighbours(h))
        for h in touched:
            if h in zoc:
                zoc[h] = new._zoc_now(h)
        d["_zoc"] = zoc
        return new

    # Hexes ------------------------------------------------------------------------------------
    def on_map(self, h: str) -> bool:
        return self.grid.in_bounds(h)

    def terrain(self, h: str) -> str:
        return self.terrain_of.get(h, self.default_terrain)

    def neighbours(self, h: str) -> list[str]:
        return self.grid.neighbours(h)

    def distance(self, a: str, b: str) -> int:
        c = self._cubes
        try:
            qa, ra, sa = c[a]
            qb, rb, sb = c[b]
        except KeyError:
            return self.grid.distance(a, b)
        return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))

    def is_built_up(self, h: str) -> bool:
        return self.terrain(h) in BUILT_UP

    # Hexsides ---------------------------------------------------------------------------------
    def hexside_features(self, a: str, b: str) -> frozenset[str]:
        return self.features.get(frozenset((a, b)), frozenset())

    def upslope_hex(self, a: str, b: str) -> str | None:
        return self.upslope.get(frozenset((a, b)))

    def major_river_between(self, a: str, b: str) -> bool:
        return "major_river" in self.hexside_features(a, b)

    def crossing_allowed(self, a: str, b: str) -> bool:
        """9.8.1 / 9.9.6: a Major River hexside may only be crossed at a bridge or ford."""
        f = self.hexside_features(a, b)
        return "major_river" not in f or bool({"bridge", "ford"} & f)

    def river_crossing(self, a: str, b: str) -> bool:
        """9.8.4: crossing a Minor River, or a Major River by bridge or ford (a retreat hazard)."""
        f = self.hexside_features(a, b)
        return "minor_river" in f or ("major_river" in f and bool({"bridge", "ford"} & f))

    def is_road_link(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.road_links

    def adjacent_for_combat(self, a: str, b: str, edition_bridge_adjacent: bool = False) -> bool:
        """7.0 / 9.4.3: units across a Major River cannot fight each other except, when
        ``edition_bridge_adjacent`` (parameters.yaml ``major_river_bridge_adjacent``), at a bridge or ford."""
        if not self.grid.adjacent(a, b):
            return False
        f = self.hexside_features(a, b)
        if "major_river" not in f:
            return True
        return edition_bridge_adjacent and bool({"bridge", "ford"} & f)

    # Zones of control ------------------------------------------------------------------------------
    def zoc_extends(self, src: str, dst: str) -> bool:
        """7.0 / 9.4.3: a ZOC reaches the six neighbours, but not into Fortified or Redoubt hexes, not
        between two adjacent built-up (Town/Fortified/Redoubt) hexes, and not across a Major River
        (even at a bridge or ford)."""
        td = self.terrain(dst)
        if td in ("fortified", "redoubt"):
            return False
        if td in BUILT_UP and self.terrain(src) in BUILT_UP:
            return False
        if self.major_river_between(src, dst):
            return False
        return True

    def zoc_of(self, h: str) -> frozenset[str]:
        """The hexes a ZOC-exerting unit (or garrison) in ``h`` controls (7.0)."""
        z = self._zoc.get(h)
        return z if z is not None else self._zoc_now(h)

    def _zoc_now(self, h: str) -> frozenset[str]:
        return frozenset(n for n in self.neighbours(h) if self.zoc_extends(h, n))

    def zoc_hexes(self, units: Iterable[Unit], side: str, night: bool = False, edition_night_zoc: str = "reversed",
                  garrisons: bool = True) -> frozenset[str]:
        """Hexes in the ZOC of ``side``'s units (and of its garrisons in hexes no unit occupies, 9.4.4).

        Units without a ZOC (Routed! 9.6.3, stragglers 16.7.5, squares 17.1, leaders 16.9) add nothing.
        At night (``night=True``) the older edition has no ZOCs at all (7.6 of 001, ``edition_night_zoc="none"``);
        in v3.0 they still exist (7.6: entering them is what night forbids) and are returned.
        """
        if night and edition_night_zoc == "none":
            return frozenset()
        units = list(units)
        out: set[str] = set()
        occupied = {u.hex for u in units if u.hex is not None}
        for u in units:
            if u.side == side and u.hex is not None and u.exerts_zoc and u.type != "leader":
                out |= self.zoc_of(u.hex)
        if garrisons:
            for g in self.garrisons.values():
                if g.side == side and g.hex not in occupied:
                    out |= self.zoc_of(g.hex)
        return frozenset(out)

    # LOC -------------------------------------------------------------------------------------------
    def loc_hexes(self, side: str) -> tuple[str, ...]:
        return tuple(self.loc.get(side, ()))

    def loc_distance(self, side: str, h: str, loc: str) -> int:
        return self.grid.distance(h, loc)

    def to_json(self) -> dict:
        return {
            "name": self.name, "source": self.source,
            "grid": {"orientation": self.grid.orientation, "shifted": self.grid.shifted,
                     "cols": self.grid.cols, "rows": self.grid.rows},
            "default_terrain": self.default_terrain,
            "terrain": dict(self.terrain_of), "names": dict(self.names),
            "garrisons": {h: {"side": g.side, "strength": g.strength} for h, g in self.garrisons.items()},
            "hexsides": [{"hexes": sorted(k), "features": sorted(v),
                          **({"upslope": self.upslope[k]} if k in self.upslope else {})}
                         for k, v in self.features.items()],
            "roads": [sorted(link) for link in self.road_links],
            "loc": {s: list(v) for s, v in self.loc.items()},
            "objectives": [{"hex": h, "side": s, "points": p} for h, s, p in self.objectives],
            "entry_areas": {k: list(v) for k, v in self.entry_areas.items()},
            "prohibited": sorted(self.prohibited),
        }


def board_from_model(m: MapModel) -> Board:
    grid = HexGrid(m.grid.orientation, m.grid.shifted, m.grid.cols, m.grid.rows)
    terrain, names, garrisons = {}, {}, {}
    for h, spec in m.hexes.items():
        if isinstance(spec, str):
            spec = HexModel(terrain=spec)
        if spec.terrain != m.default_terrain:
            terrain[h] = spec.terrain
        if spec.name:
            names[h] = spec.name
        if spec.garrison is not None:
            garrisons[h] = Garrison(h, spec.garrison.side, spec.garrison.strength)
    features, upslope = {}, {}
    for hs in m.hexsides:
        k = frozenset(hs.hexes)
        features[k] = features.get(k, frozenset()) | frozenset(hs.features)
        if hs.upslope:
            upslope[k] = hs.upslope
    links, road_hexes = set(), set()
    for road in m.roads:
        road_hexes.update(road)
        for a, b in zip(road, road[1:]):
            links.add(frozenset((a, b)))
    return Board(name=m.name, grid=grid, source=m.source, notes=m.notes, default_terrain=m.default_terrain,
                 terrain_of=terrain, names=names, garrisons=garrisons, features=features, upslope=upslope,
                 road_links=frozenset(links), road_hexes=frozenset(road_hexes),
                 loc={s: tuple(v) for s, v in m.loc.items()},
                 objectives=tuple((o.hex, o.side, o.points) for o in m.objectives),
                 entry_areas={k: tuple(v) for k, v in m.entry_areas.items()},
                 prohibited=frozenset(m.prohibited))


def load_board(path: str | Path) -> Board:
    """Load and check a map file (``data/n20/<game>/map.yaml`` or a test map in ``data/examples/``)."""
    return board_from_model(load_yaml(path, MapModel))


def parse_board(text: str, name: str = "<map>") -> Board:
    return board_from_model(parse_yaml(text, MapModel, name))
