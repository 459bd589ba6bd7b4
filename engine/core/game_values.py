"""The values every game shares (issue 27.6: split from :mod:`engine.core.game`): how a game ended
(:class:`Outcome`), where it stands (:class:`Position`), where an action happens (:class:`Places`), the
one seeding rule (:func:`action_seed`, :class:`EventDice`) and the one dice parser of the CLIs. Imports no
other module of the game layer, so each of them may import this one."""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .errors import VedetteError
from .procedure import ChanceRequest, Choose, RandomDice

__all__ = ["MAX_ACTIONS", "S", "A", "Options", "Dice", "Chooser", "Outcome", "Position", "Places", "other_side",
           "action_seed", "EventDice", "ChanceSoFar", "first_option", "parse_dice"]

#: A game loop stops after this many actions even when no one has won (a bot that never ends a phase).
MAX_ACTIONS = 20000

S = TypeVar("S")   #: a system's game state (a value)
A = TypeVar("A")   #: a system's action (a value)
#: a game's options: names (each with the rule it implements), or names with values
Options = Sequence[str] | Mapping[str, Any]
#: where a procedure's chance requests get their answers, and its choices
Dice = Callable[[ChanceRequest], Hashable]
Chooser = Callable[[Choose], Hashable]


# ------------------------------------------------------------------------------------------------
# Value types
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """How a game ended, like python-chess's ``Outcome``: the winner (``None`` for a draw), the victory
    level in the scenario's words (``"decisive"``, ``"marginal"`` ...), why, and the rule that decides."""

    winner: str | None
    level: str = ""
    reason: str = ""
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "level": self.level, "reason": self.reason, "rule": self.rule}

    def __str__(self) -> str:
        who = f"{self.winner} win" if self.winner else "draw"
        lvl = f" ({self.level})" if self.level else ""
        why = f": {self.reason}" if self.reason else ""
        return f"{who}{lvl}{why}"


@dataclass(frozen=True, order=True)
class Position:
    """Where a game stands, for indexes, jumps in replay and simulations: game turn and phase."""

    turn: int
    phase: str = ""

    def __str__(self) -> str:
        return f"turn {self.turn}" + (f", {self.phase}" if self.phase else "")


@dataclass(frozen=True)
class Places:
    """Where an action happens, for boards and pages (so no page reads an action's JSON to find it).

    ``pieces``: the ids of the pieces the action moves, fires with, commits or picks (units, blocks,
    leaders); ``origin``: the places those pieces stand on (hexes, areas, zones); ``targets``: the places
    it moves to, attacks or affects (for a move, the last one is where it ends); ``path``: the places a
    move passes through, in order, its end included. Each is a tuple of the ids the system's board uses."""

    pieces: tuple[str, ...] = ()
    origin: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    path: tuple[str, ...] = ()

    def all(self) -> frozenset[str]:
        """Every place named (origin, targets and path)."""
        return frozenset(self.origin) | frozenset(self.targets) | frozenset(self.path)


def other_side(sides: Sequence[str], side: str) -> str:
    """The opponent of ``side`` among the two ``sides`` of a game."""
    a, b = sides
    if side == a:
        return b
    if side == b:
        return a
    raise VedetteError(f"unknown side {str(side)[:20]!r}; sides are {str(a)!r} and {str(b)!r}")


def action_seed(seed: int, index: int) -> int:
    """The one seeding rule: the computer's dice for event ``index`` of a game seeded ``seed`` come from
    ``RandomDice(action_seed(seed, index))``, so a game's dice do not depend on what ran before it, on the
    number of workers of a simulation, or on whether earlier events were typed in."""
    h = hashlib.blake2b(f"vedette:{int(seed)}:{int(index)}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big")


class ChanceSoFar(Protocol):
    """An action under way, as :meth:`EventDice.resumed` sees it (:class:`~engine.core.protocol.Pending`)."""

    def answered_chance(self) -> list[ChanceRequest]: ...


class EventDice(RandomDice):
    """``RandomDice(action_seed(seed, index))``, the seed worked out at the first die only (an action that
    asks for none, as most do, costs neither the hash nor the seeding): the same dice either way."""

    def __init__(self, seed: int, index: int) -> None:
        super().__init__(None)
        self._game_seed = seed
        self._index = index

    def _seed_value(self) -> int:
        return action_seed(self._game_seed, self._index)

    @classmethod
    def resumed(cls, seed: int, index: int, pending: ChanceSoFar | None) -> EventDice:
        """The dice of event ``index`` part-way through ``pending``: the same stream, past one draw for each
        chance request the action has answered so far (whoever answered it). An action whose dice stopped
        for a player's choice then rolls on as if it had been played in one run, as ``vedette GAME act``
        and :func:`play_game` play it: the rounds of a multi-round combat do not repeat the first round's
        dice."""
        dice = cls(seed, index)
        if pending is not None:
            for req in pending.answered_chance():
                dice(req)
        return dice


def first_option(req: Choose) -> Hashable:
    """The first option of a choice (the chooser when none is given)."""
    return req.options[0]


def parse_dice(text: str | None) -> list[int] | None:
    """``"3,5,1"`` -> ``[3, 5, 1]`` (the one dice parser of every CLI); each face is checked later
    against the request it answers."""
    if text is None:
        return None
    out = []
    for i, part in enumerate(p.strip() for p in str(text).split(",")):
        if not part:
            continue
        try:
            out.append(int(part))
        except ValueError:
            raise VedetteError(f"--dice: item {i + 1} is {part[:20]!r}, expected a whole number "
                               "(comma-separated die faces, e.g. 3,5,1)") from None
    return out
