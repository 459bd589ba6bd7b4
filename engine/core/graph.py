"""Shortest paths on any board graph (hexes or areas): reachable places with their cost and path."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
import heapq
import itertools

__all__ = ["Reach", "dijkstra", "bfs_distance"]


@dataclass(frozen=True)
class Reach:
    cost: float
    path: tuple  # from the start (included) to this place (included)


def dijkstra(start: Hashable, neighbours: Callable[[Hashable], Iterable[Hashable]],
             cost: Callable[[Hashable, Hashable], float | None], budget: float | None = None,
             stops: Callable[[Hashable], bool] = lambda place: False) -> dict[Hashable, Reach]:
    """Every place reachable from ``start`` within ``budget``.

    ``cost(a, b)`` is the price of stepping from ``a`` to ``b`` (``None`` = prohibited);
    ``stops(b)`` says that a mover entering ``b`` must halt there (it may not continue).
    Ties between equal-cost paths keep the first found (neighbour order), so results are deterministic.
    """
    best: dict[Hashable, Reach] = {start: Reach(0, (start,))}
    counter = itertools.count()
    heap = [(0, next(counter), start)]
    while heap:
        c, _, here = heapq.heappop(heap)
        if c > best[here].cost:
            continue
        if here != start and stops(here):
            continue
        for nxt in neighbours(here):
            step = cost(here, nxt)
            if step is None:
                continue
            nc = c + step
            if budget is not None and nc > budget:
                continue
            old = best.get(nxt)
            if old is None or nc < old.cost:
                best[nxt] = Reach(nc, best[here].path + (nxt,))
                heapq.heappush(heap, (nc, next(counter), nxt))
    return best


def bfs_distance(start: Hashable, neighbours: Callable[[Hashable], Iterable[Hashable]],
                 passable: Callable[[Hashable], bool] = lambda place: True) -> dict[Hashable, int]:
    """Number of steps from ``start`` to every place reachable through ``passable`` places."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for here in frontier:
            for n in neighbours(here):
                if n not in dist and passable(n):
                    dist[n] = dist[here] + 1
                    nxt.append(n)
        frontier = nxt
    return dist
