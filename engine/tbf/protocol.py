"""These Brave Fellows (Dürenstein) on the core game protocol: the whole sequence of play, enforced.

A turn (3.0): the Reinforcement Phase (3.1: mustering 9.2, Dupont 9.6.2, regroup 5.3, Mortier's Alert
9.5.2), the Initiative Phase (3.2), the Activation Phase (3.3: impulses alternate; in each the side to act
activates one leader, 6.1, or passes; the phase ends when both pass one after the other or no leader is
left to activate), the end-of-phase overstack checks (4.1.10 B) and the Recovery Phase (7.0). Victory
(10.0) at the end of turn 13, or at once by 10.1.

An activation runs its segments in order (3.3 B): Movement (6.2: moves, facing changes, charges
6.2.8, out-of-command checks 6.1.3 C, extra units 6.1.3 A), Defensive Fire by the other side (6.3.1 A),
Offensive Fire (6.3.1 B), Melee (6.4). Every "once" is kept per unit in :class:`UnitTurn` and refused
naming its rule. The random parts are the existing procedures of :mod:`engine.tbf.actions` and
:mod:`engine.tbf.rules`; nothing here re-implements a check, a fire, a melee or a charge.

The phases with no decision (reinforcement rolls, initiative rolls, recovery) run inside the action that
ends the previous Activation Phase; the initiative winner's choice of who opens (3.2 B) is a ``Choose``
asked of him inside that action.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace as _dc_replace
from functools import lru_cache
from typing import Literal, Union

from engine.core.codec import from_json, to_json
from engine.core.errors import DataError, RuleViolation, VedetteError
from engine.core.game import GameRules, Outcome, Position, RandomBot, other_side, register
from engine.core.procedure import Choose, Log, Roll

from . import actions as A
from .charge import _validate as charge_validate, frontal_directions
from .rules import (LIVE, OPTIONS, activation_allowed, activation_plan, ammo_shortage, cavalry_retreat_before_combat,
                    column_iv_release, current_ma, enemy_front, leaderless_activation, muster_hexes, occupants,
                    road_blocked, victory_with_options,
                    reachable, regroup, regroup_hexes, releases, rout_path, second_group_delay,
                    stacking_problem, stacking_problem_with, _occupied)
from .scenario import GameState, Scenario, default_scenario, initial_state
from .turn import TurnData, turn_data

__all__ = ["TbfRules", "TbfState", "Impulse", "UnitTurn", "TurnData", "Activate", "ActivateCommand", "Pass", "Move", "Face",
           "Charge", "OutOfCommand", "Attach", "Fire", "Melee", "EndSegment", "CavalryRetreat", "GreedyBot", "SEGMENTS",
           "GAME_OPTIONS"]

SIDES = ("french", "coalition")
SEGMENTS = ("movement", "defensive_fire", "offensive_fire", "melee")
SEGMENT_RULE = {"movement": "6.2", "defensive_fire": "6.3.1 A", "offensive_fire": "6.3.1 B", "melee": "6.4"}
GONE = ("eliminated", "surrendered", "killed", "captured", "wounded")
# the optional rules (11.0) the game enforces when they are chosen at the start
GAME_OPTIONS = {k: f"{OPTIONS[k]} ({k})" for k in ("11.1", "11.2", "11.4", "11.8")}
REAR_GUARD_ROWS = 6          # 9.2 G: the Rear Guard stays in hex rows XX01-XX06


# ------------------------------------------------------------------------------------------------
# Actions (frozen values; JSON both ways with engine.core.codec; text notation below)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Activate:
    """6.1: activate a leader (and who he reaches) for this impulse."""
    side: str
    leader: str
    kind: Literal["activate"] = "activate"


@dataclass(frozen=True)
class ActivateCommand:
    """6.1.4: activate a command none of whose leaders is left, around one designated unit of it."""
    side: str
    command: str
    unit: str
    kind: Literal["activate_command"] = "activate_command"


@dataclass(frozen=True)
class Pass:
    """3.3 B: pass the impulse (two passes in a row end the Activation Phase)."""
    side: str
    kind: Literal["pass"] = "pass"


@dataclass(frozen=True)
class Move:
    """6.2: move a unit or leader to ``to`` by its cheapest legal path (``path``/``mp`` as listed; empty/-1
    means "whatever the cheapest path is")."""
    side: str
    unit: str
    to: str
    path: tuple[str, ...] = ()
    mp: int = -1
    kind: Literal["move"] = "move"


@dataclass(frozen=True)
class Face:
    """4.3: turn a unit to face another hexside (0..5 = N, NE, SE, S, SW, NW)."""
    side: str
    unit: str
    facing: int
    kind: Literal["face"] = "face"


@dataclass(frozen=True)
class Charge:
    """6.2.8: a cavalry charge along ``path`` (a straight charge line ending on the target), then maybe on
    into ``next`` targets."""
    side: str
    unit: str
    path: tuple[str, ...]
    next: tuple[str, ...] = ()
    kind: Literal["charge"] = "charge"


@dataclass(frozen=True)
class OutOfCommand:
    """6.1.3 C: a unit of the command outside its leader's range tries to join the activation."""
    side: str
    unit: str
    kind: Literal["out_of_command"] = "out_of_command"


@dataclass(frozen=True)
class Attach:
    """6.1.3 A: the activated leader takes along a unit not under his command (up to his CV)."""
    side: str
    unit: str
    kind: Literal["attach"] = "attach"


@dataclass(frozen=True)
class Fire:
    """6.3: fire at ``target`` with ``units`` (defensive in the Defensive Fire Segment)."""
    side: str
    units: tuple[str, ...]
    target: str
    kind: Literal["fire"] = "fire"


@dataclass(frozen=True)
class Melee:
    """6.4: melee attack on ``target`` by ``units``."""
    side: str
    units: tuple[str, ...]
    target: str
    kind: Literal["melee"] = "melee"


@dataclass(frozen=True)
class EndSegment:
    """3.3 B: end the current segment of the activation (the Melee Segment's end ends the impulse)."""
    side: str
    kind: Literal["end"] = "end"


@dataclass(frozen=True)
class CavalryRetreat:
    """Optional 11.8 B: before any defensive fire, non-phasing cavalry falls back two hexes along ``path``."""
    side: str
    unit: str
    path: tuple[str, ...]
    kind: Literal["cavalry_retreat"] = "cavalry_retreat"


TbfAction = Union[Activate, ActivateCommand, Pass, Move, Face, Charge, OutOfCommand, Attach, Fire, Melee, EndSegment,
                  CavalryRetreat]
_KINDS = {c.__dataclass_fields__["kind"].default: c for c in
          (Activate, ActivateCommand, Pass, Move, Face, Charge, OutOfCommand, Attach, Fire, Melee, EndSegment,
           CavalryRetreat)}
_ACTION_TYPES = tuple(_KINDS.values())
_SEGMENT_OF = {Move: "movement", Face: "movement", Charge: "movement", OutOfCommand: "movement",
               Attach: "movement", Melee: "melee", CavalryRetreat: "defensive_fire"}     # 3.3 B
_RULE_OF = {"activate": "6.1", "activate_command": "6.1.4", "pass": "3.3 B", "move": "6.2", "face": "4.3", "charge": "6.2.8",
            "out_of_command": "6.1.3 C", "attach": "6.1.3 A", "fire": "6.3", "melee": "6.4", "end": "3.3 B",
            "cavalry_retreat": "11.8 B"}


# ------------------------------------------------------------------------------------------------
# State
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
class Impulse:
    """The activation under way (3.3 B)."""
    side: str
    leader: str
    segment: str = "movement"
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


@dataclass(frozen=True)
class TbfState:
    game: GameState
    to_move: str = "coalition"               # whose impulse is next (3.3 A)
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

    @property
    def turn(self) -> int:
        return self.game.turn


class _Moves:
    """The moves of one unit or leader this Movement Segment, from its one movement search (6.2), made
    when first asked for: :attr:`reach` is hex -> (MPs, cheapest path); spelt out in hex order, its own
    hex left out. (A plain class with slots, made for every candidate list: never written after it is
    made; compared and hashed by identity.)"""

    __slots__ = ("side", "unit", "here", "rules", "state")

    def __init__(self, side: str, unit: str, here: str, rules: "TbfRules", state: "TbfState"):
        self.side, self.unit, self.here, self.rules, self.state = side, unit, here, rules, state

    def __repr__(self) -> str:
        return f"_Moves(side={self.side!r}, unit={self.unit!r}, here={self.here!r})"

    @property
    def reach(self) -> dict:
        try:
            return self.rules._reach_of(self.state, self.unit)
        except RuleViolation:
            return {}

    def actions(self) -> list:
        side, uid, here = self.side, self.unit, self.here
        return [Move(side, uid, h, path, mp) for h, (mp, path) in sorted(self.reach.items()) if h != here]


    def move(self, h: str) -> "Move":
        mp, path = self.reach[h]
        return Move(self.side, self.unit, h, path, mp)


class _Faces:
    """The facing changes of one unit (4.3): every hexside but the one it faces, in hexside order (a plain
    class with slots, never written after it is made, like :class:`_Moves`)."""

    __slots__ = ("side", "unit", "facing")

    def __init__(self, side: str, unit: str, facing: int):
        self.side, self.unit, self.facing = side, unit, facing

    def __repr__(self) -> str:
        return f"_Faces(side={self.side!r}, unit={self.unit!r}, facing={self.facing})"

    def actions(self) -> list:
        return [Face(self.side, self.unit, f) for f in range(6) if f != self.facing]


_QUICK: dict = {}            # class -> its field names, for the game's own values below


def replace(obj, **changes):
    """:func:`dataclasses.replace` for the game's bookkeeping values (:class:`TbfState`, :class:`Impulse`,
    :class:`UnitTurn`: frozen, no ``__post_init__``, every field set by ``__init__``), made without a
    call to ``__init__``; anything else (a GameState, which derives fields) goes through the real one."""
    names = _QUICK.get(type(obj))
    if names is None or not changes.keys() <= names:
        return _dc_replace(obj, **changes)
    new = object.__new__(type(obj))
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


def _book(imp: Impulse, uid: str) -> UnitTurn:
    for b in imp.book:
        if b.unit == uid:
            return b
    return _fresh_book(uid)


_FRESH_BOOKS: dict = {}          # unit -> the book of a unit that has done nothing yet (a value: shared)


def _fresh_book(uid: str) -> UnitTurn:
    got = _FRESH_BOOKS.get(uid)
    if got is None:
        if len(_FRESH_BOOKS) > 4096:
            _FRESH_BOOKS.clear()
        got = _FRESH_BOOKS[uid] = UnitTurn(uid)
    return got


def _with_book(imp: Impulse, bk: UnitTurn) -> Impulse:
    rest = tuple(b for b in imp.book if b.unit != bk.unit)
    return replace(imp, book=tuple(sorted(rest + (bk,), key=lambda b: b.unit)))


_QUICK.update({c: frozenset(c.__dataclass_fields__) for c in (TbfState, Impulse, UnitTurn)})


# ------------------------------------------------------------------------------------------------
# Cached queries (pure functions of hashable values: safe to memoise)
# ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=2048)
def _reach(game: GameState, uid: str, l2: int, l3: int, mp_left: int) -> dict:
    return reachable(default_scenario(), game, uid, {2: l2, 3: l3}, mp_left=mp_left)


@lru_cache(maxsize=4096)
def _fire_setup(game: GameState, units: tuple[str, ...], target: str, defensive: bool, cavalry_fire: bool = False,
                moved: tuple[str, ...] = ()):
    # through the fire action's own memo, with its arguments as it passes them (no ammunition short):
    # the fire the check allowed finds its set-up made when it is performed
    return A._cached(A.fire_setup)(default_scenario(), game, units, target, defensive, cavalry_fire, moved, ())


@lru_cache(maxsize=4096)
def _melee_setup(game: GameState, units: tuple[str, ...], target: str):
    return A._cached(A.melee_setup)(default_scenario(), game, units, target, (), False)     # (as melee_action asks)


@lru_cache(maxsize=4096)
def _charge_setup(game: GameState, uid: str, path: tuple[str, ...], nxt: tuple[str, ...], mp_left: int):
    return A.charge_setup(default_scenario(), game, uid, path, nxt, mp_left, outline=True)     # for the check


@lru_cache(maxsize=512)
def _front(game: GameState, side: str) -> frozenset:
    return enemy_front(default_scenario(), game, side)


# ------------------------------------------------------------------------------------------------
# The rules
# ------------------------------------------------------------------------------------------------
class TbfRules(GameRules[TbfState, TbfAction]):
    system = "tbf"
    title = "These Brave Fellows: Dürenstein 1805"
    sides = SIDES
    engine_version = "tbf-game-1"
    default_scenario = "durenstein"

    def __init__(self):
        self.sc: Scenario = default_scenario()
        self.td = turn_data()
        self._side_of = {**{u: d.side for u, d in self.sc.units.items()},
                         **{x: d.side for x, d in self.sc.leaders.items()}}
        self._memo_state = None         # the state the memo below belongs to (held, compared by value)
        self._memo: dict = {}
        self._rear_rows: dict[str, bool] = {}      # hex -> inside the Rear Guard's rows (9.2 G)
        self._memo_rear = None                      # the hexes of those rows
        self._index_memo: dict = {}                 # position -> (pieces by id, live units by hex)
        self._index_last: tuple = ({}, {})          # the last position indexed: (its pieces by hex, its units by hex)
        self._columns: dict = {}                    # Coalition column -> its units
        self._overstack_memo: dict = {}             # position -> its overstacked hexes (4.1)
        self._command_lists: dict = {}              # side -> its commands, their leaders and units

    def _index(self, s) -> tuple[dict, dict]:
        """Pieces by id, and the live units in each hex, of state ``s`` (memoised with it)."""
        memo = self._memo_for(s)
        got = memo.get("index")
        if got is None:
            g = s.game
            got = self._index_memo.get(g)           # by value: states of one position share it
            if got is None:
                if len(self._index_memo) > 64:
                    self._index_memo.clear()
                pos = g._pos                # piece id -> its place in the pieces (ids are unique, 2.4)
                by_id = dict(zip(pos, g.pieces)) if len(pos) == len(g.pieces) else {p.id: p for p in g.pieces}
                units = self.sc.units
                by_hex = {}                 # (from the position's pieces by hex, each in the pieces' order)
                # a hex holding the very pieces it held in the last position indexed keeps its live units
                last_in_hex, last_by_hex = self._index_last
                for h, ps in g._in_hex.items():
                    if last_in_hex.get(h) is ps:
                        here = last_by_hex.get(h)
                    else:
                        here = [p for p in ps if p.status in LIVE and p.id in units]
                    if here:
                        by_hex[h] = here
                self._index_last = (g._in_hex, by_hex)
                got = self._index_memo[g] = (by_id, by_hex)
            memo["index"] = got
        return got

    def _memo_for(self, s) -> dict:
        """Answers about one state (reach of each unit ...), computed once while that state is asked
        about again and again (candidates, then a check per candidate)."""
        if self._memo_state is not s and self._memo_state != s:      # by value (the same object: at once)
            self._memo_state, self._memo = s, {}
        return self._memo

    # --- set-up ----------------------------------------------------------------------------------
    def scenarios(self):
        return {"durenstein": self.sc.file.name}

    def options(self):
        return dict(GAME_OPTIONS)

    def new_game(self, scenario=None, options=(), seed=0):
        if scenario not in (None, "durenstein"):
            raise VedetteError(f"unknown scenario {str(scenario)[:40]!r}; one of durenstein")
        if isinstance(options, dict) and set(options) - {"options"}:
            # a record's options hold one key, the list of optional rules: a misspelt key is refused, not ignored
            extra = sorted(map(str, set(options) - {"options"}))
            raise VedetteError(f"field options: unknown key {extra[0][:40]!r}; a TBF game's options hold only "
                               "'options' (a list of optional rules)")
        names = options.get("options", []) if isinstance(options, dict) else list(options)
        if not isinstance(names, (list, tuple)):
            raise VedetteError(f"field options: expected a list of optional rules, got {str(names)[:40]!r}")
        for n in names:
            if n not in GAME_OPTIONS:
                raise VedetteError(f"unknown option {str(n)[:40]!r}: the TBF game offers {', '.join(GAME_OPTIONS)} "
                                   "(11.3, 11.5-11.7 need counters the order of battle lacks)")
        g = releases(self.sc, initial_state(self.sc))
        return TbfState(game=g, to_move=self.sc.file.first_impulse, activations=("gaindorge",),       # 9.0
                        options=tuple(sorted(set(names))))

    # --- who acts ----------------------------------------------------------------------------------
    def to_act(self, s: TbfState):
        if s.result is not None:
            return None
        if s.impulse is None:
            return s.to_move
        if s.impulse.segment == "defensive_fire":
            return other_side(SIDES, s.impulse.side)
        return s.impulse.side

    def outcome(self, s: TbfState):
        return s.result

    def position(self, s: TbfState):
        if s.result is not None:
            return Position(s.turn, "over")
        if s.impulse is None:
            return Position(s.turn, f"activation phase, {s.to_move} impulse")
        return Position(s.turn, f"{s.impulse.side} impulse ({s.impulse.leader}), {s.impulse.segment.replace('_', ' ')}")

    def rule_of(self, a):
        return _RULE_OF.get(getattr(a, "kind", ""), "")

    def is_pass(self, a):
        return isinstance(a, (Pass, EndSegment))

    # --- helpers -----------------------------------------------------------------------------------
    def _can_activate(self, s: TbfState, leader: str) -> str | None:
        """Why ``leader`` may not open an activation now (None when he may)."""
        sc, g = self.sc, s.game
        p = g.piece(leader)
        if p.hex is None or p.status != "normal":
            return "6.1 B"
        if p.activated or leader in s.activations:
            return "6.1.3 E"
        ok, why = activation_allowed(sc, g, leader)
        return None if ok else why.split(":")[0]

    def _leaders_left(self, s: TbfState, side: str) -> list[str]:
        return [l for l in self._side_leaders(side) if self._can_activate(s, l) is None]

    def _side_leaders(self, side: str) -> tuple[str, ...]:
        got = self._command_lists.get(("leaders", side))
        if got is None:             # the order of battle's leaders of one side, in its order
            got = self._command_lists[("leaders", side)] = tuple(l for l, d in self.sc.leaders.items() if d.side == side)
        return got

    def _mp_left(self, s: TbfState, uid: str) -> int:
        memo = self._memo_for(s)
        key = ("mp_left", uid)
        got = memo.get(key)
        if got is None:
            got = memo[key] = self._mp_left_now(s, uid)
        return got

    def _mp_left_now(self, s: TbfState, uid: str) -> int:
        p = self._index(s)[0][uid]
        ma = self.sc.leaders[uid].ma if self.sc.is_leader(uid) else current_ma(self.sc, p)
        return max(0, ma - _book(s.impulse, uid).mp)

    def _levels(self, imp: Impulse, uid: str) -> tuple[int, int]:
        kind = "cavalry" if self.sc.is_leader(uid) else self.sc.units[uid].kind
        bk = _book(imp, uid)
        for k, l2, l3 in imp.levels:
            if k == kind:
                return max(0, l2 - bk.l2), max(0, l3 - bk.l3)
        return 0, 0

    def _reach_of(self, s: TbfState, uid: str) -> dict:
        memo = self._memo_for(s)
        key = ("reach", uid)
        if key not in memo:
            l2, l3 = self._levels(s.impulse, uid)
            try:
                r = _reach(s.game, uid, l2, l3, self._mp_left(s, uid))
                if uid in s.rear_guard:         # 9.2 G: the Rear Guard moves only inside rows XX01-XX06
                    rows = self._rear_hexes()
                    r = {h: v for h, v in r.items() if rows.issuperset(v[1][1:])}
                memo[key] = r
            except RuleViolation as exc:
                memo[key] = exc
        got = memo[key]
        if isinstance(got, RuleViolation):
            raise got
        return got

    def _rear_hexes(self) -> frozenset:
        """9.2 G: every hex of rows XX01-XX06 (made once)."""
        got = self._memo_rear
        if got is None:
            got = self._memo_rear = frozenset(h for h in self.sc.board.hexes() if self._rear_ok(h))
        return got

    def _rear_ok(self, h: str) -> bool:
        """9.2 G: may a Rear Guard unit act in hex ``h`` (rows XX01-XX06)?"""
        ok = self._rear_rows.get(h)
        if ok is None:
            ok = self._rear_rows[h] = self.sc.board.grid.parse(h)[1] <= REAR_GUARD_ROWS
        return ok

    # --- candidates ------------------------------------------------------------------------------
    def candidates(self, s: TbfState):
        """Every candidate action, in a fixed order (the one list: legal actions are those of them that
        pass :meth:`check`)."""
        out: list = []
        for item in self._candidate_blocks(s):
            if isinstance(item, (_Moves, _Faces)):
                out += item.actions()
            else:
                out.append(item)
        return out

    def _candidate_blocks(self, s: TbfState) -> list:
        """The candidates in order, with each unit's moves (one movement search, 6.2) and facings (4.3) kept
        as one block that :meth:`candidates` spells out (a bot may weigh a block without spelling it out).
        Made once per state (the end of a segment asks for them, then the bot)."""
        memo = self._memo_for(s)
        got = memo.get("blocks")
        if got is None:
            got = memo["blocks"] = tuple(self._candidate_blocks_now(s))
        return list(got)

    def is_legal(self, state, action) -> bool:
        """:meth:`check` passes (the answer kept per state and action: a segment's end, the bot and the
        game ask about the same candidates)."""
        memo = self._memo_for(state)
        key = ("legal", action)
        try:
            got = memo.get(key)
        except TypeError:               # an action that is not a value (not hashable): asked afresh
            return super().is_legal(state, action)
        if got is None:
            got = memo[key] = super().is_legal(state, action)
        return got

    def _candidate_blocks_now(self, s: TbfState) -> list:
        side = self.to_act(s)
        if side is None:
            return []
        sc, g = self.sc, s.game
        imp = s.impulse
        out: list = []
        if imp is None:
            out += [Activate(side, l) for l, d in sc.leaders.items() if d.side == side and g.piece(l).hex]
            for cmd in self._leaderless(s, side):
                out += [ActivateCommand(side, cmd, u) for u, d in sorted(sc.units.items())
                        if d.command == cmd and g.piece(u).hex and g.piece(u).status in LIVE and not g.piece(u).activated]
            out.append(Pass(side))
            return out
        out.append(EndSegment(side))
        if imp.segment == "movement":
            for uid in imp.out_of_command:
                if uid not in imp.tried:
                    out.append(OutOfCommand(side, uid))
            if imp.extra_left:
                out += [Attach(side, u) for u in imp.extra if u not in imp.units]
            books = {b.unit: b for b in imp.book}          # (as _book: the first entry of a unit)
            if len(books) != len(imp.book):
                books = {}
                for b in imp.book:
                    books.setdefault(b.unit, b)
            for uid in imp.units + imp.leaders:
                p = g.piece(uid)
                if p.hex is None or p.status not in ("normal", "fatigued"):
                    continue
                bk = books.get(uid) or _fresh_book(uid)
                if bk.done:
                    continue
                out.append(_Moves(side, uid, p.hex, self, s))
                if uid in sc.units:
                    out.append(_Faces(side, uid, p.facing))
                    if sc.units[uid].kind == "cavalry" and p.status == "normal" and not bk.charge_tried:
                        out += self._charge_candidates(s, uid)
        elif imp.segment in ("defensive_fire", "offensive_fire"):
            if imp.segment == "defensive_fire" and "11.8" in s.options and not imp.defensive_fired:
                for q in g.on_map():
                    if q.id in sc.units and sc.side(q.id) == side and q.id not in imp.evaded \
                            and sc.units[q.id].kind == "cavalry":
                        out += [CavalryRetreat(side, q.id, path)
                                for path in cavalry_retreat_before_combat(sc, g, q.id)]
            out += self._fire_candidates(s, side, imp.segment == "defensive_fire")
        elif imp.segment == "melee":
            out += self._melee_candidates(s, side)
        return out

    def _charge_candidates(self, s: TbfState, uid: str) -> list:
        sc, g = self.sc, s.game
        grid = sc.board.grid
        p = g.piece(uid)
        side = sc.side(uid)
        enemy = other_side(SIDES, side)
        occupied = self._index(s)[1]            # hexes with live units in them (leaders do not block)
        out = []
        for d in frontal_directions(p.facing):
            line, h = [], p.hex
            for _ in range(self._mp_left(s, uid) + 1):
                h = grid.neighbour(h, d)
                if h is None:
                    break
                line.append(h)
                if h in occupied:
                    break
            if len(line) < 3 or not occupants(sc, g, line[-1], enemy):
                continue
            path = tuple(line)
            out.append(Charge(side, uid, path))
            for n in grid.neighbours(path[-1]):
                if grid.direction(path[-1], n) in frontal_directions(p.facing) and occupants(sc, g, n, enemy):
                    out.append(Charge(side, uid, path, (n,)))
        return out

    def _fire_candidates(self, s: TbfState, side: str, defensive: bool) -> list:
        sc, g = self.sc, s.game
        grid = sc.board.grid
        imp = s.impulse
        enemy = other_side(SIDES, side)
        if defensive:
            side_of, units = sc.side_of, sc.units
            shooters = [q for q in g._on_map if side_of[q.id] == side and q.id in units
                        and q.id not in imp.defensive_fired]
            targets = {g.piece(u).hex for u in imp.units if g.piece(u).hex and g.piece(u).status in LIVE}
        else:
            shooters = [g.piece(u) for u in imp.units if g.piece(u).hex and not _book(imp, u).fired]
            targets = _occupied(sc, g, side)[0]         # the hexes of live enemy units
        cav = "11.1" in s.options
        shooters = [q for q in shooters if q.status in ("normal", "fatigued") and (
            (sc.units[q.id].ff > 0 and sc.units[q.id].kind != "cavalry")
            or (cav and sc.units[q.id].kind == "cavalry" and sc.units[q.id].ff_red > 0))]        # 11.1 A
        lone = []
        if defensive:                   # 6.3.5: a leader alone in his hex may fire defensively
            by_hex = self._index(s)[1]
            lone = [q for q in g.on_map() if q.id in sc.leaders and sc.side(q.id) == side and q.status == "normal"
                    and q.id not in imp.defensive_fired and not by_hex.get(q.hex)]
        out = []
        # 6.3.3: artillery reaches 4 hexes in offensive fire; everyone else fires at adjacent hexes only.
        # Each target's firers, in the order of the shooters (each shooter asks about the targets it reaches)
        by_target: dict[str, list] = {}
        alone: dict[str, list] = {}
        nbs = grid.neighbours
        for q in lone:
            for t in nbs(q.hex):
                if t in targets:
                    alone.setdefault(t, []).append(q.id)
        for q in shooters:
            if not defensive and sc.units[q.id].kind == "artillery":
                ring = self._artillery_hexes(q.hex)
                reached = [t for t in targets if t in ring]
            else:
                reached = [t for t in nbs(q.hex) if t in targets]
            for t in reached:
                by_target.setdefault(t, []).append(q.id)
        for t in sorted(by_target.keys() | alone.keys()):
            out += [Fire(side, (u,), t) for u in alone.get(t, ())]
            ids = by_target.get(t, ())
            for u in ids:
                out.append(Fire(side, (u,), t))
            if len(ids) > 1:
                out.append(Fire(side, tuple(sorted(ids)), t))
        return out

    def _artillery_hexes(self, h: str) -> frozenset:
        """6.3.3: the hexes 1 to 4 hexes from ``h`` (the reach of offensive artillery fire; the map never
        changes: made once per hex)."""
        memo = self._command_lists
        key = ("artillery reach", h)
        got = memo.get(key)
        if got is None:
            grid = self.sc.board.grid
            got = memo[key] = frozenset(t for t in grid.within(h, 4) if t != h)
        return got

    def _melee_candidates(self, s: TbfState, side: str) -> list:
        sc, g = self.sc, s.game
        grid = sc.board.grid
        imp = s.impulse
        enemy = other_side(SIDES, side)
        ready = [u for u in imp.units if g.piece(u).hex and g.piece(u).status in ("normal", "fatigued")
                 and not _book(imp, u).meleed and not _book(imp, u).charged]
        targets = _occupied(sc, g, side)[0]            # the hexes of live enemy units
        out = []
        by_target: dict[str, list] = {}                 # each target's adjacent attackers, in ready's order
        for u in ready:
            for t in grid.neighbours(g.piece(u).hex):
                if t in targets:
                    by_target.setdefault(t, []).append(u)
        for t in sorted(by_target):
            ids = by_target[t]
            for u in ids:
                out.append(Melee(side, (u,), t))
            for kinds in (("infantry", "artillery"), ("cavalry",)):
                grp = tuple(sorted(u for u in ids if sc.units[u].kind in kinds))
                if len(grp) > 1:
                    out.append(Melee(side, grp, t))
        return out

    # --- check ------------------------------------------------------------------------------------
    def check(self, s: TbfState, a) -> None:
        if not isinstance(a, _ACTION_TYPES):
            raise RuleViolation("3.0", f"not a TBF action: {type(a).__name__}")
        if s.result is not None:
            raise RuleViolation("10.0", f"the game is over ({s.result})")
        side = self.to_act(s)
        if a.side != side:
            seg = s.impulse.segment.replace("_", " ") if s.impulse else "the start of an impulse"
            raise RuleViolation("3.3 A", f"it is the {side}'s turn to act ({seg}), not the {a.side}'s")
        imp = s.impulse
        if isinstance(a, (Activate, ActivateCommand, Pass)):
            if imp is not None:
                raise RuleViolation("3.3 B", f"the {imp.side} impulse of {imp.leader} is under way "
                                             f"({imp.segment.replace('_', ' ')} segment): finish it first")
            if isinstance(a, Activate):
                self._check_activate(s, a)
            elif isinstance(a, ActivateCommand):
                self._check_activate_command(s, a)
            return
        if imp is None:
            raise RuleViolation("3.3 A", f"no activation is under way: the {side} activates a leader (6.1) or passes")
        if isinstance(a, EndSegment):
            self._check_end(s, a)
            return
        want = _SEGMENT_OF.get(type(a))
        if isinstance(a, Fire):
            if imp.segment not in ("defensive_fire", "offensive_fire"):
                raise RuleViolation("3.3 B", f"fire belongs to the Fire Segments; this is the "
                                             f"{imp.segment.replace('_', ' ')} segment")
        elif imp.segment != want:
            raise RuleViolation("3.3 B", f"a {a.kind.replace('_', ' ')} belongs to the {want} segment; this is the "
                                         f"{imp.segment.replace('_', ' ')} segment (segments run in order)")
        getattr(self, f"_check_{a.kind}")(s, a)

    def _check_end(self, s, a):
        """4.1.10 A: a side's Movement Segment may not end while one of its hexes stays overstacked and a
        unit there that this activation moves could still leave it."""
        if s.impulse.segment != "movement":
            return
        stuck = self._overstack_movers(s)
        if stuck:
            h, uid = stuck
            raise RuleViolation("4.1.10 A", f"{h} is still overstacked ({stacking_problem(self.sc, s.game, h)}) and "
                                            f"{uid} can still move out: resolve it before the Movement Segment ends")

    def _overstack_movers(self, s) -> tuple[str, str] | None:
        """An overstacked hex and a unit of it that may still move this segment to a hex where it stacks."""
        memo = self._memo_for(s)
        if "overstack_movers" in memo:
            return memo["overstack_movers"]
        got = None
        imp, sc = s.impulse, self.sc
        by_hex = self._index(s)[1]
        for h in self._overstacks(s.game):
            for p in by_hex.get(h, ()):
                if p.id not in imp.units or sc.side(p.id) != imp.side or p.status not in ("normal", "fatigued"):
                    continue
                bk = _book(imp, p.id)
                if bk.done or bk.charged or sc.units[p.id].command == "VI":
                    continue
                try:
                    r = self._reach_of(s, p.id)
                except RuleViolation:
                    continue
                for dest in sorted(r):
                    if dest != h and self.is_legal(s, Move(imp.side, p.id, dest)):
                        got = (h, p.id)
                        break
                if got:
                    break
            if got:
                break
        memo["overstack_movers"] = got
        return got

    def _check_cavalry_retreat(self, s, a: CavalryRetreat):
        sc, imp = self.sc, s.impulse
        if "11.8" not in s.options:
            raise RuleViolation("11.8", "cavalry retreat before combat is an optional rule not chosen for this game")
        if a.unit not in sc.units or sc.side(a.unit) != a.side or sc.units[a.unit].kind != "cavalry":
            raise RuleViolation("11.8 B", f"{a.unit} is not a {a.side} cavalry unit")
        if imp.defensive_fired:
            raise RuleViolation("11.8 B", "cavalry falls back only at the start of the Defensive Fire Segment, "
                                          "before any defensive fire")
        if a.unit in imp.evaded:
            raise RuleViolation("11.8 B", f"{a.unit} has already fallen back this segment")
        paths = cavalry_retreat_before_combat(sc, s.game, a.unit)
        if tuple(a.path) not in paths:
            allowed = "; ".join("-".join(x) for x in paths) or "none (11.8 B-C conditions not met)"
            raise RuleViolation("11.8 B", f"{a.unit} may not fall back by {'-'.join(a.path)}; allowed: {allowed}")

    def _check_activate(self, s, a):
        sc = self.sc
        if a.leader not in sc.leaders:
            raise RuleViolation("6.1 B", f"{a.leader!r} is not a leader")
        if sc.side(a.leader) != a.side:
            raise RuleViolation("6.1 B", f"{a.leader} is not a {a.side} leader")
        why = self._can_activate(s, a.leader)
        if why == "6.1.3 E":
            raise RuleViolation("6.1.3 E", f"{a.leader} has already been activated this turn")
        if why == "6.1 B":
            raise RuleViolation("6.1 B", f"{a.leader} is not on the map")
        if why is not None:
            _, reason = activation_allowed(sc, s.game, a.leader)
            raise RuleViolation(why, f"{a.leader} may not activate yet ({reason})")

    def _leaderless(self, s: TbfState, side: str) -> list[str]:
        """Commands of ``side`` with units on the map, no leader of their own left (6.1.4), not yet activated
        this turn (6.1.4 B)."""
        g = s.game
        out = []
        for c, own, units in self._commands(side):
            if not own or f"command {c}" in s.activations:
                continue                # no leader of its own (Column VI: Kutusov's) or already activated
            if any(g.piece(x).hex and g.piece(x).status == "normal" for x in own):
                continue
            if any(g.piece(u).hex and g.piece(u).status in LIVE for u in units):
                out.append(c)           # (units of it on the map)
        return out

    def _commands(self, side: str) -> tuple:
        """The side's commands in order, each with the leaders of that command and its units (the order of
        battle's: made once)."""
        got = self._command_lists.get(side)
        if got is None:
            sc = self.sc
            cmds = sorted({d.command for d in sc.units.values() if d.side == side})
            got = self._command_lists[side] = tuple(
                (c, tuple(x.id for x in sc.leaders.values() if x.command == c),
                 tuple(u for u, d in sc.units.items() if d.side == side and d.command == c)) for c in cmds)
        return got

    def _check_activate_command(self, s, a: ActivateCommand):
        sc, g = self.sc, s.game
        if a.unit not in sc.units or sc.side(a.unit) != a.side:
            raise RuleViolation("6.1.4 A", f"{a.unit!r} is not a {a.side} unit")
        if f"command {a.command}" in s.activations:
            raise RuleViolation("6.1.4 B", f"command {a.command} has already been activated this turn")
        if a.command not in self._leaderless(s, a.side):
            raise RuleViolation("6.1.4", f"command {a.command} is not a {a.side} command left without its leaders")
        if g.piece(a.unit).activated:
            raise RuleViolation("6.1.3 E", f"{a.unit} has already been activated this turn")
        leaderless_activation(sc, g, a.command, a.unit)               # 6.1.4, 6.1.4 A
        ok, why = activation_allowed(sc, g, a.unit)
        if not ok:
            raise RuleViolation(why.split(":")[0], f"{a.unit} may not activate yet ({why})")

    def _actor(self, s, uid: str, what: str, leaders_ok: bool = False) -> None:
        """``uid`` is one of the activated units (or leaders) of this impulse and may act."""
        sc, imp = self.sc, s.impulse
        if uid not in sc.units and uid not in sc.leaders:
            raise RuleViolation("2.4", f"no unit or leader {uid!r} in this game")
        if sc.side(uid) != imp.side:
            raise RuleViolation("6.1", f"{uid} is not a {imp.side} unit")
        if sc.is_leader(uid):
            if not leaders_ok:
                raise RuleViolation("6.3.5" if what == "fire" else "6.4 B", f"leader {uid} cannot {what}")
            if uid not in imp.leaders:
                raise RuleViolation("6.1.3 B", f"leader {uid} was not activated in this impulse")
            return
        if uid in imp.units:
            return
        if uid in imp.out_of_command:
            if uid in imp.tried:
                raise RuleViolation("6.1.3 C", f"{uid} failed its Out of Command check: it may not {what} this turn")
            raise RuleViolation("6.1.3 C", f"{uid} is out of its leader's command range: it must pass an Out of "
                                           f"Command check first")
        if self._index(s)[0][uid].activated:
            raise RuleViolation("6.1.3 E", f"{uid} has already been activated this turn")
        raise RuleViolation("6.1", f"{uid} is not activated in this impulse (leader {imp.leader})")

    def _moving(self, s, uid: str, what: str) -> UnitTurn:
        """The unit's book when it may move (or turn, or charge) now; else the RuleViolation saying why.
        Asked once per unit and state (every candidate move of a unit asks the same question)."""
        memo = self._memo_for(s)
        key = ("moving", uid, what)
        got = memo.get(key)
        if got is None:
            try:
                got = self._moving_now(s, uid, what)
            except RuleViolation as exc:
                got = exc
            memo[key] = got
        if isinstance(got, RuleViolation):
            raise got.with_traceback(None)
        return got

    def _moving_now(self, s, uid: str, what: str) -> UnitTurn:
        self._actor(s, uid, what, leaders_ok=(what == "move"))
        sc = self.sc
        p = self._index(s)[0][uid]
        if p.hex is None or p.status in GONE:
            raise RuleViolation("6.2.1", f"{uid} is not on the map")
        if uid in sc.units and sc.units[uid].command == "VI":
            raise RuleViolation("9.2 I", f"{uid} belongs to Column VI, which never moves unless forced to retreat")
        if p.status == "routed":
            raise RuleViolation("6.7 F", f"{uid} is routed: it rout-moves at the start of the Movement Segment")
        bk = _book(s.impulse, uid)
        if bk.charged:
            raise RuleViolation("6.2.8 L", f"{uid} has charged: its movement is over")
        if bk.done:
            raise RuleViolation("6.2.4 B", f"{uid} has finished its movement this segment")
        return bk

    def _check_move(self, s, a: Move):
        self._moving(s, a.unit, "move")
        sc, g = self.sc, s.game
        dest = sc.board.check_hex(a.to, "6.2.1")
        side_of = self._side_of
        side = side_of[a.unit]
        if any(side_of[p.id] != side for p in self._index(s)[1].get(dest, ())):
            raise RuleViolation("6.2.5 B", f"{dest} is occupied by the enemy")
        r = self._reach_of(s, a.unit)
        here = self._index(s)[0][a.unit].hex
        if dest == here:
            raise RuleViolation("6.2.1", f"{a.unit} is already in {dest}")
        if dest not in r and a.unit in s.rear_guard and a.unit in self._reach_raw(s, a.unit, dest):
            raise RuleViolation("9.2 G", f"{a.unit} is in the Rear Guard: it stays inside hex rows XX01-XX06")
        if dest not in r:
            raise RuleViolation("6.2.1", f"{a.unit} cannot reach {dest} with the {self._mp_left(s, a.unit)} MPs it has "
                                         f"left (terrain 6.2.2, levels 6.2.3, enemy fronts 6.2.5 A, 9.5.1)")
        mp, path = r[dest]
        if a.path and tuple(a.path) != path:
            raise RuleViolation("6.2.1", f"{a.unit} moves by its cheapest legal path {'-'.join(path)}, not "
                                         f"{'-'.join(a.path)}")
        if a.mp not in (-1, mp):
            raise RuleViolation("6.2.2", f"the move to {dest} costs {mp} MPs, not {a.mp}")
        problem = None
        if a.unit in sc.units and self._index(s)[1].get(dest):
            memo = self._memo_for(s)
            key = ("stack", a.unit, dest)
            if key not in memo:
                memo[key] = stacking_problem_with(sc, g, dest, a.unit)
            problem = memo[key]
            if problem is not None:
                raise RuleViolation(problem.split(":")[0], f"{a.unit} may not end its move in {dest}: {problem} (4.1.7)")

    def _reach_raw(self, s, uid: str, dest: str) -> set:
        """``{uid}`` when ``dest`` is in reach leaving the Rear Guard limit aside (for the error message)."""
        l2, l3 = self._levels(s.impulse, uid)
        try:
            return {uid} if dest in _reach(s.game, uid, l2, l3, self._mp_left(s, uid)) else set()
        except RuleViolation:
            return set()

    def _check_face(self, s, a: Face):
        bk = self._moving(s, a.unit, "change facing")
        if isinstance(a.facing, bool) or not isinstance(a.facing, int) or not 0 <= a.facing <= 5:
            raise RuleViolation("4.3 B", f"a facing is a hexside 0..5 (N, NE, SE, S, SW, NW), not {a.facing!r}")
        if s.game.piece(a.unit).facing == a.facing:
            raise RuleViolation("4.3 B", f"{a.unit} already faces that hexside")
        fc = self.td.facing_change
        if bk.facings >= fc.per_segment:
            raise RuleViolation("4.3", f"{a.unit} has already changed facing this Movement Segment "
                                       f"(once per segment, {fc.source})")
        if self._mp_left(s, a.unit) < fc.mp:
            raise RuleViolation("4.3", f"{a.unit} has no MP left to change facing")

    def _check_charge(self, s, a: Charge):
        bk = self._moving(s, a.unit, "charge")
        sc, g = self.sc, s.game
        u = sc.units.get(a.unit)
        if u is None or u.kind != "cavalry":
            raise RuleViolation("6.2.8 A", f"{a.unit} is not cavalry: only cavalry charges")
        if g.piece(a.unit).status != "normal":
            raise RuleViolation("4.2.4 F", f"{a.unit} is fatigued: fatigued cavalry may not charge")
        if bk.charge_tried:
            raise RuleViolation("6.2.8 A", f"{a.unit} has already attempted a charge this Movement Segment "
                                           "(once per segment; a failed attempt is not retried, 6.2.8 D)")
        if not a.path:
            raise RuleViolation("6.2.8 C", "a charge needs its path, ending on the target hex")
        for h in tuple(a.path) + tuple(a.next):
            sc.board.check_hex(h, "6.2.8 C")
            if a.unit in s.rear_guard and not self._rear_ok(h):
                raise RuleViolation("9.2 G", f"{a.unit} is in the Rear Guard: it may not charge outside rows XX01-XX06")
        for h in a.path[:-1]:
            if occupants(sc, g, h):
                raise RuleViolation("6.2.8 C", f"the charge line is blocked at {h}")
        mp_left = self._mp_left(s, a.unit)
        try:
            setup = _charge_setup(g, a.unit, tuple(a.path), tuple(a.next), mp_left)
        except DataError as exc:
            enemy = other_side(SIDES, a.side)
            empty = [h for h in (a.path[-1], *a.next) if not occupants(sc, g, h, enemy)]
            if empty:       # the same refusal, said as a player would: a charge ends on enemy units (6.2.8 C)
                raise RuleViolation("6.2.8 C", f"{empty[0]} holds no enemy unit: a charge's path ends on the "
                                               "enemy it charges") from None
            raise RuleViolation("6.2.8 C", f"not a valid charge: {exc}") from None
        charge_validate(setup, sc.tables)

    def _check_out_of_command(self, s, a: OutOfCommand):
        imp = s.impulse
        if a.unit not in imp.out_of_command:
            raise RuleViolation("6.1.3 C", f"{a.unit} is not a unit of this command outside its leader's range")
        if a.unit in imp.tried:
            raise RuleViolation("6.1.3 C", f"{a.unit} has already taken its Out of Command check this turn")

    def _check_attach(self, s, a: Attach):
        imp = s.impulse
        if a.unit in imp.units:
            raise RuleViolation("6.1.3 E", f"{a.unit} is already activated in this impulse")
        if a.unit not in imp.extra:
            raise RuleViolation("6.1.3 A", f"{a.unit} is not a friendly unit outside {imp.leader}'s command within "
                                           f"{self.td.extra_units_reach.hexes} hexes of him")
        if imp.extra_left <= 0:
            raise RuleViolation("6.1.3 A", f"{imp.leader} has taken along as many extra units as his CV allows")

    def _check_fire(self, s, a: Fire):
        sc, g, imp = self.sc, s.game, s.impulse
        defensive = imp.segment == "defensive_fire"
        if not a.units or len(set(a.units)) != len(a.units):
            raise RuleViolation("6.3.7 A", "name each firing unit once")
        target = sc.board.check_hex(a.target, "6.3")
        for uid in a.units:
            if uid not in sc.units and uid not in sc.leaders:
                raise RuleViolation("2.4", f"no unit or leader {uid!r} in this game")
            if sc.side(uid) != a.side:
                raise RuleViolation("6.3.7 A", f"{uid} is not a {a.side} unit")
            p = g.piece(uid)
            if p.hex is None or p.status in GONE:
                raise RuleViolation("6.3", f"{uid} is not on the map")
            if sc.is_leader(uid):
                if not defensive:
                    raise RuleViolation("6.3.5", f"leader {uid} fires only in the Defensive Fire Segment")
                if p.status != "normal" or self._index(s)[1].get(p.hex):
                    raise RuleViolation("6.3.5", f"leader {uid} fires only when alone in his hex")
                if uid in imp.defensive_fired:
                    raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
                continue
            u = sc.units[uid]
            if u.kind == "cavalry":
                if "11.1" not in s.options:
                    raise RuleViolation("6.3.2 D", f"{uid} is cavalry: cavalry does not fire (optional rule 11.1 not chosen)")
                if u.ff_red <= 0:
                    raise RuleViolation("11.1 A", f"{uid} has no red FF: only dragoons and carabiniers fire")
                if sc.board.grid.distance(p.hex, target) != 1:
                    raise RuleViolation("11.1 B", f"{uid} fires only at an adjacent hex")
            elif p.status == "routed" or u.ff <= 0:
                raise RuleViolation("6.3.2 C", f"{uid} may not fire (routed or no FF)")
            if p.status == "routed":
                raise RuleViolation("6.3.2 C", f"{uid} is routed: it may not fire")
            if uid in s.rear_guard and not self._rear_ok(target):
                raise RuleViolation("9.2 G", f"{uid} is in the Rear Guard: it acts only inside rows XX01-XX06")
            if defensive:
                if uid in imp.defensive_fired:
                    raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
            else:
                self._actor(s, uid, "fire")
                if p.status == "fatigued":
                    raise RuleViolation("4.2.4 C", f"{uid} is fatigued: it may fire only defensively")
                if _book(imp, uid).fired:
                    raise RuleViolation("6.3.2 B", f"{uid} has already fired in this Fire Segment")
        if defensive:
            if not any(g.piece(u).hex == target for u in imp.units):
                raise RuleViolation("6.3.1 A", f"defensive fire is at activated enemy units; none is in {target}")
            for uid in a.units:
                if sc.board.grid.distance(g.piece(uid).hex, target) != 1:
                    raise RuleViolation("6.3.6", f"defensive fire is only into adjacent hexes; {uid} is not next to {target}")
        _fire_setup(g, tuple(a.units), target, defensive, *self._fire_opts(s, a.units, defensive))

    def _fire_opts(self, s, units, defensive) -> tuple[bool, tuple[str, ...]]:
        """11.1: cavalry may fire when the option is on; those that moved this segment take -1 (11.1 C)."""
        if "11.1" not in s.options:
            return False, ()
        moved = () if defensive else tuple(u for u in units if u in self.sc.units
                                           and self.sc.units[u].kind == "cavalry" and _book(s.impulse, u).moved)
        return True, moved

    def _check_melee(self, s, a: Melee):
        sc, g, imp = self.sc, s.game, s.impulse
        if not a.units or len(set(a.units)) != len(a.units):
            raise RuleViolation("6.4 B", "name each attacking unit once")
        target = sc.board.check_hex(a.target, "6.4")
        kinds = set()
        for uid in a.units:
            self._actor(s, uid, "melee")
            p = g.piece(uid)
            if p.hex is None or p.status in GONE:
                raise RuleViolation("6.4 B", f"{uid} is not on the map")
            if p.status == "routed":
                raise RuleViolation("6.7 F", f"{uid} is routed and cannot attack")
            bk = _book(imp, uid)
            if bk.meleed:
                raise RuleViolation("6.4 K", f"{uid} has already made a melee attack this impulse")
            if bk.charged:
                raise RuleViolation("6.2.8 H", f"{uid} charged this impulse: its melee was the charge's")
            kinds.add("cavalry" if sc.units[uid].kind == "cavalry" else "foot")
            if uid in s.rear_guard and not self._rear_ok(target):
                raise RuleViolation("9.2 G", f"{uid} is in the Rear Guard: it may not attack outside rows XX01-XX06")
        if len(kinds) > 1:
            raise RuleViolation("6.4 C", "cavalry and infantry may not melee the same hex together")
        _melee_setup(g, tuple(a.units), target)

    # --- perform ------------------------------------------------------------------------------------
    def perform(self, s: TbfState, a):
        before = s.game
        s = yield from getattr(self, f"_do_{a.kind}")(s, a)
        if a.kind in ("fire", "melee", "charge"):
            s = yield from self._wounds(s)
        return (yield from self._after(s, a, before))

    def _wounds(self, s):
        """6.5 A: a wounded leader is out for 2d6 turns, rolled as the wound is applied; he comes back in
        the Reinforcement Phase of the turn that many turns on (never, past the last turn)."""
        known = {l for l, _ in s.wounded}
        by_id = self._index(s)[0]
        for l in sorted(self.sc.leaders):
            if by_id[l].status == "wounded" and l not in known:
                n = yield Roll("2d6", rule="6.5 A", label=f"turns {l} is out of play")
                back = s.turn + n
                s = replace(s, wounded=s.wounded + ((l, back),))
                yield Log("6.5 A", f"{l} is wounded and out for {n} turns: " + (
                    f"back on turn {back}" if back <= self.sc.file.turns else "out for the rest of the game"))
        return s

    def _do_cavalry_retreat(self, s, a: CavalryRetreat):
        g = yield from A.cavalry_retreat_action(self.sc, s.game, a.unit, tuple(a.path))
        return replace(s, game=g, impulse=replace(s.impulse, evaded=s.impulse.evaded + (a.unit,)))

    def _do_pass(self, s, a):
        s = replace(s, passes=s.passes + 1)
        yield Log("3.3 B", f"the {a.side} passes")
        if s.passes >= 2:
            return (yield from self._end_phase(s, "both sides passed in turn"))
        return replace(s, to_move=other_side(SIDES, a.side))

    def _do_activate(self, s, a):
        sc = self.sc
        g = s.game
        plan = activation_plan(sc, g, a.leader)
        leaders = tuple(l for l in plan["leaders"] if activation_allowed(sc, g, l)[0])
        units = tuple(u for u in plan["units"] if activation_allowed(sc, g, u)[0])
        ooc = tuple(u for u in plan["out_of_command"] if activation_allowed(sc, g, u)[0])
        extra = tuple(u for u in plan["extra_candidates"] if activation_allowed(sc, g, u)[0])
        for l in leaders:
            g = g.with_piece(l, activated=True)                               # 6.1.3 B
        for u in units:
            g = g.with_piece(u, activated=True)                               # 6.1.3 E
        r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
        ch = sc.tables.levels
        levels = tuple((k, getattr(ch.level2[r], k), getattr(ch.level3[r], k)) for k in ("infantry", "cavalry", "artillery"))
        yield Log("6.1", f"{a.leader} activates {', '.join(leaders)}: {len(units)} units in command, "
                         f"{len(ooc)} out of range")
        imp = Impulse(a.side, a.leader, "movement", leaders, units, ooc, (), extra,
                      sc.leaders[a.leader].cv if extra else 0, levels)
        s = replace(s, game=g, impulse=imp, passes=0, activations=s.activations + (a.leader,))
        for u in units:                                                       # 6.7 F: routed units run on
            p = s.game.piece(u)
            if p.hex is not None and p.status == "routed":
                s = yield from self._continue_rout(s, u)
        return s

    def _do_activate_command(self, s, a: ActivateCommand):
        sc, g = self.sc, s.game
        plan = leaderless_activation(sc, g, a.command, a.unit)
        units = tuple(u for u in plan["units"] if activation_allowed(sc, g, u)[0])
        ooc = tuple(u for u in plan["out_of_command"] if activation_allowed(sc, g, u)[0])
        for u in units:
            g = g.with_piece(u, activated=True)
        r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
        ch = sc.tables.levels
        levels = tuple((k, getattr(ch.level2[r], k), getattr(ch.level3[r], k)) for k in ("infantry", "cavalry", "artillery"))
        yield Log("6.1.4 A", f"command {a.command} has no leader left: {a.unit} takes local command; "
                             f"{len(units)} units in or next to its hex, {len(ooc)} must check (6.1.3 C)")
        imp = Impulse(a.side, f"command {a.command}", "movement", (), units, ooc, (), (), 0, levels)
        s = replace(s, game=g, impulse=imp, passes=0, activations=s.activations + (f"command {a.command}",))
        for u in units:
            p = s.game.piece(u)
            if p.hex is not None and p.status == "routed":
                s = yield from self._continue_rout(s, u)
        return s

    def _continue_rout(self, s, uid):
        sc = self.sc
        g = s.game
        path = rout_path(sc, g, uid, just_routed=False)
        yield Log("6.7 F", f"{uid} is routed and rout-moves {'-'.join(path.path)} ({path.fate})")
        if path.fate in ("eliminated", "exited"):
            g = g.with_piece(uid, status="eliminated", hex=None)
        elif path.path[-1] != g.piece(uid).hex:
            g = g.with_piece(uid, hex=path.path[-1])
            g = yield from A.overstack_checks(sc, g, path.path[-1])
        imp = _with_book(s.impulse, replace(_book(s.impulse, uid), done=True, moved=True))
        return replace(s, game=g, impulse=imp)

    def _finish_mover(self, imp: Impulse, uid: str) -> Impulse:
        if imp.mover and imp.mover != uid:
            imp = _with_book(imp, replace(_book(imp, imp.mover), done=True))       # 6.2.4 B
        return replace(imp, mover=uid)

    def _do_move(self, s, a: Move):
        sc = self.sc
        g = s.game
        mp, path = self._reach_of(s, a.unit)[a.to]
        l2, l3 = self._levels(s.impulse, a.unit)
        bk = _book(s.impulse, a.unit)
        used2 = used3 = 0
        for x, y in zip(path, path[1:]):
            cost, _ = sc.board.step_cost(x, y, sc.tables)
            if isinstance(cost, tuple):
                used2 += cost[1] == 2
                used3 += cost[1] == 3
        if sc.is_leader(a.unit):
            g = g.with_piece(a.unit, hex=a.to)
        else:
            g = yield from A.move_action(sc, g, a.unit, a.to, ((2, l2), (3, l3)), mp_left=self._mp_left(s, a.unit))
        stop = a.to in _front(s.game, sc.side(a.unit))                       # 6.2.5 A
        imp = self._finish_mover(s.impulse, a.unit)
        imp = _with_book(imp, replace(bk, mp=bk.mp + mp, l2=bk.l2 + used2, l3=bk.l3 + used3, moved=True,
                                      done=stop or bk.done))
        yield Log("6.2", f"{a.unit} moves {'-'.join(path)} for {mp} MPs" + (" and stops in an enemy front (6.2.5 A)"
                                                                              if stop else ""))
        return replace(s, game=g, impulse=imp)

    def _do_face(self, s, a: Face):
        bk = _book(s.impulse, a.unit)
        imp = self._finish_mover(s.impulse, a.unit)
        imp = _with_book(imp, replace(bk, facings=bk.facings + 1, mp=bk.mp + self.td.facing_change.mp))
        yield Log("4.3", f"{a.unit} faces {self.sc.board.grid.direction_names[a.facing]}")
        return replace(s, game=s.game.with_piece(a.unit, facing=a.facing), impulse=imp)

    def _do_charge(self, s, a: Charge):
        sc = self.sc
        mp_left = self._mp_left(s, a.unit)
        bk = _book(s.impulse, a.unit)
        g = yield from A.charge_action(sc, s.game, a.unit, tuple(a.path), tuple(a.next), mp_left, auto_fatigue=False)
        p = g.piece(a.unit)
        charged = p.charged
        imp = self._finish_mover(s.impulse, a.unit)
        imp = _with_book(imp, replace(bk, charge_tried=True, charged=charged, done=charged or bk.done,
                                      mp=bk.mp + (mp_left if charged else 0)))
        if not charged:
            yield Log("6.2.8 D", f"{a.unit} fails its attempt: no charge this segment; it may still move")
        return replace(s, game=g, impulse=imp)

    def _do_out_of_command(self, s, a: OutOfCommand):
        ok, g = yield from A.out_of_command_check(self.sc, s.game, a.unit)
        imp = replace(s.impulse, tried=s.impulse.tried + (a.unit,))
        if ok and g.piece(a.unit).hex is not None:
            imp = replace(imp, units=imp.units + (a.unit,))
            g = g.with_piece(a.unit, activated=True)
            yield Log("6.1.3 C", f"{a.unit} passes and joins the activation")
        else:
            yield Log("6.1.3 C", f"{a.unit} fails: it may not move or act this turn, only fire defensively")
        return replace(s, game=g, impulse=imp)

    def _do_attach(self, s, a: Attach):
        imp = replace(s.impulse, units=s.impulse.units + (a.unit,), extra_left=s.impulse.extra_left - 1)
        yield Log("6.1.3 A", f"{s.impulse.leader} takes {a.unit} along")
        return replace(s, game=s.game.with_piece(a.unit, activated=True), impulse=imp)

    def _do_fire(self, s, a: Fire):
        defensive = s.impulse.segment == "defensive_fire"
        sc = self.sc
        short = ()
        if ("11.2" in s.options and a.side == "french" and s.turn >= self.td.ammo.first_turn
                and road_blocked(sc, s.game, "Dürenstein")):                   # 11.2 A
            gazan = tuple(u for u in a.units if u in sc.units and sc.units[u].kind == "infantry"
                          and sc.units[u].command.split("-")[0] == "II")     # 11.2 clarification: Gazan's only
            if gazan:
                if (yield from ammo_shortage()):
                    short = gazan
                    yield Log("11.2 B", f"ammunition short: {', '.join(gazan)} fire at half FF")
        cav, moved = self._fire_opts(s, a.units, defensive)
        g = yield from A.fire_action(sc, s.game, tuple(a.units), a.target, defensive, cav, moved, short)
        imp = s.impulse
        if defensive:
            imp = replace(imp, defensive_fired=imp.defensive_fired + tuple(a.units))
            # a defensive shot does not activate the firer
            for u in a.units:
                if g.piece(u).hex is not None:
                    g = g.with_piece(u, activated=s.game.piece(u).activated)
        else:
            for u in a.units:
                imp = _with_book(imp, replace(_book(imp, u), fired=True))
        return replace(s, game=g, impulse=imp)

    def _do_melee(self, s, a: Melee):
        g = yield from A.melee_action(self.sc, s.game, tuple(a.units), a.target)
        imp = s.impulse
        for u in a.units:
            imp = _with_book(imp, replace(_book(imp, u), meleed=True))
        return replace(s, game=g, impulse=imp)

    def _do_end(self, s, a):
        imp = s.impulse
        i = SEGMENTS.index(imp.segment)
        yield Log("3.3 B", f"end of the {imp.segment.replace('_', ' ')} segment")
        if i + 1 < len(SEGMENTS):
            return replace(s, impulse=replace(imp, segment=SEGMENTS[i + 1], mover=""))
        g = s.game
        for b in imp.book:                          # 4.2.3, 6.2.8 J: chargers tire once the Melee Segment ends
            p = g.piece(b.unit)
            if b.charged and p.hex is not None and p.status == "normal":
                g = g.with_piece(b.unit, status="fatigued")
                yield Log("6.2.8 J", f"{b.unit} charged this impulse: it is fatigued now (4.2.3)")
        return (yield from self._end_impulse(replace(s, game=g)))

    def _end_impulse(self, s):
        s = replace(s, impulse=None, to_move=other_side(SIDES, s.impulse.side), passes=0)
        if not any(any(self._can_activate(s, l) is None for l in self._side_leaders(side)) or self._leaderless(s, side)
                   for side in SIDES):
            return (yield from self._end_phase(s, "every leader and command has been activated"))
        return s

    # --- after every action ----------------------------------------------------------------------------
    def _after(self, s, a, before: GameState | None = None):
        sc = self.sc
        g = releases(sc, s.game)
        if "light_blue_crossed" in g.flags and s.alert_from is None:
            s = replace(s, alert_from=g.turn + 1)                             # 9.5.2: roll from next turn
        if "column_VI_deployed" in g.flags and not any(g.piece(u).hex for u in self._column("VI")) \
                and not any(g.piece(u).status in GONE for u in self._column("VI")):
            g = self._deploy(g, self._column("VI"), self._near(self.td.column_vi.hex, 1))
            yield Log("9.2 I", "Column VI deploys next to 3309")
        s = replace(s, game=g)
        over = self._automatic_victory(s)
        if over is not None:
            return replace(s, result=over, impulse=None)
        s = yield from self._skip_empty_segments(s)
        if not isinstance(a, Move):
            s = replace(s, overstack_ok=tuple(self._overstacks(s.game, before)))
        else:
            now = self._overstacks(s.game, before)
            s = replace(s, overstack_ok=tuple(h for h in s.overstack_ok if h in now))
        return s

    def _skip_empty_segments(self, s):
        """A Fire or Melee Segment in which the side has nothing it could do ends by itself (3.3 B)."""
        while s.result is None and s.impulse is not None and s.impulse.segment != "movement":
            side = self.to_act(s)
            if any(not isinstance(c, EndSegment) and self.is_legal(s, c) for c in self.candidates(s)):
                return s
            s = yield from self._do_end(s, EndSegment(side))
        return s

    def _overstacks(self, g: GameState, prev: GameState | None = None) -> list[str]:
        """The overstacked hexes of position ``g`` (4.1), sorted. ``prev``: the position ``g`` was made from
        (the one before the action): where a hex holds the very pieces it held there, its answer is
        taken from there, so only the hexes the action changed are judged again."""
        got = self._overstack_memo.get(g)            # by value: positions keep their hash
        if got is None:
            if len(self._overstack_memo) > 1024:
                self._overstack_memo.clear()
            # a hex with one piece cannot break a stacking limit (4.1): only the crowded hexes are checked
            sc = self.sc
            now = g._in_hex
            before = self._overstack_memo.get(prev) if prev is not None else None
            if before is None:
                got = tuple(sorted(h for h, ps in now.items() if len(ps) > 1 and stacking_problem(sc, g, h) is not None))
            else:
                was = prev._in_hex
                got = tuple(sorted([h for h in before if now.get(h) is was.get(h)]
                                   + [h for h, ps in now.items() if len(ps) > 1 and ps is not was.get(h)
                                      and stacking_problem(sc, g, h) is not None]))
            self._overstack_memo[g] = got
        return list(got)

    def _automatic_victory(self, s) -> Outcome | None:
        g = s.game
        if g.piece("mortier").status in ("killed", "captured"):
            return Outcome("coalition", "strategic", "Mortier is killed or captured", "10.1 A")
        if g.piece("kutusov").status in ("killed", "captured"):
            return Outcome("french", "strategic", "Kutusov is killed or captured", "10.1 B")
        return None

    # --- end of the Activation Phase, Recovery, Reinforcement, Initiative -------------------------------
    def _end_phase(self, s, why: str):
        sc = self.sc
        yield Log("3.3 B", f"end of the Activation Phase of turn {s.turn}: {why}")
        g = s.game
        for side in SIDES:
            g = yield from A.end_of_activation_overstack(sc, g, side)          # 4.1.10 B
        g = yield from A.recovery_phase(sc, g)                                # 7.0 (turn + 1)
        s = replace(s, game=g, impulse=None, passes=0, activations=())
        over = self._automatic_victory(s)
        if over is not None:
            return replace(s, result=over, game=replace(g, turn=min(g.turn, sc.file.turns)))
        if g.turn > sc.file.turns:                                            # 3.4 C, 7.0 I, 10.2
            g = replace(g, turn=sc.file.turns)
            v = self._victory(s, g)
            winner = None if v["winner"] == "draw" else v["winner"]
            reason = (f"French {v['french_level']}, Coalition {v['coalition_level']}; French losses "
                      f"{v['french_battalions_lost']} battalions")
            return replace(s, game=g, result=Outcome(winner, v["level"], reason, "10.2"))
        s = yield from self._reinforcement_phase(s)
        return (yield from self._initiative_phase(s))

    def _victory(self, s, g=None) -> dict:
        """10.2 with the Rear Guard's shortfall (9.2 G) and Column IV in play (11.4.2)."""
        g = g if g is not None else s.game
        forces = frozenset({"bagration"}) if "optional_11.4" in g.flags and "11.4" in s.options else frozenset()
        return victory_with_options(self.sc, g, frozenset(o for o in s.options if o in OPTIONS), forces,
                                    s.rear_guard_short)

    def _column(self, col: str) -> list[str]:
        got = self._columns.get(col)
        if got is None:             # the order of battle never changes: each column listed once
            got = self._columns[col] = tuple(u for u, d in self.sc.units.items()
                                             if d.side == "coalition" and d.command == col)
        return list(got)

    def _near(self, centre: str, radius: int) -> list[str]:
        g = self.sc.board.grid
        return sorted(g.within(centre, radius), key=lambda h: (g.distance(centre, h), h))

    def _deploy(self, g: GameState, ids, hexes, leaders=()) -> GameState:
        """Set units on the first of ``hexes`` where they stack legally (4.1), enemy-free, passable."""
        sc = self.sc
        spots = [h for h in hexes if sc.board.terrain(h) != "river"]
        for uid in ids:
            if g.piece(uid).status in GONE or g.piece(uid).hex is not None:
                continue
            side = sc.side(uid)
            for h in spots:
                if occupants(sc, g, h, other_side(SIDES, side)):
                    continue
                trial = g.with_piece(uid, hex=h)
                if uid in sc.leaders or stacking_problem(sc, trial, h) is None:
                    facing = g.piece(uid).facing
                    g = trial.with_piece(uid, facing=facing)
                    break
        return g

    def _reinforcement_phase(self, s):
        sc = self.sc
        g = s.game
        yield Log("3.1", f"Reinforcement Phase of turn {g.turn}")
        g = yield from A.reinforcement_phase(sc, g, s.alert_from, s.dupont_first)       # 5.1, 9.2 B, 9.5.2, 9.6.2
        for col, leader in (("II", "dokhturov"), ("III", "strik")):
            flag = f"column_{col}_mustered"
            if flag in g.flags and not any(g.piece(u).hex for u in self._column(col)) and \
                    g.piece(leader).hex is None and g.piece(leader).status == "normal":
                spots = muster_hexes(sc, col)                                 # 9.2 C-D
                centre = sc.board.data.setup_numbers[col]
                spots.sort(key=lambda h: (sc.board.grid.distance(centre, h), h))
                if col == "II":                                               # 9.2 E-G
                    rear, short = yield from self._rear_guard()
                    s = replace(s, rear_guard=rear, rear_guard_short=short)
                    g = self._deploy(g, rear, [h for h in spots if self._rear_ok(h)])
                g = self._deploy(g, self._column(col), spots)
                g = self._deploy(g, [leader], spots)
                yield Log("9.2 C" if col == "II" else "9.2 D", f"Column {col} musters around {centre}")
        dp = sc.file.dupont
        entry = self._near(dp.entry_hex, self.td.dupont_entry.radius)
        if "dupont_arrived" in g.flags and not s.dupont_first:
            g = self._deploy(g, dp.first_group, entry)                        # 9.6.2 C
            delay = yield from second_group_delay(sc)
            s = replace(s, dupont_first=True, dupont_second=g.turn + delay)
            yield Log("9.6.2 C", f"Dupont's first group enters at {dp.entry_hex}; the second follows on turn "
                                 f"{g.turn + delay}")
        if s.dupont_second is not None and g.turn >= s.dupont_second:
            g = self._deploy(g, dp.second_group, entry)
            s = replace(s, dupont_second=None)
            yield Log("9.6.2 D", "Dupont's second group enters")
        if "elite" in sc.units and g.piece("elite").hex is not None and "elite_disbanded" not in g.flags:
            # 8.3 B: in any Reinforcement Phase the French may break the Elite battalion up for good, giving
            # the 100th and 103rd back their printed FF and MF (8.3 A); it is not a loss (10.2.2)
            pick = yield Choose(("keep", "disband"), rule="8.3 B", player="french", label="disband the Elite battalion?")
            if pick == "disband":
                g = g.with_piece("elite", hex=None, status="disbanded").with_flag("elite_disbanded")
                yield Log("8.3 B", "the French disband the Elite battalion")
        if "11.4" in s.options and "optional_11.4" not in g.flags and g.turn >= self.td.column_iv.first_turn:
            if (yield from column_iv_release(g.turn)):                        # 11.4.1
                c = self.td.column_iv
                near = self._near(c.hex, c.radius)
                # our reading: a unit with no room within one hex goes to the nearest hex beyond
                g = self._deploy(g, self._column("IV") + ["bagration"], near + self._near(c.hex, c.radius + 2))
                g = g.with_flag("optional_11.4")
                yield Log("11.4.1", f"Column IV musters around {c.hex}; the Coalition needs two more French "
                                    "battalions for each victory level (11.4.2)")
        s = replace(s, game=g)
        s = yield from self._wounded_return(s)
        return (yield from self._regroup_segment(s))

    def _rear_guard(self):
        """9.2 E: as Column II musters the Coalition names its Rear Guard, up to four battalions and two
        cavalry units of the column; each one short raises the Coalition's victory thresholds by one
        (9.2 G; more gives nothing). Returns (the units, the shortfall)."""
        need = self.sc.file.victory.rear_guard
        col = self._column("II")
        picked: list[str] = []
        short = 0
        for kind in ("infantry", "cavalry"):
            n = 0
            while n < need.get(kind, 0):
                left = tuple(u for u in col if self.sc.units[u].kind == kind and u not in picked)
                if not left:
                    break
                pick = yield Choose(left + ("done",), rule="9.2 E", player="coalition",
                                    label=f"Rear Guard: leave which {kind} unit behind?")
                if pick == "done":
                    break
                picked.append(pick)
                n += 1
            short += need.get(kind, 0) - n
        yield Log("9.2 E", f"Rear Guard: {', '.join(picked) or 'none'}" + (
            f"; {short} short, so the Coalition needs {short} more French battalions per level (9.2 G)" if short
            else " (the full 4 battalions and 2 cavalry: victory unchanged, 9.2 F)"))
        return tuple(picked), short

    def _wounded_return(self, s):
        """6.5 A: a wounded leader whose turns out are over comes back in the Reinforcement Phase, set down
        with a unit he commands (our reading: the rule gives no place; his owner picks the hex)."""
        sc = self.sc
        g = s.game
        keep = []
        for l, back in s.wounded:
            if g.turn < back or g.piece(l).status != "wounded":
                keep.append((l, back))
                continue
            side = sc.side(l)
            hexes = sorted({p.hex for p in g.on_map() if p.id in sc.units and sc.side(p.id) == side
                            and p.status in LIVE and l in sc.chain_of_command(p.id)})
            if not hexes:
                keep.append((l, back))
                yield Log("6.5 A", f"{l} may come back but no unit he commands is on the map")
                continue
            h = hexes[0] if len(hexes) == 1 else (yield Choose(tuple(hexes), rule="6.5 A", player=side,
                                                               label=f"where does {l} come back?"))
            g = g.with_piece(l, hex=h, status="normal", activated=False)
            yield Log("6.5 A", f"{l} is back from his wound, with his troops in {h}")
        return replace(s, game=g, wounded=tuple(keep))

    def _regroup_segment(self, s):
        """5.3: each side may try to bring back one eliminated (not surrendered) infantry unit."""
        sc = self.sc
        g = s.game
        for side in SIDES:
            dead = sorted(u for u, d in sc.units.items() if d.side == side and d.kind == "infantry"
                          and g.piece(u).status == "eliminated" and u != "elite")
            if not dead:
                continue
            pick = yield Choose(tuple(["none"] + dead), rule="5.3 B", player=side, label="regroup which unit?")
            if pick == "none":
                continue
            if (yield from regroup()):
                spots = regroup_hexes(sc, g, pick)                            # 5.3 E
                g2 = g.with_piece(pick, status="normal")
                placed = self._deploy(g2, [pick], spots) if spots else g2
                if placed.piece(pick).hex is not None:
                    g = placed
                    yield Log("5.3 D", f"{pick} regroups in {g.piece(pick).hex}")
        return replace(s, game=g)

    def _initiative_phase(self, s):
        sc = self.sc
        winner = yield from A.initiative_phase(sc, s.game)                    # 3.2 A
        first = winner
        if s.turn > 1:
            first = yield Choose((winner, other_side(SIDES, winner)), rule="3.2 B", player=winner,
                                 label="who performs the first impulse?")
        yield Log("3.2", f"turn {s.turn}: the {winner} has the initiative; the {first} opens")
        return replace(s, to_move=first, passes=0)

    # --- JSON, text ------------------------------------------------------------------------------------
    def action_to_json(self, a):
        return to_json(a)

    def action_from_json(self, data):
        if not isinstance(data, dict):
            raise VedetteError(f"action: expected an object with a 'kind', got {str(data)[:40]!r}")
        kind = data.get("kind")
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise VedetteError(f"field kind: expected one of {', '.join(_KINDS)}, got {str(kind)[:40]!r}")
        return from_json(cls, data)

    def state_to_json(self, s):
        return to_json(s)

    def state_from_json(self, data):
        return from_json(TbfState, data)

    def format_action(self, a) -> str:
        k = a.kind
        if k == "activate":
            rest = a.leader
        elif k == "activate_command":
            rest = f"{a.command} {a.unit}"
        elif k in ("pass", "end"):
            rest = ""
        elif k == "move":
            rest = f"{a.unit} {a.to}"
        elif k == "face":
            rest = f"{a.unit} {self.sc.board.grid.direction_names[a.facing] if 0 <= a.facing <= 5 else a.facing}"
        elif k == "charge":
            rest = f"{a.unit} {','.join(a.path)}" + (f" then {','.join(a.next)}" if a.next else "")
        elif k in ("out_of_command", "attach"):
            rest = a.unit
        elif k == "cavalry_retreat":
            rest = f"{a.unit} {','.join(a.path)}"
        else:
            rest = f"{'+'.join(a.units)} at {a.target}"
        text = f"{a.side}: {k}" + (f" {rest}" if rest else "")
        if k == "move" and (a.path or a.mp != -1):
            text += f" via {','.join(a.path)} mp {a.mp}"
        return text

    def parse_action(self, text: str):
        t = text.strip()
        if t.startswith("{"):
            return super().parse_action(t)
        m = re.fullmatch(r"(french|coalition)\s*:\s*(\w+)\s*(.*)", t)
        if not m:
            raise VedetteError(f"action: cannot read {t[:60]!r}; write e.g. 'coalition: activate miloradovich', "
                               "'french: move 4l-1 2113', 'french: fire 4l-1+4l-2 at 2213' or JSON")
        side, kind, rest = m.group(1), m.group(2), m.group(3).split()
        try:
            if kind == "activate" and len(rest) == 1:
                return Activate(side, rest[0])
            if kind == "activate_command" and len(rest) == 2:
                return ActivateCommand(side, rest[0], rest[1])
            if kind in ("pass", "end") and not rest:
                return Pass(side) if kind == "pass" else EndSegment(side)
            if kind == "move" and len(rest) == 2:
                return Move(side, rest[0], rest[1])
            if kind == "move" and len(rest) == 6 and rest[2] == "via" and rest[4] == "mp":
                return Move(side, rest[0], rest[1], tuple(rest[3].split(",")), int(rest[5]))
            if kind == "face" and len(rest) == 2:
                names = [n.upper() for n in self.sc.board.grid.direction_names]
                f = names.index(rest[1].upper()) if rest[1].upper() in names else int(rest[1])
                return Face(side, rest[0], f)
            if kind == "charge" and len(rest) in (2, 4) and (len(rest) == 2 or rest[2] == "then"):
                return Charge(side, rest[0], tuple(rest[1].split(",")),
                              tuple(rest[3].split(",")) if len(rest) == 4 else ())
            if kind == "cavalry_retreat" and len(rest) == 2:
                return CavalryRetreat(side, rest[0], tuple(rest[1].split(",")))
            if kind in ("out_of_command", "attach") and len(rest) == 1:
                return (OutOfCommand if kind == "out_of_command" else Attach)(side, rest[0])
            if kind in ("fire", "melee") and len(rest) == 3 and rest[1] == "at":
                return (Fire if kind == "fire" else Melee)(side, tuple(rest[0].split("+")), rest[2])
        except ValueError:
            pass
        raise VedetteError(f"action: cannot read {t[:60]!r} (a {kind} action is written like "
                           f"{_EXAMPLES.get(kind, 'french: pass')!r})")

    def describe_action(self, a) -> str:
        from .words import describe
        return describe(a, self.rule_of(a), self.sc.board.grid.direction_names)

    # --- what the CLI and studies show of a position ---------------------------------------------------
    def state_summary(self, s: TbfState) -> dict:
        imp = s.impulse
        v = self._victory(s)
        return {"impulse": None if imp is None else {
                    "side": imp.side, "leader": imp.leader, "segment": imp.segment, "units": list(imp.units),
                    "out_of_command": [u for u in imp.out_of_command if u not in imp.tried]},
                "leaders_to_activate": {side: self._leaders_left(s, side) for side in SIDES},
                "leaderless_commands": {side: self._leaderless(s, side) for side in SIDES},
                "victory_now": {"french": v.get("french_level"), "coalition": v.get("coalition_level"),
                                "french_battalions_lost": v.get("french_battalions_lost"), "rule": "10.2"}}

    def metrics(self, s: TbfState) -> dict:
        v = self._victory(s)
        rank = {"none": 0, "tactical": 1, "strategic": 2}
        lost = sum(1 for u, d in self.sc.units.items() if d.side == "coalition" and s.game.piece(u).status in GONE)
        return {"losses.french": float(v.get("french_battalions_lost", 0)), "losses.coalition": float(lost),
                "level.french": float(rank.get(v.get("french_level", "none"), 0)),
                "level.coalition": float(rank.get(v.get("coalition_level", "none"), 0))}

    # --- odds ----------------------------------------------------------------------------------------
    def odds(self, s: TbfState, a, policy=None):
        """The exact distribution of the positions a legal move, charge, fire, melee or Out of Command check
        leads to (the action's own procedure enumerated; the defenders' choices by ``policy``, default the
        first option). Ending a segment or passing may roll a whole end of turn, so it has no odds here."""
        from functools import partial
        from engine.core.procedure import distribution, first_option
        a = self.coerce_action(a)
        if not isinstance(a, (Move, Charge, Fire, Melee, OutOfCommand, Face, Attach, Activate, ActivateCommand,
                              CavalryRetreat)):
            raise VedetteError(f"odds: only moves, charges, fire, melee and activations have odds, not {a.kind}")
        self.check(s, a)
        return distribution(partial(self._odds_proc, s, a), policy=policy or first_option)

    def _odds_proc(self, s, a):
        return (yield from getattr(self, f"_do_{a.kind}")(s, a))

    # --- invariants ----------------------------------------------------------------------------------
    def invariants(self, s: TbfState) -> list[str]:
        sc, g = self.sc, s.game
        out = []
        if not 1 <= g.turn <= sc.file.turns:
            out.append(f"turn {g.turn} outside 1..{sc.file.turns}")
        live = [p for p in g.on_map() if p.id in sc.units and p.status in LIVE]
        sides_in: dict[str, set] = {}
        for p in live:
            sides_in.setdefault(p.hex, set()).add(sc.side(p.id))
            if not 0 <= p.facing <= 5:
                out.append(f"4.3 B: {p.id} faces {p.facing}")
        out += [f"6.2.5 B: French and Coalition units share {h}" for h, ss in sides_in.items() if len(ss) > 1]
        for h in self._overstacks(g):
            if h not in s.overstack_ok:
                out.append(f"4.1: {h} is overstacked by a move ({stacking_problem(sc, g, h)})")
        if len(set(s.activations)) != len(s.activations):
            out.append(f"6.1.3 E: a leader opened two activations this turn ({s.activations})")
        for l in s.activations:
            if l.startswith("command "):
                continue
            if g.piece(l).hex is not None and g.piece(l).status == "normal" and not g.piece(l).activated:
                out.append(f"6.1.3 B: {l} activated but not flipped")
        if s.impulse is not None:
            for u in s.impulse.units:
                if g.piece(u).hex is not None and not g.piece(u).activated:
                    out.append(f"6.1.3 E: {u} acts in an impulse without being marked activated")
        for p in g.pieces:
            if p.status in GONE and p.hex is not None:
                out.append(f"{p.id} is {p.status} but still on the map")
        wounded = {l for l, _ in s.wounded}
        for l in sorted(sc.leaders):
            if (g.piece(l).status == "wounded") != (l in wounded):
                out.append(f"6.5 A: {l} is {g.piece(l).status} but the wounded list says {sorted(wounded)}")
        for u in s.rear_guard:
            if sc.units[u].command != "II":
                out.append(f"9.2 E: {u} is in the Rear Guard but not a Column II unit")
        need = sc.file.victory.rear_guard
        if s.rear_guard and s.rear_guard_short != sum(need.values()) - len(s.rear_guard):
            out.append(f"9.2 G: Rear Guard of {len(s.rear_guard)} units but shortfall {s.rear_guard_short}")
        for o in s.options:
            if o not in GAME_OPTIONS:
                out.append(f"11.0: unknown option {o!r} in the state")
        if "optional_11.4" in g.flags and "11.4" not in s.options:
            out.append("11.4: Column IV is in play without the optional rule")
        return out

    def bots(self):
        from engine.core.odds import OddsBot
        from .bots import GreedyBot
        return {"random": RandomBot, "greedy": GreedyBot, "odds": OddsBot}

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, a) -> bool:
        """Fire (6.3), melee (6.4) and a charge (6.2.8) are decided by the dice."""
        return isinstance(a, (Fire, Melee, Charge))

    def odds_label(self, before: TbfState, after: TbfState, a):
        from .odds_words import tbf_label
        return tbf_label(self, before, after, a)

    def attack_score(self, s: TbfState, a) -> float:
        """A cheap pre-score for the odds bot's shortlist (ours, not a rule; the greedy bot's weights): fire by
        the firers' fire factors (6.3), melee by the attackers' melee factors over the defenders' (6.4), a
        charge high (6.2.8)."""
        sc = self.sc
        if isinstance(a, Fire):
            return 10 + sum(sc.units[u].ff or sc.units[u].ff_red for u in a.units if u in sc.units)
        if isinstance(a, Melee):
            try:
                ms = _melee_setup(s.game, tuple(a.units), a.target)
            except RuleViolation:
                return 0.0
            return 8 + sum(f.mf for f in ms.attackers) / (sum(f.mf for f in ms.defenders) or 1)
        return 9.0

    def evaluate(self, s: TbfState, side: str) -> float:
        from .odds_words import tbf_value
        return tbf_value(self, s, side)


_EXAMPLES = {"activate": "coalition: activate miloradovich", "move": "french: move 4l-1 2113",
             "face": "french: face 4l-1 NE", "charge": "french: charge drag-3 2013,2112,2212",
             "fire": "french: fire 4l-1+4l-2 at 2213", "melee": "coalition: melee ci-1 at 2014",
             "out_of_command": "coalition: out_of_command ci-5", "attach": "coalition: attach cv-1",
             "pass": "french: pass", "end": "french: end", "cavalry_retreat": "french: cavalry_retreat drag-1 1213,1212", "activate_command": "coalition: activate_command I ci-3"}


def __getattr__(name: str):
    if name == "GreedyBot":                   # the bot lives in engine.tbf.bots (it imports this module)
        from .bots import GreedyBot
        return GreedyBot
    raise AttributeError(name)


register("tbf", TbfRules)
