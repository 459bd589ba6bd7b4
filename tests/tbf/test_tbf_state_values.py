"""TBF positions are values (issue 10.6): what the game derives from a position (hash, repr, piece index,
pieces by hex) is made at construction; asking a position writes nothing into it; a position made by
``with_piece`` equals, in every derived field too, the same position built from scratch; pickles carry
only the fields."""
from __future__ import annotations

import pickle

from hypothesis import given, settings, strategies as st

from engine.tbf.game.setup import initial_state
from engine.tbf.game.state import GameState
from engine.tbf.scenario import default_scenario

SC = default_scenario()
START = initial_state(SC)
IDS = [p.id for p in START.pieces]
HEXES = sorted(SC.board.hexes())[:60]


def _derived(s: GameState) -> tuple:
    """Every field of the position, the derived ones included (its hash, piece index, pieces by hex), and its repr."""
    return (hash(s), dict(vars(s)), repr(s))


def test_asking_a_position_writes_nothing_into_it():
    before = dict(START.__dict__)
    START.piece(IDS[0]), START.on_map(), START.in_hex(START.pieces[0].hex or "2212"), hash(START), repr(START)
    assert START.__dict__ == before


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(HEXES + [None]), st.integers(0, 5)),
                min_size=1, max_size=6))
def test_with_piece_equals_the_position_built_from_scratch(moves):
    s = START
    for pid, hex_, facing in moves:
        s = s.with_piece(pid, hex=hex_, facing=facing)
    fresh = GameState(s.turn, s.pieces, s.control, s.flags)
    assert s == fresh and _derived(s) == _derived(fresh)
    back = pickle.loads(pickle.dumps(s))
    assert back == s and _derived(back) == _derived(s)
    assert set(pickle.loads(pickle.dumps(s)).__getstate__()) == {"turn", "pieces", "control", "flags"}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.tuples(st.sampled_from(IDS), st.sampled_from(HEXES + [None]), st.integers(0, 5)),
                          st.sampled_from(["alert", "column_II_mustered", "elite_disbanded", "light_blue_crossed"])),
                min_size=1, max_size=8))
def test_with_flag_equals_the_position_built_from_scratch(changes):
    # with_flag keeps the derived fields of the position it changes (only its hash is made again)
    s = START
    for c in changes:
        s = s.with_flag(c) if isinstance(c, str) else s.with_piece(c[0], hex=c[1], facing=c[2])
    fresh = GameState(s.turn, s.pieces, s.control, s.flags)
    assert s == fresh and _derived(s) == _derived(fresh)
    assert pickle.loads(pickle.dumps(s)) == s
