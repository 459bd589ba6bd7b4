"""Napoleonic 20: a battle's outcomes in a player's words and the position value bots weigh
(:meth:`N20Rules.odds_label`, :meth:`N20Rules.evaluate`; the odds themselves are core's
:func:`engine.core.odds.action_odds` over the game's own battle procedure)."""
from __future__ import annotations

from engine.core.game import GameRules

from .state import GameState
from .types import other
from .zoc import distance

__all__ = ["n20_label", "n20_value", "fate_words"]


def _hexes(n: int) -> str:
    return f"{n} hex{'es' if n != 1 else ''}"


def fate_words(before: GameState, after: GameState, uid: str, role: str) -> str:
    """What became of one unit of a battle: breaks (9.6.1), retreats/routs N hexes (9.6, 9.8),
    advances N hexes (9.9), or holds."""
    if uid.startswith("garrison:"):
        return "is destroyed" if after.garrison_gone and not before.garrison_gone else "holds"
    u0, u1 = before.unit(uid), after.unit(uid)
    if u0.status == "map" and u1.status != "map":
        return "breaks"
    if u1.hex != u0.hex and u0.hex and u1.hex:
        n = distance(before.board, u0.hex, u1.hex)
        if _advanced(before, after, uid):
            return f"advances {_hexes(n)}"
        verb = "routs" if u1.routed and not u0.routed else "retreats"
        return f"{verb} {_hexes(n)}"
    if u1.routed and not u0.routed:
        return "routs in place"
    return "holds"


def _advanced(before: GameState, after: GameState, uid: str) -> bool:
    """An attacker that moved and is marked exhausted advanced after combat (9.9)."""
    return bool(getattr(after.unit(uid), "exhausted", False)) and not getattr(before.unit(uid), "exhausted", False)


def _role_words(before, after, uids, role) -> str:
    words = [fate_words(before, after, u, role) for u in uids]
    if not words:
        return ""
    if len(set(words)) == 1:
        return f"{role} {words[0]}"
    return f"{role}: " + ", ".join(f"{u} {w}" for u, w in zip(uids, words))


def n20_label(rules, before: GameState, after: GameState, action) -> tuple[str, str]:
    """E.g. ``"defender routs 2 hexes; attacker advances 1 hex; allied morale -1"`` (rule 9.0 for a
    battle, 8.2 for a countercharge)."""
    if action.kind == "resolve":
        b, rule = before.declared[action.index], "9.0"
    elif action.kind == "countercharge":
        b, rule = action.battles[0], "8.2"
    else:
        return GameRules.odds_label(rules, before, after, action), rules.rule_of(action)
    parts = [p for p in (_role_words(before, after, b.defenders, "defender"),
                         _role_words(before, after, b.attackers, "attacker")) if p]
    if all(p.endswith("holds") for p in parts):
        parts = ["both sides hold"]
    m0, m1 = dict(before.morale), dict(after.morale)
    for side in sorted(m0):
        if m1.get(side) != m0[side]:
            parts.append(f"{side} morale {m1.get(side, 0) - m0[side]:+d}")
    if after.result is not None and before.result is None:
        parts.append(f"game over: {after.result[0]} ({after.result[2]})")
    return "; ".join(parts), rule


def n20_value(rules, state: GameState, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else the Morale balance (12.0, which decides the game),
    plus half a point a unit on the map more than the enemy, and a quarter back for each broken unit
    (it may rally at night, 10.0) -- our weights, not a rule."""
    out = rules.outcome(state)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    m = rules.metrics(state)
    foe = other(side)
    return (m[f"morale.{side}"] - m[f"morale.{foe}"]
            + 0.5 * (m[f"units_map.{side}"] - m[f"units_map.{foe}"])
            + 0.25 * (m[f"units_broken.{side}"] - m[f"units_broken.{foe}"]))
