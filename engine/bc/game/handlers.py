"""One handler per action kind: what the kind checks (before any card, changing nothing) and what it does (a
rules procedure returning the new position). :func:`check` and :func:`perform` dispatch on :data:`HANDLERS`;
:data:`ALLOWED` says which kinds each phase allows (everything else is refused naming the phase's rule).

A check runs the very procedure the action's perform runs, on a dry driver (:func:`~.dry.dry_run`), wherever
the rules decide inside it, so legality has one source.
"""
from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from engine.core.errors import RuleViolation

from ..deck import Deck
from . import attacks as AT
from . import orders as O
from . import phases as P
from . import rally as RL
from . import reform as RF
from . import reinforcements as RE
from . import retreat as R
from .actions import BcAction, Kind
from .state import BcState
from .types import PHASE_RULE, Phase

__all__ = ["Handler", "HANDLERS", "ALLOWED", "check", "perform"]


@dataclass(frozen=True)
class Handler:
    """How one action kind is played: ``check(state, action, deck)`` raises a :class:`RuleViolation` naming
    the rule, ``perform(state, action, deck)`` is the procedure that returns the new position."""

    kind: Kind
    check: Callable[[BcState, Any, Deck], None]
    perform: Callable[[BcState, Any, Deck], Generator]


def _ok(st: BcState, a: BcAction, deck: Deck) -> None:
    return None


HANDLERS: dict[str, Handler] = {h.kind: h for h in (
    Handler(Kind.START_TURN, _ok, P.do_start_turn),
    Handler(Kind.DRAW, _ok, P.do_draw),
    Handler(Kind.MOVE, O.check_move, O.do_move),
    Handler(Kind.READY_ARMS, O.check_ready_arms, O.do_ready_arms),
    Handler(Kind.IN_RESERVE, O.check_in_reserve, O.do_in_reserve),
    Handler(Kind.PASS, _ok, P.do_pass),
    Handler(Kind.GOLD, O.check_gold, O.do_gold),
    Handler(Kind.REINFORCE, RE.check_reinforce, O.do_reinforce),
    Handler(Kind.PURCHASE, O.check_purchase, O.do_purchase),
    Handler(Kind.RALLY, RL.check_rally, RL.do_rally),
    Handler(Kind.ARMY_RALLY, RL.check_army_rally, RL.do_army_rally),
    Handler(Kind.ATTACK, AT.check_attack, AT.do_attack),
    Handler(Kind.COMBAT_MOVE, AT.check_combat_move, AT.do_combat_move),
    Handler(Kind.ADVANCE, AT.check_advance, AT.do_advance),
    Handler(Kind.FACE, RF.check_reform, RF.do_face),
    Handler(Kind.SWAP, RF.check_reform, RF.do_swap),
    Handler(Kind.FORMATION, RF.check_reform, RF.do_formation),
    Handler(Kind.DONE, RF.check_done, RF.do_done),
    Handler(Kind.GIVE_GROUND, R.check_give_ground, R.do_give_ground),
    Handler(Kind.SURRENDER, R.check_surrender, R.do_surrender),
)}
assert set(HANDLERS) == set(Kind), "every action kind has its handler"

#: which action kinds each phase allows
ALLOWED: dict[str, tuple[Kind, ...]] = {
    Phase.PREPARE: (Kind.START_TURN,),
    Phase.DRAW: (Kind.DRAW,),
    Phase.ORDER: (Kind.MOVE, Kind.READY_ARMS, Kind.IN_RESERVE, Kind.PASS),
    Phase.REACTION: (Kind.MOVE, Kind.READY_ARMS, Kind.PASS),
    Phase.GOLD: (Kind.GOLD,),
    Phase.YELLOW_REINF: (Kind.REINFORCE,),
    Phase.YELLOW_BUY: (Kind.PURCHASE, Kind.PASS),
    Phase.YELLOW_RALLY: (Kind.RALLY, Kind.ARMY_RALLY, Kind.PASS),
    Phase.RED: (Kind.ATTACK, Kind.COMBAT_MOVE, Kind.PASS),
    Phase.ADVANCE: (Kind.ADVANCE,),
    Phase.REFORM: (Kind.FACE, Kind.SWAP, Kind.FORMATION, Kind.DONE),
    Phase.GIVE_GROUND: (Kind.GIVE_GROUND, Kind.SURRENDER, Kind.PASS),
    Phase.OVER: (),
}
_WHAT = {Phase.ORDER: "a {cube} cube allows a Move Order, Ready Arms, In Reserve or a Pass (18.0)",
         Phase.RED: "a Red cube allows attacks and passes (23.0)",
         Phase.YELLOW_RALLY: "a Yellow cube's rally step allows rallies and passes (20.0)"}


def check(st: BcState, a: BcAction, deck: Deck) -> None:
    """Raise :class:`RuleViolation` (naming the rule) if ``a`` may not be played in ``st``; nothing changes."""
    if not isinstance(a, BcAction):
        raise RuleViolation("16.2", f"not a Battle Commander action: {a!r}")
    try:
        _check(st, a, deck)
    except KeyError as exc:
        raise RuleViolation("5.0", f"unknown Zone, Block or HQ {exc}") from None


def _check(st: BcState, a: BcAction, deck: Deck) -> None:
    if st.phase == Phase.OVER:
        raise RuleViolation("16.3", "the game is over")
    if a.side != st.actor:
        raise RuleViolation(PHASE_RULE[st.phase], f"it is {st.actor}'s action now ({st.phase}), not {a.side}'s")
    if a.kind not in ALLOWED[st.phase]:
        what = _WHAT[st.phase].format(cube=st.cube) if st.phase in _WHAT else \
            f"the {st.phase} step allows {', '.join(ALLOWED[st.phase]) or 'nothing'}"
        raise RuleViolation(PHASE_RULE[st.phase], f"{a.kind} is not allowed now: {what}")
    HANDLERS[a.kind].check(st, a, deck)


def perform(st: BcState, a: BcAction, deck: Deck):
    """The rules procedure of a checked action, then the bookkeeping every action ends with (facings, flag
    control, Demoralisation: :func:`~.phases.after`)."""
    st = yield from HANDLERS[a.kind].perform(st, a, deck)
    return P.after(st)
