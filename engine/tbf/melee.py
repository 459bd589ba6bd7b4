"""Melee combat (6.4), with routed defenders (6.7 J) and charging cavalry (6.2.8, 6.2.9, 6.2.10).

Order: attackers' checks and MF doubling (6.4 D-E), initial odds, the defenders' check when the odds
are 2-1 or more or a defender is routed (6.4 F, 6.7 J), final odds and column shifts, one d10
(6.4 G-H), Leader Casualty Checks (6.4 I, 6.5), the attacker's advance into a vacated hex (6.4 J).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from math import ceil
from typing import cast

from engine.core.errors import RuleViolation
from engine.core.dist import Dist
from engine.core.procedure import Log, Roll, Sub, distribution

from .fatigue import CheckSpec, check_sub
from .fire import leader_casualty_sub
from .steps import Steps
from .tables import Tables

__all__ = ["Fighter", "MeleeSetup", "MeleeOutcome", "melee_outcome", "melee", "melee_proc", "melee_distribution",
           "melee_sub", "UNIT_KINDS", "half_up"]

UNIT_KINDS = ("infantry", "cavalry", "artillery", "howitzer", "grand_battery")


def half_up(x: int) -> int:
    """Half, fractions rounded up (4.2.4 D, 6.2.8 F, 6.7 J)."""
    return ceil(x / 2)


@dataclass(frozen=True)
class Fighter:
    """A combat unit as melee and charges need it."""

    name: str
    mf: int
    fv: int                       # current FV (the fatigued side's when fatigued)
    kind: str = "infantry"
    status: str = "normal"        # normal / fatigued / routed
    leader_cvs: tuple[int, ...] = ()
    flank: bool = False           # attacks through a non-front hexside of the defender (6.4 E)
    charging: bool = False        # a charging cavalry unit (no attack check, 6.4 D)
    ma: int = 0
    activated: bool = False       # for counter and reaction charges (6.2.9, 6.2.10)
    checked: bool = False         # defender already checked as a charge target (6.4 F)
    half_mf: bool = False         # stands at half MF (6.2.8 F)
    modifiers: tuple[str, ...] = ()
    ff: int = 0                   # for defensive fire at a charger (6.2.8 K)


@dataclass(frozen=True)
class MeleeSetup:
    attackers: tuple[Fighter, ...]
    defenders: tuple[Fighter, ...]
    shift: int = 0                       # net column shift (TEC, tables' shifts); negative = left
    shifts: tuple[str, ...] = ()         # named shifts of the Melee Combat Table
    drm: int = 0
    drms: tuple[str, ...] = ()           # named DRMs of the Melee Combat Table
    no_doubling: bool = False            # counter and reaction charges (6.2.9, 6.2.10 C)
    attacker_leaders: tuple[str, ...] = ()
    defender_leaders: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeleeOutcome:
    column: str | None          # final odds column (None: the attack did not happen)
    result: str                 # table code, "no attack" or "vacated"
    attackers: tuple[tuple[str, str], ...]   # (unit, what happened before the roll)
    defenders: tuple[tuple[str, str], ...]
    leaders: tuple[str, ...] = ()

    def __str__(self) -> str:
        bits = [self.result if self.column is None else f"{self.result} at {self.column}"]
        pre = [f"{n} {s}" for n, s in self.defenders if s not in ("in hex",)]
        if pre:
            bits.append("defenders: " + ", ".join(pre))
        drop = [f"{n} {s}" for n, s in self.attackers if s != "attacks"]
        if drop:
            bits.append("attackers: " + ", ".join(drop))
        if self.leaders:
            bits.append("; ".join(self.leaders))
        return "; ".join(bits)


def melee_outcome(o: Hashable) -> MeleeOutcome:
    """An outcome of a melee's distribution as the value it is (a :class:`Dist` holds hashables)."""
    return cast(MeleeOutcome, o)


def _validate(setup: MeleeSetup, tables: Tables) -> None:
    if not setup.attackers:
        raise RuleViolation("6.4 B", "a melee needs at least one attacking unit")
    if not setup.defenders:
        raise RuleViolation("6.4 B", "a melee needs at least one defending unit")
    for f in setup.attackers + setup.defenders:
        if f.kind not in UNIT_KINDS:
            raise RuleViolation("2.4.3.5", f"unknown unit kind {f.kind!r} (one of {', '.join(UNIT_KINDS)})")
        if f.mf < 0:
            raise RuleViolation("2.4.3.9", f"{f.name}: an MF cannot be negative")
    kinds = {a.kind for a in setup.attackers}
    if "cavalry" in kinds and kinds & {"infantry"}:
        raise RuleViolation("6.4 C", "cavalry and infantry may not attack the same hex together")
    for a in setup.attackers:
        if a.status == "routed":
            raise RuleViolation("6.7", f"{a.name} is routed and may not attack")
        if a.charging and a.kind != "cavalry":
            raise RuleViolation("6.2.8 A", f"{a.name}: only cavalry charges")
    for name in setup.shifts:
        if name not in tables.melee.shifts:
            raise RuleViolation("6.4 H", f"the Melee Combat Table has no column shift {name!r}")
    for name in setup.drms:
        if name not in tables.melee.drms:
            raise RuleViolation("6.4 H", f"the Melee Combat Table has no DRM {name!r}")


def _defender_mf(d: Fighter) -> int:
    mf = d.mf
    if d.status in ("fatigued", "routed") or d.half_mf:
        mf = half_up(mf)          # 4.2.4 D; 6.2.8 F and 6.7 J: routed units stand at half MF
    return mf


def melee(tables: Tables, setup: MeleeSetup) -> Steps[MeleeOutcome]:
    """The melee procedure (6.4)."""
    _validate(setup, tables)
    mt = tables.melee
    att_log: list[tuple[str, str]] = []
    att_mf = 0
    for a in setup.attackers:
        mf = half_up(a.mf) if a.status == "fatigued" else a.mf       # 4.2.4 D
        doubled = False
        if a.charging:
            # 6.4 D: charging cavalry skips the attack check; its charge multiplies its MF
            # (provisional factor; none in counter and reaction charges, 6.2.10 C).
            if not setup.no_doubling:
                mf *= mt.charge_mf_multiplier
                doubled = mt.charge_mf_multiplier > 1
        else:
            out = yield check_sub(tables, CheckSpec("attacker_melee", a.fv, a.status, a.leader_cvs, a.modifiers,
                                                    unit=a.name), rule="6.4 D")
            if out.effect != "attack":
                att_log.append((a.name, out.effect))
                continue
            if out.doubled and not setup.no_doubling:
                mf *= 2                                              # 6.4 D
                doubled = True
        if a.flank and not doubled and not setup.no_doubling:
            mf *= 2                                                  # 6.4 E
            doubled = True
        att_log.append((a.name, "attacks doubled" if doubled else "attacks"))
        att_mf += mf
    if att_mf == 0 and not any(s.startswith("attacks") for _, s in att_log):
        yield Log("6.4 D", "no attacker passed its check: no melee")
        return MeleeOutcome(None, "no attack", tuple(att_log), tuple((d.name, "in hex") for d in setup.defenders))

    res = yield Sub(("tbf-melee-resolve", tables.key, att_mf, setup.defenders, setup.shift, setup.shifts, setup.drm,
                     setup.drms, setup.attacker_leaders, setup.defender_leaders),
                    partial(_resolve, tables, setup, att_mf), rule="6.4 F", label="defenders' checks and the melee roll")
    column, code, def_log, leaders = res
    return MeleeOutcome(column, code, tuple(att_log), def_log, leaders)


#: what :func:`_resolve` returns: the final column (None: the hex was vacated), the table's code, the
#: defenders' checks and the leaders' fates
Resolved = tuple[str | None, str, tuple[tuple[str, str], ...], tuple[str, ...]]


def _resolve(tables: Tables, setup: MeleeSetup, att_mf: int) -> Steps[Resolved]:
    """After the attackers' checks: defenders' checks (6.4 F, 6.7 J), final odds and the d10 (6.4 G-H),
    leader casualties (6.4 I). Memoised by the attack strength, so attackers' different check results
    that give the same strength share it."""
    mt = tables.melee
    def_mf0 = sum(_defender_mf(d) for d in setup.defenders)
    initial = mt.column_index(att_mf, def_mf0)
    ratio = Fraction(att_mf, def_mf0) if def_mf0 else Fraction(99)
    yield Log("6.4 F", f"initial odds {att_mf}:{def_mf0}", {"attack": att_mf, "defence": def_mf0})
    def_log: list[tuple[str, str]] = []
    def_mf = 0
    for d in setup.defenders:
        status, half = d.status, d.half_mf
        must = (d.status == "routed" and not d.checked) or (ratio >= 2 and not d.checked)   # 6.7 J, 6.4 F
        if must:
            out = yield check_sub(tables, CheckSpec("defender_melee", d.fv, d.status, d.leader_cvs, d.modifiers,
                                                    unit=d.name), rule="6.7 J" if d.status == "routed" else "6.4 F")
            if out.effect in ("surrender", "rout"):
                def_log.append((d.name, "surrenders" if out.effect == "surrender" else "routs"))
                continue
            if out.effect == "stand_half":
                half = True
            status = out.status
            def_log.append((d.name, "fatigued" if out.effect == "fatigued" else "stands"))
        else:
            def_log.append((d.name, "in hex"))
        def_mf += _defender_mf(Fighter(d.name, d.mf, d.fv, d.kind, status, half_mf=half))
    leaders: list[str] = []
    if def_mf == 0 and all(s in ("surrenders", "routs") for _, s in def_log):
        yield Log("6.4 J", "the defending hex is vacated: the attacker must advance into it")
        for ldr in setup.attacker_leaders + setup.defender_leaders:
            fate = yield leader_casualty_sub(ldr)
            leaders.append(str(fate))
        return (None, "vacated", tuple(def_log), tuple(leaders))
    idx = mt.column_index(att_mf, def_mf)
    if idx is None:
        raise RuleViolation("6.4 H", f"odds {att_mf}:{def_mf} are below the table's lowest column {mt.columns[0]}")
    shift = setup.shift + sum(mt.shifts[s].drm for s in setup.shifts)
    idx = max(0, min(len(mt.columns) - 1, idx + shift))
    drm = setup.drm + sum(mt.drms[s].drm for s in setup.drms)
    roll = yield Roll("d10", rule="6.4 H", label="Melee Combat")
    modified = roll + drm
    code = mt.lookup(idx, modified)
    yield Log("6.4 H", f"final odds {att_mf}:{def_mf}, column {mt.columns[idx]}, d10 {roll} {drm:+d} = {modified}: {code}",
              {"attack": att_mf, "defence": def_mf, "column": mt.columns[idx], "roll": roll, "modified": modified})
    for ldr in setup.attacker_leaders + setup.defender_leaders:   # 6.4 I
        fate = yield leader_casualty_sub(ldr)
        leaders.append(str(fate))
    return (mt.columns[idx], code, tuple(def_log), tuple(leaders))




def melee_proc(tables: Tables, setup: MeleeSetup) -> Callable[[], Steps[MeleeOutcome]]:
    _validate(setup, tables)
    return partial(melee, tables, setup)


def melee_sub(tables: Tables, setup: MeleeSetup, rule: str = "6.4") -> Sub:
    return Sub(("tbf-melee", tables.key, setup), partial(melee, tables, setup), rule=rule, label="Melee")


def melee_distribution(tables: Tables, setup: MeleeSetup) -> Dist:
    return distribution(melee_proc(tables, setup))
