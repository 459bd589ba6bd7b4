"""The Albuera 1811 scenario: order of battle, set-up, schedule and the optional scenario rules."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field

from engine.core.data import Sourced, Strict, data_path, load_yaml
from engine.core.errors import DataError, RuleViolation

from .board import Board, default_board
from .fingerprint import Fingerprinted
from .units import Unit

__all__ = ["ScenarioSpec", "UnitEntry", "initial_leaders", "LEADER_ATTRIBUTES", "load_scenario", "default_scenario", "SCENARIO_FILE", "OPTIONS",
           "initial_units"]

SCENARIO_FILE = data_path("lob", "albuera", "scenario.yaml")

# the six optional scenario rules (the 'bid' one acts before play, through new_game's morale_bid), and
# the optional rules 7.1 (leaders) and 7.1.3 (light cavalry activated without a leader)
OPTIONS = ("kemmis", "madden", "spanish-no-show", "rain", "bid", "setup", "setup-allied", "setup-french", "leaders",
           "light-cavalry")


class UnitEntry(Strict):
    uid: str = Field(min_length=1)
    name: str
    side: Literal["French", "Allied"]
    kind: Literal["inf", "cav", "art"]
    rating: int = Field(default=0, ge=0, le=9)
    cav: Literal["heavy", "light", "lancer"] | None = None
    arty: Literal["foot", "horse", "heavy", "rockets"] = "foot"
    area: str
    command: tuple[str, ...] = ()


#: the leaders' attributes the engine implements (7.1.2)
LeaderAttribute = Literal["fat", "obese", "fine-rider", "wanderer", "imbecile", "foolhardy", "inspiring",
                          "demoralising", "foaming", "fearful", "artilleryman", "marcher", "disorganised"]
LEADER_ATTRIBUTES: tuple[str, ...] = get_args(LeaderAttribute)


class LeaderEntry(Strict):
    name: str
    area: str
    side: Literal["French", "Allied"]
    commands: tuple[str, ...]
    attributes: tuple[LeaderAttribute, ...] = ()   # 7.1.2 (the ones the engine implements)


class Morale(Strict):
    French: int
    Allied: int


class ScenarioSpec(Fingerprinted, Sourced):
    """The scenario as loaded; equal and hashable by its content (``fingerprint``, computed once)."""

    name: str
    first_player: Literal["French", "Allied"]
    turns: int = Field(ge=1)
    morale: Morale
    units: tuple[UnitEntry, ...] = Field(min_length=1)
    leaders: tuple[LeaderEntry, ...] = ()
    optional_units: dict[str, tuple[UnitEntry, ...]] = {}
    spanish_no_show: str = ""


def _check(spec: ScenarioSpec, board: Board, file: str) -> ScenarioSpec:
    seen = set()
    everything = list(spec.units) + [u for us in spec.optional_units.values() for u in us]
    for i, u in enumerate(everything):
        where = f"units[{i}]" if i < len(spec.units) else f"optional_units ({u.uid})"
        if u.uid in seen:
            raise DataError(file, f"{where}.uid", "a unique unit id", u.uid)
        seen.add(u.uid)
        if u.area not in board:
            raise DataError(file, f"{where}.area", "an area of the map", u.area)
        if (u.kind == "cav") != (u.cav is not None):
            raise DataError(file, f"{where}.cav", "a cavalry type for cavalry only (heavy, light, lancer)", u.cav)
        if u.kind != "art" and u.rating < 1:
            raise DataError(file, f"{where}.rating", "1 or more for infantry and cavalry", u.rating)
        if u.kind == "art" and u.rating != 0:
            raise DataError(file, f"{where}.rating", "0 for artillery (it has no rating, rule 1.2)", u.rating)
    names = set()
    for i, ld in enumerate(spec.leaders):
        if ld.name in names or ld.name in seen:
            raise DataError(file, f"leaders[{i}].name", "a unique name (not a unit id either)", ld.name)
        names.add(ld.name)
        if ld.area not in board:
            raise DataError(file, f"leaders[{i}].area", "an area of the map", ld.area)
    return spec


def load_scenario(path: str | Path | None = None, board: Board | None = None) -> ScenarioSpec:
    if path is None:
        return default_scenario()
    return _check(load_yaml(path, ScenarioSpec), board or default_board(), str(path))


@lru_cache(maxsize=1)
def default_scenario() -> ScenarioSpec:
    return _check(load_yaml(SCENARIO_FILE, ScenarioSpec), default_board(), str(SCENARIO_FILE))


def initial_leaders(spec: ScenarioSpec, options: frozenset[str] = frozenset()) -> tuple:
    """7.1: the leaders, when the option is on (Blake and Zayas stay home with the Spanish no-show)."""
    from .units import Leader
    if "leaders" not in options:
        return ()
    out = []
    for ld in spec.leaders:
        if "spanish-no-show" in options and ld.name in ("Blake", "Zayas"):
            continue                                                   # optional rule 4
        commands = ld.commands
        if "spanish-no-show" in options and ld.name == "Beresford":
            commands = commands + ("5th-army",)                        # optional rule 4: he takes the 5th Army
        out.append(Leader(name=ld.name, side=ld.side, area=ld.area, commands=commands,
                          attributes=ld.attributes))
    return tuple(sorted(out))


def initial_units(spec: ScenarioSpec, options: frozenset[str] = frozenset(),
                  board: Board | None = None) -> tuple[Unit, ...]:
    """The set-up, with the optional scenario rules 2-4 applied (Kemmis, Madden, Spanish no-show)."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise RuleViolation("Albuera optional rules", f"unknown option(s) {sorted(unknown)}; known: {', '.join(OPTIONS)}")
    entries = list(spec.units)
    if "kemmis" in options:
        entries += list(spec.optional_units.get("kemmis", ()))        # optional rule 2
    if "madden" in options:
        entries += list(spec.optional_units.get("madden", ()))        # optional rule 3
    if "spanish-no-show" in options and spec.spanish_no_show:
        entries = [u for u in entries if spec.spanish_no_show not in u.command]   # optional rule 4
    units = []
    board = default_board() if board is None else board
    for u in entries:
        # artillery starts deployed where it may fire (open terrain); the set-up does not say (provisional)
        units.append(Unit(uid=u.uid, side=u.side, kind=u.kind, rating=u.rating, cav=u.cav, area=u.area,
                          arty=u.arty, deployed=u.kind == "art" and not board.is_close(u.area),
                          name=u.name, command=u.command))
    return tuple(sorted(units))
