"""search_parents (parents instead of whole paths) finds what search finds: the same states in the same
order, the same costs, the same paths (ties included), on random graphs with zero-cost steps and halts."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from engine.core.graph import path_of, search, search_parents

edges = st.dictionaries(st.integers(0, 7), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 3)), max_size=4),
                        max_size=8)


@settings(max_examples=200, deadline=None)
@given(edges, st.integers(0, 7), st.one_of(st.none(), st.integers(0, 8)), st.frozensets(st.integers(0, 7)))
def test_search_parents_agrees_with_search(graph, start, budget, halting):
    def successors(here, _spent):
        return graph.get(here, [])

    halts = (lambda s: s in halting) if halting else None
    full = search(((start, 0),), successors, budget, halts)
    lean = search_parents(((start, 0),), successors, budget, halts)
    assert list(full) == list(lean)
    for s, r in full.items():
        assert lean[s][0] == r.cost and path_of(lean, s) == r.path


def test_a_hand_worked_graph():
    # a -1-> b -1-> d and a -2-> c -0-> d: d costs 2 either way; the way through b is found first
    graph = {"a": [("b", 1), ("c", 2)], "b": [("d", 1)], "c": [("d", 0)]}
    lean = search_parents((("a", 0),), lambda h, _c: graph.get(h, []))
    assert lean["d"][0] == 2 and path_of(lean, "d") == ("a", "b", "d")
