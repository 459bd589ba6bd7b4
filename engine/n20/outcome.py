"""What a Napoleonic 20 battle ends in: each unit's fate (held, withdrew, routed, broken, destroyed; 9.6,
9.8, 9.9) and the whole :class:`Outcome` with its morale (12.x), values that exact enumeration counts."""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.values import cached_hash_repr

from .morale import MoraleItem

__all__ = ["UnitFate", "Outcome"]


@cached_hash_repr
@dataclass(frozen=True)
class UnitFate:
    unit: str
    side: str
    role: str                 # attacker / defender
    fate: str                 # held / withdrew / routed / broken / destroyed
    hexes: int = 0            # hexes retreated
    end_hex: str | None = None
    marker: bool = False      # Routed! marker placed (9.6.3)
    routed: bool = False
    beyond_ma: bool = False
    rout_distance: int | None = None
    advanced: int = 0         # hexes advanced after combat
    fatigue: int | None = None

    def to_json(self) -> dict:
        d = {"unit": self.unit, "side": self.side, "role": self.role, "fate": self.fate}
        if self.hexes:
            d["hexes"] = self.hexes
        if self.end_hex is not None:
            d["hex"] = self.end_hex
        if self.rout_distance is not None:
            d["rout_distance"] = self.rout_distance
        if self.marker:
            d["routed_marker"] = True
        if self.beyond_ma:
            d["rout_beyond_ma"] = True
        if self.advanced:
            d["advanced"] = self.advanced
        if self.fatigue is not None:
            d["fatigue"] = self.fatigue
        return d

    def __str__(self) -> str:
        if self.fate == "held" and self.advanced:
            return f"{self.unit} advanced {self.advanced}" + (f" to {self.end_hex}" if self.end_hex else "")
        s = f"{self.unit} {self.fate}"
        if self.hexes:
            n = f"{self.hexes} hex{'es' if self.hexes > 1 else ''}"
            s += f" after {n}" if self.fate in ("broken", "destroyed") else f" {n}"
        elif self.fate == "routed":
            s += " in place"
        if self.end_hex and self.fate != "held":
            s += f" to {self.end_hex}"
        if self.marker:
            s += " (Routed!)"
        if self.advanced:
            s += f", advanced {self.advanced}"
        return s


@cached_hash_repr
@dataclass(frozen=True)
class Outcome:
    """The final result of a battle: hashable, so exact enumeration can count it."""

    result: str
    fates: tuple[UnitFate, ...]
    morale: tuple[tuple[str, int], ...]                 # (side, delta)
    morale_items: tuple[MoraleItem, ...] = ()
    morale_after: tuple[tuple[str, int], ...] | None = None
    lost_game: tuple[str, ...] = ()                     # 12.1.2
    control: str | None = None                          # Controlled Advance: kept / lost / None
    reliability_lapsed: bool = False                    # 16.9.2 (001): a 6 was rolled
    garrison_destroyed: str | None = None

    def fate(self, unit: str) -> UnitFate:
        return next(f for f in self.fates if f.unit == unit)

    def delta(self, side: str) -> int:
        return dict(self.morale).get(side, 0)

    def to_json(self) -> dict:
        d = {"result": self.result, "units": [f.to_json() for f in self.fates],
             "morale": dict(self.morale), "morale_items": [i.to_json() for i in self.morale_items]}
        if self.morale_after is not None:
            d["morale_after"] = dict(self.morale_after)
        if self.lost_game:
            d["lost_game"] = list(self.lost_game)
        if self.control is not None:
            d["controlled_advance"] = self.control
        if self.reliability_lapsed:
            d["british_reliability_lapsed"] = True
        if self.garrison_destroyed:
            d["garrison_destroyed"] = self.garrison_destroyed
        return d

    def __str__(self) -> str:
        parts = [self.result] + [str(f) for f in self.fates if f.fate != "held" or f.advanced]
        m = ", ".join(f"{s} {v:+d}" for s, v in self.morale if v)
        if m:
            parts.append(f"morale {m}")
        return "; ".join(parts)
