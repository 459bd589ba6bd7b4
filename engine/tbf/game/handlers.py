"""One handler per action kind: what the kind checks (before any die, changing nothing) and what it does (a
rules procedure returning the new state). :func:`check` and :func:`perform` dispatch on :data:`HANDLERS`;
:func:`candidate_blocks` lists what is worth trying in a state, in a fixed order (the protocol keeps the
candidates that pass :func:`check`, so legality has one source). After every action :func:`after` applies
what follows from the new position: the scenario's releases (9.2 H-I, 9.4), Column VI's deployment
(9.2 I), an automatic victory (10.1), Fire and Melee Segments with nothing to do (3.3 B) and the overstacks
combat left (4.1.8 A)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from engine.core.errors import RuleViolation
from engine.core.procedure import Sub, chain

from ..steps import Steps
from .actions import (ACTION_TYPES, RULE_OF, SEGMENT_OF, Activate, ActivateCommand, Attach, EndSegment, Fire, Move,
                      OutOfCommand, Pass, Place, TbfAction)
from .activation import (check_activate, check_activate_command, check_attach, check_out_of_command, do_activate,
                         do_activate_command, do_attach, do_out_of_command)
from .cavalry_charge import charge_candidates, check_charge, do_charge
from .exclusive import releases
from .fire_combat import check_fire, do_fire, fire_candidates
from .leaders import roll_wounds
from .melee_combat import check_end_of_melee, check_melee, do_melee, melee_candidates
from .movement import (FaceBlock, MoveBlock, check_end_of_movement, check_face, check_move, do_face, do_move)
from .phases import do_end, do_pass
from .queries import Queries
from .reinforcement import deploy_column_vi
from .retreat import cavalry_retreat_candidates, check_cavalry_retreat, do_cavalry_retreat
from .setup import check_place, do_place, end_setup, setup_candidates
from .state import GameState, TbfState, fresh_book, replace, to_act
from .types import ACTING, LIVE, Segment, Status
from .victory import automatic_victory

__all__ = ["Handler", "HANDLERS", "check", "perform", "perform_only", "is_legal", "candidate_blocks", "candidates",
           "after"]

_A = TypeVar("_A", bound=TbfAction)


@dataclass(frozen=True)
class Handler(Generic[_A]):
    """How one action kind is played: its rule, the check of its own conditions (the turn, the impulse and
    the segment are checked for every kind by :func:`check`) and its procedure."""

    kind: str
    check: Callable[[Queries, TbfState, _A], None]
    perform: Callable[[Queries, TbfState, _A], Steps[TbfState]]
    fights: bool = False            # fire, melee, charge: a leader hit there rolls his turns out (6.5 A)

    @property
    def rule(self) -> str:
        return RULE_OF[self.kind]


def _no_check(ctx: Queries, s: TbfState, a: TbfAction) -> None:
    return None


def _do_end(ctx: Queries, s: TbfState, a: EndSegment) -> Steps[TbfState]:
    """The end of a set-up (9.1, 9.3 A) or of a segment (3.3 B)."""
    if s.setting_up is not None:
        return (yield from end_setup(ctx, s))
    return (yield from do_end(ctx, s, a))


def _check_end(ctx: Queries, s: TbfState, a: EndSegment) -> None:
    """3.3 B: a segment ends when its side says so, unless an overstack its movers can still resolve keeps
    the Movement Segment open (4.1.10 A) or a charge's melee waits in the Melee Segment (6.2.8 H); a side
    setting up may end its set-up at any time (9.1, 9.3)."""
    if s.setting_up is not None:
        return
    if s.activation.segment == Segment.MOVEMENT:
        check_end_of_movement(ctx, s, a)
    elif s.activation.segment == Segment.MELEE:
        check_end_of_melee(ctx, s)


HANDLERS: dict[str, Handler[Any]] = {h.kind: h for h in (
    Handler("activate", check_activate, do_activate),
    Handler("activate_command", check_activate_command, do_activate_command),
    Handler("pass", _no_check, do_pass),
    Handler("move", check_move, do_move),
    Handler("face", check_face, do_face),
    Handler("charge", check_charge, do_charge, fights=True),
    Handler("out_of_command", check_out_of_command, do_out_of_command),
    Handler("attach", check_attach, do_attach),
    Handler("fire", check_fire, do_fire, fights=True),
    Handler("melee", check_melee, do_melee, fights=True),
    Handler("end", _check_end, _do_end),
    Handler("place", check_place, do_place),
    Handler("cavalry_retreat", check_cavalry_retreat, do_cavalry_retreat),
)}
assert set(HANDLERS) == set(RULE_OF), "every action kind has its handler"


# ------------------------------------------------------------------------------------------------
# Check and perform
# ------------------------------------------------------------------------------------------------
def check(ctx: Queries, s: TbfState, a: object) -> None:
    """Raise :class:`RuleViolation` (naming the rule) if ``a`` may not be played in ``s``; nothing changes."""
    if not isinstance(a, ACTION_TYPES):
        raise RuleViolation("3.0", f"not a TBF action: {type(a).__name__}")
    if s.result is not None:
        raise RuleViolation("10.0", f"the game is over ({s.result})")
    side = to_act(s)
    if a.side != side:
        seg = s.impulse.segment.replace("_", " ") if s.impulse else (
            "its set-up" if s.setting_up is not None else "the start of an impulse")
        raise RuleViolation("3.3 A", f"it is the {side}'s turn to act ({seg}), not the {a.side}'s")
    if s.setting_up is not None and not isinstance(a, (Place, EndSegment)):
        raise RuleViolation("9.1", f"the {side} is setting up: place its pieces (9.1 C-D, 9.3 B) or end its set-up")
    if isinstance(a, Place) or s.setting_up is not None:
        HANDLERS[a.kind].check(ctx, s, a)
        return
    imp = s.impulse
    if isinstance(a, (Activate, ActivateCommand, Pass)):
        if imp is not None:
            raise RuleViolation("3.3 B", f"the {imp.side} impulse of {imp.leader} is under way "
                                         f"({imp.segment.replace('_', ' ')} segment): finish it first")
        HANDLERS[a.kind].check(ctx, s, a)
        return
    if imp is None:
        raise RuleViolation("3.3 A", f"no activation is under way: the {side} activates a leader (6.1) or passes")
    if isinstance(a, EndSegment):
        HANDLERS[a.kind].check(ctx, s, a)
        return
    want = SEGMENT_OF.get(a.kind)
    if isinstance(a, Fire):
        if imp.segment not in (Segment.DEFENSIVE_FIRE, Segment.OFFENSIVE_FIRE):
            raise RuleViolation("3.3 B", f"fire belongs to the Fire Segments; this is the "
                                         f"{imp.segment.replace('_', ' ')} segment")
    elif imp.segment != want:
        raise RuleViolation("3.3 B", f"a {a.kind.replace('_', ' ')} belongs to the {want} segment; this is the "
                                     f"{imp.segment.replace('_', ' ')} segment (segments run in order)")
    HANDLERS[a.kind].check(ctx, s, a)


def is_legal(ctx: Queries, s: TbfState, a: object) -> bool:
    """:func:`check` passes (the answer kept per state and action: a segment's end, the bot and the game
    ask about the same candidates)."""
    memo = ctx.memo(s)
    key = ("legal", a)
    try:
        got = memo.get(key)
    except TypeError:               # an action that is not a value (not hashable): asked afresh
        return _legal(ctx, s, a)
    if got is None:
        got = memo[key] = _legal(ctx, s, a)
    return got


def _legal(ctx: Queries, s: TbfState, a: object) -> bool:
    try:
        check(ctx, s, a)
    except RuleViolation:
        return False
    return True


def perform_only(ctx: Queries, s: TbfState, a: TbfAction) -> Steps[TbfState]:
    """The action's own procedure, without what follows every action (the odds of an action are these)."""
    return (yield from HANDLERS[a.kind].perform(ctx, s, a))


def perform(ctx: Queries, s: TbfState, a: TbfAction) -> Steps[TbfState]:
    """The rules procedure of a checked action: its own procedure, the turns out of a leader wounded in a
    fight (6.5 A), then :func:`after`.

    A fight runs as a :func:`~engine.core.procedure.chain` of its own procedure and what follows it, so
    the exact odds work out what follows once for each position the fight can leave, however many die
    faces leave it (play and replay ask and record the same as the steps written one after another)."""
    before = s.game
    h = HANDLERS[a.kind]
    if not h.fights:
        s = yield from h.perform(ctx, s, a)
        return (yield from after(ctx, s, a, before))
    return (yield chain(("tbf-fight", ctx.sc.key, s, a), s,
                        (partial(_fight, ctx, h, a), partial(_wounds_then_after, ctx, a, before)),
                        rule=h.rule, label=h.kind))


def _fight(ctx: Queries, h: Handler[Any], a: TbfAction, s: TbfState) -> Steps[TbfState]:
    return (yield from h.perform(ctx, s, a))


def _wounds_then_after(ctx: Queries, a: TbfAction, before: GameState, s: TbfState) -> Steps[TbfState]:
    """6.5 A, the turns out of each leader wounded in the fight, then :func:`after`.

    The turns out decide nothing before the leader is due back, two turns on at the soonest (2d6), so
    never within what follows the action (the Reinforcement Phase of the next turn at the latest, where
    6.5 A brings back only leaders already due): :func:`after` is run from the position without the new
    turns out, as a step shared by every roll of the 2d6, and they are added to what it leaves. The
    questions and the record are those of the rolls and then :func:`after` run in place."""
    rolled = yield from roll_wounds(ctx, s)
    fresh = rolled.wounded[len(s.wounded):]
    done = yield Sub(("tbf-after", ctx.sc.key, s, a, before), partial(after, ctx, s, a, before), rule=RULE_OF[a.kind],
                     label="what follows the action", inline=True, own_choices=True)
    return replace(done, wounded=done.wounded + fresh) if fresh else done


def after(ctx: Queries, s: TbfState, a: TbfAction, before: GameState | None = None) -> Steps[TbfState]:
    """What follows from the position an action made (see the module's docstring)."""
    g = releases(ctx.sc, s.game)
    if "light_blue_crossed" in g.flags and s.alert_from is None:
        s = replace(s, alert_from=g.turn + 1)                             # 9.5.2: roll from next turn
    g = yield from deploy_column_vi(ctx, g)
    s = replace(s, game=g)
    over = automatic_victory(s.game)
    if over is not None:
        return replace(s, result=over, impulse=None)
    s = yield from _skip_empty_segments(ctx, s)
    if not isinstance(a, Move):
        s = replace(s, overstack_ok=tuple(ctx.overstacks(s.game, before)))
    else:
        now = ctx.overstacks(s.game, before)
        s = replace(s, overstack_ok=tuple(h for h in s.overstack_ok if h in now))
    return s


def _skip_empty_segments(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """A Fire or Melee Segment in which the side has nothing it could do ends by itself (3.3 B)."""
    while s.result is None and s.impulse is not None and s.impulse.segment != Segment.MOVEMENT:
        side = to_act(s)
        if side is None:            # (nobody acts: only once the game is over)
            break
        if any(not isinstance(c, EndSegment) and is_legal(ctx, s, c) for c in candidates(ctx, s)):
            return s
        s = yield from do_end(ctx, s, EndSegment(side))
    return s


# ------------------------------------------------------------------------------------------------
# Candidates: what is worth trying in a state
# ------------------------------------------------------------------------------------------------
def candidates(ctx: Queries, s: TbfState) -> list:
    """Every candidate action, in a fixed order (the one list: legal actions are those of them that
    pass :func:`check`)."""
    out: list = []
    for item in candidate_blocks(ctx, s):
        if isinstance(item, (MoveBlock, FaceBlock)):
            out += item.actions()
        else:
            out.append(item)
    return out


def candidate_blocks(ctx: Queries, s: TbfState) -> list:
    """The candidates in order, with each unit's moves (one movement search, 6.2) and facings (4.3) kept
    as one block that :func:`candidates` spells out (a bot may weigh a block without spelling it out).
    Made once per state (the end of a segment asks for them, then the bot)."""
    memo = ctx.memo(s)
    got = memo.get("blocks")
    if got is None:
        got = memo["blocks"] = tuple(_candidate_blocks_now(ctx, s))
    return list(got)


def _candidate_blocks_now(ctx: Queries, s: TbfState) -> list:
    side = to_act(s)
    if side is None:
        return []
    sc, g = ctx.sc, s.game
    imp = s.impulse
    out: list = []
    if s.setting_up is not None:
        return [EndSegment(side)] + setup_candidates(ctx, s, side)
    if imp is None:
        out += [Activate(side, l) for l, d in sc.leaders.items() if d.side == side and g.piece(l).hex]
        for cmd in ctx.leaderless(s, side):
            out += [ActivateCommand(side, cmd, u) for u, d in sorted(sc.units.items())
                    if d.command == cmd and g.piece(u).hex and g.piece(u).status in LIVE and not g.piece(u).activated]
        out.append(Pass(side))
        return out
    out.append(EndSegment(side))
    if imp.segment == Segment.MOVEMENT:
        out += _movement_blocks(ctx, s, side)
    elif imp.segment in (Segment.DEFENSIVE_FIRE, Segment.OFFENSIVE_FIRE):
        if imp.segment == Segment.DEFENSIVE_FIRE and "11.8" in s.options and not imp.defensive_fired:
            out += cavalry_retreat_candidates(ctx, s, side)
        out += fire_candidates(ctx, s, side, imp.segment == Segment.DEFENSIVE_FIRE)
    elif imp.segment == Segment.MELEE:
        out += melee_candidates(ctx, s, side)
    return out


def _movement_blocks(ctx: Queries, s: TbfState, side: str) -> list:
    """6.1.3 C checks, 6.1.3 A extra units, then each unit's moves, facings and charges (6.2, 4.3, 6.2.8)."""
    sc, g, imp = ctx.sc, s.game, s.activation
    out: list = []
    for uid in imp.out_of_command:
        if uid not in imp.tried:
            out.append(OutOfCommand(side, uid))
    if imp.extra_left:
        out += [Attach(side, u) for u in imp.extra if u not in imp.units]
    books = {b.unit: b for b in imp.book}          # (as book(): the first entry of a unit)
    if len(books) != len(imp.book):
        books = {}
        for b in imp.book:
            books.setdefault(b.unit, b)
    for uid in imp.units + imp.leaders:
        p = g.piece(uid)
        if p.hex is None or p.status not in ACTING:
            continue
        bk = books.get(uid) or fresh_book(uid)
        if bk.done:
            continue
        out.append(MoveBlock(side, uid, p.hex, ctx, s))
        if uid in sc.units:
            out.append(FaceBlock(side, uid, p.facing))
            if sc.units[uid].kind == "cavalry" and p.status == Status.NORMAL and not bk.charge_tried:
                out += charge_candidates(ctx, s, uid)
    return out
