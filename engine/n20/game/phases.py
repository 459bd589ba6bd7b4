"""The sequence of play (4.0) between actions: ending each phase, the start and end of player turns and
game turns, what happens on its own (Routed! recovery 9.6.3, fatigue recovery 16.8.2, lulls 13.0, night
operations 14.0, reconcealment 16.1.2, cavalry reconnaissance 16.1.1), the sudden-death roll (4.0), and
:func:`settle`, which after every action skips the steps with nothing to decide."""
from __future__ import annotations

from engine.core.errors import RuleViolation
from engine.core.procedure import Roll

from .actions import Action
from .exclusive import needs_release_pick, night_march_possible, withdraw_candidates
from .movement import build_up, reinf_turn, stacks
from .rally import rally_candidates
from .reaction import any_reaction
from .state import GameState, refuse_older_reading, replace_any as replace
from .types import Side, other
from .victory import check_victory, end_of_game, morale_change
from . import combat as C
from .zoc import adjacent, enemy_hexes, enemy_zoc, on_map_units

__all__ = ["check_end_phase", "end_phase", "start_turn_bookkeeping", "go_movement", "end_combat", "lull",
           "night_operations", "settle", "roll_sudden_death", "finish_sudden_death"]


def check_end_phase(state: GameState, a: Action | None = None) -> None:
    """4.0: whether the phase may end now (9.0, 9.1 battles; 6.9 stacking; 6.10 Bussaco)."""
    s = state.step
    if s == "combat":
        if state.declared is None:
            if C.mandatory_battles(state):
                raise RuleViolation("9.1", "units in an enemy ZOC must attack: declare the battles first")
        elif len(state.done_battles) < len(state.declared):
            raise RuleViolation("9.0", "resolve every declared battle first")
    if s == "movement" and needs_release_pick(state):
        raise RuleViolation("6.10", "pick a Units Released counter first")
    if s == "movement" and len(state.dummy_pair) == 2:
        dummy, mate = (state.unit(x) for x in state.dummy_pair)
        if dummy.status == "map" and mate.status == "map" and dummy.hex == mate.hex:
            raise RuleViolation("6.9", f"the dummy {dummy.id} and {mate.id}, which arrived together (16.1.3), "
                                       f"are still stacked in {dummy.hex}: one of them must move off first")
    if s == "movement":
        for h, stack in stacks(state):
            raise RuleViolation("6.9", f"units {', '.join(stack)} may not end the movement phase stacked in {h}: "
                                       f"one of them must move on first")


def end_phase(state: GameState) -> GameState:
    s = state.step
    if s == "setup":
        st = replace(state, step="bessieres" if state.has("bessieres") else "event")
        return start_turn_bookkeeping(st) if st.step == "event" else st
    if s == "movement":
        st = replace(state, fieldworks_left=0, arrived=(), dummy_pair=())
        st = build_up(st)
        st = _reveal_by_cavalry(st)
        return _enter_reaction(st)
    if s == "reaction":
        if state.night_march_left is not None:
            return _enter_combat(replace(state, night_march_left=None, night_march_forced=False))
        return _enter_combat(state)
    if s == "combat":
        return end_combat(state)
    if s == "night_ops":
        return end_player_turn(night_operations(state))
    raise RuleViolation("4.0", f"the {s} step ends by its own action")


def start_turn_bookkeeping(state: GameState) -> GameState:
    """Start of a player turn: clear the per-turn markers, skip the first event phase when told (5.0)."""
    sc = state.scenario
    st = replace(state, forced_march=False, free_forced_march=False, rally_on=None, battle_rolls=(), entered=(),
                 event=(), declared=None, done_battles=(), reacted=(), withdrew=False, builders=(),
                 dummies_added=False, arrived=(), dummy_pair=(), night_march_left=None, night_marched=(),
                 night_march_forced=False)
    if state.step != "event":
        return st
    first_turn = state.turn == sc.spec.start_turn or (state.bessieres in (4, 6) and state.turn == 1)
    if sc.spec.skip_first_event and first_turn and state.player == sc.first_player:
        return go_movement(st)   # exclusive 5.0
    return st


def go_movement(state: GameState) -> GameState:
    sc = state.scenario
    changes = {}
    rallied = []
    for u in state.units:
        nu = u
        if u.moved or u.exhausted or u.fought or u.mp_left:
            nu = replace(nu, moved=False, exhausted=False, fought=False, mp_left=0)
        if u.status not in ("later", "broken"):        # only reinforcements (11.0) and broken leaders change
            if nu is not u:
                changes[u.id] = nu
            continue
        d = sc.units[u.id]
        if d.side == state.player:
            if u.status == "later" and reinf_turn(state, u.id) <= state.turn:
                nu = replace(nu, status="due")
            if d.type == "leader" and u.status == "broken":
                hexes = [h for h in sc.board.loc_hexes(d.side) if h not in enemy_hexes(state, d.side)]
                if hexes:                                           # 16.9.6
                    nu = replace(nu, status="map", hex=hexes[0], routed=None)
                    rallied.append(u.id)
        if nu is not u:
            changes[u.id] = nu
    st = replace(state.with_units(changes, carry=False), step="movement")
    if rallied and state.has("fog_of_war"):
        st = replace(st, arrived=tuple(rallied))                    # 16.1.3: a rallied leader may bring a dummy
    if sc.spec.units_released and state.turn == sc.spec.start_turn and state.player == "allied":
        st = replace(st, release_due=True, release_left=None)   # to be picked (Bussaco 6.10)
    elif (st.release_left is not None or st.release_due) and not (state.turn == sc.spec.start_turn
                                                                  and state.player == Side.ALLIED):
        st = replace(st, release_left=None, release_due=False)
    return st


def _enter_reaction(state: GameState) -> GameState:
    # 6.4: the moved marks of the movement phase are cleared (only the marked units are made again, so the
    # unit indexes and the hash are updated for them alone)
    st = state.with_units({u.id: replace(u, moved=False, mp_left=0) for u in state.units if u.moved or u.mp_left},
                          carry=False)
    return replace(st, step="reaction", reacted=())


def _enter_combat(state: GameState) -> GameState:
    # 9.9.8 holds within one combat phase: an advance after a countercharge does not carry over
    st = state.with_units({u.id: replace(u, exhausted=False) for u in state.units if u.exhausted}, carry=False)
    st = replace(st, step="combat", declared=None, done_battles=())
    if state.night:
        return end_combat(st)        # 14.0: no battles at night
    return st


def end_combat(state: GameState) -> GameState:
    """After the combat phase: Routed! recovery (9.6.3), fatigue recovery (16.8.2), a lull (13.0)."""
    sc = state.scenario
    side = state.player
    fatigue = state.has("fatigue")
    changes = {}
    for u in state.units:
        if u.status != "map":
            if u.exhausted or u.fought:
                changes[u.id] = replace(u, exhausted=False, fought=False)
            continue
        d = sc.units[u.id]
        ch = {}                       # only what changes (a unit left as it was is not made again)
        if u.exhausted:
            ch["exhausted"] = False
        if u.fought:
            ch["fought"] = False
        if u.routed == side and u.hex not in enemy_zoc(state, d.side):
            ch["routed"] = None       # 9.6.3
        if fatigue and d.side == side and u.fatigue:
            adj = any(any(x in state.occupants for x in [n]) and any(sc.units[i].side != side for i in
                      state.occupants.get(n, ())) for n in sc.board.neighbours(u.hex))
            if not adj:
                ch["fatigue"] = u.fatigue - 1     # 16.8.2
        if ch:
            changes[u.id] = replace(u, **ch)
    st = state.with_units(changes, carry=False)
    st = replace(st, declared=None, done_battles=())
    if not st.night:
        st = lull(st)
        return end_player_turn(st)
    return replace(st, step="night_ops")


def lull(state: GameState) -> GameState:
    """13.0: no forced march and no battle dice this player turn, both armies on the map, after the first
    night (Bussaco: from turn 1): +1 Morale when below 6 or not ahead of the enemy."""
    sc = state.scenario
    side = state.player
    lf = sc.spec.lulls_from_turn
    allowed = state.first_night_seen or (lf is not None and state.turn >= lf)
    if not allowed or state.forced_march or side in state.battle_rolls:
        return state
    if not any(True for _ in on_map_units(state, "french")) or not any(True for _ in on_map_units(state, "allied")):
        return state
    mine, theirs = state.morale_of(side), state.morale_of(other(side))
    if mine < 6 or mine <= theirs:
        return morale_change(state, {side: sc.tables.morale("lull").points}, "13.0")
    return state


def night_operations(state: GameState) -> GameState:
    """14.0 night operations after the rally: captured enemy LOC and Objective hexes, rest, reconcealment."""
    sc = state.scenario
    side = state.player
    board = sc.board
    enemy = other(side)
    mine = {u.hex for u in on_map_units(state, side)}
    loss = 0
    for h in board.loc_hexes(enemy):
        if h in mine:
            loss += sc.tables.morale("enemy_holds_loc").points
    for h, owner, pts in board.objectives:
        if owner == enemy and h in mine:
            loss += sc.tables.morale("enemy_holds_objective").points * pts
    st = state
    if loss:
        st = morale_change(st, {enemy: loss}, "14.0")
    # Fuentes 14.2: declaring Fieldworks forgoes the night's rest, whether or not a marker was placed
    rested = not (side == Side.ALLIED and state.fieldworks_turn == state.turn)
    if not rested and not state.builders:
        refuse_older_reading(state, "14.2", "declaring Fieldworks and placing no marker kept the night's rest")
    if rested:
        st = morale_change(st, {side: sc.tables.morale("night_rest").points}, "14.0")
    if st.has("fog_of_war"):
        st = _reconceal(st, side)
    return st


def _reconceal(state: GameState, side: str) -> GameState:
    """16.1.2 / 16.1.3: own units face-down; available dummies placed beside units away from the enemy."""
    sc = state.scenario
    board = sc.board
    changes = {u.id: replace(u, revealed=False) for u in on_map_units(state, side) if u.revealed}
    st = state.with_units(changes)
    enemy = {u.hex for u in on_map_units(st, other(side))}
    near_enemy = set(enemy)
    for e in enemy:
        near_enemy.update(board.neighbours(e))
    for u in st.units:
        d = sc.units[u.id]
        if d.side != side or d.type != "dummy" or u.status != "hidden_off":
            continue
        occupied = set(st.occupants) | enemy
        spot = None
        for f in sorted(x.hex for x in on_map_units(st, side) if sc.units[x.id].type != "dummy"):
            if f in near_enemy:
                continue
            for n in board.neighbours(f):
                if n not in occupied and n not in near_enemy and n not in board.prohibited:
                    spot = n
                    break
            if spot:
                break
        if spot is None:
            break
        st = st.with_units({u.id: replace(u, status="map", hex=spot, revealed=False)})
    return st


def _reveal_by_cavalry(state: GameState) -> GameState:
    """16.1.1: at the end of a day movement phase, face-up cavalry reveals adjacent face-down enemies."""
    if not state.has("fog_of_war") or state.night:
        return state
    sc = state.scenario
    board = sc.board
    changes = {}
    for side in ("french", "allied"):
        cav = [u.hex for u in on_map_units(state, side) if u.revealed and sc.units[u.id].type in ("cavalry", "dummy")]
        for u in on_map_units(state, other(side)):
            if not u.revealed and any(adjacent(board, u.hex, c) for c in cav):
                if sc.units[u.id].type == "dummy":
                    changes[u.id] = replace(u, status="hidden_off", hex=None)   # 16.1.3
                else:
                    changes[u.id] = replace(u, revealed=True)
    return state.with_units(changes)


def end_player_turn(state: GameState) -> GameState:
    sc = state.scenario
    if state.player == sc.first_player:
        st = replace(state, player=sc.second_player, step="event")
        return start_turn_bookkeeping(st)
    st = state
    if st.night:
        # 5.0 / 14.0: reshuffle after the second player's night turn; red-titled cards join (3.0)
        st = replace(st, draw_pile=tuple(sc.cards), discard=(), red_in_deck=True, first_night_seen=True)
    if sc.sudden_death_number(st.turn) is not None and st.turn < sc.last_turn:
        return replace(st, step="sudden_death")
    return _next_turn(st)


def _next_turn(state: GameState) -> GameState:
    sc = state.scenario
    if state.turn >= sc.last_turn:
        return end_of_game(state, f"end of the last turn ({sc.last_turn})")
    st = replace(state, turn=state.turn + 1, player=sc.first_player, step="event")
    # exclusive 11.7: the Supply Column not entered by its last turn is eliminated
    changes = {}
    for r in sc.spec.reinforcements:
        u = st.unit(r.unit)
        if r.until is not None and st.turn > r.until and u.status in ("later", "due"):
            changes[u.id] = replace(u, status="gone")
    st = st.with_units(changes, carry=False)
    return start_turn_bookkeeping(st)


def settle(state: GameState) -> GameState:
    """After every action: victory by morale (12.1.2), then skip steps with nothing to decide."""
    for _ in range(64):
        state = check_victory(state)
        if state.over:
            return state
        nxt = _auto(state)
        if nxt is state:
            return state
        state = nxt
    return state


def _auto(state: GameState) -> GameState:
    s = state.step
    if s == "reaction":
        if state.night:
            if state.night_march_left is None and not night_march_possible(state):
                return _enter_combat(state)
            return state
        if not any_reaction(state):          # 8.0: nothing to react with: the phase is skipped
            return _enter_combat(state)
        return state
    if s == "combat" and state.declared is None:
        if not withdraw_candidates(state) or state.withdrew:
            if not C.any_contact(state):
                return end_combat(state)
        return state
    if s == "night_ops" and not rally_candidates(state):
        return end_player_turn(night_operations(state))
    return state


# ------------------------------------------------------------------------------------------------
# Handlers
# ------------------------------------------------------------------------------------------------
def do_end_phase(state: GameState, a: Action) -> GameState:
    return end_phase(state)


def roll_sudden_death(state: GameState, a: Action):
    n = state.scenario.sudden_death_number(state.turn)
    roll = yield Roll("d6", rule="4.0", label=f"sudden death (ends on {n} or less)")
    return roll, n


def finish_sudden_death(state: GameState, a: Action, result) -> GameState:
    roll, n = result
    if roll <= n:
        return end_of_game(state, f"sudden death: die {roll} <= {n} at the end of turn {state.turn} (4.0)")
    return _next_turn(state)
