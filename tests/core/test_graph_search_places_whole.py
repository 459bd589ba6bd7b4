"""search_places_whole (one list of states per cost, whole-number prices) finds what search_places finds:
the same places in the same order, the same costs and paths (ties included), on random graphs with free
steps, halting states and several states per place; and it reports the states it went on from."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.core.graph import search_places, search_places_whole

# states are (place, flag) pairs, as in the n20 movement search (hex, must stop there)
nodes = st.tuples(st.integers(0, 6), st.booleans())
edges = st.dictionaries(nodes, st.lists(st.tuples(nodes, st.integers(0, 3)), max_size=5), max_size=14)


def _place(node):
    return node[0]


@settings(max_examples=300, deadline=None)
@given(edges, nodes, st.integers(0, 2), st.integers(0, 8), st.booleans())
def test_search_places_whole_agrees_with_search_places(graph, start, base, budget, flag_halts):
    def successors(here, _spent):
        return graph.get(here, [])

    halts = (lambda s: s[1]) if flag_halts else (lambda s: False)
    want = search_places(((start, base),), successors, budget, halts, _place)
    moved_on: list = []
    got = search_places_whole(start, base, successors, budget, halts, _place, moved_on)
    assert list(got.items()) == list(want.items())
    # every state gone on from: the start first, then only states that do not halt, each once, cheapest first
    assert all(moved_on[i][1] <= moved_on[i + 1][1] for i in range(len(moved_on) - 1))
    if base <= budget:
        assert moved_on[0] == (start, base)
        assert all(not halts(s) for s, _ in moved_on[1:])
        assert len({s for s, _ in moved_on}) == len(moved_on)


def test_a_hand_worked_graph():
    # a -1-> b -1-> d and a -2-> c -0-> d: d costs 2 either way, the way through b found first; the state
    # (e, True) halts, so nothing past it: f is reached only through (e, False), which costs 1 + 2 = 3
    graph = {("a", False): [(("b", False), 1), (("c", False), 2), (("e", True), 1), (("e", False), 2)],
             ("b", False): [(("d", False), 1)], ("c", False): [(("d", False), 0)],
             ("e", True): [(("f", False), 0)], ("e", False): [(("f", False), 1)]}
    moved_on: list = []
    got = search_places_whole(("a", False), 0, lambda h, _c: graph.get(h, []), 5, lambda s: s[1], _place,
                              moved_on)
    assert got["d"] == (2, ("a", "b", "d"))
    assert got["e"] == (1, ("a", "e"))                    # the cheaper state of e stands for the place
    assert got["f"] == (3, ("a", "e", "f"))
    assert [s for s, _ in moved_on] == [("a", False), ("b", False), ("c", False), ("e", False), ("d", False),
                                        ("f", False)]
