"""Fire combat (6.3) and the Leader Casualty Check (6.5).

The firing units' FFs are added (6.3.7 A) after halving for range (6.3.4 B-C), the column is the
highest one not above the total (13+ for more, 6.3.7 B), shifted left at night (8.1), and one d10 is
rolled with the net DRM (6.3.7 C-D). A natural 1 makes howitzers firing at 3-4 hexes miss (6.3.4 C).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import cast

from engine.core.errors import RuleViolation
from engine.core.dist import Dist
from engine.core.procedure import Log, Roll, Sub, distribution

from .steps import Steps
from .tables import Tables

__all__ = ["Firer", "FireSetup", "FireOutcome", "fire_outcome", "fire_combat", "fire_proc", "fire_distribution",
           "effective_ff", "LeaderFate", "leader_casualty", "leader_casualty_sub", "FIRER_KINDS",
           "GRAND_BATTERY_FF"]

FIRER_KINDS = ("infantry", "artillery", "howitzer", "cavalry", "leader", "grand_battery")
GRAND_BATTERY_FF = 20  # 8.2 C


@dataclass(frozen=True)
class Firer:
    """One firing unit: its FF (red FF for cavalry under 11.1), kind, range to the target in hexes."""

    ff: int
    kind: str = "infantry"
    range: int = 1
    status: str = "normal"
    moved: bool = False      # cavalry that moved this segment (11.1 C)
    alone: bool = True       # leaders fire only when alone in their hex (6.3.5)
    name: str = ""


@dataclass(frozen=True)
class FireSetup:
    firers: tuple[Firer, ...]
    defensive: bool = False          # Defensive Fire Segment (6.3.6)
    night: bool = False              # turn 11 or later (8.1)
    terrain_drm: int = 0             # TEC DRM for the target hex
    modifiers: tuple[str, ...] = ()  # names from the Fire Combat Table's DRM list
    drm: int = 0
    shift: int = 0                   # extra column shifts (negative = left)
    cavalry_fire: bool = False       # optional rule 11.1
    ammo_halved: bool = False        # optional rule 11.2 B: infantry FF halved


@dataclass(frozen=True)
class FireOutcome:
    column: str | None   # None: nothing fired (all halved to 0, or the howitzers missed)
    result: str          # a result code of the Fire Combat Table ("-" = no effect)

    def __str__(self) -> str:
        return f"{self.result} (column {self.column})" if self.column else f"{self.result} (no fire)"


def fire_outcome(o: Hashable) -> FireOutcome:
    """An outcome of a fire's distribution as the value it is (a :class:`Dist` holds hashables)."""
    return cast(FireOutcome, o)


def effective_ff(f: Firer, setup: FireSetup, tables: Tables) -> int:
    """A firer's FF after the range and ammunition rules; raises RuleViolation when it may not fire."""
    if f.kind not in FIRER_KINDS:
        raise RuleViolation("2.4.3.5", f"unknown unit kind {f.kind!r} (one of {', '.join(FIRER_KINDS)})")
    if f.status == "routed":
        raise RuleViolation("6.3.2 C", f"routed unit {f.name or ''} may not fire".replace("  ", " "))
    if f.ff <= 0 and f.kind != "grand_battery":
        raise RuleViolation("6.3.2 C", "a unit with 0 FF may not fire")
    if f.range < 1:
        raise RuleViolation("6.3.3", "range is counted in hexes from the firing unit, 1 = adjacent")
    if f.kind == "cavalry" and not setup.cavalry_fire:
        raise RuleViolation("6.3.2 D", "cavalry may not fire (unless optional rule 11.1 is in use)")
    if f.kind == "leader":
        if not setup.defensive or not f.alone:
            raise RuleViolation("6.3.5", "a leader fires only defensively and only when alone in his hex")
    if f.status == "fatigued" and not setup.defensive:
        raise RuleViolation("4.2.4 C", "a fatigued unit may fire only defensively")
    if f.range > 1:
        if f.kind not in ("artillery", "howitzer", "grand_battery"):
            raise RuleViolation("6.3.3", "only artillery fires at more than one hex")
        if setup.defensive:
            raise RuleViolation("6.3.6", "defensive fire is only against adjacent hexes")
        if f.range > 4:
            raise RuleViolation("6.3.3", f"artillery range is 4 hexes at most, not {f.range}")
    ff = f.ff
    if f.kind == "leader":
        ff = 1                                     # 6.3.5
    if f.kind == "grand_battery":
        ff = GRAND_BATTERY_FF                      # 8.2 C
    if f.kind in ("artillery", "grand_battery") and f.range == 4:
        ff = ff // 2                               # 6.3.4 B
    if f.kind == "howitzer" and f.range >= 3:
        ff = ff // 2                               # 6.3.4 C
    if f.kind == "infantry" and setup.ammo_halved:
        ff = ff // 2                               # 11.2 B
    return ff


def _column_shift(setup: FireSetup, firers: tuple[Firer, ...]) -> int:
    shift = setup.shift
    if setup.night:
        # 8.1 A-B: one column left for adjacent fire, two for artillery at 2-4 hexes (the worse applies).
        if any(f.range >= 2 for f in firers):
            shift -= 2
        else:
            shift -= 1
    return shift


def fire_combat(tables: Tables, setup: FireSetup) -> Steps[FireOutcome]:
    """The fire combat procedure (6.3.7)."""
    ft = tables.fire
    if not setup.firers:
        raise RuleViolation("6.3.7 A", "no unit is firing")
    for m in setup.modifiers:
        if m not in ft.drms:
            raise RuleViolation("6.3.7 C", f"the Fire Combat Table has no DRM {m!r} (it has: {', '.join(sorted(ft.drms))})")
    ffs = [effective_ff(f, setup, tables) for f in setup.firers]
    drm = setup.terrain_drm + setup.drm + sum(ft.drms[m].drm for m in setup.modifiers)
    if setup.defensive and any(f.status == "fatigued" for f in setup.firers) and "fatigued_defensive_fire" in ft.drms \
            and "fatigued_defensive_fire" not in setup.modifiers:
        drm += ft.drms["fatigued_defensive_fire"].drm          # 4.3 D
    if any(f.kind == "cavalry" and f.moved for f in setup.firers) and "cavalry_moved_and_fired" in ft.drms \
            and "cavalry_moved_and_fired" not in setup.modifiers:
        drm += ft.drms["cavalry_moved_and_fired"].drm          # 11.1 C
    roll = yield Roll("d10", rule="6.3.7 D", label="Fire Combat")
    total = sum(ffs)
    if roll == 1 and any(f.kind == "howitzer" and f.range >= 3 for f in setup.firers):
        # 6.3.4 C: the howitzers miss on a natural 1; the others still fire.
        total = sum(ff for ff, f in zip(ffs, setup.firers) if not (f.kind == "howitzer" and f.range >= 3))
        yield Log("6.3.4 C", "natural 1: howitzers firing at 3-4 hexes miss")
    idx = ft.column_index(total)
    if idx is None:
        yield Log("6.3.7 A", f"fire strength {total}: no fire")
        return FireOutcome(None, "-")
    idx = max(0, min(len(ft.columns) - 1, idx + _column_shift(setup, setup.firers)))
    modified = roll + drm
    code = ft.lookup(idx, modified)
    yield Log("6.3.7 E", f"strength {total}, column {ft.column_label(idx)}, d10 {roll} {drm:+d} = {modified}: {code}",
              {"strength": total, "column": ft.column_label(idx), "roll": roll, "modified": modified})
    return FireOutcome(ft.column_label(idx), code)


def fire_proc(tables: Tables, setup: FireSetup) -> Callable[[], Steps[FireOutcome]]:
    for f in setup.firers:
        effective_ff(f, setup, tables)    # validate before any driver runs
    return partial(fire_combat, tables, setup)


def fire_distribution(tables: Tables, setup: FireSetup) -> Dist:
    return distribution(fire_proc(tables, setup))


# ---------------------------------------------------------------------------------------------------
# 6.5 Leader casualty
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LeaderFate:
    leader: str
    fate: str            # "unhurt", "wounded", "killed"
    turns_out: int = 0   # for a wounded leader: 2d6 turns (6.5 A)

    def __str__(self) -> str:
        tail = (f" ({self.turns_out} turns)" if self.turns_out else " (2d6 turns)") if self.fate == "wounded" else ""
        return f"{self.leader}: {self.fate}{tail}"


def leader_casualty(leader: str = "", roll_turns: bool = True) -> Steps[LeaderFate]:
    """6.5 A: a 6 leads to a second roll; 5 = wounded for 2d6 turns, 6 = killed.

    With ``roll_turns=False`` the 2d6 for the turns out is left to the moment the wound is applied
    (calculators then show "wounded" once instead of eleven branches)."""
    first = yield Roll("d6", rule="6.5 A", label=f"Leader Casualty Check {leader}".strip())
    if first != 6:
        return LeaderFate(leader, "unhurt")
    second = yield Roll("d6", rule="6.5 A", label="Leader Casualty second roll")
    if second == 6:
        return LeaderFate(leader, "killed")
    if second == 5:
        if not roll_turns:
            return LeaderFate(leader, "wounded")
        turns = yield Roll("2d6", rule="6.5 A", label="turns out of play")
        return LeaderFate(leader, "wounded", turns)
    return LeaderFate(leader, "unhurt")


def leader_casualty_sub(leader: str, roll_turns: bool = False) -> Sub:
    return Sub(("tbf-leader", leader, roll_turns), partial(leader_casualty, leader, roll_turns), rule="6.5 A",
               label=f"Leader Casualty Check for {leader}")
