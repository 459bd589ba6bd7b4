"""The area map of a Lines of Battle scenario (rule 1.1 and the scenario's terrain rules).

Loaded from YAML (``data/lob/albuera/map.yaml``) into an :class:`engine.core.areas.AreaGraph`:
areas carry terrain (clear/hill = open, town/wood = close), borders carry an approach flag (open-open
only, rule 1.1), water (river or stream), a crossing (bridge or ford) and the road.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, cast

from pydantic import Field

from engine.core.areas import AreaGraph, Border
from engine.core.data import Sourced, Strict, data_path, load_yaml, provenance_kind
from engine.core.errors import DataError
from engine.core.graph import Reach

from .fingerprint import Fingerprinted

__all__ = ["Board", "load_board", "default_board", "MAP_FILE", "CLOSE_TERRAIN", "OPEN_TERRAIN"]

MAP_FILE = data_path("lob", "albuera", "map.yaml")
OPEN_TERRAIN = frozenset({"clear", "hill"})
CLOSE_TERRAIN = frozenset({"town", "wood"})


class AreaSpec(Strict):
    id: str = Field(min_length=1)
    terrain: Literal["clear", "hill", "town", "wood"]
    bank: Literal["west", "east"]
    x: float
    y: float
    name: str = ""


class BorderSpec(Strict):
    a: str
    b: str
    approach: bool = False
    water: Literal["river", "stream"] | None = None
    crossing: Literal["bridge", "ford"] | None = None
    road: bool = False


class VictoryAreas(Strict):
    french_infantry_wins: tuple[str, ...] = ()
    hold_at_end: tuple[str, ...] = ()


class MapSpec(Fingerprinted, Sourced):
    areas: tuple[AreaSpec, ...] = Field(min_length=2)
    borders: tuple[BorderSpec, ...] = Field(min_length=1)
    victory_areas: VictoryAreas = VictoryAreas()


@dataclass(frozen=True)
class Crossing:
    """What lies on one border, seen by a unit crossing it."""

    approach: bool
    water: str | None      # "river" | "stream" | None
    crossing: str | None   # "bridge" | "ford" | None
    road: bool


class Board:
    """An area map: terrain per area, features per border, and the queries the rules ask."""

    def __init__(self, spec: MapSpec, file: str = "<map>"):
        self.spec = spec
        #: the digest of the map's content (computed once, when the file was read): two boards made from
        #: equal maps are equal and hash alike, wherever they were loaded from
        self.fingerprint = spec.fingerprint
        self.file = file
        self.source = spec.source
        self.provenance = provenance_kind(spec.source)
        ids = [a.id for a in spec.areas]
        seen: set[str] = set()
        for i, a in enumerate(spec.areas):
            if a.id in seen:
                raise DataError(file, f"areas[{i}].id", "a unique area id", a.id)
            seen.add(a.id)
        self._terrain = {a.id: a.terrain for a in spec.areas}
        borders = []
        pairs: set[frozenset] = set()
        for i, b in enumerate(spec.borders):
            where = f"borders[{i}]"
            for end in ("a", "b"):
                if getattr(b, end) not in seen:
                    raise DataError(file, f"{where}.{end}", f"an area listed under 'areas' ({', '.join(ids)})",
                                    getattr(b, end))
            if b.a == b.b:
                raise DataError(file, where, "two different areas", b.a)
            pair = frozenset((b.a, b.b))
            if pair in pairs:
                raise DataError(file, where, "each border listed once", f"{b.a}-{b.b}")
            pairs.add(pair)
            if b.approach and (self.is_close(b.a) or self.is_close(b.b)):
                # rule 1.1: approaches lie only between two open areas
                raise DataError(file, f"{where}.approach",
                                "false: an approach lies only between two open areas (rule 1.1)",
                                f"{b.a}-{b.b}")
            if b.crossing and not b.water:
                raise DataError(file, f"{where}.crossing", "a river or stream on the border for a bridge/ford",
                                b.crossing)
            feats = set()
            if b.approach:
                feats.add("approach")
            if b.water:
                feats.add(b.water)
            if b.crossing:
                feats.add(b.crossing)
            if b.road:
                feats.add("road")
            borders.append(Border(pair, frozenset(feats)))
        for field in ("french_infantry_wins", "hold_at_end"):
            for j, a in enumerate(getattr(spec.victory_areas, field)):
                if a not in seen:
                    raise DataError(file, f"victory_areas.{field}[{j}]", "an area listed under 'areas'", a)
        self.graph = AreaGraph({a.id: a.model_dump() for a in spec.areas}, borders)
        if not self.graph.connected():
            raise DataError(file, "borders", "a connected map (every area reachable from every other)")
        self._crossings = {
            pair: Crossing("approach" in b.features, next((w for w in ("river", "stream") if w in b.features), None),
                           next((c for c in ("bridge", "ford") if c in b.features), None), "road" in b.features)
            for pair, b in ((b.areas, b) for b in self.graph.borders())
        }

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Board) and self.fingerprint == other.fingerprint)

    def __hash__(self) -> int:
        return hash(("Board", self.fingerprint))

    # areas ---------------------------------------------------------------------------------------
    @property
    def areas(self) -> list[str]:
        return cast(list[str], self.graph.areas)          # (the graph's nodes are this map's area ids)

    def __contains__(self, area: str) -> bool:
        return area in self._terrain

    def check_area(self, area: str, what: str = "area") -> str:
        from engine.core.errors import RuleViolation
        if area not in self._terrain:
            raise RuleViolation("1.1", f"no {what} {area!r} on this map (areas: {', '.join(self.areas)})")
        return area

    def terrain(self, area: str) -> str:
        return self._terrain[area]

    def is_close(self, area: str) -> bool:
        """Town and wood are close terrain (rule 1.1, Albuera terrain 2-3)."""
        return self._terrain[area] in CLOSE_TERRAIN

    def is_hill(self, area: str) -> bool:
        return self._terrain[area] == "hill"

    def neighbours(self, area: str) -> list[str]:
        return cast(list[str], self.graph.neighbours(area))

    def reachable(self, start: str, cost: Callable[[str, str], float | None], budget: float | None = None
                  ) -> dict[str, Reach]:
        """The areas reachable from ``start`` within ``budget`` at ``cost(area, next area)`` a step (None:
        no step), each with its cheapest cost and path (the map's graph, its nodes this map's area ids)."""
        step = cast(Callable[[Hashable, Hashable], float | None], cost)
        return cast(dict[str, Reach], self.graph.reachable(start, step, budget))

    def adjacent(self, a: str, b: str) -> bool:
        return self.graph.adjacent(a, b)

    def crossing(self, a: str, b: str) -> Crossing:
        try:
            return self._crossings[frozenset((a, b))]
        except KeyError:
            from engine.core.errors import RuleViolation
            raise RuleViolation("1.1", f"areas {a} and {b} do not border each other") from None

    def has_approach(self, a: str, b: str) -> bool:
        return self.adjacent(a, b) and self.crossing(a, b).approach

    def attrs(self, area: str) -> dict:
        return dict(self.graph.attrs(area))

    def within_two(self, area: str) -> set[str]:
        """Areas two steps away through an intervening area that is neither close nor a hill (Albuera terrain 1)."""
        out = set()
        for mid in self.neighbours(area):
            if self.is_close(mid) or self.is_hill(mid):
                continue
            for far in self.neighbours(mid):
                if far != area and not self.adjacent(area, far):
                    out.add(far)
        return out

    def to_json(self) -> dict:
        return {"source": self.source, "provenance": self.provenance,
                "areas": [a.model_dump() for a in self.spec.areas],
                "borders": [b.model_dump() for b in self.spec.borders]}


def load_board(path: str | Path | None = None) -> Board:
    if path is None:
        return default_board()
    return Board(load_yaml(path, MapSpec), str(path))


@lru_cache(maxsize=1)
def default_board() -> Board:
    return Board(load_yaml(MAP_FILE, MapSpec), str(MAP_FILE))
