"""Army morale after a battle (12.x): points won and lost per the Morale Chart of the tables file.

12.1: simultaneous changes add first, then subtract; 12.1.1: never above the maximum (10), the excess
is lost; 12.1.2: a side at zero has lost the game -- at once, so a side that spends its last point on
reserves (12.5, steps B and C) has lost before the battle's gains could lift it again. 12.2 (example): a
unit that routs and then breaks costs its side the rout, not the break as well. 12.2.2: an attacking
Guard unit that could not advance after combat costs its side a point. 16.7.7: Spanish irregulars cost
nothing when they rout. 16.9.5: a broken leader changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from .tables import Tables
from .units import Unit, other_side

__all__ = ["MoraleItem", "morale_items", "apply_morale"]


@dataclass(frozen=True)
class MoraleItem:
    """One line of the Morale Chart applied: who, how many points, why, which rule."""

    side: str
    points: int
    entry: str
    rule: str
    unit: str = ""

    def to_json(self) -> dict:
        return {"side": self.side, "points": self.points, "entry": self.entry, "rule": self.rule, "unit": self.unit}


def _item(tables: Tables, entry: str, unit_side: str, rule: str, unit: str = "") -> MoraleItem | None:
    e = tables.morale(entry)
    if e.points == 0:
        return None
    side = unit_side if e.side == "owner" else other_side(unit_side)
    return MoraleItem(side, e.points, entry, rule, unit)


def morale_items(tables: Tables, units: dict[str, Unit], fates, reserves: dict[str, bool],
                 recule: tuple[str, ...]) -> tuple[MoraleItem, ...]:
    """Every Morale Chart line a battle triggers. ``fates`` are the per-unit results (with ``fate``,
    ``routed``, ``beyond_ma``); ``reserves`` says which sides committed reserves (12.5); ``recule``
    lists the Guard units that could not advance (12.2.2)."""
    out: list[MoraleItem | None] = []
    for side, spent in sorted(reserves.items()):
        if spent:
            out.append(_item(tables, "reserve_committed", side, "12.5"))
    for f in fates:
        u = units[f.unit]
        if u.type in ("leader", "garrison"):
            continue  # 16.9.5 leaders; 9.4.4 garrisons are not units of the army
        if f.routed and not u.spanish_irregular:           # 16.7.7
            out.append(_item(tables, "unit_routed", u.side, "12.1", u.id))
            if f.beyond_ma:
                out.append(_item(tables, "rout_beyond_movement", u.side, "12.1", u.id))
        if f.fate in ("broken", "destroyed"):
            out.append(_item(tables, "enemy_unit_broken", u.side, "12.1", u.id))
            if not f.routed:      # 12.2 example: a routed unit that breaks costs no more than its rout
                out.append(_item(tables, "unit_broken_owner", u.side, "12.1", u.id))
    for uid in recule:
        out.append(_item(tables, "guard_recule", units[uid].side, "12.2.2", uid))
    return tuple(i for i in out if i is not None)


def apply_morale(tables: Tables, levels: dict[str, int] | None, items: tuple[MoraleItem, ...],
                 reserve_order: tuple[str, ...] = ()):
    """Deltas per side, and the new levels when the current ones are known (12.1, 12.1.1, 12.1.2).

    Reserve points (12.5) are spent before the battle, the attacker's in step B, then the defender's in
    step C (``reserve_order``: the sides in that order; default alphabetical). A side whose level reaches 0
    by such a point has lost at once (12.1.2): the game ends there, so the levels returned are those of that
    moment and nothing of the battle is added. Otherwise the battle's gains are then added (capped at the
    maximum, 12.1.1) and its losses subtracted (never below zero). Returns ``(deltas, after, lost)``.
    """
    deltas = {"french": 0, "allied": 0}
    for it in items:
        deltas[it.side] += it.points
    if levels is None:
        return tuple(sorted(deltas.items())), None, ()
    now = {s: v for s, v in levels.items() if v is not None}
    order = tuple(reserve_order) + tuple(s for s in ("allied", "french") if s not in reserve_order)
    for side in order:
        spent = sum(i.points for i in items if i.side == side and i.entry == "reserve_committed")
        if spent and side in now and now[side] > 0:
            now[side] = max(0, now[side] + spent)
            if now[side] == 0:                             # 12.1.2: lost at once, in step B or C
                return tuple(sorted(deltas.items())), tuple(sorted(now.items())), (side,)
    after = {}
    for side in ("french", "allied"):
        lvl = levels.get(side)
        if lvl is None:
            continue
        spent = sum(i.points for i in items if i.side == side and i.entry == "reserve_committed")
        gains = sum(i.points for i in items if i.side == side and i.points > 0 and i.entry != "reserve_committed")
        losses = sum(i.points for i in items if i.side == side and i.points < 0 and i.entry != "reserve_committed")
        lvl = max(0, lvl + spent)
        lvl = min(tables.morale_maximum, lvl + gains)      # 12.1.1
        lvl = max(0, lvl + losses)
        after[side] = lvl
    lost = tuple(s for s, v in sorted(after.items()) if v == 0)   # 12.1.2
    return tuple(sorted(deltas.items())), tuple(sorted(after.items())), lost
