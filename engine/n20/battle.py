"""One Napoleonic 20 battle, from strengths to morale: the procedure 9.0 steps A-G and everything after.

:func:`battle_procedure` is THE rules procedure: a generator that yields requests (dice, choices,
sub-procedures) and returns a hashable :class:`Outcome`. The game engine runs it with the play driver;
:mod:`engine.n20` runs it with the enumerate driver for exact odds and trees. Nothing here touches an RNG.

Steps (rule numbers from the v3.0 standard rules, 000; the older edition 001 differs where
``data/n20/parameters.yaml`` says so):

* B-C strengths: printed strength (stragglers 0, 16.7.5), squares take -1 from attacking cavalry (17.1),
  attacking artillery doubled (9.3) unless bombarding (16.3.2), countercharging units doubled unless
  a defender is cavalry (8.2.2), Routed! units halved rounding up (9.6.3); the single best terrain
  benefit over all defenders' hexes and the hexsides attacked through (9.4-9.4.2, steep slopes only
  when every attacker is downslope, exclusive 2.0), defensive artillery support (16.3.1), garrisons
  (9.4.4), reserves +1 per side with their bans (12.5, 9.6.3, 9.4.4, 16.7.5), then the unreliable
  waver rolls (16.7.3; in 001 the Portuguese reliability checks of 16.9).
* D-E differential, leader command -1 (16.9.4), voluntary reduction (9.5), CRT column clamped to the ends.
* F the CRT roll; G the result (9.6 [A]-[H]) with retreats (:mod:`.retreat`), advance (:mod:`.advance`),
  Guard recule (12.2.2), morale (:mod:`.morale`), Routed! markers (9.6.3) and fatigue (16.8.1).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace as _replace
from collections import OrderedDict
from dataclasses import fields as _fields
from functools import lru_cache, partial
import threading
from types import MappingProxyType
from itertools import combinations
from math import ceil
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import Field, model_validator

from engine.core.values import cached_hash_repr, hash_first_eq
from engine.core.data import Strict, load_yaml, parse_yaml, validate
from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import Choose, Log, Roll, Sub

from .advance import AdvanceResult, advance_procedure
from .board import Board, load_board
from .morale import MoraleItem, apply_morale, morale_items
from .retreat import ContextFreeRetreat, MapRetreat, PathSpec, RetreatResult, hazard_roll
from .tables import Tables, default_tables, load_tables
from .units import Unit, UnitSpec, other_side

__all__ = ["BattleModel", "Battle", "Outcome", "UnitFate", "battle_procedure", "load_battle", "parse_battle",
           "battle_from_model", "Strengths", "strengths", "crt_roll"]

Feature = Literal["minor_river", "major_river", "bridge", "ford", "slope", "steep_slope"]


# ------------------------------------------------------------------------------------------------
# Battle file model
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# Battle value
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Battle:
    """A battle ready to resolve: a value (equal battles are equal and hash alike). What is derived from
    it (the unit index, its hash) is made at construction; what its deterministic steps work out is kept
    in bounded module caches keyed by the battle value (:func:`_cached`, :func:`_strengths_of`), never
    written into it."""

    tables: Tables
    attackers: tuple[Unit, ...]
    defenders: tuple[Unit, ...]
    attacker_side: str
    reserves_attacker: bool = False
    reserves_defender: bool = False
    countercharge: bool = False
    morale: tuple[tuple[str, int], ...] | None = None
    command: str | None = None
    artillery_support: int | str = 0
    reduce_to: int | None = None
    fatigue: bool = False
    reliability_checks: bool = False
    british_reliability_lapsed: bool = False
    terrain: tuple[tuple[str, str], ...] = ()          # defender id -> terrain (context-free)
    hexsides: tuple[tuple[frozenset, bool], ...] = ()  # (features, defender upslope) per attacking hexside
    paths: tuple[tuple[str, PathSpec], ...] = ()
    bombarding: frozenset = frozenset()
    board: Board | None = None
    others: tuple[Unit, ...] = ()
    name: str = ""
    file: str = "<battle>"
    # derived at construction (not fields of the value: dataclasses.replace() makes them afresh)
    _units: dict = field(default=None, init=False, repr=False, compare=False)
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _derive_battle(self)

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict:
        # a string hashes differently in another process: the hash is made again there
        return {k: v for k, v in self.__dict__.items() if k not in ("_units", "_hash")}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        _derive_battle(self)

    @property
    def edition(self) -> str:
        return self.tables.edition

    @property
    def rules(self):
        return self.tables.rules

    @property
    def defender_side(self) -> str:
        return other_side(self.attacker_side)

    @property
    def on_map(self) -> bool:
        return self.board is not None

    @property
    def units(self) -> dict[str, Unit]:
        return self._units

    @property
    def prepared(self) -> "Strengths":
        return _strengths_of(self)

    def morale_levels(self) -> dict[str, int] | None:
        return dict(self.morale) if self.morale is not None else None

    def to_json(self) -> dict:
        out = {"edition": self.edition, "name": self.name, "attacker": self.attacker_side,
               "attackers": [u.to_json() for u in self.attackers],
               "defenders": [u.to_json() for u in self.defenders],
               "reserves": {"attacker": self.reserves_attacker, "defender": self.reserves_defender}}
        if self.board is not None:
            out["map"] = self.board.name
        return out


#: the compared fields of a battle, gathered as one tuple in C: its hash, and its equality with the
#: shortcuts of a hash made at construction (a battle is compared with the one of the same value in the step
#: caches at every step of its procedure)
_BATTLE_FIELDS = attrgetter(*(f.name for f in _fields(Battle) if f.compare))
Battle.__eq__ = hash_first_eq(_BATTLE_FIELDS)


def _derive_battle(b: Battle) -> None:
    units = b.attackers + b.defenders + b.others
    object.__setattr__(b, "_units", MappingProxyType(dict(zip(map(_ID, units), units))))
    object.__setattr__(b, "_hash", hash(_BATTLE_FIELDS(b)))


_ID = attrgetter("id")


@lru_cache(maxsize=1024)
def _strengths_of(b: Battle) -> "Strengths":
    # keyed by the battle value; a banned reserve raises (and nothing is kept)
    return strengths(b)


#: what the deterministic steps of a battle work out, keyed by (battle value, step key); bounded, first in
#: first out, guarded by a lock so that threads share it (at worst a value is worked out twice)
_STEPS: "OrderedDict[tuple, object]" = OrderedDict()
_STEPS_SIZE = 8192
_STEPS_LOCK = threading.Lock()


def _cached(b: Battle, key, make):
    k = (b, key)
    hit = _STEPS.get(k)
    if hit is None:
        hit = make()
        with _STEPS_LOCK:
            _STEPS[k] = hit
            if len(_STEPS) > _STEPS_SIZE:
                _STEPS.popitem(last=False)
    return hit


# ------------------------------------------------------------------------------------------------
# Loading
# ------------------------------------------------------------------------------------------------
def _resolve(base: Path | None, ref: str) -> Path:
    """A file named in a battle file: relative to the battle file, else to the working directory, else
    to the project's ``data/`` folder (so ``n20/fuentes/map.yaml`` works from anywhere)."""
    from engine.core.data import data_path

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
                    raise DataError(file, f"{where}[{i}].hex", f"a hex whose terrain the tables' TEC lists", t)
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


# ------------------------------------------------------------------------------------------------
# Strengths (steps B-D), deterministic part
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WaverCheck:
    unit: str
    rule: str
    modifier: int
    wavers_up_to: int


@dataclass(frozen=True)
class Strengths:
    attack: tuple[tuple[str, int], ...]      # unit -> battle strength before wavering
    defend: tuple[tuple[str, int], ...]
    terrain: int
    terrain_from: str
    support: int
    reserve_attacker: int
    reserve_defender: int
    command: int                              # 0 or -1 (16.9.4)
    checks: tuple[WaverCheck, ...]
    lines: tuple[tuple[str, str], ...]        # (rule, explanation) for logs and JSON

    @property
    def attack_total(self) -> int:
        return sum(s for _, s in self.attack) + self.reserve_attacker

    @property
    def defend_total(self) -> int:
        return sum(s for _, s in self.defend) + self.terrain + self.support + self.reserve_defender


def _terrain_benefit(b: Battle) -> tuple[int, str]:
    """9.4.1 / 9.4.2: the single best benefit over the defenders' hexes and the hexsides attacked across."""
    t = b.tables
    best, why = 0, "clear"

    def consider(v: int, label: str):
        nonlocal best, why
        if v > best:
            best, why = v, label

    if b.board is None:
        for uid, name in b.terrain:
            consider(t.terrain_combat(name), name)
        entries = b.hexsides
        all_steep = bool(entries) and all("steep_slope" in f and up for f, up in entries)
        for feats, up in entries:
            for f in feats:
                e = t.hexside(f)
                if e.downslope_only and not up:
                    continue
                if e.all_attackers_downslope and not all_steep:
                    if "slope" in t.model.tec.hexsides:    # a steep slope not attacked only from below: plain slope
                        consider(t.hexside("slope").combat, "slope (steep slope not attacked only from below)")
                    continue
                consider(e.combat, f)
        return best, why
    board = b.board
    for d in b.defenders:
        consider(t.terrain_combat(board.terrain(d.hex)), f"{board.terrain(d.hex)} {d.hex}")
        steep_all = all("steep_slope" in board.hexside_features(a.hex, d.hex)
                        and board.upslope_hex(a.hex, d.hex) == d.hex for a in b.attackers)
        for a in b.attackers:
            feats = board.hexside_features(a.hex, d.hex)
            up = board.upslope_hex(a.hex, d.hex) == d.hex
            for f in feats:
                e = t.hexside(f)
                if e.downslope_only and not up:
                    continue
                if e.all_attackers_downslope and not steep_all:
                    if "slope" in t.model.tec.hexsides:
                        consider(t.hexside("slope").combat, f"slope {a.hex}-{d.hex}")
                    continue
                consider(e.combat, f"{f} {a.hex}-{d.hex}")
    return best, why


def strengths(b: Battle) -> Strengths:
    """Steps B-D of 9.0 that need no die; raises :class:`RuleViolation` for a banned reserve."""
    lines: list[tuple[str, str]] = []
    square = any(d.square for d in b.defenders)
    cav_defending = any(d.is_cavalry for d in b.defenders)
    attack = []
    for u in b.attackers:
        s = 0 if u.straggler else u.strength
        if u.straggler:
            lines.append(("16.7.5", f"{u.id}: straggler fights at 0"))
        if square and u.is_cavalry and s:
            s -= 1
            lines.append(("17.1", f"{u.id}: cavalry attacking a square -1"))
        if u.type == "artillery":
            if u.id in b.bombarding:
                lines.append(("16.3.2", f"{u.id}: bombards at printed strength"))
            else:
                s *= 2
                lines.append(("9.3", f"{u.id}: attacking artillery doubled"))
        if b.countercharge and not cav_defending:
            s *= 2
            lines.append(("8.2.2", f"{u.id}: countercharge doubled"))
        if u.routed:
            s = ceil(s / 2)
            lines.append(("9.6.3", f"{u.id}: Routed! halved (round up)"))
        attack.append((u.id, s))
    if b.countercharge and cav_defending:
        lines.append(("8.2.2", "no countercharge doubling against cavalry"))
    defend = []
    for u in b.defenders:
        s = 0 if (u.straggler or u.type == "leader") else u.strength     # 16.9: a leader has no strength
        if u.type == "garrison":
            lines.append(("9.4.4", f"{u.id}: garrison strength {s}"))
        if u.routed:
            s = ceil(s / 2)
            lines.append(("9.6.3", f"{u.id}: Routed! halved (round up)"))
        defend.append((u.id, s))
    terrain, why = _terrain_benefit(b)
    if terrain:
        lines.append(("9.4.1", f"best terrain benefit +{terrain} ({why})"))
    # 16.3.1 defensive artillery support
    if b.artillery_support == "auto":
        arts = [o for o in b.others if o.side == b.defender_side and o.type == "artillery" and o.exerts_zoc]
        support = sum(1 for d in b.defenders if any(d.hex in b.board.zoc_of(a.hex) for a in arts))
    else:
        support = int(b.artillery_support)
        if support > len(b.defenders):
            raise DataError(b.file, "artillery_support", f"at most one per defending unit ({len(b.defenders)})", support)
    if support:
        lines.append(("16.3.1", f"artillery support +{support}"))
    # 12.5 reserves with their bans
    ra = rd = 0
    if b.reserves_attacker:
        if all(u.routed for u in b.attackers):
            raise RuleViolation("9.6.3", "no reserves for a battle in which every attacking unit is Routed!")
        if all(u.straggler for u in b.attackers):
            raise RuleViolation("16.7.5", "no reserves for a battle fought only by stragglers")
        ra = 1
        lines.append(("12.5", "attacker commits reserves +1"))
    if b.reserves_defender:
        if all(u.routed for u in b.defenders):
            raise RuleViolation("9.6.3", "no reserves for a battle in which every defending unit is Routed!")
        if all(u.straggler for u in b.defenders):
            raise RuleViolation("16.7.5", "no reserves for a battle fought only by stragglers")
        if all(u.type == "garrison" for u in b.defenders):
            raise RuleViolation("9.4.4", "no reserves for a battle that involves only a garrison")
        rd = 1
        lines.append(("12.5", "defender commits reserves +1"))
    levels = b.morale_levels()
    for side, spend in ((b.attacker_side, ra), (b.defender_side, rd)):
        if spend and levels is not None and levels.get(side, 1) < 1:
            raise RuleViolation("12.5", f"{side} has no Morale Point to spend on reserves")
    # 16.9.4 leader command
    command = 0
    if b.command == "out":
        command = -1
    elif b.command == "auto":
        leaders = [o for o in b.others if o.side == b.attacker_side and o.type == "leader"]
        if not any(b.board.distance(l.hex, a.hex) <= l.strength for l in leaders for a in b.attackers):
            command = -1
    if command:
        lines.append(("16.9.4", "attackers out of command: differential -1"))
    # reliability checks
    checks = []
    rules = b.rules
    if rules.reliability == "unreliable":
        # 16.7.3: rolled after reserves are committed, so compare the levels after those points are spent
        after = None
        if levels is not None:
            after = dict(levels)
            for side, spend in ((b.attacker_side, ra), (b.defender_side, rd)):
                if side in after:
                    after[side] -= spend
        for u in b.attackers + b.defenders:
            if u.unreliable:
                mod = 0
                if after is not None and u.side in after and other_side(u.side) in after \
                        and after[u.side] < after[other_side(u.side)]:
                    mod = -1
                checks.append(WaverCheck(u.id, "16.7.3", mod, 1))
    elif b.reliability_checks:
        for u in b.attackers + b.defenders:
            if u.side != "allied" or u.type == "garrison":
                continue
            if u.portuguese or (not u.elite and not b.british_reliability_lapsed):
                checks.append(WaverCheck(u.id, "16.9.1", 0, 2))
    return Strengths(tuple(attack), tuple(defend), terrain, why, support, ra, rd, command, tuple(checks), tuple(lines))


# ------------------------------------------------------------------------------------------------
# Outcome
# ------------------------------------------------------------------------------------------------
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


# ------------------------------------------------------------------------------------------------
# Sub-procedures
# ------------------------------------------------------------------------------------------------
def _bands(effect) -> tuple[tuple[int, ...], ...]:
    """Group the faces of a d6 whose effect is the same (for banded rolls: compact exact trees)."""
    groups: dict = {}
    for face in range(1, 7):
        groups.setdefault(effect(face), []).append(face)
    return tuple(tuple(g) for g in groups.values())


@lru_cache(maxsize=None)
def _rout_bands(mod: int, elite: bool):
    # 9.6.2: an elite unit below 1 withdraws, whatever the face
    return _bands(lambda f: "withdraw" if (elite and f + mod < 1) else max(f + mod, 1))


def crt_roll(tables: Tables, column: int):
    """9.0 F: one die cross-indexed with the differential column (faces with one result form one band)."""
    bands = _cached_crt_bands(tables, column)
    die = yield Roll("d6", rule="9.0 F", label=f"CRT column {column:+d}", bands=bands)
    return tables.crt_result(column, die)


@lru_cache(maxsize=1024)
def _cached_crt_bands(tables: Tables, column: int):
    # a module cache keyed by value (tables compare by identity and are immutable), not written into them
    return _bands(lambda f: tables.crt_result(column, f))


def waver_roll(check: WaverCheck):
    """16.7.3 (v3): modified roll of 1 or less wavers; 16.9.1 (001): 1 or 2 wavers, and a 6 ends British checks."""
    if check.rule == "16.9.1":
        bands = _bands(lambda f: (f <= check.wavers_up_to, f == 6))
    else:
        bands = _bands(lambda f: f + check.modifier <= check.wavers_up_to)
    roll = yield Roll("d6", rule=check.rule, label=f"reliability of {check.unit}", bands=bands)
    if check.modifier:
        yield Log(check.rule, f"die {roll} {check.modifier:+d} = {roll + check.modifier}")
    wavers = roll + check.modifier <= check.wavers_up_to
    if check.rule == "16.9.1":
        return ("wavers" if wavers else "steady", roll == 6)
    return "wavers" if wavers else "steady"


def _fortified(b: Battle, u: Unit) -> bool:
    if b.board is not None:
        t = b.board.terrain(u.hex)
    else:
        t = dict(b.terrain).get(u.id, "clear")
    return t in ("fortified", "redoubt")


def _in_enemy_cavalry_zoc(b: Battle, u: Unit, positions: tuple) -> bool:
    """17.1: is ``u`` in the ZOC of an enemy cavalry unit? On a map: any enemy cavalry with a ZOC where it
    stands now (attackers, defenders or bystanders alike; Routed! units 9.6.3 and squares have none). Without
    a map: the enemy cavalry of the battle itself, which is adjacent by 9.2.2."""
    if b.board is not None:
        for uid, (side, h, zoc, _solid) in positions:
            if side != u.side and zoc and h and b.units[uid].is_cavalry and u.hex in b.board.zoc_of(h):
                return True
        return False
    enemies = b.defenders if u.side == b.attacker_side else b.attackers
    return any(e.is_cavalry and e.exerts_zoc for e in enemies)


def retreat_procedure(b: Battle, env, u: Unit, kind: str, positions: tuple, cavalry_zoc: bool | None = None):
    """Sub-procedure: one unit's rout or withdrawal with its path and hazards. Returns :class:`RetreatResult`.
    ``cavalry_zoc``: whether the unit stands in an enemy cavalry ZOC (17.1); None works it out."""
    rules = b.rules
    if cavalry_zoc is None:
        cavalry_zoc = u.square and _in_enemy_cavalry_zoc(b, u, positions)
    rule = "9.6 [E]" if u.side == b.defender_side else "9.6 [B]"
    fort = _fortified(b, u)
    distance, routed, marker, rout_distance = 1, False, False, None
    if kind == "rout":
        if u.straggler:                          # 16.7.5
            yield Log("16.7.5", f"{u.id} is a straggler: breaks instead of routing")
            return RetreatResult(u.id, "broken", advance_path=(u.hex,), advance_room=1, rule="16.7.5")
        if u.square and cavalry_zoc:             # 17.1: a square in any enemy cavalry ZOC checks first (9.8.3)
            r = yield from hazard_roll("17.1", f"{u.id}: square caught by cavalry")
            if r == "breaks":
                return RetreatResult(u.id, "broken", advance_path=(u.hex,), advance_room=1, rule="17.1")
        mod = 0
        if u.elite:
            mod += rules.elite_fortified_rout_modifier if fort else rules.elite_rout_modifier   # 9.6.2, 9.8.1
        if u.spanish_irregular:
            mod += 1                             # 16.7.7
        roll = yield Roll("d6", rule=rule, label=f"rout distance of {u.id}",
                          bands=_rout_bands(mod, u.elite))
        d = roll + mod
        if mod:
            yield Log("9.6.2" if u.elite else "16.7.7", f"rout die {roll} {mod:+d} = {d}")
        if d < 1 and u.elite:                    # 9.6.2: an elite unit withdraws instead
            yield Log("9.6.2", f"{u.id} withdraws instead of routing")
            kind = "withdraw"
        else:
            distance, routed, rout_distance = max(d, 1), True, max(d, 1)
            marker = rules.routed_markers
    if u.square and kind == "withdraw":          # 17.1: the square breaks up and withdraws with a Routed! marker
        marker = rules.routed_markers
    if u.type == "garrison":                     # 9.4.4: garrisons never retreat
        return RetreatResult(u.id, "held", advance_path=(u.hex,), advance_room=1, rule="9.4.4")
    # 9.8.1: one hex fewer, at the owner's option; in the older edition a routing elite's -3 already holds
    # that benefit (parameters.yaml, elite_fortified_includes_one_fewer)
    if fort and rules.fortified_one_fewer and not (routed and u.elite and rules.elite_fortified_includes_one_fewer):
        opts = ("one hex fewer", "full retreat")
        pick = yield Choose(opts, rule="9.8.1", player=u.side, label=f"{u.id} in a fortified hex")
        if pick == "one hex fewer":
            distance -= 1
    if rout_distance is not None:
        rout_distance = distance
    beyond = routed and distance > u.movement
    fate = "routed" if routed else "withdrew"
    if distance <= 0:
        return RetreatResult(u.id, "routed" if routed else "held", 0, u.hex, rout_distance, marker if routed else False,
                             False, routed, (), 0, "9.8.1")
    options = env.options(u, u.hex, distance, positions, _bystanders_of(b) if b.board is not None else ())
    if getattr(options, "cut", False):
        yield Log("9.8", f"{u.id}: the retreat path search stopped at its bound; some paths may be missing")
    if len(options) == 1:
        path = options[0]
    else:
        path = yield Choose(options, rule="9.8.2", player=u.side, label=f"retreat path of {u.id}")
    hexes = [u.hex] + list(path.hexes)
    where = u.hex
    for i, (h, hz) in enumerate(zip(path.hexes, path.hazards), start=1):
        for rule_h in hz:
            r = yield from hazard_roll(rule_h, f"{u.id} entering {h if b.board else 'hex ' + str(i)}")
            if r == "breaks":
                # 9.8.4 a river breaks the unit in the hex before crossing; 9.8.3 an EZOC in the hex entered
                at = i - 1 if rule_h == "9.8.4" else i
                adv = tuple(hexes[: at + 1]) if b.board else ()
                return RetreatResult(u.id, "broken", at, hexes[at] if b.board else None, None, False, beyond,
                                     routed, adv, at + 1, rule_h)
        where = h
    n = len(path.hexes)
    stop = path.through_friend_at
    room = (stop + 1) if stop is not None else n          # 9.9.1: the path ends at a friend retreated through
    adv = tuple(hexes[:room]) if b.board else ()
    if path.end == "loc":
        yield Log("9.8.7", f"{u.id} reaches its LOC before the end of its retreat and breaks")
        return RetreatResult(u.id, "broken", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1 if stop is None else room, "9.8.7")
    if path.end == "blocked":
        yield Log("9.8", f"{u.id} cannot complete its retreat and breaks")
        return RetreatResult(u.id, "broken", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1, "9.8")
    if path.end == "off_road":
        yield Log("16.7.6", f"{u.id} is road-bound and leaves the road: destroyed")
        return RetreatResult(u.id, "destroyed", n, where if b.board else None, None, False, beyond, routed,
                             tuple(hexes[: n + 1]) if b.board else (), n + 1, "16.7.6")
    return RetreatResult(u.id, fate, n, where if b.board else None, rout_distance, marker, beyond, routed, adv, room,
                         "9.8")


def _exchange_options(b: Battle, need: int):
    """9.6 [G]: sets of attacking units whose printed strengths reach ``need``, none of them superfluous;
    least printed strength lost first (then fewer units, then listing order)."""
    pool = [u for u in b.attackers if u.id not in b.bombarding]          # 16.3.2
    if need <= 0:
        return ((),)
    if sum(u.strength for u in pool) <= need:
        return (tuple(u.id for u in pool),)
    opts = []
    for k in range(1, len(pool) + 1):
        for combo in combinations(pool, k):
            tot = sum(u.strength for u in combo)
            if tot < need:
                continue
            if any(tot - u.strength >= need for u in combo):
                continue   # a unit could be spared: not a minimal choice
            opts.append((tot, k, tuple(pool.index(u) for u in combo), tuple(u.id for u in combo)))
    opts.sort()
    return tuple(o[-1] for o in opts)


# ------------------------------------------------------------------------------------------------
# The battle procedure
# ------------------------------------------------------------------------------------------------
def battle_procedure(b: Battle):
    """THE battle: yields dice / choices / sub-procedures, returns an :class:`Outcome` (9.0 A-G).

    Steps B-F (strengths, reliability rolls, differential, the CRT roll) are one sub-procedure, so that
    exact enumeration merges the reliability branches that end in the same result code; step G then
    applies the result (:func:`result_procedure`), one sub-procedure per retreating unit and one for
    the advance."""
    code, lapsed = yield Sub(("steps B-F", b), partial(crt_procedure, b), rule="9.0",
                             label="strengths, differential and the CRT")
    code = str(code)
    pick = None
    exchange = _cached(b, ("losses", code), lambda: _losses(b, code))[3]
    if exchange is not None:
        need, opts = exchange
        pick = opts[0] if len(opts) == 1 else (yield Choose(opts, rule="9.6 [G]", player=b.attacker_side,
                                                           label=f"exchange: attacking units to break (need {need})"))
    outcome = yield from result_procedure(b, code, pick)
    if lapsed:
        outcome = _replace(outcome, reliability_lapsed=True)
    return outcome


def crt_procedure(b: Battle):
    """Steps B-F of 9.0: strengths (deterministic part in :func:`strengths`), the reliability rolls
    (16.7.3 / 16.9), the differential with leader command (16.9.4) and voluntary reduction (9.5), the
    CRT roll. Returns ``(result code, whether a 16.9.2 six was rolled)``."""
    p = b.prepared
    tables = b.tables
    yield Log("9.0 B-C", f"attack {p.attack_total} vs defence {p.defend_total}")
    att = dict(p.attack)
    dfd = dict(p.defend)
    lapsed = False
    for chk in p.checks:
        r = yield from waver_roll(chk)
        if isinstance(r, tuple):
            r, six = r
            lapsed = lapsed or six
        if r == "wavers":
            yield Log(chk.rule, f"{chk.unit} wavers: -1 for this battle")
            if chk.unit in att:
                att[chk.unit] = max(0, att[chk.unit] - 1)
            else:
                dfd[chk.unit] = max(0, dfd[chk.unit] - 1)
    a_total = sum(att.values()) + p.reserve_attacker
    d_total = sum(dfd.values()) + p.terrain + p.support + p.reserve_defender
    diff = a_total - d_total + p.command
    used = diff
    if b.reduce_to is not None and b.reduce_to < diff:       # 9.5
        used = b.reduce_to
        yield Log("9.5", f"attacker reduces the differential from {diff:+d} to {used:+d}")
    column = tables.column_for(used)
    code = yield from crt_roll(tables, column)
    return CrtResult(code, lapsed)


class CrtResult(tuple):
    """Result of steps B-F: the CRT result code and whether a 16.9.2 six was rolled. Shows as the code."""

    def __new__(cls, code: str, lapsed: bool = False):
        return super().__new__(cls, (code, lapsed))

    def __str__(self) -> str:
        return self[0] + (" (a 6 on a reliability check, 16.9.2)" if self[1] else "")

    def to_json(self):
        return {"result": self[0], "british_reliability_lapsed": self[1]} if self[1] else self[0]


_RESULT_RULE = {"AB": "9.6 [A]", "AR": "9.6 [B]", "AW": "9.6 [C]", "DB": "9.6 [D]", "DR": "9.6 [E]",
                "DW": "9.6 [F]", "EX": "9.6 [G]", "N": "9.6 [H]"}


def _losses(b: Battle, code: str):
    """Which units break and which retreat for a CRT result (9.6 [A]-[H], 16.3.2)."""
    result = code
    if code == "EX" and b.bombarding and all(u.id in b.bombarding for u in b.attackers):
        result = "N"                                          # 16.3.2: bombardment alone
    to_break: list[Unit] = []
    to_retreat: list[tuple[Unit, str]] = []
    if result in ("AB", "AR"):
        for u in b.attackers:
            if u.id in b.bombarding:
                to_retreat.append((u, "withdraw"))            # 16.3.2: AB/AR become AW
            elif result == "AB":
                to_break.append(u)
            else:
                to_retreat.append((u, "rout"))
    elif result == "AW":
        to_retreat = [(u, "withdraw") for u in b.attackers]
    elif result in ("DB", "EX"):
        to_break = list(b.defenders)
    elif result == "DR":
        to_retreat = [(u, "rout") for u in b.defenders]
    elif result == "DW":
        to_retreat = [(u, "withdraw") for u in b.defenders]
    exchange = None
    if result == "EX":
        need = sum(u.strength for u in b.defenders if u.type != "leader")   # printed strengths only
        exchange = (need, _exchange_options(b, need))
    return result, tuple(to_break), tuple(to_retreat), exchange


def result_procedure(b: Battle, code: str, exchange_pick: tuple | None = None):
    """Sub-procedure: apply one CRT result with its retreats, advance, Guard recule and morale (9.6-9.9, 12.x).
    ``exchange_pick``: the attacking units the attacker breaks on an Exchange (9.6 [G])."""
    rules, tables = b.rules, b.tables
    result, to_break, to_retreat, exchange = _cached(b, ("losses", code), lambda: _losses(b, code))
    if result != code:
        yield Log("16.3.2", "bombardment alone: the Exchange becomes Engaged")
    to_break = list(to_break)
    if exchange is not None:
        if exchange_pick is None or exchange_pick not in exchange[1]:
            raise RuleViolation("9.6 [G]", f"the attacker must break one of {list(exchange[1])}")
        to_break += [b.units[i] for i in exchange_pick]
    fates: dict[str, RetreatResult] = {}
    for u in to_break:
        fate = "destroyed" if u.type == "garrison" else "broken"
        fates[u.id] = RetreatResult(u.id, fate, 0, None, advance_path=(u.hex,) if b.board else (), advance_room=1,
                                    rule="9.6")
    env = _cached(b, ("env",), lambda: MapRetreat(b.board, rules.loc_breaks_retreat) if b.board else
                  ContextFreeRetreat(dict(b.paths), rules.loc_breaks_retreat))
    positions = _positions(b, fates)
    for u, kind in to_retreat:
        r = yield Sub(("retreat", b, u.id, kind, positions),
                      partial(retreat_procedure, b, env, u, kind, positions,
                              u.square and _in_enemy_cavalry_zoc(b, u, positions)),
                      rule="9.8", label=f"{'rout' if kind == 'rout' else 'withdrawal'} of {u.id}")
        fates[u.id] = r
        positions = _positions(b, fates)
    fkey = tuple(fates.items())
    setup = _cached(b, ("advance", result, fkey), lambda: _advance_setup(b, result, fates, positions))
    adv = AdvanceResult(None)
    if setup is not None:
        victor, eligible, paths, garrison_hexes = setup
        adv = yield Sub(("advance", b, victor, paths, tuple(w.id for w in eligible)),
                        partial(advance_procedure, tables, rules, eligible, paths, victor, garrison_hexes),
                        rule="9.9", label="advance after combat")
    return _cached(b, ("outcome", code, result, fkey, adv), lambda: _assemble(b, code, result, fates, adv))


def _advance_setup(b: Battle, result: str, fates: dict, positions: tuple):
    """9.9.2: the victor's eligible units and the enemy retreat paths (None when nobody may advance)."""
    rules = b.rules
    if result in ("DB", "DR", "DW", "EX"):
        winners, losers, victor = b.attackers, b.defenders, b.attacker_side
    elif result in ("AB", "AR", "AW"):
        winners, losers, victor = b.defenders, b.attackers, b.defender_side
    else:
        return None
    eligible = tuple(u for u in winners if u.id not in fates and u.type not in ("artillery", "garrison", "leader")
                     and not u.routed and not (u.fatigue >= 4 and rules.fatigue and b.board is None))
    if victor == b.defender_side and b.countercharge:
        return None                                           # 8.2.3
    if victor == b.defender_side and b.board is not None and any(
            a.hex in b.board.garrisons and b.board.garrisons[a.hex].side == b.attacker_side for a in b.attackers):
        return None                                           # 9.4.4 covering garrison
    paths = tuple((r.advance_path, r.advance_room) for u in losers if (r := fates.get(u.id)) is not None)
    if b.board is not None:
        occupied = _occupied(b, positions)
        paths = tuple(_vacant_part(h, room, occupied) for h, room in paths)
    if not eligible or not any(room >= 1 for _, room in paths):
        return None
    if b.board is not None and rules.fatigue and any(w.fatigue >= 4 for w in eligible):
        ez = _enemy_zoc_for(b, victor, positions)             # 16.8.3: Spent units may not advance into an EZOC
        first = {h[0] for h, room in paths if h}
        eligible = tuple(w for w in eligible if w.fatigue < 4 or not (first & ez))
        if not eligible:
            return None
    garrison_hexes = frozenset(h for h, g in (b.board.garrisons.items() if b.board else ()) if g.side != victor)
    garrison_hexes |= frozenset(u.hex for u in losers if u.type == "garrison" and u.hex)
    return victor, eligible, paths, garrison_hexes


def _occupied(b: Battle, positions: tuple) -> set:
    """The hexes some unit stands in (leaders, 16.9.2, do not count), ``positions`` as
    :func:`_positions_now` makes them: the battle's own units, then the bystanders, who stay put."""
    tail = _bystanders_of(b)
    n = len(positions) - len(tail)
    if n < 0 or positions[n:] != tail:
        return {h for _, (_side, h, _zoc, solid) in positions if solid and h}
    out = set(_cached(b, ("bystanders occupied",), lambda: _bystanders_occupied(b.others)))
    for _, (_side, h, _zoc, solid) in positions[:n]:
        if solid and h:
            out.add(h)
    return out


def _vacant_part(hexes: tuple, room: int, occupied: set) -> tuple[tuple, int]:
    """9.9.1: a retreat path is a path of vacant hexes. Once every retreat of the battle is done, it ends
    before the first hex some unit now stands in (a later retreat of the same battle may have stopped on it,
    ``occupied``: see :func:`_occupied`); leaders (16.9.2) do not block."""
    for i, h in enumerate(hexes):
        if h in occupied:
            return hexes[:i], min(room, i)
    return hexes, room


def _assemble(b: Battle, code: str, result: str, fates: dict, adv: AdvanceResult) -> Outcome:
    """Fates, Guard recule (12.2.2), morale (12.1-12.1.2), Routed! markers (9.6.3), fatigue (16.8.1)."""
    tables = b.tables
    attacker_won = result in ("DB", "DR", "DW", "EX")
    held = attacker_won and _defenders_kept_their_hexes(b, result, fates)
    recule = tuple(u.id for u in b.attackers if u.guard and not u.recule_exempt
                   and (not attacker_won or u.id in fates or u.routed or held))
    advanced = {uid: (n, h) for uid, n, h in adv.moves}
    out: list[UnitFate] = []
    garrison_gone = adv.garrison_destroyed
    for role, group in (("attacker", b.attackers), ("defender", b.defenders)):
        for u in group:
            r = fates.get(u.id)
            fatigue = None
            if b.fatigue:
                fatigue = u.fatigue if r is not None and r.fate in ("broken", "destroyed") else min(4, u.fatigue + 1)
            if r is None:
                n, h = advanced.get(u.id, (0, None))
                out.append(UnitFate(u.id, u.side, role, "held", 0, h if h else u.hex if b.board else None,
                                    advanced=n, fatigue=fatigue))
            else:
                fate = r.fate
                if u.type == "garrison" and fate == "held" and garrison_gone == u.hex:
                    fate = "destroyed"
                out.append(UnitFate(u.id, u.side, role, fate, r.hexes,
                                    None if fate in ("broken", "destroyed") else r.end_hex,
                                    r.marker and fate in ("routed", "withdrew"), r.routed, r.beyond_ma,
                                    None if fate in ("broken", "destroyed") else r.rout_distance,
                                    fatigue=fatigue))
    items = morale_items(tables, b.units, out,
                         {b.attacker_side: b.reserves_attacker, b.defender_side: b.reserves_defender}, recule)
    deltas, after, lost = apply_morale(tables, b.morale_levels(), items, (b.attacker_side, b.defender_side))
    return Outcome(code if result == code else f"{code}->{result}", tuple(out), deltas, items, after, lost,
                   adv.control, False, garrison_gone)


def _defenders_kept_their_hexes(b: Battle, result: str, fates: dict) -> bool:
    """12.2.2 reading (parameters.yaml, guard_recule_needs_vacated_hex): after a result against the
    defender, did every defender keep its hex so that no unit could advance after combat (9.9.1-9.9.2)?
    A fortified hex held (9.8.1) leaves no retreat path; a garrison that holds leaves its hex open to the
    attacker's advance (9.4.4), so it does not count as holding here."""
    if not b.rules.guard_recule_needs_vacated_hex or result not in ("DB", "DR", "DW", "EX"):
        return False
    paths = [(r.advance_path, r.advance_room) for d in b.defenders if (r := fates.get(d.id)) is not None]
    if b.board is not None:
        positions = _positions(b, fates)
        occupied = _occupied(b, positions)
        paths = [_vacant_part(h, room, occupied) for h, room in paths]
    return not any(room >= 1 for _, room in paths)


def _positions(b: Battle, fates: dict) -> tuple:
    """Where every unit stands now (broken ones removed): ((id, (side, hex, has ZOC, not a leader)), ...).
    Empty without a map: context-free retreat paths do not depend on where the others stand."""
    if b.board is None:
        return ()
    return _cached(b, ("positions", tuple(fates.values())), lambda: _positions_now(b, fates))


def _positions_now(b: Battle, fates: dict) -> tuple:
    # only the battle's own units have fates: the bystanders' part is worked out once per battle
    out = []
    for u in b.attackers + b.defenders:
        r = fates.get(u.id)
        if r is not None and r.fate in ("broken", "destroyed"):
            continue
        h = u.hex
        zoc = u.exerts_zoc and u.type != "leader"
        if r is not None and r.end_hex is not None:
            h = r.end_hex
            if r.marker:
                zoc = False                                  # 9.6.3: a Routed! unit has no ZOC
        out.append((u.id, (u.side, h, zoc, u.type != "leader")))   # leaders stack freely (16.9.2)
    return tuple(out) + _bystanders_of(b)


def _bystanders_of(b: Battle) -> tuple:
    # per battle value (its hash made once), not per tuple of bystanders (each of them hashed at every ask)
    return _cached(b, ("bystanders",), lambda: _bystanders(b.others))


@lru_cache(maxsize=256)
def _bystanders(others: tuple) -> tuple:
    """The part of :func:`_positions_now` for the units that are not in the battle (they stay put), keyed
    by those units (values whose hash is made once)."""
    return tuple(map(_position_of, others))


@lru_cache(maxsize=4096)
def _position_of(u: Unit) -> tuple:
    # one unit standing where it is: (id, (side, hex, has a ZOC 7.0, not a stack-free leader 16.9.2))
    return (u.id, (u.side, u.hex, u.exerts_zoc and u.type != "leader", u.type != "leader"))


@lru_cache(maxsize=256)
def _bystanders_occupied(others: tuple) -> frozenset:
    """The hexes the units that are not in the battle stand in (leaders, 16.9.2, do not count)."""
    return frozenset(u.hex for u in others if u.type != "leader" and u.hex)


def _enemy_zoc_for(b: Battle, side: str, positions: tuple) -> frozenset:
    out: set[str] = set()
    for uid, (s, h, zoc, _) in positions:
        if s != side and h and zoc:
            out |= b.board.zoc_of(h)
    return frozenset(out)
