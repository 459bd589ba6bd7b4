"""Lines of Battle: a combat's or a fire's outcomes in a player's words and the position value bots weigh
(:meth:`LobRules.odds_label`, :meth:`LobRules.evaluate`; the odds themselves are core's
:func:`engine.core.odds.action_odds` over the game's own combat and fire procedures)."""
from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from engine.core.errors import VedetteError
from engine.core.game import Outcome
from engine.core.odds import metrics_label

from .actions import Action, Kind
from .attack import combat_context
from .fight import ATTACKER, DEFENDER, Fight
from .rounds import round_hits, roll_modifier
from .state import Game
from .units import INF, SIDES, Unit, other_side

__all__ = ["lob_label", "lob_value"]



class RulesAsked(Protocol):
    """What the words and the value ask of the game's rules (:class:`~.protocol.LobRules` has it; the
    protocol imports this module, never the reverse)."""

    def metrics(self, g: Game) -> dict[str, float]: ...

    def rule_of(self, a: Action) -> str: ...

    def outcome(self, g: Game) -> Outcome | None: ...


def _hits(n: int) -> str:
    return f"{n} hit{'s' if n != 1 else ''}"


def _side_words(before: Game, after: Game, side: str, role: str) -> str:
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


@lru_cache(maxsize=256)        # asked once per outcome of the same action in the same position
def certain_rounds(g: Game, action: Action) -> str:
    """Why every combat roll of an attack goes to the defender, when it does (5.2.1): whichever units lead,
    the attacker's best total (6 plus its modifiers) never beats the defender's worst (1 plus theirs; a draw
    goes to the defender), in every round, or in the first one when a lost roll eliminates the lead (1.2).
    The other way round, the attacker's worst always beating the defender's best, is said too. Empty
    otherwise. This is what makes an outcome certain when the side that cannot win a roll fights on."""
    try:
        us = tuple(g.unit(u) for u in action.units)
        origin = action.path[-1] if action.path else us[0].area
        if action.target is None or origin is None:
            return ""                   # (no combat to speak of: the context would be refused)
        ctx = combat_context(g, action.target, origin, g.player)
    except (VedetteError, IndexError):
        return ""
    att = tuple(u.moved(origin, u.approach if not action.path else None, u.square) for u in us if u.is_combat)
    dfn = tuple(u for u in g.in_area(action.target) if u.is_combat)
    if not att or not dfn:
        return ""

    def mods(a: Unit, d: Unit, first: bool) -> tuple[int, int]:
        f = Fight(att, dfn, a.uid, d.uid, first)
        return roll_modifier(ctx, f, ATTACKER), roll_modifier(ctx, f, DEFENDER)

    first = {(a.uid, d.uid): mods(a, d, True) for a in att for d in dfn}
    later = {(a.uid, d.uid): mods(a, d, False) for a in att for d in dfn}
    every = list(first.values()) + list(later.values())
    if all(6 + ma <= 1 + md for ma, md in every):
        ma, md = max(m[0] for m in every), min(m[1] for m in every)
        return (f"the attacker cannot win a combat roll: its best total, 6{ma:+d} = {6 + ma}, never beats the "
                f"defender's worst, 1{md:+d} = {1 + md}, and a draw goes to the defender (5.2.1)")
    if all(1 + ma > 6 + md for ma, md in every):
        ma, md = min(m[0] for m in every), max(m[1] for m in every)
        return (f"the defender cannot win a combat roll: the attacker's worst total, 1{ma:+d} = {1 + ma}, always "
                f"beats the defender's best, 6{md:+d} = {6 + md} (5.2.1)")

    def loss_hits(a: Unit, d: Unit) -> int:
        """The fewest hits a lost first roll puts on lead ``a`` (5.2.1)."""
        ma, md = first[a.uid, d.uid]
        return min((round_hits(ctx, a, d, ra + ma, rd + md)[0] for ra in range(1, 7) for rd in range(1, 7)
                    if ra + ma <= rd + md), default=0)

    def can_win(a: Unit, d: Unit, is_first: bool) -> bool:
        ma, md = (first if is_first else later)[a.uid, d.uid]
        return 6 + ma > 1 + md

    def wins_after_a_loss(a: Unit, d: Unit) -> bool:
        """Lead ``a`` lost the first roll: can it still win a later one, weakened by its hits (1.2, 5.2.1 a)?"""
        hurt = a.hit(loss_hits(a, d))
        if hurt.eliminated:
            return False
        f = Fight(tuple(hurt if x.uid == a.uid else x for x in att), dfn, a.uid, d.uid, False)
        return 6 + roll_modifier(ctx, f, ATTACKER) > 1 + roll_modifier(ctx, f, DEFENDER)

    # the leads in the order the odds take them (5.1.1: a unit on the approach first, then the strongest,
    # the first listed choice); the first leads the first roll, each later one comes in fresh
    order = sorted(att, key=lambda u: (not (u.kind == INF and u.approach == ctx.target), -u.strength, u.uid))
    lead, rest = order[0], order[1:]
    never = all(not can_win(lead, d, True) and not wins_after_a_loss(lead, d) for d in dfn) and \
        all(not can_win(a, d, False) and not wins_after_a_loss(a, d) for a in rest for d in dfn)
    if never:
        ma = max(first[lead.uid, d.uid][0] for d in dfn)
        md = min(first[lead.uid, d.uid][1] for d in dfn)
        order_note = f"; {lead.uid} leads first, then {', '.join(a.uid for a in rest)}" if rest else ""
        return (f"the attacker cannot win a combat roll: its best first total, 6{ma:+d} = {6 + ma}, never beats the "
                f"defender's worst, 1{md:+d} = {1 + md} (a draw goes to the defender), and each lost roll weakens "
                f"it further{order_note} (5.2.1, 5.1.1, 1.2)")
    return ""


def lob_label(rules: RulesAsked, before: Game, after: Game, action: Action) -> tuple[str, str]:
    """E.g. ``"attacker takes 17; attacker loses 1 hit; defender loses 2 hits, 1 unit eliminated"``
    (rule 5 for an attack, 4.2.1 for artillery fire); morale changes (5.3) and an ended game at the end."""
    side = before.player
    foe = other_side(side)
    if action.kind == Kind.ATTACK:
        assert action.target is not None, "an attack names its target area"
        rule = "5"
        take = (f"attacker takes {action.target}" if after.holder(action.target) == side
                else f"defender holds {action.target}")
        parts = [take, _side_words(before, after, side, "attacker"), _side_words(before, after, foe, "defender")]
        why = certain_rounds(before, action)
        if why:
            parts.append(why)
    elif action.kind == Kind.FIRE:
        assert action.target is not None, "a fire names the unit it fires at"
        rule = "4.2.1"
        t0, t1 = before.unit(action.target), after.unit(action.target)
        if t1.area is None:
            parts = ["target eliminated"]
        else:
            parts = [f"target takes {_hits(t1.hits - t0.hits)}" if t1.hits > t0.hits else "target unhurt"]
            if t1.area != t0.area:
                parts.append(f"target retreats to {t1.area}")
    else:
        return metrics_label(rules.metrics(before), rules.metrics(after)), rules.rule_of(action)
    for s in SIDES:
        d = after.morale_of(s) - before.morale_of(s)
        if d:
            parts.append(f"{s} morale {d:+d}")
    if after.over and not before.over:
        parts.append(f"game over: {after.winner}")
    return "; ".join(parts), rule


def lob_value(rules: RulesAsked, g: Game, side: str) -> float:
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
