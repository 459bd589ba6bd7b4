"""Named types of a These Brave Fellows game: the two sides, the segments of an impulse (3.3 B) and what a
piece's status may be (4.2.4 fatigue, 6.7 rout, 6.5 leader casualties, 8.3 B the Elite disbanded).

Each is a :class:`~enum.StrEnum` whose members compare equal to, hash as, format as and are written to JSON
as the strings the records and data files have always held (``"french"``, ``"defensive_fire"``,
``"fatigued"``), and whose ``repr`` is that string's: exact odds sort their outcomes by ``repr``, so a
position holding a member sorts where one holding the plain string did.
"""
from __future__ import annotations

from enum import StrEnum

from engine.core.game import other_side

__all__ = ["Word", "Side", "Segment", "Status", "SIDES", "SEGMENTS", "SEGMENT_RULE", "LIVE", "GONE", "ACTING",
           "other"]


class Word(StrEnum):
    """A StrEnum that is its string in every way a record or a sort can see (its repr included)."""

    def __repr__(self) -> str:
        return repr(self._value_)


class Side(Word):
    FRENCH = "french"
    COALITION = "coalition"


class Segment(Word):
    """The segments of an impulse, in the order they run (3.3 B)."""

    MOVEMENT = "movement"                  # 6.2
    DEFENSIVE_FIRE = "defensive_fire"      # 6.3.1 A
    OFFENSIVE_FIRE = "offensive_fire"      # 6.3.1 B
    MELEE = "melee"                        # 6.4

    @property
    def words(self) -> str:
        """The segment as a player names it ("defensive fire")."""
        return self.value.replace("_", " ")


class Status(Word):
    """Where a unit or leader stands (on the map or out of it)."""

    NORMAL = "normal"
    FATIGUED = "fatigued"                  # 4.2.4
    ROUTED = "routed"                      # 6.7
    ELIMINATED = "eliminated"              # 6.3.7 F, 6.4 H, 6.7 D, 6.7 H
    SURRENDERED = "surrendered"            # 4.1.8 B, 6.2.8 F, 6.6 C, 6.7 J
    KILLED = "killed"                      # 6.5 A (leaders)
    CAPTURED = "captured"                  # 6.3.5, 6.5 C (leaders)
    WOUNDED = "wounded"                    # 6.5 A (leaders, out for 2d6 turns)
    DISBANDED = "disbanded"                # 8.3 B (the Elite battalion)


#: The two sides in the order every list of them uses (French first).
SIDES: tuple[Side, Side] = (Side.FRENCH, Side.COALITION)
#: The segments in order (3.3 B) and the rule of each.
SEGMENTS: tuple[Segment, ...] = tuple(Segment)
SEGMENT_RULE = {Segment.MOVEMENT: "6.2", Segment.DEFENSIVE_FIRE: "6.3.1 A", Segment.OFFENSIVE_FIRE: "6.3.1 B",
                Segment.MELEE: "6.4"}
#: A unit on the map and in the fight (stacking 4.1, fronts 4.3 C, targets of fire and melee).
LIVE: tuple[Status, ...] = (Status.NORMAL, Status.FATIGUED, Status.ROUTED)
#: A unit that may act: move, fire (4.2.4 C: fatigued only defensively), melee.
ACTING: tuple[Status, ...] = (Status.NORMAL, Status.FATIGUED)
#: Out of the game, for now or for good.
GONE: tuple[Status, ...] = (Status.ELIMINATED, Status.SURRENDERED, Status.KILLED, Status.CAPTURED, Status.WOUNDED)

_OTHER: dict[str, Side] = {Side.FRENCH: Side.COALITION, Side.COALITION: Side.FRENCH}


def other(side: str) -> Side:
    """The opponent of ``side``."""
    try:
        return _OTHER[side]
    except KeyError:
        return Side(other_side(SIDES, side))        # raises, naming the two sides
