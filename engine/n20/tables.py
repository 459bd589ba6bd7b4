"""Napoleonic 20 charts as data: CRT, Terrain Effects Chart, Rally Table, Controlled Advance Table,
Morale Chart (one YAML file per rules edition under ``data/n20/``), and the per-edition rule switches
(``data/n20/parameters.yaml``).

Every table keeps its ``source`` (provenance). A player who owns the printed charts types them into a
file of the same format (docs/n20-battles.md) and loads it with :func:`load_tables`; a malformed file or
a CRT with a missing cell raises :class:`~engine.core.errors.DataError` naming file, field and expectation.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml, parse_yaml, provenance_kind
from engine.core.errors import DataError

__all__ = ["RESULT_CODES", "TERRAINS", "HEXSIDE_FEATURES", "Tables", "EditionRules", "load_tables",
           "parse_tables", "default_tables", "edition_rules", "TablesModel"]

#: Combat results of 9.6 [A]..[H].
RESULT_CODES = ("AB", "AR", "AW", "DB", "DR", "DW", "EX", "N")
TERRAINS = ("clear", "forest", "rough", "marsh", "town", "fortified", "redoubt")
HEXSIDE_FEATURES = ("minor_river", "major_river", "bridge", "ford", "slope", "steep_slope")

ResultCode = Literal["AB", "AR", "AW", "DB", "DR", "DW", "EX", "N"]


# ------------------------------------------------------------------------------------------------
# File models (pydantic)
# ------------------------------------------------------------------------------------------------
class CRTModel(Sourced):
    columns: list[int] = Field(min_length=1)
    rows: dict[int, list[ResultCode]]

    @model_validator(mode="after")
    def _cells(self):
        cols = self.columns
        if cols != list(range(cols[0], cols[0] + len(cols))):
            raise ValueError("columns: consecutive whole differentials in increasing order, e.g. [-4, ..., 6]")
        missing = [d for d in range(1, 7) if d not in self.rows]
        if missing:
            raise ValueError(f"rows: one row for each die roll 1..6 (missing {missing})")
        extra = [d for d in self.rows if not 1 <= d <= 6]
        if extra:
            raise ValueError(f"rows: die rolls 1..6 only (got {extra})")
        for d, row in self.rows.items():
            if len(row) != len(cols):
                raise ValueError(f"rows.{d}: one result per column ({len(cols)} cells), got {len(row)}")
        return self


class MovementModel(Strict):
    cost: int = 1
    stop: bool = False
    prohibited: bool = False
    extra: int = 0


class TerrainModel(Strict):
    combat: int
    movement: MovementModel = MovementModel()
    source: Source
    downslope_only: bool = False
    all_attackers_downslope: bool = False


class TECModel(Sourced):
    terrain: dict[str, TerrainModel]
    hexsides: dict[str, TerrainModel]

    @model_validator(mode="after")
    def _names(self):
        for name in self.terrain:
            if name not in TERRAINS:
                raise ValueError(f"terrain: names among {', '.join(TERRAINS)} (got {name!r})")
        for name in self.hexsides:
            if name not in HEXSIDE_FEATURES:
                raise ValueError(f"hexsides: names among {', '.join(HEXSIDE_FEATURES)} (got {name!r})")
        if "clear" not in self.terrain:
            raise ValueError("terrain: an entry for clear")
        return self


class RallyBand(Strict):
    up_to: int | None
    result: Literal["stays_broken", "cadre", "rallied"]


class RallyModel(Sourced):
    modifiers: dict[str, int] = {}
    bands: list[RallyBand] = Field(min_length=1)

    @model_validator(mode="after")
    def _last_open(self):
        if self.bands[-1].up_to is not None:
            raise ValueError("bands: the last band open-ended (up_to: null)")
        return self


class ControlledAdvanceModel(Sourced):
    kept_from: int = Field(ge=1, le=7)
    heavy_cavalry_modifier: int = -1
    heavy_min_strength: int = 2


class MoraleEntry(Strict):
    side: Literal["owner", "enemy"]
    points: int
    source: Source


_REQUIRED_MORALE = ("enemy_unit_broken", "unit_broken_owner", "rout_beyond_movement", "unit_routed",
                    "guard_recule", "reserve_committed")


class MoraleChartModel(Sourced):
    entries: dict[str, MoraleEntry]
    maximum: int = 10

    @model_validator(mode="after")
    def _needed(self):
        missing = [k for k in _REQUIRED_MORALE if k not in self.entries]
        if missing:
            raise ValueError(f"entries: the battle entries {', '.join(_REQUIRED_MORALE)} (missing {missing})")
        return self


class TablesModel(Strict):
    edition: Literal["v3", "v2"]
    name: str = ""
    source: Source
    notes: str = ""
    crt: CRTModel
    tec: TECModel
    rally: RallyModel
    controlled_advance: ControlledAdvanceModel | None = None
    morale_chart: MoraleChartModel


class EditionModel(Strict):
    label: str
    elite_rout_modifier: int
    elite_fortified_rout_modifier: int
    elite_fortified_includes_one_fewer: bool
    fortified_one_fewer: bool
    routed_markers: bool
    loc_breaks_retreat: bool
    controlled_advance_roll: bool
    night_zoc: Literal["reversed", "none"]
    major_river_bridge_adjacent: bool
    guard_recule_needs_vacated_hex: bool
    reliability: Literal["unreliable", "portuguese"]
    leaders: bool
    fatigue: bool
    light_infantry_through_rugged: bool


class ParametersModel(Sourced):
    editions: dict[Literal["v3", "v2"], EditionModel]


# ------------------------------------------------------------------------------------------------
# Value objects used by the engine
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EditionRules:
    """Rule switches of one edition (from ``data/n20/parameters.yaml``)."""

    edition: str
    label: str
    elite_rout_modifier: int
    elite_fortified_rout_modifier: int
    elite_fortified_includes_one_fewer: bool
    fortified_one_fewer: bool
    routed_markers: bool
    loc_breaks_retreat: bool
    controlled_advance_roll: bool
    night_zoc: str
    major_river_bridge_adjacent: bool
    guard_recule_needs_vacated_hex: bool
    reliability: str
    leaders: bool
    fatigue: bool
    light_infantry_through_rugged: bool


@lru_cache(maxsize=None)
def edition_rules(edition: str) -> EditionRules:
    """The rule switches of ``edition`` ("v3" = rulebook 000, "v2" = rulebook 001)."""
    params = load_yaml(data_path("n20", "parameters.yaml"), ParametersModel)
    if edition not in params.editions:
        raise DataError(str(data_path("n20", "parameters.yaml")), "editions", f"an entry for edition {edition!r}")
    return EditionRules(edition=edition, **params.editions[edition].model_dump())


@dataclass(frozen=True, eq=False)
class Tables:
    """A loaded set of charts for one edition. Compared and hashed by identity (it is immutable)."""

    model: TablesModel
    file: str

    @property
    def edition(self) -> str:
        return self.model.edition

    @property
    def rules(self) -> EditionRules:
        return edition_rules(self.model.edition)

    # CRT -------------------------------------------------------------------------------------
    @property
    def columns(self) -> list[int]:
        return self.model.crt.columns

    def column_for(self, differential: int) -> int:
        """The CRT column used for ``differential``: beyond either end, the end column (9.0 E)."""
        cols = self.model.crt.columns
        return max(cols[0], min(cols[-1], differential))

    def crt_result(self, column: int, die: int) -> str:
        """The cell of the CRT for a column and a die roll (9.0 F)."""
        return self.model.crt.rows[die][column - self.model.crt.columns[0]]

    # TEC -------------------------------------------------------------------------------------
    def has_terrain(self, name: str) -> bool:
        return name in self.model.tec.terrain

    def terrain_combat(self, name: str) -> int:
        try:
            return self.model.tec.terrain[name].combat
        except KeyError:
            raise DataError(self.file, f"tec.terrain.{name}", "an entry for this terrain (9.4)") from None

    def terrain_movement(self, name: str) -> MovementModel:
        try:
            return self.model.tec.terrain[name].movement
        except KeyError:
            raise DataError(self.file, f"tec.terrain.{name}", "an entry for this terrain (6.0)") from None

    def hexside(self, feature: str) -> TerrainModel:
        try:
            return self.model.tec.hexsides[feature]
        except KeyError:
            raise DataError(self.file, f"tec.hexsides.{feature}", "an entry for this hexside feature (9.4)") from None

    # Other charts ------------------------------------------------------------------------------
    def morale(self, entry: str) -> MoraleEntry:
        try:
            return self.model.morale_chart.entries[entry]
        except KeyError:
            raise DataError(self.file, f"morale_chart.entries.{entry}", "this Morale Chart entry (12.1)") from None

    @property
    def morale_maximum(self) -> int:
        return self.model.morale_chart.maximum

    def controlled_advance_kept(self, modified_roll: int) -> bool:
        ca = self.model.controlled_advance
        if ca is None:
            raise DataError(self.file, "controlled_advance", "a Controlled Advance Table for this edition (9.9.3)")
        return modified_roll >= ca.kept_from

    def rally_result(self, modified_roll: int) -> str:
        """Rally Table band for a modified roll (10.0)."""
        for band in self.model.rally.bands:
            if band.up_to is None or modified_roll <= band.up_to:
                return band.result
        return self.model.rally.bands[-1].result  # pragma: no cover - last band is open

    def provenance(self) -> dict[str, dict]:
        """Each table's source and its badge kind, for UIs and the CLI."""
        m = self.model
        out = {"file": self.file, "edition": m.edition}
        for key in ("crt", "tec", "rally", "controlled_advance", "morale_chart"):
            block = getattr(m, key)
            if block is None:
                out[key] = {"source": "rulebook 9.9.3 (no table in this edition)", "kind": "rulebook"}
            else:
                out[key] = {"source": block.source, "kind": provenance_kind(block.source), "notes": block.notes}
        return out


def load_tables(path: str | Path | None = None, edition: str = "v3") -> Tables:
    """Load a tables file (``path``), or the shipped provisional set of ``edition`` when ``path`` is None."""
    if path is None:
        return default_tables(edition)
    model = load_yaml(path, TablesModel)
    return Tables(model, str(path))


def parse_tables(text: str, name: str = "<upload>") -> Tables:
    """Parse a tables file given as text (e.g. an uploaded file)."""
    return Tables(parse_yaml(text, TablesModel, name), name)


@lru_cache(maxsize=None)
def default_tables(edition: str = "v3") -> Tables:
    """The shipped tables of an edition: ``data/n20/tables_v3.yaml`` or ``tables_v2.yaml``."""
    if edition not in ("v3", "v2"):
        raise DataError("<edition>", "edition", "v3 (rulebook 000) or v2 (rulebook 001)", edition)
    p = data_path("n20", f"tables_{edition}.yaml")
    return Tables(load_yaml(p, TablesModel), str(p))
