"""The turn on the map (15.0, 16.1-16.3, 18.0 Black cube): Turn Preparation (the cup and Attack Tokens from the
commander cards), the hands cut to the commander's skill, the cards drawn, and the order-cube draw."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log

from ..cup import SIDE_COLOUR, cube_draw, prepare_turn
from ..deck import HAND_LIMIT, Deck, default_deck, draw_card
from .state import MapState
from .types import ENEMY

__all__ = ["hand_draw_label", "start_turn", "cut_hands", "draw_cards", "turn_card_draws", "order_cube_draw", "pass_order"]


def hand_draw_label(side: str) -> str:
    """The label of a card drawn into ``side``'s hand (15.0): the one draw the other side may not see."""
    return f"{side} draws a card"


def start_turn(st: MapState, daylight: bool = True, gold: bool = False,
               reserve_to_cup: dict[str, int] | None = None) -> MapState:
    """Turn Preparation (16.1): refill the cup and the Attack Tokens from the commanders and the state."""
    both = {s: (sum(1 for h in st.hqs if h.side == s and h.hq.state == "steady" and h.hq.kind == "hq") > 0 and
                sum(1 for h in st.hqs if h.side == s and h.hq.state == "steady" and h.hq.kind == "shq") > 0)
            for s in ("french", "coalition")}
    coms = {s: {"cubes": max(0, c.cubes - (1 if st.in_perspective(s) else 0)),   # 29.1: one cube fewer
                "tokens": c.tokens, "skill": c.skill}
            for s, c in st.scenario.model.commanders.items()}
    t = prepare_turn(coms, st.initiative, daylight, both, dict(st.reserve), dict(st.tokens), gold=gold,
                     reserve_to_cup=reserve_to_cup)
    return replace(st, cup=t.cup, drawn=(), tokens=t.tokens, reserve=t.reserve, redoubt_held=(),
                   log=st.log + tuple(f"[{r}] {w}" for r, w in t.lines))


def draw_cards(st: MapState, side: str, n: int, deck: Deck | None = None):
    """Procedure: ``side`` draws ``n`` cards one by one into its hand (15.0), then discards down to six cards,
    choosing which."""
    deck = deck or default_deck()
    for i in range(n):
        face, pile = yield from draw_card(st.pile, deck, "15.0", hand_draw_label(side))
        st = replace(st, pile=pile, hands=tuple((s_, h + (face,) if s_ == side else h) for s_, h in st.hands))
    while len(st.hand(side)) > HAND_LIMIT:
        card = yield Choose(st.hand(side), rule="15.0", player=side, label="discard down to six cards")
        hand = list(st.hand(side))
        hand.remove(card)
        st = replace(st, pile=st.pile.discarded(card),
                     hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    return st


def turn_card_draws(st: MapState, deck: Deck | None = None):
    """Procedure: the four cards each player draws at turn start (16.1), initiative player first (13.2)."""
    first = st.initiative
    for side in (first, ENEMY[first]):
        st = yield from draw_cards(st, side, 4, deck)
    return st


def order_cube_draw(st: MapState, deck: Deck | None = None):
    """Procedure: draw one order cube (16.2) and return ``(state, colour, turn_over)``.

    A colour chosen with a Gold cube comes out without a draw; a cube of the colour just passed goes back
    once (Pass Order, 18.0); a Black cube that is not the last makes both players draw a card (18.0); the last
    Black cube ends the turn (16.2). Acting on other cubes (orders, rallies, combats) is up to the players.
    """
    if st.cup is None:
        raise RuleViolation("16.1", "prepare the turn first: the cup is empty")
    colour, left, returned, last = yield from cube_draw(st.cup, st.passed, st.forced_next)   # 16.2, 18.0
    st = replace(st, forced_next=None)
    if returned:
        return replace(st, passed=None), colour, False
    st = replace(st, passed=None)
    st = replace(st, cup=left if left.size else None, drawn=st.drawn + (colour,))
    if last:
        yield Log("16.3", "the last Black cube ends the turn")
        return replace(st, cup=None), colour, True          # 16.3: the turn marker moves at the turn's end
    if colour == "black":
        for side in (st.initiative, ENEMY[st.initiative]):
            st = yield from draw_cards(st, side, 1, deck)
    return st, colour, False


def cut_hands(st: MapState, deck: Deck | None = None):
    """Procedure: before the turn's four cards (16.1) each player throws away every enemy card (22.0) and
    keeps at most the commander's skill in own and shared cards, choosing which go (a Choose per card)."""
    deck = deck or default_deck()
    first = st.initiative
    for side in (first, ENEMY[first]):
        hand = [c for c in st.hand(side)]
        pile = st.pile
        for c in [c for c in hand if deck.card(c).side == ENEMY[side]]:
            hand.remove(c)
            pile = pile.discarded(c)
        keep = st.commander(side).skill
        while len(hand) > keep:
            c = yield Choose(tuple(hand), rule="16.1", player=side,
                             label=f"{side}: discard down to {keep} card(s) (commander skill)")
            hand.remove(c)
            pile = pile.discarded(c)
        st = replace(st, pile=pile, hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    return st


def pass_order(st: MapState, side: str) -> MapState:
    """Pass Order (18.0): the drawn own cube is discarded; a next draw of the same colour goes back."""
    return replace(st, passed=SIDE_COLOUR[side], log=st.log + (f"{side} passes",))
