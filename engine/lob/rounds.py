"""The combat rounds (5.2.1 - 5.2.5) as procedures: the roll with its modifiers and hits, then the
decisions (new leads, retreats, the cavalry replacement) and the next round.

:func:`rounds` is one round's roll as a sub-procedure (:func:`round_roll`), then the decisions and the
repeat as another (:func:`after_round`), which calls :func:`rounds` again through ``Sub(key=<combat
state>)``: play and replay run it so, each round one level deeper in the record than the one before, and
a tree draws it so.

The exact odds of the end positions go round by round instead (:func:`combat_rounds`, a :class:`Stepwise`
request): :func:`one_round` from each fight reached, with the units that left it so far, equal ones carried
on once (5.2.5), and the combat dice keyed by what decides their hits (5.2.1: the leads' kinds and the
modifiers, not their ids). Going back from the end of every fight through each round before it made a 3
against 12 fight in a town ~109,000 enumeration steps; round by round it is ~6,000, with the same fractions
(tests/lob/test_lob_rounds_odds.py).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import replace
from functools import partial
from typing import Any

from engine.core.procedure import Chain, Choose, Log, Procedure, Roll, Sub

from .fight import (ATTACKER, DEFENDER, AfterRoll, CombatContext, Decision, End, Fight, NextRound, by_id,
                    drop_unit, replace_unit)
from .retreats import (attacker_retreat, choose_lead, defender_retreat, finish_attacker_gone, finish_defender_gone,
                       pull_back, retreat_options, retreat_set)
from .steps import Steps
from .units import ART, CAV, INF, Unit

__all__ = ["roll_modifier", "round_hits", "round_roll", "after_round", "rounds", "clear_roll_cache",
           "ROLL_CACHE_STATES", "Stepwise", "combat_rounds", "one_round", "most_rounds"]


def roll_modifier(ctx: CombatContext, f: Fight, role: str) -> int:
    """The modifiers a-h of 5.2.1 (plus the town, river/stream and rain squall ones) for one side's lead."""
    t = ctx.tables.combat
    me, foe = (f.a, f.d) if role == ATTACKER else (f.d, f.a)
    m = me.strength                                                      # 5.2.1 a
    if me.kind == INF and foe.kind == CAV and foe.cav == "light":
        m += t.infantry_vs_light_cavalry                                 # 5.2.1 b
    if me.kind == CAV and me.cav == "heavy" and foe.kind == CAV and foe.cav in ("light", "lancer"):
        m += t.heavy_vs_light_or_lancer                                  # 5.2.1 c
    if me.kind == INF:
        if role == DEFENDER and me.approach == ctx.origin:
            m += t.infantry_on_approach                                  # 5.2.1 d (every roll, defender)
        if role == ATTACKER and f.first and me.approach == ctx.target:
            m += t.infantry_on_approach                                  # 5.2.1 d (first roll, attacker)
    if me.kind == INF and me.square and foe.kind == CAV:
        m += t.square_vs_cavalry                                         # 5.2.1 e
    if me.kind == INF and not me.square and foe.kind == INF and foe.square:
        m += t.infantry_vs_square                                        # 5.2.1 f
    if role == DEFENDER and f.first and ctx.origin_close:
        m += t.attacker_from_close                                       # 5.2.1 g
    if me.kind == INF and foe.kind == CAV and ctx.target_close:
        m += t.infantry_vs_cavalry_in_close                              # 5.2.1 h
    if role == DEFENDER and me.kind == INF and ctx.target_town:
        m += ctx.tables.terrain.town_infantry_defence                    # Albuera terrain 2
    if role == DEFENDER and f.first and ctx.water == "river":
        m += ctx.tables.terrain.river_defence_first_roll                 # Albuera terrain 6, 8
    if role == DEFENDER and f.first and ctx.water == "stream":
        m += ctx.tables.terrain.stream_defence_first_roll                # Albuera terrain 7, 8
    if ctx.rain and me.kind == CAV and foe.kind == INF:
        m += ctx.tables.optional.rain_cavalry_vs_infantry                # scenario option 5
    if f.first:
        mine, theirs = (ctx.att_traits, ctx.dfn_traits) if role == ATTACKER else (ctx.dfn_traits, ctx.att_traits)
        if "inspiring" in mine:
            m += 1                                                       # 7.1.2 inspiring
        if "demoralising" in theirs:
            m += 1                                                       # 7.1.2 demoralising (the enemy's leader)
    return m


def round_hits(ctx: CombatContext, a: Unit, d: Unit, att_total: int, dfn_total: int) -> tuple[int, int, str]:
    """Hits (on the attacking lead, on the defending lead) and the winner, from the modified rolls (5.2.1)."""
    winner = ATTACKER if att_total > dfn_total else DEFENDER           # 5.2.1: the defender wins a draw
    diff = abs(att_total - dfn_total)
    # 5.2.1 NB: in close terrain cavalry count as infantry for the hits
    a_cav = a.kind == CAV and not ctx.target_close
    d_cav = d.kind == CAV and not ctx.target_close
    if not a_cav and not d_cav:                                         # infantry versus infantry
        return (1, 0, winner) if winner == DEFENDER else (0, 1, winner)
    if a_cav and d_cav:                                                 # cavalry versus cavalry
        lose = max(1, diff)
        return (lose, 1, winner) if winner == DEFENDER else (1, lose, winner)
    cav_won = (winner == ATTACKER) == a_cav                             # cavalry versus infantry
    big = ctx.tables.combat.cavalry_loser_hits_when_infantry_wins
    if cav_won:
        inf_hits, cav_hits = max(1, diff), 1
    else:
        inf_hits, cav_hits = 1, big
    return (cav_hits, inf_hits, winner) if a_cav else (inf_hits, cav_hits, winner)


#: leads, and the state after the roll for each (hits on the attacking lead, hits on the defending lead,
#: winner): a roll leads to a handful of those, so each is built once (keys are values)
_ROLL_CACHE: dict = {}
ROLL_CACHE_STATES = 50_000


def _roll_state(ctx: CombatContext, f: Fight) -> tuple:
    key = (ctx, f.key())
    hit = _ROLL_CACHE.get(key)
    if hit is None:
        if len(_ROLL_CACHE) > ROLL_CACHE_STATES:
            _ROLL_CACHE.clear()
        ma, md, a, d = roll_modifier(ctx, f, ATTACKER), roll_modifier(ctx, f, DEFENDER), f.a, f.d
        # 5.2.1 the dice of a round from this fight: played (and drawn in a tree) with their note, which
        # names the leads; their exact odds, keyed by what decides the hits, shared by every fight alike
        dice = Stepwise(("dice", a.uid, a.kind, d.uid, d.kind, ma, md, ctx.target_close, ctx.tables.fingerprint),
                        partial(_roll_dice, ctx, a, d, ma, md), "5.2.1", "combat dice",
                        ("lob dice", a.kind, d.kind, ctx.target_close, ctx.tables.fingerprint), (ma, md),
                        partial(_dice_hits, ctx, a, d), inline=True)
        hit = _ROLL_CACHE[key] = (a, d, dice, {})
    return hit


def _two_dice() -> Steps[tuple[int, int]]:
    """5.2.1: each side rolls a d6 (the attacker's first)."""
    ra = yield Roll("d6", rule="5.2.1", label="attacker combat roll")
    rd = yield Roll("d6", rule="5.2.1", label="defender combat roll")
    return ra, rd


def _roll_dice(ctx: CombatContext, a: Unit, d: Unit, ma: int, md: int) -> Steps[tuple[int, int, str]]:
    """5.2.1: the two dice, the modified totals, and what they do: (hits on the attacking lead, hits on
    the defending lead, winner). Everything it reads is in its key (see :func:`round_roll`): the leads'
    ids and kinds, the two modifiers, close terrain (5.2.1 NB) and the tables."""
    ra, rd = yield from _two_dice()
    ta, td = ra + ma, rd + md
    ha, hd, winner = round_hits(ctx, a, d, ta, td)
    yield Log("5.2.1", f"{a.uid} {ra} -> {ta}, {d.uid} {rd} -> {td}: "
                       f"{winner} wins", {"attacker": [ra, ta], "defender": [rd, td]})
    return (ha, hd, winner)


def _dice_hits(ctx: CombatContext, a: Unit, d: Unit, mods: tuple[int, int]) -> Steps[tuple[int, int, str]]:
    """:func:`_roll_dice` for the exact odds of end positions only (no note): the two dice and what they do
    with the modifiers ``mods`` (attacker's, defender's). It reads the leads' kinds only (:func:`round_hits`;
    the ids are the note's), close terrain and the tables: its key in :func:`round_roll` leaves the ids out,
    so every fight with the same kinds of leads and modifiers shares these dice."""
    ra, rd = yield from _two_dice()
    return round_hits(ctx, a, d, ra + mods[0], rd + mods[1])


def round_roll(ctx: CombatContext, f: Fight) -> Steps[AfterRoll]:
    """5.2.1: both sides roll a d6, add modifiers, the hits are applied. Returns :class:`AfterRoll`.

    The dice are an inline step of their own (the record is the same) keyed by what they read, not by
    the whole fight: fights with the same leads and modifiers share their odds."""
    hits = yield _roll_state(ctx, f)[2]
    return _rolled(ctx, f, hits)


def _rolled(ctx: CombatContext, f: Fight, hits: tuple[int, int, str]) -> AfterRoll:
    """5.2.1: the fight after the roll's ``hits`` (on the attacking lead, on the defending lead, the winner)
    are applied; a lead eliminated (1.2) leaves the fight."""
    a, d, _, outs = _roll_state(ctx, f)
    out = outs.get(hits)
    if out is None:
        ha, hd, winner = hits
        na, nd = a.hit(ha), d.hit(hd)
        gone = tuple(u for u in (na, nd) if u.eliminated)
        att = drop_unit(f.att, a.uid) if na.eliminated else replace_unit(f.att, na)
        dfn = drop_unit(f.dfn, d.uid) if nd.eliminated else replace_unit(f.dfn, nd)
        nf = Fight(att, dfn, None if na.eliminated else a.uid, None if nd.eliminated else d.uid, False, f.entered)
        out = outs[hits] = AfterRoll(nf, by_id(gone), winner, first_round=f.first)
    return out


def clear_roll_cache() -> None:
    """Forget the per-fight roll states (an analysis measures and computes from cold)."""
    _ROLL_CACHE.clear()


def after_round(ctx: CombatContext, ar: AfterRoll) -> Steps[End]:
    """5.2.2 - 5.2.5 after a roll: new leads, attacker then defender retreats, replacement, repeat.

    The decisions are a step of their own (an inline sub-procedure: the record is the same), so that
    the drivers, which continue a procedure from its start for each outcome of its last sub-procedure
    (the next round's many ends), go over a two-step procedure, not over every decision again."""
    nxt = yield _decide(ctx, ar)
    if isinstance(nxt, End):
        return nxt
    end = yield Sub(("rounds", ctx, nxt.fight.key()), partial(rounds, ctx, nxt.fight), rule="5.2.5",
                    label="next combat round")
    return _with_gone(nxt.gone, end)


def _with_gone(gone: tuple[Unit, ...], end: End) -> End:
    """5.2.5: the end of a fight with the units that left it in the rounds before, gathered by id."""
    return End(by_id(gone + end.units), end.winner)


def _decisions(ctx: CombatContext, ar: AfterRoll) -> Steps[End | NextRound]:
    """5.2.2 - 5.2.4 after a roll: new leads, attacker then defender retreats, replacement. Returns the
    :class:`End` when one side is gone, else the :class:`NextRound` round's state (5.2.5)."""
    f, gone = ar.fight, list(ar.gone)
    if not f.combat_units(ATTACKER):
        return finish_attacker_gone(ctx, f, gone)
    if not f.combat_units(DEFENDER):
        return (yield from finish_defender_gone(ctx, f, gone, lead_hit=False))
    # IMPORTANT (5.1.1): a lost lead is replaced at once, attacker first
    if f.att_lead is None:
        f = yield from choose_lead(ctx, f, ATTACKER)
    if f.dfn_lead is None:
        f, lost = yield from choose_lead(ctx, f, DEFENDER)
        gone.extend(lost)
        if f.dfn_lead is None:
            return (yield from finish_defender_gone(ctx, f, gone, lead_hit=False))
    # 5.2.2 attacker retreats: the lead and any others it wants
    others = tuple(u.uid for u in f.combat_units(ATTACKER) if u.uid != f.att_lead)
    opts = retreat_options(ctx.att_traits, others, ar.first_round)
    choice = yield Choose(opts, rule="5.2.2", player=ctx.attacker_side,
                          label="attacker: stay, pull back the lead (with any others), or break off",
                          context=Decision(ATTACKER, "retreat", ctx, f, (ar.winner,)))
    if choice != "stay":
        leaving = retreat_set(choice, f.att_lead, f.att)
        moved = yield from attacker_retreat(ctx, f, leaving)
        gone.extend(moved)
        f = f.after_retreat(ATTACKER, moved)
        left = tuple(u for u in f.att if u.uid not in {m.uid for m in moved})
        if not left:
            a_cav = f.a.kind == CAV
            f = replace(f, att=(), att_lead=None)
            f = yield from pull_back(ctx, f, "5.2.2", a_cav)
            return finish_attacker_gone(ctx, f, gone)
        f = replace(f, att=left, att_lead=None)
        f = yield from choose_lead(ctx, f, ATTACKER)
    # 5.2.3 defender retreats (the lead and any others)
    can_go = bool(f.routes(ctx, DEFENDER))
    if can_go:
        others = tuple(u.uid for u in f.combat_units(DEFENDER) if u.uid != f.dfn_lead)
        opts = retreat_options(ctx.dfn_traits, others, ar.first_round)
        choice = yield Choose(opts, rule="5.2.3", player=ctx.defender_side,
                              label="defender: stay, pull back the lead (with any others), or give up the area",
                              context=Decision(DEFENDER, "retreat", ctx, f, (ar.winner,)))
        if choice == "all":
            moved = yield from defender_retreat(ctx, f, f.dfn, f.dfn_lead, "5.2.3")
            gone.extend(moved)
            f = replace(f, dfn=())
            return (yield from finish_defender_gone(ctx, f, gone, lead_hit=True))
        if choice != "stay":
            # 5.2.3: part of the side goes (as in 5.1.2); the rest hold the area and name a new lead
            leaving = retreat_set(choice, f.dfn_lead, f.dfn)
            moved = yield from defender_retreat(ctx, f, leaving, f.dfn_lead, "5.2.3")
            gone.extend(moved)
            names = {u.uid for u in leaving}
            f = replace(f.after_retreat(DEFENDER, moved), dfn=tuple(u for u in f.dfn if u.uid not in names),
                        dfn_lead=None)
            f, lost = yield from choose_lead(ctx, f, DEFENDER)
            gone.extend(lost)
            if f.dfn_lead is None:
                return (yield from finish_defender_gone(ctx, f, gone, lead_hit=True))
    # 5.2.4 the defender may put a cavalry unit in as lead
    cav = tuple(u.uid for u in f.dfn if u.kind == CAV and u.strength >= 1 and u.uid != f.dfn_lead)
    if cav:
        pick = yield Choose(("keep",) + cav, rule="5.2.4", player=ctx.defender_side,
                            label="defender: keep the lead or replace it with cavalry",
                            context=Decision(DEFENDER, "replace", ctx, f))
        if pick != "keep":
            old = f.d
            if old.approach is not None:
                f = replace(f, dfn=replace_unit(f.dfn, replace(old, approach=None)))  # 5.2.4: off the approach
            f = replace(f, dfn_lead=pick)
    # 5.2.5 both sides still have infantry/cavalry: another round
    return NextRound(f, tuple(gone))


def rounds(ctx: CombatContext, f: Fight) -> Steps[End]:
    """5.2: combat rounds until one side holds the area. Returns :class:`End`."""
    ar = yield _roll(ctx, f)
    end = yield Sub(("after", ctx, ar.key()), partial(after_round, ctx, ar), rule="5.2.2",
                    label="retreats and the next round")
    return end


def _roll(ctx: CombatContext, f: Fight) -> Sub:
    """5.2.1: one round's roll as a sub-procedure, keyed by the fight (shared by :func:`rounds` and
    :func:`one_round`)."""
    return Sub(("roll", ctx, f.key()), partial(round_roll, ctx, f), rule="5.2.1", label="combat roll")


def _decide(ctx: CombatContext, ar: AfterRoll) -> Sub:
    """5.2.2 - 5.2.4: the decisions after a roll, an inline step keyed by the state after the roll (shared by
    :func:`after_round` and :func:`one_round`)."""
    return Sub(("decide", ctx, ar.key()), partial(_decisions, ctx, ar), rule="5.2.2",
               label="retreats and replacement", inline=True)


# ------------------------------------------------------------------------------------------------
# The rounds of one combat for exact odds: round after round over the fights reached (5.2.5)
# ------------------------------------------------------------------------------------------------
def one_round(ctx: CombatContext, at: NextRound | End) -> Steps[NextRound | End]:
    """One round of 5.2 from ``at``: the fight as it goes with the units that left it so far
    (:class:`NextRound`), or the :class:`End` once one side holds the area (then nothing is asked). The
    dice (5.2.1, the request :func:`round_roll` makes, their hits applied as it applies them) and the
    decisions after them (5.2.2 - 5.2.4, the sub-procedure :func:`after_round` asks); 5.2.5: a fight that
    goes on comes back as the :class:`NextRound` of the next round, the units that left it gathered (by id)
    with those that left before, as :func:`after_round` gathers them with the end of the rest."""
    if isinstance(at, End):
        return at
    hits = yield _roll_state(ctx, at.fight)[2]
    ar = _rolled(ctx, at.fight, hits)
    nxt = yield _decide(ctx, ar)
    if isinstance(nxt, End):
        return _with_gone(at.gone, nxt) if at.gone else nxt
    return NextRound(nxt.fight, by_id(at.gone + nxt.gone))


def most_rounds(f: Fight) -> int:
    """An upper bound on the rounds left in ``f``: every round hits at least one lead (5.2.1), a unit still
    in the fight has at most ``rating + 1 - hits`` hits to take before it is eliminated (1.2; artillery
    one), and no unit joins a fight in its rounds (retreats 5.2.2 - 5.2.3 only take units out)."""
    return sum((1 if u.kind == ART else u.rating + 1) - u.hits for u in f.att + f.dfn)


class Stepwise(Chain):
    """A sub-procedure of the combat (``key``, ``proc``, ``inline`` as any :class:`~engine.core.procedure.Sub`)
    whose exact odds of end positions only are worked out as a :func:`~engine.core.procedure.chain` instead:
    ``step`` run ``times`` over from ``start``, each time on the value so far, ``name`` with a value naming
    what the step does from it completely. The step asks what ``proc`` asks, composed so that equal values
    are carried on once (the rounds, :func:`combat_rounds`) or keyed only by what decides the result (the
    combat dice, :func:`round_roll`): the same distribution, fraction for fraction
    (tests/lob/test_lob_rounds_odds.py).

    Play, replay, a built tree and a plan with decisions kept run ``proc``: the requests, the record (each
    event at its depth) and the tree are as they always were. The enumeration of the end positions with
    choices answered by a policy takes the steps."""

    __slots__ = ()

    def __init__(self, key: Hashable, proc: Procedure, rule: str, label: str, name: Hashable, start: Hashable,
                 step: Callable[[Any], Steps[Any]], times: int = 1, inline: bool = False) -> None:
        assert times >= 1, "a Stepwise runs its step at least once"
        super().__init__(name, start, (step,) * times, rule, label)
        # a sub-procedure as the combat always asked it (not a step of the caller's own): its key, its
        # procedure, its depth in the record
        self.key, self.proc, self.inline, self.own_choices = key, proc, inline, False

    def step(self, i: int, value: Hashable) -> Sub:
        """Step ``i`` from ``value`` as a sub-procedure of its own, keyed by ``name`` and the value only: the
        steps are one and the same (each round as the one before, 5.2.5), so a value met at two rounds is
        worked out once (an ended fight, carried through every round left, at once)."""
        return Sub(("stepwise", self.name, value), partial(self.steps[i], value), self.rule, self.label,
                   inline=True, own_choices=True)

    def wrapped(self, wrap: Callable[[Procedure], Procedure]) -> "Stepwise":
        return Stepwise(self.key, wrap(self.proc), self.rule, self.label, self.name, self.start,
                        partial(_wrapped_step, wrap, self.steps[0]), len(self.steps), self.inline)


def _wrapped_step(wrap: Callable[[Procedure], Procedure], step: Callable[[Any], Steps[Any]],
                  value: Any) -> Steps[Any]:
    return wrap(partial(step, value))()


def combat_rounds(ctx: CombatContext, f: Fight, rule: str = "5.2", label: str = "combat rounds") -> Stepwise:
    """The request for the rounds of a combat from the fight ``f`` (5.2 - 5.2.5); its result is the
    :class:`End`. Play, replay and trees run :func:`rounds` (keyed ``("rounds", ctx, fight key)``): each
    round's roll and decisions one level deeper in the record than the round before. The exact odds go
    round by round (:func:`one_round`, at most :func:`most_rounds` of them): each fight reached, with the
    units that left it so far, goes into the next round once, with the chances of every way that reaches
    it, rather than every end of the rest of the fight being carried back through each round before it."""
    return Stepwise(("rounds", ctx, f.key()), partial(rounds, ctx, f), rule, label, ("lob rounds", ctx),
                    NextRound(f, ()), partial(one_round, ctx), most_rounds(f))
