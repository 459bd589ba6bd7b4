"""Named types of a Battle Commander game: the two sides (7.2), the steps of the turn a position can stand in
(16.0-18.0, 23.0, 24.3) and the order-cube colours (8.0).

Each is a :class:`~enum.StrEnum` whose value is the string records and data files have always used, so a
member compares equal to that string, hashes like it and writes to JSON (and ``repr``) as it.
"""
from __future__ import annotations

from enum import StrEnum

from engine.core.game import other_side

from ..cup import SIDE_COLOUR

__all__ = ["Side", "SIDES", "ENEMY", "other", "Phase", "PHASE_RULE", "LEADER_ASSIST", "SIDE_COLOUR", "COLOUR_SIDE"]


class Side(StrEnum):
    """The two armies (7.2: one Army Commander card each)."""

    FRENCH = "french"
    COALITION = "coalition"

    __repr__ = str.__repr__


#: The two sides, French first (the order every list of them uses).
SIDES: tuple[Side, Side] = (Side.FRENCH, Side.COALITION)
#: each side's enemy
ENEMY: dict[str, Side] = {Side.FRENCH: Side.COALITION, Side.COALITION: Side.FRENCH}


def other(side: str) -> Side:
    """The enemy of ``side``; an unknown side is refused (core's :func:`~engine.core.game.other_side`)."""
    try:
        return ENEMY[side]
    except KeyError:
        return Side(other_side(SIDES, side))        # raises, naming the two sides


class Phase(StrEnum):
    """Where the turn stands: what the side to act may do now (each phase allows its own action kinds)."""

    PREPARE = "prepare"              # 16.1 Turn Preparation
    DRAW = "draw"                    # 16.2 an order cube is drawn
    ORDER = "order"                  # 18.0 a Blue or White cube: its owner's order
    REACTION = "reaction"            # 19.2 the enemy's Move Order Reaction
    GOLD = "gold"                    # 18.0 the Gold cube's choice
    YELLOW_REINF = "yellow_reinf"    # 18.0 Yellow cube: reinforcements
    YELLOW_BUY = "yellow_buy"        # 18.0 Yellow cube: purchases
    YELLOW_RALLY = "yellow_rally"    # 20.0 Yellow cube: rallies
    RED = "red"                      # 23.0 Red cube: attacks
    ADVANCE = "advance"              # 25.0 advance after an Assault
    REFORM = "reform"                # 9.2, 9.4 Block management after an order, a rally or an advance
    GIVE_GROUND = "give_ground"      # 24.3, 26.0 the turn's end
    OVER = "over"                    # 16.3, 13.1 the game has ended

    __repr__ = str.__repr__


#: the rule each phase belongs to (refusals name it)
PHASE_RULE: dict[str, str] = {
    Phase.PREPARE: "16.1", Phase.DRAW: "16.2", Phase.ORDER: "18.0", Phase.REACTION: "19.2", Phase.GOLD: "18.0",
    Phase.YELLOW_REINF: "18.0", Phase.YELLOW_BUY: "18.0", Phase.YELLOW_RALLY: "20.0", Phase.RED: "23.0",
    Phase.ADVANCE: "25.0", Phase.REFORM: "9.4", Phase.GIVE_GROUND: "24.3", Phase.OVER: "16.3"}

#: the game option of optional rule 29.6, Leader-assisted Skill Checks (with 29.7, as the rule asks)
LEADER_ASSIST = "leader_assist"

#: 8.0: the side whose order cube each colour is (SIDE_COLOUR the other way)
COLOUR_SIDE: dict[str, Side] = {c: Side(s) for s, c in SIDE_COLOUR.items()}
