"""The Dürenstein scenario as data: order of battle (units and leaders), set-up, activation limits,
mustering and reinforcement rolls, victory thresholds (9.0-10.0). Loaded into immutable game states."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from engine.core.data import Source, Sourced, Strict, data_path, load_yaml, provenance_kind
from engine.core.errors import DataError, RuleViolation

from .board import Board, default_board, load_board
from .tables import Tables, default_tables, load_tables

__all__ = ["UnitDef", "LeaderDef", "OrderOfBattle", "ScenarioFile", "Scenario", "Piece", "GameState",
           "load_scenario", "default_scenario", "initial_state"]

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
    def _ids(self):
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


class Victory(Sourced):
    coalition_strategic: dict[str, int]
    coalition_tactical: dict[str, int]
    rear_guard: dict[str, int]


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


@dataclass(frozen=True)
class Piece:
    """Where a unit or leader is and how it stands. ``hex`` None = off the map."""

    id: str
    hex: str | None
    facing: int = 0
    status: str = "normal"       # normal, fatigued, routed, eliminated, surrendered (units); wounded, killed, captured
    activated: bool = False
    charged: bool = False
    _hash: int = field(init=False, repr=False, compare=False, hash=False)   # made at construction
    _repr: str = field(init=False, repr=False, compare=False, hash=False)   # made at construction

    def __post_init__(self):
        put = object.__setattr__
        put(self, "_hash", hash((self.id, self.hex, self.facing, self.status, self.activated, self.charged)))
        # exact odds sort their outcomes by repr, many times over: written out once, by hand
        put(self, "_repr", f"Piece({self.id!r}, {self.hex!r}, {self.facing}, {self.status!r}, {self.activated}, "
                           f"{self.charged})")

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self):
        # a string hash differs from process to process: only the fields travel in a pickle
        return {k: v for k, v in self.__dict__.items() if k not in ("_hash", "_repr")}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self.__post_init__()

    def __repr__(self) -> str:
        return self._repr


@dataclass(frozen=True)
class GameState:
    """A position: the turn, every piece, who holds each town, and the game's flags. What the game asks
    of a position over and over (its hash, where each piece sits, the pieces by hex) is made with it:
    fields set once at construction, never written afterwards, not compared and not pickled."""

    turn: int
    pieces: tuple[Piece, ...]
    control: tuple[tuple[str, str], ...]     # (town, side)
    flags: frozenset[str] = frozenset()
    _hash: int = field(init=False, repr=False, compare=False, hash=False)
    _mix: int = field(init=False, repr=False, compare=False, hash=False)       # the pieces' part of the hash
    _pos: dict = field(init=False, repr=False, compare=False, hash=False)      # piece id -> index in pieces
    _on_map: tuple = field(init=False, repr=False, compare=False, hash=False)
    _om_pos: dict = field(init=False, repr=False, compare=False, hash=False)   # piece id -> index in _on_map
    _in_hex: dict = field(init=False, repr=False, compare=False, hash=False)   # hex -> pieces there

    def __post_init__(self):
        _derive(self)

    def __repr__(self) -> str:
        # written out by hand: exact odds sort their outcomes by repr, many times over
        pieces = ", ".join([p._repr for p in self.pieces]) + ("," if len(self.pieces) == 1 else "")
        return f"GameState({self.turn}, ({pieces}), {self.control!r}, {sorted(self.flags)!r})"

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self):
        # a string hash differs from process to process: only the four fields travel in a pickle
        return {"turn": self.turn, "pieces": self.pieces, "control": self.control, "flags": self.flags}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)
        _derive(self)

    def piece(self, pid: str) -> Piece:
        i = self._pos.get(pid)
        if i is None:
            raise RuleViolation("2.4", f"no unit or leader {pid!r} in this game")
        return self.pieces[i]

    def with_piece(self, pid: str, **changes) -> "GameState":
        i = self._pos.get(pid)
        if i is None:
            raise RuleViolation("2.4", f"no unit or leader {pid!r} in this game")
        ps = self.pieces
        was = ps[i]
        if changes.keys() <= _PIECE_FIELDS:
            get = changes.get
            key = (was.id, get("hex", was.hex), get("facing", was.facing), get("status", was.status),
                   get("activated", was.activated), get("charged", was.charged))
            now = _PIECES.get(key)
            if now is None:             # pieces are values: equal ones are shared (made once)
                if len(_PIECES) > 100_000:
                    _PIECES.clear()
                now = _PIECES[key] = Piece(*key)
        else:
            now = replace(was, **changes)           # (an unknown field: the dataclass error)
        pieces = ps[:i] + (now,) + ps[i + 1:]
        # the new position made field by field: its derived fields follow from this one's (the order of
        # the pieces is kept, so only the hexes the piece left and entered change, and the hash's sum
        # over the pieces changes by this piece's term only)
        new = object.__new__(GameState)
        put = object.__setattr__
        put(new, "turn", self.turn)
        put(new, "pieces", pieces)
        put(new, "control", self.control)
        put(new, "flags", self.flags)
        k = _hash_key(i)
        mix = (self._mix + (now._hash - was._hash) * k) & _MASK
        put(new, "_mix", mix)
        put(new, "_hash", hash((self.turn, self.control, self.flags, mix)))
        put(new, "_pos", self._pos)
        h0, h1 = was.hex, now.hex
        if h0 is None and h1 is None:
            put(new, "_on_map", self._on_map)
            put(new, "_om_pos", self._om_pos)
        elif h0 is not None and h1 is not None:
            j = self._om_pos[pid]
            om = self._on_map
            put(new, "_on_map", om[:j] + (now,) + om[j + 1:])
            put(new, "_om_pos", self._om_pos)
        else:
            om = tuple([p for p in pieces if p.hex is not None])
            put(new, "_on_map", om)
            put(new, "_om_pos", _om_positions(om))
        idx = dict(self._in_hex)
        if h0 is not None:
            here = tuple([p for p in idx.get(h0, ()) if p is not was])
            if here:
                idx[h0] = here
            else:
                idx.pop(h0, None)
        if h1 is not None:
            pos = self._pos
            there = idx.get(h1, ())
            if h1 == h0:
                there = here
            # in the order of ``pieces`` (the ones there keep theirs; this one goes in by its place)
            at = 0
            while at < len(there) and pos[there[at].id] < i:
                at += 1
            idx[h1] = there[:at] + (now,) + there[at:]
        put(new, "_in_hex", idx)
        return new

    def with_flag(self, flag: str) -> "GameState":
        return replace(self, flags=self.flags | {flag})

    def controller(self, town: str) -> str | None:
        return dict(self.control).get(town)

    def on_map(self) -> list[Piece]:
        return list(self._on_map)

    def in_hex(self, hex_: str) -> tuple[Piece, ...]:
        """The pieces in ``hex_``, in the order of ``pieces``."""
        return self._in_hex.get(hex_, ())


_MASK = (1 << 61) - 1
_KEYS: list[int] = []


def _hash_key(i: int) -> int:
    """The odd multiplier of the piece at place ``i`` in a position's hash sum (fixed numbers)."""
    while len(_KEYS) <= i:
        n = len(_KEYS)
        _KEYS.append(((n + 1) * 0x9E3779B97F4A7C15 ^ 0x632BE59BD9B4E019) & _MASK | 1)
    return _KEYS[i]


_PIECES: dict = {}           # (id, hex, facing, status, activated, charged) -> the one Piece of these values
_PIECE_FIELDS = frozenset({"hex", "facing", "status", "activated", "charged"})


def _derive(s: GameState) -> None:
    """Set a new position's derived fields (at construction or unpickling only). The hash sums each
    piece's hash times a multiplier for its place (mod 2**61 - 1), so :meth:`GameState.with_piece`
    updates it from the one piece that changed; equal positions get equal hashes either way."""
    pos: dict[str, int] = {}
    idx: dict[str, list] = {}
    mix = 0
    for i, p in enumerate(s.pieces):
        pos.setdefault(p.id, i)
        mix += hash(p) * _hash_key(i)
        if p.hex is not None:
            idx.setdefault(p.hex, []).append(p)
    mix &= _MASK
    put = object.__setattr__
    put(s, "_mix", mix)
    put(s, "_hash", hash((s.turn, s.control, s.flags, mix)))
    put(s, "_pos", pos)
    om = tuple(p for p in s.pieces if p.hex is not None)
    put(s, "_on_map", om)
    put(s, "_om_pos", _om_positions(om))
    put(s, "_in_hex", {h: tuple(ps) for h, ps in idx.items()})


def _om_positions(on_map: tuple) -> dict:
    """Piece id -> its place in the pieces on the map (the first, as ``_pos``)."""
    out: dict[str, int] = {}
    for j, p in enumerate(on_map):
        out.setdefault(p.id, j)
    return out


class Scenario:
    """Board + tables + order of battle + scenario file."""

    def __init__(self, file: ScenarioFile, oob: OrderOfBattle, board: Board, tables: Tables):
        from .tables import digest
        self.file, self.oob, self.board, self.tables = file, oob, board, tables
        # a value for memo keys: the digest of what it is loaded from (no object identity in any key)
        self.key = "scenario:" + digest([file.model_dump(mode="json"), oob.model_dump(mode="json"), board.key,
                                         tables.key])
        self.units = {u.id: u for u in oob.units}
        self.front_memo: dict = {}      # enemy fronts of recent positions (rules.enemy_front), bounded
        self._chains: dict = {}         # unit id -> its chain of command (the order of battle's, never changes)
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
        out = set()
        direct = [x for x in self.leaders.values() if x.side == u.side and x.command == u.command]
        if not direct:  # corps troops of a division (6.1.1 D): the division leader and his brigades
            direct = [x for x in self.leaders.values() if x.side == u.side
                      and (x.command == u.command or x.command.split("-")[0] == u.command)]
        for x in direct:
            cur = x
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


def initial_state(sc: Scenario) -> GameState:
    """Turn 1, after both set-ups (9.1, 9.3): Gaindorge's command already activated."""
    g = sc.board.grid
    names = [n.upper() for n in g.direction_names]
    placed = {**sc.file.setup.coalition, **sc.file.setup.french}
    pieces = []
    for pid in list(sc.units) + list(sc.leaders):
        side = sc.side(pid)
        facing = names.index(sc.file.setup.facing.get(side, names[0]).upper())
        pieces.append(Piece(pid, placed.get(pid), facing, "normal", pid in sc.file.setup.already_activated))
    control = tuple(sorted([(t, "french") for t in sc.file.control.french] +
                           [(t, "coalition") for t in sc.file.control.coalition]))
    return GameState(1, tuple(pieces), control, frozenset())
