"""One handler per action kind: what the kind checks (before any die, changing nothing) and what it does
(a deterministic change, or a rules procedure and what its result changes). :func:`check` and
:func:`perform` dispatch on :data:`HANDLERS`; :func:`candidates` lists the actions worth trying in a
state (the protocol keeps those that pass :func:`check`, so legality has one source)."""
from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from engine.core.errors import RuleViolation

from .actions import KINDS, Action
from .state import GameState
from .types import Side, Status, Step
from . import battles as B
from . import combat as C
from . import exclusive as X
from . import movement as M
from . import phases as P
from . import rally as RL
from . import reaction as RE
from .reach import search_moves
from .zoc import on_map_units
from . import setup as S

__all__ = ["Handler", "HANDLERS", "check", "perform", "candidates", "STEP_KINDS"]


@dataclass(frozen=True)
class Handler:
    """How one action kind is played. Deterministic kinds have ``do``; random kinds a ``procedure``
    (a generator yielding dice, cards and choices) and ``finish`` (its result applied to the state)."""

    kind: str
    steps: frozenset[str]
    check: Callable[[GameState, Action], None]
    do: Callable[[GameState, Action], GameState] | None = None
    procedure: Callable[[GameState, Action], Generator] | None = None
    finish: Callable[[GameState, Action, Any], GameState] | None = None
    needs: tuple[str, ...] = ()          # the action fields the kind cannot do without

    @property
    def rule(self) -> str:
        return KINDS[self.kind]

    @property
    def random(self) -> bool:
        return self.procedure is not None


def _ok(state, a) -> None:
    return None


def _rally_then_night(state: GameState, a: Action, result) -> GameState:
    return P.end_phase(RL.finish_rally(state, a, result))     # 10.0 is the first of the night operations (14.0)


def _h(kind, steps, check, do=None, procedure=None, finish=None, needs=()):
    return kind, Handler(kind, frozenset(steps), check, do, procedure, finish, tuple(needs))


HANDLERS: dict[str, Handler] = dict([
    _h("place", {Step.SETUP}, S.check_place, S.do_place, needs=("unit", "hex")),
    _h("roll_bessieres", {Step.BESSIERES}, _ok, procedure=S.roll_bessieres, finish=S.finish_bessieres),
    _h("draw_event", {Step.EVENT}, _ok, procedure=S.draw_event, finish=S.finish_event),
    _h("pick_released", {Step.MOVEMENT}, X.check_pick_released, procedure=X.draw_released,
       finish=X.finish_released),
    _h("forced_march", {Step.MOVEMENT, Step.REACTION}, M.check_forced_march, M.do_forced_march),
    _h("move", {Step.MOVEMENT}, M.check_move, M.do_move, needs=("unit", "path")),
    _h("add_dummy", {Step.MOVEMENT}, M.check_add_dummy, M.do_add_dummy, needs=("unit",)),
    _h("form_square", {Step.MOVEMENT}, M.check_form_square, M.do_form_square, needs=("unit",)),
    _h("breakdown", {Step.MOVEMENT}, M.check_breakdown, M.do_breakdown, needs=("unit",)),
    _h("fieldworks", {Step.MOVEMENT}, X.check_fieldworks, procedure=X.roll_fieldworks, finish=X.finish_fieldworks),
    _h("place_fieldworks", {Step.MOVEMENT}, X.check_place_fieldworks, X.do_place_fieldworks, needs=("hex",)),
    _h("orderly_withdrawal", {Step.MOVEMENT}, X.check_orderly_withdrawal, X.do_orderly_withdrawal),
    _h("countercharge", {Step.REACTION}, RE.check_reaction, procedure=RE.countercharge,
       finish=RE.finish_countercharge),
    _h("disengage", {Step.REACTION}, RE.check_reaction, RE.do_reaction_move, needs=("unit", "path")),
    _h("penetrate", {Step.REACTION}, RE.check_reaction, RE.do_reaction_move, needs=("unit", "path")),
    _h("night_march", {Step.REACTION}, X.check_night_march, procedure=X.roll_night_march,
       finish=X.finish_night_march),
    _h("night_move", {Step.REACTION}, X.check_night_move, X.do_night_move, needs=("unit", "path")),
    _h("withdraw", {Step.COMBAT}, X.check_withdraw, X.do_withdraw, needs=("unit",)),
    _h("declare", {Step.COMBAT}, B.check_declare, B.do_declare),
    _h("resolve", {Step.COMBAT}, B.check_resolve, procedure=B.resolve, finish=B.finish_resolve, needs=("index",)),
    _h("rally", {Step.NIGHT_OPS}, RL.check_rally, procedure=RL.rally_procedure, finish=_rally_then_night),
    _h("roll_sudden_death", {Step.SUDDEN_DEATH}, _ok, procedure=P.roll_sudden_death, finish=P.finish_sudden_death),
    _h("end_phase", {Step.SETUP, Step.MOVEMENT, Step.REACTION, Step.COMBAT, Step.NIGHT_OPS}, P.check_end_phase,
       P.do_end_phase),
])
assert set(HANDLERS) == set(KINDS), "every action kind has its handler"

#: step -> the kinds possible in it (4.0)
STEP_KINDS: dict[str, frozenset[str]] = {
    s: frozenset(k for k, h in HANDLERS.items() if s in h.steps) for s in Step if s != Step.OVER}

_EMPTY = {"unit": None, "hex": None, "path": (), "battles": (), "units": (), "index": None}


def check(state: GameState, a: Action) -> None:
    """Raise :class:`RuleViolation` (naming the rule) if ``a`` may not be played now; nothing changes."""
    if state.result is not None:
        raise RuleViolation("15.0", f"the game is over ({state.result[0]}, {state.result[2]})")
    s = state.step
    allowed = STEP_KINDS[s]
    if a.kind not in allowed:
        raise RuleViolation("4.0", f"{a.kind} is not possible in the {s} phase (possible: {', '.join(sorted(allowed))})")
    h = HANDLERS[a.kind]
    for f in h.needs:
        if getattr(a, f) == _EMPTY[f]:
            raise RuleViolation(h.rule.split(" ")[0], f"a {a.kind} action needs its {f!r}")
    units = state.scenario.units
    if a.unit is not None and a.unit not in units:
        raise RuleViolation("2.0", f"there is no unit {a.unit!r} in this scenario")
    for uid in a.units:
        if uid not in units:
            raise RuleViolation("2.0", f"there is no unit {uid!r} in this scenario")
    if s == Step.MOVEMENT:
        if state.release_due and a.kind != "pick_released":
            raise RuleViolation("6.10", "first pick a Units Released counter (Bussaco turn 1)")
        if state.fieldworks_left and a.kind not in ("place_fieldworks", "end_phase"):
            raise RuleViolation("14.2", "place the Fieldworks markers first (or end the placement)")
    h.check(state, a)
    if s == Step.MOVEMENT and h.do is not None and a.kind != "end_phase" and _may_leave_a_stack(state, a):
        M.check_stacks_can_part(state, h.do(state, a))      # 6.9: every stack must still be able to part


def _may_leave_a_stack(state: GameState, a: Action) -> bool:
    """Whether ``a`` could leave a stack unable to part (6.9), so that its result must be looked at. A move
    that ends on a friend is offered only when that friend can move on (:func:`.movement.destinations`);
    while a stack stands, a move matters only if it takes a stacked unit's last way out; on Bussaco's turn 1
    every allied move counts against the Units Released counter (6.10)."""
    stacked = M.stacks(state)
    if state.release_left is not None and state.player == Side.ALLIED:
        return bool(stacked) or (a.kind == "move" and bool(a.path) and a.path[-1] in state.occupants)
    if not stacked:
        return False
    if a.kind != "move" or not a.path or a.unit is None:
        return True
    return M.could_trap_a_stack(state, a.unit, a.path[-1])


def perform(state: GameState, a: Action):
    """The rules procedure of a checked action: random kinds yield their requests; every kind returns the
    new state after :func:`~.phases.settle` (victory by Morale, steps with nothing to decide skipped)."""
    h = HANDLERS[a.kind]
    if h.procedure is None:
        return P.settle(h.do(state, a))
    result = yield from h.procedure(state, a)
    return P.settle(h.finish(state, a, result))


# ------------------------------------------------------------------------------------------------
# Candidates: what is worth trying in a state (the protocol keeps those that pass check)
# ------------------------------------------------------------------------------------------------
def candidates(state: GameState, unit: str | None = None) -> list[Action]:
    """The actions to try in ``state`` (``unit``: only that unit's). Moves list each reachable hex with
    its cheapest path; end_phase is always tried (its check says when the phase may end)."""
    if state.over:
        return []
    s = state.step
    fn = _CANDIDATES.get(s)
    out = fn(state, unit) if fn else []
    if s in HANDLERS["end_phase"].steps:
        out.append(Action("end_phase"))
    return out


def _setup(state, unit):
    out = []
    for z in state.scenario.spec.zones:
        for uid in z.units:
            if (unit and uid != unit) or state.unit(uid).status != Status.MAP:
                continue
            for h in S.zone_hexes(state, z):
                if h != state.unit(uid).hex and S.can_place(state, uid, h, z):
                    out.append(Action("place", unit=uid, hex=h))
    return out


def _single(kind):
    return lambda state, unit: [Action(kind)]


def _movement(state, unit):
    if X.needs_release_pick(state):
        return [Action("pick_released")]
    if state.fieldworks_left:
        return [Action("place_fieldworks", hex=h) for _, h in X.fieldworks_candidates(state)]
    out = []
    sc = state.scenario
    side = state.player
    if not unit:
        if X.fieldworks_possible(state):
            out.append(Action("fieldworks"))
        if not state.forced_march and M.any_unmoved(state):
            out.append(Action("forced_march"))
        if X.orderly_withdrawal_possible(state):
            out.append(Action("orderly_withdrawal"))
    for u in state.units:
        if (unit and u.id != unit) or u.moved or u.status not in (Status.MAP, Status.DUE) \
                or sc.units[u.id].side != side:
            continue
        try:
            M.check_can_move(state, u.id)
        except RuleViolation:
            continue
        for h, r in sorted(M.destinations(state, u.id).items()):
            out.append(Action.move("move", u.id, r.path))
        if state.has("squares") and u.status == Status.MAP and M.can_square(state, u.id):
            out.append(Action("form_square", unit=u.id))
        if state.has("breakdown") and u.status == Status.MAP and M.can_break_down(state, u.id):
            out.append(Action("breakdown", unit=u.id))
    if state.has("squares"):                                    # 17.1: square after a move, a point left
        for u in state.units:
            if u.moved and u.mp_left and (not unit or u.id == unit) and sc.units[u.id].side == side \
                    and M.can_square(state, u.id):
                out.append(Action("form_square", unit=u.id))
    for uid in state.arrived:                                   # 16.1.3
        if unit and uid != unit:
            continue
        dummies = M.free_dummies(state, sc.units[uid].side)
        if dummies:
            out.append(Action("add_dummy", unit=uid, units=(dummies[0],)))
    return out


def _reaction(state, unit):
    out = []
    if state.night_march_left is not None:
        if state.night_march_left > 0:
            sc = state.scenario
            if not unit and not state.night_march_forced:
                out.append(Action("forced_march"))                     # 14.1 with 12.3
            for u in on_map_units(state, Side.FRENCH):
                if (unit and u.id != unit) or u.id in state.night_marched or sc.units[u.id].type == "leader":
                    continue
                for h, r in sorted(search_moves(state, u.id).items()):
                    out.append(Action.move("night_move", u.id, r.path))
        return out
    if state.night:
        return [Action("night_march")] if X.night_march_possible(state) else []
    return RE.candidates(state, unit)


def _combat(state, unit):
    if state.declared is None:
        out = []
        if not state.withdrew:
            out += [Action("withdraw", unit=uid) for uid in X.withdraw_candidates(state)]
        out += [a for a in C.declaration_options(state) if a.kind != "end_phase"]
        return out
    return [Action("resolve", index=i) for i in range(len(state.declared)) if i not in state.done_battles]


def _night_ops(state, unit):
    broken = tuple(RL.rally_candidates(state))
    if not broken:
        return []
    return [Action("rally", units=broken), Action("rally", units=broken, spend=True)]


_CANDIDATES = {Step.SETUP: _setup, Step.BESSIERES: _single("roll_bessieres"), Step.EVENT: _single("draw_event"),
               Step.SUDDEN_DEATH: _single("roll_sudden_death"), Step.MOVEMENT: _movement,
               Step.REACTION: _reaction, Step.COMBAT: _combat, Step.NIGHT_OPS: _night_ops}
