"""Named policies for the decisions inside procedures (the enumerate driver and bots use them)."""
from __future__ import annotations

from collections.abc import Hashable

from engine.core.procedure import Choose, Policy

__all__ = ["aggressive", "passive", "POLICIES"]

_PASSIVE = ("hold", "stand")


def aggressive(req: Choose) -> Hashable:
    """Always counter charge and reaction charge when offered (the solitaire Coalition, 12.5)."""
    return req.options[0]


def passive(req: Choose) -> Hashable:
    """Never counter or reaction charge; otherwise the first listed option."""
    for o in req.options:
        if o in _PASSIVE:
            return o
    return req.options[0]


POLICIES: dict[str, Policy] = {"aggressive": aggressive, "passive": passive}
