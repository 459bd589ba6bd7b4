"""These Brave Fellows: the outcomes of fire, melee and charges in a player's words and the position value
bots weigh (:meth:`TbfRules.odds_label`, :meth:`TbfRules.evaluate`; the odds themselves are core's
:func:`engine.core.odds.action_odds` over the game's own fire, melee and charge procedures)."""
from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Protocol

from engine.core.game import Outcome
from engine.core.odds import metrics_label

from ..scenario import Scenario
from .actions import Charge, Fire, Melee, TbfAction
from .state import TbfState
from .types import other


class RulesAsked(Protocol):
    """What the words and the value ask of the game's rules (:class:`~.protocol.TbfRules` has it; the
    protocol imports this module, never the reverse)."""

    sc: Scenario

    def metrics(self, s: TbfState) -> dict[str, float]: ...

    def rule_of(self, a: object) -> str: ...

    def outcome(self, s: TbfState) -> Outcome | None: ...

__all__ = ["tbf_label", "tbf_value"]

#: a unit's status in words (4.2 fatigue checks, 6.3 fire, 6.4 melee, 6.5 leader casualties)
_STATUS = {"fatigued": "fatigued", "routed": "routs", "eliminated": "eliminated", "surrendered": "surrenders",
           "wounded": "wounded", "killed": "killed", "captured": "captured", "normal": "recovers"}
_RULE = {"fire": "6.3", "melee": "6.4", "charge": "6.2.8"}
#: what a unit's status is worth to its side in :func:`tbf_value` (our weights, not a rule)
_WORTH = {"normal": 0.0, "fatigued": -0.4, "routed": -1.2}


def _changes(rules: RulesAsked, before: TbfState, after: TbfState, ids: Iterable[str], role: str,
             targets: Collection[str] = ()) -> list[str]:
    """What changed for the pieces ``ids`` of one role, counted: ``"target fatigued"``, ``"2 targets
    rout"``, ``"leader captured"`` (a leader in a hex concerned, 6.5)."""
    counts: dict[tuple[str, str], int] = {}
    for pid in ids:
        p0, p1 = before.game.piece(pid), after.game.piece(pid)
        who = "leader" if rules.sc.is_leader(pid) else role
        moved = p1.hex != p0.hex and p0.hex is not None and p1.hex is not None and role != "charger"
        step = ("advances" if p1.hex in targets else "retreats") if moved else ""
        if p1.status != p0.status:
            word = _STATUS.get(p1.status, p1.status) + (f" and {step}" if step else "")
        elif step:
            word = step
        else:
            continue
        counts[(who, word)] = counts.get((who, word), 0) + 1
    out = []
    for (who, word), n in counts.items():
        if n == 1:
            out.append(f"{who} {word}")
        else:
            verb = " ".join(w[:-1] if w in ("routs", "retreats", "surrenders", "recovers", "advances") else w
                            for w in word.split())
            out.append(f"{n} {who}s {verb}")
    return out


def tbf_label(rules: RulesAsked, before: TbfState, after: TbfState, a: TbfAction) -> tuple[str, str]:
    """E.g. ``"charge fails; charger fatigued"``, ``"target routs"``, ``"attacker fatigued; target
    eliminated"``, ``"no effect"``; leaders hit in the hexes concerned are named. Another action: the
    changes of the game's metrics (core's label)."""
    if not isinstance(a, (Fire, Melee, Charge)):
        return metrics_label(rules.metrics(before), rules.metrics(after)), rules.rule_of(a)
    kind = a.kind
    g0 = before.game
    parts: list[str] = []
    if isinstance(a, Charge):
        mover = a.unit
        parts.append("charge goes in" if after.game.piece(mover).charged else "charge fails")
        targets = [a.path[-1], *a.next]
        parts += _changes(rules, before, after, [mover], "charger")
        acting = {mover}
    else:
        targets = [a.target]
        acting = set(a.units)
        parts += _changes(rules, before, after, list(a.units), "firer" if kind == "fire" else "attacker", targets)
    in_targets = [p.id for p in g0.pieces if p.hex in targets and p.id not in acting]
    parts += _changes(rules, before, after, in_targets, "target")
    if after.result is not None and before.result is None:
        parts.append(f"game over: {after.result.winner or 'draw'}")
    return "; ".join(parts) if len(parts) > (kind == "charge") else ("; ".join(parts) + "; no effect"
                                                                     if parts else "no effect"), _RULE[kind]


def tbf_value(rules: RulesAsked, s: TbfState, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else, per battalion (our weights): 3 points for each
    one the enemy has lost more than we have (10.2 counts them), 1.2 for each routed and 0.4 for each
    fatigued one the enemy has more of; and 2 per victory level reached (10.2) beyond the enemy's."""
    out = rules.outcome(s)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    sc = rules.sc
    foe = other(side)
    v = 0.0
    for p in s.game.pieces:
        if p.id not in sc.units:
            continue
        sign = 1.0 if sc.units[p.id].side == side else -1.0
        w = _WORTH.get(p.status, -3.0)
        v += sign * w
    m = rules.metrics(s)
    return v + 2.0 * (m.get(f"level.{side}", 0.0) - m.get(f"level.{foe}", 0.0))
