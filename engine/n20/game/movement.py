"""Movement (6.0-6.10, 11.0 reinforcements, 12.2.1 Guard commitment, 12.3 forced march, 16.1.3 dummies
arriving, 16.6 breakdown and build-up, 17.1 squares): who may move, where to, and the handlers of the
movement-phase actions."""
from __future__ import annotations

from engine.core.errors import RuleViolation

from ..board import RUGGED
from .actions import Action
from .memo import memo
from .state import GameState, refuse_older_reading, replace_any as replace
from .turn import actor
from .types import Side, Status, Step
from .victory import morale_change
from .reach import cadre_meets_cadre, entry_options, movement_allowance, path_cost, search_moves
from .zoc import enemy_hexes, enemy_zoc, friendly_hexes, neighbours_map

__all__ = ["check_can_move", "destinations", "check_move", "do_move", "check_forced_march", "do_forced_march",
           "check_form_square", "do_form_square", "check_breakdown", "do_breakdown", "check_add_dummy",
           "do_add_dummy", "build_up", "buildup_target", "free_dummies", "dummy_problem", "reinf_turn",
           "can_square", "can_break_down", "any_unmoved", "stacks", "check_stacks_can_part",
           "could_trap_a_stack"]


def check_can_move(state: GameState, uid: str) -> None:
    """Raise :class:`RuleViolation` when ``uid`` may not move now (the answer is memoised beside the
    state: every candidate move of a unit asks it again)."""
    problem = memo(state, ("can_move", uid), lambda: _can_move_problem(state, uid))
    if problem is not None:
        raise RuleViolation(*problem)


def _can_move_problem(state: GameState, uid: str) -> tuple[str, str] | None:
    try:
        _check_can_move_now(state, uid)
    except RuleViolation as exc:
        return exc.rule, exc.message
    return None


def _check_can_move_now(state: GameState, uid: str) -> None:
    sc = state.scenario
    d = sc.units[uid]
    u = state.unit(uid)
    side = actor(state)
    if d.side != side:
        raise RuleViolation("6.1", f"{uid} is not a unit of the {side} player")
    if u.moved:
        raise RuleViolation("6.4", f"{uid} has already moved this phase (no take-backs)")
    if u.status == "due":
        if not _reinforcement_may_enter(state, uid):
            r = _reinf(state, uid)
            raise RuleViolation("11.7", f"{uid} may enter only while a friendly unit holds {r.requires_occupied} "
                                        f"and up to turn {r.until}")
        return
    if u.status != "map":
        raise RuleViolation("11.0", f"{uid} is not on the map ({u.status})")
    if uid in state.builders:
        raise RuleViolation("14.2", f"{uid} is building Fieldworks this turn")
    if state.release_left is not None and state.turn == sc.spec.start_turn and d.side == Side.ALLIED \
            and state.release_left <= 0:
        raise RuleViolation("6.10", "no more allied units may move on turn 1 (Units Released)")
    if d.type == "supply" and state.night and not state.forced_march:
        raise RuleViolation("6.10", "the Supply Column moves at night only by forced march")


def destinations(state: GameState, uid: str) -> dict:
    """Where ``uid`` may end its move this phase (memoised beside the state, :mod:`.memo`)."""
    return memo(state, ("reach", uid), lambda: _compute_reach(state, uid))


def _compute_reach(state: GameState, uid: str) -> dict:
    u = state.unit(uid)
    phase = state.step == Step.MOVEMENT and state.night_march_left is None      # 6.9 is judged at its end
    hit = entry_options(state, uid, u.areas, phase) if u.status == Status.DUE else search_moves(state, uid, phase)
    if uid in state.dummy_pair:            # 16.1.3 / 6.9: the pair, once parted, may not stack again
        mate = state.unit(next(x for x in state.dummy_pair if x != uid))
        if mate.status == Status.MAP and mate.hex in hit:
            hit = {h: r for h, r in hit.items() if h != mate.hex}
    if phase:
        hit = {h: r for h, r in hit.items() if _may_end_in(state, uid, h)}
    return hit


def _may_end_in(state: GameState, uid: str, h: str) -> bool:
    """6.9: units may not *end the Movement Phase* stacked, so a move may end on one friendly unit that can
    still move on (not moved yet, free to move, with a hex to go to: it must part before the phase ends,
    :func:`check_end_phase`); 16.6.2: a Cadre may end on a lone Cadre it will build up with; leaders are
    stack-free (16.9.2)."""
    sc = state.scenario
    if sc.units[uid].type == "leader":
        return True
    others = [x for x in state.occupants.get(h, ()) if x != uid and sc.units[x].type != "leader"]
    if not others:
        return True
    if cadre_meets_cadre(state, sc.units[uid], h):
        return True
    if len(others) != 1:
        return False
    return _can_move_on(state, others[0])


def _can_move_on(state: GameState, uid: str) -> bool:
    """``uid`` may still leave its hex this phase for a hex where it stands alone (6.4, 6.9)."""
    return bool(_free_moves(state, uid))


def _free_moves(state: GameState, uid: str) -> frozenset:
    """The hexes ``uid`` could still move to and stand alone in this phase (empty when it may not move:
    moved, building, 6.4; 6.10; 11.7), memoised beside the state."""
    return memo(state, ("free_moves", uid), lambda: _compute_free_moves(state, uid))


def _compute_free_moves(state: GameState, uid: str) -> frozenset:
    if state.unit(uid).moved or uid in state.builders:
        return frozenset()
    try:
        check_can_move(state, uid)
    except RuleViolation:
        return frozenset()
    return frozenset(search_moves(state, uid))


def could_trap_a_stack(state: GameState, mover: str, dest: str) -> bool:
    """Whether ``mover`` ending its move in ``dest`` might leave a stack unable to part (6.9): only when a
    unit of a stack has no hex to go to but ``dest``. (Friendly moves change no enemy ZOC: every other hex a
    stacked unit could go to stays open, and the hex the mover leaves is one more.) When False,
    :func:`check_stacks_can_part` would pass; when True, it is asked."""
    for _, stack in stacks(state):
        for x in stack:
            free = _free_moves(state, x) if x != mover else frozenset()
            if free and free <= {dest}:
                return True
    return False


def stacks(state: GameState) -> list[tuple[str, tuple[str, ...]]]:
    """6.9: the hexes where units stand stacked now, with the units that count (leaders are stack-free,
    16.9.2; two Cadres that will build up at the end of the phase, 16.6.2, may stay together); memoised
    beside the state."""
    return memo(state, ("stacks",), lambda: _stacks(state))


def _stacks(state: GameState) -> list[tuple[str, tuple[str, ...]]]:
    units = state.scenario.units
    out = []
    for h, ids in sorted(state.occupants.items()):
        if len(ids) < 2:
            continue
        stack = tuple(i for i in ids if units[i].type != "leader")
        if len(stack) > 1 and buildup_target(state, stack) is None:
            out.append((h, stack))
    return out


def check_stacks_can_part(state: GameState, after: GameState) -> None:
    """6.9: an action of the movement phase may not leave a stack that can no longer part before the phase
    ends: the units of it that cannot move on any more (moved, formed square, hemmed in) must be one at
    most, or two Cadres that will build up (16.6.2). :class:`RuleViolation` if so."""
    moves_needed = 0
    for h, stack in stacks(after):
        stay = tuple(x for x in stack if not _can_move_on(after, x))
        if len(stay) > 1 and not (len(stay) == 2 and buildup_target(after, stay) is not None):
            raise RuleViolation("6.9", f"units {', '.join(stay)} could no longer part before the end of the "
                                       f"movement phase ({h})")
        moves_needed += len(stack) - max(len(stay), 1)
    if after.release_left is not None and after.player == Side.ALLIED and moves_needed > after.release_left:
        raise RuleViolation("6.9", f"the stacks could no longer part: {moves_needed} more allied units would have "
                                   f"to move, and the Units Released counter lets {after.release_left} (6.10)")


def check_move(state: GameState, a: Action) -> None:
    if a.unit is None or not a.path:
        raise RuleViolation("6.0", "a move names a unit and its path of hexes")
    check_can_move(state, a.unit)
    reach = destinations(state, a.unit)
    dest = a.path[-1]
    r = reach.get(dest)
    if r is not None and r.guard_cost and state.unit(a.unit).status == Status.DUE:
        refuse_older_reading(state, "12.2.1", "a Guard reinforcement entering next to an enemy paid nothing")
    if r is not None and r.path == a.path:
        return                                  # the listed move itself
    on_map = neighbours_map(state.board)
    for h in a.path:
        if h not in on_map:
            raise RuleViolation("6.0", f"hex {h} is not on the map")
    if r is None:
        raise RuleViolation(*_why_not(state, a.unit, dest))
    path_cost(state, a.unit, a.path)            # 6.0: every step of the path, not only where it ends


def _why_not(state: GameState, uid: str, dest: str) -> tuple[str, str]:
    """The rule that most directly forbids moving ``uid`` to ``dest`` (for the error message)."""
    sc = state.scenario
    side = sc.units[uid].side
    u = state.unit(uid)
    if dest in enemy_hexes(state, side):
        return "6.3", f"{dest} holds an enemy unit or garrison: {uid} may not enter it"
    if u.status == "map" and u.hex in enemy_zoc(state, side) and not state.night and sc.units[uid].type != "leader":
        return "6.8", f"{uid} starts in an enemy ZOC and may not move (only by disengagement or at night)"
    if uid in state.dummy_pair and dest in {state.unit(x).hex for x in state.dummy_pair if x != uid}:
        return "6.9", f"{uid} and the dummy it arrived with (16.1.3) may not end up stacked again in {dest}"
    if dest in friendly_hexes(state, side, exclude=uid) and sc.units[uid].type != "leader":
        return "6.9", f"{uid} may not end its move stacked with another unit in {dest}"
    if state.night and sc.tables.rules.night_zoc == "reversed" and dest in enemy_zoc(state, side):
        return "7.6", f"at night {dest} (in an enemy ZOC) may not be entered"
    if u.status == "due":
        return "11.1", f"{uid} cannot get from its entry area to {dest} this phase"
    return "6.2", f"{dest} is beyond {uid}'s movement allowance this phase (or every way there is blocked: 6.5, 6.7)"


def do_move(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    d = sc.units[a.unit]
    u = state.unit(a.unit)
    r = destinations(state, a.unit)[a.path[-1]]
    changes = {}
    cost = r.cost if r.path == a.path else path_cost(state, a.unit, a.path)
    nu = replace(u, status="map", hex=r.hex, moved=True, square=False, mp_left=_left_after(state, a.unit, r.hex, cost))
    st = state
    if u.status == "due":
        entered = dict(state.entered)
        entered[a.path[0]] = entered.get(a.path[0], 0) + 1      # 11.2: at the hex it entered by
        st = replace(st, entered=tuple(sorted(entered.items())))
        if st.has("fog_of_war"):
            st = replace(st, arrived=st.arrived + (a.unit,))    # 16.1.3: may bring a dummy along
    if r.guard_cost:
        st = morale_change(st, {d.side: -1}, "12.2.1")
        nu = replace(nu, revealed=True)                         # 16.1.1
    changes[a.unit] = nu
    st = st.with_units(changes)
    if st.release_left is not None and d.side == Side.ALLIED and st.turn == sc.spec.start_turn:
        st = replace(st, release_left=st.release_left - 1)     # Bussaco 6.10
    ex = sc.spec.exclusive
    if ex.supply_column == a.unit and ex.almeida and r.hex == ex.almeida and not st.supply_delivered:
        st = replace(st, supply_delivered=True)                 # Fuentes 12.6
        st = morale_change(st, dict(ex.resupply_morale), "12.6")
    return st


def _left_after(state: GameState, uid: str, dest: str, cost: int) -> int:
    """The Movement Points a unit has left after a move costing ``cost`` (17.1 may spend one to form square):
    none once it entered an enemy ZOC (6.7) or a rugged hex (6.5: unspent points are forfeit); the road
    bonus (6.6) is for road movement and is not counted (a rules choice, docs/n20-game.md)."""
    u = state.unit(uid)
    if dest in enemy_zoc(state, state.scenario.units[uid].side) or state.board.terrain(dest) in RUGGED:
        return 0
    return max(0, movement_allowance(state, uid) - (1 if u.square else 0) - cost)


def _reinf(state: GameState, uid: str):
    return next((r for r in state.scenario.spec.reinforcements if r.unit == uid), None)


def reinf_turn(state: GameState, uid: str) -> int:
    """Scheduled turn, moved two turns earlier by Bessieres' 4 or 6 (17.2)."""
    r = _reinf(state, uid)
    if r is None:
        if uid == state.scenario.spec.exclusive.bessieres_units.get("guard") and state.bessieres in (5, 6):
            return 1 if state.bessieres == 6 else state.scenario.spec.start_turn
        return 10 ** 6
    t = r.turn
    if state.bessieres in (4, 6) and not r.optional:
        t = max(1, t - 2)
    return t


def _reinforcement_may_enter(state: GameState, uid: str) -> bool:
    r = _reinf(state, uid)
    if r is None:
        return True
    if r.until is not None and state.turn > r.until:
        return False
    if r.requires_occupied:
        side = state.scenario.units[uid].side
        occ = state.occupants.get(r.requires_occupied, ())
        if not any(state.scenario.units[x].side == side for x in occ):
            return False
    return True


def any_unmoved(state: GameState) -> bool:
    side = state.player
    sc = state.scenario
    return any(sc.units[u.id].side == side and u.status in ("map", "due") and not u.moved for u in state.units)


def can_square(state: GameState, uid: str) -> bool:
    """17.1: infantry in a Clear hex, not in square yet, with the Movement Point it costs: before it moves,
    or after a move that left it one (:attr:`UnitState.mp_left`)."""
    d = state.scenario.units[uid]
    u = state.unit(uid)
    return d.type in ("infantry", "cadre") and not u.square and u.status == "map" and \
        state.scenario.board.terrain(u.hex) == "clear" and (not u.moved or u.mp_left >= 1)


def _is_large_infantry(d) -> bool:
    return d.type == "infantry" and d.strength >= 2 and not d.has("cadre")


def _pool_cadres(state: GameState, uid: str) -> list[str]:
    """Cadres of the unit's side and nationality not in play (16.6.1; 16.6.2 pairs them by nationality,
    so a unit only breaks down into Cadres that can build it up again)."""
    sc = state.scenario
    d = sc.units[uid]
    return sorted(u.id for u in state.units if u.status == "pool" and sc.units[u.id].side == d.side
                  and sc.units[u.id].nationality == d.nationality)


def can_break_down(state: GameState, uid: str) -> bool:
    """16.6.1: before it moves, a large infantry unit becomes two Cadres for one Morale Point."""
    sc = state.scenario
    u = state.unit(uid)
    if not (u.status == "map" and not u.moved and _is_large_infantry(sc.units[uid])
            and len(_pool_cadres(state, uid)) >= 2 and state.morale_of(sc.units[uid].side) >= 1):
        return False
    # the two Cadres must be able to part (6.9): not stuck in an enemy ZOC, somewhere to go
    return bool(destinations(state, uid))


def buildup_target(state: GameState, stack) -> str | None:
    """16.6.2: two Cadres of one nationality stacked at the end of the movement phase become the weakest
    eliminated large infantry unit of that nationality (None when they cannot)."""
    sc = state.scenario
    if len(stack) != 2 or not state.has("breakdown"):
        return None
    d1, d2 = (sc.units[x] for x in stack)
    if not (d1.type == "cadre" and d2.type == "cadre" and d1.nationality == d2.nationality and d1.side == d2.side):
        return None
    gone = [u.id for u in state.units if u.status == "gone" and sc.units[u.id].side == d1.side
            and _is_large_infantry(sc.units[u.id]) and sc.units[u.id].nationality == d1.nationality]
    if not gone:
        return None
    return min(gone, key=lambda x: (sc.units[x].strength, x))


def build_up(state: GameState) -> GameState:
    st = state
    for h, ids in sorted(state.occupants.items()):
        stack = [i for i in ids if state.scenario.units[i].type != "leader"]
        target = buildup_target(st, stack)
        if target is None:
            continue
        st = st.with_units({stack[0]: replace(st.unit(stack[0]), status="pool", hex=None),
                            stack[1]: replace(st.unit(stack[1]), status="pool", hex=None),
                            target: replace(st.unit(target), status="map", hex=h, routed=None, fatigue=0,
                                            moved=True)})
        st = morale_change(st, {state.player: st.scenario.tables.morale("buildup").points}, "16.6.2")
    return st


def free_dummies(state: GameState, side: str) -> list[str]:
    """16.1.3: the side's dummies not hidden on the map (available to arrive with a unit)."""
    sc = state.scenario
    return [u.id for u in state.units
            if u.status == "hidden_off" and sc.units[u.id].type == "dummy" and sc.units[u.id].side == side]


def dummy_problem(state: GameState, mate: str, dummy: str) -> tuple[str, str] | None:
    """Why ``dummy`` may not arrive stacked with ``mate`` now (rule, message), or None if it may (16.1.3)."""
    sc = state.scenario
    if not state.has("fog_of_war"):
        return "16.1", "dummies are part of the Fog of War optional rule, which is not in use"
    if state.step != "movement":
        return "16.1.3", "a dummy arrives with a unit only during its owner's movement phase"
    if state.dummies_added:
        return "16.1.3", "a side adds at most one dummy per turn with an arriving unit"
    if mate not in state.arrived:
        return "16.1.3", (f"{mate} did not enter as a reinforcement or rally this movement phase, so no dummy "
                          f"may arrive with it")
    m = state.unit(mate)
    if m.status != "map":
        return "16.1.3", f"{mate} is not on the map"
    if m.revealed:
        return "16.1.3", f"{mate} is face-up: a dummy arrives only with a hidden unit"
    d = sc.units.get(dummy)
    if d is None or d.type != "dummy" or d.side != sc.units[mate].side:
        return "16.1.3", f"{dummy} is not a dummy of the {sc.units[mate].side} side"
    if state.unit(dummy).status != "hidden_off":
        return "16.1.3", f"{dummy} is already on the map (only dummies off the map are available)"
    others = [x for x in state.occupants.get(m.hex, ()) if x != mate and sc.units[x].type != "leader"]
    if others:
        return "6.9", f"{m.hex} already holds {', '.join(others)}: the dummy would make a stack that cannot part"
    # 6.9: the pair must be able to part this phase; the companion has moved (or is a leader that may)
    trial = state.with_units({dummy: replace(state.unit(dummy), status="map", hex=m.hex, revealed=False,
                                             moved=False, routed=None)})
    for uid in (dummy, mate):
        try:
            check_can_move(trial, uid)
        except RuleViolation:
            continue
        if destinations(trial, uid):
            return None
    return "6.9", f"neither the dummy nor {mate} could leave {m.hex} this phase, so they would stay stacked"


def check_add_dummy(state: GameState, a: Action) -> None:
    if a.unit is None:
        raise RuleViolation("16.1.3", "name the arriving unit the dummy comes with ('unit')")
    if len(a.units) > 1:
        raise RuleViolation("16.1.3", "only one dummy may arrive with a unit")
    side = state.scenario.units[a.unit].side
    if side != state.player:
        raise RuleViolation("16.1.3", f"{a.unit} is not a unit of the {state.player} player")
    free = free_dummies(state, side)
    dummy = a.units[0] if a.units else (free[0] if free else None)
    if dummy is None:
        raise RuleViolation("16.1.3", f"the {side} side has no dummy off the map to add")
    problem = dummy_problem(state, a.unit, dummy)
    if problem:
        raise RuleViolation(*problem)


# ------------------------------------------------------------------------------------------------
# Handlers of the movement-phase actions (check before any change; do = the new state)
# ------------------------------------------------------------------------------------------------
def check_forced_march(state: GameState, a: Action) -> None:
    """12.3 in the phasing player's movement phase; and in the French night march (Fuentes 14.1, where the
    night move of one hex may grow by road movement and by a forced march), a French forced march of its
    own."""
    if state.step == Step.REACTION:
        if state.night_march_left is None or state.night_march_left <= 0:
            raise RuleViolation("12.3", "a forced march belongs to a movement phase (or the French night march, 14.1)")
        if state.night_march_forced:
            raise RuleViolation("12.3", "already forced-marched for this night march")
        if state.morale_of(Side.FRENCH) < 1:
            raise RuleViolation("12.3", "no Morale Point to spend")
        return
    if state.forced_march:
        raise RuleViolation("12.3", "already forced-marched this movement phase")
    if not state.free_forced_march and state.morale_of(state.player) < 1:
        raise RuleViolation("12.3", "no Morale Point to spend")


def do_forced_march(state: GameState, a: Action) -> GameState:
    if state.step == Step.REACTION:                                   # 14.1: the French night march
        return morale_change(replace(state, night_march_forced=True), {Side.FRENCH: -1}, "12.3")
    st = replace(state, forced_march=True)
    if not state.free_forced_march:
        st = morale_change(st, {state.player: -1}, "12.3")
    return st


def check_form_square(state: GameState, a: Action) -> None:
    if not state.has("squares"):
        raise RuleViolation("17.1", "the squares variant is not in use")
    _need_unit(a, "17.1")
    u = state.unit(a.unit)
    if u.moved and u.status == Status.MAP and state.scenario.units[a.unit].side == state.player:
        if u.mp_left < 1:                       # 17.1: moved, and a point left to form square with
            raise RuleViolation("17.1", f"{a.unit} has no Movement Point left to form square after its move")
    else:
        check_can_move(state, a.unit)
    if not can_square(state, a.unit):
        raise RuleViolation("17.1", f"only infantry in a Clear hex may form square ({a.unit})")


def do_form_square(state: GameState, a: Action) -> GameState:
    return state.with_units({a.unit: replace(state.unit(a.unit), square=True, moved=True, mp_left=0)})


def check_breakdown(state: GameState, a: Action) -> None:
    if not state.has("breakdown"):
        raise RuleViolation("16.6", "unit breakdown is an optional rule not in use")
    _need_unit(a, "16.6.1")
    check_can_move(state, a.unit)
    if not can_break_down(state, a.unit):
        raise RuleViolation("16.6.1", f"{a.unit} cannot break down: an unmoved infantry unit of strength 2 or "
                                      f"more, two Cadres available and a Morale Point to spend")


def do_breakdown(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    u = state.unit(a.unit)
    c1, c2 = _pool_cadres(state, a.unit)[:2]
    st = state.with_units({a.unit: replace(u, status=Status.GONE, hex=None),
                           c1: replace(state.unit(c1), status=Status.MAP, hex=u.hex, moved=False, routed=None,
                                       fatigue=0, revealed=u.revealed),
                           c2: replace(state.unit(c2), status=Status.MAP, hex=u.hex, moved=False, routed=None,
                                       fatigue=0, revealed=u.revealed)})
    return morale_change(st, {state.player: sc.tables.morale("breakdown").points}, "16.6.1")


def do_add_dummy(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    mate = state.unit(a.unit)
    dummy = a.units[0] if a.units else free_dummies(state, sc.units[a.unit].side)[0]
    # 16.1.3: the two arrive as a shell game, so the companion is a new face-down piece to the enemy too
    st = state.with_units({dummy: replace(state.unit(dummy), status=Status.MAP, hex=mate.hex, revealed=False,
                                          moved=False, routed=None),
                           a.unit: replace(mate, placed=mate.placed + 1)})
    return replace(st, dummies_added=True, dummy_pair=(dummy, a.unit))


def _need_unit(a: Action, rule: str) -> None:
    if a.unit is None:
        raise RuleViolation(rule, f"a {a.kind} action names its unit ('unit')")
