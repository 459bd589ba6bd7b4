"""The quick forms of the TBF rules queries (issue 13 speed) against the plain way of working each one
out, over positions of recorded bot games: the same answers in every position tried. The plain ways
are written out here as references (the code the quick forms replaced)."""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest

from engine.core.errors import DataError, RuleViolation
from engine.core.game import play_game
from engine.tbf.game import search as SE
from engine.tbf.game.cavalry_charge import charge_setup
from engine.tbf.charge import validate as charge_validate
from engine.tbf.game.actions import Charge
from engine.tbf.game.movement import MoveBlock
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.activation import activation_plan
from engine.tbf.game.exclusive import ALL_RELEASED, releases, releases_now
from engine.tbf.game.fire_combat import fire_candidates
from engine.tbf.game.melee_combat import melee_candidates
from engine.tbf.game.position import current_ma, enemy_front, fronts_of, frontal, occupants, occupied
from engine.tbf.game.stacking import judge_stack, stacking_problem, stacking_problem_with
from engine.tbf.game.types import LIVE

R = TbfRules()
SC = R.sc


@pytest.fixture(scope="module")
def states():
    seen = []
    for bots, seed, n in ((("random", "random"), 31, 220), (("greedy", "greedy"), 4, 260),
                          (("greedy", "greedy"), 7, 200)):
        play_game(R, bots, seed=seed, max_actions=n, record=False,
                  on_action=lambda s, k: seen.append(s) if R.to_act(s) is not None else None)
    return seen


# --- references: the plain ways --------------------------------------------------------------------
def _plan_ref(sc, st, leader_id):
    """6.1.1-6.1.3 worked out leader by leader, unit by unit."""
    from engine.tbf.turn import turn_data
    g, td = sc.board.grid, turn_data()
    ldr, lp = sc.leaders[leader_id], st.piece(leader_id)
    leaders, frontier = [leader_id], [leader_id]
    while frontier:
        cur = frontier.pop()
        r = td.command_reach.leaders[sc.leaders[cur].rank]
        for sub in sc.leaders.values():
            if sub.superior == cur and sub.id not in leaders:
                sp = st.piece(sub.id)
                if sp.hex and sp.status == "normal" and not sp.activated and g.distance(sp.hex, st.piece(cur).hex) <= r:
                    leaders.append(sub.id)
                    frontier.append(sub.id)
    inside, outside = [], []
    for uid, u in sc.units.items():
        p = st.piece(uid)
        if p.hex is None or p.status not in LIVE or p.activated or u.side != ldr.side:
            continue
        owners = [x for x in leaders if sc.leaders[x].command == u.command
                  or (sc.leaders[x].rank == "division" and sc.leaders[x].command == u.command.split("-")[0])
                  or ("-" not in u.command and sc.leaders[x].command.split("-")[0] == u.command
                      and sc.leaders[x].side == "french")
                  or (u.command == "VI" and sc.leaders[x].rank == "army")]
        if not owners:
            continue
        reach = td.command_reach.units
        ok = any(g.distance(st.piece(x).hex, p.hex) <= (reach["column"] if u.command == "VI" and sc.leaders[x].rank == "army"
                                                         else reach[sc.leaders[x].rank]) for x in owners)
        (inside if ok else outside).append(uid)
    mine = set(inside) | set(outside)
    extra = sorted(uid for uid, u in sc.units.items() if u.side == ldr.side and uid not in mine
                   and st.piece(uid).hex and st.piece(uid).status in LIVE and not st.piece(uid).activated
                   and g.distance(st.piece(uid).hex, lp.hex) <= td.extra_units_reach.hexes)
    return leaders, sorted(inside), sorted(outside), extra


def _releases_ref(sc, st):
    """9.2 H-I, 9.4 B-C asked piece by piece."""
    g, act = sc.board.grid, sc.file.activation
    live = [p for p in st.on_map() if p.id in sc.units and p.status in LIVE]
    french = [p for p in live if sc.side(p.id) == "french"]
    coal = [p for p in live if sc.side(p.id) == "coalition"]
    v = [h for pid, h in sc.file.setup.coalition.items() if pid.startswith("cv-") or pid == "kolloredo"]
    if "column_V_released" not in st.flags and any(g.distance(f.hex, h) <= 3 for f in french for h in v):
        st = st.with_flag("column_V_released")
    vi = sc.board.data.setup_numbers.get("VI")
    if vi and "column_VI_deployed" not in st.flags and any(g.distance(f.hex, vi) <= 3 for f in french):
        st = st.with_flag("column_VI_deployed")
    if "french_released" not in st.flags and (st.turn >= act.french_release_turn or any(
            g.parse(p.hex)[0] <= act.french_release_row for p in coal if sc.units[p.id].command == "I")):
        st = st.with_flag("french_released")
    e = st.piece("elite")
    if e.hex and "elite_released" not in st.flags:
        if any(g.distance(p.hex, e.hex) == 1 for p in coal):
            st = st.with_flag("elite_released")
        if st.turn >= act.elite_release_turn and any(st.piece(x).hex and g.distance(st.piece(x).hex, e.hex) <= 1
                                                     for x in ("mortier", "gazan")):
            st = st.with_flag("elite_released")
    return st.flags


def _targets_ref(sc, g, enemy):
    return {q.hex for q in g.on_map() if sc.side(q.id) == enemy and q.status in LIVE and not sc.is_leader(q.id)}


def _fire_ref(s, side, defensive):
    """6.3.3, 6.3.5, 6.3.6: every target, every shooter."""
    from engine.tbf.game.actions import Fire
    from engine.tbf.game.state import book
    sc, g, imp = SC, s.game, s.impulse
    grid = sc.board.grid
    enemy = "coalition" if side == "french" else "french"
    if defensive:
        shooters = [q for q in g.on_map() if sc.side(q.id) == side and q.id in sc.units
                    and q.id not in imp.defensive_fired]
        targets = {g.piece(u).hex for u in imp.units if g.piece(u).hex and g.piece(u).status in LIVE}
    else:
        shooters = [g.piece(u) for u in imp.units if g.piece(u).hex and not book(imp, u).fired]
        targets = _targets_ref(sc, g, enemy)
    cav = "11.1" in s.options
    shooters = [q for q in shooters if q.status in ("normal", "fatigued") and (
        (sc.units[q.id].ff > 0 and sc.units[q.id].kind != "cavalry")
        or (cav and sc.units[q.id].kind == "cavalry" and sc.units[q.id].ff_red > 0))]
    lone = []
    if defensive:
        lone = [q for q in g.on_map() if q.id in sc.leaders and sc.side(q.id) == side and q.status == "normal"
                and q.id not in imp.defensive_fired and not occupants(sc, g, q.hex)]
    out = []
    for t in sorted(targets):
        around = grid.neighbours(t)
        out += [Fire(side, (q.id,), t) for q in lone if q.hex in around]
        ids = [q.id for q in shooters
               if (1 <= grid.distance(q.hex, t) <= 4 if sc.units[q.id].kind == "artillery" and not defensive
                   else q.hex in around)]
        out += [Fire(side, (u,), t) for u in ids]
        for n in range(2, len(ids) + 1):            # 6.3.7 A: every group of two or more may combine
            out += [Fire(side, grp, t) for grp in combinations(sorted(ids), n)]
    return out


def _melee_ref(s, side):
    """6.4: every target, every ready unit next to it."""
    from engine.tbf.game.actions import Melee
    from engine.tbf.game.state import book
    sc, g, imp = SC, s.game, s.impulse
    enemy = "coalition" if side == "french" else "french"
    ready = [u for u in imp.units if g.piece(u).hex and g.piece(u).status in ("normal", "fatigued")
             and not book(imp, u).meleed and not book(imp, u).charged]
    out = []
    for t in sorted(_targets_ref(sc, g, enemy)):
        ids = [u for u in ready if g.piece(u).hex in sc.board.grid.neighbours(t)]
        out += [Melee(side, (u,), t) for u in ids]
        for kinds in (("infantry", "artillery"), ("cavalry",)):
            grp = tuple(sorted(u for u in ids if sc.units[u].kind in kinds))
            if len(grp) > 1:
                out.append(Melee(side, grp, t))
    return out


# --- the tests -------------------------------------------------------------------------------------
def test_stacking_with_a_mover_is_the_stacking_of_the_position_made(states):
    """4.1.7: a move's stacking check asked of the hex's pieces plus the mover equals the check of the
    position with the mover there; every crowded hex's answer (kept by its pieces) equals a fresh one."""
    tried = 0
    for s in states[::5]:
        g = s.game
        occupied = [h for h, ps in g.by_hex.items() if len(ps) > 0]
        movers = [p.id for p in g.on_map() if p.id in SC.units and p.status in ("normal", "fatigued")][:12]
        for h in occupied[:10]:
            assert stacking_problem(SC, g, h) == judge_stack(SC, h, g.in_hex(h))
            for uid in movers:
                if g.piece(uid).hex != h:
                    assert stacking_problem_with(SC, g, h, uid) == stacking_problem(SC, g.with_piece(uid, hex=h), h)
                    tried += 1
    assert tried > 500


def _fronts_unit_by_unit(g, side: str) -> set:
    """The enemy front of ``side`` the plain way: every enemy unit's frontal hexes (4.3 C), united."""
    want = set()
    for p in g.on_map():
        if not SC.is_leader(p.id) and SC.side(p.id) != side:
            want |= frontal(SC, g, p)
    return want


def test_enemy_front_is_the_union_of_the_enemy_fronts(states):
    """4.3 C, 4.2.4 E, 8.4 B: the fronts kept per piece add up to the fronts worked out unit by unit."""
    for s in states[::2]:
        for side in ("french", "coalition"):
            want = _fronts_unit_by_unit(s.game, side)
            assert fronts_of(SC, s.game, side) == want
            assert enemy_front(SC, s.game, side) == want


def test_activation_plan_is_the_plain_plan(states):
    """6.1.1-6.1.3: who commands whom made once per scenario, the plan per position: the same leaders (in
    the order reached), units in and out of range, and extra candidates as worked out leader by leader."""
    tried = 0
    for s in states[::4]:
        g = s.game
        for lid, p in ((l, g.piece(l)) for l in SC.leaders):
            if p.hex is None or p.status != "normal" or p.activated:
                continue
            got = activation_plan(SC, g, lid)
            assert (got["leaders"], got["units"], got["out_of_command"], got["extra_candidates"]) == _plan_ref(SC, g, lid)
            got["units"].append("changed")          # the answer is a copy: the kept plan does not change
            assert "changed" not in activation_plan(SC, g, lid)["units"]
            tried += 1
    assert tried > 100


def test_releases_are_the_plain_releases(states):
    """9.2 H-I, 9.4 B-C against zones made once: the same flags, also from positions with every release
    flag taken away again (so each condition is asked)."""
    seen = set()
    for s in states[::2]:
        for g in (s.game, replace(s.game, flags=s.game.flags - ALL_RELEASED)):
            got = releases_now(SC, g).flags
            assert got == _releases_ref(SC, g)
            seen |= got & ALL_RELEASED
    assert seen >= {"french_released", "elite_released"}


def test_fire_and_melee_candidates_are_the_plain_lists(states):
    """6.3.3-6.3.6 and 6.4: candidates found from each firer's or attacker's neighbours, in the same order
    as asking every target about every unit."""
    fire = melee = 0
    for s in states:
        imp = s.impulse
        if imp is None or imp.segment == "movement":
            continue
        side = R.to_act(s)
        if imp.segment == "melee":
            got = melee_candidates(R.queries, s, side)
            assert got == _melee_ref(s, side)
            melee += bool(got)
        else:
            got = fire_candidates(R.queries, s, side, imp.segment == "defensive_fire")
            assert got == _fire_ref(s, side, imp.segment == "defensive_fire")
            fire += bool(got)
    assert fire > 10 and melee > 3


def _verdict(setup):
    try:
        charge_validate(setup, SC.tables)
        return None
    except RuleViolation as exc:
        return exc.rule


def test_a_charge_outline_decides_like_the_whole_charge(states):
    """6.2.8 A-C: the outline the legality check builds refuses or allows exactly what the whole set-up
    does, and agrees with it on the charger, path, MPs and targets."""
    tried = refused = 0
    for s in states:
        imp = s.impulse
        if imp is None or imp.segment != "movement":
            continue
        for c in R.candidates(s):
            if not isinstance(c, Charge):
                continue
            mp = R.queries.mp_left(s, c.unit)
            try:
                full = charge_setup(SC, s.game, c.unit, c.path, c.next, mp)
            except (DataError, RuleViolation) as exc:
                with pytest.raises(type(exc)) as again:
                    charge_setup(SC, s.game, c.unit, c.path, c.next, mp, outline=True)
                assert str(again.value) == str(exc)
                refused += 1
                continue
            part = charge_setup(SC, s.game, c.unit, c.path, c.next, mp, outline=True)
            assert _verdict(part) == _verdict(full)
            assert (part.charger, part.start_next_to_first, part.mp_left, part.approach_cost) == \
                   (full.charger, full.start_next_to_first, full.mp_left, full.approach_cost)
            assert [(t.hex, t.units, t.cost) for t in part.targets] == [(t.hex, t.units, t.cost) for t in full.targets]
            tried += 1
    assert tried > 3 and refused > 0, (tried, refused)


def test_overstacks_carried_from_the_previous_position_match_a_fresh_count(states):
    """4.1, 4.1.10: the overstacked hexes judged again only where a hex's pieces changed are those a fresh
    count over the whole map finds."""
    fresh, crowded = TbfRules(), 0
    for before, after in zip(states, states[1:]):
        R.queries.forget()
        R.queries.overstacks(before.game)
        got = R.queries.overstacks(after.game, before.game)
        assert got == fresh.queries.overstacks(after.game)
        fresh.queries.forget()
        crowded += bool(got)
    R.queries.forget()
    assert crowded > 0


def _reach_ref(sc, st, uid, levels, mp_left):
    """6.2 the plain way: the heap search over (hex, Level 2 hexes used, Level 3 hexes used) with every step
    put through the step rules (6.2.2-6.2.7, 6.2.3 A-C, 6.2.5 A-B, 4.1.4), folded into hexes."""
    from engine.core import graph
    p, side = st.piece(uid), sc.side(uid)
    leader = sc.is_leader(uid)
    enemy, friends, crowded = occupied(sc, st, side)
    friends = frozenset() if leader else (friends if p.hex in crowded else friends - {p.hex})
    front = enemy_front(sc, st, side)
    restricted = side == "french" and "alert" not in st.flags and uid in sc.file.setup.french
    elite = "elite" in sc.units and uid != "elite" and "strong_point_removed" not in st.flags and not leader
    rows = SE.search_rows(sc, False, side == "coalition", elite, restricted)
    b = sc.board
    starts = {b.level(p.hex)} | {b.level(n) for n in b.grid.neighbours(p.hex)}
    ma = min(sc.leaders[uid].ma if leader else current_ma(sc, p), mp_left)

    def steps(place, _c):
        here, l2, l3 = place
        for nxt, step, alt in rows[here]:
            if nxt in enemy:
                continue
            if alt is not SE.NO_ALT and nxt in friends:
                step = alt
            if step is None:
                continue
            mp, lvl = step
            if lvl and (lvl not in starts or (l2 if lvl == 2 else l3) >= levels.get(lvl, 0)):
                continue
            yield ((nxt, l2 + (lvl == 2), l3 + (lvl == 3)), mp)

    found = graph.search_parents((((p.hex, 0, 0), 0),), steps, ma, halts=lambda place: place[0] in front)
    out = {}
    for place, (cost, _) in found.items():
        if place[0] not in out or cost < out[place[0]][0]:
            out[place[0]] = (cost, tuple(x[0] for x in graph.path_of(found, place)))
    return out


def _movement_asks(states) -> list:
    """(position, mover, Level 2/3 allowance, MPs left) of every mover of the movement segments among
    ``states``: what the bot and the check ask the movement search (6.2)."""
    asks = []
    for s in states:
        if s.impulse is not None and s.impulse.segment == "movement":
            for b in R.candidate_blocks(s):
                if isinstance(b, MoveBlock):
                    l2, l3 = R.queries.levels_left(s.impulse, b.unit)
                    asks.append((s.game, b.unit, {2: l2, 3: l3}, R.queries.mp_left(s, b.unit)))
    return asks


def test_the_movement_search_is_the_plain_search(states, monkeypatch):
    """6.2: the search on hexes alone where no Level 2/3 hex can be entered, and a plain hex's steps taken
    as made once per board, give the same reach (MPs, paths, and the order hexes are listed in) as the
    plain search over (hex, Level 2/3 hexes used) that puts every step through the step rules."""
    asks = _movement_asks(states[::5])

    def run():
        SE.forget()
        return [SE.reachable(SC, g, uid, lv, mp_left=mp) for g, uid, lv, mp in asks]

    quick = run()
    monkeypatch.setattr(SE, "plain_row", lambda steps: None)
    slow = run()
    monkeypatch.undo()
    SE.forget()
    assert len(asks) > 30 and quick == slow
    flat = 0
    for (g, uid, lv, mp), got in zip(asks, quick):
        want = _reach_ref(SC, g, uid, lv, mp)
        assert got == want and list(got) == list(want), (uid, g.piece(uid))
        flat += not any(lv.values())
    assert flat and flat < len(asks)        # searches with and without Level 2/3 hexes allowed were tried


def test_movers_alike_share_the_movement_search_exactly(states):
    """6.2, 6.2.3 B-C, 4.1.4: the reach memo is keyed by the mover's hex, the MPs it may spend, leader or
    not, side and restrictions (not by its name), and a Level 2/3 allowance the start hex cannot use counts
    as none: every answer given from that shared memo is the answer of a search made afresh."""
    asks = _movement_asks(states[::3])
    SE.forget()
    shared = [SE.reachable(SC, g, uid, lv, mp_left=mp) for g, uid, lv, mp in asks]
    reused = SE.reach_memo_entries() < len(asks)
    fresh = []
    for g, uid, lv, mp in asks:
        SE.forget()
        fresh.append(SE.reachable(SC, g, uid, lv, mp_left=mp))
    SE.forget()
    assert len(asks) > 30 and reused
    for a, x, y in zip(asks, shared, fresh):
        assert x == y and list(x) == list(y), a[1]


def test_enemy_front_counted_from_the_last_position_is_the_plain_union(states):
    """4.3 C, 4.2.4 E, 8.4 B-C: the fronts worked out from the last position asked about (only the pieces
    that differ recounted), in game order, backwards and jumping about, equal the union of every enemy
    unit's front worked out afresh."""
    import random
    order = list(states) + list(reversed(states)) + random.Random(5).sample(states, 120)
    for s in order:
        for side in ("french", "coalition"):
            assert fronts_of(SC, s.game, side) == _fronts_unit_by_unit(s.game, side)
