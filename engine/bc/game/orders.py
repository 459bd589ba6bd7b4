"""The cube orders (18.0, 19.0-19.2) and the optional rules that are orders too (29.1, 29.2): Move Orders and
their Reaction, Ready Arms, In Reserve, the Gold cube's choice, the Yellow cube's reinforcements and purchases,
Command Perspective and Press On. The map's side of a Move Order is :mod:`.movement`."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from ..checks import read_check
from ..cup import COLOURS, SIDE_COLOUR, Cup
from ..deck import Deck, default_deck, draw_card
from .actions import Gold, InReserve, Move, Purchase, ReadyArms, Reinforce
from .dry import dry_run
from .movement import move_order
from .phases import open_reform, yellow_next
from .reinforcements import reinforce_proc
from .state import BcState, MapState, change_morale
from .turn import draw_cards
from .types import ENEMY, Phase

__all__ = ["ready_arms", "in_reserve", "purchase", "gold_choice", "command_perspective", "press_on", "move_proc",
           "check_move", "do_move", "check_ready_arms", "do_ready_arms", "check_in_reserve", "do_in_reserve",
           "check_gold", "do_gold", "check_purchase", "do_purchase", "do_reinforce"]


def ready_arms(st: MapState, side: str) -> MapState:
    """Ready Arms Order (18.0): one more Attack Token, up to commander skill + 10."""
    cap = st.commander(side).skill + 10
    n = dict(st.tokens)[side]
    if n >= cap:
        raise RuleViolation("18.0", f"the Attack Token Box holds at most {cap} tokens")
    return replace(st, tokens=tuple((s, k + 1 if s == side else k) for s, k in st.tokens))


def in_reserve(st: MapState, side: str) -> MapState:
    """In Reserve Order (18.0): keep the drawn own cube, up to commander skill + 5."""
    cap = st.commander(side).skill + 5
    n = dict(st.reserve)[side]
    if n >= cap:
        raise RuleViolation("18.0", f"the Reserve Orders Box holds at most {cap} cubes")
    return replace(st, reserve=tuple((s, k + 1 if s == side else k) for s, k in st.reserve))


def purchase(st: MapState, side: str, cards: tuple[int, ...], buy: str) -> MapState:
    """Yellow cube purchase (18.0): each card discarded from the hand buys one reserve cube (up to commander
    skill + 5) or one Attack Token (up to skill + 10); enemy cards may be spent too (22.0)."""
    hand = list(st.hand(side))
    for c in cards:
        if c not in hand:
            raise RuleViolation("18.0", f"card {c} is not in the {side} hand")
        hand.remove(c)
    if buy not in ("cubes", "tokens"):
        raise RuleViolation("18.0", "buy cubes or tokens")
    pile = st.pile
    for c in cards:
        pile = pile.discarded(c)
    st = replace(st, pile=pile, hands=tuple((s_, tuple(hand) if s_ == side else h) for s_, h in st.hands))
    for _ in cards:
        st = in_reserve(st, side) if buy == "cubes" else ready_arms(st, side)
    return st


def gold_choice(st: MapState, colour: str | None):
    """Gold cube (18.0): the scenario's player names the next cube's colour (it must be in the cup), or, with
    ``colour=None``, draws an event card instead. A procedure (a card may be drawn)."""
    if colour is None:
        side = st.initiative
        return (yield from draw_cards(st, side, 1))
    if st.cup is None or st.cup.count(colour) < 1:
        raise RuleViolation("18.0", f"no {colour} cube left in the cup")
    return replace(st, forced_next=colour)


def command_perspective(st: MapState, side: str, rally_order: bool = True) -> MapState:
    """Optional rule 29.1: with a Rally Order (one reserve cube, 20.0) the Army Commander moves to the rear.
    From then on the side's main HQ gives no +1 Skill (its SHQs still do), its command range is one Zone
    longer, the Commander puts one cube fewer in the cup (16.1), and a Fate of War card that would put him
    Hors de Combat is drawn again once (in combat). An SHQ is not affected. ``rally_order=False``: the switch
    set before play (no cube spent)."""
    if st.in_perspective(side):
        raise RuleViolation("29.1", f"the {side} Army Commander is already in Command Perspective")
    if not any(h.side == side and h.hq.kind == "hq" for h in st.hqs):
        raise RuleViolation("29.1", f"the {side} army has no main HQ marker on the map")
    if rally_order and dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    paid = 1 if rally_order else 0
    hqs = tuple(replace(h, hq=replace(h.hq, perspective=True)) if h.side == side and h.hq.kind == "hq" else h
                for h in st.hqs)
    return replace(st, hqs=hqs, reserve=tuple((s_, n - paid if s_ == side else n) for s_, n in st.reserve),
                   log=st.log + (f"{side} Army Commander takes Command Perspective (29.1)",))


def press_on(st: MapState, side: str, deck: Deck | None = None):
    """Procedure: Press On (optional 29.2) when the third Black cube is drawn: with a Steady HQ and Good Morale,
    a Skill Check with the commander's skill. Success: the cube goes back, two Morale lost; failure: one Morale;
    Officer: back, no loss; Death Head: nothing, both armies lose one Morale. Returns ``(state, cube_back)``."""
    deck = deck or default_deck()
    if not any(h.side == side and h.hq.kind == "hq" and h.hq.state == "steady" for h in st.hqs):
        raise RuleViolation("29.2", "Press On needs a Steady HQ")
    if not st.morale_of(side).good:
        raise RuleViolation("29.2", "Press On needs Good Morale")
    face, pile = yield from draw_card(st.pile, deck, "29.2", f"press on ({side})")
    st = replace(st, pile=pile.discarded(face))
    icon = deck.skill(face)
    if icon == "officer":
        return st, True
    if icon == "death_head":
        st = change_morale(st, side, -1)
        return change_morale(st, ENEMY[side], -1), False
    out = read_check("general", icon, st.commander(side).skill, True)
    if out.success:
        return change_morale(st, side, -2), True
    return change_morale(st, side, -1), False


# ------------------------------------------------------------------------------------------------
# The orders as actions of a position
# ------------------------------------------------------------------------------------------------
def _cup_plus(cup: Cup | None, colour: str) -> Cup:
    d = dict(cup.counts) if cup else {}
    d[colour] = d.get(colour, 0) + 1
    return Cup(tuple((c, d[c]) for c in COLOURS if d.get(c)))


def move_proc(st: BcState, a: Move, deck: Deck):
    """Procedure: the Move Order of ``a`` (a Reaction in the reaction phase, 19.2)."""
    return move_order(st.g, a.side, list(a.zones), [tuple(m) for m in a.moves], deck,
                      reaction=st.phase == Phase.REACTION, roadway=a.roadway, hq_moves=a.hqs)


def check_move(st: BcState, a: Move, deck: Deck) -> None:
    """The Move Order's procedure run dry (19.0-19.3, 21.3)."""
    g2 = dry_run(move_proc(st, a, deck), deck)
    if g2.log and "out of command failed" in g2.log[-1]:
        # no card in the draw pile passes the 21.3 check: check the moves as if it had (a success
        # there changes nothing before them, and every activation rule ran already)
        dry_run(move_order(st.g, a.side, list(a.zones), [tuple(m) for m in a.moves], deck,
                           reaction=st.phase == Phase.REACTION, roadway=a.roadway, hq_moves=a.hqs,
                           free_in_command=True), deck)


def do_move(st: BcState, a: Move, deck: Deck):
    """A Move Order (19.0), then the enemy's Reaction (19.2) or the next draw, after a reform window (9.4)."""
    before = st.g
    g = yield from move_proc(st, a, deck)
    reaction = st.phase == Phase.REACTION
    if g.order_cube_back:                  # 21.3 Officer: the order cube goes back into the cup
        colour = SIDE_COLOUR[a.side]
        yield Log("21.3", f"Officer: the {colour} cube goes back into the cup")
        g = replace(g, cup=_cup_plus(g.cup, colour), order_cube_back=False)
    resume, who = (Phase.DRAW, g.initiative) if reaction else (Phase.REACTION, ENEMY[a.side])
    st = replace(st, g=g)
    if g.log and "failed (death_head)" in g.log[-1]:
        return replace(st, phase=resume, actor=who)          # 21.3 Death Head: no changes either
    moved = [before.unit(uid).zone for uid, _ in a.moves] + [g.unit(uid).zone for uid, _ in a.moves
                                                              if any(x.id == uid for x in g.units)]
    return open_reform(st, tuple(a.zones) + tuple(moved), a.side, resume, who, deck)


def check_ready_arms(st: BcState, a: ReadyArms, deck: Deck) -> None:
    if st.phase == Phase.REACTION and st.g.reserve_of(a.side) < 1:
        raise RuleViolation("19.2", "a Reaction is paid with a cube from the Reserve Orders Box")
    ready_arms(st.g, a.side)


def do_ready_arms(st: BcState, a: ReadyArms, deck: Deck):
    g = st.g
    if st.phase == Phase.REACTION:
        g = replace(g, reserve=tuple((s, n - 1 if s == a.side else n) for s, n in g.reserve))
    g = ready_arms(g, a.side)
    yield Log("18.0", f"{a.side}: Ready Arms, {g.tokens_of(a.side)} Attack Token(s)")
    return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)


def check_in_reserve(st: BcState, a: InReserve, deck: Deck) -> None:
    in_reserve(st.g, a.side)


def do_in_reserve(st: BcState, a: InReserve, deck: Deck):
    g = in_reserve(st.g, a.side)
    yield Log("18.0", f"{a.side}: In Reserve, {g.reserve_of(a.side)} cube(s) in the box")
    return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)


def check_gold(st: BcState, a: Gold, deck: Deck) -> None:
    g = st.g
    if a.colour != "card":
        if a.colour not in COLOURS or g.cup is None or g.cup.count(a.colour) < 1:
            raise RuleViolation("18.0", f"no {a.colour} cube left in the cup to name")


def do_gold(st: BcState, a: Gold, deck: Deck):
    g = yield from gold_choice(st.g, None if a.colour == "card" else a.colour)
    return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)


def check_purchase(st: BcState, a: Purchase, deck: Deck) -> None:
    if len(a.cards) != 1:
        raise RuleViolation("18.0", "a purchase discards one card for one cube or token (our step: one at a time)")
    purchase(st.g, a.side, a.cards, a.buy)


def do_purchase(st: BcState, a: Purchase, deck: Deck):
    g = purchase(st.g, a.side, a.cards, a.buy)
    yield Log("18.0", f"{a.side}: card {a.cards[0]} buys one {'cube' if a.buy == 'cubes' else 'Attack Token'}")
    return replace(st, g=g)


def do_reinforce(st: BcState, a: Reinforce, deck: Deck):
    """The reinforcements (18.0), then the Yellow cube's next step after a reform window for them (9.4)."""
    before = {u.id for u in st.g.units}
    g = yield from reinforce_proc(st.g, a, deck)
    st = replace(st, g=g)
    nxt = yellow_next(st, deck)
    zones = [u.zone for u in g.units if u.id not in before]      # 9.4: the arriving Blocks may reform
    return open_reform(st, zones, a.side, nxt.phase, nxt.actor, deck) if zones else nxt
