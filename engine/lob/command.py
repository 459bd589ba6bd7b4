"""Command points (rule 3, Albuera scenario play) and the D3 (rule 1).

A D3 is a d6 halved, rounding up: the procedure rolls the d6 the players actually throw, so a typed-in
or recorded die is the face they saw.
"""
from __future__ import annotations

from functools import partial

from engine.core.dist import Dist
from engine.core.procedure import Log, Roll, distribution

from .tables import Tables, default_tables

__all__ = ["d3_of", "command_points", "cp_step", "cp_schedule", "rain_squall"]


def d3_of(d6: int) -> int:
    """Rule 1: 1-2 -> 1, 3-4 -> 2, 5-6 -> 3."""
    return (d6 + 1) // 2


def cp_step(side: str, turn: int, tables: Tables | None = None):
    tables = tables or default_tables()
    steps = getattr(tables.command, side)
    return [s for s in steps if s.from_turn <= turn][-1]


def command_points(side: str, turn: int, tables: Tables | None = None):
    """Rule 3 with the scenario's schedule: fixed on some turns, D3 (+k) on others."""
    step = cp_step(side, turn, tables)
    if step.fixed is not None:
        yield Log("Albuera scenario play", f"{side} turn {turn}: {step.fixed} command points (fixed)")
        return step.fixed
    roll = yield Roll("d6", rule="3", label=f"{side} command points (D3{step.d3_plus:+d})")
    cp = d3_of(roll) + step.d3_plus
    yield Log("1", f"d6 {roll} gives D3 {d3_of(roll)}, {cp} command points", {"roll": roll, "cp": cp})
    return cp


def cp_schedule(turns: int = 25, tables: Tables | None = None) -> dict:
    """Per side and turn, the exact distribution of command points; plus the expected total."""
    tables = tables or default_tables()
    out = {}
    for side in ("French", "Allied"):
        rows = []
        total = 0
        for t in range(1, turns + 1):
            d: Dist = distribution(partial(command_points, side, t, tables))
            total += d.expect()
            rows.append({"turn": t, "distribution": {str(k): v for k, v in sorted(d.items())},
                         "expected": d.expect()})
        out[side] = {"turns": rows, "expected_total": total}
    return out


def rain_squall(side: str, tables: Tables | None = None):
    """Scenario option 5: a d6 at the start of a player's go; the table's number makes it a squall."""
    tables = tables or default_tables()
    roll = yield Roll("d6", rule="Albuera option 5", label=f"{side}: rain squall roll")
    return roll >= tables.optional.rain_squall_on
