"""The odds of an action in a game.

:func:`exact_odds`: the whole consequence of an action (every card, choice and retreat), core's
:func:`engine.core.odds.action_odds` over the game's own procedure, from the position as a side knows it or
with every card known, the cards enumerated by what changes a result. :func:`card_odds`: the calculators'
quick figures that ``legal`` and the state summary show beside an action (the chance of each CRT result on the
next card for an attack, 23.2-23.4; the exact Skill Check of a rally, 21.1, or of a Move Order out of command
range, 21.3). And the bots' value of one combat card (their own weights).
"""
from __future__ import annotations

from functools import lru_cache

from engine.core.errors import LimitError
from engine.core.odds import MAX_OUTCOMES, MAX_STEPS, ActionOdds, action_odds

from ..calc import check_odds, next_card_odds
from ..deck import Deck, apply_shift
from .actions import BcAction, Kind
from .attacks import attack_setup
from .state import BcState
from .view import odds_state, odds_view
from .zones import command_zones, enemy_adjacent

__all__ = ["card_odds", "RESULT_VALUE", "result_value", "exact_odds"]


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


class _Counting:
    """The rules, with each run of an action's procedure to its end counted (how far an enumeration got)."""

    def __init__(self, rules):
        self.rules, self.ends = rules, 0

    def __getattr__(self, name):
        return getattr(self.rules, name)

    def perform(self, st, a):
        out = yield from self.rules.perform(st, a)
        self.ends += 1
        return out


def exact_odds(rules, st: BcState, a: BcAction, side: str | None = None, *, chooser=None,
               max_steps: int = MAX_STEPS, max_outcomes: int = MAX_OUTCOMES) -> ActionOdds:
    """The exact odds of ``a`` in ``st`` (core's :func:`~engine.core.odds.action_odds` over the game's own
    procedure) as ``side`` knows the cards (:func:`~.view.odds_view`), or with every card known when ``side`` is
    ``None`` (:func:`~.view.odds_state`: the same fractions as over the cards themselves). Cards are enumerated
    by what changes a result (their icon and CRT results), and equal end positions meet.

    Past a bound the :class:`LimitError` names it and how far the enumeration got (the branches it had run to
    their end)."""
    pos = odds_state(st, rules.deck) if side is None else odds_view(st, side, rules.deck)
    counting = _Counting(rules)
    try:
        return action_odds(counting, pos, a, chooser=chooser, max_steps=max_steps, max_outcomes=max_outcomes)
    except LimitError as exc:
        got = exc.got if exc.got is not None else f"stopped after {counting.ends} branches run to their end"
        raise LimitError(exc.what, exc.limit, got, "too many card sequences to enumerate exactly") from None
