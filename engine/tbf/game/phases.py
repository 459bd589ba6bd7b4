"""3.0 The sequence of play: the Initiative Phase (3.2), the Activation Phase's impulses and segments (3.3:
passing, ending a segment, the end of an impulse and of the phase with the 4.1.10 B checks), the Recovery
Phase (7.0) and the end of the game after turn 13 (3.4 C, 10.2)."""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace as dc_replace
from functools import partial
from typing import cast

from engine.core.dist import die
from engine.core.errors import RuleViolation
from engine.core.game import Outcome
from engine.core.procedure import Chance, Choose, Log, Roll, Sub, chain

from ..fatigue import CheckSpec, check_sub
from ..scenario import Scenario
from ..steps import Steps
from ..turn import turn_data
from .actions import EndSegment, Pass
from .memo import cached
from .position import leader_cvs
from .queries import Queries
from .reinforcement import reinforcement_segment
from .rout import end_of_activation_overstack
from .state import GameState, TbfState, piece, replace
from .types import LIVE, SEGMENTS, SIDES, Status, other
from .victory import automatic_victory, battalions_text

__all__ = ["initiative", "recovery", "initiative_phase", "recovery_phase", "do_pass", "do_end", "end_impulse",
           "end_phase", "initiative_segment"]


def recovery(sc: Scenario, st: GameState, unit_id: str) -> Steps[str]:
    """7.0 for one unit: Remove Fatigue, or Rally from Rout (not next to an enemy, 7.0 G); charged
    cavalry may not remove fatigue (4.2.5, 7.0 C)."""
    p = st.piece(unit_id)
    g = sc.board.grid
    if p.status == Status.FATIGUED:
        if p.charged:
            raise RuleViolation("7.0 C", f"{unit_id} charged this turn and may not recover from fatigue")
        out = yield check_sub(sc.tables, CheckSpec("remove_fatigue", sc.units[unit_id].fv_f, "fatigued",
                                                   leader_cvs(sc, st, unit_id), unit=unit_id), rule="7.0 D")
        return out.status
    if p.status == Status.ROUTED:
        side = sc.side(unit_id)
        if any(q.hex and g.distance(q.hex, p.hex) == 1 and sc.side(q.id) != side and q.status in LIVE
               and not sc.is_leader(q.id) for q in st.pieces):
            raise RuleViolation("7.0 G", f"{unit_id} is next to an enemy unit and cannot rally")
        out = yield check_sub(sc.tables, CheckSpec("rally_from_rout", sc.units[unit_id].fv_f, "routed",
                                                   leader_cvs(sc, st, unit_id), unit=unit_id), rule="7.0 D")
        return out.status
    raise RuleViolation("7.0 D", f"{unit_id} is {p.status}: only fatigued or routed units recover")


def initiative(turn: int, mortier_on_map: bool) -> Steps[str]:
    """3.2: both roll a d6, the French +1 with Mortier on the map, ties rerolled; turn 1 the Coalition
    goes first without a roll. Returns the side with the initiative.

    A tie is settled by one chance event whose odds are those of rerolling until the dice differ
    (the same two d6 and the same comparison, conditioned on no tie), so the tree stays finite."""
    if turn == 1:
        return "coalition"
    bonus = turn_data().rolls.initiative_mortier_drm if mortier_on_map else 0
    f = yield Roll("d6", rule="3.2 A", label="French initiative")
    c = yield Roll("d6", rule="3.2 A", label="Coalition initiative")
    if f + bonus != c:
        return "french" if f + bonus > c else "coalition"
    pairs = die("d6").product(die("d6")).given(lambda fc: _dice(fc)[0] + bonus != _dice(fc)[1])
    odds = pairs.map(lambda fc: "french" if _dice(fc)[0] + bonus > _dice(fc)[1] else "coalition")
    return (yield Chance(tuple(odds.items()), rule="3.2 A", label="tie: reroll until the dice differ"))



def _dice(fc: Hashable) -> tuple[int, int]:
    """An outcome of the two initiative dice (the French d6, the Coalition d6) as the pair it is."""
    return cast(tuple[int, int], fc)


def initiative_phase(sc: Scenario, st: GameState) -> Steps[str]:
    """3.2 on a game state: the French add 1 while Mortier is on the map; turn 1 goes to the Coalition
    without a roll. A procedure returning the side that has the initiative."""
    m = st.piece("mortier") if "mortier" in sc.leaders else None
    on_map = m is not None and m.hex is not None and m.status == Status.NORMAL
    # Only the winner matters after the roll, and it depends on nothing but turn 1 and Mortier's +1: one
    # step shared by every branch that reaches it (inline: play and replay record the same two d6).
    bonus = turn_data().rolls.initiative_mortier_drm if on_map else 0
    won = yield Sub(("tbf-initiative", st.turn == 1, on_map, bonus), partial(initiative, st.turn, on_map),
                    rule="3.2 A", label="Initiative", inline=True)
    return cast(str, won)


def recovery_phase(sc: Scenario, st: GameState) -> Steps[GameState]:
    """7.0: every fatigued unit tries to remove fatigue (not cavalry that charged, 7.0 C) and every
    routed unit not next to an enemy tries to rally (7.0 G); then Charged markers come off, leaders and
    units are ready again and the turn advances (7.0 H)."""
    for uid, spec, enemies_near in cached(_recovery_checks)(sc, st):
        if any(st.piece(q).status in LIVE for q in enemies_near):
            continue                                    # 7.0 G: next to an enemy unit (distance 1)
        out = yield check_sub(sc.tables, spec, rule="7.0 D")
        st = st.with_piece(uid, status=out.status)
    st = dc_replace(st, pieces=tuple(piece(p.id, p.hex, p.facing, p.status, False, False) if p.charged or p.activated
                                     else p for p in st.pieces), turn=st.turn + 1)
    return st


def _recovery_checks(sc: Scenario, st: GameState) -> tuple[tuple[str, CheckSpec, tuple[str, ...]], ...]:
    """The checks of 7.0 from ``st``, in the map's order: each unit, its check (7.0 D, G) and, for a routed
    unit, the enemy units next to it, any of which still in play then keeps it from rallying (7.0 G: an
    earlier unit's check may have changed one's status). Nothing a check changes is read here: a unit's own
    status and its leaders' CVs are the same when its turn comes (memoised: the exact odds run the phase
    again for every branch)."""
    g = sc.board.grid
    plan = []
    for p in st.on_map():
        if sc.is_leader(p.id) or p.status not in ("fatigued", "routed"):
            continue
        if p.status == Status.FATIGUED and p.charged:
            continue
        near: tuple[str, ...] = ()
        if p.status == Status.ROUTED:
            near = tuple(q.id for n in g.neighbours(p.hex) for q in st.in_hex(n)
                         if sc.side(q.id) != sc.side(p.id) and not sc.is_leader(q.id))
        check = "remove_fatigue" if p.status == Status.FATIGUED else "rally_from_rout"
        plan.append((p.id, CheckSpec(check, sc.units[p.id].fv_f, p.status, leader_cvs(sc, st, p.id), unit=p.id), near))
    return tuple(plan)



# ------------------------------------------------------------------------------------------------
# In the game
# ------------------------------------------------------------------------------------------------
def do_pass(ctx: Queries, s: TbfState, a: Pass) -> Steps[TbfState]:
    s = replace(s, passes=s.passes + 1)
    yield Log("3.3 B", f"the {a.side} passes")
    if s.passes >= 2:
        return (yield from end_phase(ctx, s, "both sides passed in turn"))
    return replace(s, to_move=other(a.side))


def do_end(ctx: Queries, s: TbfState, a: EndSegment) -> Steps[TbfState]:
    imp = s.activation
    i = SEGMENTS.index(imp.segment)
    yield Log("3.3 B", f"end of the {imp.segment.replace('_', ' ')} segment")
    if i + 1 < len(SEGMENTS):
        return replace(s, impulse=replace(imp, segment=SEGMENTS[i + 1], mover=""))
    g = s.game
    # 4.2.3, 6.2.8 J: every charging cavalry unit tires once the Melee Segment ends: the impulse's chargers,
    # then the enemy's counter and reaction chargers (6.2.9 B, 6.2.10 E: they charged too, and carry the
    # Charged marker; our reading of "all charging cavalry units")
    chargers = [b.unit for b in imp.book if b.charged]
    chargers += sorted(p.id for p in g.on_map() if p.charged and p.id not in chargers
                       and ctx.sc.side(p.id) != imp.side)
    for uid in chargers:
        p = g.piece(uid)
        if p.hex is not None and p.status == Status.NORMAL:
            g = g.with_piece(uid, status=Status.FATIGUED)
            yield Log("6.2.8 J", f"{uid} charged this impulse: it is fatigued now (4.2.3)")
    return (yield from end_impulse(ctx, replace(s, game=g)))


def end_impulse(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    s = replace(s, impulse=None, to_move=other(s.activation.side), passes=0)
    if not any(any(ctx.can_activate(s, l) is None for l in ctx.side_leaders(side)) or ctx.leaderless(s, side)
               for side in SIDES):
        return (yield from end_phase(ctx, s, "every leader and command has been activated"))
    return s


def end_phase(ctx: Queries, s: TbfState, why: str) -> Steps[TbfState]:
    """The end of the Activation Phase (3.3 B) and what follows it to the next turn's first impulse: the
    overstack checks (4.1.10 B) and the Recovery Phase (7.0), the end of the game (10.1, 3.4 C, 10.2), the
    Reinforcement Phase (3.1) and the Initiative Phase (3.2).

    Run as a :func:`~engine.core.procedure.chain` of those parts: each depends on nothing but the
    game state the part before left, so the exact odds work out what follows once for each state reached
    (play and replay ask the same questions in the same order, and record the same).

    Marked as the horizon "the end of the turn": every fatigued or routed unit's roll (7.0) doubles the ways
    the turn can end, so an action's odds that would pass their bounds with it stop before it
    (:func:`engine.core.odds.enumerate_odds`) and say so."""
    yield Log("3.3 B", f"end of the Activation Phase of turn {s.turn}: {why}")
    return (yield chain(("tbf-end-phase", ctx.sc.key), s,
                        (partial(_overstack_part, ctx), partial(_recovery_part, ctx),
                         partial(_reinforcement_part, ctx), partial(_initiative_part, ctx)),
                        rule="3.3 B", label="the end of the turn", horizon="the end of the turn"))


def _overstack_part(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """4.1.10 B, each side's overstacked hexes at the end of the Activation Phase (a step of its own: the
    recovery rolls that follow branch many ways, and none of them runs these checks again)."""
    g = s.game
    for side in SIDES:
        g = yield from end_of_activation_overstack(ctx.sc, g, side)
    return replace(s, game=g)


def _recovery_part(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """7.0, then the end of the game (10.1 automatic victory; 3.4 C, 7.0 I, 10.2 after the last turn)."""
    sc = ctx.sc
    g = yield from recovery_phase(sc, s.game)                           # 7.0 (turn + 1)
    s = replace(s, game=g, impulse=None, passes=0, activations=())
    over = automatic_victory(s.game)
    if over is not None:
        return replace(s, result=over, game=dc_replace(g, turn=min(g.turn, sc.file.turns)))
    if g.turn > sc.file.turns:                                            # 3.4 C, 7.0 I, 10.2
        g = dc_replace(g, turn=sc.file.turns)
        v = ctx.victory(s, g)
        winner = None if v["winner"] == "draw" else v["winner"]
        reason = (f"French {v['french_level']}, Coalition {v['coalition_level']}; French losses "
                  f"{battalions_text(v['french_battalions_lost'])} battalions")
        return replace(s, game=g, result=Outcome(winner, v["level"], reason, "10.2"))
    return s


def _reinforcement_part(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """3.1, unless the game is over."""
    if s.result is not None:
        return s
    return (yield from reinforcement_segment(ctx, s))


def _initiative_part(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """3.2, unless the game is over."""
    if s.result is not None:
        return s
    return (yield from initiative_segment(ctx, s))


def initiative_segment(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    sc = ctx.sc
    winner = yield from initiative_phase(sc, s.game)                      # 3.2 A
    first = winner
    if s.turn > 1:
        first = yield Choose((winner, other(winner)), rule="3.2 B", player=winner,
                             label="who performs the first impulse?")
    yield Log("3.2", f"turn {s.turn}: the {winner} has the initiative; the {first} opens")
    return replace(s, to_move=first, passes=0)
