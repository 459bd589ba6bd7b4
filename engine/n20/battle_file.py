"""A Napoleonic 20 battle file (docs/n20-battles.md): its model with the bounds a file may reach (issue 11),
and loading it into a :class:`~engine.n20.battle.Battle`, every name checked against the tables and the map
(9.2.2 adjacency, 6.9 stacking, 16.3.2 bombardment, 16.8 / 16.9 / 9.6.3 by edition)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field, model_validator

from engine.core.data import Strict, data_path, load_yaml, parse_yaml, validate
from engine.core.errors import DataError, RuleViolation

from .battle import Battle
from .board import Board, load_board
from .retreat import PathSpec
from .tables import Tables, default_tables, load_tables
from .units import UnitSpec, other_side

__all__ = ["BattleModel", "battle_from_model", "load_battle", "parse_battle", "MAX_UNITS_PER_SIDE",
           "MAX_OTHER_UNITS", "MAX_PATH_HEXES", "MAX_HAZARDS_PER_HEX"]

Feature = Literal["minor_river", "major_river", "bridge", "ford", "slope", "steep_slope"]


# Bounds on a battle file (issue 11). No stacking (6.9): one unit a hex, so a battle has at most six
# attacking hexes around each defender; twelve units a side is more than a map allows, and keeps the
# Exchange choice (9.6 [G], every minimal set of attackers) small. Retreat paths are a few hexes long
# (9.8) with one hazard roll per hazard of a hex.
MAX_UNITS_PER_SIDE = 12
MAX_OTHER_UNITS = 200
MAX_PATH_HEXES = 20
MAX_HAZARDS_PER_HEX = 6


class PathSpecModel(Strict):
    hazards: list[Annotated[int, Field(le=MAX_HAZARDS_PER_HEX)]] = Field(default=[], max_length=MAX_PATH_HEXES)
    road: int | None = Field(default=None, ge=0, le=MAX_PATH_HEXES)
    loc_at: int | None = Field(default=None, ge=1, le=MAX_PATH_HEXES)
    blocked_after: int | None = Field(default=None, ge=0, le=MAX_PATH_HEXES)
    friend_at: int | None = Field(default=None, ge=1, le=MAX_PATH_HEXES)

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data):
        return {"hazards": data} if isinstance(data, list) else data   # `unit: [1, 0, 1]` = hazards only

    @model_validator(mode="after")
    def _nonneg(self):
        if any(h < 0 for h in self.hazards):
            raise ValueError("hazards: a count of hazard rolls (0 or more) for each hex of the path")
        return self


class AttackHexsideModel(Strict):
    features: list[Feature] = []
    defender_upslope: bool = False


class ReservesModel(Strict):
    attacker: bool = False
    defender: bool = False


class BattleModel(Strict):
    """A battle file (YAML or JSON); see docs/n20-battles.md."""

    edition: Literal["v3", "v2"] | None = None
    name: str = ""
    notes: str = ""
    tables: str | None = None
    attackers: list[UnitSpec] = Field(min_length=1, max_length=MAX_UNITS_PER_SIDE)
    defenders: list[UnitSpec] = Field(min_length=1, max_length=MAX_UNITS_PER_SIDE)
    attacker: Literal["french", "allied"] | None = None
    reserves: ReservesModel = ReservesModel()
    countercharge: bool = False
    morale: dict[Literal["french", "allied"], int] | None = None
    command: Literal["in", "out", "auto"] | None = None
    artillery_support: Union[int, Literal["auto"]] = 0
    reduce_to: int | None = None
    fatigue: bool = False
    reliability_checks: bool = False
    british_reliability_lapsed: bool = False
    terrain: str = "clear"
    hexsides: list[AttackHexsideModel] = []
    paths: dict[str, PathSpecModel] = {}
    map: str | None = None
    others: list[UnitSpec] = Field(default=[], max_length=MAX_OTHER_UNITS)

    @model_validator(mode="after")
    def _checks(self):
        if self.morale:
            for s, v in self.morale.items():
                if v < 0:
                    raise ValueError(f"morale.{s}: a Morale level of 0 or more (12.0)")
        if isinstance(self.artillery_support, int) and self.artillery_support < 0:
            raise ValueError("artillery_support: a number of supported defenders (0 or more) or 'auto'")
        return self


def _resolve(base: Path | None, ref: str) -> Path:
    """A file named in a battle file: relative to the battle file, else to the working directory, else
    to the project's ``data/`` folder (so ``n20/fuentes/map.yaml`` works from anywhere)."""
    p = Path(ref)
    if p.is_absolute():
        return p
    for cand in ((base / p) if base is not None else None, p, data_path(ref)):
        if cand is not None and cand.exists():
            return cand
    return (base / p) if base is not None else p


def battle_from_model(m: BattleModel, file: str = "<battle>", tables: Tables | None = None,
                      base: Path | None = None, board: Board | None = None) -> Battle:
    """Build a :class:`Battle` from a validated model; checks names against the tables and the map.
    ``board``: an already-loaded map to use instead of the model's ``map`` file."""
    if tables is None:
        if m.tables:
            tables = load_tables(_resolve(base, m.tables))
        else:
            tables = default_tables(m.edition or "v3")
    if m.edition is not None and m.edition != tables.edition:
        raise DataError(file, "edition", f"the edition of the tables file ({tables.edition}, {tables.file})", m.edition)
    side_a = m.attacker or m.attackers[0].side or "french"
    side_d = other_side(side_a)
    ids: set[str] = set()

    def mk(specs, side, where):
        out = []
        for i, s in enumerate(specs):
            if s.id in ids:
                raise DataError(file, f"{where}[{i}].id", "a unit id used only once in the battle", s.id)
            ids.add(s.id)
            if s.side is not None and side is not None and s.side != side:
                raise DataError(file, f"{where}[{i}].side", f"{side} (all {where} fight on one side)", s.side)
            if where == "attackers" and s.type in ("leader", "garrison"):
                raise DataError(file, f"{where}[{i}].type",
                                "a fighting unit (leaders 16.9 and garrisons 9.4.4 do not attack)", s.type)
            if where == "defenders" and s.type == "leader":
                raise DataError(file, f"{where}[{i}].type", "a fighting unit (a leader has no combat strength, "
                                "16.9; list it under others, it follows its unit)", s.type)
            if s.bombarding and (where != "attackers" or s.type != "artillery"):
                raise DataError(file, f"{where}[{i}].bombarding", "only attacking artillery bombards (16.3.2)", True)
            if s.terrain is not None and not tables.has_terrain(s.terrain):
                raise DataError(file, f"{where}[{i}].terrain",
                                f"a terrain the tables' TEC lists ({', '.join(tables.model.tec.terrain)})", s.terrain)
            out.append(s.to_unit(side or s.side))
        return tuple(out)

    attackers = mk(m.attackers, side_a, "attackers")
    defenders = mk(m.defenders, side_d, "defenders")
    others = []
    for i, s in enumerate(m.others):
        if s.id in ids:
            raise DataError(file, f"others[{i}].id", "a unit id used only once in the battle", s.id)
        if s.side is None:
            raise DataError(file, f"others[{i}].side", "french or allied")
        ids.add(s.id)
        others.append(s.to_unit())
    if not tables.has_terrain(m.terrain):
        raise DataError(file, "terrain", f"a terrain the tables' TEC lists ({', '.join(tables.model.tec.terrain)})",
                        m.terrain)
    for i, hs in enumerate(m.hexsides):
        for f in hs.features:
            if f not in tables.model.tec.hexsides:
                raise DataError(file, f"hexsides[{i}].features", "a hexside feature the tables' TEC lists", f)
    paths = []
    for uid, spec in m.paths.items():
        if uid not in ids:
            raise DataError(file, f"paths.{uid}", "the id of an attacking or defending unit", uid)
        if isinstance(spec, list):
            if any(h < 0 for h in spec):
                raise DataError(file, f"paths.{uid}", "hazard counts of 0 or more per hex", spec)
            spec = PathSpecModel(hazards=spec)
        paths.append((uid, PathSpec(tuple(spec.hazards), spec.road, spec.loc_at, spec.blocked_after, spec.friend_at)))
    if board is None and m.map is not None:
        board = load_board(_resolve(base, m.map))
    if board is not None:
        for where, group in (("attackers", m.attackers), ("defenders", m.defenders), ("others", m.others)):
            for i, s in enumerate(group):
                if s.hex is None or not board.on_map(s.hex):
                    raise DataError(file, f"{where}[{i}].hex", f"a hex of the map {board.name!r} (a map battle places every unit)", s.hex)
                t = board.terrain(s.hex)
                if where == "defenders" and not tables.has_terrain(t):
                    raise DataError(file, f"{where}[{i}].hex", "a hex whose terrain the tables' TEC lists", t)
        bombarding = {s.id for s in m.attackers if s.bombarding}
        for a in attackers:
            for d in defenders:
                if not board.grid.adjacent(a.hex, d.hex):
                    raise RuleViolation("9.2.2", f"attacker {a.id} in {a.hex} is not adjacent to defender {d.id} "
                                        f"in {d.hex}: every attacker must be adjacent to every defender")
                # 7.0 / 9.4.3 (parameters.yaml, major_river_bridge_adjacent): the same reading as the game's
                if not board.adjacent_for_combat(a.hex, d.hex, tables.rules.major_river_bridge_adjacent) \
                        and a.id not in bombarding:
                    raise RuleViolation("16.3.2", f"{a.id} in {a.hex} faces {d.id} across a major river with no "
                                        f"bridge or ford: only bombarding artillery attacks across it")
        seen: dict[str, str] = {}
        for u in attackers + defenders + tuple(others):
            if u.type == "leader":
                continue
            if u.hex in seen:
                raise RuleViolation("6.9", f"units {seen[u.hex]} and {u.id} share hex {u.hex}")
            seen[u.hex] = u.id
    if m.command is not None and not tables.rules.leaders:
        raise RuleViolation("16.9.4", f"the {tables.edition} rules have no leader command")
    if m.command == "auto" and board is None:
        raise DataError(file, "command", "in or out (auto needs a map with leader units)", m.command)
    if m.artillery_support == "auto" and board is None:
        raise DataError(file, "artillery_support", "a number (auto needs a map)", m.artillery_support)
    if m.fatigue and not tables.rules.fatigue:
        raise RuleViolation("16.8", f"the {tables.edition} rules have no fatigue")
    for u in attackers + defenders:
        if u.routed and not tables.rules.routed_markers:
            raise RuleViolation("9.6.3", f"the {tables.edition} rules have no Routed! markers (unit {u.id})")
    b = Battle(
        tables=tables, attackers=attackers, defenders=defenders, attacker_side=side_a,
        reserves_attacker=m.reserves.attacker, reserves_defender=m.reserves.defender,
        countercharge=m.countercharge,
        morale=tuple(sorted(m.morale.items())) if m.morale is not None else None,
        command=m.command, artillery_support=m.artillery_support, reduce_to=m.reduce_to, fatigue=m.fatigue,
        reliability_checks=m.reliability_checks, british_reliability_lapsed=m.british_reliability_lapsed,
        terrain=tuple((s.id, s.terrain or m.terrain) for s in m.defenders),
        hexsides=tuple((frozenset(h.features), h.defender_upslope) for h in m.hexsides),
        paths=tuple(paths), bombarding=frozenset(s.id for s in m.attackers if s.bombarding),
        board=board, others=tuple(others), name=m.name, file=file)
    b.prepared  # validate reserve bans etc. now, before anything is printed
    return b


def load_battle(path: str | Path, tables: Tables | str | Path | None = None) -> Battle:
    """Load a battle file (YAML/JSON). ``tables``: a :class:`Tables`, a tables file path, or None (the
    battle's own ``tables:`` entry, else the shipped tables of its edition)."""
    p = Path(path)
    m = load_yaml(p, BattleModel)
    if tables is not None and not isinstance(tables, Tables):
        tables = load_tables(tables)
    return battle_from_model(m, str(p), tables, p.parent)


def parse_battle(text_or_data, name: str = "<battle>", tables: Tables | None = None) -> Battle:
    """A battle from YAML/JSON text or an already-parsed dict (e.g. built by a dashboard)."""
    if isinstance(text_or_data, str):
        m = parse_yaml(text_or_data, BattleModel, name)
    else:
        m = validate(text_or_data, BattleModel, name)
    return battle_from_model(m, name, tables, None)
