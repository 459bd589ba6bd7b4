"""The reaction phase (8.0-8.3, 16.2 penetration, 16.7.1 light infantry, Bussaco 16.8): who may react and
where to, and the handlers of countercharges (a battle run by the battle procedure with the reacting
cavalry as attackers, 8.2), disengagement (8.3) and penetration (16.2) moves."""
from __future__ import annotations

from engine.core.errors import RuleViolation

from .actions import Action
from .combat import battle_in_game, enemy_targets, finish_battle, hex_of, zoc_covers
from .state import Battle, GameState, other, replace_any as replace
from .zoc import adjacent, combat_adjacent, enemy_hexes, enemy_zoc, friendly_hexes, on_map_units

__all__ = ["reaction_actions", "any_reaction", "check_reaction", "do_reaction_move", "countercharge",
           "finish_countercharge", "candidates"]


# ------------------------------------------------------------------------------------------------
# Who may react, and where to
# ------------------------------------------------------------------------------------------------
def _reactors(state: GameState):
    side = other(state.player)
    sc = state.scenario
    for u in on_map_units(state, side):
        if u.id in state.reacted or u.routed:
            continue
        d = sc.units[u.id]
        light = state.has("special_units") and d.has("light") and d.type == "infantry"
        if d.type == "cavalry" or light:
            yield u, d, light


def _adjacent_enemies(state: GameState, uid: str, placed=None) -> list[str]:
    """The enemies ``uid`` could attack (7.0); ``placed``: (enemy, its hex) of every target of its side,
    when the caller has them already."""
    if placed is None:
        placed = _placed_targets(state, state.scenario.units[uid].side)
    h = state.unit(uid).hex
    return [e for e, he in placed if combat_adjacent(state, h, he)]


def _placed_targets(state: GameState, side: str) -> list[tuple[str, str]]:
    return [(e, hex_of(state, e)) for e in enemy_targets(state, side)]


def _in_enemy_cav_zoc(state: GameState, side: str, h: str) -> bool:
    sc = state.scenario
    for u in on_map_units(state, other(side)):
        if sc.units[u.id].type == "cavalry" and zoc_covers(state, u.id, h):
            return True
    return False


def _attacked_already(state: GameState) -> set[str]:
    return {u.id for u in state.units if u.fought}


def _disengage_step(state: GameState, uid: str):
    """8.3.3: whether a disengaging unit may step from one hex to the next (not into an enemy, prohibited or
    enemy-controlled hex, nor across a prohibited hexside), with the hexes its friends hold."""
    sc = state.scenario
    board = state.board
    side = sc.units[uid].side
    ez = enemy_zoc(state, side)
    enemies = enemy_hexes(state, side)

    def ok(a, b):
        return b not in enemies and b not in board.prohibited and board.crossing_allowed(a, b) and b not in ez

    return ok, friendly_hexes(state, side, exclude=uid)


def _disengage_dests(state: GameState, uid: str) -> list[tuple[str, ...]]:
    """8.3.3: one hex to a vacant hex free of enemy ZOC; through friends (not in an EZOC) when nothing else."""
    board = state.board
    h = state.unit(uid).hex
    ok, friends = _disengage_step(state, uid)
    direct = [(h, n) for n in board.neighbours(h) if ok(h, n) and n not in friends]
    if direct:
        return direct
    out = []
    seen = {h}
    frontier = [(h,)]
    for _ in range(6):
        nxt = []
        for path in frontier:
            for n in board.neighbours(path[-1]):
                if n in seen or not ok(path[-1], n):
                    continue
                seen.add(n)
                if n in friends:
                    nxt.append(path + (n,))
                else:
                    out.append(path + (n,))
        if out:
            return out
        frontier = nxt
    return out


def _disengage_path_problem(state: GameState, uid: str, path: tuple[str, ...]) -> str | None:
    """Why ``path`` is not a disengagement ``uid`` may make (8.3.3), or None: from its hex, every step
    allowed, one hex when a vacant one is next to it, else through friendly hexes only as far as the
    nearest vacant hex (as many hexes as :func:`_disengage_dests` needs to get there)."""
    ways = _disengage_dests(state, uid)
    if tuple(path) in ways:
        return None
    ends = {w[-1]: len(w) for w in ways}
    if not path or path[-1] not in ends:
        return f"{uid} cannot disengage to {path[-1] if path else 'nowhere'}"
    h = state.unit(uid).hex
    if path[0] != h or len(path) != ends[path[-1]]:
        return (f"{uid} disengages from {h} straight to {path[-1]} ({ends[path[-1]] - 1} hex"
                f"{'es' if ends[path[-1]] > 2 else ''}), not by {'-'.join(path)}")
    ok, friends = _disengage_step(state, uid)
    grid = state.scenario.board                  # the printed map's neighbours (Fieldworks change no hexside)
    for a, b in zip(path, path[1:]):
        if b not in grid.neighbours(a) or not ok(a, b):
            return f"{uid} may not step from {a} into {b} as it disengages"
    if any(x not in friends for x in path[1:-1]):
        return f"{uid} passes only through friendly-held hexes on its way to {path[-1]}"
    return None


def _penetrate_dests(state: GameState, uid: str) -> list[str]:
    """16.2: to another vacant hex adjacent to an enemy unit, never in an enemy cavalry unit's ZOC."""
    sc = state.scenario
    board = state.board
    side = sc.units[uid].side
    h = state.unit(uid).hex
    enemies = enemy_hexes(state, side)
    friends = friendly_hexes(state, side, exclude=uid)
    enemy_units = [u.hex for u in on_map_units(state, other(side))]
    out = []
    for n in board.neighbours(h):
        if n in enemies or n in friends or n in board.prohibited or not board.crossing_allowed(h, n):
            continue
        if _in_enemy_cav_zoc(state, side, n):
            continue
        if any(adjacent(board, n, e) for e in enemy_units):
            out.append(n)
    return out


def reaction_actions(state: GameState, unit: str | None) -> list[Action]:
    return list(_reaction_actions(state, unit))


def any_reaction(state: GameState) -> bool:
    """Some reaction (8.0-8.3, 16.2) is open to the reacting player: the first of :func:`reaction_actions`,
    found without listing the others."""
    return next(_reaction_actions(state, None), None) is not None


def _reaction_actions(state: GameState, unit: str | None):
    # the reactions in the order reaction_actions lists them (one source for the list and the test)
    done = None
    groups: dict[str, list[str]] = {}
    placed = {}                   # side -> its targets with their hexes, worked out once
    for u, d, light in _reactors(state):
        if unit and u.id != unit:
            continue
        p = placed.get(d.side)
        if p is None:
            p = placed[d.side] = _placed_targets(state, d.side)
        enemies = _adjacent_enemies(state, u.id, p)
        if not enemies:
            continue
        if d.type == "cavalry" and not d.has("cossack"):
            if done is None:
                done = _attacked_already(state)
            for e in enemies:
                if e in done:
                    continue
                yield Action("countercharge", battles=(Battle((u.id,), (e,)),))
                groups.setdefault(e, []).append(u.id)
        pinned = _in_enemy_cav_zoc(state, d.side, u.hex) and not (d.has("cossack") and state.has("special_units"))
        if not pinned:
            for path in _disengage_dests(state, u.id):
                yield Action("disengage", unit=u.id, path=path)
            if state.has("penetration") and d.type == "cavalry" and not d.has("cossack"):
                for n in _penetrate_dests(state, u.id):
                    yield Action("penetrate", unit=u.id, path=(u.hex, n))
    for e, cavs in groups.items():
        if len(cavs) > 1:
            yield Action("countercharge", battles=(Battle(tuple(sorted(cavs)), (e,)),))


def _check_reaction(state: GameState, a: Action) -> None:
    sc = state.scenario
    side = other(state.player)
    if a.kind == "countercharge":
        if len(a.battles) != 1:
            raise RuleViolation("8.2.1", "a countercharge is one battle")
        b = a.battles[0]
        done = _attacked_already(state)
        for x in b.attackers:
            if x not in sc.units or sc.units[x].side != side or state.unit(x).status != "map":
                raise RuleViolation("8.1", f"{x} is not a reacting unit on the map")
            if sc.units[x].type != "cavalry" or (sc.units[x].has("cossack") and state.has("special_units")):
                raise RuleViolation("8.1", f"only cavalry (not cossacks, 16.7.2) countercharge; {x} cannot")
            if x in state.reacted:
                raise RuleViolation("8.0", f"{x} has already reacted this phase")
            if state.unit(x).routed:
                raise RuleViolation("9.6.3", f"{x} is Routed! and cannot react")
        targets = set(enemy_targets(state, side))
        for dd in b.defenders:
            if dd not in targets:
                raise RuleViolation("8.2.1", f"{dd} is not an enemy unit that can be countercharged")
            if dd in done:
                raise RuleViolation("9.1.2", f"{dd} has already been attacked this phase")
            for x in b.attackers:
                if not combat_adjacent(state, hex_of(state, x), hex_of(state, dd)):
                    raise RuleViolation("8.2.1", f"{x} is not adjacent to {dd}")
        if not b.attackers or not b.defenders:
            raise RuleViolation("8.2.1", "a countercharge needs cavalry and a target")
        return
    uid = a.unit
    if uid is None or uid not in sc.units or sc.units[uid].side != side:
        raise RuleViolation("8.0", f"{uid} is not a unit of the reacting player")
    allowed = {u.id for u, _, _ in _reactors(state)}
    if uid not in allowed:
        raise RuleViolation("8.3", f"{uid} cannot react (cavalry only; light infantry with 16.7.1; once per phase)")
    d = sc.units[uid]
    if not _adjacent_enemies(state, uid):
        raise RuleViolation("8.3", f"{uid} must start the reaction phase adjacent to an enemy unit")
    if _in_enemy_cav_zoc(state, side, state.unit(uid).hex) and not (d.has("cossack") and state.has("special_units")):
        raise RuleViolation("8.3.2", f"{uid} is in an enemy cavalry unit's ZOC: pinned")
    dest = a.path[-1] if a.path else a.hex
    if a.kind == "disengage":
        problem = _disengage_path_problem(state, uid, a.path)          # 6.0: the path as recorded, step by step
        if problem:
            raise RuleViolation("8.3.3", problem)
    else:
        if not state.has("penetration"):
            raise RuleViolation("16.2", "cavalry penetration is an optional rule not in use")
        if d.type != "cavalry" or d.has("cossack"):
            raise RuleViolation("16.2", f"only cavalry (not cossacks) penetrate; {uid} cannot")
        if dest not in _penetrate_dests(state, uid):
            raise RuleViolation("16.2", f"{uid} cannot penetrate to {dest}")
        here = state.unit(uid).hex
        if tuple(a.path) != (here, dest):                              # 6.0: one hex, from where it stands
            raise RuleViolation("16.2", f"{uid} penetrates one hex, from {here} to {dest}, not by {'-'.join(a.path)}")


def do_reaction_move(state: GameState, a: Action) -> GameState:
    uid = a.unit
    dest = a.path[-1] if a.path else a.hex
    u = state.unit(uid)
    st = state.with_units({uid: replace(u, hex=dest, moved=True)}, carry=False)     # steps on the way (8.3)
    # 16.9.3: a leader stacked with the reacting unit may go with it (it does, here)
    sc = state.scenario
    ch = {}
    for x in on_map_units(st, sc.units[uid].side):
        if sc.units[x.id].type == "leader" and x.hex == u.hex:
            ch[x.id] = replace(x, hex=dest)
    st = st.with_units(ch, carry=False)
    return replace(st, reacted=st.reacted + (uid,))


# ------------------------------------------------------------------------------------------------
# Handlers
# ------------------------------------------------------------------------------------------------
def check_reaction(state: GameState, a: Action) -> None:
    if state.night:
        raise RuleViolation("14.0", "no reaction phase at night")
    _check_reaction(state, a)


def countercharge(state: GameState, a: Action):
    """8.2: the countercharge is a battle with the reacting cavalry as attackers (12.5 reserves first)."""
    return (yield from battle_in_game(state, a))


def finish_countercharge(state: GameState, a: Action, result) -> GameState:
    return finish_battle(state, a, result)


def candidates(state: GameState, unit: str | None = None) -> list[Action]:
    return reaction_actions(state, unit)
