"""engine.core.codec with bare ``tuple`` / ``frozenset`` annotations: JSON lists come back as tuples (nested
too), so a value rebuilt from its JSON is hashable and equal to the original."""
from dataclasses import dataclass

import pytest
from hypothesis import given, strategies as st

from engine.core.codec import CodecError, from_json, to_json


@dataclass(frozen=True)
class Marks:
    pairs: tuple = ()              # e.g. (("F-Vare", 1), ...)
    names: frozenset = frozenset()


@given(st.lists(st.tuples(st.text(max_size=5), st.integers())).map(tuple),
       st.frozensets(st.text(max_size=5)))
def test_bare_containers_round_trip(pairs, names):
    m = Marks(pairs, names)
    back = from_json(Marks, to_json(m))
    assert back == m and hash(back) == hash(m)


def test_bare_containers_refuse_other_shapes():
    with pytest.raises(CodecError, match="pairs"):
        from_json(Marks, {"pairs": 3})
    with pytest.raises(CodecError, match="names"):
        from_json(Marks, {"names": [{"a": 1}]})          # a set of objects cannot be rebuilt
