"""Each game's exclusive rules that are actions of their own: Fuentes de Oñoro 20's Night March (14.1),
Fieldworks (14.2), Orderly Withdrawal (12.7) and the Bessières variant's die (17.2); Bussaco 20's Units
Released counters (6.10). Their small tables are data (data/n20/fuentes/exclusive_tables.yaml)."""
from __future__ import annotations

from functools import lru_cache

from pydantic import Field

from engine.core.data import Sourced, Strict, data_path, load_yaml
from engine.core.errors import RuleViolation
from engine.core.procedure import Draw, Log, Roll

from .actions import Action
from .movement import do_move
from .state import GameState, replace_any as replace
from .turn import night_march_possible
from .types import Side, Status, Step
from .victory import end_of_game, morale_change
from .reach import path_cost, search_moves
from .zoc import on_map_units

__all__ = ["exclusive_tables", "table_lookup", "fieldworks_possible", "fieldworks_candidates",
           "orderly_withdrawal_possible", "withdraw_candidates", "needs_release_pick", "night_march_possible",
           "check_pick_released", "draw_released", "finish_released", "check_fieldworks", "roll_fieldworks",
           "finish_fieldworks", "check_place_fieldworks", "do_place_fieldworks", "check_orderly_withdrawal",
           "do_orderly_withdrawal", "check_withdraw", "do_withdraw", "check_night_march", "roll_night_march",
           "finish_night_march", "check_night_move", "do_night_move"]


# ------------------------------------------------------------------------------------------------
# The tables (data/n20/fuentes/exclusive_tables.yaml)
# ------------------------------------------------------------------------------------------------
class _Row(Strict):
    up_to: int = Field(ge=1, le=6)
    result: int | str


class _Table(Sourced):
    rows: list[_Row] = Field(min_length=1)

    def lookup(self, roll: int):
        """The result of the first row whose ``up_to`` is at least ``roll``."""
        for r in self.rows:
            if roll <= r.up_to:
                return r.result
        return self.rows[-1].result


class _ExclusiveTables(Sourced):
    night_march: _Table
    fieldworks: _Table
    bessieres: _Table


@lru_cache(maxsize=1)
def exclusive_tables() -> _ExclusiveTables:
    return load_yaml(data_path("n20", "fuentes", "exclusive_tables.yaml"), _ExclusiveTables)


def table_lookup(name: str, roll: int):
    return getattr(exclusive_tables(), name).lookup(roll)


# ------------------------------------------------------------------------------------------------
# When each is possible
# ------------------------------------------------------------------------------------------------
def fieldworks_possible(state: GameState) -> bool:
    sc = state.scenario
    return (sc.spec.exclusive.fieldworks and state.player == "allied" and state.night and not state.fieldworks_used
            and state.step == "movement" and not any(u.moved for u in state.units) and not state.forced_march)


def fieldworks_candidates(state: GameState) -> list[tuple[str, str]]:
    sc = state.scenario
    out = []
    for u in on_map_units(state, "allied"):
        d = sc.units[u.id]
        if d.type == "infantry" and d.nationality in ("british", "portuguese") and not u.moved \
                and sc.board.terrain(u.hex) == "clear" and u.hex not in state.fieldworks:
            out.append((u.id, u.hex))
    return out


def orderly_withdrawal_possible(state: GameState) -> bool:
    sc = state.scenario
    towns = sc.spec.exclusive.orderly_withdrawal_towns
    if not towns or state.orderly_withdrawal or state.player != "allied":
        return False
    if state.morale_of("allied") > state.morale_of("french") - 2:
        return False
    return any(any(sc.units[i].side == "french" and sc.units[i].type not in ("leader",) for i in
                   state.occupants.get(t, ())) for t in towns)


def withdraw_candidates(state: GameState) -> list[str]:
    """12.7 A: a British or Portuguese unit (no cadre, dummy or Sanchez) on an allied LOC hex."""
    sc = state.scenario
    if not state.orderly_withdrawal or state.player != "allied":
        return []
    locs = set(sc.board.loc_hexes("allied"))
    out = []
    for u in on_map_units(state, "allied"):
        d = sc.units[u.id]
        if u.hex in locs and d.type in ("infantry", "cavalry", "artillery") and d.nationality in ("british", "portuguese") \
                and not d.has("cadre") and u.id not in sc.spec.exclusive.irregulars:
            out.append(u.id)
    return out


def needs_release_pick(state: GameState) -> bool:
    return state.step == Step.MOVEMENT and state.release_due


# ------------------------------------------------------------------------------------------------
# Handlers
# ------------------------------------------------------------------------------------------------
def check_pick_released(state: GameState, a: Action) -> None:
    if not needs_release_pick(state):
        raise RuleViolation("6.10", "no Units Released counter to pick now")


def draw_released(state: GameState, a: Action):
    counters = tuple(state.scenario.spec.units_released.counters)
    n = yield Draw(counters, rule="6.10", label="Units Released counter")
    return n


def finish_released(state: GameState, a: Action, n) -> GameState:
    return replace(state, release_left=n, release_due=False)


def check_fieldworks(state: GameState, a: Action) -> None:
    if not fieldworks_possible(state):
        raise RuleViolation("14.2", "Fieldworks: once per game, by the allied player at the start of a night "
                                    "movement phase")


def roll_fieldworks(state: GameState, a: Action):
    roll = yield Roll("d6", rule="14.2", label="Fieldworks Table")
    n = table_lookup("fieldworks", roll)
    yield Log("14.2", f"die {roll}: up to {n} Fieldworks markers")
    return n


def finish_fieldworks(state: GameState, a: Action, n) -> GameState:
    return replace(state, fieldworks_used=True, fieldworks_left=n, fieldworks_turn=state.turn)


def check_place_fieldworks(state: GameState, a: Action) -> None:
    if a.hex not in {h for _, h in fieldworks_candidates(state)}:
        raise RuleViolation("14.2", f"a Fieldworks marker goes in a Clear hex held by British or Portuguese "
                                    f"infantry ({a.hex} is not one)")


def do_place_fieldworks(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    uid = next(x for x in state.occupants[a.hex] if sc.units[x].type != "leader")
    return replace(state, fieldworks=state.fieldworks + (a.hex,), fieldworks_left=state.fieldworks_left - 1,
                   builders=state.builders + (uid,),
                   units=tuple(replace(u, moved=True) if u.id == uid else u for u in state.units))


def check_orderly_withdrawal(state: GameState, a: Action) -> None:
    if not orderly_withdrawal_possible(state):
        raise RuleViolation("12.7", "Orderly Withdrawal needs allied Morale at least 2 below the French and a "
                                    "French unit in Nave de Haver, Poco Velho or Fuentes de Onoro")


def do_orderly_withdrawal(state: GameState, a: Action) -> GameState:
    return replace(state, orderly_withdrawal=True)


def check_withdraw(state: GameState, a: Action) -> None:
    if state.declared is not None or state.withdrew or a.unit not in withdraw_candidates(state):
        raise RuleViolation("12.7", f"{a.unit} cannot march off now (an allied British or Portuguese unit on an "
                                    f"allied LOC hex, once per combat phase, before battles are declared)")


def do_withdraw(state: GameState, a: Action) -> GameState:
    st = state.with_units({a.unit: replace(state.unit(a.unit), status=Status.GONE, hex=None)})
    st = replace(st, withdrew=True)
    st = morale_change(st, {Side.ALLIED: +1}, "12.7")
    if not any(True for _ in on_map_units(st, Side.ALLIED)):
        st = end_of_game(st, "12.7 C: no allied units left after the Orderly Withdrawal")
    return st


def check_night_march(state: GameState, a: Action) -> None:
    if not night_march_possible(state) or state.night_march_left is not None:
        raise RuleViolation("14.1", "the French Night March: once per game, after the allied night movement phase")


def roll_night_march(state: GameState, a: Action):
    roll = yield Roll("d6", rule="14.1", label="Night March Table")
    n = table_lookup("night_march", roll)
    yield Log("14.1", f"die {roll}: up to {n} units may night-march")
    return n


def finish_night_march(state: GameState, a: Action, n) -> GameState:
    st = morale_change(state, {Side.FRENCH: -1}, "14.1")
    return replace(st, night_march_used=True, night_march_left=n, night_marched=())


def check_night_move(state: GameState, a: Action) -> None:
    if state.night_march_left is None or state.night_march_left <= 0:
        raise RuleViolation("14.1", "no Night March moves left")
    if a.unit is None or not a.path:
        raise RuleViolation("14.1", "a night move names a unit and its path of hexes")
    d = state.scenario.units[a.unit]
    if d.side != Side.FRENCH or d.type == "leader" or a.unit in state.night_marched \
            or state.unit(a.unit).status != Status.MAP:
        raise RuleViolation("14.1", f"{a.unit} cannot night-march")
    if a.unit == state.scenario.spec.exclusive.supply_column and not state.night_march_forced:
        raise RuleViolation("6.10", "the Supply Column moves at night only by forced march")
    r = search_moves(state, a.unit).get(a.path[-1])
    if r is None:
        raise RuleViolation("14.1", f"{a.unit} cannot reach {a.path[-1]} on its night march")
    if r.path != a.path:
        path_cost(state, a.unit, a.path)            # 6.0: every step of the path as given, not only its end


def do_night_move(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    st = do_move(replace(state, step=Step.MOVEMENT), Action("move", unit=a.unit, path=a.path))
    st = replace(st, step=Step.REACTION, night_march_left=state.night_march_left - 1,
                 night_marched=state.night_marched + (a.unit,))
    lm = sc.spec.night_march_leader
    if lm and state.has("leaders") and st.unit(lm).status == Status.ASIDE:
        st = st.with_units({lm: replace(st.unit(lm), status=Status.MAP, hex=a.path[-1])})   # 14.1 Montbrun
    return st
