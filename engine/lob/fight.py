"""The values of one combat (rule 5): where it is fought, the fight as it goes, its decisions and its result.

:class:`CombatContext` holds what stays fixed (the areas, the border crossed, retreat routes, options);
:class:`Fight` the changing state of the rounds; :class:`Decision` the context of a combat question
(who decides what, for the policies); :class:`End` and :class:`CombatResult` what the rounds and the
whole combat return. Every value hashes by a key of what can matter, so exact enumeration memoises them.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, cast

from .tables import Tables, default_tables
from .units import CAV, Unit

__all__ = ["Retreat", "CombatContext", "Fight", "End", "CombatResult", "combat_result", "Decision", "AfterRoll",
           "NextRound", "ATTACKER", "DEFENDER", "replace_unit", "drop_unit", "by_id"]

ATTACKER, DEFENDER = "attacker", "defender"


# ------------------------------------------------------------------------------------------------
# Values
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Retreat:
    """An area a unit may retreat to, with what lies on the border crossed to reach it."""

    area: str
    close: bool = False
    water: str | None = None      # river | stream
    crossing: str | None = None   # bridge | ford


@dataclass(frozen=True)
class CombatContext:
    """What stays fixed during one combat: where, from where, terrain, retreat routes, options."""

    target: str
    origin: str
    attacker_side: str = "French"
    defender_side: str = "Allied"
    target_close: bool = False
    target_town: bool = False
    target_open: bool = True            # squares may form only in open terrain (4.2.2)
    origin_close: bool = False          # 5.2.1 g
    origin_terrain: str = "clear"       # terrain of the attackers' area (5.1.3 fire ignores it: docs/lob.md)
    approach: bool = False              # an approach lies on the border crossed (origin-target)
    water: str | None = None            # river / stream on the border crossed (Albuera terrain 6-8)
    crossing: str | None = None
    defender_retreats: tuple[Retreat, ...] = ()   # 5.1.2: free of enemies, not the attacker's origin
    cavalry_retreats: tuple[Retreat, ...] = ()    # 5.2.2: attacker cavalry, free of enemies
    origin_retreat: Retreat | None = None         # 5.2.2: attacker infantry go back where they came from
    approach_holders: tuple[str, ...] = ()        # units already on the approach of the border crossed
    charge: bool = False                # 5.3.1: straight to the rounds
    rain: bool = False                  # scenario option 5 (rain squall)
    att_traits: frozenset = frozenset() # 7.1.2 attributes of leaders with the attackers (inspiring, ...)
    dfn_traits: frozenset = frozenset() # ... and with the defenders
    tables: Tables = field(default_factory=default_tables, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.origin_retreat is None:
            object.__setattr__(self, "origin_retreat", Retreat(self.origin, self.origin_close, self.water,
                                                               self.crossing))
        self._derive_key()

    def __getstate__(self) -> dict[str, Any]:
        # a string hashes differently in another process (a Dask worker, a page's child process): the
        # key's hash is made again there, never carried over
        return {k: v for k, v in self.__dict__.items() if k not in ("_key", "_hash")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, v)
        self._derive_key()

    def _derive_key(self) -> None:
        key = (self.target, self.origin, self.attacker_side, self.target_close, self.target_town,
               self.target_open, self.origin_close, self.origin_terrain, self.approach, self.water, self.crossing,
               self.defender_retreats, self.cavalry_retreats, self.origin_retreat, self.approach_holders, self.charge,
               self.rain, self.att_traits, self.dfn_traits,
               self.tables.fingerprint)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    # (``_key`` and ``_hash`` are set by _derive_key, not fields: these three stay unannotated, so that the
    # type checker does not ask for fields the dataclass must not have)
    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, CombatContext) and self._key == other.key

    @property
    def key(self):
        return self._key


@dataclass(frozen=True)
class Fight:
    """The changing state of a combat in its rounds: units still in it, the two leads, first roll or not."""

    att: tuple[Unit, ...]
    dfn: tuple[Unit, ...]
    att_lead: str | None
    dfn_lead: str | None
    first: bool = True
    entered: frozenset = frozenset()   # (role, area): where a side's units retreated during this fight

    def __hash__(self) -> int:
        # equal fights have equal keys (the key reads some of the fields): the same contract as the
        # generated hash, without hashing every field of every unit (results are hashed at each lookup)
        return hash(self.key())

    def key(self) -> tuple[Any, ...]:
        k = self.__dict__.get("_k")
        if k is None:
            k = self._make_key()
            object.__setattr__(self, "_k", k)
        return k

    def _make_key(self) -> tuple[Any, ...]:
        # every unit field that can matter (the same ids may name other units in another combat)
        return (tuple((u.uid, u.side, u.kind, u.cav, u.rating, u.hits, u.approach, u.square) for u in self.att),
                tuple((u.uid, u.side, u.kind, u.cav, u.rating, u.hits, u.approach, u.square, u.deployed, u.arty)
                      for u in self.dfn),
                self.att_lead, self.dfn_lead, self.first, self.entered)

    def routes(self, ctx: "CombatContext", role: str) -> tuple:
        """Retreat areas still free of the other side (units that retreated earlier in this fight count)."""
        other = DEFENDER if role == ATTACKER else ATTACKER
        blocked = {a for r, a in self.entered if r == other}
        pool = ctx.defender_retreats if role == DEFENDER else ctx.cavalry_retreats
        return tuple(r for r in pool if r.area not in blocked)

    def after_retreat(self, role: str, moved: Iterable[Unit]) -> "Fight":
        new = {(role, u.area) for u in moved if u.area is not None}
        return replace(self, entered=self.entered | new) if new - self.entered else self

    def unit(self, uid: str | None) -> Unit:
        for u in self.att + self.dfn:
            if u.uid == uid:
                return u
        raise KeyError(uid)

    @property
    def a(self) -> Unit:
        return self.unit(self.att_lead)

    @property
    def d(self) -> Unit:
        return self.unit(self.dfn_lead)

    def combat_units(self, role: str) -> tuple[Unit, ...]:
        return tuple(u for u in (self.att if role == ATTACKER else self.dfn) if u.is_combat)


@dataclass(frozen=True)
class Decision:
    """The context of a combat :class:`Choose`: who decides what, in which fight (for policies)."""

    role: str
    kind: str
    ctx: CombatContext
    fight: Fight | None = None
    extra: tuple = ()

    def __hash__(self) -> int:
        return hash((self.role, self.kind, self.ctx, self.fight.key() if self.fight else None, self.extra))


@dataclass(frozen=True)
class End:
    """Result of :func:`rounds`: the final state of the units that were in the fight, and the winner."""

    units: tuple[Unit, ...]
    winner: str

    def __hash__(self) -> int:
        # equal ends have equal ids, hits and winner: the generated hash's contract, at a fraction of its
        # cost (a result of the rounds is hashed at every memo and tree lookup), made once per end
        h = self.__dict__.get("_h")
        if h is None:
            h = hash((self.winner, tuple([(u.uid, u.hits) for u in self.units])))
            object.__setattr__(self, "_h", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        return _without_hash(self)


@dataclass(frozen=True)
class CombatResult:
    """The whole combat's outcome: every participant's final state (sorted by id) and how it ended."""

    units: tuple[Unit, ...]
    winner: str                 # attacker | defender
    stage: str                  # retreat-before-combat | repulsed | feint | artillery | rounds
    target: str
    attacker_side: str
    defender_side: str
    capture_point: bool         # 5.3: +1 morale for taking the area

    @property
    def taken(self) -> bool:
        return self.winner == ATTACKER and any(u.side == self.attacker_side and u.area == self.target
                                               for u in self.units)

    def unit(self, uid: str) -> Unit:
        for u in self.units:
            if u.uid == uid:
                return u
        raise KeyError(uid)

    def morale(self) -> dict[str, int]:
        """Morale change per side (5.3): minus the rating of each eliminated unit (artillery 1), +1 capture."""
        out = {self.attacker_side: 0, self.defender_side: 0}
        for u in self.units:
            if u.eliminated:
                out[u.side] -= u.morale_value
        if self.taken and self.capture_point:
            out[self.attacker_side] += 1
        return out

    def winner_side(self) -> str:
        return self.attacker_side if self.winner == ATTACKER else self.defender_side

    def charge_units(self) -> tuple[Unit, ...]:
        """Cavalry of the winner, strength 1+, in the combat area, after rounds were fought (5.3, 5.3.1)."""
        if self.stage != "rounds":
            return ()
        side = self.winner_side()
        return tuple(u for u in self.units if u.side == side and u.kind == CAV and u.area == self.target
                     and u.strength >= 1)

    def to_json(self) -> dict:
        return {"winner": self.winner, "stage": self.stage, "taken": self.taken,
                "morale": self.morale(), "units": [u.to_json() for u in self.units]}


def combat_result(o: Hashable) -> CombatResult:
    """An outcome of a combat's distribution as the value it is (a :class:`Dist` holds hashables)."""
    return cast(CombatResult, o)


@dataclass(frozen=True)
class AfterRoll:
    """The state after one combat roll and its hits (the input of the decisions of 5.2.2-5.2.4)."""

    fight: Fight
    gone: tuple[Unit, ...]
    winner: str
    att_total: int = 0
    dfn_total: int = 0
    first_round: bool = False

    def key(self) -> tuple[Any, ...]:
        return (self.fight.key(), self.gone, self.winner, self.first_round)

    def __hash__(self) -> int:
        return hash(self.key())      # equal states have equal keys (see Fight.__hash__)


#: per fight state (context, fight key): the two leads' modifiers (5.2.1 a-h and the terrain ones), the


@dataclass(frozen=True)
class NextRound:
    """The decisions after a roll are made and both sides fight on (5.2.5): the fight as it goes into
    the next round, and the units that left it after that roll (for the exact odds that go round by round,
    :func:`~.rounds.one_round`: every unit that left it since the rounds began, by id)."""

    fight: Fight
    gone: tuple[Unit, ...]

    def __hash__(self) -> int:
        # equal states have equal keys (see Fight.__hash__); made once per state (exact odds carry each
        # state reached into the next round by it, rules 5.2.5)
        h = self.__dict__.get("_h")
        if h is None:
            h = hash((self.fight.key(), self.gone))
            object.__setattr__(self, "_h", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        return _without_hash(self)


# ------------------------------------------------------------------------------------------------
# Helpers (pure)
# ------------------------------------------------------------------------------------------------
def _without_hash(value: Any) -> dict[str, Any]:
    """A value's fields for pickling, without the hash it keeps: a text hashes differently in another
    process (a Dask worker, a page's child process), so the hash is made again there."""
    return {k: v for k, v in value.__dict__.items() if k != "_h"}


def replace_unit(units: tuple[Unit, ...], new: Unit) -> tuple[Unit, ...]:
    return tuple(new if u.uid == new.uid else u for u in units)


def drop_unit(units: tuple[Unit, ...], uid: str) -> tuple[Unit, ...]:
    return tuple(u for u in units if u.uid != uid)


def by_id(units: Iterable[Unit]) -> tuple[Unit, ...]:
    return tuple(sorted(units, key=lambda u: u.uid))
