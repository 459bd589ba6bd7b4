"""A Battle Commander scenario: the map of Zones (5.0) with their terrain, roads and flags, the borders with their
interval terrain, the Army Commander cards (7.2), Morale (13.0), the Blocks and HQ markers set up, the
reinforcement schedule (18.0) and the scenario's switches (turns, night, Gold cube, Massed Columns).

The only scenario shipped is our own invented demonstration (``demo``, ``data/bc/demo/scenario.yaml``): the
Playbook's scenarios are not in the rulebook.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine.core.areas import AreaGraph
from engine.core.data import Sourced, Strict, data_path, load_yaml
from engine.core.errors import DataError, RuleViolation, VedetteError

from ..blocks import BlockModel

__all__ = ["ABILITIES", "ZoneModel", "CommanderModel", "MoraleModel", "PlacedBlock", "PlacedHQ", "ReinforcementModel",
           "ScenarioModel", "Scenario", "load_scenario", "SCENARIOS", "scenario_by_id"]

SCENARIOS = {"demo": "Vedette demonstration: the bridge at the mill (our own invented scenario, not the Playbook's)"}


class ZoneModel(Strict):
    terrain: str = "clear"
    x: float = 0
    y: float = 0
    road: bool = False
    lane: bool = False
    flag: Literal["none", "french", "coalition", "both"] = "none"
    fort_of: str | None = None       # 28.5: this Zone is the Fort inside that regular Zone (its only border)
    redoubt: tuple[str, ...] = ()    # 28.5: the bordering Zones whose intervals this Zone's Redoubt covers


#: the Army Commander abilities (28.9) whose workings the rulebook itself gives; the others are described on the
#: player aid only (docs/bc.md lists them as missing)
ABILITIES = ("ordre_mixte", "artillery_expert", "disciplined_infantry", "unsteady")
Ability = Literal["ordre_mixte", "artillery_expert", "disciplined_infantry", "unsteady"]


class CommanderModel(Strict):
    name: str
    cubes: int = Field(ge=0)
    tokens: int = Field(ge=0)
    skill: int = Field(ge=0, le=4)
    range: int = Field(ge=0)
    abilities: tuple[Ability, ...] = ()   # 28.9: Ordre Mixte and Artillery Expert 27.6, Disciplined Infantry 27.8,
                                          # Unsteady 27.7 (no Clash of Wills)


class MoraleModel(Strict):
    value: int = Field(ge=1, le=10)
    maximum: int = Field(default=10, ge=1, le=10)
    good: bool = True


class PlacedBlock(BlockModel):
    id: str
    side: Literal["french", "coalition"]
    zone: str
    facing: tuple[str, ...] | None = None


class PlacedHQ(Strict):
    id: str
    side: Literal["french", "coalition"]
    kind: Literal["hq", "shq"] = "hq"
    skill: int = Field(default=3, ge=0, le=4)
    state: Literal["steady", "disrupted"] = "steady"
    zone: str
    perspective: bool = False      # optional rule 29.1 in force from the start (main HQ only)


class ReinforcementModel(PlacedBlock):
    """A Block that enters later (18.0 Yellow Cube): ``zone`` is where it enters, ``turn`` the first turn it may.
    The schedule belongs to a scenario (the Playbook's); type it in from there."""
    turn: int = Field(ge=1)


class ScenarioModel(Sourced):
    name: str
    zones: dict[str, ZoneModel]
    borders: tuple[tuple[str, ...], ...]
    commanders: dict[Literal["french", "coalition"], CommanderModel]
    morale: dict[Literal["french", "coalition"], MoraleModel]
    initiative: Literal["french", "coalition"] = "french"
    blocks: tuple[PlacedBlock, ...]
    hqs: tuple[PlacedHQ, ...] = ()
    reinforcements: tuple[ReinforcementModel, ...] = ()
    turns: int = Field(default=6, ge=1, le=40)        # 16.3: the game ends after the last turn box
    night: tuple[int, ...] = ()                       # 14.0: turns that are not Daylight (no 13.2 bonus)
    gold: Literal["french", "coalition"] | None = None   # 16.1, 18.0: a Gold cube, named by this player
    massed_column: bool = False                       # 28.2: Massed Columns allowed by the scenario
    large_battle: bool = False                        # 27.6: a Large Battle (Short Infantry leads Ordre Mixte alone)


@dataclass(frozen=True)
class Scenario:
    model: ScenarioModel
    graph: AreaGraph
    file: str = ""
    terrain: Any = None     # a game's own Terrain Effects Chart (engine.bc.terrain.Terrain); None: the shipped one

    # a value: equal when loaded from the same file with the same content (the graph is made from the model)
    # and played on the same terrain chart, so positions holding it are hashable and equal positions meet in
    # exact enumeration
    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Scenario and self.file == other.file and self.model == other.model
                                 and self.terrain == other.terrain)

    def __hash__(self) -> int:
        return hash((self.file, self.model.name, self.terrain))

    def __repr__(self) -> str:          # short: positions are ordered by their repr in exact enumeration
        return f"Scenario({self.model.name!r}, file={self.file!r})"

    @property
    def name(self) -> str:
        return self.model.name

    def zone(self, z: str) -> ZoneModel:
        try:
            return self.model.zones[z]
        except KeyError:
            raise RuleViolation("5.0", f"there is no Zone {z!r} on this map") from None

    def interval(self, a: str, b: str) -> str:
        feats = self.graph.border(a, b).features
        return next(iter(feats)) if feats else "none"

    def impassable(self, a: str, b: str) -> bool:
        return self.graph.adjacent(a, b) and self.graph.border(a, b).has("impassable")


def load_scenario(path: str | Path | None = None) -> Scenario:
    """Load a scenario file (default: the invented demonstration scenario ``data/bc/demo/scenario.yaml``)."""
    p = Path(path) if path else data_path("bc", "demo", "scenario.yaml")
    m = load_yaml(p, ScenarioModel)
    for key in ("commanders", "morale"):   # 7.2 an Army Commander card and 13.0 an Army Morale for each side
        for side in ("french", "coalition"):
            if side not in getattr(m, key):
                raise DataError(str(p), f"{key}.{side}", "an entry for each side (french and coalition)")
    borders = []
    for i, b in enumerate(m.borders):
        if len(b) not in (2, 3):
            raise DataError(str(p), f"borders[{i}]", "[zone, zone] or [zone, zone, interval terrain]", list(b))
        # 23.3: for a slope or cliff interval the second Zone listed is the higher one
        borders.append((b[0], b[1], (b[2],), {"higher": b[1]}) if len(b) == 3 else (b[0], b[1]))
    try:
        graph = AreaGraph.build({z: z_m.model_dump() for z, z_m in m.zones.items()}, borders)
    except ValueError as exc:
        raise DataError(str(p), "borders", str(exc)) from None
    for z in m.zones:
        if len(graph.neighbours(z)) > 6:
            raise DataError(str(p), f"zones.{z}", "at most six bordering Zones (rule 5.0)")
    for z, zm in m.zones.items():
        if zm.fort_of is not None and set(graph.neighbours(z)) != {zm.fort_of}:
            raise DataError(str(p), f"zones.{z}.fort_of", f"a Fort borders only its encircling Zone "
                                                          f"{zm.fort_of} (rule 28.5)", sorted(graph.neighbours(z)))
        for r in zm.redoubt:
            if r not in graph.neighbours(z):
                raise DataError(str(p), f"zones.{z}.redoubt", "Zones bordering this one (rule 28.5)", r)
    for i, b in enumerate(m.reinforcements):
        if b.zone not in m.zones:
            raise DataError(str(p), f"reinforcements[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", b.zone)
    for i, b in enumerate(m.blocks):
        if b.zone not in m.zones:
            raise DataError(str(p), f"blocks[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", b.zone)
        if b.redoubt_block and not m.zones[b.zone].redoubt:
            raise DataError(str(p), f"blocks[{i}].redoubt_block",
                            "a Zone with a Redoubt (its `redoubt:` intervals, rule 28.5)", b.zone)
    for i, h in enumerate(m.hqs):
        if h.zone not in m.zones:
            raise DataError(str(p), f"hqs[{i}].zone", f"a Zone of the map ({sorted(m.zones)})", h.zone)
    return Scenario(m, graph, str(p))


@lru_cache(maxsize=None)
def scenario_by_id(sid: str) -> Scenario:
    """The scenario of a game or a record by its id (loaded once)."""
    if sid not in SCENARIOS:
        raise VedetteError(f"unknown scenario {str(sid)[:40]!r}; one of {', '.join(SCENARIOS)}")
    return load_scenario()
