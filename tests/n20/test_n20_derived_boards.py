"""What the game's speed work derives from a map instead of working it out again (issues 10 and 16) equals
what working it out afresh gives:

- a board with Fieldworks (Fuentes 14.2: the hexes count as Redoubt) made by ``Board.with_terrain`` has the
  ZOCs (7.0) and the movement steps (6.x TEC) of a board built in full with that terrain;
- the greedy bot's steps to the nearest target, looked up hex by hex, equal one breadth-first search from
  all the targets at once.
"""
from dataclasses import replace

from hypothesis import given, settings, strategies as st
from sizes import examples

from engine.n20.game import bots as BO, reach as RC
from engine.n20.game.scenario import load_scenario

FUENTES = load_scenario("fuentes")
BOARD = FUENTES.board
HEXES = sorted(BOARD.hexes)


def _full(board, terrain_changes):
    """The board built in full (every derived table made again) with the terrain changed."""
    terrain = dict(board.terrain_of)
    terrain.update(terrain_changes)
    return replace(board, terrain_of=terrain)


@settings(max_examples=examples(6), deadline=None)
@given(st.lists(st.sampled_from(HEXES), min_size=1, max_size=4, unique=True))
def test_fieldworks_board_has_the_zocs_and_steps_of_a_board_built_in_full(fieldworks):
    changes = {h: "redoubt" for h in fieldworks}
    derived = BOARD.with_terrain(changes)
    full = _full(BOARD, changes)
    assert derived.base is BOARD and full.base is full
    assert derived.terrain_changed == frozenset(h for h in fieldworks if BOARD.terrain(h) != "redoubt")
    assert all(derived.zoc_of(h) == full.zoc_of(h) for h in HEXES)          # 7.0
    tables = FUENTES.tables
    assert RC._edges(derived, tables) == RC._edges(full, tables)              # 6.x steps into a Redoubt
    assert RC._whole_steps(derived, tables) == RC._whole_steps(full, tables)
    for rugged_free in (False, True):                                       # 6.5/6.6 rows made again
        assert RC._plain_steps(derived, tables, rugged_free) == RC._plain_steps(full, tables, rugged_free)
    # one marker more on a board that already has some: still the board built in full
    more = [h for h in HEXES if h not in changes][:1]
    again = derived.with_terrain({h: "redoubt" for h in more})
    assert again.base is BOARD
    assert all(again.zoc_of(h) == _full(BOARD, {**changes, more[0]: "redoubt"}).zoc_of(h) for h in HEXES)


def test_fieldworks_board_changes_only_the_zocs_next_to_the_marker():
    # a Redoubt hex keeps ZOCs out (7.0): a unit next to it no longer controls it
    h = next(x for x in HEXES if BOARD.terrain(x) == "clear" and
             any(BOARD.terrain(n) == "clear" for n in BOARD.neighbours(x)))
    n = next(x for x in BOARD.neighbours(h) if BOARD.terrain(x) == "clear")
    assert h in BOARD.zoc_of(n)
    assert h not in BOARD.with_terrain({h: "redoubt"}).zoc_of(n)
    assert BOARD.zoc_of(n) - {h} == BOARD.with_terrain({h: "redoubt"}).zoc_of(n)


@settings(max_examples=12, deadline=None)
@given(st.lists(st.sampled_from(HEXES), min_size=0, max_size=12, unique=True))
def test_nearest_steps_equal_one_search_from_every_target(targets):
    targets = tuple(sorted(targets))
    whole = BO._distances(BOARD, targets)
    lazy = BO.NearestSteps(BOARD, targets)
    assert all(lazy.get(h, 0) == whole.get(h, 0) for h in HEXES)
    assert lazy == BO.NearestSteps(BOARD, targets)


def test_nearest_steps_by_hand():
    a = HEXES[0]
    lazy = BO.NearestSteps(BOARD, (a,))
    assert lazy.get(a) == 0
    n = BOARD.neighbours(a)[0]
    assert lazy.get(n) == 1                      # one step from the target
    assert BO.NearestSteps(BOARD, ()).get(a, 0) == 0     # no target: the default, as dict.get gives


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(HEXES), st.integers(0, 5), st.lists(st.sampled_from(HEXES), max_size=15),
       st.lists(st.sampled_from(HEXES), max_size=25), st.booleans(), st.booleans())
def test_movement_search_by_places_equals_the_search_folded_into_places(start, budget, blocked, stop_in,
                                                                        rugged_free, road_only):
    # engine.core.graph.search_places against graph.search + by_place (the paths mapped to hexes), on the
    # steps the movement search takes (6.3 blocked hexes, 6.7 ZOC stops, 6.5/6.6 rugged stops, roads):
    # the same hexes in the same order, the same costs and the same paths (ties: the way found first)
    from engine.core.graph import by_place, search
    tables = FUENTES.tables
    edges = RC._edges(BOARD, tables)
    blocked, stop_in = frozenset(blocked) - {start}, frozenset(stop_in)
    succ = RC._successors(edges, road_only, blocked, stop_in, rugged_free, False, None, board=BOARD, tables=tables)
    slow = RC._successors(edges, road_only, blocked, stop_in, rugged_free, False, None)   # no shortcut
    got = RC._run_search(start, 0, budget, succ)
    found = search((((start, False), 0),), slow, budget, halts=lambda node: node[1])
    want = {h: (r.cost, tuple(n[0] for n in r.path)) for h, r in by_place(found, lambda node: node[0]).items()}
    assert list(got.items()) == list(want.items())
