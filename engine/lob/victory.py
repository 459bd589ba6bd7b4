"""Victory (6 and the Albuera scenario's conditions): morale at zero, the French in the Allied rear, and the
objectives at the end; :func:`outcome` names the level and the rule of an ended game.
"""
from __future__ import annotations

from dataclasses import replace

from engine.core.game import Outcome

from .state import Game
from .units import INF, Phase

__all__ = ["track_albuera", "sudden_check", "sudden_death", "victory_phase", "end_of_game", "outcome", "DRAW"]

#: the winner field of a drawn game (6: both sides at zero)
DRAW = "draw"


def track_albuera(g: Game) -> Game:
    """Albuera victory: remember who was last in Albuera (it breaks a tie of objectives and morale)."""
    h = g.holder("Albuera") if "Albuera" in g.board else None
    return replace(g, last_albuera=h) if h and h != g.last_albuera else g


def sudden_check(g: Game) -> bool:
    """Albuera victory: French infantry of strength 1+ stands in an Allied rear area (1, 2, 8)."""
    wins = g.board.spec.victory_areas.french_infantry_wins
    return any(u.side == "French" and u.kind == INF and u.strength >= 1 and u.area in wins for u in g.units)


def sudden_death(g: Game) -> Game:
    """Albuera victory: the French win at once when :func:`sudden_check` holds."""
    if not g.over and sudden_check(g):
        return replace(g, phase=Phase.OVER, winner="French",
                       reason="French infantry reached the Allied rear (scenario victory)")
    return g


def victory_phase(g: Game) -> Game:
    """6: a side whose morale is at zero or less loses (both: a draw)."""
    f, al = g.morale_of("French"), g.morale_of("Allied")
    if f <= 0 and al <= 0:
        return replace(g, phase=Phase.OVER, winner=DRAW, reason="both sides' morale at zero or less")
    if f <= 0:
        return replace(g, phase=Phase.OVER, winner="Allied", reason="French morale at zero or less")
    if al <= 0:
        return replace(g, phase=Phase.OVER, winner="French", reason="Allied morale at zero or less")
    return g


def end_of_game(g: Game) -> Game:
    """Albuera victory at the end: both objectives held by one side; else higher morale; else the side
    last in Albuera."""
    holds = g.board.spec.victory_areas.hold_at_end
    owners = {g.holder(a) for a in holds}
    if len(owners) == 1 and None not in owners:
        side = owners.pop()
        return replace(g, phase=Phase.OVER, winner=side, reason=f"holds {' and '.join(holds)} at the end")
    f, al = g.morale_of("French"), g.morale_of("Allied")
    if f != al:
        side = "French" if f > al else "Allied"
        return replace(g, phase=Phase.OVER, winner=side, reason="objectives shared: higher morale at the end")
    side = g.last_albuera or "Allied"
    return replace(g, phase=Phase.OVER, winner=side, reason="objectives shared, morale equal: last in Albuera")


def outcome(g: Game) -> Outcome | None:
    """The result of an ended game: winner (None for a draw), level, reason and rule."""
    if not g.over:
        return None
    why = g.reason or ""
    if "morale at zero" in why:
        level, rule = ("draw" if g.winner == DRAW else "morale"), "6"
    elif "Allied rear" in why:
        level, rule = "sudden death", "Albuera victory (areas 1, 2, 8)"
    elif "holds" in why:
        level, rule = "objectives", "Albuera victory (Albuera and 28 at the end)"
    elif "higher morale" in why:
        level, rule = "morale at the end", "Albuera victory (objectives shared)"
    elif "last in Albuera" in why:
        level, rule = "last in Albuera", "Albuera victory (objectives shared, morale equal)"
    else:
        level, rule = "", "6"                       # a reason this reading does not know (yet)
    return Outcome(None if g.winner == DRAW else g.winner, level, why, rule)
