"""Game state values of a Napoleonic 20 game: immutable, so applying an action returns a new state and
the old one stays valid (undo, branching and replay are free).

A :class:`GameState` holds the turn and phase (4.0), both sides' Morale (12.0), every unit's
:class:`UnitState` (where it is, its markers), the event deck (5.0) and the per-turn bookkeeping the rules
need (forced march 12.3, battles fought 13.0, reinforcements entered per hex 11.2, ...).
"""
from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from types import MappingProxyType

from engine.core.errors import RuleViolation, VedetteError
from engine.core.tables import GameTables

from . import memo as _memo
from .scenario import Scenario, load_scenario
from .types import HIDDEN, Side, Status, Step, other

__all__ = ["UnitState", "GameState", "Battle", "OPTIONS", "other", "STEPS", "Side", "Step", "Status"]

#: Optional rules (16.x) and variants (17.x) a game can switch on, with the rule they implement.
OPTIONS = {
    "fog_of_war": "16.1",        # hidden units and dummies
    "penetration": "16.2",       # cavalry penetration in the reaction phase
    "artillery_support": "16.3",  # defensive support (bombardment is left out)
    "rally_hexes": "16.4",       # additional rally locations
    "unit_reduction": "16.5",    # cadres
    "breakdown": "16.6",         # large infantry broken down into two cadres, and built up again
    "special_units": "16.7",     # light infantry, unreliable troops, irregulars, road-bound ...
    "fatigue": "16.8",
    "leaders": "16.9",
    "squares": "17.1",           # variant: infantry squares (Fuentes)
    "bessieres": "17.2",         # variant: Bessieres' cooperation (Fuentes standard scenario)
    "portuguese_reliability": "16.9 (Bussaco)",
}

#: Phases of a player turn (4.0) plus the steps before and after play.
STEPS = tuple(Step)


def board_with_fieldworks(board, fieldworks: tuple):
    """Fuentes 14.2: a Fieldworks hex counts as Redoubt terrain (the map value is not changed)."""
    if not fieldworks:
        return board
    return _board_with(board, tuple(sorted(fieldworks)))


@lru_cache(maxsize=256)
def _board_with(board, fieldworks: tuple):
    # boards are immutable and compared by identity (engine.n20.board.Board), so the board itself is the key
    return board.with_terrain({h: "redoubt" for h in fieldworks})


@dataclass(frozen=True)
class UnitState:
    """Where a unit is and what markers it carries.

    ``status``: ``map`` (on the board), ``broken`` (set aside, may rally: 9.6.1), ``due`` (a reinforcement
    not yet entered, 11.0), ``aside`` (set aside until an event brings it: exclusive 3.0), ``gone``
    (permanently out: destroyed, eliminated, marched off, 12.7), ``hidden_off`` (a dummy off the map).
    ``routed``: the colour of its Routed! marker (the side whose player turn it was not, 9.6.3) or None.
    """

    id: str
    status: str = "map"
    hex: str | None = None
    routed: str | None = None
    fatigue: int = 0          # 16.8: 0 Fresh .. 4 Spent
    revealed: bool = True     # 16.1: face-up
    square: bool = False      # 17.1
    moved: bool = False       # moved this phase (6.4: no take-backs)
    exhausted: bool = False   # advanced after combat this combat phase (9.9.8)
    fought: bool = False      # took part in a battle this phase (9.1.2)
    areas: tuple[str, ...] = ()   # entry areas of a reinforcement (11.0)
    placed: int = 0           # times put on the map (16.1: each time a new face-down piece to the enemy)
    mp_left: int = 0          # Movement Points left after its move this phase (17.1: enough to form square)

    def to_json(self) -> dict:
        d = {"id": self.id, "status": self.status}
        if self.hex:
            d["hex"] = self.hex
        if self.routed:
            d["routed"] = self.routed
        if self.fatigue:
            d["fatigue"] = ("fresh", "ready", "tired", "weary", "spent")[self.fatigue]
        if not self.revealed:
            d["hidden"] = True
        if self.square:
            d["square"] = True
        if self.moved:
            d["moved"] = True
        return d


@dataclass(frozen=True)
class Battle:
    """A declared battle (9.2): attacking unit ids against defending unit ids (a garrison is ``garrison:<hex>``)."""

    attackers: tuple[str, ...]
    defenders: tuple[str, ...]

    def to_json(self) -> dict:
        return {"attackers": list(self.attackers), "defenders": list(self.defenders)}

    @classmethod
    def from_json(cls, d) -> "Battle":
        if isinstance(d, Battle):
            return d
        try:
            return cls(tuple(sorted(d["attackers"])), tuple(sorted(d["defenders"])))
        except (KeyError, TypeError):
            raise VedetteError(f"a battle needs 'attackers' and 'defenders' lists, got {d!r}") from None


@dataclass(frozen=True, eq=False)
class GameState:
    """A whole game position, a value. Besides the fields of the rules, it carries indexes derived from
    them when it is made (the scenario, the board with Fieldworks, units by id, who stands where, the
    hash): they are part of the value, never compared (they follow from the fields) and never written
    after construction."""

    scenario_id: str
    tables_file: str | GameTables | None     # a tables file's path, or the game's own tables (engine.core.tables)
    options: tuple[str, ...]
    seed: int
    turn: int
    player: str               # the phasing player (4.0)
    step: str
    morale: tuple[tuple[str, int], ...]       # (("allied", n), ("french", n))
    units: tuple[UnitState, ...]
    draw_pile: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    red_in_deck: bool = False                # 3.0: red-titled cards join after the first reshuffle
    event: tuple = ()                        # (card id, side) drawn this player turn
    forced_march: bool = False               # 12.3 this movement phase
    free_forced_march: bool = False          # an event made the forced march free this turn
    rally_on: str | None = None              # 16.9.7 leader named by this turn's event
    battle_rolls: tuple[str, ...] = ()       # sides that rolled battle dice this player turn (13.0)
    entered: tuple[tuple[str, int], ...] = ()  # 11.2: reinforcements entered per hex this phase
    release_left: int | None = None          # Bussaco 6.10: allied units that may still move on turn 1
    release_due: bool = False                # Bussaco 6.10: the Units Released counter is still to be picked
    fieldworks: tuple[str, ...] = ()         # Fuentes 14.2: hexes with Fieldworks markers
    fieldworks_left: int = 0                 # markers still to place this phase
    builders: tuple[str, ...] = ()           # units building fieldworks this turn (may not move)
    fieldworks_used: bool = False
    fieldworks_turn: int | None = None       # Fuentes 14.2: the turn the allies declared Fieldworks
    night_march_used: bool = False
    night_march_left: int | None = None      # units that may still night-march (14.1), None = not declared
    night_marched: tuple[str, ...] = ()
    night_march_forced: bool = False         # 14.1 / 12.3: the French forced-marched their night march
    declared: tuple[Battle, ...] | None = None   # 9.2: battles declared this combat phase
    done_battles: tuple[int, ...] = ()
    reacted: tuple[str, ...] = ()            # cavalry that acted in this reaction phase (8.0)
    orderly_withdrawal: bool = False         # Fuentes 12.7
    withdrew: bool = False                   # 12.7 A: one unit this combat phase
    supply_delivered: bool = False           # Fuentes 12.6
    garrison_gone: bool = False              # 9.4.4: the Almeida garrison destroyed
    reliability_exempt: bool = False         # Bussaco 16.9.2: British checks stopped after a 6
    first_night_seen: bool = False           # 13.0: lulls only after the first night turn
    bessieres: int | None = None             # 17.2 die
    dummies_added: bool = False              # 16.1.3: one dummy per turn with an arrival
    arrived: tuple[str, ...] = ()            # 16.1.3: units that entered (11.0) or rallied (16.9.6) this movement phase
    dummy_pair: tuple[str, ...] = ()         # 16.1.3: (dummy, companion) that must part by the end of this phase (6.9)
    result: tuple | None = None              # (winner or "draw", level, reason)
    last: tuple = ()                         # short log of the last action's notes
    made_by: str = ""                        # a replayed record's older engine version (its readings, 29)

    # ---- derived at construction (see _derive): not init arguments, not compared, not in repr ----------
    scenario: Scenario = field(init=False, repr=False, compare=False)
    board: object = field(init=False, repr=False, compare=False)    # the map with Fieldworks (Fuentes 14.2)
    by_id: Mapping = field(init=False, repr=False, compare=False)   # unit id -> UnitState
    occupants: Mapping = field(init=False, repr=False, compare=False)   # hex -> ids of the units on the map there
    places: Mapping = field(init=False, repr=False, compare=False)      # unit id -> its place in ``units``
    _units_hash: int = field(init=False, repr=False, compare=False)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        _derive(self.__dict__, None, None)

    # ---- lookups -----------------------------------------------------------------------------------
    def has(self, option: str) -> bool:
        return option in self.options

    def unit(self, uid: str) -> UnitState:
        try:
            return self.by_id[uid]
        except KeyError:
            raise VedetteError(f"no unit {uid!r} in this game") from None

    def morale_of(self, side: str) -> int:
        return dict(self.morale)[side]

    @property
    def night(self) -> bool:
        return self.scenario.is_night(self.turn)

    @property
    def over(self) -> bool:
        return self.result is not None

    def with_units(self, changes: dict[str, UnitState], carry: bool = True) -> "GameState":
        return with_units(self, changes, carry)

    def with_morale(self, values: dict[str, int]) -> "GameState":
        m = dict(self.morale)
        m.update(values)
        return evolve(self, morale=tuple(sorted(m.items())))

    # ---- JSON --------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        """The position in a reader's JSON (units with what their counters say). Of a side's view
        (:func:`engine.n20.game.view.view`, 16.1) a face-down enemy counter shows its token, side and
        back (nationality) only."""
        sc = self.scenario
        units = []
        for u in self.units:
            d = sc.units[u.id]
            j = u.to_json()
            if d.type == HIDDEN:
                markers = {k: v for k, v in j.items() if k in ("routed", "fatigue", "square", "moved")}
                j = {"id": u.id, "status": "map", "hex": u.hex, "hidden": True, "side": d.side, **markers}
                if d.nationality:
                    j["nationality"] = d.nationality
            else:
                j.update({"name": d.name, "side": d.side, "type": d.type, "strength": d.strength,
                          "movement": d.movement})
            units.append(j)
        return {
            "scenario": self.scenario_id, "edition": sc.edition, "options": list(self.options), "seed": self.seed,
            "turn": self.turn, "turn_label": sc.turn_label(self.turn), "night": self.night,
            "player": self.player, "phase": self.step,
            "morale": dict(self.morale),
            "units": units,
            "markers": {
                "fieldworks": list(self.fieldworks), "orderly_withdrawal": self.orderly_withdrawal,
                "supply_delivered": self.supply_delivered, "garrison_destroyed": self.garrison_gone,
                "forced_march": self.forced_march, "night_march_used": self.night_march_used,
                "fieldworks_used": self.fieldworks_used,
            },
            "deck": {"draw_pile": len(self.draw_pile), "discard": list(self.discard), "event": list(self.event)},
            "declared": None if self.declared is None else [b.to_json() for b in self.declared],
            "resolved": list(self.done_battles),
            "result": None if self.result is None else
            {"winner": self.result[0], "level": self.result[1], "reason": self.result[2]},
        }


def refuse_older_reading(state: GameState, rule: str, what: str) -> None:
    """Refuse (:class:`RuleViolation`) an event of a record made by an older engine version
    (:attr:`GameState.made_by`) at the point where a reading of ``rule`` changed what it means."""
    if state.made_by:
        raise RuleViolation(rule, f"the record was made by {state.made_by}, which read {rule} otherwise ({what}); "
                                  f"it replays only up to this event")


_FIELDS = tuple(f.name for f in fields(GameState) if f.init)
_DERIVED = tuple(f.name for f in fields(GameState) if not f.init)
#: the fields the hash reads besides the units (of a state's __dict__): the small ones that tell the states
#: of a game apart; equal states hash alike all the same, and equality compares every field
_SCALARS = operator.itemgetter("scenario_id", "options", "seed", "turn", "player", "step", "morale", "event",
                               "forced_march", "battle_rolls", "entered", "release_left", "fieldworks",
                               "fieldworks_left", "night_march_left", "done_battles", "reacted", "withdrew",
                               "arrived", "result")
_UNIT_KEY = operator.attrgetter("status", "hex", "moved")


def _unit_hash(i: int, u: UnitState) -> int:
    return hash((i, u.id, *_UNIT_KEY(u)))


_MASK = (1 << 61) - 1


def _occupants(units) -> Mapping:
    out: dict[str, list[str]] = {}
    for u in units:
        if u.status == "map" and u.hex:
            out.setdefault(u.hex, []).append(u.id)
    return MappingProxyType({h: tuple(v) for h, v in out.items()})


def _moved_occupants(occ: Mapping, before: Mapping, changes: dict, places: Mapping) -> Mapping:
    """:func:`_occupants` after ``changes``, from the one before: only the hexes a changed unit left or
    entered are made again (each hex's ids stay in the order of ``units``)."""
    left = {}
    for k, u in changes.items():
        o = before[k]
        was = o.hex if o.status == "map" and o.hex else None
        now = u.hex if u.status == "map" and u.hex else None
        if was != now:
            left[k] = (was, now)
    if not left:
        return occ
    out = occ.copy()               # a copy of the dict behind the read-only view (dict(view) goes key by key)
    for k, (was, _) in left.items():
        if was is not None:
            rest = tuple(x for x in out[was] if x != k)
            if rest:
                out[was] = rest
            else:
                del out[was]
    for k, (_, now) in left.items():
        if now is not None:
            out[now] = tuple(sorted(out.get(now, ()) + (k,), key=places.__getitem__))
    return MappingProxyType(out)


def _derive(d: dict, old: dict | None, changes: dict | None) -> None:
    """Fill in the derived entries of a new state's ``d`` (its instance dictionary, while it is made).
    ``old``/``changes``: the state it is a copy of and what changed, so what did not change is shared.

    The hash is the fields in :data:`_SCALARS`, and of the units their sum of (place, id, status, hex, moved)
    hashes, so a change of a few units updates it without visiting the others; equal states hash alike
    (states whose units differ in other markers only are told apart by equality)."""
    keys = changes.keys() if changes is not None else None
    if old is not None and not (keys & {"scenario_id", "tables_file"}):
        sc = d["scenario"] = old["scenario"]
    else:
        sc = d["scenario"] = load_scenario(d["scenario_id"], d["tables_file"])
    if old is not None and not (keys & {"scenario_id", "tables_file", "fieldworks"}):
        d["board"] = old["board"]
    else:
        d["board"] = board_with_fieldworks(sc.board, d["fieldworks"])
    units = d["units"]
    if old is None or "units" in keys:
        d["by_id"] = MappingProxyType({u.id: u for u in units})
        d["places"] = MappingProxyType({u.id: i for i, u in enumerate(units)})
        d["occupants"] = _occupants(units)
        d["_units_hash"] = sum(_unit_hash(i, u) for i, u in enumerate(units)) & _MASK
    else:
        d["by_id"] = old["by_id"]
        d["places"] = old["places"]
        d["occupants"] = old["occupants"]
        d["_units_hash"] = old["_units_hash"]
    d["_hash"] = hash((_SCALARS(d), d["_units_hash"]))


def _state_eq(self: GameState, other) -> bool:
    if self is other:
        return True
    if type(other) is not GameState:
        return NotImplemented
    if self._hash != other._hash:
        return False
    a, b = self.__dict__, other.__dict__
    return all(a[k] == b[k] for k in _FIELDS)


def _state_reduce(self: GameState):
    # pickled and copied by its fields: the derived entries are made again where it is loaded (a
    # string's hash differs between processes)
    return _rebuild, (tuple(self.__dict__[k] for k in _FIELDS),)


def _rebuild(values: tuple) -> GameState:
    return GameState(**dict(zip(_FIELDS, values)))


GameState.__hash__ = lambda self: self._hash
GameState.__eq__ = _state_eq
GameState.__reduce__ = _state_reduce
_FIELDSET = frozenset(_FIELDS)


def evolve(state: GameState, **changes) -> GameState:
    """A copy of ``state`` with ``changes`` (like :func:`dataclasses.replace`, much faster: the derived
    entries that do not depend on what changed are shared with ``state``)."""
    bad = changes.keys() - _FIELDSET
    if bad:
        raise TypeError(f"GameState has no field(s) {sorted(bad)}")
    new = object.__new__(GameState)
    d = new.__dict__
    old = state.__dict__
    d.update(old)                  # every field (the derived entries are all made again by _derive)
    d.update(changes)
    _derive(d, old, changes)
    return new


def with_units(state: GameState, changes: dict[str, UnitState], carry: bool = True) -> GameState:
    """``state`` with some units replaced (by id): the unit index and the units' part of the hash are
    updated for the changed units only. A unit put on the map from off it counts one more placement
    (:attr:`UnitState.placed`: to the enemy it is a new face-down piece, 16.1). ``carry=False`` for a state that is only a step on the way to
    another (nothing is carried to it in the memo, where it would take the place of a state in play)."""
    old = state.__dict__
    by_id = old["by_id"]
    changes = {k: v for k, v in changes.items() if k in by_id and by_id[k] is not v}
    if not changes:
        return state
    units = old["units"]
    places = old["places"]
    new_units = list(units)
    uh = old["_units_hash"]
    key = _UNIT_KEY
    renamed = False
    for k, nu in changes.items():          # only the changed units are visited (their places are known)
        i = places[k]
        was = units[i]
        if nu.status == "map" and was.status != "map" and nu.placed == was.placed:
            # 16.1: a counter put on the map is a new face-down piece to the enemy (its public token changes)
            nu = changes[k] = _unit_replace(nu, {"placed": was.placed + 1})
        new_units[i] = nu
        uh += hash((i, nu.id, *key(nu))) - hash((i, was.id, *key(was)))     # _unit_hash, written out
        if nu.id != k:
            renamed = True
    new = object.__new__(GameState)
    d = new.__dict__
    d.update(old)                  # every field; the derived entries are set below
    d["units"] = tuple(new_units)
    d["scenario"] = old["scenario"]
    d["board"] = old["board"]
    nb = by_id.copy()              # the dict behind the read-only view, copied at once (dict(view) goes key by key)
    nb.update(changes)
    d["by_id"] = MappingProxyType(nb)
    if renamed:
        d["places"] = MappingProxyType({u.id: i for i, u in enumerate(d["units"])})
        d["occupants"] = _occupants(d["units"])
    else:
        d["places"] = places
        d["occupants"] = _moved_occupants(old["occupants"], by_id, changes, places)
    d["_units_hash"] = uh & _MASK
    d["_hash"] = hash((_SCALARS(d), d["_units_hash"]))
    if carry:
        _carry_other_side(state, new, changes, by_id)
    return new


#: what is worked out (beside a state, in :mod:`.memo`) from one side's units alone, with ``{o}`` that side
#: and ``{s}`` its enemy: its units on the map, the hexes it projects a ZOC from (7.0, 9.4.4), and for the
#: enemy the hexes it may not enter (6.3) and the enemy ZOC it meets (7.0); a greedy bot's distances to
#: that side's units (engine.n20.game.bots)
_ONE_SIDE_KEYS = (("on_map", "{o}"), ("zs", "{o}"), ("eh", "{s}"), ("ez", "{s}"), ("greedy-distances", "{s}"))


def _carry_other_side(state: GameState, new: GameState, changes: dict, before: Mapping) -> None:
    """When only one side's units changed and none of them left or entered a garrison hex (the one place
    another side's units count for a ZOC, 9.4.4), what the memo holds for ``state`` about the other side
    holds for ``new`` too: it is carried over rather than worked out again."""
    sc = new.__dict__["scenario"]
    units = sc.units
    side = None
    garrisons = new.__dict__["board"].garrisons
    for k, u in changes.items():
        s = units[k].side
        if side is None:
            side = s
        elif s != side:
            return
        if u.hex in garrisons or before[k].hex in garrisons:
            return
    if side is None:
        return
    keys = _CARRY_KEYS.get(side)
    if keys is None:
        o = other(side)
        keys = _CARRY_KEYS[side] = tuple((k, (o if v == "{o}" else side)) for k, v in _ONE_SIDE_KEYS)
    _memo.inherit(state, new, keys)


#: side whose units changed -> the memo keys carried over (:data:`_ONE_SIDE_KEYS` spelled out), made once
#: per side (a dict of two entries, read and written whole)
_CARRY_KEYS: dict = {}


_UNIT_FIELDS = frozenset(f.name for f in fields(UnitState))


def _unit_replace(u: UnitState, changes: dict) -> UnitState:
    """:func:`dataclasses.replace` for a unit, without running its ``__init__`` (a unit has no derived
    data, so a copy of its fields with ``changes`` is the same value)."""
    bad = changes.keys() - _UNIT_FIELDS
    if bad:
        raise TypeError(f"UnitState has no field(s) {sorted(bad)}")
    new = object.__new__(UnitState)
    d = new.__dict__
    d.update(u.__dict__)
    d.update(changes)
    return new


def replace_any(obj, **changes):
    """:func:`evolve` for game states, a fast copy for units, :func:`dataclasses.replace` for the rest."""
    t = type(obj)
    if t is GameState:
        return evolve(obj, **changes)
    if t is UnitState:
        return _unit_replace(obj, changes)
    return replace(obj, **changes)
