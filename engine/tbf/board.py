"""The Dürenstein map as data, and its geometry: terrain, levels, roads, facing and frontal hexes (4.3),
line of sight (4.4), movement costs (6.2.2-6.2.7).
"""
from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field, model_validator

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml, provenance_kind
from engine.core.errors import RuleViolation
from engine.core.hexgrid import Cube, HexGrid

from .tables import Tables, digest

__all__ = ["GridSpec", "MapFile", "Board", "LosResult", "load_board", "default_board", "default_grid",
           "frontal_hexes", "TERRAIN_LETTERS", "DEFAULT_MAP"]

TERRAIN_LETTERS = {"0": "level0", "1": "level1", "2": "level2", "3": "level3", "v": "vineyard", "t": "town",
                   "~": "river"}
DEFAULT_MAP = data_path("tbf", "durenstein", "map.yaml")
#: the MPs of one step and whether it is along a road: an int, ``("level", n)`` for a Level 2/3 hex, None
#: when prohibited (6.2.2-6.2.7)
StepCost = tuple[int | tuple[str, int] | None, bool]


class GridSpec(Strict):
    orientation: Literal["flat", "pointy"] = "flat"
    shifted: Literal["even", "odd"] = "even"
    cols: int = Field(ge=1, le=99)
    rows: int = Field(ge=1, le=99)


class Road(Strict):
    name: str
    hexes: list[str]
    needs_bridge: bool = False


class EntryHexes(Strict):
    french: list[str]
    coalition: list[str]


class MapFile(Sourced):
    grid: GridSpec
    terrain_rows: dict[str, str]
    town_levels: dict[str, int] = Field(default_factory=dict)
    towns: dict[str, list[str]] = Field(default_factory=dict)
    roads: list[Road] = Field(default_factory=list)
    walled_road: list[str] = Field(default_factory=list)
    west_edge_road: list[str] = Field(default_factory=list)
    bridge: list[str] = Field(default_factory=list)
    strong_point: str | None = None
    grand_battery: dict[str, list[str]] = Field(default_factory=dict)
    entry_hexes: EntryHexes
    named_entries: dict[str, str] = Field(default_factory=dict)
    setup_numbers: dict[str, str] = Field(default_factory=dict)
    dark_blue_line: list[list[str]] = Field(default_factory=list)
    light_blue_line: list[list[str]] = Field(default_factory=list)
    provenance: dict[str, Source] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> MapFile:
        g = HexGrid(self.grid.orientation, self.grid.shifted, self.grid.cols, self.grid.rows)
        want = [f"{r:02d}" for r in range(1, self.grid.rows + 1)]
        if sorted(self.terrain_rows) != want:
            raise ValueError(f"terrain_rows must have one string for each row 01..{self.grid.rows:02d}")
        for k, s in self.terrain_rows.items():
            if len(s) != self.grid.cols:
                raise ValueError(f"terrain row {k} must have {self.grid.cols} letters, not {len(s)}")
            bad = set(s) - set(TERRAIN_LETTERS)
            if bad:
                raise ValueError(f"terrain row {k}: unknown letter {sorted(bad)[0]!r} (use {' '.join(TERRAIN_LETTERS)})")

        def on_map(h: str, what: str) -> None:
            if not g.in_bounds(str(h)):
                raise ValueError(f"{what}: {h!r} is not a hex of the map")

        for name, hs in self.towns.items():
            for h in hs:
                on_map(h, f"town {name}")
        for road in self.roads:
            for h in road.hexes:
                on_map(h, f"road {road.name}")
            for a, b in zip(road.hexes, road.hexes[1:]):
                if g.distance(a, b) != 1:
                    raise ValueError(f"road {road.name}: {a} and {b} are not adjacent")
        for what in ("walled_road", "west_edge_road", "bridge"):
            for h in getattr(self, what):
                on_map(h, what)
        for what in ("dark_blue_line", "light_blue_line"):
            for pair in getattr(self, what):
                if len(pair) != 2 or g.distance(pair[0], pair[1]) != 1:
                    raise ValueError(f"{what}: {pair} must be two adjacent hexes (a hexside)")
        for side in (self.entry_hexes.french, self.entry_hexes.coalition):
            for h in side:
                on_map(h, "entry_hexes")
        return self


@dataclass(frozen=True)
class LosResult:
    clear: bool
    blocked_by: str | None = None
    rule: str = "4.4"
    path: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class TbfGrid(HexGrid):
    """The board's :class:`HexGrid` answering distances, neighbours and bounds from plain dicts made with
    it (every hex of the map; other labels are worked out each time): the same answers, without hashing
    the frozen grid for the core's caches on every call (the game asks for hundreds of thousands of
    distances). Equal to, and hashed like, its HexGrid; nothing is written into it after construction."""

    if TYPE_CHECKING:
        # made in __post_init__, read by the bots' distances: not a field (the grid compares, hashes and
        # prints as its HexGrid), so declared to the type checker alone
        cube_of: ClassVar[dict[str, Cube]]

    def __post_init__(self) -> None:
        super().__post_init__()
        labels = HexGrid.all_hexes(self)
        put = object.__setattr__
        put(self, "cube_of", {h: HexGrid.to_cube(self, h) for h in labels})
        put(self, "_bounds", dict.fromkeys(labels, True))
        put(self, "_nb", {(h, d): HexGrid.neighbour(self, h, d) for h in labels for d in range(6)})
        put(self, "_nbs", {})
        put(self, "_nbs", {h: HexGrid.neighbours(self, h) for h in labels})

    # (left unannotated, as HexGrid's answers looked up: typed, they would ask each caller passing a piece's
    # hex -- None off the map -- to narrow it where the piece is known to stand on the map)
    def to_cube(self, label):
        c = self.cube_of.get(label)
        return c if c is not None else HexGrid.to_cube(self, label)

    def distance(self, a, b):
        cubes = self.cube_of
        ca = cubes.get(a) or HexGrid.to_cube(self, a)
        cb = cubes.get(b) or HexGrid.to_cube(self, b)
        return max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))

    def neighbours(self, label):
        got = self._nbs.get(label)
        return got if got is not None else HexGrid.neighbours(self, label)

    def neighbour(self, label, direction):
        got = self._nb.get((label, direction), 0)
        return got if got != 0 else HexGrid.neighbour(self, label, direction)

    def in_bounds(self, label):
        return self._bounds.get(label) or HexGrid.in_bounds(self, label)


@lru_cache(maxsize=65536)
def frontal_hexes(grid: HexGrid, hex_: str, facing: int, kind: str = "infantry", status: str = "normal",
                  all_round: bool = False) -> frozenset[str]:
    """The hexes a unit faces (4.3 C): across its faced hexside and the two beside it.

    Fatigued or routed infantry and cavalry have none (4.2.4 E); artillery keeps its front on both
    sides (4.3 A); the Elite battalion in the Strong Point faces all six (8.4 B).
    """
    if kind in ("infantry", "cavalry") and status != "normal":
        return frozenset()
    if all_round:
        return frozenset(grid.neighbours(hex_))
    out: set[str] = set()
    for d in ((facing - 1) % 6, facing % 6, (facing + 1) % 6):
        n = grid.neighbour(hex_, d)
        if n is not None:
            out.add(n)
    return frozenset(out)


class Board:
    """A loaded map with its geometry."""

    def __init__(self, data: MapFile, file: str = "") -> None:
        self.data = data
        self.file = file
        self.key = "board:" + digest(data.model_dump(mode="json"))     # the map's content, for memo keys
        gs = data.grid
        self.grid = TbfGrid(gs.orientation, gs.shifted, gs.cols, gs.rows)
        self._terrain: dict[str, str] = {}
        for k, s in data.terrain_rows.items():
            r = int(k)
            for i, ch in enumerate(s):
                self._terrain[self.grid.label(i + 1, r)] = TERRAIN_LETTERS[ch]
        self.town_of: dict[str, str] = {h: name for name, hs in data.towns.items() for h in hs}
        self._roads: dict[bool, frozenset[frozenset[str]]] = {}
        for intact in (False, True):
            edges: set[frozenset[str]] = set()
            for road in data.roads:
                if road.needs_bridge and not intact:
                    continue
                for a, b in zip(road.hexes, road.hexes[1:]):
                    edges.add(frozenset((a, b)))
            self._roads[intact] = frozenset(edges)
        self._levels: dict[str, int] = {}
        self._steps: dict[tuple[str, str, bool, bool], StepCost] = {}   # step costs, for self._step_tables
        self._step_tables: Tables | None = None
        # (a, b) -> the two nudged lines between them (4.4 A)
        self._lines: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {}
        self.dark_blue = frozenset(frozenset(p) for p in data.dark_blue_line)
        self.light_blue = frozenset(frozenset(p) for p in data.light_blue_line)

    # Terrain ---------------------------------------------------------------------------------------
    def hexes(self) -> list[str]:
        return self.grid.all_hexes()

    def check_hex(self, h: str, rule: str = "2.2") -> str:
        if not self.grid.in_bounds(str(h)):
            last = self.grid.label(self.data.grid.cols, self.data.grid.rows)
            raise RuleViolation(rule, f"{h!r} is not a hex of the map (XXYY, 0101..{last})")
        return str(h)

    def terrain(self, h: str) -> str:
        """TEC key of the hex: level0..level3, vineyard, town or river (2.2.2: the centre dot decides)."""
        t = self._terrain.get(h)
        return t if t is not None else self._terrain[self.check_hex(h)]

    def level(self, h: str) -> int:
        lv = self._levels.get(h)
        if lv is None:
            lv = self._levels[self.check_hex(h)] = self._level(h)
        return lv

    def _level(self, h: str) -> int:
        t = self.terrain(h)
        if t.startswith("level"):
            return int(t[-1])
        if t == "vineyard":
            return 1
        if t == "town":
            return self.data.town_levels.get(h, 0)
        return 0

    def road(self, a: str, b: str, bridge_intact: bool = False) -> bool:
        return frozenset((a, b)) in self._roads[bridge_intact]

    def is_walled(self, h: str) -> bool:
        return h in self.data.walled_road

    def provenance(self, key: str) -> dict[str, str]:
        src = self.data.provenance.get(key, self.data.source)
        return {"source": src, "kind": provenance_kind(src)}

    # Line of sight (4.4) ---------------------------------------------------------------------------
    def blocks(self, h: str, tables: Tables) -> bool:
        return tables.terrain.terrain[self.terrain(h)].blocks_los

    def los(self, a: str, b: str, tables: Tables, viewer: str = "artillery", enemy: Set[str] = frozenset(),
            friendly: Set[str] = frozenset()) -> LosResult:
        """Line of sight from the centre of ``a`` to the centre of ``b`` (4.4 A).

        Hexes between (not ``a`` or ``b``, 4.4 C) block when their terrain blocks (4.4 B: Level 0, river and
        vineyard do not), when an enemy occupies them (4.4 E), or, for a cavalry viewer, when a friendly
        unit does (4.4 D). Howitzers ignore all this (4.4 F). Where the line runs exactly along a hexside,
        it is blocked only if the hexes on both sides block (our convention; the rulebook is silent).
        """
        a, b = self.check_hex(a, "4.4 A"), self.check_hex(b, "4.4 A")
        got = self._lines.get((a, b))
        if got is None:                          # the geometry of the line: the map's alone, made once
            if len(self._lines) > 100_000:
                self._lines.clear()
            n1, n2 = self.grid.line_both(a, b)
            if not all(self.grid.in_bounds(h) for h in n1):
                n1, n2 = n2, n1                  # report the on-map one of the two nudged lines
            got = self._lines[(a, b)] = (tuple(n1), tuple(n2))
        l1, l2 = got
        if viewer == "howitzer":
            return LosResult(True, None, "4.4 F", tuple(l1))

        def blocker(h: str) -> str | None:
            if not self.grid.in_bounds(h):
                return None                      # a line along the map edge: the off-map side blocks nothing
            if h in enemy:
                return "4.4 E"
            if viewer == "cavalry" and h in friendly:
                return "4.4 D"
            if self.blocks(h, tables):
                return "4.4 B"
            return None

        for i in range(1, len(l1) - 1):
            h1, h2 = l1[i], l2[i]
            r1 = blocker(h1)
            r2 = blocker(h2) if h2 != h1 else r1
            if r1 and r2:
                return LosResult(False, h1, r1, tuple(l1))
        return LosResult(True, None, "4.4 C", tuple(l1))

    # Movement (6.2.2-6.2.7) ------------------------------------------------------------------------
    def step_cost(self, a: str, b: str, tables: Tables, use_road: bool = True, bridge_intact: bool = False) -> StepCost:
        """MPs to step from ``a`` into adjacent ``b``: an int, ``("level", n)`` for a Level 2/3 hex
        (moved by the Level 2/3 roll, 6.2.3), or None when prohibited. Returns (cost, on_road)."""
        if tables is not self._step_tables and (self._step_tables is None or tables.key != self._step_tables.key):
            self._steps, self._step_tables = {}, tables
        key = (a, b, use_road, bridge_intact)
        got = self._steps.get(key)
        if got is None:
            got = self._steps[key] = self.fresh_step_cost(a, b, tables, use_road, bridge_intact)
        return got

    def fresh_step_cost(self, a: str, b: str, tables: Tables, use_road: bool, bridge_intact: bool) -> StepCost:
        """:meth:`step_cost` worked out afresh (not memoised)."""
        on_road = use_road and self.road(a, b, bridge_intact)
        if (self.is_walled(a) or self.is_walled(b)) and not self.road(a, b, bridge_intact):
            return None, False                                   # 6.2.7
        if on_road:
            return tables.terrain.road_mp, True                  # 6.2.6 A
        tb = self.terrain(b)
        if tb == "river":
            return None, False
        la, lb = self.level(a), self.level(b)
        if abs(la - lb) > 1:
            return None, False                                   # 6.2.2 D
        if lb >= 2:
            return ("level", lb), False                          # 6.2.3
        mp = tables.terrain.terrain[tb].mp
        return mp, False

    def charge_terrain(self, tables: Tables) -> Callable[[str], tuple[bool, int]]:
        """``hex -> (charge_ok, mp)`` for charge checks (6.2.8 B)."""
        def f(h: str) -> tuple[bool, int]:
            tt = tables.terrain.terrain[self.terrain(h)]
            return tt.charge_ok and self.level(h) <= 1, tt.mp or 1
        return f

    # Descriptions ----------------------------------------------------------------------------------
    def describe(self, h: str) -> dict[str, Any]:
        h = self.check_hex(h)
        roads = [n for n in self.grid.neighbours(h) if self.road(h, n, True)]
        return {"hex": h, "terrain": self.terrain(h), "level": self.level(h), "town": self.town_of.get(h),
                "road_to": roads, "walled_road": self.is_walled(h),
                "strong_point": h == self.data.strong_point, "grand_battery": h in self.data.grand_battery,
                "bridge": h in self.data.bridge,
                "provenance": self.provenance("terrain_rows")}

    def summary(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for t in self._terrain.values():
            counts[t] = counts.get(t, 0) + 1
        return {"file": self.file, "grid": self.data.grid.model_dump(), "terrain_counts": counts,
                "towns": self.data.towns, "walled_road": self.data.walled_road,
                "west_edge_road": self.data.west_edge_road, "bridge": self.data.bridge,
                "strong_point": self.data.strong_point, "grand_battery": list(self.data.grand_battery),
                "setup_numbers": self.data.setup_numbers, "named_entries": self.data.named_entries,
                "entry_hexes": self.data.entry_hexes.model_dump(),
                "provenance": {k: self.provenance(k) for k in self.data.provenance} | {"map": self.provenance("")}}


def load_board(path: str | Path | None = None) -> Board:
    if path in (None, "default"):
        return default_board()
    return Board(load_yaml(path, MapFile), str(path))


@lru_cache(maxsize=1)
def default_board() -> Board:
    return Board(load_yaml(DEFAULT_MAP, MapFile), str(DEFAULT_MAP))


def default_grid() -> HexGrid:
    return default_board().grid
