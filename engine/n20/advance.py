"""Advance after combat (9.9-9.9.8), the Controlled Advance roll (9.9.3) and reluctant troops (16.7.4).

The victor's units that may advance (9.9.2: survivors, not artillery, not Routed!, not Spent into an enemy
ZOC 16.8.3; none after a countercharge for the defender 8.2.3, none against a covering garrison 9.4.4) move
along one enemy retreat path (9.9.1): infantry only into the hex the enemy held (9.9.5), cavalry up to its
printed movement allowance. With victorious cavalry present, v3.0 rolls on the Controlled Advance Table
(heavy cavalry of strength 2+ gives -1); when control is lost (or always, in the older edition's 9.9.3) one
cavalry unit must advance. Which units go is a :class:`~engine.core.procedure.Choose`; its first option is the
default policy (the compulsory minimum when control is lost, otherwise the first eligible non-cavalry unit
into the vacated hex), and every legal plan is listed.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.core.values import cached_hash_repr
from engine.core.procedure import Choose, Log, Roll

__all__ = ["AdvancePlan", "AdvanceResult", "advance_procedure", "controlled_advance_roll"]


def controlled_advance_roll(tables, modifier: int, who: str = "victorious cavalry", rule: str = "9.9.3"):
    """One roll on the Controlled Advance Table (9.9.3; 16.7.4 for a reluctant unit)."""
    kept = tuple(f for f in range(1, 7) if tables.controlled_advance_kept(f + modifier))
    lost = tuple(f for f in range(1, 7) if f not in kept)
    roll = yield Roll("d6", rule=rule, label=f"controlled advance ({who})", bands=tuple(b for b in (lost, kept) if b))
    if modifier:
        yield Log("9.9.3", f"die {roll} {modifier:+d} = {roll + modifier}")
    return "kept" if tables.controlled_advance_kept(roll + modifier) else "lost"


@cached_hash_repr
@dataclass(frozen=True)
class AdvancePlan:
    """Which units advance how many hexes along which retreat path (index into the paths offered)."""

    path: int
    moves: tuple[tuple[str, int], ...]

    def __str__(self) -> str:
        if not self.moves:
            return "no advance"
        return ", ".join(f"{u} {n} hex{'es' if n > 1 else ''}" for u, n in self.moves) + f" (path {self.path + 1})"

    def to_json(self) -> dict:
        return {"path": self.path, "moves": [{"unit": u, "hexes": n} for u, n in self.moves]}


@cached_hash_repr
@dataclass(frozen=True)
class AdvanceResult:
    control: str | None                      # kept / lost / None (no victorious cavalry)
    moves: tuple[tuple[str, int, str | None], ...] = ()   # (unit, hexes, end hex on a map)
    refused: tuple[str, ...] = ()            # reluctant units that lost control (16.7.4)
    garrison_destroyed: str | None = None    # 9.4.4: hex of an enemy garrison an advancing unit entered

    def __str__(self) -> str:
        head = f"control {self.control}; " if self.control else ""
        moves = ", ".join(f"{u} {n}" + (f" to {h}" if h else "") for u, n, h in self.moves) or "no advance"
        tail = f"; {', '.join(self.refused)} refuse (16.7.4)" if self.refused else ""
        return head + moves + tail


@lru_cache(maxsize=8192)
def _plans(paths, cav, others, control):
    """All legal plans, default-policy first."""
    plans: list[AdvancePlan] = []
    for i, (hexes, room) in enumerate(paths):
        if room < 1:
            continue
        if control == "lost":
            for c in cav:
                for n in range(1, min(c.movement, room) + 1):
                    plans.append(AdvancePlan(i, ((c.id, n),)))
                    if n > 1:   # the enemy hex is vacant again: one other unit may take it (9.9.3)
                        for o in list(others) + [x for x in cav if x.id != c.id]:
                            plans.append(AdvancePlan(i, ((c.id, n), (o.id, 1))))
        else:
            for o in others:
                plans.append(AdvancePlan(i, ((o.id, 1),)))
            for c in cav:
                for n in range(1, min(c.movement, room) + 1):
                    plans.append(AdvancePlan(i, ((c.id, n),)))
                    if n > 1:
                        for o in list(others) + [x for x in cav if x.id != c.id]:
                            plans.append(AdvancePlan(i, ((c.id, n), (o.id, 1))))
    if control != "lost":
        plans.append(AdvancePlan(0, ()))
        # default: a non-reluctant, non-cavalry unit takes the vacated hex; else nothing
        def pref(p: AdvancePlan):
            if len(p.moves) == 1 and p.moves[0][1] == 1:
                uid = p.moves[0][0]
                o = next((x for x in others if x.id == uid), None)
                if o is not None:
                    return 1 if o.reluctant else 0     # a reluctant unit first rolls (16.7.4)
            return 2 if not p.moves else 3
        plans.sort(key=pref)
    else:
        def pref_lost(p: AdvancePlan):
            c = next(x for x in cav if x.id == p.moves[0][0])
            return (len(p.moves), p.moves[0][1], c.reluctant)
        plans.sort(key=pref_lost)
    seen, out = set(), []
    for p in plans:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return tuple(out)


@lru_cache(maxsize=4096)
def _split(tables, rolls: bool, units: tuple):
    cav = tuple(u for u in units if u.is_cavalry)
    others = tuple(u for u in units if not u.is_cavalry)
    mod = 0
    if cav and rolls:
        ca = tables.model.controlled_advance
        if any(c.heavy and c.strength >= ca.heavy_min_strength for c in cav):
            mod = ca.heavy_cavalry_modifier          # 9.9.3: heavy cavalry of strength 2+
    return cav, others, mod


def advance_procedure(tables, rules, units: tuple, paths: tuple, side: str, garrison_hexes: frozenset = frozenset()):
    """Sub-procedure: the victor's advance. ``units`` are the eligible victorious units; ``paths`` are the
    enemy retreat paths as ``(hexes or None, room)`` with the vacated battle hex first."""
    if not units or not any(room >= 1 for _, room in paths):
        return AdvanceResult(None)
    cav, others, mod = _split(tables, rules.controlled_advance_roll, units)
    control = None
    if cav:
        if rules.controlled_advance_roll:
            control = yield from controlled_advance_roll(tables, mod)
        else:
            control = "lost"
            yield Log("9.9.3", "older edition: victorious cavalry must advance")
    plans = _plans(paths, cav, others, control)
    plan = plans[0] if len(plans) == 1 else (yield Choose(plans, rule="9.9.3", player=side,
                                                          label="advance after combat"))
    by_id = {u.id: u for u in units}
    moves, refused = [], []
    hexes, room = paths[plan.path] if plan.moves else ((), 0)
    compulsory = plan.moves[0][0] if (control == "lost" and plan.moves) else None
    for uid, n in plan.moves:
        u = by_id[uid]
        if u.reluctant and rules.controlled_advance_roll and uid != compulsory:
            ca = tables.model.controlled_advance
            mod = ca.heavy_cavalry_modifier if (u.heavy and u.strength >= ca.heavy_min_strength) else 0
            ok = yield from controlled_advance_roll(tables, mod, f"reluctant {uid}", "16.7.4")
            if ok == "lost":
                refused.append(uid)
                continue
        end = hexes[n - 1] if hexes else None
        moves.append((uid, n, end))
    garrison = None
    if hexes and moves and hexes[0] in garrison_hexes:
        garrison = hexes[0]
    return AdvanceResult(control, tuple(moves), tuple(refused), garrison)
