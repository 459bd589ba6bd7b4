import math

import pytest
from hypothesis import given, strategies as st

from engine.core.hexgrid import HexGrid

FLAT_EVEN = HexGrid("flat", "even", 22, 16)


def test_flat_even_neighbours_by_hand():
    # Odd column 07 is not shifted: across its NE side lies column 08 one row up (0807), SE is 0808.
    assert FLAT_EVEN.neighbours("0708") == ["0707", "0807", "0808", "0709", "0608", "0607"]
    # Even column 02 sits half a hex lower: its NW neighbour is 0101, NE is 0301.
    assert FLAT_EVEN.neighbours("0201") == ["0301", "0302", "0202", "0102", "0101"]
    assert FLAT_EVEN.neighbours("0101") == ["0201", "0102"]  # corner hex: two on-map neighbours


def test_flat_odd_and_pointy():
    assert HexGrid("flat", "odd", 22, 16).neighbours("0708") == ["0707", "0808", "0809", "0709", "0609", "0608"]
    assert HexGrid("pointy", "odd", 10, 10).neighbours("0505") == ["0604", "0605", "0606", "0506", "0405", "0504"]


def test_distance_line_hexside():
    g = FLAT_EVEN
    assert g.distance("0708", "0708") == 0
    assert g.distance("0101", "0103") == 2
    assert g.distance("0708", "1902") == 12 + max(0, 0)  # 12 columns apart, row gap absorbed by the zig-zag
    line = g.line("0101", "0504")
    assert line[0] == "0101" and line[-1] == "0504" and len(line) == g.distance("0101", "0504") + 1
    assert all(g.adjacent(a, b) for a, b in zip(line, line[1:]))
    assert g.hexside("0708", "0807") == g.hexside("0807", "0708") == frozenset({"0708", "0807"})
    with pytest.raises(ValueError):
        g.hexside("0708", "0710")
    assert not g.in_bounds("2301") and not g.in_bounds("abcd")


labels = st.builds(lambda c, r: f"{c:02d}{r:02d}", st.integers(1, 22), st.integers(1, 16))


@given(st.sampled_from(["flat", "pointy"]), st.sampled_from(["even", "odd"]), labels, labels)
def test_grid_invariants(orient, shifted, a, b):
    g = HexGrid(orient, shifted, 22, 16)
    assert g.from_cube(g.to_cube(a)) == a
    assert g.distance(a, b) == g.distance(b, a)
    for n in g.neighbours(a):
        assert a in g.neighbours(n)
        assert math.isclose(math.dist(g.center(a), g.center(n)), math.sqrt(3))
        assert g.neighbour(a, g.direction(a, n)) == n
    assert len(g.within(a, 1)) == len(g.neighbours(a)) + 1


def test_reachable_with_costs_and_stops():
    g = FLAT_EVEN
    rough = {"0808"}
    cost = lambda a, b: 2 if b in rough else 1  # noqa: E731
    reach = g.reachable("0708", cost, budget=2, stops=lambda h: h in rough)
    assert reach["0808"].cost == 2 and reach["0808"].path == ("0708", "0808")
    assert "0909" not in reach or reach["0909"].path[1] != "0808"  # no moving on from a stop hex
