"""Shortest paths on any board graph (hexes or areas): reachable places with their cost and path.

:func:`search` is the one algorithm: a cheapest-first search over *states* (any hashable: a hex, or a hex
with how the mover got there, e.g. ``(hex, must stop)``), whose step prices may depend on what the mover
has spent so far. :func:`dijkstra` is the common case of it (places, fixed step prices, stopping places);
:func:`by_place` folds states back to the places they stand for.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple
import heapq
import itertools

__all__ = ["Reach", "StateReach", "search", "search_parents", "search_places", "search_places_whole", "path_of", "by_place", "dijkstra", "bfs_distance"]


@dataclass(frozen=True)
class Reach:
    cost: float
    path: tuple[Any, ...]  # from the start (included) to this place (included)


class StateReach(NamedTuple):
    """The cheapest way found to a search state: its cost, the states from a start to it, and ``order``,
    when that way was found (ties between states standing for one place go to the first found)."""

    cost: float
    path: tuple[Any, ...]
    order: int


def search(starts: Iterable[tuple[Hashable, float]],
           successors: Callable[[Any, float], Iterable[tuple[Hashable, float]]],
           budget: float | None = None,
           halts: Callable[[Any], bool] | None = None) -> dict[Any, StateReach]:
    """Every state reachable from ``starts`` (pairs of a state and the cost already spent there) within
    ``budget``, each with its cheapest path.

    ``successors(state, cost)`` gives the ``(next state, price of the step)`` pairs open from ``state``
    when ``cost`` has been spent to get there (so a price may depend on what is left of the budget);
    ``halts(state)`` says that a mover in ``state`` may go no further (a start never halts; None: none
    halts).
    Ties between equal-cost paths keep the first found (successor order), so results are deterministic;
    the result lists states in the order they were first reached.
    """
    best: dict[Hashable, StateReach] = {}
    counter = itertools.count()
    heap = []
    first = set()
    for st, c in starts:
        if st not in best or c < best[st].cost:
            n = next(counter)
            best[st] = StateReach(c, (st,), n)
            heap.append((c, n, st))
        first.add(st)
    heapq.heapify(heap)
    push, pop, get = heapq.heappush, heapq.heappop, best.get
    over = float("inf") if budget is None else budget
    while heap:
        c, _, here = pop(heap)
        r = best[here]
        if c > r.cost:
            continue
        if halts is not None and here not in first and halts(here):
            continue
        path = r.path
        for nxt, step in successors(here, c):
            nc = c + step
            if nc > over:
                continue
            old = get(nxt)
            if old is None or nc < old.cost:
                n = next(counter)
                best[nxt] = StateReach(nc, path + (nxt,), n)
                push(heap, (nc, n, nxt))
    return best


def search_parents(starts: Iterable[tuple[Hashable, float]],
                   successors: Callable[[Any, float], Iterable[tuple[Hashable, float]]],
                   budget: float | None = None,
                   halts: Callable[[Any], bool] | None = None) -> dict[Any, tuple[float, Hashable]]:
    """:func:`search` keeping for each state its cost and the state it was reached from (``None`` for a
    start) instead of its whole path: the same states in the same order, the same costs and the same ties,
    for less work where paths are long or many; :func:`path_of` rebuilds the path of a state."""
    best: dict[Hashable, tuple[float, Hashable]] = {}
    counter = itertools.count()
    heap = []
    first = set()
    for st, c in starts:
        if st not in best or c < best[st][0]:
            best[st] = (c, None)
            heap.append((c, next(counter), st))
        first.add(st)
    heapq.heapify(heap)
    push, pop, get, tick = heapq.heappush, heapq.heappop, best.get, counter.__next__
    over = float("inf") if budget is None else budget
    while heap:
        c, _, here = pop(heap)
        if c > best[here][0]:
            continue
        if halts is not None and here not in first and halts(here):
            continue
        for nxt, step in successors(here, c):
            nc = c + step
            if nc > over:
                continue
            old = get(nxt)
            if old is None or nc < old[0]:
                best[nxt] = (nc, here)
                push(heap, (nc, tick(), nxt))
    return best


def search_parents_whole(start: Hashable, successors: Callable[[Any, int], Iterable[tuple[Hashable, int]]],
                         budget: int, halts: Callable[[Any], bool]) -> dict[Any, tuple[int, Hashable]]:
    """:func:`search_parents` from one start when every step's price is a whole number and the budget too:
    one list of states per cost, each run in the order its states were put in (a free step joins the end of
    the list being run). That is the order the heap of :func:`search_parents` pops them in (by cost, then
    by when pushed), so the same states come out in the same order with the same costs, parents and ties
    (tests/tbf/test_tbf_search.py). ``halts(state)`` as in :func:`search_parents` (never asked of the start)."""
    best: dict[Any, tuple[int, Any]] = {start: (0, None)}
    buckets: list[list[Any]] = [[] for _ in range(budget + 1)]
    buckets[0].append(start)
    get = best.get
    for c in range(budget + 1):
        bucket = buckets[c]
        k = 0
        while k < len(bucket):
            here = bucket[k]
            k += 1
            if best[here][0] < c:
                continue                                              # a cheaper way was found since
            if here != start and halts(here):
                continue
            for nxt, step in successors(here, c):
                nc = c + step
                if nc > budget:
                    continue
                old = get(nxt)
                if old is None or nc < old[0]:
                    best[nxt] = (nc, here)
                    buckets[nc].append(nxt)
    return best


def search_places(starts: Iterable[tuple[Hashable, float]],
                  successors: Callable[[Any, float], Iterable[tuple[Hashable, float]]],
                  budget: float | None,
                  halts: Callable[[Any], bool] | None,
                  place: Callable[[Any], Hashable]) -> dict[Any, tuple[float, tuple[Any, ...]]]:
    """``by_place(search(...), place)`` with each path given as the places its states stand for:
    place -> (cost, path of places from the start), the cheapest state of each place (ties: the way found
    first), places in the order one of their states was first reached. The same search as :func:`search`
    (same states, costs and ties), the paths made of places as it goes."""
    best: dict[Hashable, tuple[float, tuple[Any, ...], int]] = {}
    counter = itertools.count()
    tick = counter.__next__
    heap = []
    first = set()
    for st, c in starts:
        if st not in best or c < best[st][0]:
            n = tick()
            best[st] = (c, (place(st),), n)
            heap.append((c, n, st))
        first.add(st)
    heapq.heapify(heap)
    push, pop, get = heapq.heappush, heapq.heappop, best.get
    over = float("inf") if budget is None else budget
    while heap:
        c, _, here = pop(heap)
        r = best[here]
        if c > r[0]:
            continue
        if halts is not None and here not in first and halts(here):
            continue
        path = r[1]
        for nxt, step in successors(here, c):
            nc = c + step
            if nc > over:
                continue
            old = get(nxt)
            if old is None or nc < old[0]:
                n = tick()
                best[nxt] = (nc, path + (place(nxt),), n)
                push(heap, (nc, n, nxt))
    return _cheapest_by_place(best, place)


def _cheapest_by_place(best: dict[Any, tuple[Any, ...]], place: Callable[[Any], Hashable]) -> dict[Any, tuple[Any, ...]]:
    """state -> (cost, path, order found) folded into place -> (cost, path): each place's cheapest state,
    ties to the one found first; places in the order their first state was reached."""
    out: dict[Any, tuple[Any, ...]] = {}
    for st, r in best.items():
        p = place(st)
        o = out.get(p)
        if o is None or r[0] < o[0] or (r[0] == o[0] and r[2] < o[2]):
            out[p] = r
    return {p: (r[0], r[1]) for p, r in out.items()}


def search_places_whole(start: Hashable, base: int,
                        successors: Callable[[Any, int], Iterable[tuple[Hashable, int]]],
                        budget: int, halts: Callable[[Any], bool],
                        place: Callable[[Any], Hashable],
                        moved_on: list[tuple[Any, int]] | None = None) -> dict[Any, tuple[int, tuple[Any, ...]]]:
    """:func:`search_places` from one start (``base`` already spent there) when every step's price is a
    whole number (0 or more) and the budget too: one list of states per cost instead of the heap, run as
    :func:`search_parents_whole` runs them (the order the heap pops them in), so the same places come out
    in the same order with the same costs, paths and ties. ``halts`` is never asked of the start.
    ``moved_on``, when given, gets ``(state, cost)`` for each state the search went on from, in order
    (what a caller needs to know which places the answer read)."""
    first = (place(start),)
    best: dict[Any, tuple[int, tuple[Any, ...], int]] = {start: (base, first, 0)}
    if base > budget:
        return {first[0]: (base, first)}
    tick = itertools.count(1).__next__
    buckets: list[list[Any]] = [[] for _ in range(budget + 1)]
    buckets[base].append(start)
    get = best.get
    note = moved_on.append if moved_on is not None else None
    for c in range(base, budget + 1):
        for here in buckets[c]:              # a free step appends to this list, and the loop gets to it
            r = best[here]
            if r[0] < c:
                continue                                              # a cheaper way was found since
            if here != start and halts(here):
                continue
            if note is not None:
                note((here, c))
            path = r[1]
            for nxt, step in successors(here, c):
                nc = c + step
                if nc > budget:
                    continue
                old = get(nxt)
                if old is None or nc < old[0]:
                    best[nxt] = (nc, path + (place(nxt),), tick())
                    buckets[nc].append(nxt)
    return _cheapest_by_place(best, place)


def path_of(found: dict[Any, tuple[float, Any]], state: Hashable) -> tuple[Any, ...]:
    """The path (from its start, included, to ``state``, included) of a state of :func:`search_parents`."""
    out = [state]
    parent = found[state][1]
    while parent is not None:
        out.append(parent)
        parent = found[parent][1]
    return tuple(reversed(out))


def by_place(found: dict[Any, StateReach], place: Callable[[Any], Hashable]) -> dict[Any, StateReach]:
    """Fold the states of :func:`search` into places: for each place the cheapest of its states (ties: the
    way found first); places listed in the order one of their states was first reached."""
    out: dict[Hashable, StateReach] = {}
    for st, r in found.items():
        p = place(st)
        o = out.get(p)
        if o is None or r.cost < o.cost or (r.cost == o.cost and r.order < o.order):
            out[p] = r
    return out


def dijkstra(start: Hashable, neighbours: Callable[[Any], Iterable[Hashable]],
             cost: Callable[[Any, Any], float | None], budget: float | None = None,
             stops: Callable[[Any], bool] = lambda place: False) -> dict[Any, Reach]:
    """Every place reachable from ``start`` within ``budget`` (:func:`search` with fixed step prices).

    ``cost(a, b)`` is the price of stepping from ``a`` to ``b`` (``None`` = prohibited);
    ``stops(b)`` says that a mover entering ``b`` must halt there (it may not continue).
    Ties between equal-cost paths keep the first found (neighbour order), so results are deterministic.
    """
    def successors(here: Any, _spent: float) -> Iterator[tuple[Any, float]]:
        for nxt in neighbours(here):
            step = cost(here, nxt)
            if step is not None:
                yield nxt, step

    found = search(((start, 0),), successors, budget, stops)
    return {p: Reach(r.cost, r.path) for p, r in found.items()}


def bfs_distance(start: Hashable, neighbours: Callable[[Any], Iterable[Hashable]],
                 passable: Callable[[Any], bool] = lambda place: True) -> dict[Any, int]:
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
