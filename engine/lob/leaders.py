"""Optional rule 7.1: leaders. The loss roll (7.1.1) as a procedure, and the leader housekeeping the game
needs after combat, fire and movement (lone leaders pushed away or captured, wounded leaders stepping back).
"""
from __future__ import annotations

from dataclasses import replace

from engine.core.procedure import Choose, Log, Roll

from .units import Leader

__all__ = ["loss_roll", "LOSS_OUTCOMES"]

LOSS_OUTCOMES = ("unhurt", "killed", "wounded", "slight")


def loss_roll(leader: Leader):
    """7.1.1: a d6; on a 1 (1-2 if foolhardy, 7.1.2) a second d6 decides: 1 killed, 2 badly wounded,
    3 slightly wounded (moves one area away), 4-6 unhurt."""
    first = yield Roll("d6", rule="7.1.1", label=f"{leader.name}: leader loss roll")
    threshold = 2 if "foolhardy" in leader.attributes else 1
    if first > threshold:
        return "unhurt"
    second = yield Roll("d6", rule="7.1.1", label=f"{leader.name}: what befalls the leader")
    return {1: "killed", 2: "wounded", 3: "slight"}.get(second, "unhurt")


def step_away(g, leader: Leader, rule: str, anywhere: bool = False):
    """Move ``leader`` to a free area (adjacent; with ``anywhere`` the nearest free ones), else capture it.
    Returns the new leader value. 'Free' means no enemy units."""
    board = g.board
    enemy = {a for a, s in g.occupied().items() if s != leader.side}
    options = [n for n in sorted(board.neighbours(leader.area)) if n not in enemy]
    if not options and anywhere:
        dist = board.graph.distances(leader.area)
        free = [a for a in board.areas if a not in enemy and a != leader.area]
        if free:
            best = min(dist.get(a, 10 ** 6) for a in free)
            options = sorted(a for a in free if dist.get(a, 10 ** 6) == best)
    if not options:
        yield Log(rule, f"{leader.name} has nowhere to go and is captured")
        return replace(leader, area=None, status="captured")
    dest = options[0] if len(options) == 1 else (yield Choose(
        tuple(options), rule=rule, player=leader.side, label=f"{leader.name} moves to",
        context=("leader-move", leader.name, tuple(options))))
    return replace(leader, area=dest)


def apply_loss(g, leader: Leader, outcome: str):
    """The result of a loss roll on the leader (a procedure: a slight wound asks where it goes)."""
    if outcome in ("killed", "wounded"):
        yield Log("7.1.1", f"{leader.name} is {'killed' if outcome == 'killed' else 'badly wounded'}")
        return replace(leader, area=None, status=outcome)
    if outcome == "slight":
        moved = yield from step_away(g, leader, "7.1.1")
        return moved if moved.status == "captured" else replace(moved)
    return leader
