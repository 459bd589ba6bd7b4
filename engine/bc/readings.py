"""What a combat's card draws read of a card's Skill Check icon (21.0), for exact odds by what decides them.

Each reading a draw of the combat (:func:`engine.bc.combat.resolve`) may make of an icon is named by a value,
``(kind, what it depends on ...)``: a General Skill Check passed or not (21.2: the Square check 23.1 step 6, the
Cavalry Battle, Bayonets & Burst and Burst checks 23.5, No Retreat! 24.1), what the Critical Combat Table does
(23.5, 29.7), what the Fate of War table gives an HQ (27.11), or the icon itself (the calculators show the
Critical Combat Table's). :func:`icon_classes` groups the seven icons by what every reading of a set gives them;
cards whose icons fall in one class are alike to every draw that makes only those readings, so a pile whose
cards are their classes (:meth:`engine.bc.deck.Pile.classed`) gives the same odds with fewer branches and more
positions alike. The readings are the rules' own functions (:func:`~engine.bc.checks.read_check`,
:func:`~engine.bc.checks.read_fate`, :func:`~engine.bc.checks.critical_effect`); each draw of the combat reads
its card through :func:`~engine.bc.deck.read_icon`, which refuses a class whose icons it tells apart.

Which readings may follow, at each step of a combat's odds: :func:`square_readings` (the Square check card),
:func:`card_readings` (every draw once the combat card is drawn, whatever result it gives),
:func:`effects_readings` (the effects of one result and the HQs' Fate of War).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

from .checks import critical_effect, read_check, read_fate
from .deck import FIRE_RESULTS, SKILL_ICONS
from .tally import CombatSetup

__all__ = ["reading", "icon_classes", "fate_reading", "effects_readings", "card_readings", "square_readings",
           "results_of"]


@lru_cache(maxsize=1024)
def _passes(icon: str, skill: int, good: bool) -> bool:
    return read_check("general", icon, skill, good).success                     # 21.2


@lru_cache(maxsize=1024)
def fate_reading(icon: str, skill: int, good: bool, kind: str, assault: bool):
    """What the Fate of War table (27.11) gives an HQ of ``skill`` and ``kind``, its icon left out (29.1's redraw
    follows from what it gives)."""
    return replace(read_fate(icon, skill, good, hq_kind=kind, assault=assault), icon="")


def _critical(icon: str, skill: int, artillery: bool, hq_bonus: int, good: bool, wavering: bool) -> str:
    return critical_effect(icon, skill=skill, artillery=artillery, hq_bonus=hq_bonus, good=good,
                           wavering=wavering)                                        # 23.5, 29.7


#: kind of reading -> the reading of an icon
_READINGS: dict[str, Callable[..., Any]] = {
    "icon": lambda icon: icon,          # the icon itself (the calculators show the Critical Combat Table's, 23.5)
    "check": _passes,                   # 21.2 General Skill Check: passed or not
    "critical": _critical,              # 23.5 Critical Combat Table, 29.7
    "fate": fate_reading,               # 27.11
}


def reading(r: tuple, icon: str):
    """What the reading ``r`` (``(kind, what it depends on ...)``) gives ``icon``."""
    return _READINGS[r[0]](icon, *r[1:])


@lru_cache(maxsize=4096)
def icon_classes(readings: frozenset) -> tuple[tuple[str, ...], ...]:
    """The Skill Check icons (21.0) grouped by what every reading of ``readings`` gives them, in the order of
    :data:`~engine.bc.deck.SKILL_ICONS`: the icons of one class are alike to every draw that makes only those
    readings."""
    ordered = sorted(readings, key=repr)
    groups: dict[tuple, list[str]] = {}
    for icon in SKILL_ICONS:
        groups.setdefault(tuple(reading(r, icon) for r in ordered), []).append(icon)
    return tuple(tuple(g) for g in groups.values())


#: the results whose effects draw a card on the Critical Combat Table, and whose Lead it is for (23.5)
_CRITICAL = {("fire", "skull_bones"): "defender", ("assault", "black_cross"): "attacker",
             ("assault", "retreat_flag"): "defender"}
#: what a result may become once drawn (23.5 exceptions: skirmishers' Gun Smoke, Burst)
_BECOMES = {"muskets_shot": ("gun_smoke",), "bayonets_burst": ("bayonets", "burst")}


@lru_cache(maxsize=4096)
def effects_readings(s: CombatSetup, blocks: tuple, result: str, table: str, critical_icon: bool) -> frozenset:
    """Every reading of a card's icon the effects of ``result`` on ``table`` (23.5-24.1) and the HQs' Fate of War
    (27.10, 27.11) may make, whatever happens before each draw and whatever the players choose. ``blocks``: the
    combat's ``(role, Block or None)`` pairs; ``critical_icon``: the caller reads the Critical Combat Table's icon
    itself."""
    a, d = s.attacker, s.defender
    critical = _CRITICAL.get((table, result))
    out: set[tuple] = set()
    for role, b in blocks:
        if b is None:
            continue
        who = role.split("_")[0]
        me = a if who == "attacker" else d
        hq, good = (1 if me.steady_hq else 0), me.good_morale_for(b)
        skills = {b.skill}
        if critical == who and role.endswith("lead") and s.wavering_troops and b.skill:
            skills.add(b.skill - 1)                   # 29.7: the Critical Combat Table may lower it first
        for k in skills:
            if b.infantry and (k >= 3 or b.russian):                                 # 24.1 No Retreat!
                out.add(("check", k + hq + (1 if b.russian else 0), good))
        if (result == "horse_head" and b.kind == "cavalry"                          # 23.5 Cavalry Battle
                or result == "bayonets_burst" and who == "attacker"                 # 23.5 Bayonets & Burst
                or result == "burst" and who == "defender"):                        # 23.5 Burst
            out.add(("check", b.skill + hq, good))
    if critical is not None:                                                         # 23.5 Critical Combat Table
        b = dict(blocks)[f"{critical}_lead"]
        me = a if critical == "attacker" else d
        out.add(("icon",) if critical_icon else
                ("critical", b.skill, b.artillery, 1 if me.steady_hq else 0, me.good_morale_for(b), s.wavering_troops))
    for me in (a, d):
        if me.hq is not None:                                                        # 27.10, 27.11
            out.add(("fate", me.hq.skill, me.morale == "good", me.hq.kind, table == "assault"))
    return frozenset(out)


@lru_cache(maxsize=4096)
def results_of(pile, table: str, redraw: bool) -> frozenset:
    """The results ``table`` can give, by what the pile's cards show (their results at the reads projected, else
    their CRT rows), the Fire line's too where an Ordre Mixte redraw may read it (27.6)."""
    out: set[str] = set()
    for f in pile.faces:
        if f.reshuffle:
            continue
        out.update(r for _, r in f.shifted) if f.shifted else out.update(f.fire if table == "fire" else f.assault)
        if redraw:
            out.update(r for _, r in f.fire_shifted) if f.fire_shifted else out.update(f.fire)
    return frozenset(out)


@lru_cache(maxsize=4096)
def card_readings(s: CombatSetup, blocks: tuple, results: frozenset, critical_icon: bool) -> frozenset:
    """Every reading of a card's icon the rest of the combat may make once the combat card is drawn: those of the
    effects of each result it may give (23.2-23.5, 27.6), and of what the exceptions may make of it."""
    out: set = set()
    for r in results:
        for final in (r,) + _BECOMES.get(r, ()):
            out |= effects_readings(s, blocks, final, "fire" if final in FIRE_RESULTS else "assault", critical_icon)
    return frozenset(out)


@lru_cache(maxsize=1024)
def square_readings(s: CombatSetup) -> frozenset:
    """The readings of the Square check card (23.1 step 6, 27.3): each infantry defender's General Skill Check."""
    d = s.defender
    return frozenset(("check", b.skill + (1 if d.steady_hq else 0), d.good_morale_for(b))
                     for b in (d.lead, d.second) if b is not None and b.infantry)
