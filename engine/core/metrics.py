"""The defaults of two protocol hooks, from a system's figures (:meth:`~engine.core.game.GameRules.metrics`):
an outcome's label (:meth:`~engine.core.game.GameRules.odds_label`) and a position's value for a side
(:meth:`~engine.core.game.GameRules.evaluate`). No rule is read here; :mod:`engine.core.game` and
:mod:`engine.core.odds` both use them, so they live apart from either (no import cycle)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, Sequence

__all__ = ["metrics_label", "metrics_value", "Figures"]


class Figures(Protocol):
    """What :func:`metrics_value` asks of a system's rules (a :class:`~engine.core.game.GameRules` has it)."""

    @property
    def sides(self) -> Sequence[str]: ...

    def outcome(self, state: Any) -> Any: ...

    def metrics(self, state: Any) -> Mapping[str, float]: ...


def _num(v: float) -> str:
    return f"{float(v):+g}"


def metrics_label(before: Mapping[str, float], after: Mapping[str, float]) -> str:
    """A generic outcome label: every metric that changed and by how much (``"no change"`` if none)."""
    bits = [f"{k} {_num(after.get(k, 0) - before.get(k, 0))}" for k in sorted(set(before) | set(after))
            if after.get(k, 0) != before.get(k, 0)]
    return ", ".join(bits) if bits else "no change"


#: metric names (the part before ``.side``) that count against their side in :func:`metrics_value`
_BAD = ("loss", "lost", "gone", "broken", "hits", "eliminated", "disorder", "rout", "shaken")


def metrics_value(rules: Figures, state: Any, side: str) -> float:
    """The default position value for ``side``: +1000 for a game it has won (-1000 lost, 0 drawn); else
    the sum of its ``name.side`` metrics minus the opponent's, counting names that read as damage
    (losses, hits, broken ...) negatively."""
    out = rules.outcome(state)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    total = 0.0
    for k, v in rules.metrics(state).items():
        name, _, who = k.rpartition(".")
        if not name or who not in rules.sides:
            continue
        sign = -1.0 if any(b in name for b in _BAD) else 1.0
        total += sign * float(v) * (1.0 if who == side else -1.0)
    return total
