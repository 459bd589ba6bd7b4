"""Scenario files of the Napoleonic 20 games: counters (``units.yaml``), setup and turn track
(``scenario.yaml``), the event deck (``events.yaml``), with the map (``map.yaml``, loaded by
:mod:`engine.n20.board`) and the charts (``tables_v*.yaml``, :mod:`engine.n20.tables`).

A bad file raises :class:`~engine.core.errors.DataError` naming the file, the field and what was
expected; cross-file checks (a setup hex off the map, a unit set up in an enemy-occupied hex, an
unknown unit id) name the scenario file and the field too. Formats: docs/n20-game.md.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml
from engine.core.errors import DataError
from engine.core.tables import GameTables

from ..board import Board, load_board
from ..tables import Tables, load_tables

__all__ = ["Scenario", "UnitDef", "load_scenario", "scenario_ids", "scenario_path", "SIDES"]

from .types import SIDES   # the one spelling of the two sides (French first)
FLAGS = ("elite", "guard", "no_recule", "light", "cossack", "unreliable", "reluctant", "straggler",
         "irregular", "heavy", "road_bound", "cadre")


# ------------------------------------------------------------------------------------------------
# File models
# ------------------------------------------------------------------------------------------------
class UnitModel(Strict):
    id: str = Field(min_length=1)
    name: str
    side: Literal["french", "allied"]
    type: Literal["infantry", "cavalry", "artillery", "leader", "supply", "dummy", "cadre"]
    strength: int = Field(ge=0)
    movement: int = Field(ge=0)
    command_span: int | None = Field(default=None, ge=0)
    flags: list[Literal["elite", "guard", "no_recule", "light", "cossack", "unreliable", "reluctant", "straggler",
                        "irregular", "heavy", "road_bound", "cadre"]] = []
    nationality: Literal["french", "british", "portuguese", "spanish"] = "french"
    formation: str = ""
    source: Source


class UnitsFile(Sourced):
    units: list[UnitModel] = Field(min_length=1)


class Placement(Strict):
    unit: str
    hex: str


class TurnTrack(Sourced):
    days: list[str] = Field(min_length=1)
    day_turns: list[str] = Field(min_length=1)
    night_turns: list[int] = []
    last_turn: int = Field(ge=1)


class SuddenDeath(Sourced):
    turns: dict[int, int] = {}


class DummySetup(Sourced):
    units: list[Placement] = []


class Reinforcement(Strict):
    unit: str
    turn: int = Field(ge=1)
    areas: list[str] = Field(min_length=1)
    until: int | None = None                 # last turn it may enter (exclusive 11.7)
    requires_occupied: str | None = None     # exclusive 11.7: a friendly unit must hold this hex
    optional: bool = False                   # may never enter (removed after ``until``)


class Zone(Strict):
    id: str
    rule: str
    center: str | None = None
    radius: int = 0
    hexes: list[str] = []
    hexes_source: Source | None = None
    not_in_enemy_zoc: bool = False
    units: dict[str, str] = Field(min_length=1)   # unit id -> default hex


class UnitsReleased(Sourced):
    counters: list[int] = Field(min_length=1)


class Exclusive(Strict):
    supply_column: str | None = None
    almeida: str | None = None
    resupply_morale: dict[Literal["french", "allied"], int] = {}
    orderly_withdrawal_towns: list[str] = []
    night_march: bool = False
    fieldworks: bool = False
    bessieres: bool = False
    bessieres_units: dict[Literal["nord", "guard"], str] = {}
    irregulars: list[str] = []
    marginal_supply_victory: bool = False
    portuguese_reliability: bool = False


class ScenarioFile(Sourced):
    id: str
    name: str
    edition: Literal["v2", "v3"]
    tables: str
    map: str
    units: str
    events: str
    first_player: Literal["french", "allied"]
    start_turn: int = Field(ge=1)
    morale: dict[Literal["french", "allied"], int]
    morale_source: Source
    skip_first_event: bool = False
    lulls_from_turn: int | None = None
    turn_track: TurnTrack
    sudden_death: SuddenDeath
    setup: list[Placement] = []
    fog_dummies: DummySetup | None = None
    zones: list[Zone] = []
    reinforcements: list[Reinforcement] = []
    set_aside: list[str] = []
    night_march_leader: str | None = None
    night_march_used: bool = False
    bessieres_allowed: bool = True
    units_released: UnitsReleased | None = None
    exclusive: Exclusive = Exclusive()


class EffectModel(Strict):
    effect: Literal["none", "morale", "reinforcement", "free_forced_march", "rally_on"]
    amount: int = 0
    unit: str | None = None
    areas: list[str] = []
    leader: str | None = None


class CardModel(Strict):
    id: str
    title: str
    red: bool = False
    source: Source
    french: EffectModel
    allied: EffectModel


class EventsFile(Sourced):
    cards: list[CardModel] = Field(min_length=1)


# ------------------------------------------------------------------------------------------------
# The loaded scenario
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UnitDef:
    """What a counter says (never changes during a game)."""

    id: str
    name: str
    side: str
    type: str
    strength: int
    movement: int
    command_span: int
    flags: frozenset
    nationality: str
    formation: str
    source: str

    def has(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def combat_type(self) -> str:
        """The battle engine's unit type (dummies and cadres fight as infantry)."""
        return "infantry" if self.type in ("dummy", "cadre") else self.type

    def battle_flags(self) -> list[str]:
        """The counter's flags under the battle engine's names (``engine.n20.units.Unit``): irregulars are
        Spanish irregulars (16.7.7), ``no_recule`` units ignore the Guard recule (12.2.2; Fuentes exclusive 2.0), and
        Portuguese units carry their nationality (16.9)."""
        names = {"irregular": "spanish_irregular", "no_recule": "recule_exempt"}
        flags = {names.get(f, f) for f in self.flags}
        if self.nationality == "portuguese":
            flags.add("portuguese")
        return sorted(flags)

    def to_json(self) -> dict:
        d = {"id": self.id, "name": self.name, "side": self.side, "type": self.type, "strength": self.strength,
             "movement": self.movement, "flags": sorted(self.flags), "nationality": self.nationality,
             "source": self.source}
        if self.type == "leader":
            d["command_span"] = self.command_span
        if self.formation:
            d["formation"] = self.formation
        return d


@dataclass(frozen=True, eq=False)
class Scenario:
    id: str
    name: str
    file: str
    source: str
    notes: str
    edition: str
    board: Board
    tables: Tables
    units: dict            # id -> UnitDef (file order)
    spec: ScenarioFile
    cards: dict            # id -> CardModel
    events_source: str
    units_source: str
    tables_file: str

    @property
    def first_player(self) -> str:
        return self.spec.first_player

    @property
    def second_player(self) -> str:
        return "allied" if self.spec.first_player == "french" else "french"

    def is_night(self, turn: int) -> bool:
        return turn in self.spec.turn_track.night_turns

    @property
    def last_turn(self) -> int:
        return self.spec.turn_track.last_turn

    def turn_label(self, turn: int) -> str:
        tt = self.spec.turn_track
        n = len(tt.day_turns)
        day = (turn - 1) // n
        day_name = tt.days[day] if day < len(tt.days) else f"day {day + 1}"
        return f"{day_name}, {tt.day_turns[(turn - 1) % n]}"

    def sudden_death_number(self, turn: int) -> int | None:
        return self.spec.sudden_death.turns.get(turn)

    def provenance(self) -> dict:
        """Where each data block comes from (for the UI's badges)."""
        tt, sd = self.spec.turn_track, self.spec.sudden_death
        return {"scenario": self.source, "map": self.board.source, "units": self.units_source,
                "turn_track": tt.source, "sudden_death": sd.source, "events": self.events_source,
                "morale": self.spec.morale_source, "tables": self.tables.provenance()
                if hasattr(self.tables, "provenance") else {}}


def _rel(base: Path, name: str) -> Path:
    p = Path(name)
    return p if p.is_absolute() else (base.parent / p).resolve()


@lru_cache(maxsize=1)
def scenario_files() -> dict[str, Path]:
    """Scenario id -> file, for every ``data/n20/*/scenario*.yaml``."""
    out = {}
    for p in sorted(data_path("n20").glob("*/scenario*.yaml")):
        try:
            sid = (yaml.safe_load(p.read_text(encoding="utf-8")) or {}).get("id")
        except Exception:  # a broken file is reported when it is loaded by its id
            sid = None
        if sid:
            out[sid] = p
    return out


def scenario_ids() -> list[str]:
    return list(scenario_files())


def scenario_path(scenario_id: str) -> Path:
    files = scenario_files()
    if scenario_id in files:
        return files[scenario_id]
    p = Path(scenario_id)
    if p.suffix in (".yaml", ".yml", ".json") and p.exists():
        return p
    raise DataError("scenario", "id", f"one of {', '.join(files)} or a scenario file path", scenario_id)


@lru_cache(maxsize=16)
def _load(path: str, tables_override: str | None) -> Scenario:
    p = Path(path)
    spec = load_yaml(p, ScenarioFile)
    board = load_board(_rel(p, spec.map))
    if isinstance(tables_override, GameTables):      # a game's own tables, loaded and checked already
        tables_file, tables = tables_override.name, tables_override.value
    else:
        tables_file = tables_override or str(_rel(p, spec.tables))
        tables = load_tables(tables_file, edition=spec.edition)
    units_path = _rel(p, spec.units)
    ufile = load_yaml(units_path, UnitsFile)
    efile = load_yaml(_rel(p, spec.events), EventsFile)
    units: dict[str, UnitDef] = {}
    for i, u in enumerate(ufile.units):
        if u.id in units:
            raise DataError(str(units_path), f"units[{i}].id", "a unit id used only once", u.id)
        span = u.command_span if u.command_span is not None else (u.strength if u.type == "leader" else 0)
        units[u.id] = UnitDef(u.id, u.name, u.side, u.type, u.strength, u.movement, span, frozenset(u.flags),
                              u.nationality if u.side == "allied" else "french", u.formation, u.source)
    cards = {}
    for i, c in enumerate(efile.cards):
        if c.id in cards:
            raise DataError(str(_rel(p, spec.events)), f"cards[{i}].id", "a card id used only once", c.id)
        for side in SIDES:
            eff = getattr(c, side)
            if eff.effect == "reinforcement":
                if eff.unit not in units:
                    raise DataError(str(_rel(p, spec.events)), f"cards[{i}].{side}.unit", "a unit id of units.yaml",
                                    eff.unit)
                for a in eff.areas:
                    if a not in board.entry_areas:
                        raise DataError(str(_rel(p, spec.events)), f"cards[{i}].{side}.areas",
                                        f"entry areas of the map ({', '.join(board.entry_areas)})", a)
            if eff.effect == "rally_on" and eff.leader not in units:
                raise DataError(str(_rel(p, spec.events)), f"cards[{i}].{side}.leader", "a unit id of units.yaml",
                                eff.leader)
        cards[c.id] = c
    sc = Scenario(spec.id, spec.name, str(p), spec.source, spec.notes, spec.edition, board, tables, units, spec,
                  cards, efile.source, ufile.source, tables_file)
    _check(sc, p)
    return sc


def _check(sc: Scenario, p: Path) -> None:
    """Cross-file checks: ids exist, hexes on the map, no two units in a hex, nobody in an enemy hex."""
    spec, board, f = sc.spec, sc.board, str(p)

    def unit(uid: str, where: str) -> UnitDef:
        if uid not in sc.units:
            raise DataError(f, where, "a unit id of units.yaml", uid)
        return sc.units[uid]

    def on_map(h: str, where: str) -> None:
        if not board.on_map(h):
            raise DataError(f, where, f"a hex on the {board.grid.cols}x{board.grid.rows} map", h)

    where_side: dict[str, str] = {}
    stack: dict[str, str] = {}
    placed = []
    for i, pl in enumerate(spec.setup):
        placed.append((pl.unit, pl.hex, f"setup[{i}]"))
    for zi, z in enumerate(spec.zones):
        if z.center is not None:
            on_map(z.center, f"zones[{zi}].center")
        for j, h in enumerate(z.hexes):
            on_map(h, f"zones[{zi}].hexes[{j}]")
        for uid, h in z.units.items():
            placed.append((uid, h, f"zones[{zi}].units.{uid}"))
    seen = set()
    for uid, h, where in placed:
        u = unit(uid, where + ".unit")
        if uid in seen:
            raise DataError(f, where + ".unit", "each unit placed once", uid)
        seen.add(uid)
        on_map(h, where + ".hex")
        other = where_side.get(h)
        if other is not None and other != u.side:
            raise DataError(f, where + ".hex", "a hex not occupied by an enemy unit (6.3)", h)
        where_side[h] = u.side
        if u.type not in ("leader",):
            if h in stack:
                raise DataError(f, where + ".hex", f"a hex no other unit occupies (6.9: {stack[h]} is there)", h)
            stack[h] = uid
        if h in board.prohibited:
            raise DataError(f, where + ".hex", "a hex units may enter", h)
    for i, r in enumerate(spec.reinforcements):
        unit(r.unit, f"reinforcements[{i}].unit")
        for a in r.areas:
            if a not in board.entry_areas:
                raise DataError(f, f"reinforcements[{i}].areas", f"entry areas of the map ({', '.join(board.entry_areas)})", a)
    for i, uid in enumerate(spec.set_aside):
        unit(uid, f"set_aside[{i}]")
    if spec.fog_dummies:
        for i, pl in enumerate(spec.fog_dummies.units):
            u = unit(pl.unit, f"fog_dummies.units[{i}].unit")
            on_map(pl.hex, f"fog_dummies.units[{i}].hex")
            if u.type != "dummy":
                raise DataError(f, f"fog_dummies.units[{i}].unit", "a dummy unit", pl.unit)
            if where_side.get(pl.hex, u.side) != u.side:
                raise DataError(f, f"fog_dummies.units[{i}].hex", "a hex not occupied by an enemy unit (6.3)", pl.hex)
    for key in ("night_march_leader",):
        v = getattr(spec, key)
        if v is not None:
            unit(v, key)
    ex = spec.exclusive
    if ex.supply_column:
        unit(ex.supply_column, "exclusive.supply_column")
    for i, uid in enumerate(ex.irregulars):
        unit(uid, f"exclusive.irregulars[{i}]")
    for i, h in enumerate(ex.orderly_withdrawal_towns):
        on_map(h, f"exclusive.orderly_withdrawal_towns[{i}]")
    if ex.almeida:
        on_map(ex.almeida, "exclusive.almeida")
    for t in spec.turn_track.night_turns:
        if not 1 <= t <= spec.turn_track.last_turn:
            raise DataError(f, "turn_track.night_turns", f"turns 1..{spec.turn_track.last_turn}", t)
    if spec.start_turn > spec.turn_track.last_turn:
        raise DataError(f, "start_turn", f"a turn up to the last turn {spec.turn_track.last_turn}", spec.start_turn)
    for side in SIDES:
        if side not in spec.morale or not 0 < spec.morale[side] <= 10:
            raise DataError(f, f"morale.{side}", "a starting morale 1..10 (12.1.1)", spec.morale.get(side))


def load_scenario(scenario_id: str, tables: str | GameTables | None = None) -> Scenario:
    """The scenario by id (``fuentes``, ``fuentes-5may``, ``bussaco``) or by file path.

    ``tables`` replaces the scenario's charts with a user's tables file of the same edition (its path, or a
    game's own tables, :class:`~engine.core.tables.GameTables`).
    """
    return _by_id(scenario_id, tables)


@lru_cache(maxsize=32)
def _by_id(scenario_id: str, tables: str | None) -> Scenario:
    # bounded, keyed by the ids (each user's tables file is a key of its own); thread-safe
    return _load(str(scenario_path(scenario_id)), tables)
