"""Units of Lines of Battle (rule 1.2): infantry, cavalry (heavy, light, lancer) and artillery.

A :class:`Unit` is an immutable value; every change (a hit, a move, a square) returns a new one.
Strength is rating minus hits (1.2); a unit with more hits than its rating is eliminated; a single
hit eliminates artillery.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from engine.core.errors import RuleViolation
from engine.core.game import other_side as _core_other_side

__all__ = ["Leader", "Unit", "INF", "CAV", "ART", "Arm", "Side", "Phase", "LeaderStatus", "SIDES", "other_side"]


class Arm(StrEnum):
    """A unit's arm (1.2): infantry, cavalry or artillery; equal to the short names the data files use."""

    INF = "inf"
    CAV = "cav"
    ART = "art"

    __repr__ = str.__repr__


INF, CAV, ART = Arm.INF, Arm.CAV, Arm.ART


class Side(StrEnum):
    """The two sides of Albuera; a value equals, writes to JSON and prints (``repr`` too, so the notes
    of a record word a side as they always did) as the string records always had."""

    FRENCH = "French"
    ALLIED = "Allied"

    __repr__ = str.__repr__


class Phase(StrEnum):
    """Where a LoB game stands: set-up (Albuera option 6), a player's admin and command phases (2, 3), over."""

    SETUP = "setup"
    ADMIN = "admin"
    COMMAND = "command"
    OVER = "over"

    __repr__ = str.__repr__


class LeaderStatus(StrEnum):
    """Where an optional leader (7.1) stands: on the map, or gone (7.1.1 losses, 7.1 capture, 7.1.2 wanderer)."""

    ACTIVE = "active"
    KILLED = "killed"
    WOUNDED = "wounded"
    CAPTURED = "captured"
    WANDERED_OFF = "wandered off"

    __repr__ = str.__repr__


#: The two sides, French first (the order every list of them uses).
SIDES: tuple[str, str] = (Side.FRENCH, Side.ALLIED)
_OTHER: dict[str, Side] = {Side.FRENCH: Side.ALLIED, Side.ALLIED: Side.FRENCH}


def other_side(side: str) -> Side:
    """The opponent of ``side`` (core's one rule, :func:`engine.core.game.other_side`, looked up): an
    unknown side raises instead of being read as the French."""
    try:
        return _OTHER[side]
    except KeyError:
        return Side(_core_other_side(SIDES, side))     # raises, naming the two sides


@dataclass(frozen=True, order=True)
class Unit:
    uid: str
    side: str
    kind: str                    # inf | cav | art
    rating: int = 0              # artillery: 0 (one hit eliminates it; morale value 1, rule 5.3)
    hits: int = 0
    cav: str | None = None       # heavy | light | lancer (cavalry only)
    area: str | None = None      # None once eliminated
    approach: str | None = None  # infantry on the approach facing this area (rule 1.1)
    square: bool = False         # infantry in square (4.2.2)
    deployed: bool = False       # artillery deployed (able to fire) or limbered
    arty: str = "foot"           # foot | horse | heavy | rockets (7.2)
    name: str = ""
    command: tuple = ()          # formation tags a leader can command (7.1)

    # --- 1.2 ------------------------------------------------------------------------------------
    @property
    def strength(self) -> int:
        return self.rating - self.hits

    @property
    def eliminated(self) -> bool:
        if self.kind == ART:
            return self.hits >= 1
        return self.hits > self.rating

    @property
    def morale_value(self) -> int:
        """Morale lost when this unit is eliminated (5.3): its rating, 1 for artillery."""
        return 1 if self.kind == ART else self.rating

    @property
    def is_combat(self) -> bool:
        return self.kind in (INF, CAV)

    @property
    def where(self) -> str:
        """The area the unit stands in (1.1); refused (4.1) once it has been eliminated."""
        if self.area is None:
            raise RuleViolation("4.1", f"{self.uid} has been eliminated")
        return self.area

    def hit(self, n: int = 1) -> "Unit":
        if n <= 0:
            return self
        cap = 1 if self.kind == ART else self.rating + 1   # hits beyond elimination are not counted
        u = replace(self, hits=min(self.hits + n, cap))
        if u.eliminated:
            return replace(u, area=None, approach=None, square=False)
        return u

    def moved(self, area: str | None, approach: str | None = None, square: bool | None = None) -> "Unit":
        return replace(self, area=area, approach=approach, square=self.square if square is None else square)

    def label(self) -> str:
        if self.kind == ART:
            kind = "Artillery" if self.arty == "foot" else f"{self.arty.title()} Artillery"
            return f"{self.uid} ({kind}{', deployed' if self.deployed else ', limbered'})"
        kind = "Infantry" if self.kind == INF else f"{(self.cav or '').title()} Cavalry"
        extra = " on approach to " + self.approach if self.approach else (" in square" if self.square else "")
        return f"{self.uid} ({kind} {self.strength}/{self.rating}{extra})"

    def to_json(self) -> dict:
        d = {"uid": self.uid, "side": self.side, "kind": self.kind, "rating": self.rating, "hits": self.hits,
             "strength": self.strength, "area": self.area, "eliminated": self.eliminated}
        if self.kind == CAV:
            d["cav"] = self.cav
        if self.kind == INF:
            d["approach"] = self.approach
            d["square"] = self.square
        if self.kind == ART:
            d["deployed"] = self.deployed
            d["arty"] = self.arty
        if self.name:
            d["name"] = self.name
        return d


@dataclass(frozen=True, order=True)
class Leader:
    """An optional leader (7.1): not a combat unit; the place where command points are spent."""

    name: str
    side: str
    area: str | None
    commands: tuple = ()
    attributes: tuple = ()
    status: str = LeaderStatus.ACTIVE

    @property
    def present(self) -> bool:
        return self.status == LeaderStatus.ACTIVE and self.area is not None

    @property
    def where(self) -> str:
        """The area a present leader stands in (7.1); refused when he is off the map."""
        if self.area is None:
            raise RuleViolation("7.1", f"{self.name} is not on the map")
        return self.area

    def can_command(self, u: Unit) -> bool:
        """Whom the leader may activate: a formation tag of the unit, or a whole kind ('any', 'infantry', ...)."""
        if u.side != self.side:
            return False
        for c in self.commands:
            if c == "any" or c in u.command:
                return True
            if (c, u.kind) in (("infantry", INF), ("cavalry", CAV), ("artillery", ART)):
                return True
        return False

    @property
    def movement(self) -> int:
        """7.1: 4 points; 7.1.2 fat 3, obese 2."""
        if "obese" in self.attributes:
            return 2
        if "fat" in self.attributes:
            return 3
        return 4

    def label(self) -> str:
        extra = f" [{', '.join(self.attributes)}]" if self.attributes else ""
        return f"{self.name} (leader{extra}{'' if self.status == LeaderStatus.ACTIVE else ', ' + self.status})"

    def to_json(self) -> dict:
        return {"name": self.name, "side": self.side, "area": self.area, "status": self.status,
                "commands": list(self.commands), "attributes": list(self.attributes)}
