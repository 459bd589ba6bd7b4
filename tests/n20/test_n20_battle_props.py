"""Property tests of retreat paths on random maps (9.8.1-9.8.7), and play against enumeration on a map."""
from __future__ import annotations

from collections import Counter
from fractions import Fraction as F
import math

from hypothesis import assume, given, settings, strategies as st
from sizes import examples

from engine import n20
from engine.core.errors import RuleViolation
from engine.n20.board import parse_board
from engine.n20.retreat import retreat_options

from n20_battle_helpers import EXAMPLES, battle, forced_tables, inf

import pytest

GRID = "source: provisional\ngrid: {cols: 6, rows: 5}\n"


@st.composite
def situations(draw):
    sides = draw(st.lists(st.sampled_from([
        ("0303", "0203", "minor_river"), ("0302", "0202", "major_river"),
        ("0304", "0204", "minor_river"), ("0403", "0303", "major_river")]), unique=True))
    listed = ", ".join(f"{{hexes: ['{a}', '{b}'], features: [{f}]}}" for a, b, f in sides)
    board = parse_board(GRID + "loc: {allied: ['0103']}\n" + f"hexsides: [{listed}]\n")
    hexes = board.hexes
    start = draw(st.sampled_from(hexes))
    others = draw(st.lists(st.sampled_from([h for h in hexes if h != start]), max_size=6, unique=True))
    k = draw(st.integers(0, len(others)))
    enemies, friends = frozenset(others[:k]), frozenset(others[k:])
    ezoc = frozenset(n for e in enemies for n in board.zoc_of(e))
    return board, start, friends, enemies, ezoc, draw(st.integers(1, 6)), draw(st.booleans())


@settings(max_examples=examples(50))
@given(situations())
def test_9_8_retreat_paths_obey_the_restrictions(sit):
    board, start, friends, enemies, ezoc, distance, loc_breaks = sit
    opts = retreat_options(board, loc_breaks, "allied", False, start, distance, friends, enemies, ezoc)
    assert opts
    for o in opts:
        path = (start,) + o.hexes
        assert len(set(path)) == len(path)                                    # no hex twice
        for a, b in zip(path, path[1:]):
            assert board.grid.adjacent(a, b)
            assert b not in enemies                                           # 6.3
            assert board.crossing_allowed(a, b)                               # 9.8.1 major rivers
        if o.end == "ok":
            assert len(o.hexes) >= distance and path[-1] not in friends       # 9.8.5 goes on past friends
            assert len(o.hexes) == distance or all(h in friends for h in o.hexes[distance - 1:-1])
        for (a, b), hz in zip(zip(path, path[1:]), o.hazards):
            assert hz.count("9.8.3") == (1 if b in ezoc else 0)               # one roll per EZOC hex entered
            assert hz.count("9.8.4") == (1 if board.river_crossing(a, b) else 0)
    # all listed paths share the best rule-priority class and come in the default policy's order
    if opts[0].end != "blocked":
        assert len({o.priority for o in opts}) == 1
    assert list(opts) == sorted(opts, key=lambda o: (o.break_chance, o.priority, o.hexes))


def test_play_agrees_with_enumeration_on_a_map():
    b = n20.load_battle(EXAMPLES / "n20_map_battle.yaml")
    exact = n20.odds(b)
    n = 1500
    seen = Counter(n20.play_battle(b, seed=10_000 + s).result for s in range(n))
    assert set(seen) <= set(exact.outcomes)
    for pred in (lambda o: o.result == "DR", lambda o: any(f.fate == "broken" for f in o.fates),
                 lambda o: o.control == "lost"):
        p = float(exact.outcomes.prob(pred))
        freq = sum(c for o, c in seen.items() if pred(o)) / n
        assert abs(freq - p) <= 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9


def test_16_3_2_only_bombardment_crosses_an_unbridged_major_river():
    spec = {"map": str(EXAMPLES / "n20_test_map.yaml"),
            "attackers": [{"id": "art", "type": "artillery", "strength": 2, "hex": "0702"}],
            "defenders": [inf("d", 2, hex="0602", side="allied")]}
    with pytest.raises(RuleViolation) as e:
        battle(spec)
    assert e.value.rule == "16.3.2"
    spec["attackers"][0]["bombarding"] = True
    res = n20.odds(battle(spec, forced_tables("AB")))
    # bombarding artillery uses its printed 2 (not doubled, 9.3) and treats AB as AW
    assert res.attack == 2
    assert res.outcomes.prob(lambda o: o.fate("art").fate == "withdrew") == 1
    res = n20.odds(battle(spec, forced_tables("EX")))
    assert {o.result for o in res.outcomes} == {"EX->N"}    # attacking alone: Exchange becomes Engaged


MAP_BATTLE_BOARD = n20.load_battle(EXAMPLES / "n20_map_battle.yaml").board


@st.composite
def two_against_two(draw):
    """Two defenders in adjacent hexes, attacked from both hexes that touch them both (9.2.2), others around."""
    g = MAP_BATTLE_BOARD.grid
    hexes = sorted(MAP_BATTLE_BOARD.hexes)
    d1 = draw(st.sampled_from(hexes))
    d2 = draw(st.sampled_from(sorted(g.neighbours(d1))))
    common = sorted(set(g.neighbours(d1)) & set(g.neighbours(d2)))
    assume_two = len(common) == 2
    a1, a2 = common if assume_two else (common[0], common[0])
    free = [h for h in hexes if h not in {d1, d2, a1, a2}]
    others = draw(st.lists(st.sampled_from(free), max_size=4, unique=True))
    k = draw(st.integers(0, len(others)))
    code = draw(st.sampled_from(["DR", "DW", "EX", "AR", "AW"]))
    data = {"edition": "v3", "map": str(EXAMPLES / "n20_test_map.yaml"), "attacker": "french",
            "attackers": [inf("a1", 3, hex=a1)] + ([{"id": "a2", "type": "cavalry", "strength": 2, "movement": 3,
                                                     "hex": a2}] if assume_two else []),
            "defenders": [inf("d1", 2, hex=d1), inf("d2", 2, hex=d2)],
            "others": [inf(f"f{i}", 1, hex=h, side="french") for i, h in enumerate(others[:k])]
            + [inf(f"g{i}", 1, hex=h, side="allied") for i, h in enumerate(others[k:])]}
    return data, code


@settings(max_examples=examples(20))
@given(two_against_two())
def test_9_9_1_no_two_units_end_a_battle_in_one_hex(case):
    # After every retreat and advance of a battle, no hex holds two units (6.9; 9.9.1 advances only
    # through hexes left vacant): checked on every outcome the enumeration reaches.
    data, code = case
    try:
        b = battle(data, forced_tables(code))
        dist = n20.odds(b).outcomes
    except RuleViolation:
        assume(False)            # e.g. an attack across an unbridged major river (16.3.2): not a battle
    start = {u.id: u.hex for u in b.attackers + b.defenders + b.others}
    for outcome in dist:
        where = dict(start)
        for f in outcome.fates:
            if f.fate in ("broken", "destroyed"):
                where.pop(f.unit, None)
            elif f.end_hex:
                where[f.unit] = f.end_hex
        assert len(set(where.values())) == len(where), (code, outcome)


def _every_path_reference(board, loc_breaks, side, road_bound, start, distance, friends, enemies, ezoc):
    """9.8-9.8.7 worked out the slow way, for comparison with the pruned search: every simple path is
    walked to its end, ranked (friend hexes 9.8.5, EZOC hexes 9.8.2, certain break, steps not closer to
    each LOC hex 9.8.6), the best class kept (the longest blocked paths when nothing completes) and put in
    the policy's order (least break chance, priority, hex labels)."""
    if distance <= 0:
        return [((), (), "ok", (0, 0, False, 0), None)]
    locs = board.loc_hexes(side)
    done, stuck = [], []

    def walk(path, hz, fr, ez, through, counts):
        here, steps = path[-1], len(path) - 1
        nc = min(counts) if counts else 0
        if steps >= distance and here not in friends:
            done.append((tuple(path[1:]), tuple(hz), "ok", (fr, ez, False, nc), through))
            return
        if loc_breaks and steps and here in locs and steps < distance:
            done.append((tuple(path[1:]), tuple(hz), "loc", (fr, ez, True, nc), through))
            return
        nxt = [n for n in board.neighbours(here) if n not in board.prohibited and board.crossing_allowed(here, n)
               and n not in path and n not in enemies]
        if not nxt and steps:
            stuck.append((tuple(path[1:]), tuple(hz), "blocked", (fr, ez, True, nc), through))
        for n in nxt:
            c2 = [c + (board.distance(n, l) >= board.distance(here, l)) for c, l in zip(counts, locs)]
            if road_bound and not board.is_road_link(here, n):                 # 16.7.6
                done.append((tuple(path[1:]) + (n,), tuple(hz) + ((),), "off_road",
                             (fr, ez, True, min(c2) if c2 else 0), through))
                continue
            h = (("9.8.4",) if board.river_crossing(here, n) else ()) + (("9.8.3",) if n in ezoc else ())
            walk(path + [n], hz + [h], fr + (n in friends), ez + (n in ezoc),
                 steps if through is None and n in friends else through, c2)

    walk([start], [], 0, 0, None, [0] * len(locs))
    if done:
        top = min(p[3] for p in done)
        pool = [p for p in done if p[3] == top]
    elif stuck:
        longest = max(len(p[0]) for p in stuck)
        pool = [p for p in stuck if len(p[0]) == longest]
    else:
        return [((), (), "blocked", (0, 0, True, 0), None)]
    pool.sort(key=lambda p: (p[2] != "ok", sum(map(len, p[1])) if p[2] == "ok" else 0, p[3], p[0]))
    return pool


@settings(max_examples=150)
@given(situations(), st.booleans())
def test_9_8_pruned_retreat_search_lists_what_walking_every_path_lists(sit, road_bound):
    # the search prunes paths that cannot reach the best class and walks its path in place; listing every
    # simple path and ranking them must give the same options in the same order
    board, start, friends, enemies, ezoc, distance, loc_breaks = sit
    distance = min(distance, 4)          # the reference walks every path: keep it small
    opts = retreat_options(board, loc_breaks, "allied", road_bound, start, distance, friends, enemies, ezoc)
    got = [(o.hexes, o.hazards, o.end, o.priority, o.through_friend_at) for o in opts]
    assert got == _every_path_reference(board, loc_breaks, "allied", road_bound, start, distance, friends,
                                        enemies, ezoc)
