"""The These Brave Fellows charts as data: Fatigue Check Table, Fire and Melee Combat Tables, Terrain
Effects Chart and Level 2/3 Movement Chart.

None of these charts is printed in the rulebook text (they are on the Player's Aid Charts), so the
shipped file ``data/tbf/tables.yaml`` holds provisional values designed from the rules' hints and
marked ``source: provisional``. A player can type the printed charts into a file of the same format
(see ``docs/tbf.md``) and load it with ``--tables FILE`` or the page's upload widget.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import Field, PrivateAttr, field_validator, model_validator

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml, parse_yaml
from engine.core.errors import DataError, RuleViolation

__all__ = [
    "Effect", "CheckDef", "FatigueTable", "FireTable", "MeleeTable", "TerrainChart", "LevelChart",
    "Tables", "load_tables", "default_tables", "parse_tables", "DEFAULT_TABLES",
    "STATUSES", "EFFECTS", "digest",
]


def digest(data: Any) -> str:
    """16 hex digits of the SHA-256 of ``data`` written as canonical JSON (keys sorted): the same content
    always gives the same digest, in any process, and any changed value another."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]

#: The statuses a unit checks in (4.2.4 fatigued, 6.7 routed).
UnitStatus = Literal["normal", "fatigued", "routed"]
STATUSES: tuple[UnitStatus, ...] = ("normal", "fatigued", "routed")

# What a check's pass or fail does to the unit (docs/tbf.md lists them).
EFFECTS = (
    "none",          # nothing changes
    "fatigued",      # flip to the fatigued side (4.2.4)
    "rout",          # becomes routed (6.7)
    "surrender",     # removed from the game permanently (4.1.8 B, 6.2.8 F, 6.6 C, 6.7 J)
    "stand",         # stands and fights (6.2.8 E)
    "stand_half",    # stands and fights at half MF, rounded up (6.2.8 F, 6.7 J)
    "act",           # may act this impulse (6.1.3 C)
    "no_action",     # may not move, may only fire defensively (6.1.3 C)
    "charge",        # the charge goes ahead (6.2.8 D)
    "no_charge",     # no charge this segment (6.2.8 D)
    "attack",        # takes part in the melee (6.4 D)
    "no_attack",     # drops out of the melee (6.4 D)
    "recover",       # fatigue removed: back to the front side (7.0 F)
    "rally",         # rout marker removed, stays fatigued (7.0 E)
)
Effect = Literal[
    "none", "fatigued", "rout", "surrender", "stand", "stand_half", "act", "no_action", "charge",
    "no_charge", "attack", "no_attack", "recover", "rally",
]


class PerStatus(Strict):
    """An effect for each status of the checking unit."""

    normal: Effect
    fatigued: Effect
    routed: Effect

    def get(self, status: str) -> str:
        return getattr(self, status)


class Modifier(Strict):
    """A named optional DRM of one check (a player ticks it when it applies)."""

    drm: int
    rule: str = ""
    source: Source = "provisional"
    notes: str = ""


class CheckDef(Strict):
    """One row of the Fatigue Check Table: the reason for the check, its DRMs and its results."""

    name: str
    rule: str
    drm: int = 0
    status_drm: dict[UnitStatus, int] = Field(default_factory=dict)
    allowed: list[UnitStatus] = Field(default_factory=lambda: list(STATUSES))
    passed: PerStatus
    failed: PerStatus
    modifiers: dict[str, Modifier] = Field(default_factory=dict)
    source: Source = "provisional"
    notes: str = ""


class FatigueTable(Sourced):
    die: Literal["d6"] = "d6"
    fv_min: int = Field(ge=0)
    fv_max: int = Field(ge=1)
    fv_source: Source = "provisional"
    melee_double: Literal["modified_below_half_fv", "natural_below_half_fv"] = "modified_below_half_fv"
    checks: dict[str, CheckDef]

    @model_validator(mode="after")
    def _range(self) -> Self:
        if self.fv_max < self.fv_min:
            raise ValueError("fv_max must be at least fv_min")
        return self


class FireTable(Sourced):
    """Columns are fire-strength lower bounds (the last one is ``N+``); rows are modified d10 results."""

    die: Literal["d10"] = "d10"
    columns: list[int]
    roll_min: int
    roll_max: int
    rows: dict[int, list[str]]
    results: dict[str, "FireEffect"]
    drms: dict[str, Modifier] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _shape(self) -> Self:
        if self.columns != sorted(set(self.columns)) or not self.columns or self.columns[0] < 1:
            raise ValueError("columns must be increasing fire strengths starting at 1 or more")
        for r in range(self.roll_min, self.roll_max + 1):
            if r not in self.rows:
                raise ValueError(f"rows must cover every modified roll {self.roll_min}..{self.roll_max} (row {r} missing)")
            if len(self.rows[r]) != len(self.columns):
                raise ValueError(f"row {r} must have one result per column ({len(self.columns)})")
            for code in self.rows[r]:
                if code not in self.results:
                    raise ValueError(f"row {r}: result {code!r} is not defined under results")
        return self

    def column_index(self, strength: int) -> int | None:
        """Index of the column for a fire strength (6.3.7 A-B); None when the strength is 0."""
        if strength < self.columns[0]:
            return None
        idx = 0
        for i, c in enumerate(self.columns):
            if strength >= c:
                idx = i
        return idx

    def column_label(self, idx: int) -> str:
        c = self.columns[idx]
        if idx == len(self.columns) - 1:
            return f"{c}+"
        nxt = self.columns[idx + 1] - 1
        return str(c) if nxt == c else f"{c}-{nxt}"

    def lookup(self, idx: int, modified: int) -> str:
        r = min(max(modified, self.roll_min), self.roll_max)
        return self.rows[r][idx]


class FireEffect(Strict):
    """What a fire result does to every unit in the target hex."""

    fatigue: bool = False     # flip to fatigued (an already fatigued unit routs, 6.7 A)
    retreat: int = 0          # hexes of retreat (6.6)
    eliminate: int = 0        # units eliminated (owner's choice)
    text: str = ""


class MeleeEffect(Strict):
    attacker_fatigue: bool = False
    attacker_retreat: int = 0
    attacker_eliminate: int = 0
    defender_fatigue: bool = False
    defender_retreat: int = 0
    defender_eliminate: int = 0
    text: str = ""


class MeleeTable(Sourced):
    """Odds columns (attack:defence, lowest first) and modified d10 rows."""

    die: Literal["d10"] = "d10"
    columns: list[str]
    roll_min: int
    roll_max: int
    rows: dict[int, list[str]]
    results: dict[str, MeleeEffect]
    below_lowest: Literal["lowest_column", "forbidden"] = "lowest_column"
    charge_mf_multiplier: int = 2
    charge_source: Source = "provisional"
    drms: dict[str, Modifier] = Field(default_factory=dict)
    shifts: dict[str, Modifier] = Field(default_factory=dict)

    @field_validator("columns")
    @classmethod
    def _cols(cls, v: list[str]) -> list[str]:
        ratios: list[Fraction] = []
        for c in v:
            try:
                a, d = c.split("-")
                ratios.append(Fraction(int(a), int(d)))
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"odds column {c!r} must look like 3-2") from None
        if ratios != sorted(ratios) or len(set(ratios)) != len(ratios):
            raise ValueError("odds columns must increase from left to right")
        return v

    @model_validator(mode="after")
    def _shape(self) -> Self:
        for r in range(self.roll_min, self.roll_max + 1):
            if r not in self.rows:
                raise ValueError(f"rows must cover every modified roll {self.roll_min}..{self.roll_max} (row {r} missing)")
            if len(self.rows[r]) != len(self.columns):
                raise ValueError(f"row {r} must have one result per column ({len(self.columns)})")
            for code in self.rows[r]:
                if code not in self.results:
                    raise ValueError(f"row {r}: result {code!r} is not defined under results")
        return self

    def ratios(self) -> list[Fraction]:
        return [Fraction(*map(int, c.split("-"))) for c in self.columns]

    def column_index(self, attack: Fraction | int, defence: Fraction | int) -> int | None:
        """Column for the odds attack:defence rounded in the defender's favour; None if below the lowest
        column and the table forbids such attacks."""
        if defence <= 0:
            return len(self.columns) - 1
        ratio = Fraction(attack) / Fraction(defence)
        idx = None
        for i, r in enumerate(self.ratios()):
            if ratio >= r:
                idx = i
        if idx is None:
            return 0 if self.below_lowest == "lowest_column" else None
        return idx

    def lookup(self, idx: int, modified: int) -> str:
        r = min(max(modified, self.roll_min), self.roll_max)
        return self.rows[r][idx]


class TerrainType(Strict):
    mp: int | None            # MP to enter (None = prohibited); levels 2/3 use the Level 2/3 chart
    blocks_los: bool
    fire_drm: int = 0         # DRM to fire INTO the hex
    melee_shift: int = 0      # column shift when the defender is in the hex (negative = left)
    charge_ok: bool = False   # may a charge start, cross or end here (6.2.8 B)
    rule: str = ""


class TerrainChart(Sourced):
    terrain: dict[str, TerrainType]
    road_mp: int = 1
    uphill_melee_shift: int = -1
    uphill_fire_drm: int = -1
    strong_point_fire_drm: int = -3
    strong_point_melee_shift: int = -3
    walled_road_melee_shift: int = -1

    @model_validator(mode="after")
    def _every_terrain(self) -> Self:
        # 2.2: the map's terrain letters name these TEC rows; a chart without one of them would fail
        # later, deep inside a move or a fire, so it is refused here, naming the missing row.
        need = ("level0", "level1", "level2", "level3", "vineyard", "town", "river")
        missing = [t for t in need if t not in self.terrain]
        if missing:
            raise ValueError(f"terrain must have a row for each map terrain ({', '.join(need)}); missing: "
                             f"{', '.join(missing)}")
        return self


class LevelRow(Strict):
    infantry: int
    cavalry: int
    artillery: int


class LevelChart(Sourced):
    die: Literal["d6"] = "d6"
    level2: dict[int, LevelRow]
    level3: dict[int, LevelRow]

    @model_validator(mode="after")
    def _faces(self) -> Self:
        for name in ("level2", "level3"):
            if sorted(getattr(self, name)) != [1, 2, 3, 4, 5, 6]:
                raise ValueError(f"{name} must give a row for each d6 face 1..6")
        return self


class Tables(Strict):
    """The whole set of charts (one file). A value: its content digest (:attr:`key`) is made once, when the
    file is validated, and memo keys use it (two files with the same charts share their memoised odds;
    any changed value gives another key)."""

    game: Literal["tbf"] = "tbf"
    fatigue: FatigueTable
    fire: FireTable
    melee: MeleeTable
    terrain: TerrainChart
    levels: LevelChart
    _key: str = PrivateAttr(default="")
    if TYPE_CHECKING:       # (what the type checker knows of it; at run time an entry of __dict__, see below)
        key: str

    # ``key``, the content digest, is what memo keys hold instead of the object. It is kept as a plain
    # entry of the instance's __dict__ (not a field: never dumped, compared or validated) because memo keys
    # ask for it at every check and a private attribute is read through pydantic's slower __getattr__.
    def model_post_init(self, context: Any, /) -> None:
        self._key = self.__dict__["key"] = "tables:" + digest(self.model_dump(mode="json"))

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        out = super().model_copy(update=update, deep=deep)
        if update:                      # a changed copy is another value
            out._key = out.__dict__["key"] = "tables:" + digest(out.model_dump(mode="json"))
        return out

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Tables):
            return NotImplemented
        return self.key == other.key

    def check(self, name: str) -> CheckDef:
        try:
            return self.fatigue.checks[name]
        except KeyError:
            raise RuleViolation("4.2.1", f"there is no Fatigue Check {name!r}; the table has: "
                                         f"{', '.join(sorted(self.fatigue.checks))}") from None


FireTable.model_rebuild()

DEFAULT_TABLES = data_path("tbf", "tables.yaml")


def load_tables(path: str | Path | None = None) -> Tables:
    """Load a tables file (the shipped provisional one when ``path`` is None)."""
    if path is None:
        return default_tables()
    return load_yaml(path, Tables)


def parse_tables(text: str, file: str = "<upload>") -> Tables:
    return parse_yaml(text, Tables, file)


@lru_cache(maxsize=1)
def default_tables() -> Tables:
    return load_yaml(DEFAULT_TABLES, Tables)
