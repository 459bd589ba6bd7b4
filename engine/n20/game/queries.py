"""What bots and boards ask of a Napoleonic 20 position: one public, typed query surface over the rule
chapters (where a unit may move and with what allowance, whose ZOC covers what, who may or must attack
whom), so that no bot, board or page reads a rules module's private names or a state's internals.

Every query reads a :class:`~engine.n20.game.state.GameState` and returns values; none changes it. The
answers are the rules' own (the same functions the checks run), so a board never shows a move the rules
would refuse, nor hides one they allow.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.core.errors import RuleViolation
from engine.core.game import Places

from .actions import KINDS, Action
from .combat import bombards, enemy_targets, fighters, hex_of, mandatory_battles, required_defenders
from .movement import check_can_move, destinations, free_dummies
from .rally import rally_hexes
from .reach import Reach, movement_allowance
from .state import GameState
from .types import Step, other
from .zoc import combat_adjacent, enemy_zoc

__all__ = ["Reach", "BattleOptions", "may_move_now", "reachable", "movement_left", "zoc_hexes", "battle_options",
           "fighting_units", "attack_targets", "place_of", "can_attack", "places"]


def may_move_now(state: GameState, unit: str) -> bool:
    """Whether ``unit`` may start a move now: a movement phase (6.0) or a Fuentes night march (14.1), the
    unit its side's, not moved yet (6.4), able to enter or leave where it is (11.7, 14.2, 6.10)."""
    if state.over or not (state.step == Step.MOVEMENT or (state.step == Step.REACTION and state.night_march_left)):
        return False      # reactions (8.x) are listed by the legal actions: disengagement is no ordinary move
    try:
        check_can_move(state, unit)
    except RuleViolation:
        return False
    return True


def reachable(state: GameState, unit: str) -> dict[str, Reach]:
    """Where ``unit`` may end a move this phase: ``{hex: Reach}`` with the Movement Points spent and the
    cheapest legal path (a reinforcement's path starts at its entry hex, 11.1). Empty when the unit may
    not move now (:func:`may_move_now`)."""
    if not may_move_now(state, unit):
        return {}
    return destinations(state, unit)


def movement_left(state: GameState, unit: str) -> int:
    """The Movement Points ``unit`` may still spend this phase: its allowance (6.2, with 12.3 forced march,
    14.0 night, 16.8.3 fatigue, 17.1 leaving a square costs the first point) while it may move now, else 0
    (it has moved, 6.4, or may not move in this step)."""
    if not may_move_now(state, unit):
        return 0
    allowance = movement_allowance(state, unit)
    if state.unit(unit).square:
        allowance -= 1                                          # 17.1
    return max(allowance, 0)


def zoc_hexes(state: GameState, side: str) -> frozenset[str]:
    """The hexes in the ZOC of ``side``'s units and garrisons (7.0, 9.4.4): what its enemies must respect."""
    return enemy_zoc(state, other(side))


@dataclass(frozen=True)
class BattleOptions:
    """What the combat phase asks of the phasing player (9.1-9.2.2): the units that must attack (9.1, in an
    enemy ZOC), the enemies that must be attacked (7.3, 9.1.1), and for each of its fighting units the
    enemies it could attack (9.2.2 adjacency; garrisons as ``garrison:<hex>``, 9.4.4)."""

    must_attack: tuple[str, ...]
    must_be_attacked: tuple[str, ...]
    adjacent: Mapping[str, tuple[str, ...]]

    def to_json(self) -> dict:
        return {"must_attack": list(self.must_attack), "must_be_attacked": list(self.must_be_attacked),
                "adjacent": {k: list(v) for k, v in self.adjacent.items()}}


def battle_options(state: GameState) -> BattleOptions:
    """The combat phase's obligations and possible pairings for the phasing player (see :class:`BattleOptions`)."""
    side = state.player
    targets = enemy_targets(state, side)
    adjacent = {}
    for u in fighters(state, side):
        adjacent[u.id] = tuple(e for e in targets if combat_adjacent(state, u.hex, hex_of(state, e)))
    return BattleOptions(tuple(sorted(mandatory_battles(state))), tuple(sorted(required_defenders(state, side))),
                         MappingProxyType(adjacent))


def fighting_units(state: GameState, side: str) -> tuple[str, ...]:
    """The ids of ``side``'s units on the map that can take part in a battle (leaders never fight, 16.9)."""
    return tuple(u.id for u in fighters(state, side))


def attack_targets(state: GameState, side: str) -> tuple[str, ...]:
    """What ``side`` may attack: enemy units on the map, and enemy garrisons alone in their hex (9.4.4)."""
    return tuple(enemy_targets(state, side))


def place_of(state: GameState, piece: str) -> str | None:
    """The hex of a unit on the map, or of a garrison (``garrison:<hex>``); None for a unit off the map."""
    return hex_of(state, piece)


def can_attack(state: GameState, attacker: str, defender: str) -> bool:
    """``attacker`` may be declared against ``defender`` (9.2.2: adjacent for combat, 7.0 and 9.4.3; or
    bombarding across a hexside it could not cross, 16.3.2)."""
    a, d = hex_of(state, attacker), hex_of(state, defender)
    if a is None or d is None:
        return False
    return combat_adjacent(state, a, d) or bombards(state, attacker, defender)


# ------------------------------------------------------------------------------------------------
# The pieces and places of an action (core Places), one entry per kind
# ------------------------------------------------------------------------------------------------
def _hexes(state: GameState, ids) -> tuple[str, ...]:
    return tuple(h for x in ids if (h := hex_of(state, x)) is not None)


def _none(state: GameState, a: Action) -> Places:
    return Places()


def _place(state: GameState, a: Action) -> Places:                 # 18.1
    return Places((a.unit,), _hexes(state, (a.unit,)), (a.hex,))


def _move(state: GameState, a: Action) -> Places:                  # 6.0, 8.3, 14.1, 16.2
    # the path as the action gives it: the start first (a reinforcement's entry hex, 11.1), the end last
    return Places((a.unit,), _hexes(state, (a.unit,)), (a.path[-1],) if a.path else (), tuple(a.path))


def _in_place(state: GameState, a: Action) -> Places:              # 17.1, 16.6.1
    here = _hexes(state, (a.unit,))
    return Places((a.unit,), here, here)


def _off_map(state: GameState, a: Action) -> Places:               # 12.7 A: it marches off
    return Places((a.unit,), _hexes(state, (a.unit,)))


def _add_dummy(state: GameState, a: Action) -> Places:             # 16.1.3
    if a.unit is None:                                             # as the enemy knows it: the hex only
        return Places((), (), (a.hex,) if a.hex else ())
    here = _hexes(state, (a.unit,))
    dummies = a.units or tuple(free_dummies(state, state.scenario.units[a.unit].side)[:1])
    return Places((a.unit,) + tuple(dummies), here, here)


def _fieldworks(state: GameState, a: Action) -> Places:            # 14.2
    builders = tuple(x for x in state.occupants.get(a.hex, ()) if state.scenario.units[x].type != "leader")
    return Places(builders, (a.hex,), (a.hex,))


def _battles(state: GameState, battles) -> Places:                 # 8.2, 9.2
    attackers = tuple(x for b in battles for x in b.attackers)
    defenders = tuple(x for b in battles for x in b.defenders)
    return Places(attackers, _hexes(state, attackers), _hexes(state, defenders))


def _resolve(state: GameState, a: Action) -> Places:               # 9.0
    if state.declared is None or a.index is None or not 0 <= a.index < len(state.declared):
        return Places()
    return _battles(state, (state.declared[a.index],))


def _rally(state: GameState, a: Action) -> Places:                 # 10.0, 16.4: where rallied units may go
    return Places(tuple(a.units), (), tuple(rally_hexes(state, state.player)))


_PLACES = {
    "place": _place, "roll_bessieres": _none, "draw_event": _none, "pick_released": _none,
    "forced_march": _none, "move": _move, "add_dummy": _add_dummy, "form_square": _in_place,
    "breakdown": _in_place, "fieldworks": _none, "place_fieldworks": _fieldworks, "orderly_withdrawal": _none,
    "countercharge": lambda state, a: _battles(state, a.battles), "disengage": _move, "penetrate": _move,
    "night_march": _none, "night_move": _move, "withdraw": _off_map,
    "declare": lambda state, a: _battles(state, a.battles), "resolve": _resolve, "rally": _rally,
    "roll_sudden_death": _none, "end_phase": _none,
}
assert set(_PLACES) == set(KINDS), "every action kind has its places"


def places(state: GameState, action: Action) -> Places:
    """The pieces and places ``action`` concerns in ``state`` (core :class:`~engine.core.game.Places`): the
    units it moves, forms, commits or fights with, the hexes they stand on, the hexes it moves to, attacks
    or affects (rally hexes for a rally, 10.0), and a move's path (start first, end last). Works on a side's
    view too (face-down counters by their tokens, :mod:`.view`)."""
    return _PLACES[action.kind](state, action)
