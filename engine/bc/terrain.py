"""The Battle Commander Terrain Effects Chart (12.0, 23.2-23.3): what a Zone's terrain and a border's interval
terrain add to the defence, read from ``data/bc/terrain.yaml`` (provisional values: the chart is printed on the
player aid, not in the rulebook) or from a file a player loads."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.core.data import Sourced, Strict, data_path, load_yaml, parse_yaml, provenance_kind
from engine.core.errors import RuleViolation

__all__ = ["ZoneTerrainModel", "IntervalModel", "TerrainModel", "Terrain", "load_terrain", "parse_terrain",
           "default_terrain"]


class ZoneTerrainModel(Strict):
    fire: int = 0
    assault: int = 0
    clear: bool = False
    horse: bool = False
    range_bonus: bool = False
    garrison: bool = False


class IntervalModel(Strict):
    fire: int = 0
    assault: int = 0
    higher_only: bool = False
    impassable: bool = False


class TerrainModel(Sourced):
    zones: dict[str, ZoneTerrainModel]
    intervals: dict[str, IntervalModel]


@dataclass(frozen=True)
class Terrain:
    model: TerrainModel
    file: str = ""

    def __hash__(self) -> int:         # a value (equal by file and content): usable in memo keys
        return hash(self.file)

    @property
    def source(self) -> str:
        return self.model.source

    @property
    def provenance(self) -> str:
        return provenance_kind(self.model.source)

    def zone(self, name: str) -> ZoneTerrainModel:
        try:
            return self.model.zones[name]
        except KeyError:
            raise RuleViolation("12.0", f"unknown zone terrain {name!r}; the terrain chart has "
                                        f"{sorted(self.model.zones)}") from None

    def interval(self, name: str) -> IntervalModel:
        try:
            return self.model.intervals[name]
        except KeyError:
            raise RuleViolation("23.3", f"unknown interval terrain {name!r}; the terrain chart has "
                                        f"{sorted(self.model.intervals)}") from None


def load_terrain(path: str | Path | None = None) -> Terrain:
    p = Path(path) if path else data_path("bc", "terrain.yaml")
    return Terrain(load_yaml(p, TerrainModel), str(p))


def parse_terrain(text: str, file: str = "<upload>") -> Terrain:
    return Terrain(parse_yaml(text, TerrainModel, file), file)


_TERRAIN: Terrain | None = None


def default_terrain() -> Terrain:
    global _TERRAIN
    if _TERRAIN is None:
        _TERRAIN = load_terrain()
    return _TERRAIN
