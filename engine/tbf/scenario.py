"""The Dürenstein scenario as data: order of battle (units and leaders), set-up, activation limits,
mustering and reinforcement rolls, victory thresholds (9.0-10.0). The positions of a game made from it
are in :mod:`engine.tbf.game.state` (its first one: :func:`engine.tbf.game.setup.initial_state`)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml
from engine.core.errors import DataError, RuleViolation

from .board import Board, default_board, load_board
from .tables import Tables, default_tables, digest

__all__ = ["UnitDef", "LeaderDef", "OrderOfBattle", "ScenarioFile", "Scenario", "load_scenario", "default_scenario"]

Side = Literal["french", "coalition"]


class UnitDef(Strict):
    id: str
    name: str
    side: Side
    kind: Literal["infantry", "cavalry", "artillery"]
    command: str
    regiment: str
    fv: int = Field(ge=0, le=9)
    fv_f: int = Field(ge=0, le=9)
    ff: int = Field(ge=0)
    mf: int = Field(ge=0)
    ma: int = Field(ge=0)
    ma_f: int = Field(ge=0)
    ff_red: int = 0
    howitzer: bool = False
    source: Source = "provisional"


class LeaderDef(Strict):
    id: str
    name: str
    side: Side
    rank: Literal["corps", "division", "brigade", "army", "column"]
    command: str
    superior: str | None = None
    cv: int = Field(ge=0, le=5)
    ma: int = Field(ge=0)
    source: Source = "provisional"


class OrderOfBattle(Sourced):
    leaders: list[LeaderDef]
    units: list[UnitDef]

    @model_validator(mode="after")
    def _ids(self) -> OrderOfBattle:
        ids = [x.id for x in self.leaders] + [x.id for x in self.units]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"ids must be unique; repeated: {sorted(dup)[0]}")
        lids = {x.id for x in self.leaders}
        for x in self.leaders:
            if x.superior and x.superior not in lids:
                raise ValueError(f"leader {x.id}: superior {x.superior!r} is not a leader")
        return self


class Setup(Sourced):
    coalition: dict[str, str]
    french: dict[str, str]
    facing: dict[str, str]
    already_activated: list[str] = Field(default_factory=list)


class Activation(Sourced):
    coalition_start: list[str]
    french_start_units: list[str]
    french_start_leaders: list[str]
    french_release_turn: int
    french_release_row: int
    elite_release_turn: int


class Control(Sourced):
    french: list[str]
    coalition: list[str]


class Mustering(Sourced):
    II: dict[int, list[int]]
    III: dict[int, list[int]]


class Dupont(Sourced):
    first_turn: int
    needs: list[int]
    second_group_delay: dict[int, int]
    first_group: list[str]
    second_group: list[str]
    entry_hex: str


class Alert(Sourced):
    need: int
    drm_per_turn: int


class VictoryLevel(Strict):
    """French battalions (or their equivalents) the Coalition must eliminate for a level (10.2.3): of Gazan's
    division, or of all French forces."""
    gazan: int = Field(ge=0)
    total: int = Field(ge=0)


class RearGuard(Strict):
    """The full Rear Guard (9.2 F)."""
    infantry: int = Field(ge=0)
    cavalry: int = Field(ge=0)


class Victory(Sourced):
    coalition_strategic: VictoryLevel
    coalition_tactical: VictoryLevel
    rear_guard: RearGuard


class ScenarioFile(Strict):
    id: str
    name: str
    source: Source
    turns: int
    night_from: int
    first_impulse: Side
    setup: Setup
    activation: Activation
    control: Control
    mustering: Mustering
    dupont: Dupont
    alert: Alert
    victory: Victory


class Scenario:
    """Board + tables + order of battle + scenario file."""

    def __init__(self, file: ScenarioFile, oob: OrderOfBattle, board: Board, tables: Tables) -> None:
        self.file, self.oob, self.board, self.tables = file, oob, board, tables
        # a value for memo keys: the digest of what it is loaded from (no object identity in any key)
        self.key = "scenario:" + digest([file.model_dump(mode="json"), oob.model_dump(mode="json"), board.key,
                                         tables.key])
        self.units = {u.id: u for u in oob.units}
        # enemy fronts of recent positions (engine.tbf.game.position.enemy_front), bounded
        self.front_memo: dict[Any, frozenset[str]] = {}
        self._chains: dict[str, frozenset[str]] = {}   # unit id -> its chain of command (never changes)
        self.leaders = {x.id: x for x in oob.leaders}
        # piece id -> side, asked in every loop over the map (units first, as :meth:`side` read them)
        self.side_of = {**{x.id: x.side for x in oob.leaders}, **{u.id: u.side for u in oob.units}}
        for pid, h in list(file.setup.coalition.items()) + list(file.setup.french.items()):
            if pid not in self.units and pid not in self.leaders:
                raise DataError("scenario.yaml", f"setup.{pid}", "a unit or leader id of the order of battle")
            board.check_hex(h, "9.0")

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Scenario):
            return NotImplemented
        return self.key == other.key

    def side(self, pid: str) -> str:
        try:
            return self.side_of[pid]
        except KeyError:
            raise RuleViolation("2.4", f"no unit or leader {pid!r}") from None

    def is_leader(self, pid: str) -> bool:
        return pid in self.leaders

    def chain_of_command(self, unit_id: str) -> frozenset[str]:
        """Leaders whose CV may help this unit's checks (4.2.2 C and its clarification). From the order of
        battle alone: worked out once per unit."""
        got = self._chains.get(unit_id)
        if got is None:
            got = self._chains[unit_id] = frozenset(self._chain_of_command(unit_id))
        return got

    def _chain_of_command(self, unit_id: str) -> set[str]:
        u = self.units[unit_id]
        out: set[str] = set()
        direct = [x for x in self.leaders.values() if x.side == u.side and x.command == u.command]
        if not direct:  # corps troops of a division (6.1.1 D): the division leader and his brigades
            direct = [x for x in self.leaders.values() if x.side == u.side
                      and (x.command == u.command or x.command.split("-")[0] == u.command)]
        for x in direct:
            cur: LeaderDef | None = x
            while cur is not None:
                out.add(cur.id)
                cur = self.leaders.get(cur.superior) if cur.superior else None
        for x in self.leaders.values():
            if x.side == u.side and x.rank in ("corps", "army"):
                out.add(x.id)                       # Mortier and Kutusov command everyone
        return out


def load_scenario(folder: str | Path | None = None, tables: Tables | None = None) -> Scenario:
    base = Path(folder) if folder else data_path("tbf", "durenstein")
    tables = tables or default_tables()
    return Scenario(load_yaml(base / "scenario.yaml", ScenarioFile), load_yaml(base / "units.yaml", OrderOfBattle),
                    load_board(base / "map.yaml") if folder else default_board(), tables)


@lru_cache(maxsize=1)
def default_scenario() -> Scenario:
    return load_scenario()
