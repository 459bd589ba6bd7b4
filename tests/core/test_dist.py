from fractions import Fraction

import pytest
from hypothesis import given, strategies as st

from engine.core.dist import Dist, die, prob_json


def test_dice_by_hand():
    assert die("d6")[4] == Fraction(1, 6)
    assert die("2d6")[7] == Fraction(6, 36)  # (1,6) (2,5) (3,4) (4,3) (5,2) (6,1)
    assert die("d3") == Dist({1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)})
    assert die("d10")[10] == Fraction(1, 10)
    with pytest.raises(ValueError):
        die("x6")


def test_operations():
    d6 = die("d6")
    assert d6.expect() == Fraction(7, 2)
    assert d6.prob(lambda f: f <= 3) == Fraction(1, 2)
    assert d6.map(lambda f: f >= 4)[True] == Fraction(1, 2)
    assert d6.given(lambda f: f > 4) == Dist({5: Fraction(1, 2), 6: Fraction(1, 2)})
    two = d6.product(d6, lambda a, b: a + b)
    assert two == die("2d6")
    assert prob_json(Fraction(7, 36)) == {"fraction": "7/36", "float": 7 / 36}
    with pytest.raises(ValueError):
        Dist({1: Fraction(1, 2)})


@given(st.lists(st.integers(1, 20), min_size=1, max_size=8))
def test_normalised_sums_to_one(ws):
    d = Dist({i: w for i, w in enumerate(ws)}, normalise=True)
    assert d.total == 1
