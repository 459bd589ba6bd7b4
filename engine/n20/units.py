"""Napoleonic 20 units as immutable values.

A :class:`Unit` is what a counter says (type, printed strength and movement allowance, the colour
codes that make it elite, Guard, unreliable, ...) plus where it stands and the markers on it
(Routed!, In Square, fatigue). Changing a unit means making a new one (:meth:`Unit.replace`).

:class:`UnitSpec` is the pydantic model used by battle, scenario and unit files; its errors name the
file and the field (see :func:`engine.core.data.validate`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace as _replace
from typing import Literal

from pydantic import Field, field_validator

from engine.core.data import Strict
from engine.core.values import cached_hash_repr

__all__ = ["Unit", "UnitSpec", "UNIT_TYPES", "SIDES", "FATIGUE_LEVELS", "other_side"]

#: Unit types of the series. ``leader`` units have a command span instead of a strength (16.9);
#: ``supply`` is a road-bound wagon train (16.7.6, Fuentes 6.10); ``garrison`` is a map garrison (9.4.4).
UNIT_TYPES = ("infantry", "cavalry", "artillery", "leader", "supply", "garrison")
SIDES = ("french", "allied")
#: 16.8: fatigue levels, 0 = Fresh .. 4 = Spent.
FATIGUE_LEVELS = ("fresh", "ready", "tired", "weary", "spent")


def other_side(side: str) -> str:
    """The opposing side's name (``french`` <-> ``allied``)."""
    return "allied" if side == "french" else "french"


@cached_hash_repr
@dataclass(frozen=True)
class Unit:
    """One playing piece. Flags follow the counter colour codes of rule 16.7 and the exclusive rules.
    Its hash (the dataclass's: the fields as a tuple) is made once, when it is made: a battle's units are
    hashed with every battle value they are part of (see :class:`engine.n20.battle.Battle`)."""

    id: str
    side: str
    type: str = "infantry"
    strength: int = 1          # printed Combat Strength (Command Span for leaders, 16.9)
    movement: int = 2          # printed Movement Allowance
    hex: str | None = None
    name: str = ""
    elite: bool = False        # red strength: 9.6.2 rout -2, rally +1
    guard: bool = False        # red movement allowance: 12.2
    recule_exempt: bool = False  # exclusive 2.0 (000): the French Guard Infantry ignores 12.2.2
    heavy: bool = False        # heavy cavalry: 9.9.3
    routed: bool = False       # Routed! marker on it: 9.6.3
    unreliable: bool = False   # yellow strength: 16.7.3
    portuguese: bool = False   # 16.9 (001): always checks reliability
    spanish_irregular: bool = False  # exclusive 16.7.7 (000)
    straggler: bool = False    # blue strength: 16.7.5
    road_bound: bool = False   # white movement allowance: 16.7.6
    reluctant: bool = False    # yellow movement allowance: 16.7.4
    light: bool = False        # green movement allowance: 16.7.1
    cossack: bool = False      # 16.7.2
    cadre: bool = False        # 16.5.2
    square: bool = False       # In Square marker: 17.1
    fatigue: int = 0           # 16.8: 0 Fresh .. 4 Spent

    def replace(self, **changes) -> "Unit":
        """A copy with some fields changed (units are values)."""
        return _replace(self, **changes)

    @property
    def is_cavalry(self) -> bool:
        return self.type == "cavalry"

    @property
    def exerts_zoc(self) -> bool:
        """7.0: every unit has a ZOC, except Routed! units (9.6.3), stragglers (16.7.5) and squares (17.1)."""
        return not (self.routed or self.straggler or self.square)

    def to_json(self) -> dict:
        out = {"id": self.id, "side": self.side, "type": self.type, "strength": self.strength,
               "movement": self.movement}
        if self.hex is not None:
            out["hex"] = self.hex
        if self.name:
            out["name"] = self.name
        for flag in _FLAGS:
            if getattr(self, flag):
                out[flag] = True
        if self.fatigue:
            out["fatigue"] = FATIGUE_LEVELS[self.fatigue]
        return out


_FLAGS = ("elite", "guard", "recule_exempt", "heavy", "routed", "unreliable", "portuguese",
          "spanish_irregular", "straggler", "road_bound", "reluctant", "light", "cossack", "cadre", "square")


class UnitSpec(Strict):
    """A unit as written in a battle, scenario or units file."""

    id: str = Field(min_length=1)
    side: Literal["french", "allied"] | None = None
    type: Literal["infantry", "cavalry", "artillery", "leader", "supply", "garrison"] = "infantry"
    strength: int = Field(ge=0, description="printed Combat Strength (0 or more)")
    movement: int = Field(default=2, ge=0, description="printed Movement Allowance (0 or more)")
    hex: str | None = None
    name: str = ""
    terrain: str | None = None   # context-free battles: this defender's own terrain (9.4)
    elite: bool = False
    guard: bool = False
    recule_exempt: bool = False
    heavy: bool = False
    routed: bool = False
    unreliable: bool = False
    portuguese: bool = False
    spanish_irregular: bool = False
    straggler: bool = False
    road_bound: bool = False
    reluctant: bool = False
    light: bool = False
    cossack: bool = False
    cadre: bool = False
    square: bool = False
    bombarding: bool = False     # 16.3.2: this attacking artillery bombards across a prohibited hexside
    fatigue: int | Literal["fresh", "ready", "tired", "weary", "spent"] = 0

    @field_validator("fatigue")
    @classmethod
    def _fatigue(cls, v):
        if isinstance(v, str):
            return FATIGUE_LEVELS.index(v)
        if not 0 <= v <= 4:
            raise ValueError("a fatigue level 0..4 or one of fresh, ready, tired, weary, spent (16.8)")
        return v

    def to_unit(self, side: str | None = None) -> Unit:
        s = self.side or side
        if s is None:
            raise ValueError(f"unit {self.id}: no side given")
        return Unit(id=self.id, side=s, type=self.type, strength=self.strength, movement=self.movement,
                    hex=self.hex, name=self.name, fatigue=int(self.fatigue),
                    **{f: getattr(self, f) for f in _FLAGS})
