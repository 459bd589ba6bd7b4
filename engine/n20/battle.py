"""One Napoleonic 20 battle as a value, and its steps up to the CRT result (9.0 B-F).

:func:`~engine.n20.resolution.battle_procedure` is THE rules procedure: a generator that yields requests
(dice, choices, sub-procedures) and returns a hashable :class:`~engine.n20.outcome.Outcome`; its steps
B-F are here (:func:`crt_procedure`), step G in :mod:`engine.n20.resolution`. The game engine runs it with the play driver;
:mod:`engine.n20` runs it with the enumerate driver for exact odds and trees. Nothing here touches an RNG.

Steps (rule numbers from the v3.0 standard rules, 000; the older edition 001 differs where
``data/n20/parameters.yaml`` says so):

* B-C strengths (:func:`strengths`, no die): printed strength (stragglers 0, 16.7.5), squares take -1 from attacking cavalry (17.1),
  attacking artillery doubled (9.3) unless bombarding (16.3.2), countercharging units doubled unless
  a defender is cavalry (8.2.2), Routed! units halved rounding up (9.6.3); the single best terrain
  benefit over all defenders' hexes and the hexsides attacked through (9.4-9.4.2, steep slopes only
  when every attacker is downslope, exclusive 2.0), defensive artillery support (16.3.1), garrisons
  (9.4.4), reserves +1 per side with their bans (12.5, 9.6.3, 9.4.4, 16.7.5), then the unreliable
  waver rolls (16.7.3; in 001 the Portuguese reliability checks of 16.9).
* D-E differential, leader command -1 (16.9.4), voluntary reduction (9.5), CRT column clamped to the ends.
* F the CRT roll; G the result (:mod:`.resolution`: 9.6 [A]-[H]) with retreats (:mod:`.retreat`), advance (:mod:`.advance`),
  Guard recule (12.2.2), morale (:mod:`.morale`), Routed! markers (9.6.3) and fatigue (16.8.1).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, fields
from functools import lru_cache
from math import ceil
from operator import attrgetter
from types import MappingProxyType

from engine.core.errors import DataError, RuleViolation
from engine.core.procedure import Log, Roll
from engine.core.values import hash_first_eq

from .board import Board
from .retreat import PathSpec
from .tables import Tables
from .units import Unit, other_side

__all__ = ["Battle", "cached", "d6_bands", "WaverCheck", "Strengths", "terrain_benefit", "strengths", "crt_roll",
           "waver_roll", "crt_procedure", "CrtResult"]


# ------------------------------------------------------------------------------------------------
# Battle value
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Battle:
    """A battle ready to resolve: a value (equal battles are equal and hash alike). What is derived from
    it (the unit index, its hash) is made at construction; what its deterministic steps work out is kept
    in bounded module caches keyed by the battle value (:func:`~engine.n20.combat_results.cached`,
    :func:`_strengths_of`), never written into it. A battle file becomes one by
    :func:`~engine.n20.battle_file.load_battle`."""

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
_BATTLE_FIELDS = attrgetter(*(f.name for f in fields(Battle) if f.compare))
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


def cached(b: Battle, key, make):
    """``make()`` for battle ``b`` and a step ``key``, worked out once per (battle value, key)."""
    k = (b, key)
    hit = _STEPS.get(k)
    if hit is None:
        hit = make()
        with _STEPS_LOCK:
            _STEPS[k] = hit
            if len(_STEPS) > _STEPS_SIZE:
                _STEPS.popitem(last=False)
    return hit


def d6_bands(effect) -> tuple[tuple[int, ...], ...]:
    """Group the faces of a d6 whose effect is the same (for banded rolls: compact exact trees)."""
    groups: dict = {}
    for face in range(1, 7):
        groups.setdefault(effect(face), []).append(face)
    return tuple(tuple(g) for g in groups.values())


# ------------------------------------------------------------------------------------------------
# Strengths (steps B-D), the part that needs no die
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


def terrain_benefit(b: Battle) -> tuple[int, str]:
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
    terrain, why = terrain_benefit(b)
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
# Steps E-F: reliability rolls, differential, the CRT roll
# ------------------------------------------------------------------------------------------------
def crt_roll(tables: Tables, column: int):
    """9.0 F: one die cross-indexed with the differential column (faces with one result form one band)."""
    bands = _cached_crt_bands(tables, column)
    die = yield Roll("d6", rule="9.0 F", label=f"CRT column {column:+d}", bands=bands)
    return tables.crt_result(column, die)


@lru_cache(maxsize=1024)
def _cached_crt_bands(tables: Tables, column: int):
    # a module cache keyed by value (tables compare by identity and are immutable), not written into them
    return d6_bands(lambda f: tables.crt_result(column, f))


def waver_roll(check: WaverCheck):
    """16.7.3 (v3): modified roll of 1 or less wavers; 16.9.1 (001): 1 or 2 wavers, and a 6 ends British checks."""
    if check.rule == "16.9.1":
        bands = d6_bands(lambda f: (f <= check.wavers_up_to, f == 6))
    else:
        bands = d6_bands(lambda f: f + check.modifier <= check.wavers_up_to)
    roll = yield Roll("d6", rule=check.rule, label=f"reliability of {check.unit}", bands=bands)
    if check.modifier:
        yield Log(check.rule, f"die {roll} {check.modifier:+d} = {roll + check.modifier}")
    wavers = roll + check.modifier <= check.wavers_up_to
    if check.rule == "16.9.1":
        return ("wavers" if wavers else "steady", roll == 6)
    return "wavers" if wavers else "steady"


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
