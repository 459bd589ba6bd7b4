"""Rally (10.0, 12.4 spending a Morale Point, 16.4 rally hexes, 16.5 cadres, 16.9.7 rallying on a leader):
who may rally, where a rallied unit goes, and the rally procedure."""
from __future__ import annotations

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll

from .actions import Action
from .state import GameState, replace_any as replace
from .types import other
from .victory import morale_change
from .zoc import enemy_hexes, enemy_zoc, on_map_units

__all__ = ["rally_candidates", "rally_hexes", "check_rally", "rally_procedure", "finish_rally"]


def rally_candidates(state: GameState) -> list[str]:
    sc = state.scenario
    out = []
    for u in state.units:
        if u.status != "broken":
            continue                      # 10.0: only broken units rally
        d = sc.units[u.id]
        if d.side == state.player and d.type not in ("leader", "dummy") \
                and not d.has("cadre") and not (d.has("straggler") and state.has("special_units")):
            out.append(u.id)
    return out


def rally_hexes(state: GameState, side: str, taken=()) -> list[str]:
    """Where a rallied unit may be placed: vacant friendly LOC hexes (10.0); with 16.4 also safe Town,
    Fortified, Redoubt or own Objective hexes; with 16.4 and 16.9.7 the hexes with or beside the leader
    named by this turn's event, not in an enemy ZOC."""
    sc = state.scenario
    board = sc.board
    occupied = set(h for h, ids in state.occupants.items()
                   if any(sc.units[i].type != "leader" for i in ids)) | set(taken)
    enemies = enemy_hexes(state, side)
    out = [h for h in board.loc_hexes(side) if h not in occupied and h not in enemies]
    if state.has("rally_hexes"):
        enemy_units = [u.hex for u in on_map_units(state, other(side))]
        locs = board.loc_hexes(side)
        own_obj = {h for h, s, _ in board.objectives if s == side}
        for h in board.hexes:
            if h in out or h in occupied or h in enemies:
                continue
            if not (board.terrain(h) in ("town", "fortified", "redoubt") or h in own_obj):
                continue
            if enemy_units and min(board.distance(h, e) for e in enemy_units) < 4:
                continue
            if not locs:
                continue
            near = min(locs, key=lambda l: board.distance(h, l))
            if enemy_units and not board.distance(h, near) < min(board.distance(e, near) for e in enemy_units):
                continue
            if _safe_trace(state, side, h, near):
                out.append(h)
        if state.rally_on and state.has("leaders"):
            lu = state.unit(state.rally_on)
            if lu.status == "map" and sc.units[lu.id].side == side:
                ez = enemy_zoc(state, side)
                for h in [lu.hex] + board.neighbours(lu.hex):
                    if h not in out and h not in occupied and h not in enemies and h not in ez:
                        out.append(h)
    return out


def _safe_trace(state, side, start, goal) -> bool:
    """16.4: a path to the LOC through no enemy-occupied or enemy-adjacent hex, nor across an unbridged
    Major River."""
    board = state.scenario.board
    enemy = {u.hex for u in on_map_units(state, other(side))}
    bad = set(enemy)
    for e in enemy:
        bad.update(board.neighbours(e))
    seen, todo = {start}, [start]
    while todo:
        h = todo.pop()
        if h == goal:
            return True
        for n in board.neighbours(h):
            if n not in seen and n not in bad and board.crossing_allowed(h, n):
                seen.add(n)
                todo.append(n)
    return False


def _rally_procedure(state: GameState, a: Action):
    sc = state.scenario
    tables = sc.tables
    side = state.player
    taken: list[str] = []
    results = []
    for uid in a.units:
        d = sc.units[uid]
        roll = yield Roll("d6", rule="10.0", label=f"rally {uid}")
        mod = 0
        if d.has("elite"):
            mod += tables.model.rally.modifiers.get("elite", 1)            # 16.7 / exclusive 2.0
        if a.spend:
            mod += tables.model.rally.modifiers.get("morale_point", 1)     # 12.4
        if d.has("irregular") and state.has("special_units"):
            mod += tables.model.rally.modifiers.get("spanish_irregular", -1)   # exclusive 16.7.7
        res = tables.rally_result(roll + mod)
        yield Log("10.0", f"{uid}: die {roll} {mod:+d} = {roll + mod}: {res}")
        place_as = uid
        if res == "cadre":
            pool = [u.id for u in state.units if u.status == "pool" and sc.units[u.id].side == side
                    and u.id not in [r[2] for r in results]]
            if state.has("unit_reduction") and d.type == "infantry" and pool:
                pick = yield Choose(("stay broken", "cadre"), rule="16.5.1", player=side,
                                    label=f"{uid}: take a Cadre instead?")
                if pick == "cadre":
                    place_as = pool[0]
                    res = "cadre"
                else:
                    res = "stays_broken"
            else:
                res = "stays_broken"
        if res in ("rallied", "cadre"):
            hexes = rally_hexes(state, side, taken)
            if not hexes:
                yield Log("10.0", f"{uid}: no rally hex free; it stays broken")
                results.append((uid, "stays_broken", None, None))
                continue
            h = yield Choose(tuple(hexes) + ("stay broken",), rule="10.0", player=side, label=f"place {place_as}")
            if h == "stay broken":
                results.append((uid, "stays_broken", None, None))
                continue
            taken.append(h)
            results.append((uid, res, place_as, h))
        else:
            results.append((uid, "stays_broken", None, None))
    return ("rally", a.spend, tuple(results))


def _finish_rally(state: GameState, result) -> GameState:
    _, spend, results = result
    st = state
    if spend:
        st = morale_change(st, {state.player: -1}, "12.4")
    changes = {}
    for uid, res, place_as, h in results:
        if res == "rallied":
            changes[uid] = replace(st.unit(uid), status="map", hex=h, routed=None, fatigue=0, moved=False,
                                   revealed=not st.has("fog_of_war"))
        elif res == "cadre":
            changes[uid] = replace(st.unit(uid), status="gone")                  # 16.5.1
            changes[place_as] = replace(st.unit(place_as), status="map", hex=h, routed=None, fatigue=0)
    return st.with_units(changes)     # the rally ends the phase: :mod:`.handlers` runs the night operations


def check_rally(state: GameState, a: Action) -> None:
    cands = set(rally_candidates(state))
    bad = [u for u in a.units if u not in cands]
    if bad or not a.units:
        raise RuleViolation("10.0", f"only broken units of the phasing side may rally ({', '.join(bad) or 'none'})")
    if len(set(a.units)) != len(a.units):
        raise RuleViolation("10.0", "a unit rallies once a night (a unit is named twice)")
    if a.spend and state.morale_of(state.player) < 1:
        raise RuleViolation("12.4", "no Morale Point to spend")


def rally_procedure(state: GameState, a: Action):
    return (yield from _rally_procedure(state, a))


def finish_rally(state: GameState, a: Action, result) -> GameState:
    return _finish_rally(state, result)
