"""The Napoleonic 20 sequence of play (4.0) as a state machine over immutable states.

* :func:`new_game` builds the first state of a scenario;
* :func:`legal_actions` lists what the player to act may do (moves with their paths, battle
  declarations, reactions, rolls), so a UI or a bot never guesses;
* :func:`apply` returns the next state, or raises :class:`RuleViolation` naming the rule broken
  (the given state is a value and stays as it was).

Random steps (event cards, battles, rallies, sudden death, the exclusive rules' tables) are rules
procedures (generators of :mod:`engine.core.procedure` requests) run by the core play driver, so their
dice can come from a seeded RNG, typed-in dice or a record (replay).
"""
from __future__ import annotations

from .state import replace_any as replace
from functools import partial

from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import Choose, Draw, Log, RandomDice, Roll, Stepper, first_option, replay as core_replay

from .actions import Action
from .scenario import load_scenario
from .state import Battle, GameState, OPTIONS, UnitState, other
from . import rules as R
from . import combat as C

__all__ = ["new_game", "legal_actions", "apply", "apply_logged", "begin", "actor", "Pending", "end_of_game",
           "supply_path"]


# ------------------------------------------------------------------------------------------------
# New game
# ------------------------------------------------------------------------------------------------
def new_game(scenario_id: str = "fuentes", options=(), seed: int = 0, tables: str | None = None) -> GameState:
    """The first state of a scenario. ``options``: names from :data:`OPTIONS` (optional rules 16.x and
    variants 17.x); ``tables``: a user's tables file replacing the scenario's charts."""
    sc = load_scenario(scenario_id, tables)
    opts = tuple(sorted(set(options)))
    for o in opts:
        if o not in OPTIONS:
            raise VedetteError(f"unknown option {o!r}; options are: {', '.join(OPTIONS)}")
    if "bessieres" in opts and not (sc.spec.exclusive.bessieres and sc.spec.bessieres_allowed):
        raise RuleViolation("17.2", f"the Bessieres variant is not used in scenario {sc.id}")
    if "squares" in opts and sc.edition != "v3":
        raise RuleViolation("17.1", "the squares variant belongs to Fuentes de Onoro 20")
    if "portuguese_reliability" in opts and not sc.spec.exclusive.portuguese_reliability:
        raise RuleViolation("16.9", "Portuguese reliability is a Bussaco 20 optional rule")
    if "leaders" in opts and not sc.tables.rules.leaders:
        raise RuleViolation("16.9", f"the {sc.edition} rules have no leaders")
    if "fatigue" in opts and not sc.tables.rules.fatigue:
        raise RuleViolation("16.8", f"the {sc.edition} rules have no fatigue")
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
    return _settle(_start_turn_bookkeeping(state) if state.step == "event" else state)


# ------------------------------------------------------------------------------------------------
# Who acts, and what they may do
# ------------------------------------------------------------------------------------------------
def actor(state: GameState) -> str | None:
    """The side to act now: the phasing player, except in the reaction phase (the other player; the
    French for a Fuentes night march, 14.1) and the sudden-death roll (the second player, 4.0)."""
    if state.over:
        return None
    if state.step == "reaction":
        if state.night_march_left is not None or (state.night and _night_march_possible(state)):
            return "french"
        return other(state.player)
    if state.step == "sudden_death":
        return state.scenario.second_player
    return state.player


def legal_actions(state: GameState, unit: str | None = None) -> list[Action]:
    """Every legal action of the side to act (moves list each reachable hex with its cheapest path).
    ``unit`` restricts the list to one unit's actions."""
    if state.over:
        return []
    s = state.step
    out: list[Action] = []
    sc = state.scenario
    side = actor(state)
    if s == "setup":
        for z in sc.spec.zones:
            for uid in z.units:
                if (unit and uid != unit) or state.unit(uid).status != "map":
                    continue
                for h in _zone_hexes(state, z):
                    if h != state.unit(uid).hex and _can_place(state, uid, h, z):
                        out.append(Action("place", unit=uid, hex=h))
        out.append(Action("end_phase"))
        return out
    if s == "bessieres":
        return [Action("roll_bessieres")]
    if s == "event":
        return [Action("draw_event")]
    if s == "sudden_death":
        return [Action("roll_sudden_death")]
    if s == "movement":
        if _needs_release_pick(state):
            return [Action("pick_released")]
        if state.fieldworks_left:
            for uid, h in _fieldworks_candidates(state):
                out.append(Action("place_fieldworks", hex=h))
            out.append(Action("end_phase"))
            return out
        if _fieldworks_possible(state) and not unit:
            out.append(Action("fieldworks"))
        if not state.forced_march and not unit and _any_unmoved(state):
            out.append(Action("forced_march"))
        if not unit and _orderly_withdrawal_possible(state):
            out.append(Action("orderly_withdrawal"))
        for u in state.units:
            if unit and u.id != unit:
                continue
            if sc.units[u.id].side != side or u.moved:
                continue
            if u.status not in ("map", "due"):
                continue
            try:
                _check_can_move(state, u.id)
            except RuleViolation:
                continue
            for h, r in sorted(_reach(state, u.id).items()):
                out.append(Action("move", unit=u.id, path=r.path))
            if state.has("squares") and u.status == "map" and _can_square(state, u.id):
                out.append(Action("form_square", unit=u.id))
            if state.has("breakdown") and u.status == "map" and _can_break_down(state, u.id):
                out.append(Action("breakdown", unit=u.id))
        for uid in state.arrived:                                   # 16.1.3
            if unit and uid != unit:
                continue
            dummies = _free_dummies(state, sc.units[uid].side)
            if dummies and _dummy_problem(state, uid, dummies[0]) is None:
                out.append(Action("add_dummy", unit=uid, units=(dummies[0],)))
        try:
            _check_end_phase(state)
            out.append(Action("end_phase"))
        except RuleViolation:
            pass
        return out
    if s == "reaction":
        if state.night_march_left is not None:
            if state.night_march_left > 0:
                for u in R.on_map_units(state, "french"):
                    if unit and u.id != unit:
                        continue
                    if u.id in state.night_marched or sc.units[u.id].type == "leader":
                        continue
                    for h, r in sorted(R.reachable(state, u.id).items()):
                        out.append(Action("night_move", unit=u.id, path=r.path))
            out.append(Action("end_phase"))
            return out
        if state.night:
            if _night_march_possible(state):
                out.append(Action("night_march"))
            out.append(Action("end_phase"))
            return out
        out += C.reaction_actions(state, unit)
        out.append(Action("end_phase"))
        return out
    if s == "combat":
        if state.declared is None:
            if _withdraw_candidates(state) and not state.withdrew:
                out += [Action("withdraw", unit=uid) for uid in _withdraw_candidates(state)]
            out += C.declaration_options(state)
            return out
        pending = [i for i in range(len(state.declared)) if i not in state.done_battles]
        out += [Action("resolve", index=i) for i in pending]
        if not pending:
            out.append(Action("end_phase"))
        return out
    if s == "night_ops":
        broken = _rally_candidates(state)
        if broken:
            out.append(Action("rally", units=tuple(broken)))
            if state.morale_of(state.player) > 1:
                out.append(Action("rally", units=tuple(broken), spend=True))
        out.append(Action("end_phase"))
        return out
    return out


# ------------------------------------------------------------------------------------------------
# Applying an action
# ------------------------------------------------------------------------------------------------
def _mix(seed: int, nonce: int) -> int:
    return (int(seed) * 1_000_003 + nonce * 7_919 + 17) % (2 ** 63)


class Pending:
    """An action under way, one question at a time (typed dice, a person's choices): ``pending`` is the
    request waiting (a :class:`Roll`, :class:`Draw` or :class:`Choose`), :meth:`answer` gives it, and
    once ``done`` the new state is ``state``. Deterministic actions are done at once."""

    def __init__(self, state: GameState, action: Action):
        self.before = state
        self.action = action
        _validate(state, action)
        if action.random:
            self._step = Stepper(partial(_procedure, state, action))
            self.state = None
            self._finish_if_done()
        else:
            self._step = None
            self.state = _settle(_do(state, action))

    @property
    def done(self) -> bool:
        return self.state is not None

    @property
    def pending(self):
        return None if self._step is None else self._step.pending

    @property
    def events(self):
        return () if self._step is None else tuple(self._step.events)

    def answer(self, value) -> None:
        if self._step is None or self.state is not None:
            raise VedetteError("this action is complete; nothing to answer")
        self._step.answer(value)
        self._finish_if_done()

    def run(self, dice=None, chooser=first_option) -> GameState:
        if self.state is None:
            if dice is None:
                dice = RandomDice(_mix(self.before.seed, self.before.nonce))
            self._step.run(dice, chooser)
            self._finish_if_done()
        return self.state

    def _finish_if_done(self):
        if self._step.done:
            st = replace(self.before, nonce=self.before.nonce + 1)
            self.state = _settle(_finish(st, self.action, self._step.result))

    def record_event(self) -> dict:
        return {"kind": "action", "rule": _rule_of(self.action), "action": self.action.to_json(),
                "answers": [e.to_json() for e in self.events]}


def begin(state: GameState, action: Action | dict) -> Pending:
    """Start an action for step-by-step answering (validated first: an illegal one raises at once)."""
    return Pending(state, Action.from_json(action))


def apply(state: GameState, action: Action | dict, dice=None, chooser=first_option) -> GameState:
    """The state after ``action``. Dice come from ``dice`` (a core dice source: ``RandomDice``,
    ``TypedDice``) or, by default, a generator seeded by the game's seed and its count of random steps;
    choices inside procedures (reserves, retreat paths, advances, rally hexes) from ``chooser``."""
    return begin(state, action).run(dice, chooser)


def apply_logged(state: GameState, action: Action | dict, dice=None, chooser=first_option,
                 answers=None) -> tuple[GameState, dict]:
    """Like :func:`apply`, also returning the record event (the action and every die and choice).
    With ``answers`` (recorded events) the procedure is replayed from them instead."""
    action = Action.from_json(action)
    if answers is not None:
        _validate(state, action)
        if action.random:
            played = core_replay(partial(_procedure, state, action), answers)
            st = replace(state, nonce=state.nonce + 1)
            new = _settle(_finish(st, action, played.result))
            ev = {"kind": "action", "rule": _rule_of(action), "action": action.to_json(),
                  "answers": [e.to_json() for e in played.events]}
            return new, ev
        if answers:
            raise VedetteError(f"action {action} takes no dice, but the record gives {len(answers)} answers")
        new = _settle(_do(state, action))
        return new, {"kind": "action", "rule": _rule_of(action), "action": action.to_json(), "answers": []}
    p = begin(state, action)
    p.run(dice, chooser)
    return p.state, p.record_event()


def _rule_of(a: Action) -> str:
    from .actions import KINDS
    return KINDS[a.kind]


# ------------------------------------------------------------------------------------------------
# Validation (before any die is rolled)
# ------------------------------------------------------------------------------------------------
def _validate(state: GameState, a: Action) -> None:
    if state.over:
        raise RuleViolation("15.0", f"the game is over ({state.result[0]}, {state.result[2]})")
    s = state.step
    sc = state.scenario
    allowed = {
        "setup": {"place", "end_phase"}, "bessieres": {"roll_bessieres"}, "event": {"draw_event"},
        "movement": {"forced_march", "move", "add_dummy", "form_square", "breakdown", "fieldworks", "place_fieldworks", "orderly_withdrawal",
                     "pick_released", "end_phase"},
        "reaction": {"countercharge", "disengage", "penetrate", "night_march", "night_move", "end_phase"},
        "combat": {"withdraw", "declare", "resolve", "end_phase"},
        "night_ops": {"rally", "end_phase"}, "sudden_death": {"roll_sudden_death"},
    }[s]
    if a.kind not in allowed:
        raise RuleViolation("4.0", f"{a.kind} is not possible in the {s} phase (possible: {', '.join(sorted(allowed))})")
    if a.unit is not None and a.unit not in sc.units:
        raise RuleViolation("2.0", f"there is no unit {a.unit!r} in this scenario")
    k = a.kind
    if s == "movement" and _needs_release_pick(state) and k != "pick_released":
        raise RuleViolation("6.10", "first pick a Units Released counter (Bussaco turn 1)")
    if s == "movement" and state.fieldworks_left and k not in ("place_fieldworks", "end_phase"):
        raise RuleViolation("14.2", "place the Fieldworks markers first (or end the placement)")
    if k == "place":
        z = next((z for z in sc.spec.zones if a.unit in z.units), None)
        if z is None or state.unit(a.unit).status != "map":
            raise RuleViolation("18.1", f"{a.unit} is not placed by the player in this scenario")
        if not _can_place(state, a.unit, a.hex, z):
            raise RuleViolation(z.rule, f"{a.unit} may not be placed in {a.hex} (zone {z.id})")
    elif k == "pick_released":
        if not _needs_release_pick(state):
            raise RuleViolation("6.10", "no Units Released counter to pick now")
    elif k == "forced_march":
        if state.forced_march:
            raise RuleViolation("12.3", "already forced-marched this movement phase")
        if not state.free_forced_march and state.morale_of(state.player) < 1:
            raise RuleViolation("12.3", "no Morale Point to spend")
    elif k == "move":
        _check_move(state, a)
    elif k == "add_dummy":
        _check_add_dummy(state, a)
    elif k == "form_square":
        if not state.has("squares"):
            raise RuleViolation("17.1", "the squares variant is not in use")
        _check_can_move(state, a.unit)
        if not _can_square(state, a.unit):
            raise RuleViolation("17.1", f"only infantry in a Clear hex may form square ({a.unit})")
    elif k == "breakdown":
        if not state.has("breakdown"):
            raise RuleViolation("16.6", "unit breakdown is an optional rule not in use")
        _check_can_move(state, a.unit)
        if not _can_break_down(state, a.unit):
            raise RuleViolation("16.6.1", f"{a.unit} cannot break down: an unmoved infantry unit of strength 2 or "
                                          f"more, two Cadres available and a Morale Point to spend")
    elif k == "fieldworks":
        if not _fieldworks_possible(state):
            raise RuleViolation("14.2", "Fieldworks: once per game, by the allied player at the start of a night "
                                        "movement phase")
    elif k == "place_fieldworks":
        if a.hex not in {h for _, h in _fieldworks_candidates(state)}:
            raise RuleViolation("14.2", f"a Fieldworks marker goes in a Clear hex held by British or Portuguese "
                                        f"infantry ({a.hex} is not one)")
    elif k == "orderly_withdrawal":
        if not _orderly_withdrawal_possible(state):
            raise RuleViolation("12.7", "Orderly Withdrawal needs allied Morale at least 2 below the French and a "
                                        "French unit in Nave de Haver, Poco Velho or Fuentes de Onoro")
    elif k == "night_march":
        if not _night_march_possible(state) or state.night_march_left is not None:
            raise RuleViolation("14.1", "the French Night March: once per game, after the allied night movement phase")
    elif k == "night_move":
        if state.night_march_left is None or state.night_march_left <= 0:
            raise RuleViolation("14.1", "no Night March moves left")
        d = sc.units[a.unit]
        if d.side != "french" or a.unit in state.night_marched or state.unit(a.unit).status != "map":
            raise RuleViolation("14.1", f"{a.unit} cannot night-march")
        r = R.reachable(state, a.unit).get(a.path[-1] if a.path else None)
        if r is None:
            raise RuleViolation("14.1", f"{a.unit} cannot reach {a.path[-1] if a.path else '?'} on its night march")
    elif k in ("countercharge", "disengage", "penetrate"):
        if state.night:
            raise RuleViolation("14.0", "no reaction phase at night")
        C.check_reaction(state, a)
    elif k == "withdraw":
        if state.declared is not None or state.withdrew or a.unit not in _withdraw_candidates(state):
            raise RuleViolation("12.7", f"{a.unit} cannot march off now (an allied British or Portuguese unit on an "
                                        f"allied LOC hex, once per combat phase, before battles are declared)")
    elif k == "declare":
        if state.declared is not None:
            raise RuleViolation("9.2", "battles are already declared this combat phase")
        C.check_declaration(state, a.battles)
    elif k == "resolve":
        if state.declared is None:
            raise RuleViolation("9.2", "declare all battles before resolving any")
        if a.index is None or not 0 <= a.index < len(state.declared) or a.index in state.done_battles:
            raise RuleViolation("9.0", f"no unresolved declared battle #{a.index}")
        C.check_resolve(state, a)
    elif k == "rally":
        cands = set(_rally_candidates(state))
        bad = [u for u in a.units if u not in cands]
        if bad or not a.units:
            raise RuleViolation("10.0", f"only broken units of the phasing side may rally ({', '.join(bad) or 'none'})")
        if a.spend and state.morale_of(state.player) < 1:
            raise RuleViolation("12.4", "no Morale Point to spend")
    elif k == "end_phase":
        _check_end_phase(state)


def _check_end_phase(state: GameState) -> None:
    s = state.step
    if s == "combat":
        if state.declared is None:
            if C.mandatory_battles(state):
                raise RuleViolation("9.1", "units in an enemy ZOC must attack: declare the battles first")
        elif len(state.done_battles) < len(state.declared):
            raise RuleViolation("9.0", "resolve every declared battle first")
    if s == "movement" and _needs_release_pick(state):
        raise RuleViolation("6.10", "pick a Units Released counter first")
    if s == "movement" and len(state.dummy_pair) == 2:
        dummy, mate = (state.unit(x) for x in state.dummy_pair)
        if dummy.status == "map" and mate.status == "map" and dummy.hex == mate.hex:
            raise RuleViolation("6.9", f"the dummy {dummy.id} and {mate.id}, which arrived together (16.1.3), "
                                       f"are still stacked in {dummy.hex}: one of them must move off first")
    if s == "movement":
        for h, ids in state.occupants.items():
            stack = [i for i in ids if state.scenario.units[i].type != "leader"]
            if len(stack) > 1 and _buildup_target(state, stack) is None:
                raise RuleViolation("6.9", f"units {', '.join(stack)} may not end the movement phase stacked in {h}")


def _check_can_move(state: GameState, uid: str) -> None:
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
    if state.release_left is not None and state.turn == sc.spec.start_turn and d.side == "allied" \
            and state.release_left <= 0:
        raise RuleViolation("6.10", "no more allied units may move on turn 1 (Units Released)")
    if d.type == "supply" and state.night and not state.forced_march:
        raise RuleViolation("6.10", "the Supply Column moves at night only by forced march")


def _reach(state: GameState, uid: str) -> dict:
    cache = state.__dict__.setdefault("_reach", {})
    hit = cache.get(uid)
    if hit is None:
        u = state.unit(uid)
        hit = R.entry_options(state, uid, u.areas) if u.status == "due" else R.reachable(state, uid)
        if uid in state.dummy_pair:            # 16.1.3 / 6.9: the pair, once parted, may not stack again
            mate = state.unit(next(x for x in state.dummy_pair if x != uid))
            if mate.status == "map" and mate.hex in hit:
                hit = {h: r for h, r in hit.items() if h != mate.hex}
        cache[uid] = hit
    return hit


def _check_move(state: GameState, a: Action) -> None:
    if a.unit is None or not a.path:
        raise RuleViolation("6.0", "a move names a unit and its path of hexes")
    _check_can_move(state, a.unit)
    sc = state.scenario
    for h in a.path:
        if not sc.board.on_map(h):
            raise RuleViolation("6.0", f"hex {h} is not on the map")
    u = state.unit(a.unit)
    reach = _reach(state, a.unit)
    dest = a.path[-1]
    if dest not in reach:
        raise RuleViolation(*_why_not(state, a.unit, dest))
    # The destination decides legality; the unit moves along the cheapest legal path there (the one
    # legal_actions lists), which is what the game records.


def _why_not(state: GameState, uid: str, dest: str) -> tuple[str, str]:
    """The rule that most directly forbids moving ``uid`` to ``dest`` (for the error message)."""
    sc = state.scenario
    side = sc.units[uid].side
    u = state.unit(uid)
    if dest in R.enemy_hexes(state, side):
        return "6.3", f"{dest} holds an enemy unit or garrison: {uid} may not enter it"
    if u.status == "map" and u.hex in R.enemy_zoc(state, side) and not state.night and sc.units[uid].type != "leader":
        return "6.8", f"{uid} starts in an enemy ZOC and may not move (only by disengagement or at night)"
    if uid in state.dummy_pair and dest in {state.unit(x).hex for x in state.dummy_pair if x != uid}:
        return "6.9", f"{uid} and the dummy it arrived with (16.1.3) may not end up stacked again in {dest}"
    if dest in R.friendly_hexes(state, side, exclude=uid) and sc.units[uid].type != "leader":
        return "6.9", f"{uid} may not end its move stacked with another unit in {dest}"
    if state.night and sc.tables.rules.night_zoc == "reversed" and dest in R.enemy_zoc(state, side):
        return "7.6", f"at night {dest} (in an enemy ZOC) may not be entered"
    if u.status == "due":
        return "11.1", f"{uid} cannot get from its entry area to {dest} this phase"
    return "6.2", f"{dest} is beyond {uid}'s movement allowance this phase (or every way there is blocked: 6.5, 6.7)"


# ------------------------------------------------------------------------------------------------
# Deterministic actions
# ------------------------------------------------------------------------------------------------
def _do(state: GameState, a: Action) -> GameState:
    k = a.kind
    sc = state.scenario
    if k == "place":
        return state.with_units({a.unit: replace(state.unit(a.unit), hex=a.hex)})
    if k == "forced_march":
        st = replace(state, forced_march=True)
        if not state.free_forced_march:
            st = _morale_change(st, {state.player: -1}, "12.3")
        return st
    if k == "move":
        return _do_move(state, a)
    if k == "add_dummy":
        mate = state.unit(a.unit)
        dummy = a.units[0] if a.units else _free_dummies(state, sc.units[a.unit].side)[0]
        st = state.with_units({dummy: replace(state.unit(dummy), status="map", hex=mate.hex, revealed=False,
                                              moved=False, routed=None)})
        return replace(st, dummies_added=True, dummy_pair=(dummy, a.unit))
    if k == "form_square":
        return state.with_units({a.unit: replace(state.unit(a.unit), square=True, moved=True)})
    if k == "breakdown":
        u = state.unit(a.unit)
        c1, c2 = _pool_cadres(state, a.unit)[:2]
        st = state.with_units({a.unit: replace(u, status="gone", hex=None),
                               c1: replace(state.unit(c1), status="map", hex=u.hex, moved=False, routed=None,
                                           fatigue=0, revealed=u.revealed),
                               c2: replace(state.unit(c2), status="map", hex=u.hex, moved=False, routed=None,
                                           fatigue=0, revealed=u.revealed)})
        return _morale_change(st, {state.player: sc.tables.morale("breakdown").points}, "16.6.1")
    if k == "place_fieldworks":
        uid = next(x for x in state.occupants[a.hex] if sc.units[x].type != "leader")
        return replace(state, fieldworks=state.fieldworks + (a.hex,), fieldworks_left=state.fieldworks_left - 1,
                       builders=state.builders + (uid,),
                       units=tuple(replace(u, moved=True) if u.id == uid else u for u in state.units))
    if k == "orderly_withdrawal":
        return replace(state, orderly_withdrawal=True)
    if k == "night_move":
        st = _do_move(replace(state, step="movement"), Action("move", unit=a.unit, path=a.path))
        st = replace(st, step="reaction", night_march_left=state.night_march_left - 1,
                     night_marched=state.night_marched + (a.unit,))
        lm = sc.spec.night_march_leader
        if lm and state.has("leaders") and st.unit(lm).status == "aside":
            st = st.with_units({lm: replace(st.unit(lm), status="map", hex=a.path[-1])})   # 14.1 Montbrun
        return st
    if k in ("disengage", "penetrate"):
        return C.do_reaction_move(state, a)
    if k == "withdraw":
        st = state.with_units({a.unit: replace(state.unit(a.unit), status="gone", hex=None)})
        st = replace(st, withdrew=True)
        st = _morale_change(st, {"allied": +1}, "12.7")
        if not any(True for _ in R.on_map_units(st, "allied")):
            st = end_of_game(st, "12.7 C: no allied units left after the Orderly Withdrawal")
        return st
    if k == "declare":
        return C.do_declare(state, a.battles)
    if k == "end_phase":
        return _end_phase(state)
    raise VedetteError(f"action {k} has no deterministic effect")   # pragma: no cover


def _do_move(state: GameState, a: Action) -> GameState:
    sc = state.scenario
    d = sc.units[a.unit]
    u = state.unit(a.unit)
    r = _reach(state, a.unit)[a.path[-1]]
    changes = {}
    nu = replace(u, status="map", hex=r.hex, moved=True, square=False)
    st = state
    if u.status == "due":
        entered = dict(state.entered)
        entered[r.entry] = entered.get(r.entry, 0) + 1          # 11.2
        st = replace(st, entered=tuple(sorted(entered.items())))
        if st.has("fog_of_war"):
            st = replace(st, arrived=st.arrived + (a.unit,))    # 16.1.3: may bring a dummy along
    if r.guard_cost:
        st = _morale_change(st, {d.side: -1}, "12.2.1")
        nu = replace(nu, revealed=True)                         # 16.1.1
    changes[a.unit] = nu
    st = st.with_units(changes)
    if st.release_left is not None and d.side == "allied" and st.turn == sc.spec.start_turn:
        st = replace(st, release_left=st.release_left - 1)     # Bussaco 6.10
    ex = sc.spec.exclusive
    if ex.supply_column == a.unit and ex.almeida and r.hex == ex.almeida and not st.supply_delivered:
        st = replace(st, supply_delivered=True)                 # Fuentes 12.6
        st = _morale_change(st, dict(ex.resupply_morale), "12.6")
    return st


def _morale_change(state: GameState, deltas: dict[str, int], rule: str) -> GameState:
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


# ------------------------------------------------------------------------------------------------
# Random procedures (one per random action) and how their results change the state
# ------------------------------------------------------------------------------------------------
def _procedure(state: GameState, a: Action):
    k = a.kind
    sc = state.scenario
    if k == "draw_event":
        pile = state.draw_pile
        if not pile:
            yield Log("5.0", "the draw pile is empty: the discards are reshuffled")
            pile = tuple(sc.cards)
        card = yield Draw(tuple(sorted(pile)), rule="5.0", label="random event card")
        return ("card", card, pile)
    if k == "roll_bessieres":
        roll = yield Roll("d6", rule="17.2", label="Bessieres' cooperation")
        return ("bessieres", roll)
    if k == "pick_released":
        counters = tuple(sc.spec.units_released.counters)
        n = yield Draw(counters, rule="6.10", label="Units Released counter")
        return ("released", n)
    if k == "fieldworks":
        roll = yield Roll("d6", rule="14.2", label="Fieldworks Table")
        n = _table_lookup(FIELDWORKS_TABLE, roll)
        yield Log("14.2", f"die {roll}: up to {n} Fieldworks markers")
        return ("fieldworks", roll, n)
    if k == "night_march":
        roll = yield Roll("d6", rule="14.1", label="Night March Table")
        n = _table_lookup(NIGHT_MARCH_TABLE, roll)
        yield Log("14.1", f"die {roll}: up to {n} units may night-march")
        return ("night_march", roll, n)
    if k == "roll_sudden_death":
        n = sc.sudden_death_number(state.turn)
        roll = yield Roll("d6", rule="4.0", label=f"sudden death (ends on {n} or less)")
        return ("sudden_death", roll, n)
    if k == "rally":
        return (yield from _rally_procedure(state, a))
    if k in ("countercharge", "resolve"):
        return (yield from C.battle_in_game(state, a))
    raise VedetteError(f"action {k} is not random")   # pragma: no cover


#: Fuentes 14.1 Night March Table and 14.2 Fieldworks Table (die -> units / markers), rulebook values.
NIGHT_MARCH_TABLE = ((1, 3), (3, 4), (5, 5), (6, 6))
FIELDWORKS_TABLE = ((2, 2), (4, 3), (6, 4))
#: Fuentes 17.2 Bessieres' Cooperation (rulebook): die -> effect.
BESSIERES = {1: "no_nord", 2: "historical", 3: "historical", 4: "early", 5: "guard_late", 6: "guard_early"}


def _table_lookup(table, roll):
    for up_to, v in table:
        if roll <= up_to:
            return v
    return table[-1][1]


def _finish(state: GameState, a: Action, result) -> GameState:
    k = a.kind
    sc = state.scenario
    if k == "draw_event":
        _, card, pile = result
        rest = tuple(c for c in pile if c != card)
        red_in = state.red_in_deck
        discard = state.discard
        if not state.draw_pile:   # reshuffled because empty
            discard, red_in = (), True
        st = replace(state, draw_pile=rest, discard=discard + (card,), event=(card, state.player), red_in_deck=red_in)
        return _go_movement(_apply_event(st, sc.cards[card], state.player))
    if k == "roll_bessieres":
        return _apply_bessieres(state, result[1])
    if k == "pick_released":
        return replace(state, release_left=result[1])
    if k == "fieldworks":
        return replace(state, fieldworks_used=True, fieldworks_left=result[2])
    if k == "night_march":
        st = _morale_change(state, {"french": -1}, "14.1")
        return replace(st, night_march_used=True, night_march_left=result[2], night_marched=())
    if k == "roll_sudden_death":
        _, roll, n = result
        if roll <= n:
            return end_of_game(state, f"sudden death: die {roll} <= {n} at the end of turn {state.turn} (4.0)")
        return _next_turn(state)
    if k == "rally":
        return _finish_rally(state, result)
    if k in ("countercharge", "resolve"):
        return C.finish_battle(state, a, result)
    raise VedetteError(f"no result handler for {k}")   # pragma: no cover


def _apply_event(state: GameState, card, side: str) -> GameState:
    """5.0: the drawer applies only his own event of the card."""
    eff = getattr(card, side)
    if eff.effect == "morale":
        return _morale_change(state, {side: eff.amount}, "5.0")
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
    eff = BESSIERES[roll]
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
    return _start_turn_bookkeeping(st)


def _reinf(state: GameState, uid: str):
    return next((r for r in state.scenario.spec.reinforcements if r.unit == uid), None)


def _reinf_turn(state: GameState, uid: str) -> int:
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


# ------------------------------------------------------------------------------------------------
# Rally (10.0, 12.4, 16.4, 16.5, 16.9.7)
# ------------------------------------------------------------------------------------------------
def _rally_candidates(state: GameState) -> list[str]:
    sc = state.scenario
    out = []
    for u in state.units:
        d = sc.units[u.id]
        if u.status == "broken" and d.side == state.player and d.type not in ("leader", "dummy") \
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
    enemies = R.enemy_hexes(state, side)
    out = [h for h in board.loc_hexes(side) if h not in occupied and h not in enemies]
    if state.has("rally_hexes"):
        enemy_units = [u.hex for u in R.on_map_units(state, other(side))]
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
                ez = R.enemy_zoc(state, side)
                for h in [lu.hex] + board.neighbours(lu.hex):
                    if h not in out and h not in occupied and h not in enemies and h not in ez:
                        out.append(h)
    return out


def _safe_trace(state, side, start, goal) -> bool:
    """16.4: a path to the LOC through no enemy-occupied or enemy-adjacent hex, nor across an unbridged
    Major River."""
    board = state.scenario.board
    enemy = {u.hex for u in R.on_map_units(state, other(side))}
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
        st = _morale_change(st, {state.player: -1}, "12.4")
    changes = {}
    for uid, res, place_as, h in results:
        if res == "rallied":
            changes[uid] = replace(st.unit(uid), status="map", hex=h, routed=None, fatigue=0, moved=False,
                                   revealed=not st.has("fog_of_war"))
        elif res == "cadre":
            changes[uid] = replace(st.unit(uid), status="gone")                  # 16.5.1
            changes[place_as] = replace(st.unit(place_as), status="map", hex=h, routed=None, fatigue=0)
    st = st.with_units(changes)
    return _end_phase(st)


# ------------------------------------------------------------------------------------------------
# Phase flow
# ------------------------------------------------------------------------------------------------
def _end_phase(state: GameState) -> GameState:
    s = state.step
    if s == "setup":
        st = replace(state, step="bessieres" if state.has("bessieres") else "event")
        return _start_turn_bookkeeping(st) if st.step == "event" else st
    if s == "movement":
        st = replace(state, fieldworks_left=0, arrived=(), dummy_pair=())
        st = _build_up(st)
        st = _reveal_by_cavalry(st)
        return _enter_reaction(st)
    if s == "reaction":
        if state.night_march_left is not None:
            return _enter_combat(replace(state, night_march_left=None))
        return _enter_combat(state)
    if s == "combat":
        return _end_combat(state)
    if s == "night_ops":
        return _end_player_turn(_night_operations(state))
    raise RuleViolation("4.0", f"the {s} step ends by its own action")


def _start_turn_bookkeeping(state: GameState) -> GameState:
    """Start of a player turn: clear the per-turn markers, skip the first event phase when told (5.0)."""
    sc = state.scenario
    st = replace(state, forced_march=False, free_forced_march=False, rally_on=None, battle_rolls=(), entered=(),
                 event=(), declared=None, done_battles=(), reacted=(), withdrew=False, builders=(),
                 dummies_added=False, arrived=(), dummy_pair=(), night_march_left=None, night_marched=())
    if state.step != "event":
        return st
    first_turn = state.turn == sc.spec.start_turn or (state.bessieres in (4, 6) and state.turn == 1)
    if sc.spec.skip_first_event and first_turn and state.player == sc.first_player:
        return _go_movement(st)   # exclusive 5.0
    return st


def _go_movement(state: GameState) -> GameState:
    sc = state.scenario
    changes = {}
    rallied = []
    for u in state.units:
        d = sc.units[u.id]
        nu = u
        if u.moved or u.exhausted or u.fought:
            nu = replace(nu, moved=False, exhausted=False, fought=False)
        if d.side == state.player:
            if u.status == "later" and _reinf_turn(state, u.id) <= state.turn:
                nu = replace(nu, status="due")
            if d.type == "leader" and u.status == "broken":
                hexes = [h for h in sc.board.loc_hexes(d.side) if h not in R.enemy_hexes(state, d.side)]
                if hexes:                                           # 16.9.6
                    nu = replace(nu, status="map", hex=hexes[0], routed=None)
                    rallied.append(u.id)
        if nu is not u:
            changes[u.id] = nu
    st = replace(state.with_units(changes), step="movement")
    if rallied and state.has("fog_of_war"):
        st = replace(st, arrived=tuple(rallied))                    # 16.1.3: a rallied leader may bring a dummy
    if sc.spec.units_released and state.turn == sc.spec.start_turn and state.player == "allied":
        st = replace(st, release_left=-1)   # to be picked (Bussaco 6.10)
    elif st.release_left is not None and not (state.turn == sc.spec.start_turn and state.player == "allied"):
        st = replace(st, release_left=None)
    return st


def _free_dummies(state: GameState, side: str) -> list[str]:
    """16.1.3: the side's dummies not hidden on the map (available to arrive with a unit)."""
    sc = state.scenario
    return [u.id for u in state.units
            if u.status == "hidden_off" and sc.units[u.id].type == "dummy" and sc.units[u.id].side == side]


def _dummy_problem(state: GameState, mate: str, dummy: str) -> tuple[str, str] | None:
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
            _check_can_move(trial, uid)
        except RuleViolation:
            continue
        if _reach(trial, uid):
            return None
    return "6.9", f"neither the dummy nor {mate} could leave {m.hex} this phase, so they would stay stacked"


def _check_add_dummy(state: GameState, a: Action) -> None:
    if a.unit is None:
        raise RuleViolation("16.1.3", "name the arriving unit the dummy comes with ('unit')")
    if len(a.units) > 1:
        raise RuleViolation("16.1.3", "only one dummy may arrive with a unit")
    side = state.scenario.units[a.unit].side
    if side != state.player:
        raise RuleViolation("16.1.3", f"{a.unit} is not a unit of the {state.player} player")
    free = _free_dummies(state, side)
    dummy = a.units[0] if a.units else (free[0] if free else None)
    if dummy is None:
        raise RuleViolation("16.1.3", f"the {side} side has no dummy off the map to add")
    problem = _dummy_problem(state, a.unit, dummy)
    if problem:
        raise RuleViolation(*problem)


def _needs_release_pick(state: GameState) -> bool:
    return state.step == "movement" and state.release_left == -1


def _enter_reaction(state: GameState) -> GameState:
    st = replace(state, step="reaction", reacted=(),
                 units=tuple(replace(u, moved=False) if u.moved else u for u in state.units))
    return st


def _enter_combat(state: GameState) -> GameState:
    # 9.9.8 holds within one combat phase: an advance after a countercharge does not carry over
    st = replace(state, step="combat", declared=None, done_battles=(),
                 units=tuple(replace(u, exhausted=False) if u.exhausted else u for u in state.units))
    if state.night:
        return _end_combat(st)        # 14.0: no battles at night
    return st


def _end_combat(state: GameState) -> GameState:
    """After the combat phase: Routed! recovery (9.6.3), fatigue recovery (16.8.2), a lull (13.0)."""
    sc = state.scenario
    side = state.player
    changes = {}
    for u in state.units:
        if u.status != "map":
            if u.exhausted or u.fought:
                changes[u.id] = replace(u, exhausted=False, fought=False)
            continue
        d = sc.units[u.id]
        nu = replace(u, exhausted=False, fought=False)
        if u.routed == side and u.hex not in R.enemy_zoc(state, d.side):
            nu = replace(nu, routed=None)
        if state.has("fatigue") and d.side == side and u.fatigue:
            adj = any(any(x in state.occupants for x in [n]) and any(sc.units[i].side != side for i in
                      state.occupants.get(n, ())) for n in sc.board.neighbours(u.hex))
            if not adj:
                nu = replace(nu, fatigue=u.fatigue - 1)
        if nu != u:
            changes[u.id] = nu
    st = state.with_units(changes)
    st = replace(st, declared=None, done_battles=())
    if not st.night:
        st = _lull(st)
        return _end_player_turn(st)
    return replace(st, step="night_ops")


def _lull(state: GameState) -> GameState:
    """13.0: no forced march and no battle dice this player turn, both armies on the map, after the first
    night (Bussaco: from turn 1): +1 Morale when below 6 or not ahead of the enemy."""
    sc = state.scenario
    side = state.player
    lf = sc.spec.lulls_from_turn
    allowed = state.first_night_seen or (lf is not None and state.turn >= lf)
    if not allowed or state.forced_march or side in state.battle_rolls:
        return state
    if not any(True for _ in R.on_map_units(state, "french")) or not any(True for _ in R.on_map_units(state, "allied")):
        return state
    mine, theirs = state.morale_of(side), state.morale_of(other(side))
    if mine < 6 or mine <= theirs:
        return _morale_change(state, {side: sc.tables.morale("lull").points}, "13.0")
    return state


def _night_operations(state: GameState) -> GameState:
    """14.0 night operations after the rally: captured enemy LOC and Objective hexes, rest, reconcealment."""
    sc = state.scenario
    side = state.player
    board = sc.board
    enemy = other(side)
    mine = {u.hex for u in R.on_map_units(state, side)}
    loss = 0
    for h in board.loc_hexes(enemy):
        if h in mine:
            loss += sc.tables.morale("enemy_holds_loc").points
    for h, owner, pts in board.objectives:
        if owner == enemy and h in mine:
            loss += sc.tables.morale("enemy_holds_objective").points * pts
    st = state
    if loss:
        st = _morale_change(st, {enemy: loss}, "14.0")
    rested = not (side == "allied" and state.builders)           # 14.2 forgoes the night's rest
    if rested:
        st = _morale_change(st, {side: sc.tables.morale("night_rest").points}, "14.0")
    if st.has("fog_of_war"):
        st = _reconceal(st, side)
    return st


def _reconceal(state: GameState, side: str) -> GameState:
    """16.1.2 / 16.1.3: own units face-down; available dummies placed beside units away from the enemy."""
    sc = state.scenario
    board = sc.board
    changes = {u.id: replace(u, revealed=False) for u in R.on_map_units(state, side) if u.revealed}
    st = state.with_units(changes)
    enemy = {u.hex for u in R.on_map_units(st, other(side))}
    near_enemy = set(enemy)
    for e in enemy:
        near_enemy.update(board.neighbours(e))
    for u in st.units:
        d = sc.units[u.id]
        if d.side != side or d.type != "dummy" or u.status != "hidden_off":
            continue
        occupied = set(st.occupants) | enemy
        spot = None
        for f in sorted(x.hex for x in R.on_map_units(st, side) if sc.units[x.id].type != "dummy"):
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
        cav = [u.hex for u in R.on_map_units(state, side) if u.revealed and sc.units[u.id].type in ("cavalry", "dummy")]
        for u in R.on_map_units(state, other(side)):
            if not u.revealed and any(R.adjacent(board, u.hex, c) for c in cav):
                if sc.units[u.id].type == "dummy":
                    changes[u.id] = replace(u, status="hidden_off", hex=None)   # 16.1.3
                else:
                    changes[u.id] = replace(u, revealed=True)
    return state.with_units(changes)


def _end_player_turn(state: GameState) -> GameState:
    sc = state.scenario
    if state.player == sc.first_player:
        st = replace(state, player=sc.second_player, step="event")
        return _start_turn_bookkeeping(st)
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
    st = st.with_units(changes)
    return _start_turn_bookkeeping(st)


# ------------------------------------------------------------------------------------------------
# Victory (12.1.2, 15.0, exclusive 12.7 and 15.0)
# ------------------------------------------------------------------------------------------------
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
    blocked = {x.hex for x in R.on_map_units(state, "allied")} | set(R.enemy_zoc(state, "french"))
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


def _check_victory(state: GameState) -> GameState:
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


def _settle(state: GameState) -> GameState:
    """After every action: victory by morale (12.1.2), then skip steps with nothing to decide."""
    for _ in range(64):
        state = _check_victory(state)
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
            if state.night_march_left is None and not _night_march_possible(state):
                return _enter_combat(state)
            return state
        if not C.reaction_actions(state, None):
            return _enter_combat(state)
        return state
    if s == "combat" and state.declared is None:
        if not _withdraw_candidates(state) or state.withdrew:
            if not C.any_contact(state):
                return _end_combat(state)
        return state
    if s == "night_ops" and not _rally_candidates(state):
        return _end_player_turn(_night_operations(state))
    return state


# ------------------------------------------------------------------------------------------------
# Small rule helpers
# ------------------------------------------------------------------------------------------------
def _zone_hexes(state: GameState, z) -> list[str]:
    board = state.scenario.board
    if z.hexes:
        return list(z.hexes)
    return [h for h in board.grid.within(z.center, z.radius)]


def _can_place(state: GameState, uid: str, h: str | None, z) -> bool:
    sc = state.scenario
    if h is None or not sc.board.on_map(h) or h not in _zone_hexes(state, z):
        return False
    side = sc.units[uid].side
    if h in R.enemy_hexes(state, side):
        return False
    if sc.units[uid].type != "leader" and h in R.friendly_hexes(state, side, exclude=uid):
        return False
    if z.not_in_enemy_zoc and h in R.enemy_zoc(state, side):
        return False
    return True


def _any_unmoved(state: GameState) -> bool:
    side = state.player
    sc = state.scenario
    return any(sc.units[u.id].side == side and u.status in ("map", "due") and not u.moved for u in state.units)


def _can_square(state: GameState, uid: str) -> bool:
    d = state.scenario.units[uid]
    u = state.unit(uid)
    return d.type in ("infantry", "cadre") and not u.square and u.status == "map" and \
        state.scenario.board.terrain(u.hex) == "clear" and not u.moved


def _is_large_infantry(d) -> bool:
    return d.type == "infantry" and d.strength >= 2 and not d.has("cadre")


def _pool_cadres(state: GameState, uid: str) -> list[str]:
    """Cadres of the unit's side and nationality not in play (16.6.1; 16.6.2 pairs them by nationality,
    so a unit only breaks down into Cadres that can build it up again)."""
    sc = state.scenario
    d = sc.units[uid]
    return sorted(u.id for u in state.units if u.status == "pool" and sc.units[u.id].side == d.side
                  and sc.units[u.id].nationality == d.nationality)


def _can_break_down(state: GameState, uid: str) -> bool:
    """16.6.1: before it moves, a large infantry unit becomes two Cadres for one Morale Point."""
    sc = state.scenario
    u = state.unit(uid)
    if not (u.status == "map" and not u.moved and _is_large_infantry(sc.units[uid])
            and len(_pool_cadres(state, uid)) >= 2 and state.morale_of(sc.units[uid].side) >= 1):
        return False
    # the two Cadres must be able to part (6.9): not stuck in an enemy ZOC, somewhere to go
    return bool(_reach(state, uid))


def _buildup_target(state: GameState, stack) -> str | None:
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


def _build_up(state: GameState) -> GameState:
    st = state
    for h, ids in sorted(state.occupants.items()):
        stack = [i for i in ids if state.scenario.units[i].type != "leader"]
        target = _buildup_target(st, stack)
        if target is None:
            continue
        st = st.with_units({stack[0]: replace(st.unit(stack[0]), status="pool", hex=None),
                            stack[1]: replace(st.unit(stack[1]), status="pool", hex=None),
                            target: replace(st.unit(target), status="map", hex=h, routed=None, fatigue=0,
                                            moved=True)})
        st = _morale_change(st, {state.player: st.scenario.tables.morale("buildup").points}, "16.6.2")
    return st


def _fieldworks_possible(state: GameState) -> bool:
    sc = state.scenario
    return (sc.spec.exclusive.fieldworks and state.player == "allied" and state.night and not state.fieldworks_used
            and state.step == "movement" and not any(u.moved for u in state.units) and not state.forced_march)


def _fieldworks_candidates(state: GameState) -> list[tuple[str, str]]:
    sc = state.scenario
    out = []
    for u in R.on_map_units(state, "allied"):
        d = sc.units[u.id]
        if d.type == "infantry" and d.nationality in ("british", "portuguese") and not u.moved \
                and sc.board.terrain(u.hex) == "clear" and u.hex not in state.fieldworks:
            out.append((u.id, u.hex))
    return out


def _orderly_withdrawal_possible(state: GameState) -> bool:
    sc = state.scenario
    towns = sc.spec.exclusive.orderly_withdrawal_towns
    if not towns or state.orderly_withdrawal or state.player != "allied":
        return False
    if state.morale_of("allied") > state.morale_of("french") - 2:
        return False
    return any(any(sc.units[i].side == "french" and sc.units[i].type not in ("leader",) for i in
                   state.occupants.get(t, ())) for t in towns)


def _withdraw_candidates(state: GameState) -> list[str]:
    """12.7 A: a British or Portuguese unit (no cadre, dummy or Sanchez) on an allied LOC hex."""
    sc = state.scenario
    if not state.orderly_withdrawal or state.player != "allied":
        return []
    locs = set(sc.board.loc_hexes("allied"))
    out = []
    for u in R.on_map_units(state, "allied"):
        d = sc.units[u.id]
        if u.hex in locs and d.type in ("infantry", "cavalry", "artillery") and d.nationality in ("british", "portuguese") \
                and not d.has("cadre") and u.id not in sc.spec.exclusive.irregulars:
            out.append(u.id)
    return out


def _night_march_possible(state: GameState) -> bool:
    sc = state.scenario
    return (sc.spec.exclusive.night_march and state.night and state.player == "allied" and not state.night_march_used
            and state.step == "reaction" and state.morale_of("french") >= 1)
