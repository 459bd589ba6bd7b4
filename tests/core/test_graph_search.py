"""engine.core.graph: the search over states and the place search built on it (issue 10.6)."""
from hypothesis import given, settings, strategies as st

from engine.core.graph import Reach, by_place, dijkstra, search

# A line a - b - c - d, and a shortcut a - b' where b' is the same place b reached "off the road":
#   a -> b along the road: 2 points, the mover may go on;   a -> b off the road: 1 point, it must stop.
#   b -> c: 1 point, c -> d: 1 point.  Budget 4.
EDGES = {"a": [("b", 1, "off"), ("b", 2, "road")], "b": [("c", 1, "road")], "c": [("d", 1, "road")], "d": []}


def _succ(state, spent):
    place, _ = state
    return [((n, how == "off"), c) for n, c, how in EDGES[place]]


def test_a_dearer_way_that_may_go_on_is_kept_beside_a_cheaper_one_that_stops():
    found = search([(("a", False), 0)], _succ, budget=4, halts=lambda s: s[1])
    # states: (b, stop) at 1, (b, go) at 2, c at 2 + 1 = 3, d at 3 + 1 = 4 <= 4
    assert found[("b", True)].cost == 1 and found[("b", False)].cost == 2
    assert found[("d", False)].cost == 4
    assert found[("d", False)].path == (("a", False), ("b", False), ("c", False), ("d", False))
    places = by_place(found, lambda s: s[0])
    assert list(places) == ["a", "b", "c", "d"]            # in the order first reached
    assert places["b"].cost == 1                              # the cheapest way to b (the stopping one)
    # with a budget of 3, d (4 points) is out of reach
    assert ("d", False) not in search([(("a", False), 0)], _succ, budget=3, halts=lambda s: s[1])


def test_step_prices_may_depend_on_what_was_spent():
    # a step costs 1 while less than 2 points are spent, then 5: a(0) -> b(1) -> c(2) -> d(7 > budget 6)
    line = {"a": "b", "b": "c", "c": "d", "d": None}
    found = search([("a", 0)], lambda s, spent: [(line[s], 1 if spent < 2 else 5)] if line[s] else [], budget=6)
    assert {s: r.cost for s, r in found.items()} == {"a": 0, "b": 1, "c": 2}


def test_ties_keep_the_first_way_found():
    # a -> b -> d and a -> c -> d both cost 2: the way through b (listed first) is kept
    g = {"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}
    r = dijkstra("a", g.__getitem__, lambda x, y: 1)
    assert r["d"] == Reach(2, ("a", "b", "d"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(1, 4)), max_size=30),
       st.sets(st.integers(1, 7), max_size=3), st.integers(0, 12))
def test_dijkstra_costs_are_the_cheapest_walks_and_stopping_places_are_ends(edges, stops, budget):
    nbrs = {i: [] for i in range(8)}
    price = {}
    for a, b, c in edges:
        if a != b and (a, b) not in price:
            nbrs[a].append(b)
            price[a, b] = c
    r = dijkstra(0, nbrs.__getitem__, lambda a, b: price[a, b], budget, stops=lambda p: p in stops)
    # Bellman-Ford over walks that do not pass through a stopping place
    best = {0: 0}
    for _ in range(8):
        for (a, b), c in price.items():
            if a in best and (a == 0 or a not in stops) and best[a] + c <= budget and best[a] + c < best.get(b, 99):
                best[b] = best[a] + c
    assert {p: x.cost for p, x in r.items()} == best
    for p, x in r.items():
        assert x.path[0] == 0 and x.path[-1] == p
        assert all(q not in stops for q in x.path[1:-1])
        assert sum(price[a, b] for a, b in zip(x.path, x.path[1:])) == x.cost
