"""The speed caches of Napoleonic 20 games give the answers worked out without them (issues 10 and 16):

- a unit's movement search is kept in a bounded cache keyed by what it reads only (the enemy and
  enemy-ZOC hexes among those it says it looked at: a step within the budget from where it went on), and
  gives the same hexes, costs and paths as the search fed the whole map's sets (6.2-6.9, 7.6, 16.7-16.9);
- the hexes each unit stands in (``occupants``) and each unit's place in ``units`` are updated for the
  changed units only, and equal what a state made from scratch has;
- the retreat search reads the map through one table per board and side (9.8) that equals the board's
  own answers;
- the battle of the battle procedure is a value: equal battles are equal and hash alike, in another
  process too (pickle: the hash is made again there), and nothing is ever written into one (no memo, no cached property).
"""
import pickle
import random
from dataclasses import replace

import pytest

from engine.core.game import play_game as core_play_game
from engine.n20.battle import Battle
from engine.n20.game import reach as RC, zoc as Z
from engine.n20.game.protocol import RULES
from engine.n20.game.combat import engine_battle
from engine.n20.game.state import Battle as Declared, _occupants
from engine.n20.retreat import _retreat_map



def _states(scenario, bots, seed, options=(), n=400):
    out = []
    core_play_game(RULES, bots, scenario, options, seed, max_actions=n, record=False,
                   on_action=lambda st, k: out.append(st))
    return out


def _search_inputs(state, uid):
    """What reachable hands the cached search (as in rules.reachable), with the whole map's sets."""
    sc = state.scenario
    d = sc.units[uid]
    u = state.unit(uid)
    rules = sc.tables.rules
    night_v3 = state.night and rules.night_zoc == "reversed"
    ezoc = Z.enemy_zoc(state, d.side) if not (state.night and rules.night_zoc == "none") else frozenset()
    ma = RC.movement_allowance(state, uid) - (1 if u.square else 0)
    return (state.board, sc.tables, u.hex, ma, Z.enemy_hexes(state, d.side), ezoc, night_v3,
            state.has("fatigue") and u.fatigue >= 4, d.type == "leader", d.has("road_bound"),
            RC._rugged_free(state, d), RC._may_pay_surcharge(state, d),
            d.side if (u.routed and rules.routed_markers) else None)


@pytest.mark.parametrize("scenario,bots,seed,options", [
    ("fuentes", ("greedy", "greedy"), 2, ()),
    ("fuentes", ("random", "greedy"), 3, ("fatigue", "special_units", "squares")),
    ("bussaco", ("greedy", "random"), 4, ()),
])
def test_search_reads_the_map_only_at_the_hexes_it_says(scenario, bots, seed, options):
    # the search fed the whole map's enemy and ZOC hexes, fed only those among the hexes it says it looked
    # at, and fed those plus enemies and ZOCs made up everywhere else: one answer (so the cache keyed by
    # the looked-at hexes is exact), and the cache gives that answer too
    rng = random.Random(seed)
    checked = 0
    for state in _states(scenario, bots, seed, options)[::7]:
        hexes = state.board.hexes
        for u in state.units:
            if u.status != "map":
                continue
            args = _search_inputs(state, u.id)
            enemies, ezoc = args[4:6]
            want, looked = RC._reach_search(*args)
            near = RC._reach_search(*args[:4], enemies & looked, ezoc & looked, *args[6:])
            far = frozenset(h for h in rng.sample(hexes, 40) if h not in looked)
            made_up = RC._reach_search(*args[:4], enemies | far, ezoc | far, *args[6:])
            assert near == (want, looked) and made_up[0] == want, (state.turn, u.id)
            assert RC._reach_looked(args[:4] + args[6:], enemies, ezoc) == want
            checked += 1
    assert checked > 100


def test_entry_search_reads_the_map_only_at_the_hexes_it_says():
    # a reinforcement's search from its entry hex (11.1-11.4): fed only the enemy and ZOC hexes among those
    # it looked at, or those plus enemies and ZOCs made up everywhere else, it finds the same hexes, costs
    # and paths as fed the whole map's sets
    rng = random.Random(5)
    checked = 0
    for state in _states("fuentes", ("greedy", "greedy"), 1)[::9]:
        sc = state.scenario
        for u in state.units:
            if u.status != "due":
                continue
            d = sc.units[u.id]
            enemies = Z.enemy_hexes(state, d.side)
            ezoc = Z.enemy_zoc(state, d.side)
            for e in (h for a in u.areas for h in state.board.entry_areas.get(a, ())):
                if e in enemies:
                    continue
                want, looked = RC._entry_search(state, u.id, e, 1, 4, False, enemies, ezoc, False)
                near = RC._entry_search(state, u.id, e, 1, 4, False, enemies & looked, ezoc & looked, False)
                far = frozenset(h for h in rng.sample(state.board.hexes, 40) if h not in looked and h != e)
                made_up = RC._entry_search(state, u.id, e, 1, 4, False, enemies | far, ezoc | far, False)
                assert near == (want, looked) and made_up[0] == want, (state.turn, u.id, e)
                checked += 1
    assert checked > 20


def test_the_looked_at_hexes_lie_within_the_budget():
    # every step costs 1 or more Movement Points (the TEC's cheapest step is 1): with 3 points no hex more
    # than 3 steps away is read (a road move, 6.6, gets one more point: 4), and every neighbour of the start
    # is (6.2's one hex)
    s = RULES.new_game("fuentes", seed=1)
    u = next(u for u in s.units if u.status == "map")
    board, tables = s.board, s.scenario.tables
    _, looked = RC._reach_search(board, tables, u.hex, 3, frozenset(), frozenset(), False, False, False, False,
                                False, False, None)
    assert all(Z.distance(board, u.hex, h) <= 4 for h in looked)
    assert {h for h in board.hexes if Z.distance(board, u.hex, h) <= 1} <= looked


@pytest.mark.parametrize("scenario,bots,seed,options", [
    ("fuentes", ("random", "random"), 1, ("breakdown", "fog_of_war", "leaders", "unit_reduction")),
    ("bussaco", ("greedy", "random"), 2, ("fog_of_war",)),
])
def test_occupants_and_places_made_for_the_changed_units_equal_a_fresh_index(scenario, bots, seed, options):
    for state in _states(scenario, bots, seed, options):
        assert dict(state.occupants) == dict(_occupants(state.units))
        assert dict(state.places) == {u.id: i for i, u in enumerate(state.units)}


def test_retreat_map_table_equals_the_board():
    s = RULES.new_game("bussaco", seed=1)
    board = s.board
    for side in ("french", "allied"):
        steps, dist, nearest = _retreat_map(board, side)
        locs = board.loc_hexes(side)
        for h in board.hexes[::5]:
            want = tuple((n, board.river_crossing(h, n), board.is_road_link(h, n)) for n in board.neighbours(h)
                         if n not in board.prohibited and board.crossing_allowed(h, n))
            assert steps[h] == want
            assert dist[h] == tuple(board.distance(h, l) for l in locs)
            assert nearest[h] == min(dist[h], default=0)


def _a_battle():
    for state in _states("fuentes", ("greedy", "greedy"), 1):
        if state.declared:
            b = state.declared[0]
            return state, engine_battle(state, Declared(b.attackers, b.defenders), state.player, (False, False),
                                        False)
    raise AssertionError("no battle declared")


def test_battle_is_a_value():
    state, b = _a_battle()
    b2 = engine_battle(state, Declared(state.declared[0].attackers, state.declared[0].defenders), state.player,
                       (False, False), False)
    assert b is not b2 and b == b2 and hash(b) == hash(b2)
    # a copy loaded elsewhere (pickle) makes its hash again from its own fields (its map and tables are
    # new objects there, compared by identity like every loaded board and tables file)
    c = pickle.loads(pickle.dumps(b))
    assert replace(c) == c and hash(replace(c)) == hash(c) and dict(c.units).keys() == dict(b.units).keys()
    assert replace(b, reserves_attacker=True) != b
    assert not hasattr(b, "memo")
    before = dict(b.__dict__)
    _ = b.prepared, b.units, b.rules
    assert b.__dict__ == before                   # asking for derived data writes nothing into the value
    with pytest.raises(TypeError):
        b.units["x"] = None                       # the unit index is read-only


@pytest.mark.parametrize("scenario,bots,seed", [("fuentes", ("greedy", "greedy"), 5), ("bussaco", ("greedy", "random"), 6)])
def test_values_carried_over_by_with_units_equal_values_worked_out_afresh(scenario, bots, seed):
    # with_units copies what the memo holds about the side whose units did not change: each copied value
    # must be the one the state itself gives when worked out from scratch
    from engine.n20.game import bots as BO, memo as M
    from engine.n20.game.state import _ONE_SIDE_KEYS
    fresh = {"on_map": Z._on_map_units, "zs": Z._compute_zoc_sources, "eh": Z._compute_enemy_hexes,
             "ez": Z._compute_enemy_zoc, "greedy-distances": BO._dist_map}
    checked = [0]
    last = []

    def look(state, n):
        # the state just made (what was carried into it) and the one before (all its bot and rules used)
        for st in [state] + last[-1:]:
            slot = M._table.get(st) or M._carried.get(st) or {}     # carried, and not asked yet: beside the memo
            for name, _ in _ONE_SIDE_KEYS:
                for side in ("french", "allied"):
                    if (name, side) in slot:
                        assert slot[(name, side)] == fresh[name](st, side), (name, side, st.turn)
                        checked[0] += 1
        last.append(state)
    core_play_game(RULES, bots, scenario, (), seed, max_actions=400, record=False, on_action=look)
    assert checked[0] > 200
