"""The calculators' odds of an action in a game (what ``legal`` and the state summary show beside it): the chance
of each CRT result on the next card for an attack (23.2-23.4), the exact Skill Check of a rally (21.1) or of a
Move Order out of command range (21.3); and the bots' value of one combat card (their own weights).

The whole consequence of an action (every card, choice and retreat) is core's
:func:`engine.core.odds.action_odds` over the game's own procedure; these are the quick figures beside it.
"""
from __future__ import annotations

from functools import lru_cache

from ..calc import check_odds, next_card_odds
from ..deck import Deck, apply_shift
from .actions import BcAction, Kind
from .attacks import attack_setup
from .state import BcState
from .zones import command_zones, enemy_adjacent

__all__ = ["card_odds", "RESULT_VALUE", "result_value"]


def card_odds(st: BcState, a: BcAction, deck: Deck) -> dict | None:
    """The calculators' odds for an attack (the chance of each CRT result on the next card at the tallied
    column and fixed shifts, 23.2-23.4, before neutral shifts and the exceptions of 23.5), a rally (the exact
    Rally Skill Check, 21.1) or a Move Order out of command (21.3); each given the discard pile and the side's
    own hand (15.0: the cards it has seen)."""
    g = st.g
    if a.kind == Kind.ATTACK:                 # 15.0: the known discards and the side's own hand, as for a rally
        _, t = attack_setup(st, a)
        res = next_card_odds(t.table, t.column, t.net_shift, deck, discards=g.pile.discard, hand=g.hand(a.side))
        return {"column": t.column, "net_shift": t.net_shift, "next_card": res}
    if a.kind == Kind.MOVE:                     # 19.0, 21.3: only an order out of command range is a gamble
        in_range: set[str] = set()
        for h in g.hqs:
            if h.side == a.side:
                in_range |= command_zones(g, h.id)
        if any(z in in_range for z in a.zones):
            return None
        o = check_odds("command", g.commander(a.side).skill, good_morale=g.morale_of(a.side).good,
                       discards=g.pile.discard, hand=g.hand(a.side))
        return {"out_of_command": True, "success": o["success"], "cube_back": o["cube_back"]}
    if a.kind in (Kind.RALLY, Kind.ARMY_RALLY):
        known = dict(discards=g.pile.discard, hand=g.hand(a.side))
        good = g.morale_of(a.side).good
        if a.kind == Kind.ARMY_RALLY:
            o = check_odds("rally", g.commander(a.side).skill, good_morale=good, army=True, **known)
        else:
            here = [u for u in g.in_zone(a.frm) if u.side == a.side]
            if not here:
                return None
            o = check_odds("rally", here[0].block.skill, hq=g.hq_bonus_in(a.frm, a.side), good_morale=good,
                           enemy_adjacent=enemy_adjacent(g, a.frm, a.side), in_square=here[0].block.square, **known)
        return {"success": o["success"], "cube_back": o["cube_back"], "morale_loss": o["morale_loss"]}
    return None


#: how much the greedy bot likes each CRT result (its own weights, not a rule)
RESULT_VALUE = {"gun_smoke": 0.0, "muskets_shot": 0.3, "round_shot": 1.0, "skull_bones": 2.0,
                "black_cross": -2.0, "horse_head": 0.0, "bayonets": 0.3, "bayonets_burst": 1.0, "burst": 1.2,
                "retreat_flag": 2.5}


@lru_cache(maxsize=None)
def result_value(deck: Deck, table: str, column: int, net: int) -> float:
    """The bot's expected value of one combat card on a fresh deck: the exact chance of each CRT result at
    the tallied column and fixed shifts (23.4, read as the calculators read a card), times its weight."""
    rows = [deck.row(n, table) for n in deck.event_numbers]
    total = 0.0
    for row in rows:
        total += RESULT_VALUE[row[apply_shift(row, column, net)]]
    return total / len(rows)
