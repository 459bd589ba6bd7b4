"""The sequence of play (16.0-18.0, 23.0, 24.3): which phase follows an action, and the actions that move the
turn on (Turn Preparation, the cube draw, passes).

* ``prepare`` (16.1): the initiative player starts the turn: the cup is filled from the commander cards with
  the daylight (13.2) and HQ + SHQ (16.1) bonuses, hands are cut to the commander's skill (enemy cards
  thrown away) and four cards are drawn each (15.0);
* ``draw`` (16.2): the initiative player draws a cube (a ``Draw`` request) and the phase follows its colour;
* ``order`` (Blue / White, 18.0) and ``reaction`` (19.2); ``gold`` (18.0);
* ``yellow_reinf``, ``yellow_buy``, ``yellow_rally`` (Yellow, 18.0, 20.0): reinforcements, purchases, then
  rallies in turns until both pass in succession;
* ``red`` (Red, 23.0): attacks in turns, initiative first, until both pass in succession; ``advance`` (25.0);
* ``reform`` (9.2, 9.4): after a Move Order, a Rally or an Advance, the Blocks of the Zones concerned may
  swap lead and second line, change formation, and Artillery that moved must be faced again;
* ``give_ground`` (24.3, 26.0): after the last Black cube, withdrawals and surrenders in turns until both
  pass; then the next turn, or the end of the game (16.3, 17.0).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log

from ..deck import Deck
from .actions import BcAction, DrawCube, Kind, Pass, StartTurn
from .candidates import reform_candidates, reinforce_candidates
from .reform import check_reform, set_facing
from .reinforcements import check_reinforce, due_reinforcements
from .state import BcState
from .turn import cut_hands, order_cube_draw, pass_order, start_turn, turn_card_draws
from .types import COLOUR_SIDE, ENEMY, PHASE_RULE, SIDES, Phase
from .victory import flag_control, flag_victory
from .zones import facing_options, needs_facing

__all__ = ["LOG_KEEP", "after", "yellow_next", "open_reform", "end_turn", "do_start_turn", "do_draw", "do_pass"]

LOG_KEEP = 30     # our choice: the position keeps the last 30 log lines (the record keeps every event)


def _any_legal(st: BcState, actions: list[BcAction], check: Callable[[BcState, BcAction, Deck], None],
               deck: Deck) -> bool:
    for a in actions:
        try:
            check(st, a, deck)
        except (RuleViolation, KeyError):
            continue
        return True
    return False


def after(st: BcState) -> BcState:
    """Bookkeeping after every action: stale facings, flag control (17.0), Demoralisation (13.1)."""
    g = st.g
    for u in g.units:
        if needs_facing(g, u) and not (st.phase == Phase.REFORM and u.zone in st.reform):
            # our reading: a retreated or advanced Artillery faces its first facing towards an enemy Zone
            opts = facing_options(g, u.id)
            towards = [f for f in opts if any(g.side_of_zone(z) == ENEMY[u.side] for z in f)]
            g = set_facing(g, u.id, (towards or list(opts))[0])
    if len(g.log) > LOG_KEEP:
        g = replace(g, log=g.log[-LOG_KEEP:])
    control = tuple(sorted(flag_control(g, dict(st.control)).items()))
    st = replace(st, g=g, control=control)
    for side in SIDES:
        if g.morale_of(side).demoralised:
            return replace(st, phase=Phase.OVER, actor=None, winner=ENEMY[side], result_rule="13.1",
                           result=f"the {side} army in Bad Morale reached zero: demoralised")
    return st


def yellow_next(st: BcState, deck: Deck) -> BcState:
    """The next step of a Yellow cube (18.0): reinforcements, then purchases, then rallies, initiative first."""
    g = st.g
    if st.phase not in (Phase.YELLOW_BUY, Phase.YELLOW_RALLY):
        for side in (g.initiative, ENEMY[g.initiative]):
            if due_reinforcements(g, side):
                nxt = replace(st, phase=Phase.YELLOW_REINF, actor=side)
                # due but with nowhere to go (27.10: no friendly Block left): it stays due (our reading)
                if _any_legal(nxt, reinforce_candidates(g, side), check_reinforce, deck):
                    return nxt
    if st.phase != Phase.YELLOW_RALLY:
        for side in (g.initiative, ENEMY[g.initiative]):
            if side not in st.bought:
                return replace(st, phase=Phase.YELLOW_BUY, actor=side)
    return replace(st, phase=Phase.YELLOW_RALLY, actor=g.initiative, passes=0)


def open_reform(st: BcState, zones, side: str, resume: str, resume_actor: str | None, deck: Deck) -> BcState:
    """The reform window (9.4) for ``side``'s Zones among ``zones``, when there is anything to do in it; then
    the turn resumes at ``resume`` with ``resume_actor``."""
    zones = tuple(z for z in dict.fromkeys(zones) if st.g.side_of_zone(z) == side)
    nxt = replace(st, phase=Phase.REFORM, actor=side, reform=zones, reformed=(), resume=resume,
                  resume_actor=resume_actor)
    if zones and _any_legal(nxt, [c for c in reform_candidates(nxt, side) if c.kind != Kind.DONE], check_reform,
                            deck):
        return nxt
    return replace(st, phase=resume, actor=resume_actor, reform=(), reformed=(), resume="", resume_actor=None)


def end_turn(st: BcState) -> BcState:
    """16.3, the End of Turn Phase after the Give Ground withdrawals (24.3): the turn marker moves one box on;
    when it is already in the last box the game ends, on Flag Control (17.0), in that last turn."""
    g = st.g
    if g.turn >= g.scenario.model.turns:
        v = flag_victory(g, dict(st.control))
        why = f"flags held at the end: {v['flags']}" + ("" if v["winner"] else " (a tie that stands)")
        return replace(st, phase=Phase.OVER, actor=None, winner=v["winner"], result=why, result_rule="17.0")
    return replace(st, g=replace(g, turn=g.turn + 1), phase=Phase.PREPARE, actor=g.initiative, passes=0,
                   surrendered=())


def do_start_turn(st: BcState, a: StartTurn, deck: Deck):
    """Turn Preparation (16.1) and the turn's cards (15.0)."""
    g = st.g
    sc = g.scenario.model
    into = {}
    for side in (g.initiative, ENEMY[g.initiative]):      # 16.1: kept reserve cubes may go into the cup
        kept = min(g.reserve_of(side), g.commander(side).skill)
        if kept:
            into[side] = yield Choose(tuple(range(kept + 1)), rule="16.1", player=side,
                                      label=f"{side}: how many of the {kept} kept reserve cubes go into the cup?")
    g = start_turn(g, daylight=g.turn not in sc.night, gold=sc.gold is not None, reserve_to_cup=into)
    yield Log("16.1", f"turn {g.turn}: cup {dict(g.cup.counts)}, tokens {dict(g.tokens)}")
    g = yield from cut_hands(g, deck)
    g = yield from turn_card_draws(g, deck)
    return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative, surrendered=(), passes=0)


def do_draw(st: BcState, a: DrawCube, deck: Deck):
    """The order-cube draw (16.2) and the phase its colour opens (18.0)."""
    g, colour, over = yield from order_cube_draw(st.g, deck)
    if over:
        return replace(st, g=g, phase=Phase.GIVE_GROUND, actor=g.initiative, passes=0, cube="", engaged=())
    base = dict(cube=colour, passes=0, engaged=(), rallied=(), army_rallied=(), bought=(), specials=())
    if g.cup == st.g.cup:                   # 18.0: the passed colour came out again and went back
        return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)
    if colour in COLOUR_SIDE:
        return replace(st, g=g, phase=Phase.ORDER, actor=COLOUR_SIDE[colour], **base)
    if colour == "gold":
        if g.scenario.model.gold is None:
            return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)
        return replace(st, g=g, phase=Phase.GOLD, actor=g.scenario.model.gold, **base)
    if colour == "yellow":
        return yellow_next(replace(st, g=g, **base), deck)
    if colour == "red":
        return replace(st, g=g, phase=Phase.RED, actor=g.initiative, **base)
    return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative, cube=colour)      # 18.0 Black: cards were drawn


def do_pass(st: BcState, a: Pass, deck: Deck):
    """A pass: what it means depends on the phase (18.0 Pass Order, 19.2, 18.0 purchases, 19.4, 20.0, 23.0,
    24.3); two passes in succession end the rallies, the attacks or the turn's end."""
    g = st.g
    ph = st.phase
    if ph == Phase.ORDER:
        g = pass_order(g, a.side)
        yield Log("18.0", f"{a.side}: Pass Order")
        return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)
    if ph == Phase.REACTION:
        yield Log("19.2", f"{a.side}: no reaction")
        return replace(st, g=g, phase=Phase.DRAW, actor=g.initiative)
    if ph == Phase.YELLOW_BUY:
        yield Log("18.0", f"{a.side}: no more purchases")
        return yellow_next(replace(st, bought=st.bought + (a.side,)), deck)
    if ph == Phase.RED and st.follow:
        yield Log("19.4", f"{a.side}: the Combat Move ends without an attack")
        return replace(st, follow="", actor=ENEMY[a.side], passes=0)
    yield Log(PHASE_RULE[ph], f"{a.side} passes")
    if st.passes + 1 >= 2:                 # both passed in succession
        if ph == Phase.RED:
            yield Log("23.0", "both players passed: the combats end, the Attack Tokens on the map go")
            return replace(st, phase=Phase.DRAW, actor=g.initiative, engaged=(), passes=0)
        if ph == Phase.YELLOW_RALLY:
            return replace(st, phase=Phase.DRAW, actor=g.initiative, passes=0, rallied=(), army_rallied=())
        if ph == Phase.GIVE_GROUND:
            return end_turn(st)
    return replace(st, actor=ENEMY[a.side], passes=st.passes + 1)
