"""What each side may see of a Battle Commander position (15.0 "No Peeking!"), and the position each side's odds
are worked out from.

Hidden: the other player's hand (shown as a count of face-down cards) and the draw pile (its size only: its
cards and their order are hidden). Public: the map, Morale, the Army Mats, the cup (16.2: its contents may be
examined), the discard pile and every card played or drawn face up (a Skill Check, a combat card; our
reading: a player may remember each card he saw go to the discard pile, as the calculators do). A spectator
(side ``None``) sees what both players may.

A hidden card is written ``0`` (no card of the deck has that number), so a view keeps the shape of a position.

:func:`odds_state` is the position for exact odds with everything known (the true draw pile, each card
summarised by its icon and CRT rows); :func:`odds_view` the position as one side knows it: the cards it has
not seen (the draw pile and the other hand together) in an :class:`~engine.bc.deck.UnseenPile`, so the odds
a side is shown do not depend on the cards the other hand really holds.
"""
from __future__ import annotations

from dataclasses import replace

from ..deck import Deck, Pile, UnseenPile
from .actions import BcAction, Purchase
from .state import BcState
from .turn import hand_draw_label
from .types import SIDES, other

__all__ = ["HIDDEN_CARD", "hidden_sides", "view", "visible_action", "visible_event", "odds_state", "odds_view"]

#: a face-down card in a view
HIDDEN_CARD = 0
_TABLES = ("fire", "assault")


def hidden_sides(side: str | None) -> tuple[str, ...]:
    """The sides whose hands ``side`` may not see (a spectator, ``None``, sees neither hand)."""
    return tuple(SIDES) if side is None else (other(side),)


def view(st: BcState, side: str | None) -> BcState:
    """``st`` as ``side`` may see it: the hidden hands as face-down cards, the draw pile as face-down cards."""
    g = st.g
    hide = hidden_sides(side)
    hands = tuple((s, (HIDDEN_CARD,) * len(h) if s in hide else h) for s, h in g.hands)
    pile = Pile((HIDDEN_CARD,) * len(g.pile.draw), g.pile.discard)
    return replace(st, g=replace(g, hands=hands, pile=pile))


def visible_action(st: BcState, a: BcAction, side: str | None) -> BcAction:
    """``a`` as ``side`` may know it: a purchase the other side may make names cards of its hand, shown face
    down (once made, the card lies face up on the discard pile and its event shows it)."""
    if isinstance(a, Purchase) and a.side in hidden_sides(side):
        return replace(a, cards=(HIDDEN_CARD,) * len(a.cards))
    return a


def visible_event(st: BcState, event: dict, side: str | None) -> dict:
    """A record event as ``side`` may see it in the log: each card drawn into a hidden hand (15.0) masked."""
    masked = {hand_draw_label(s) for s in hidden_sides(side)}
    answers = event.get("answers")
    if not isinstance(answers, list):
        return event
    out = []
    for ans in answers:
        if isinstance(ans, dict) and ans.get("kind") == "draw" and ans.get("rule") == "15.0" and any(
                str(ans.get("label", "")).startswith(m) for m in masked):
            ans = {**ans, "value": None}
        out.append(ans)
    return {**event, "answers": out}


def odds_state(st: BcState, deck: Deck) -> BcState:
    """The position for exact odds with everything known: the draw and discard piles as card summaries (icon
    and CRT rows, 21.0, 23.2-23.3), so that cards alike count as one branch and end positions alike meet. The
    odds are the same fractions as over the cards themselves."""
    g = st.g
    return replace(st, g=replace(g, pile=g.pile.summarise(deck, _TABLES)))


def odds_view(st: BcState, side: str | None, deck: Deck) -> BcState:
    """The position for exact odds as ``side`` knows it (``None``: a spectator): the hidden hands face down,
    and the cards it has not seen, the draw pile's and the hidden hands', as one pool of which the draw pile
    holds as many as it has cards (:class:`~engine.bc.deck.UnseenPile`). Swapping cards between the draw pile
    and a hidden hand gives the same position, so the same odds."""
    g = st.g
    hide = hidden_sides(side)
    in_draw = [c for c in g.pile.draw if not deck.is_reshuffle(c)]      # 15.0: the reshuffle card is always there
    unseen = in_draw + [c for s, h in g.hands if s in hide for c in h]
    pile = UnseenPile.of(deck, unseen, len(in_draw), g.pile.discard, _TABLES)
    hands = tuple((s, (HIDDEN_CARD,) * len(h) if s in hide else h) for s, h in g.hands)
    return replace(st, g=replace(g, hands=hands, pile=pile))
