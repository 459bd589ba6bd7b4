"""Setting up a game and the steps before play: the first state of a scenario (3.0, 18.1 placement zones,
optional rules 16.x and variants 17.x), placing units (18.1), the random event cards (5.0) and the
Bessières variant's die (Fuentes 17.2)."""
from __future__ import annotations

from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import Draw, Log, Roll

from .actions import Action
from .exclusive import table_lookup
from .phases import go_movement, settle, start_turn_bookkeeping
from .scenario import load_scenario
from .state import GameState, OPTIONS, UnitState, replace_any as replace
from .types import Status
from .victory import morale_change
from .zoc import enemy_hexes, enemy_zoc, friendly_hexes

__all__ = ["new_game", "option_problem", "zone_hexes", "can_place", "check_place", "do_place", "draw_event", "finish_event",
           "roll_bessieres", "finish_bessieres"]


def new_game(scenario_id: str = "fuentes", options=(), seed: int = 0, tables: str | None = None) -> GameState:
    """The first state of a scenario. ``options``: names from :data:`OPTIONS` (optional rules 16.x and
    variants 17.x); ``tables``: a user's tables file replacing the scenario's charts."""
    sc = load_scenario(scenario_id, tables)
    opts = tuple(sorted(set(options)))
    for o in opts:
        if o not in OPTIONS:
            raise VedetteError(f"unknown option {o!r}; options are: {', '.join(OPTIONS)}")
    for o in opts:
        problem = option_problem(sc, o)
        if problem is not None:
            raise RuleViolation(*problem)
    spec = sc.spec
    placed = {p.unit: p.hex for p in spec.setup}
    for z in spec.zones:
        placed.update(z.units)
    if "fog_of_war" in opts and spec.fog_dummies:
        placed.update({p.unit: p.hex for p in spec.fog_dummies.units})
    due = {r.unit: r for r in spec.reinforcements}
    units = []
    for uid, d in sc.units.items():
        if d.type == "leader" and "leaders" not in opts:
            units.append(UnitState(uid, "unused"))
        elif d.type == "dummy" and "fog_of_war" not in opts:
            units.append(UnitState(uid, "unused"))
        elif d.type == "cadre":
            units.append(UnitState(uid, "pool" if {"unit_reduction", "breakdown"} & set(opts) else "unused"))
        elif uid in placed:
            units.append(UnitState(uid, "map", placed[uid], revealed="fog_of_war" not in opts))
        elif uid in due:
            units.append(UnitState(uid, "later", areas=tuple(due[uid].areas), revealed="fog_of_war" not in opts))
        elif uid in spec.set_aside or uid == spec.night_march_leader or d.type == "dummy":
            units.append(UnitState(uid, "aside" if d.type != "dummy" else "hidden_off",
                                   revealed="fog_of_war" not in opts))
        else:
            units.append(UnitState(uid, "unused"))
    red = tuple(c.id for c in sc.cards.values() if c.red and sc.edition == "v3")
    pile = tuple(c.id for c in sc.cards.values() if c.id not in red)
    state = GameState(
        scenario_id=scenario_id,
        tables_file=tables, options=opts, seed=int(seed), turn=spec.start_turn, player=sc.first_player,
        step="setup" if spec.zones else "event",
        morale=tuple(sorted(spec.morale.items())), units=tuple(units), draw_pile=pile, discard=red,
        night_march_used=spec.night_march_used,
        first_night_seen=spec.lulls_from_turn is not None and spec.start_turn >= spec.lulls_from_turn,
        release_left=None)
    if state.step == "event" and "bessieres" in opts:
        state = replace(state, step="bessieres")
    return settle(start_turn_bookkeeping(state) if state.step == "event" else state)


def option_problem(sc, option: str) -> tuple[str, str] | None:
    """Why ``option`` (a name of :data:`OPTIONS`) is not played in scenario ``sc``, as (rule, reason), or
    None when it is: the one source for what a new game refuses and what a new-game form offers."""
    if option == "bessieres" and not (sc.spec.exclusive.bessieres and sc.spec.bessieres_allowed):
        return "17.2", f"the Bessieres variant is not used in scenario {sc.id}"
    if option == "squares" and sc.edition != "v3":
        return "17.1", "the squares variant belongs to Fuentes de Onoro 20"
    if option == "portuguese_reliability" and not sc.spec.exclusive.portuguese_reliability:
        return "16.9", "Portuguese reliability is a Bussaco 20 optional rule"
    if option == "leaders" and not sc.tables.rules.leaders:
        return "16.9", f"the {sc.edition} rules have no leaders"
    if option == "fatigue" and not sc.tables.rules.fatigue:
        return "16.8", f"the {sc.edition} rules have no fatigue"
    return None


def zone_hexes(state: GameState, z) -> list[str]:
    board = state.scenario.board
    if z.hexes:
        return list(z.hexes)
    return [h for h in board.grid.within(z.center, z.radius)]


def can_place(state: GameState, uid: str, h: str | None, z) -> bool:
    sc = state.scenario
    if h is None or not sc.board.on_map(h) or h not in zone_hexes(state, z):
        return False
    side = sc.units[uid].side
    if h in enemy_hexes(state, side):
        return False
    if sc.units[uid].type != "leader" and h in friendly_hexes(state, side, exclude=uid):
        return False
    if z.not_in_enemy_zoc and h in enemy_zoc(state, side):
        return False
    return True


def _apply_event(state: GameState, card, side: str) -> GameState:
    """5.0: the drawer applies only his own event of the card."""
    eff = getattr(card, side)
    if eff.effect == "morale":
        return morale_change(state, {side: eff.amount}, "5.0")
    if eff.effect == "free_forced_march":
        return replace(state, free_forced_march=True)
    if eff.effect == "rally_on":
        return replace(state, rally_on=eff.leader)
    if eff.effect == "reinforcement":
        u = state.unit(eff.unit)
        if u.status == "aside":
            return state.with_units({u.id: replace(u, status="due", areas=tuple(eff.areas))})
    return state


def _apply_bessieres(state: GameState, roll: int) -> GameState:
    """Fuentes 17.2 (variant): the die changes the French reinforcements and the first turn."""
    sc = state.scenario
    eff = table_lookup("bessieres", roll)
    st = replace(state, bessieres=roll)
    names = sc.spec.exclusive.bessieres_units
    changes = {}
    if eff == "no_nord" and "nord" in names:
        changes[names["nord"]] = replace(st.unit(names["nord"]), status="gone")
    if eff in ("guard_late", "guard_early") and "guard" in names:
        changes[names["guard"]] = replace(st.unit(names["guard"]), status="later", areas=("A",))
    st = st.with_units(changes)
    if eff in ("early", "guard_early"):
        st = replace(st, turn=1, first_night_seen=False)
    st = replace(st, step="event")
    return start_turn_bookkeeping(st)


# ------------------------------------------------------------------------------------------------
# Handlers
# ------------------------------------------------------------------------------------------------
def check_place(state: GameState, a: Action) -> None:
    sc = state.scenario
    z = next((z for z in sc.spec.zones if a.unit in z.units), None)
    if z is None or state.unit(a.unit).status != Status.MAP:
        raise RuleViolation("18.1", f"{a.unit} is not placed by the player in this scenario")
    if not can_place(state, a.unit, a.hex, z):
        raise RuleViolation(z.rule, f"{a.unit} may not be placed in {a.hex} (zone {z.id})")


def do_place(state: GameState, a: Action) -> GameState:
    return state.with_units({a.unit: replace(state.unit(a.unit), hex=a.hex)})


def draw_event(state: GameState, a: Action):
    """5.0: draw a card (the discards are reshuffled into a new pile when the pile is empty)."""
    pile = state.draw_pile
    if not pile:
        yield Log("5.0", "the draw pile is empty: the discards are reshuffled")
        pile = tuple(state.scenario.cards)
    card = yield Draw(tuple(sorted(pile)), rule="5.0", label="random event card")
    return card, pile


def finish_event(state: GameState, a: Action, result) -> GameState:
    card, pile = result
    rest = tuple(c for c in pile if c != card)
    red_in = state.red_in_deck
    discard = state.discard
    if not state.draw_pile:   # reshuffled because empty
        discard, red_in = (), True
    st = replace(state, draw_pile=rest, discard=discard + (card,), event=(card, state.player), red_in_deck=red_in)
    return go_movement(_apply_event(st, state.scenario.cards[card], state.player))


def roll_bessieres(state: GameState, a: Action):
    roll = yield Roll("d6", rule="17.2", label="Bessieres' cooperation")
    return roll


def finish_bessieres(state: GameState, a: Action, roll) -> GameState:
    return _apply_bessieres(state, roll)
