"""Player actions of a Napoleonic 20 game as hashable values with a JSON form (for records and UIs)."""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.errors import VedetteError

from .state import Battle

__all__ = ["Action", "KINDS", "RANDOM_KINDS"]

#: Every action kind, with the rule it belongs to.
KINDS = {
    "place": "18.1",              # setup: put a unit in its zone
    "roll_bessieres": "17.2",
    "draw_event": "5.0",
    "pick_released": "6.10 (Bussaco)",
    "forced_march": "12.3",
    "move": "6.0",
    "add_dummy": "16.1.3",        # fog of war: a dummy arrives stacked with a unit that just arrived
    "form_square": "17.1",
    "breakdown": "16.6.1",
    "fieldworks": "14.2 (Fuentes)",
    "place_fieldworks": "14.2 (Fuentes)",
    "orderly_withdrawal": "12.7 (Fuentes)",
    "countercharge": "8.1",
    "disengage": "8.3",
    "penetrate": "16.2",
    "night_march": "14.1 (Fuentes)",
    "night_move": "14.1 (Fuentes)",
    "withdraw": "12.7 A (Fuentes)",
    "declare": "9.2",
    "resolve": "9.0",
    "rally": "10.0",
    "roll_sudden_death": "4.0",
    "end_phase": "4.0",
}
#: Actions that run a random procedure (their dice and choices are recorded).
RANDOM_KINDS = frozenset({"roll_bessieres", "draw_event", "pick_released", "fieldworks", "night_march",
                          "countercharge", "resolve", "rally", "roll_sudden_death"})


@dataclass(frozen=True)
class Action:
    """One player action. Fields used depend on ``kind`` (see docs/n20-game.md)."""

    kind: str
    unit: str | None = None
    hex: str | None = None
    path: tuple[str, ...] = ()
    battles: tuple[Battle, ...] = ()
    units: tuple[str, ...] = ()
    index: int | None = None
    spend: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise VedetteError(f"unknown action kind {self.kind!r}; one of {', '.join(KINDS)}")

    @property
    def random(self) -> bool:
        return self.kind in RANDOM_KINDS

    def to_json(self) -> dict:
        d: dict = {"kind": self.kind}
        if self.unit is not None:
            d["unit"] = self.unit
        if self.hex is not None:
            d["hex"] = self.hex
        if self.path:
            d["path"] = list(self.path)
        if self.battles:
            d["battles"] = [b.to_json() for b in self.battles]
        if self.units:
            d["units"] = list(self.units)
        if self.index is not None:
            d["index"] = self.index
        if self.spend:
            d["spend"] = True
        return d

    @classmethod
    def from_json(cls, d) -> "Action":
        if isinstance(d, Action):
            return d
        if not isinstance(d, dict) or "kind" not in d:
            raise VedetteError(f"an action is an object with a 'kind', got {d!r}")
        try:
            return cls(kind=d["kind"], unit=d.get("unit"), hex=d.get("hex"), path=tuple(d.get("path") or ()),
                       battles=tuple(Battle.from_json(b) for b in d.get("battles") or ()),
                       units=tuple(d.get("units") or ()), index=d.get("index"), spend=bool(d.get("spend", False)))
        except TypeError as exc:
            raise VedetteError(f"malformed action {d!r}: {exc}") from None

    def __str__(self) -> str:
        bits = [self.kind]
        if self.unit:
            bits.append(self.unit)
        if self.path:
            bits.append("->".join(self.path))
        elif self.hex:
            bits.append(self.hex)
        if self.battles:
            bits.append("; ".join(f"{'+'.join(b.attackers)} vs {'+'.join(b.defenders)}" for b in self.battles))
        if self.units:
            bits.append(",".join(self.units))
        if self.index is not None:
            bits.append(f"#{self.index}")
        if self.spend:
            bits.append("(spend MP)")
        return " ".join(bits)
