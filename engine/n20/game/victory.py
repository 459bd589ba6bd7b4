"""Morale and victory (12.1, 12.1.2, 15.0; Fuentes exclusive 12.7 B and 15.0): Morale Point changes,
the end of the game and who won."""
from __future__ import annotations

from .state import GameState, replace_any as replace
from .zoc import enemy_zoc, on_map_units

__all__ = ["morale_change", "supply_path", "end_of_game", "check_victory"]


def morale_change(state: GameState, deltas: dict[str, int], rule: str) -> GameState:
    """12.1: gains first (capped at the maximum, 12.1.1), then losses (not below 0); 12.1.2 checked by
    :func:`_settle`."""
    mx = state.scenario.tables.morale_maximum
    m = dict(state.morale)
    for side, v in deltas.items():
        if v > 0:
            m[side] = min(mx, m[side] + v)
    for side, v in deltas.items():
        if v < 0:
            m[side] = max(0, m[side] + v)
    return replace(state, morale=tuple(sorted(m.items())))


def supply_path(state: GameState) -> bool:
    """Fuentes 15.0: a road path from the Supply Column to Almeida, not through allied units or ZOCs."""
    sc = state.scenario
    ex = sc.spec.exclusive
    if not ex.supply_column or not ex.almeida:
        return False
    u = state.unit(ex.supply_column)
    if u.status != "map":
        return False
    board = sc.board
    blocked = {x.hex for x in on_map_units(state, "allied")} | set(enemy_zoc(state, "french"))
    seen, todo = {u.hex}, [u.hex]
    while todo:
        h = todo.pop()
        if h == ex.almeida:
            return True
        for n in board.neighbours(h):
            if n not in seen and board.is_road_link(h, n) and n not in blocked:
                seen.add(n)
                todo.append(n)
    return False


def end_of_game(state: GameState, reason: str) -> GameState:
    """15.0 at the end of the game: allied Marginal Victory when at least 1 Morale ahead; Fuentes 15.0:
    French Marginal Victory when 1 ahead and the Supply Column can trace its road to Almeida; else draw."""
    fr, al = state.morale_of("french"), state.morale_of("allied")
    if al >= fr + 1:
        res = ("allied", "marginal", reason)
    elif state.scenario.spec.exclusive.marginal_supply_victory and fr >= al + 1 and supply_path(state):
        res = ("french", "marginal", reason + "; supply road to Almeida open")
    else:
        res = ("draw", "draw", reason)
    return replace(state, step="over", result=res)


def check_victory(state: GameState) -> GameState:
    if state.result is not None:
        return state
    fr, al = state.morale_of("french"), state.morale_of("allied")
    if fr > 0 and al > 0:
        return state
    if fr == 0 and al == 0:
        return replace(state, step="over", result=("draw", "draw", "both armies' Morale reached 0 (12.1.2)"))
    if al == 0:
        return replace(state, step="over", result=("french", "decisive", "allied Morale reached 0 (15.0)"))
    level = "marginal" if state.orderly_withdrawal else "decisive"     # Fuentes 12.7 B
    return replace(state, step="over", result=("allied", level, "French Morale reached 0 (15.0)"))
