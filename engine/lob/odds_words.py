"""Lines of Battle: a combat's or a fire's outcomes in a player's words and the position value bots weigh
(:meth:`LobRules.odds_label`, :meth:`LobRules.evaluate`; the odds themselves are core's
:func:`engine.core.odds.action_odds` over the game's own combat and fire procedures)."""
from __future__ import annotations

from .actions import Kind
from .units import SIDES, other_side

__all__ = ["lob_label", "lob_value"]


def _hits(n: int) -> str:
    return f"{n} hit{'s' if n != 1 else ''}"


def _side_words(before, after, side: str, role: str) -> str:
    """``"attacker loses 1 hit"``, ``"defender loses 2 hits, 1 unit eliminated"``, ``"attacker unhurt"``
    (1.2: hits, and a unit past its rating eliminated)."""
    hits = gone = 0
    for u0 in before.units:
        if u0.side != side or u0.area is None:
            continue
        u1 = after.unit(u0.uid)
        if u1.area is None:
            gone += 1
        else:
            hits += max(0, u1.hits - u0.hits)
    if not hits and not gone:
        return f"{role} unhurt"
    bits = [f"loses {_hits(hits)}"] if hits else []
    if gone:
        bits.append(f"{gone} unit{'s' if gone != 1 else ''} eliminated")
    return f"{role} " + ", ".join(bits)


def lob_label(rules, before, after, action) -> tuple[str, str]:
    """E.g. ``"attacker takes 17; attacker loses 1 hit; defender loses 2 hits, 1 unit eliminated"``
    (rule 5 for an attack, 4.2.1 for artillery fire); morale changes (5.3) and an ended game at the end."""
    side = before.player
    foe = other_side(side)
    if action.kind == Kind.ATTACK:
        rule = "5"
        take = (f"attacker takes {action.target}" if after.holder(action.target) == side
                else f"defender holds {action.target}")
        parts = [take, _side_words(before, after, side, "attacker"), _side_words(before, after, foe, "defender")]
    elif action.kind == Kind.FIRE:
        rule = "4.2.1"
        t0, t1 = before.unit(action.target), after.unit(action.target)
        if t1.area is None:
            parts = ["target eliminated"]
        else:
            parts = [f"target takes {_hits(t1.hits - t0.hits)}" if t1.hits > t0.hits else "target unhurt"]
            if t1.area != t0.area:
                parts.append(f"target retreats to {t1.area}")
    else:
        from engine.core.game import GameRules
        return GameRules.odds_label(rules, before, after, action), rules.rule_of(action)
    for s in SIDES:
        d = after.morale_of(s) - before.morale_of(s)
        if d:
            parts.append(f"{s} morale {d:+d}")
    if after.over and not before.over:
        parts.append(f"game over: {after.winner}")
    return "; ".join(parts), rule


def lob_value(rules, g, side: str) -> float:
    """A won game +1000 (lost -1000, drawn 0); else the morale balance (6: a side at zero loses), a
    quarter point per hit the enemy carries more than we do, and 1.5 per objective held (Albuera and 28,
    the scenario's end-of-game areas) -- our weights, not a rule."""
    out = rules.outcome(g)
    if out is not None:
        return 0.0 if out.winner is None else (1000.0 if out.winner == side else -1000.0)
    m = rules.metrics(g)
    foe = other_side(side)
    v = m[f"morale.{side}"] - m[f"morale.{foe}"] + 0.25 * (m[f"hits.{foe}"] - m[f"hits.{side}"])
    for area in g.board.spec.victory_areas.hold_at_end:
        v += 1.5 * (m[f"holds_{area}.{side}"] - m[f"holds_{area}.{foe}"])
    return v
