"""The values a These Brave Fellows game is made of: a piece (a unit or leader where it stands, 4.2.4, 4.3),
a position on the map (:class:`GameState`: the turn, every piece, who holds each town, the game's flags),
what one unit did in the activation under way (:class:`UnitTurn`), that activation (:class:`Impulse`, 3.3 B)
and the whole game state (:class:`TbfState`). All are frozen values: a change makes a new one."""
from __future__ import annotations

from dataclasses import dataclass, field, replace as dc_replace
from typing import TYPE_CHECKING, Any, TypeVar

from engine.core.errors import RuleViolation
from engine.core.game import Outcome

from .types import Segment, Side, Status, other

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["Piece", "piece", "GameState", "UnitTurn", "ChargeMelee", "Impulse", "TbfState", "replace", "book", "with_book",
           "to_act"]


# ------------------------------------------------------------------------------------------------
# Pieces and positions
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """Where a unit or leader is and how it stands. ``hex`` None = off the map."""

    id: str
    hex: str | None
    facing: int = 0
    status: Status = Status.NORMAL   # normal, fatigued, routed, eliminated, surrendered (units); wounded, killed, captured
    activated: bool = False
    charged: bool = False
    digest: int = field(init=False, repr=False, compare=False, hash=False)   # its hash, made at construction
    shown: str = field(init=False, repr=False, compare=False, hash=False)    # its repr, made at construction

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "digest", hash((self.id, self.hex, self.facing, self.status, self.activated, self.charged)))
        # exact odds sort their outcomes by repr, many times over: written out once, by hand
        put(self, "shown", f"Piece({self.id!r}, {self.hex!r}, {self.facing}, {self.status!r}, {self.activated}, "
                           f"{self.charged})")

    def __hash__(self) -> int:
        return self.digest

    def __getstate__(self) -> dict[str, Any]:
        # a string hash differs from process to process: only the fields travel in a pickle
        return {k: v for k, v in self.__dict__.items() if k not in ("digest", "shown")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self.__post_init__()

    def __repr__(self) -> str:
        return self.shown


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
    # piece id -> index in pieces; the pieces on the map; piece id -> index in placed; hex -> pieces there
    index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)
    placed: tuple[Piece, ...] = field(init=False, repr=False, compare=False, hash=False)
    _om_pos: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)
    by_hex: dict[str, tuple[Piece, ...]] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _derive(self)

    def __repr__(self) -> str:
        # written out by hand: exact odds sort their outcomes by repr, many times over
        pieces = ", ".join([p.shown for p in self.pieces]) + ("," if len(self.pieces) == 1 else "")
        return f"GameState({self.turn}, ({pieces}), {self.control!r}, {sorted(self.flags)!r})"

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict[str, Any]:
        # a string hash differs from process to process: only the four fields travel in a pickle
        return {"turn": self.turn, "pieces": self.pieces, "control": self.control, "flags": self.flags}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        _derive(self)

    def piece(self, pid: str) -> Piece:
        i = self.index.get(pid)
        if i is None:
            raise RuleViolation("2.4", f"no unit or leader {pid!r} in this game")
        return self.pieces[i]

    def with_piece(self, pid: str, **changes: Any) -> "GameState":
        i = self.index.get(pid)
        if i is None:
            raise RuleViolation("2.4", f"no unit or leader {pid!r} in this game")
        ps = self.pieces
        was = ps[i]
        if changes.keys() <= _PIECE_FIELDS:
            get = changes.get
            now = piece(was.id, get("hex", was.hex), get("facing", was.facing), get("status", was.status),
                        get("activated", was.activated), get("charged", was.charged))
        else:
            now = dc_replace(was, **changes)        # (an unknown field: the dataclass error)
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
        mix = (self._mix + (now.digest - was.digest) * k) & _MASK
        put(new, "_mix", mix)
        put(new, "_hash", hash((self.turn, self.control, self.flags, mix)))
        put(new, "index", self.index)
        h0, h1 = was.hex, now.hex
        if h0 is None and h1 is None:
            put(new, "placed", self.placed)
            put(new, "_om_pos", self._om_pos)
        elif h0 is not None and h1 is not None:
            j = self._om_pos[pid]
            om = self.placed
            put(new, "placed", om[:j] + (now,) + om[j + 1:])
            put(new, "_om_pos", self._om_pos)
        else:
            om = tuple([p for p in pieces if p.hex is not None])
            put(new, "placed", om)
            put(new, "_om_pos", _om_positions(om))
        idx = dict(self.by_hex)
        if h0 is not None:
            here = tuple([p for p in idx.get(h0, ()) if p is not was])
            if here:
                idx[h0] = here
            else:
                idx.pop(h0, None)
        if h1 is not None:
            pos = self.index
            there = idx.get(h1, ())
            if h1 == h0:
                there = here
            # in the order of ``pieces`` (the ones there keep theirs; this one goes in by its place)
            at = 0
            while at < len(there) and pos[there[at].id] < i:
                at += 1
            idx[h1] = there[:at] + (now,) + there[at:]
        put(new, "by_hex", idx)
        return new

    def with_flag(self, flag: str) -> "GameState":
        # the pieces unchanged: every derived field but the hash is this position's (none is ever written)
        flags = self.flags | {flag}
        new = object.__new__(GameState)
        put = object.__setattr__
        for name in _KEPT_BY_FLAG:
            put(new, name, getattr(self, name))
        put(new, "flags", flags)
        put(new, "_hash", hash((self.turn, self.control, flags, self._mix)))
        return new

    def controller(self, town: str) -> str | None:
        return dict(self.control).get(town)

    def on_map(self) -> list[Piece]:
        return list(self.placed)

    def in_hex(self, hex_: str) -> tuple[Piece, ...]:
        """The pieces in ``hex_``, in the order of ``pieces``."""
        return self.by_hex.get(hex_, ())


_MASK = (1 << 61) - 1
#: what a new flag leaves as it was: the fields but ``flags``, the derived fields but the hash
_KEPT_BY_FLAG = ("turn", "pieces", "control", "_mix", "index", "placed", "_om_pos", "by_hex")
_KEYS: list[int] = []


def _hash_key(i: int) -> int:
    """The odd multiplier of the piece at place ``i`` in a position's hash sum (fixed numbers)."""
    while len(_KEYS) <= i:
        n = len(_KEYS)
        _KEYS.append(((n + 1) * 0x9E3779B97F4A7C15 ^ 0x632BE59BD9B4E019) & _MASK | 1)
    return _KEYS[i]


#: (id, hex, facing, status, activated, charged) -> the one Piece of these values
_PIECES: dict[tuple[Any, ...], Piece] = {}


def piece(*fields: Any) -> Piece:
    """``Piece(*fields)``, shared: pieces are values, and equal ones are made once (an exact enumeration
    makes the same few over and over)."""
    now = _PIECES.get(fields)
    if now is None:
        if len(_PIECES) > 100_000:
            _PIECES.clear()
        now = _PIECES[fields] = Piece(*fields)
    return now
_PIECE_FIELDS = frozenset({"hex", "facing", "status", "activated", "charged"})


def _derive(s: GameState) -> None:
    """Set a new position's derived fields (at construction or unpickling only). The hash sums each
    piece's hash times a multiplier for its place (mod 2**61 - 1), so :meth:`GameState.with_piece`
    updates it from the one piece that changed; equal positions get equal hashes either way."""
    pos: dict[str, int] = {}
    idx: dict[str, list[Piece]] = {}
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
    put(s, "index", pos)
    om = tuple(p for p in s.pieces if p.hex is not None)
    put(s, "placed", om)
    put(s, "_om_pos", _om_positions(om))
    put(s, "by_hex", {h: tuple(ps) for h, ps in idx.items()})


def _om_positions(on_map: tuple[Piece, ...]) -> dict[str, int]:
    """Piece id -> its place in the pieces on the map (the first, as ``index``)."""
    out: dict[str, int] = {}
    for j, p in enumerate(on_map):
        out.setdefault(p.id, j)
    return out




# ------------------------------------------------------------------------------------------------
# What an activation keeps (3.3 B, 6.1)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class UnitTurn:
    """What one unit (or leader) did in the current activation: MPs spent this Movement Segment and the
    Level 2/3 hexes used (6.2.3 A), and each "once"."""
    unit: str
    mp: int = 0
    l2: int = 0
    l3: int = 0
    moved: bool = False
    done: bool = False            # its movement is over (6.2.4 B, 6.2.5 A, 6.2.8)
    facings: int = 0
    charge_tried: bool = False    # 6.2.8 A, D
    charged: bool = False
    fired: bool = False           # 6.3.2 B
    meleed: bool = False          # 6.4 K


@dataclass(frozen=True)
class ChargeMelee:
    """A charge's melee, left for the impulse's Melee Segment (3.3 B): ``charger`` attacks the units in
    ``target``. ``mode`` is ``"charge"`` (the target stood after its Being Charged check: the charger's MF is
    multiplied, 6.2.8 E-H), ``"counter"`` (6.2.9 B) or ``"reaction"`` (6.2.10 B-D: neither MF doubled)."""
    charger: str
    target: str
    mode: str = "charge"


@dataclass(frozen=True)
class Impulse:
    """The activation under way (3.3 B)."""
    side: Side
    leader: str
    segment: Segment = Segment.MOVEMENT
    leaders: tuple[str, ...] = ()            # leaders this activation flipped (6.1.3 B); they may move
    units: tuple[str, ...] = ()              # units that may act (6.1)
    out_of_command: tuple[str, ...] = ()     # may try the 6.1.3 C check
    tried: tuple[str, ...] = ()              # tried it (passed ones are in units)
    extra: tuple[str, ...] = ()              # 6.1.3 A candidates
    extra_left: int = 0
    levels: tuple[tuple[str, int, int], ...] = ()   # (kind, level 2 hexes, level 3 hexes), 6.2.3 A
    mover: str = ""                          # whose movement is under way (6.2.4 B)
    book: tuple[UnitTurn, ...] = ()
    defensive_fired: tuple[str, ...] = ()    # 6.3.2 B in the Defensive Fire Segment
    evaded: tuple[str, ...] = ()             # cavalry that fell back before the Defensive Fire Segment (11.8 B)
    charge_melees: tuple[ChargeMelee, ...] = ()   # charges' melees waiting for the Melee Segment (6.2.8 H)


@dataclass(frozen=True)
class TbfState:
    """The whole game: the position and the activation bookkeeping of the turn."""
    game: GameState
    to_move: Side = Side.COALITION           # whose impulse is next (3.3 A)
    impulse: Impulse | None = None
    passes: int = 0                          # consecutive passes (3.3 B)
    activations: tuple[str, ...] = ()        # leaders who opened an activation this turn (6.1.3 E)
    alert_from: int | None = None            # first turn of Mortier's Alert roll (9.5.2)
    dupont_second: int | None = None         # turn Dupont's second group arrives (9.6.2 D)
    dupont_first: bool = False
    overstack_ok: tuple[str, ...] = ()       # overstacks left by combat (4.1.8 A), to be resolved (4.1.10)
    result: Outcome | None = None
    options: tuple[str, ...] = ()
    scenario_id: str = "durenstein"
    wounded: tuple[tuple[str, int], ...] = ()   # (leader, turn he comes back), 6.5 A
    rear_guard: tuple[str, ...] = ()            # Column II units left as the Rear Guard (9.2 E)
    rear_guard_short: int = 0                   # units short of 4 infantry + 2 cavalry (9.2 F-G)
    regrouped: tuple[str, ...] = ()             # each unit once per regroup: still lost for 10.2 (10.2.6)
    setting_up: Side | None = None              # the side setting up (option 9.1: the Coalition, then the French)

    @property
    def turn(self) -> int:
        return self.game.turn

    @property
    def activation(self) -> Impulse:
        """The impulse under way (3.3 B), for the rules that act only inside one."""
        if self.impulse is None:
            raise RuleViolation("3.3 B", "no activation is under way")
        return self.impulse


def to_act(s: TbfState) -> Side | None:
    """The side to act: the one whose impulse it is, the other one in the Defensive Fire Segment (6.3.1 A),
    nobody once the game is over."""
    if s.result is not None:
        return None
    if s.setting_up is not None:
        return s.setting_up
    if s.impulse is None:
        return s.to_move
    if s.impulse.segment == Segment.DEFENSIVE_FIRE:
        return other(s.impulse.side)
    return s.impulse.side


_V = TypeVar("_V", bound="DataclassInstance")
_QUICK: dict[type, frozenset[str]] = {}   # class -> its field names, for the game's own values below


def replace(obj: _V, **changes: Any) -> _V:
    """:func:`dataclasses.replace` for the game's bookkeeping values (:class:`TbfState`, :class:`Impulse`,
    :class:`UnitTurn`: frozen, no ``__post_init__``, every field set by ``__init__``), made without a
    call to ``__init__``; anything else (a GameState, which derives fields) goes through the real one."""
    names = _QUICK.get(type(obj))
    if names is None or not changes.keys() <= names:
        return dc_replace(obj, **changes)
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


_QUICK.update({c: frozenset(c.__dataclass_fields__) for c in (TbfState, Impulse, UnitTurn)})


def book(imp: Impulse, uid: str) -> UnitTurn:
    """What ``uid`` has done in the activation so far (a fresh page when nothing)."""
    for b in imp.book:
        if b.unit == uid:
            return b
    return fresh_book(uid)


_FRESH_BOOKS: dict[str, UnitTurn] = {}   # unit -> the book of a unit that has done nothing yet (a value: shared)


def fresh_book(uid: str) -> UnitTurn:
    got = _FRESH_BOOKS.get(uid)
    if got is None:
        if len(_FRESH_BOOKS) > 4096:
            _FRESH_BOOKS.clear()
        got = _FRESH_BOOKS[uid] = UnitTurn(uid)
    return got


def with_book(imp: Impulse, bk: UnitTurn) -> Impulse:
    """The impulse with ``bk`` as its unit's page (the pages kept in unit order)."""
    rest = tuple(b for b in imp.book if b.unit != bk.unit)
    return replace(imp, book=tuple(sorted(rest + (bk,), key=lambda b: b.unit)))
