"""Skill Checks (21.x), the Critical Combat Table (23.5) and the Fate of War table (27.11).

A Skill Check draws one card and reads its Skill Check icon (21.0). The tables below say what each icon
means; :func:`skill_check` is the one procedure every check goes through (rally, general, out of command),
so the odds shown by the calculators are those of the same code a game runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from .deck import Deck, Pile, SKILL_ICONS, draw_card, flags_needed

__all__ = ["TABLES", "CheckOutcome", "read_check", "skill_check", "check_procedure", "effective_skill",
           "FateOutcome", "read_fate", "fate_check", "critical_effect"]

Table = Literal["rally", "general", "command"]
TABLES = {"rally": "21.1", "general": "21.2", "command": "21.3"}
MAX_SKILL = 4   # 9.1: skill bars run from 0 to 4


def effective_skill(skill: int, steady_hq: bool = False, is_hq: bool = False, bonus: int = 0) -> int:
    """A Block's skill for a check: +1 with a Steady HQ/SHQ in its Zone, never for the HQ itself (21.0, 10)."""
    if not 0 <= skill <= MAX_SKILL:
        raise RuleViolation("9.1", f"a skill rating runs from 0 to {MAX_SKILL}, got {skill}")
    return skill + (1 if steady_hq and not is_hq else 0) + bonus


@dataclass(frozen=True)
class CheckOutcome:
    """What a check gave. ``icon`` is the card's Skill Check icon (``officer`` for a leader-assisted check).

    ``cube_back``: the Rally/Order cube is not spent (21.1 and 21.3 Officer); ``morale``: the change of the
    checking Army's morale; ``penalty``: a Death Head failure (penalties named by the calling rule, 21.2).
    """

    table: str
    icon: str
    success: bool
    cube_back: bool = False
    morale: int = 0
    penalty: bool = False
    leader_assisted: bool = False
    pile: Pile | None = None

    def to_json(self) -> dict:
        d = {"table": self.table, "icon": self.icon, "success": self.success}
        if self.cube_back:
            d["cube_back"] = True
        if self.morale:
            d["morale"] = self.morale
        if self.penalty:
            d["penalty"] = True
        if self.leader_assisted:
            d["leader_assisted"] = True
        return d


def read_check(table: str, icon: str, skill: int, good_morale: bool, *, army: bool = False,
               enemy_adjacent: bool = False, in_square: bool = False, brittle: bool = False,
               near_steady_hq: bool = False) -> CheckOutcome:
    """Read one Skill Check icon on ``table`` (no card handling; :func:`skill_check` draws the card).

    ``skill`` is already the effective skill (HQ bonus included). ``army``: an Army Rally (20.0) rather than
    a Zone Rally; ``brittle``: rule 29.5 applies to this army.
    """
    if icon not in SKILL_ICONS:
        raise RuleViolation("21.0", f"unknown Skill Check icon {icon!r}")
    n = flags_needed(icon)
    if table == "rally":                                            # 21.1
        if icon == "officer":
            # 29.5: a Brittle army in Bad Morale fails on Officer unless in/next to a Steady HQs (not the Army)
            if brittle and not good_morale and not army and not near_steady_hq:
                return CheckOutcome(table, icon, False)
            return CheckOutcome(table, icon, True, cube_back=True)
        if n is not None:
            return CheckOutcome(table, icon, skill >= n)
        if icon == "crossed_flags":
            return CheckOutcome(table, icon, good_morale)
        # Death Head: no rally; one Morale lost for an Army Rally, or for an enemy-adjacent Zone not in Square
        lose = army or (enemy_adjacent and not in_square)
        return CheckOutcome(table, icon, False, morale=-1 if lose else 0, penalty=True)
    if table == "general":                                          # 21.2
        if icon == "officer":
            return CheckOutcome(table, icon, True)
        if n is not None:
            return CheckOutcome(table, icon, skill >= n)
        if icon == "crossed_flags":
            return CheckOutcome(table, icon, good_morale)
        return CheckOutcome(table, icon, False, penalty=True)
    if table == "command":                                          # 21.3, Army Commander's skill
        if icon == "officer":
            return CheckOutcome(table, icon, True, cube_back=True)
        if n is not None:
            return CheckOutcome(table, icon, skill >= n)
        if icon == "crossed_flags":
            return CheckOutcome(table, icon, True)                  # even in Bad Morale
        return CheckOutcome(table, icon, False, penalty=True)        # no moves, no changes
    raise RuleViolation("21.0", f"unknown Skill Check table {table!r}: rally (21.1), general (21.2) or "
                                f"command (21.3)")


def skill_check(pile: Pile, deck: Deck, table: str, skill: int, good_morale: bool = True, *,
                leader_assist: bool = False, rule: str | None = None, label: str = "", **kw):
    """Procedure: one Skill Check on ``table`` with effective ``skill``; returns a :class:`CheckOutcome`.

    ``leader_assist`` (29.6): a friendly Leader card is discarded instead of drawing: an automatic Officer,
    at the cost of one Morale (none for an Army Rally, whose Leader goes Hors de Combat instead).
    The outcome carries the new piles when ``pile`` is tracked.
    """
    rule = rule or TABLES.get(table, "21.0")
    if leader_assist:
        yield Log("29.6", "leader card discarded: automatic Officer result")
        out = read_check(table, "officer", skill, good_morale, **kw)
        cost = 0 if kw.get("army") else -1
        return CheckOutcome(out.table, out.icon, True, out.cube_back, out.morale + cost, False, True,
                            pile if pile.tracked else None)
    face, pile = yield from draw_card(pile, deck, rule, label or f"skill check ({table}, skill {skill})")
    icon = deck.skill(face)
    out = read_check(table, icon, skill, good_morale, **kw)
    pile = pile.discarded(face)
    yield Log(rule, f"{icon}: {'success' if out.success else 'failure'}", out.to_json())
    return CheckOutcome(out.table, out.icon, out.success, out.cube_back, out.morale, out.penalty, False,
                        pile if pile.tracked else None)


def check_procedure(deck: Deck, pile: Pile, table: str, skill: int, good_morale: bool = True, **kw):
    """Zero-argument factory for the drivers (validates the skill first)."""
    if not 0 <= skill <= MAX_SKILL + 1:
        raise RuleViolation("21.0", f"an effective skill runs from 0 to {MAX_SKILL + 1} (HQ bonus included), "
                                    f"got {skill}")
    if table not in TABLES:
        raise RuleViolation("21.0", f"unknown Skill Check table {table!r}: rally, general or command")
    return partial(skill_check, pile, deck, table, skill, good_morale, **kw)


def critical_effect(icon: str, *, skill: int, artillery: bool, hq_bonus: int, good: bool, wavering: bool) -> str:
    """What an icon drawn on the Critical Combat Table (23.5) does to the checking side's Lead (its ``skill``,
    Artillery or not, ``hq_bonus`` from a Steady HQ, Good Morale or not as it feels it, ``wavering``: 29.7 in
    play): "officer" (the Morale loss cancelled), "militia removed" or "skill drops" (29.7: Skill Flags beyond the
    Lead's skill), "step lost" (Crossed Flags in Bad Morale), "death head" (an Attack Token, and a step of a
    Disrupted Lead), or "none"."""
    if icon == "officer":
        return "officer"                                            # 23.5: the Morale loss cancelled
    n = flags_needed(icon)
    if n is not None:
        if wavering and not artillery and skill + hq_bonus < n:     # 29.7 Wavering Troops
            return "militia removed" if skill == 0 else "skill drops"
        return "none"                                               # 23.5: Skill Flags do nothing else
    if icon == "crossed_flags":
        return "none" if good else "step lost"                      # 23.5: a step in Bad Morale
    return "death head"                                             # 23.5: an Attack Token (and a step, Disrupted)


@dataclass(frozen=True)
class FateOutcome:
    """Fate of War (27.11) for an HQ marker and/or a Leader card used in combat (27.9)."""

    icon: str
    hq_hit: bool = False
    leader_back_to_hand: bool = False
    leader_hors_de_combat: bool = False
    commander_hors_de_combat: bool = False
    morale: int = 0
    pile: Pile | None = None


def read_fate(icon: str, hq_skill: int | None, good_morale: bool, *, leader: bool = False, hq_kind: str = "hq",
              assault: bool = False) -> FateOutcome:
    """Read the HQs & Leader Card Fate of War table (27.11). ``hq_skill`` None: no HQ marker checks."""
    n = flags_needed(icon)
    if icon == "officer":
        return FateOutcome(icon, leader_back_to_hand=leader)
    if n is not None:
        return FateOutcome(icon, hq_hit=hq_skill is not None and hq_skill < n)
    if icon == "crossed_flags":
        return FateOutcome(icon, hq_hit=hq_skill is not None and not good_morale,
                           leader_hors_de_combat=leader and not good_morale)
    return FateOutcome(icon, hq_hit=hq_skill is not None, leader_hors_de_combat=leader, morale=-1,
                       commander_hors_de_combat=hq_skill is not None and hq_kind == "hq" and assault)


def fate_check(pile: Pile, deck: Deck, hq_skill: int | None, good_morale: bool = True, *, leader: bool = False,
               hq_kind: str = "hq", assault: bool = False):
    """Procedure: one Fate of War card (27.9, 27.10, 27.11)."""
    face, pile = yield from draw_card(pile, deck, "27.11", "fate of war")
    out = read_fate(deck.skill(face), hq_skill, good_morale, leader=leader, hq_kind=hq_kind, assault=assault)
    pile = pile.discarded(face)
    yield Log("27.11", f"fate of war: {out.icon}")
    return FateOutcome(out.icon, out.hq_hit, out.leader_back_to_hand, out.leader_hors_de_combat,
                       out.commander_hors_de_combat, out.morale, pile if pile.tracked else None)
