"""Rally (4.1): a command point removes one hit from a unit that is not on an approach."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from .actions import Action
from .command import own_unit
from .state import Game
from .steps import Steps

__all__ = ["check_rally", "rally"]


def check_rally(g: Game, a: Action) -> None:
    """4.1: a point left, a unit of ours with hits, off any approach, not yet rallied or activated this go
    (7.1: with leaders, one who may command it stands in its area)."""
    if g.cp < 1:
        raise RuleViolation("4", "no command points left")
    u = own_unit(g, a.units[0] if a.units else "")
    if u.hits < 1:
        raise RuleViolation("4.1", f"{u.uid} has no hits to remove")
    if u.approach is not None:
        raise RuleViolation("4.1", f"{u.uid} is on an approach and cannot rally")
    if u.uid in g.rallied or u.uid in g.activated:
        raise RuleViolation("4", f"{u.uid} has already rallied or been activated this turn")
    if g.use_leaders and not any(ld.can_command(u) for ld in g.leaders_in(u.area, g.player)):
        raise RuleViolation("7.1", f"no leader in {u.area} who may command {u.uid}: command points are "
                                   f"spent where a leader is")


def rally(g: Game, a: Action) -> Steps[Game]:
    """4.1: one hit off, one command point spent."""
    u = g.unit(a.units[0])
    g = replace(g.with_units([replace(u, hits=u.hits - 1)]), cp=g.cp - 1, rallied=g.rallied | {u.uid})
    yield Log("4.1", f"{u.uid} rallies one hit")
    return g
