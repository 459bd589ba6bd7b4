"""The Napoleonic 20 game API of before the core protocol, kept as thin wrappers over it
(:class:`~engine.n20.game.protocol.N20Rules`), so the dashboards, notebooks and scripts keep working:

* :func:`new_game` builds the first state of a scenario;
* :func:`legal_actions` lists what the player to act may do (``unit``: one unit's actions);
* :func:`apply` returns the next state, or raises :class:`RuleViolation` naming the rule broken;
* :func:`begin` starts an action to be answered one request at a time (typed dice, a person's choices).

The rules themselves live in one module per chapter (:mod:`.setup`, :mod:`.movement`, :mod:`.reaction`,
:mod:`.battles` and :mod:`.combat`, :mod:`.rally`, :mod:`.phases`, :mod:`.victory`, :mod:`.exclusive`),
with one handler per action kind (:mod:`.handlers`). Without dice given, an action's dice come from the
core seeding rule (:func:`engine.core.game.action_seed`) for the game's seed and the action's index in the
game, counted by the caller (``index``; 0 by default).
"""
from __future__ import annotations

from functools import partial

from engine.core.errors import RecordError, VedetteError
from engine.core.game import Pending as CorePending, action_seed, apply_event as core_apply_event
from engine.core.procedure import RandomDice, first_option, replay as replay_procedure

from .actions import Action
from .handlers import HANDLERS
from .protocol import N20Rules, action_from_json
from .setup import new_game
from .state import GameState
from .turn import actor
from .victory import end_of_game, supply_path
from .rally import rally_hexes
# names the tests and older scripts import from here
from .exclusive import fieldworks_possible as _fieldworks_possible, needs_release_pick as _needs_release_pick, \
    night_march_possible as _night_march_possible
from .movement import check_can_move as _check_can_move, reach as _reach
from .phases import end_combat as _end_combat, lull as _lull, night_operations as _night_operations, \
    settle as _settle
from .victory import check_victory as _check_victory

__all__ = ["new_game", "legal_actions", "apply", "apply_logged", "begin", "actor", "Pending", "end_of_game",
           "supply_path", "rally_hexes", "RULES"]

#: the protocol's rules, shared by the wrappers (they hold no game state)
RULES = N20Rules()


def legal_actions(state: GameState, unit: str | None = None) -> list[Action]:
    """Every legal action of the side to act (moves list each reachable hex with its cheapest path):
    the protocol's candidates that pass its check. ``unit`` restricts the list to one unit's actions."""
    return RULES.legal_actions(state, unit)


class Pending:
    """An action under way, one question at a time, over the core :class:`~engine.core.game.Pending`
    value: ``pending`` is the request waiting, :meth:`answer` gives it, and once ``done`` the new state is
    ``state``. Deterministic actions are done at once. (``core`` is the current core value.)"""

    def __init__(self, state: GameState, action: Action, index: int = 0):
        self.before = state
        self.action = action
        self.index = index
        self.core = CorePending.start(RULES, state, action)

    @property
    def done(self) -> bool:
        return self.core.done

    @property
    def state(self) -> GameState | None:
        return self.core.state if self.core.done else None

    @property
    def pending(self):
        return self.core.request

    @property
    def events(self):
        return self.core.events

    def answer(self, value) -> None:
        self.core = self.core.answer(value)

    def run(self, dice=None, chooser=first_option) -> GameState:
        if not self.core.done:
            if dice is None:
                dice = RandomDice(action_seed(self.before.seed, self.index))
            self.core = self.core.run(dice, chooser)
        return self.core.state

    def record_event(self) -> dict:
        return self.core.event()

    @property
    def _step(self):
        """The action's own procedure played again on the answers given so far (``_step.result``: what
        the procedure returned, e.g. a battle's outcome), for tests and older scripts; None for a
        deterministic action."""
        h = HANDLERS[self.action.kind]
        if h.procedure is None:
            return None
        return replay_procedure(partial(h.procedure, self.before, self.action), self.core.events)


def begin(state: GameState, action: Action | dict, index: int = 0) -> Pending:
    """Start an action for step-by-step answering (checked first: an illegal one raises at once)."""
    return Pending(state, action_from_json(action) if not isinstance(action, Action) else action, index)


def apply(state: GameState, action: Action | dict, dice=None, chooser=first_option, index: int = 0) -> GameState:
    """The state after ``action``. Dice come from ``dice`` (a core dice source: ``RandomDice``,
    ``TypedDice``) or, by default, the core seeding rule for the game's seed and ``index``; choices inside
    procedures (reserves, retreat paths, advances, rally hexes) from ``chooser``."""
    return begin(state, action, index).run(dice, chooser)


def apply_logged(state: GameState, action: Action | dict, dice=None, chooser=first_option,
                 answers=None, index: int = 0) -> tuple[GameState, dict]:
    """Like :func:`apply`, also returning the record event (the action and every die and choice).
    With ``answers`` (recorded events) the action is replayed from them instead (the core replay)."""
    a = action_from_json(action) if not isinstance(action, Action) else action
    if answers is not None:
        ev = {"kind": "action", "action": a.to_json(), "answers": list(answers)}
        new = core_apply_event(RULES, state, ev)
        return new, {"kind": "action", "rule": RULES.rule_of(a), "side": actor(state), "action": a.to_json(),
                     "answers": list(answers)}
    p = begin(state, a, index)
    p.run(dice, chooser)
    return p.state, p.record_event()
