"""Rally Orders (20.0, 21.1): a Zone Rally raises the Battle State of every Block (and HQ) in a Zone on one Rally
Skill Check; an Army Rally raises the Army's Morale. Each costs a reserve cube unless the card is an Officer."""
from __future__ import annotations

from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Log

from ..blocks import BattleState
from ..checks import read_check
from ..deck import Deck, default_deck, draw_card
from .actions import ArmyRally, Rally
from .dry import dry_run
from .phases import open_reform
from .state import BcState, MapState, change_morale, set_block
from .types import ENEMY, LEADER_ASSIST, Phase

__all__ = ["rally_line", "rally_zone", "rally_army", "check_rally", "do_rally", "check_army_rally", "do_army_rally"]


def rally_line(side: str, zone: str, icon: str) -> str:
    """The position's log line of a Zone Rally and the icon of its card (21.1)."""
    return f"{side} rally {zone}: {icon}"


def _leader_card(st: MapState, side: str, card: int, deck: Deck) -> MapState:
    """29.6: the friendly Leader card ``card`` leaves ``side``'s hand (the caller says where it goes)."""
    if card not in st.hand(side):
        raise RuleViolation("29.6", f"card {card} is not in the {side} hand")
    c = deck.card(card, "29.6")
    if not c.leader or c.side != side:
        raise RuleViolation("29.6", f"card {card} is not a {side} Leader card")
    hand = list(st.hand(side))
    hand.remove(card)
    return replace(st, hands=tuple((s, tuple(hand) if s == side else h) for s, h in st.hands))


def rally_zone(st: MapState, side: str, zone: str, deck: Deck | None = None, leader: int | None = None):
    """Procedure: a Zone Rally Order (20.0, 21.1): one card for every Block (and HQ) in the Zone; each that
    passes goes one Battle State better (Disrupted Infantry to Shaken first). Returns ``(state, cube_back)``.
    ``leader``: a friendly Leader card discarded instead of the draw (optional 29.6): an automatic Officer,
    and the army loses one Morale."""
    deck = deck or default_deck()
    st.scenario.zone(zone)
    here = [u for u in st.in_zone(zone) if u.side == side]
    hqs_here = st.hqs_in(zone, side)
    if not here and not hqs_here:
        raise RuleViolation("20.0", f"no {side} Block or HQ in Zone {zone}")
    if dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    if leader is not None:
        st = _leader_card(st, side, leader, deck)
        yield Log("29.6", f"{side} discards the Leader card {leader}: an automatic Officer, one Morale")
        icon = "officer"
        st = replace(st, pile=st.pile.discarded(leader))
    else:
        face, pile = yield from draw_card(st.pile, deck, "21.1", f"rally {zone}")
        icon = deck.skill(face)
        st = replace(st, pile=pile.discarded(face))
    m = st.morale_of(side)
    hq = st.hq_bonus_in(zone, side)                 # 21.0 +1; 29.1: not a main HQ in Command Perspective
    enemy_adj = any(st.side_of_zone(n) == ENEMY[side] for n in st.scenario.graph.neighbours(zone))
    cube_back = False
    morale_loss = 0
    for u in here:
        out = read_check("rally", icon, u.block.skill + (1 if hq else 0), m.good, enemy_adjacent=enemy_adj,
                         in_square=u.block.square)
        cube_back = cube_back or out.cube_back
        morale_loss = min(morale_loss, out.morale)
        if out.success and u.block.state != "steady":
            nxt = BattleState.SHAKEN if (u.block.infantry and u.block.state == "disrupted") else BattleState.STEADY
            st = set_block(st, u.id, replace(u.block, state=nxt))
    for h in hqs_here:                          # 20.0: the HQs in the Zone rally too, with their own skill
        out = read_check("rally", icon, h.hq.skill, m.good, enemy_adjacent=enemy_adj)   # 21.0: no bonus to itself
        cube_back = cube_back or out.cube_back
        morale_loss = min(morale_loss, out.morale)
        if out.success and h.hq.state != "steady":
            st = replace(st, hqs=tuple(replace(x, hq=replace(x.hq, state=BattleState.STEADY)) if x.id == h.id else x
                                       for x in st.hqs))
    st = change_morale(st, side, morale_loss)         # one Morale for the Zone at most (21.1)
    if leader is not None:
        st = change_morale(st, side, -1)               # 29.6: the cost of the Leader's help
    if not cube_back:
        st = replace(st, reserve=tuple((s, n - 1 if s == side else n) for s, n in st.reserve))
    yield Log("21.1", f"rally {zone}: {icon}")
    st = replace(st, log=st.log + (rally_line(side, zone, icon),))
    return st, cube_back


def rally_army(st: MapState, side: str, deck: Deck | None = None, leader: int | None = None):
    """Procedure: an Army Rally Order (20.0, 21.1) with the Army Commander's skill: needs a Steady HQ and a
    reserve cube; a pass raises Morale by one (never over the maximum, never back to Good Morale), an Officer
    keeps the cube, a Death Head costs one Morale. Returns ``(state, cube_back)``.
    ``leader``: a friendly Leader card used instead of the draw (optional 29.6): an automatic Officer that may
    even bring the army back to Good Morale, at no Morale cost, but the Leader goes Hors de Combat (27.12:
    out of play, under the Army Commander card)."""
    deck = deck or default_deck()
    if not any(h.side == side and h.hq.kind == "hq" and h.hq.state == "steady" for h in st.hqs):
        raise RuleViolation("20.0", "an Army Rally needs a Steady HQ")
    if dict(st.reserve)[side] < 1:
        raise RuleViolation("20.0", "a Rally Order costs one cube from the Reserve Orders Box")
    if leader is not None:
        st = _leader_card(st, side, leader, deck)
        st = replace(st, out_of_play=st.out_of_play + (leader,))
        yield Log("29.6", f"{side} uses the Leader card {leader}: an automatic Officer; the Leader is Hors de Combat")
        icon = "officer"
    else:
        face, pile = yield from draw_card(st.pile, deck, "21.1", f"{side} army rally")
        st = replace(st, pile=pile.discarded(face))
        icon = deck.skill(face)
    out = read_check("rally", icon, st.commander(side).skill, st.morale_of(side).good, army=True)
    yield Log("21.1", f"army rally: {out.icon}, {'success' if out.success else 'no rally'}")
    if out.success:
        st = change_morale(st, side, +1, army_rally=leader is None)      # 29.6: even back to Good Morale
    st = change_morale(st, side, out.morale)
    if not out.cube_back:
        st = replace(st, reserve=tuple((s_, n - 1 if s_ == side else n) for s_, n in st.reserve))
    return st, out.cube_back


def _check_leader_option(st: BcState, a: Rally | ArmyRally) -> None:
    if a.leader and LEADER_ASSIST not in st.options:
        raise RuleViolation("29.6", "Leader-assisted Skill Checks are an optional rule not in play in this game")


def check_rally(st: BcState, a: Rally, deck: Deck) -> None:
    """One Rally per Zone and Yellow cube (20.0), then the rally's own refusals."""
    if a.frm in st.rallied:
        raise RuleViolation("20.0", f"Zone {a.frm} was already rallied on this Yellow cube (one Rally per Zone)")
    _check_leader_option(st, a)
    dry_run(rally_zone(st.g, a.side, a.frm, deck, a.leader or None), deck)


def do_rally(st: BcState, a: Rally, deck: Deck):
    """A Zone Rally, then a reform window in the Zone unless the card was a Death Head (20.0)."""
    g, cube_back = yield from rally_zone(st.g, a.side, a.frm, deck, a.leader or None)
    death = g.log[-1:] == (rally_line(a.side, a.frm, "death_head"),)   # the card's icon, whatever the pile
    st = replace(st, g=g, passes=0, rallied=st.rallied + (() if cube_back else (a.frm,)))
    if death:                                # 20.0: no reforming on a Death Head
        return replace(st, actor=ENEMY[a.side])
    return open_reform(st, (a.frm,), a.side, Phase.YELLOW_RALLY, ENEMY[a.side], deck)


def check_army_rally(st: BcState, a: ArmyRally, deck: Deck) -> None:
    """One Army Rally per draw (20.0), then the rally's own refusals."""
    if a.side in st.army_rallied:
        raise RuleViolation("20.0", "one Army Rally per draw")
    _check_leader_option(st, a)
    dry_run(rally_army(st.g, a.side, deck, a.leader or None), deck)


def do_army_rally(st: BcState, a: ArmyRally, deck: Deck):
    g, cube_back = yield from rally_army(st.g, a.side, deck, a.leader or None)
    return replace(st, g=g, passes=0, actor=ENEMY[a.side],
                   army_rallied=st.army_rallied + (() if cube_back else (a.side,)))
