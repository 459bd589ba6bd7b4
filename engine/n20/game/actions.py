"""Player actions of a Napoleonic 20 game as hashable values with a JSON form (for records and UIs)."""
from __future__ import annotations

from dataclasses import dataclass, fields

from engine.core.errors import VedetteError, short

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


def _names(value, field: str, where: str = "action") -> None:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise VedetteError(f"{where} field {field!r}: expected a list of ids or hex labels (strings), "
                           f"got {short(value)}")


def _check_shape(d: dict) -> None:
    """The JSON types of an action's fields (a record or a page sends them): one-line errors naming the
    field, so that a string is never read letter by letter as a list, nor a list used as a unit id."""
    extra = set(d) - {"kind", "unit", "hex", "path", "battles", "units", "index", "spend"}
    if extra:
        raise VedetteError(f"action field {sorted(extra)[0][:40]!r}: not a field of an action (kind, unit, hex, "
                           f"path, battles, units, index, spend)")
    for key in ("kind", "unit", "hex"):
        if d.get(key) is not None and not isinstance(d[key], str):
            raise VedetteError(f"action field {key!r}: expected a string, got {short(d[key])}")
    for key in ("path", "units"):
        if d.get(key) is not None:
            _names(d[key], key)
    if d.get("index") is not None and (isinstance(d["index"], bool) or not isinstance(d["index"], int)):
        raise VedetteError(f"action field 'index': expected a whole number, got {short(d['index'])}")
    if "spend" in d and not isinstance(d["spend"], bool):
        raise VedetteError(f"action field 'spend': expected true or false, got {short(d['spend'])}")
    battles = d.get("battles")
    if battles is not None:
        if not isinstance(battles, list):
            raise VedetteError(f"action field 'battles': expected a list, got {short(battles)}")
        for b in battles:
            if not isinstance(b, dict) or set(b) - {"attackers", "defenders"}:
                raise VedetteError(f"a battle is an object with 'attackers' and 'defenders', got {short(b)}")
            for key in ("attackers", "defenders"):
                _names(b.get(key), key, "battle")


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

    @classmethod
    def move(cls, kind: str, unit: str, path: tuple[str, ...]) -> "Action":
        """A ``move`` or ``night_move`` of ``unit`` along ``path``, made without running ``__init__``: the
        same value as ``Action(kind, unit=unit, path=path)``, for the many move candidates a phase lists."""
        if kind not in _MOVE_KINDS:
            raise VedetteError(f"Action.move makes moves only, not {kind!r}")
        a = object.__new__(cls)
        d = a.__dict__
        d.update(_DEFAULTS)
        d["kind"] = kind
        d["unit"] = unit
        d["path"] = path
        return a

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
            raise VedetteError(f"an action is an object with a 'kind', got {short(d)}")
        _check_shape(d)
        try:
            return cls(kind=d["kind"], unit=d.get("unit"), hex=d.get("hex"), path=tuple(d.get("path") or ()),
                       battles=tuple(Battle.from_json(b) for b in d.get("battles") or ()),
                       units=tuple(d.get("units") or ()), index=d.get("index"), spend=bool(d.get("spend", False)))
        except TypeError as exc:
            raise VedetteError(f"malformed action {short(d)}: {exc}") from None

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


_MOVE_KINDS = frozenset({"move", "night_move"})
_DEFAULTS = {f.name: f.default for f in fields(Action)}
