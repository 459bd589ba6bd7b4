"""``cached_hash_repr`` (engine/core/values.py): hash and repr derived at construction, never written later
(issue 10: no caches written into frozen values), and pickling across processes remakes them."""
import pickle
import subprocess
import sys
from dataclasses import dataclass, replace

from hypothesis import given, strategies as st

from engine.core.values import cached_hash_repr
from engine.n20.outcome import UnitFate


@cached_hash_repr
@dataclass(frozen=True)
class Fate:
    unit: str
    hexes: int = 0


def test_hash_and_repr_are_made_when_the_value_is_made():
    f = Fate("FR-1", 2)
    before = dict(f.__dict__)
    hash(f), repr(f)
    assert f.__dict__ == before                     # nothing written after construction
    assert repr(f) == "Fate(unit='FR-1', hexes=2)"
    assert replace(f, hexes=3) == Fate("FR-1", 3) and hash(replace(f, hexes=3)) == hash(Fate("FR-1", 3))


@given(st.text(max_size=8), st.integers(-5, 5))
def test_equal_values_hash_equal_and_survive_pickling(unit, hexes):
    a, b = Fate(unit, hexes), Fate(unit, hexes)
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b)
    c = pickle.loads(pickle.dumps(a))
    assert c == a and hash(c) == hash(a) and repr(c) == repr(a)


def test_a_value_pickled_in_another_process_hashes_as_here():
    # string hashes differ between processes (PYTHONHASHSEED): a stored hash would break dict lookups
    code = ("import pickle,sys; from engine.n20.outcome import UnitFate; "
            "sys.stdout.buffer.write(pickle.dumps(UnitFate('FR-1', 'french', 'defender', 'routed', 2)))")
    data = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True,
                          env={"PYTHONHASHSEED": "123", "PYTHONPATH": "."}).stdout
    other = pickle.loads(data)
    here = UnitFate("FR-1", "french", "defender", "routed", 2)
    assert hash(other) == hash(here) and {here: 1}[other] == 1
