"""Hex geometry for maps numbered XXYY (column XX, row YY), as printed on hex wargame maps.

The map declares its orientation and which columns (flat-topped hexes) or rows (pointy-topped) are
shifted half a hex: ``HexGrid("flat", shifted="even")`` means even-numbered columns sit half a hex
lower than odd ones. Labels convert to cube coordinates (q, r, s with q + r + s = 0), where
neighbours, distances and lines are simple.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
import math

from .graph import Reach, dijkstra

__all__ = ["HexGrid", "Cube", "dijkstra", "Reach"]

Cube = tuple[int, int, int]

# Cube directions, clockwise. For flat-topped hexes: N, NE, SE, S, SW, NW (y grows downward, row 01 on top).
# For pointy-topped hexes: NE, E, SE, SW, W, NW.
_DIRS: tuple[Cube, ...] = ((0, -1, 1), (1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1))
_FLAT_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
_POINTY_DIRS: tuple[Cube, ...] = ((1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1))
_POINTY_NAMES = ("NE", "E", "SE", "SW", "W", "NW")


@dataclass(frozen=True)
class HexGrid:
    """A hex grid with XXYY labels. ``cols``/``rows`` bound the map (labels 01..cols, 01..rows) when given."""

    orientation: str = "flat"      # "flat" (columns run straight up/down) or "pointy" (rows run straight)
    shifted: str = "even"          # which columns (flat) / rows (pointy) sit half a hex down / right: "even" or "odd"
    cols: int | None = None
    rows: int | None = None
    first_col: int = 1
    first_row: int = 1

    def __post_init__(self) -> None:
        if self.orientation not in ("flat", "pointy"):
            raise ValueError(f"orientation must be 'flat' or 'pointy', not {self.orientation!r}")
        if self.shifted not in ("even", "odd"):
            raise ValueError(f"shifted must be 'even' or 'odd', not {self.shifted!r}")

    # Labels ----------------------------------------------------------------------------------------
    @property
    def digits(self) -> int:
        biggest = max(self.cols or 99, self.rows or 99)
        return max(2, len(str(biggest)))

    def parse(self, label: str) -> tuple[int, int]:
        """``"0708"`` -> (7, 8). Raises ValueError for a label that is not XXYY digits."""
        s = str(label).strip()
        d = self.digits
        if len(s) != 2 * d or not s.isdigit():
            raise ValueError(f"hex label {label!r} is not {'X' * d}{'Y' * d} digits")
        return int(s[:d]), int(s[d:])

    def label(self, col: int, row: int) -> str:
        d = self.digits
        return f"{col:0{d}d}{row:0{d}d}"

    def in_bounds(self, label: str) -> bool:
        try:
            c, r = self.parse(label)
        except ValueError:
            return False
        if self.cols is not None and not (self.first_col <= c < self.first_col + self.cols):
            return False
        if self.rows is not None and not (self.first_row <= r < self.first_row + self.rows):
            return False
        return True

    def all_hexes(self) -> list[str]:
        if self.cols is None or self.rows is None:
            raise ValueError("an unbounded grid has no list of hexes")
        return [self.label(c, r) for c in range(self.first_col, self.first_col + self.cols)
                for r in range(self.first_row, self.first_row + self.rows)]

    # Cube coordinates ------------------------------------------------------------------------------
    def offset_to_cube(self, c: int, r: int) -> Cube:
        """Offset (column, row) numbers to cube coordinates (the 'even-q/odd-q' and 'even-r/odd-r' layouts)."""
        if self.orientation == "flat":
            rr = r - (c + (c & 1)) // 2 if self.shifted == "even" else r - (c - (c & 1)) // 2
            return (c, rr, -c - rr)
        q = c - (r + (r & 1)) // 2 if self.shifted == "even" else c - (r - (r & 1)) // 2
        return (q, r, -q - r)

    def to_cube(self, label: str) -> Cube:
        return _cube_cached(self, label)

    def from_cube(self, cube: Cube) -> str:
        q, r, _ = cube
        if self.orientation == "flat":
            row = r + (q + (q & 1)) // 2 if self.shifted == "even" else r + (q - (q & 1)) // 2
            return self.label(q, row)
        col = q + (r + (r & 1)) // 2 if self.shifted == "even" else q + (r - (r & 1)) // 2
        return self.label(col, r)

    # Neighbourhood ---------------------------------------------------------------------------------
    @property
    def direction_names(self) -> tuple[str, ...]:
        return _FLAT_NAMES if self.orientation == "flat" else _POINTY_NAMES

    def _dirs(self) -> tuple[Cube, ...]:
        return _DIRS if self.orientation == "flat" else _POINTY_DIRS

    def neighbour(self, label: str, direction: int) -> str | None:
        """The hex across side ``direction`` (0..5 clockwise, see ``direction_names``), None if off the map."""
        q, r, s = self.to_cube(label)
        dq, dr, ds = self._dirs()[direction % 6]
        n = self.from_cube((q + dq, r + dr, s + ds))
        return n if self.in_bounds(n) or (self.cols is None and self.rows is None) else None

    def neighbours(self, label: str) -> list[str]:
        """The (up to six) on-map hexes adjacent to ``label``, clockwise from the first direction."""
        return _neighbours_cached(self, label)

    def adjacent(self, a: str, b: str) -> bool:
        return self.distance(a, b) == 1

    def direction(self, a: str, b: str) -> int:
        """Index (0..5) of the side of ``a`` that ``b`` lies across. ``b`` must be adjacent."""
        qa, ra, sa = self.to_cube(a)
        qb, rb, sb = self.to_cube(b)
        delta = (qb - qa, rb - ra, sb - sa)
        try:
            return self._dirs().index(delta)
        except ValueError:
            raise ValueError(f"hexes {a} and {b} are not adjacent") from None

    def hexside(self, a: str, b: str) -> frozenset[str]:
        """The hexside between two adjacent hexes, as an unordered pair."""
        if not self.adjacent(a, b):
            raise ValueError(f"hexes {a} and {b} are not adjacent, so they share no hexside")
        return frozenset((a, b))

    def distance(self, a: str, b: str) -> int:
        qa, ra, sa = self.to_cube(a)
        qb, rb, sb = self.to_cube(b)
        return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))

    def within(self, center: str, radius: int) -> list[str]:
        """All on-map hexes at distance <= radius."""
        q0, r0, s0 = self.to_cube(center)
        out = []
        for dq in range(-radius, radius + 1):
            for dr in range(max(-radius, -dq - radius), min(radius, -dq + radius) + 1):
                h = self.from_cube((q0 + dq, r0 + dr, s0 - dq - dr))
                if self.in_bounds(h) or (self.cols is None and self.rows is None):
                    out.append(h)
        return out

    def ring(self, center: str, radius: int) -> list[str]:
        return [h for h in self.within(center, radius) if self.distance(center, h) == radius]

    def line(self, a: str, b: str) -> list[str]:
        """Hexes on the straight line from ``a`` to ``b`` (both included), nudged consistently off vertices."""
        n = self.distance(a, b)
        ca, cb = self.to_cube(a), self.to_cube(b)
        if n == 0:
            return [a]
        eps = (1e-6, 2e-6, -3e-6)
        out = []
        for i in range(n + 1):
            t = i / n
            fq, fr, fs = (ca[k] + (cb[k] - ca[k]) * t + eps[k] for k in range(3))
            out.append(self.from_cube(_cube_round(fq, fr, fs)))
        return out

    def line_both(self, a: str, b: str) -> tuple[list[str], list[str]]:
        """The line nudged both ways: where they differ, the line runs along a hexside between two hexes."""
        n = self.distance(a, b)
        ca, cb = self.to_cube(a), self.to_cube(b)
        res = []
        for sign in (1, -1):
            eps = (sign * 1e-6, sign * 2e-6, -sign * 3e-6)
            out = []
            for i in range(n + 1):
                t = i / n if n else 0
                fq, fr, fs = (ca[k] + (cb[k] - ca[k]) * t + eps[k] for k in range(3))
                out.append(self.from_cube(_cube_round(fq, fr, fs)))
            res.append(out)
        return res[0], res[1]

    # Drawing ---------------------------------------------------------------------------------------
    def center(self, label: str, size: float = 1.0) -> tuple[float, float]:
        """Centre of the hex in map units (x to the right, y DOWN, row 01 at the top), hex radius ``size``."""
        q, r, _ = self.to_cube(label)
        if self.orientation == "flat":
            x = size * 1.5 * q
            y = size * math.sqrt(3) * (r + q / 2)
        else:
            x = size * math.sqrt(3) * (q + r / 2)
            y = size * 1.5 * r
        return x, y

    def corners(self, label: str, size: float = 1.0) -> list[tuple[float, float]]:
        """The six corners of the hex (clockwise from the east / north-east corner)."""
        cx, cy = self.center(label, size)
        start = 0 if self.orientation == "flat" else 30
        return [(cx + size * math.cos(math.radians(start + 60 * i)), cy + size * math.sin(math.radians(start + 60 * i)))
                for i in range(6)]

    def hexside_segment(self, a: str, b: str, size: float = 1.0) -> tuple[tuple[float, float], tuple[float, float]]:
        """The two end points of the hexside between adjacent ``a`` and ``b`` (for drawing rivers, slopes)."""
        self.hexside(a, b)
        ca = self.corners(a, size)
        cb = self.corners(b, size)
        shared = [p for p in ca if any(math.dist(p, q) < 1e-6 * max(size, 1) for q in cb)]
        return shared[0], shared[1]

    # Paths -----------------------------------------------------------------------------------------
    def reachable(self, start: str, cost: Callable[[str, str], float | None], budget: float | None = None,
                  stops: Callable[[str], bool] = lambda h: False) -> dict[str, Reach]:
        """Hexes reachable from ``start``: see :func:`engine.core.graph.dijkstra`."""
        return dijkstra(start, self.neighbours, cost, budget, stops)


@lru_cache(maxsize=200_000)
def _cube_cached(grid: HexGrid, label: str) -> Cube:
    # a pure function of two values (the grid is frozen): parsing the label is the slow part of every
    # distance, neighbour and line, so it is done once per hex
    c, r = grid.parse(label)
    return grid.offset_to_cube(c, r)


@lru_cache(maxsize=200_000)
def _neighbours_cached(grid: HexGrid, label: str) -> list[str]:
    out = []
    for d in range(6):
        n = grid.neighbour(label, d)
        if n is not None:
            out.append(n)
    return out


def _cube_round(fq: float, fr: float, fs: float) -> Cube:
    q, r, s = round(fq), round(fr), round(fs)
    dq, dr, ds = abs(q - fq), abs(r - fr), abs(s - fs)
    if dq > dr and dq > ds:
        q = -r - s
    elif dr > ds:
        r = -q - s
    else:
        s = -q - r
    return (int(q), int(r), int(s))
