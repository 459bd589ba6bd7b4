"""A Lines of Battle position: the fixed set-up (map, scenario, tables, options) and the game as it stands.

:class:`Game` is an immutable value: every update returns a new one. Its queries (units, areas, who holds
an area, morale, leaders) are the public surface the rules, bots and boards read; :func:`invariants`
lists what must hold in every position.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from engine.core.errors import RuleViolation

from .board import Board, default_board
from .scenario import ScenarioSpec, default_scenario
from .tables import Tables, default_tables
from .units import ART, INF, SIDES, Leader, LeaderStatus, Phase, Unit

__all__ = ["Setup", "Game", "invariants"]


@dataclass(frozen=True)
class Setup:
    """The fixed parts of a game: map, scenario, tables, options."""

    board: Board = field(default_factory=default_board)
    scenario: ScenarioSpec = field(default_factory=default_scenario)
    tables: Tables = field(default_factory=default_tables)
    options: frozenset = frozenset()
    morale_bid: tuple = ()          # Albuera option 1: ((side, morale points paid), ...), kept for the record
    charts: Any = None              # the game's own tables (engine.core.tables.GameTables) ``tables`` came from

    # a value: the map, scenario and tables count by their content (each one's fingerprint, computed once
    # when it was loaded), so two games set up from equal files are equal and meet in memo keys
    @property
    def key(self) -> tuple:
        return (self.board.fingerprint, self.scenario.fingerprint, self.tables.fingerprint, self.options,
                self.morale_bid)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Setup) and self.key == other.key)



@dataclass(frozen=True)
class Game:
    # the set-up counts in a position's equality and hash (by value: see Setup), so positions of games
    # with other tables, options or a changed map never meet in a memo
    setup: Setup = field(repr=False)
    turn: int = 1
    player: str = "French"
    phase: str = Phase.ADMIN      # setup (option 6) | admin | command | over (a Phase)
    cp: int = 0
    morale: tuple = (("Allied", 10), ("French", 10))
    units: tuple[Unit, ...] = ()
    rallied: frozenset = frozenset()
    activated: frozenset = frozenset()
    acted: frozenset = frozenset()
    moved_in: frozenset = frozenset()
    frozen: frozenset = frozenset()     # attacked by a cavalry charge: no activation this turn (5.3.1)
    toggled: frozenset = frozenset()
    deployed_now: frozenset = frozenset()
    horse_moved: frozenset = frozenset()   # 7.2.1: horse artillery that moved one point and may still fire
    spent: tuple = ()                      # 4.2.2: (uid, points) used by formation changes in place this go
    pace: tuple = ()                       # 7.1.2 marcher / disorganised: (uid, +1 or -1) for this turn
    gunner_used: frozenset = frozenset()   # 7.1.2 artilleryman leaders whose +1 was used this turn
    rain: bool = False
    last_albuera: str | None = None
    winner: str | None = None
    reason: str = ""
    leaders: tuple[Leader, ...] = ()    # optional rule 7.1

    # --- queries -------------------------------------------------------------------------------
    @property
    def board(self) -> Board:
        return self.setup.board

    @property
    def tables(self) -> Tables:
        return self.setup.tables

    def morale_of(self, side: str) -> int:
        return dict(self.morale)[side]

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.uid == uid:
                return u
        raise RuleViolation("1.2", f"no unit {uid!r} in this game")

    @property
    def use_leaders(self) -> bool:
        return "leaders" in self.setup.options

    def leader(self, name: str) -> Leader | None:
        for ld in self.leaders:
            if ld.name == name:
                return ld
        return None

    def leaders_in(self, area: str | None, side: str | None = None) -> tuple[Leader, ...]:
        """The leaders present in ``area`` (of ``side``); none in None (an eliminated unit's area)."""
        return tuple(ld for ld in self.leaders if ld.present and ld.area == area and (side is None or ld.side == side))

    def with_leaders(self, changed: Iterable[Leader]) -> "Game":
        by = {ld.name: ld for ld in changed}
        return replace(self, leaders=tuple(by.get(ld.name, ld) for ld in self.leaders))

    def live(self) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.area is not None)

    def in_area(self, area: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.area == area)

    def holder(self, area: str) -> str | None:
        for u in self.units:
            if u.area == area:
                return u.side
        return None

    def occupied(self) -> dict[str, str]:
        return {u.area: u.side for u in self.units if u.area is not None}

    @property
    def over(self) -> bool:
        return self.phase == Phase.OVER

    def to_json(self) -> dict:
        return {"turn": self.turn, "player": self.player, "phase": self.phase, "cp": self.cp,
                "morale": dict(self.morale), "rain": self.rain, "winner": self.winner, "reason": self.reason,
                "last_in_albuera": self.last_albuera,
                "units": [u.to_json() for u in self.units],
                "leaders": [ld.to_json() for ld in self.leaders]}

    # --- updates (pure) -------------------------------------------------------------------------
    def with_units(self, changed: Iterable[Unit]) -> "Game":
        by = {u.uid: u for u in changed}
        return replace(self, units=tuple(by.get(u.uid, u) for u in self.units))

    def add_morale(self, delta: dict[str, int]) -> "Game":
        m = dict(self.morale)
        for k, v in delta.items():
            m[k] += v
        return replace(self, morale=tuple(sorted(m.items())))

def invariants(g: Game) -> list[str]:
    """What must hold in every position (1.1, 1.2, 2, 3, 4, 4.2.2, 5.3, 6, 7.1, Albuera terrain 2-3): one
    line per broken invariant, naming its rule (the conformance suite checks every position it meets)."""
    out: list[str] = []
    sc = g.setup.scenario
    if not 1 <= g.turn <= sc.turns:
        out.append(f"2: turn {g.turn} outside 1..{sc.turns}")
    if g.player not in SIDES:
        out.append(f"2: unknown player {g.player!r}")
    if g.phase not in tuple(Phase):
        out.append(f"2: unknown phase {g.phase!r}")
    if g.cp < 0:
        out.append(f"3: negative command points ({g.cp})")
    if g.over != (g.winner is not None):
        out.append("6: a game is over exactly when it has a winner (or a draw)")
    if g.rallied & g.activated:
        out.append(f"4: rallied and activated in one turn: {sorted(g.rallied & g.activated)}")
    sides_in: dict[str, set] = {}
    approaches: dict[frozenset, list[str]] = {}
    lost = {s: 0 for s in SIDES}
    for u in g.units:
        cap = 1 if u.kind == ART else u.rating + 1
        if not 0 <= u.hits <= cap:
            out.append(f"1.2: {u.uid} has {u.hits} hits (0..{cap})")
        if (u.area is None) != u.eliminated:
            out.append(f"1.2: {u.uid} is {'off the map' if u.area is None else 'on the map'} with {u.hits} hits")
        if u.area is None:
            lost[u.side] += u.morale_value
            continue
        sides_in.setdefault(u.area, set()).add(u.side)
        if u.approach is not None:
            if u.kind != INF or u.square or not g.board.has_approach(u.area, u.approach):
                out.append(f"1.1: {u.uid} on an approach {u.area}-{u.approach} it may not hold")
            approaches.setdefault(frozenset((u.area, u.approach)), []).append(u.uid)
        if u.square and (u.kind != INF or g.board.is_close(u.area)):
            out.append(f"4.2.2: {u.uid} in square in {u.area}")
        if u.kind == ART and u.deployed and g.board.is_close(u.area):
            out.append(f"Albuera terrain 2-3: {u.uid} deployed in close terrain ({u.area})")
    for area, s in sides_in.items():
        if len(s) > 1:
            out.append(f"1.1: area {area} holds both sides")
    for border, who in approaches.items():
        if len(who) > 1:
            out.append(f"1.1: approach {'-'.join(sorted(border))} holds {', '.join(who)}")
    start = {"French": sc.morale.French, "Allied": sc.morale.Allied}
    bid = dict(g.setup.morale_bid)
    for side in SIDES:
        # 5.3 / 4.2.1: morale falls only by eliminations (rating, artillery 1) and rises by captures
        floor = start[side] - bid.get(side, 0) - lost[side]
        if g.morale_of(side) < floor:
            out.append(f"5.3: {side} morale {g.morale_of(side)} below {floor} (start less bid less eliminated)")
    for ld in g.leaders:
        if (ld.area is None) != (ld.status != LeaderStatus.ACTIVE):
            out.append(f"7.1: leader {ld.name} is {ld.status} with area {ld.area!r}")
        elif ld.area is not None and not g.over and sides_in.get(ld.area, {ld.side}) != {ld.side}:
            out.append(f"7.1: leader {ld.name} stands alone among the enemy in {ld.area}")
    return out
