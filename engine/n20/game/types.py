"""Named types of a Napoleonic 20 game: the two sides, the steps of the sequence of play (4.0), where a
counter is, the fate of a unit after a battle, and the ids of the intrinsic garrisons (9.4.4).

Each is a :class:`~enum.StrEnum`, so a value compares equal to (and writes to JSON as) the string the
records and the data files have always used (``"french"``, ``"movement"``, ``"broken"`` ...).
"""
from __future__ import annotations

from enum import StrEnum

from engine.core.game import other_side

__all__ = ["Side", "Step", "Status", "Fate", "SIDES", "other", "HIDDEN", "GARRISON_PREFIX", "garrison_id",
           "is_garrison", "garrison_hex"]


class Side(StrEnum):
    FRENCH = "french"
    ALLIED = "allied"


#: The two sides in the order every list of them uses (French first).
SIDES: tuple[str, str] = (Side.FRENCH, Side.ALLIED)


def other(side: str) -> Side:
    """The opponent of ``side`` (the one rule of :func:`engine.core.game.other_side`, looked up)."""
    try:
        return _OTHER[side]
    except KeyError:
        return Side(other_side(("french", "allied"), side))      # raises, naming the two sides


_OTHER = {Side.FRENCH: Side.ALLIED, Side.ALLIED: Side.FRENCH}


class Step(StrEnum):
    """Phases of a player turn (4.0) plus the steps before and after play."""

    SETUP = "setup"                  # 18.1 placement
    BESSIERES = "bessieres"          # 17.2 die before play
    EVENT = "event"                  # 5.0
    MOVEMENT = "movement"            # 6.0
    REACTION = "reaction"            # 8.0 (and the Fuentes 14.1 Night March)
    COMBAT = "combat"                # 9.0
    NIGHT_OPS = "night_ops"          # 14.0
    SUDDEN_DEATH = "sudden_death"    # 4.0
    OVER = "over"                    # 15.0


class Status(StrEnum):
    """Where a counter is."""

    MAP = "map"                      # on the board
    BROKEN = "broken"                # set aside broken, may rally (9.6.1, 10.0)
    LATER = "later"                  # a reinforcement not yet due (11.0)
    DUE = "due"                      # a reinforcement that may enter now (11.0)
    ASIDE = "aside"                  # set aside until an event brings it (exclusive 3.0)
    GONE = "gone"                    # permanently out (destroyed, eliminated, marched off 12.7)
    HIDDEN_OFF = "hidden_off"        # a dummy off the map (16.1.3)
    POOL = "pool"                    # a Cadre not in play (16.5, 16.6)
    UNUSED = "unused"                # a counter the options in force leave out


class Fate(StrEnum):
    """What a battle did to a unit (the battle procedure's fates, 9.0)."""

    HELD = "held"
    WITHDREW = "withdrew"
    ROUTED = "routed"
    BROKEN = "broken"
    DESTROYED = "destroyed"


#: The type a face-down enemy counter has in a side's view (16.1): its scenario entry says no more than
#: its back (engine.n20.game.view)
HIDDEN = "hidden"

#: A garrison (9.4.4) has no counter: battles name it ``garrison:<hex>`` (the record and docs form).
GARRISON_PREFIX = "garrison:"


def garrison_id(hex_: str) -> str:
    return GARRISON_PREFIX + hex_


def is_garrison(uid: str) -> bool:
    return uid.startswith(GARRISON_PREFIX)


def garrison_hex(uid: str) -> str:
    return uid[len(GARRISON_PREFIX):]
