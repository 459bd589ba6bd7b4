"""Area and zone graphs: boards made of numbered areas (Lines of Battle) or zones (Battle Commander).

An :class:`AreaGraph` holds areas with attributes (terrain, names, ...) and borders between pairs of
areas, each border with its own attributes (an approach, a river, a bridge, impassable, ...).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .graph import Reach, bfs_distance, dijkstra

__all__ = ["AreaGraph", "Border"]


@dataclass(frozen=True)
class Border:
    """The border between two areas (an unordered pair) and its features."""

    areas: frozenset[Hashable]
    features: frozenset[str] = frozenset()
    attrs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def has(self, feature: str) -> bool:
        return feature in self.features

    def other(self, area: Hashable) -> Hashable:
        (b,) = self.areas - {area} if len(self.areas) == 2 else (area,)
        return b


class AreaGraph:
    """Areas and their borders. Build with :meth:`build`; query neighbours, borders, distances, paths."""

    def __init__(self, areas: Mapping[Hashable, Mapping[str, Any]], borders: Iterable[Border]):
        self._areas = {a: MappingProxyType(dict(attrs)) for a, attrs in areas.items()}
        self._borders: dict[frozenset[Hashable], Border] = {}
        self._adj: dict[Hashable, list[Hashable]] = {a: [] for a in self._areas}
        for b in borders:
            if len(b.areas) != 2:
                raise ValueError(f"a border joins two different areas, not {sorted(map(str, b.areas))}")
            for a in b.areas:
                if a not in self._areas:
                    raise ValueError(f"border {sorted(map(str, b.areas))} names unknown area {a!r}")
            if b.areas in self._borders:
                raise ValueError(f"border {sorted(map(str, b.areas))} is listed twice")
            self._borders[b.areas] = b
            x, y = tuple(b.areas)
            self._adj[x].append(y)
            self._adj[y].append(x)

    @classmethod
    def build(cls, areas: Mapping[Hashable, Mapping[str, Any]],
              borders: Iterable[tuple[Hashable, Hashable] | tuple[Hashable, Hashable, Iterable[str]]
                                | tuple[Hashable, Hashable, Iterable[str], Mapping[str, Any]]]) -> "AreaGraph":
        """``borders`` as tuples ``(a, b)``, ``(a, b, features)`` or ``(a, b, features, attrs)``."""
        bs = []
        for t in borders:
            a, b, *more = t
            rest: list[Any] = more          # features, then attributes (each optional)
            feats = frozenset(rest[0]) if rest else frozenset()
            attrs: Mapping[str, Any] = MappingProxyType(dict(rest[1])) if len(rest) > 1 else MappingProxyType({})
            bs.append(Border(frozenset((a, b)), feats, attrs))
        return cls(areas, bs)

    # Queries ---------------------------------------------------------------------------------------
    @property
    def areas(self) -> list[Hashable]:
        return list(self._areas)

    def __contains__(self, area: Hashable) -> bool:
        return area in self._areas

    def attrs(self, area: Hashable) -> Mapping[str, Any]:
        try:
            return self._areas[area]
        except KeyError:
            raise KeyError(f"no area {area!r} on this map") from None

    def neighbours(self, area: Hashable) -> list[Hashable]:
        if area not in self._adj:
            raise KeyError(f"no area {area!r} on this map")
        return list(self._adj[area])

    def adjacent(self, a: Hashable, b: Hashable) -> bool:
        return frozenset((a, b)) in self._borders

    def border(self, a: Hashable, b: Hashable) -> Border:
        try:
            return self._borders[frozenset((a, b))]
        except KeyError:
            raise KeyError(f"areas {a!r} and {b!r} do not border each other") from None

    def borders(self) -> list[Border]:
        return list(self._borders.values())

    def distance(self, a: Hashable, b: Hashable, passable: Callable[[Hashable], bool] = lambda x: True) -> int | None:
        """Fewest border crossings from ``a`` to ``b`` (None when unreachable)."""
        return bfs_distance(a, self.neighbours, passable).get(b)

    def distances(self, a: Hashable, passable: Callable[[Hashable], bool] = lambda x: True) -> dict[Hashable, int]:
        return bfs_distance(a, self.neighbours, passable)

    def reachable(self, start: Hashable, cost: Callable[[Hashable, Hashable], float | None],
                  budget: float | None = None, stops: Callable[[Hashable], bool] = lambda a: False) -> dict[Hashable, Reach]:
        return dijkstra(start, self.neighbours, cost, budget, stops)

    def connected(self) -> bool:
        if not self._areas:
            return True
        first = next(iter(self._areas))
        return len(bfs_distance(first, self.neighbours)) == len(self._areas)
