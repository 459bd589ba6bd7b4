"""6.4 Melee Combat on the map: the melee set-up taken from the pieces (adjacency 6.4 B, flanks 6.4 E, terrain
and level shifts, the Strong Point 8.4 B, leaders 6.4 I), every result applied (6.4 D-J, 6.5, 6.7 J) and the
mandatory advance (6.4 J); in the game, the candidates, the check and the melee action of the Melee
Segment (6.4 A, K)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace as dc_replace
from functools import lru_cache, partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Step, Sub, chain

from ..melee import Fighter, MeleeOutcome, MeleeSetup, melee
from ..scenario import Scenario, default_scenario
from ..steps import Steps
from ..tables import MeleeEffect
from .actions import Melee
from .activation import check_actor, may_activate
from .exclusive import factors
from .leaders import leader_loss
from .memo import cached
from .position import acting_side, current_fv, frontal, leader_cvs, leaders_in, occupants, occupied
from .queries import Queries
from .results import apply_effect, choose_advance
from .rout import apply_status, sub_rout
from .state import ChargeMelee, GameState, TbfState, book, replace, with_book
from .types import ACTING, GONE, LIVE, Status, other

__all__ = ["melee_setup", "melee_action", "sub_melee", "charge_melee_setup", "cached_melee_setup", "melee_candidates",
           "check_melee", "do_melee", "charge_melee_of", "charge_melee_possible", "check_end_of_melee"]


def melee_setup(sc: Scenario, st: GameState, attacker_ids: tuple[str, ...], target: str,
                charging: tuple[str, ...] = (), defenders_checked: bool = False) -> MeleeSetup:
    side = acting_side(sc, attacker_ids)
    b, g, t = sc.board, sc.board.grid, sc.tables
    target = b.check_hex(target, "6.4")
    defenders = occupants(sc, st, target, other(side))
    if not defenders:
        raise RuleViolation("6.4 B", f"no enemy unit in {target}")
    atts: list[Fighter] = []
    att_hexes: list[str] = []                   # each attacker's hex, in the attackers' order
    for aid in attacker_ids:
        p = st.piece(aid)
        if p.hex is None or sc.is_leader(aid):
            raise RuleViolation("6.4 B", f"{aid} cannot attack")
        att_hexes.append(p.hex)
        if g.distance(p.hex, target) != 1:
            raise RuleViolation("6.4 B", f"{aid} is not adjacent to {target}")
        u = sc.units[aid]
        flank = all(p.hex not in frontal(sc, st, d) for d in defenders)          # 6.4 E
        atts.append(Fighter(aid, factors(sc, st, aid)[1], current_fv(sc, p), u.kind, p.status, leader_cvs(sc, st, aid),
                            flank, aid in charging, u.ma))
    defs = tuple(Fighter(d.id, factors(sc, st, d.id)[1], current_fv(sc, d), sc.units[d.id].kind, d.status,
                         leader_cvs(sc, st, d.id), checked=defenders_checked) for d in defenders)
    tt = t.terrain.terrain[b.terrain(target)]
    shift = tt.melee_shift
    if any(b.level(target) > b.level(h) for h in att_hexes):
        shift += t.terrain.uphill_melee_shift
    if target == b.data.strong_point and any(d.id == "elite" for d in defenders):
        shift += t.terrain.strong_point_melee_shift
    if b.is_walled(target):
        shift += t.terrain.walled_road_melee_shift
    att_leaders = tuple(sorted({l for h in att_hexes for l in leaders_in(sc, st, h)}))
    return MeleeSetup(tuple(atts), defs, shift=shift, attacker_leaders=att_leaders,
                      defender_leaders=leaders_in(sc, st, target))


def melee_action(sc: Scenario, st: GameState, attacker_ids: tuple[str, ...], target: str,
                 charging: tuple[str, ...] = (), defenders_checked: bool = False, setup: MeleeSetup | None = None
                 ) -> Steps[GameState]:
    """Melee against ``target`` and apply everything (6.4 D-J, 6.5, 6.7 J)."""
    if not charging and setup is None:
        may_activate(sc, st, attacker_ids)
    setup = setup or cached(melee_setup)(sc, st, tuple(attacker_ids), target, tuple(charging), defenders_checked)
    out = yield Sub(("tbf-melee", sc.tables.key, setup), partial(melee, sc.tables, setup), rule="6.4", label="Melee")
    st = yield chain(("tbf-melee-results", sc.key, tuple(attacker_ids), target, out.result, out.attackers,
                      out.defenders), st, melee_results(sc, tuple(attacker_ids), target, out),
                     rule="6.4", label="the melee's results")
    for entry in out.leaders:                                           # 6.4 I
        ldr, _, fate = entry.partition(": ")
        if fate.startswith("killed"):
            where = st.piece(ldr).hex
            st = st.with_piece(ldr, status=Status.KILLED, hex=None)
            if where:
                st = yield from leader_loss(sc, st, ldr, where)         # 6.5 B
        elif fate.startswith("wounded"):
            st = st.with_piece(ldr, status=Status.WOUNDED, hex=None)    # 6.5 A
    if not occupants(sc, st, target):                                 # 6.4 J: mandatory advance
        movers = tuple(a for a in attacker_ids if st.piece(a).hex and st.piece(a).status in LIVE
                       and sc.units[a].kind in ("infantry", "cavalry")
                       and sc.board.grid.distance(st.piece(a).hex, target) == 1)
        if movers:
            st = yield from choose_advance(sc, st, movers, target, must=True)
    return st


def melee_results(sc: Scenario, attacker_ids: tuple[str, ...], target: str, out: MeleeOutcome) -> tuple[Step, ...]:
    """The units' part of the melee's outcome ``out``, as steps from the position before it: the routs and
    surrenders of the checks before the roll (6.4 D, F), the table's result to the defenders, then to the
    attackers (the eliminated one picked by their owner, 6.4 H).

    Steps of a :func:`~engine.core.procedure.chain`, keyed without the leaders' fates (the outcomes that
    differ only in those share it): each routing unit's run (6.7 C-K) and each retreat branch many ways,
    and the exact odds carry each position reached into the next step once (play and replay ask the same
    questions, in the same order, as the steps written one after another)."""
    steps: list[Step] = []
    for name, what in out.attackers:
        if what == "rout":
            steps.append(partial(_routs, sc, name))
    for name, what in out.defenders:
        if what == "surrenders":
            steps.append(partial(_takes_status, sc, name, "surrendered"))
        elif what == "routs":
            steps.append(partial(_routs, sc, name))
        elif what == "fatigued":
            steps.append(partial(_takes_status, sc, name, Status.FATIGUED))
    if out.result in sc.tables.melee.results:
        eff = sc.tables.melee.results[out.result]
        side = acting_side(sc, attacker_ids)
        steps.append(partial(_defenders_hit, sc, attacker_ids, target, other(side), eff))
        steps.append(partial(_attacker_eliminated, sc, attacker_ids, side, eff))
        n = len(attacker_ids)
        steps.extend(partial(_attackers_hit, sc, i, i == n - 1, side, eff) for i in range(n))
    return tuple(steps)


def _routs(sc: Scenario, name: str, st: GameState) -> Steps[GameState]:
    return (yield sub_rout(sc, st, name))                               # 6.7 A, C


def _takes_status(sc: Scenario, name: str, status: str, st: GameState) -> Steps[GameState]:
    if status == Status.FATIGUED:                                       # 6.4 F: fatigued before the roll
        return st.with_piece(name, status=Status.FATIGUED)
    return (yield from apply_status(sc, st, name, status))              # 6.4 D: surrendered


def _defenders_hit(sc: Scenario, attacker_ids: tuple[str, ...], target: str, enemy: str, eff: MeleeEffect,
                   st: GameState) -> Steps[tuple[GameState, tuple[str, ...]]]:
    """6.4 H to the defenders; the attackers' hexes as they stand before it (their part of the result is
    applied there)."""
    att_hexes = tuple(sorted({h for a in attacker_ids if (h := st.piece(a).hex)}))
    st = yield _effect(sc, st, target, enemy, eff.defender_fatigue, eff.defender_retreat, eff.defender_eliminate)
    return st, att_hexes


def _effect(sc: Scenario, st: GameState, hex_: str, side: str, fatigue: bool, retreat_n: int, eliminate: int) -> Sub:
    """6.4 H to one side's units in ``hex_``, as an inline step keyed by what it reads: every melee outcome
    that leaves the same position there (the leaders' fates differ) shares its ways (the same questions and
    record as :func:`apply_effect` run in place)."""
    return Sub(("tbf-melee-effect", sc.key, st, hex_, side, fatigue, retreat_n, eliminate),
               partial(apply_effect, sc, st, hex_, side, fatigue, retreat_n, eliminate, "6.4 H", leader_checks=False),
               rule="6.4 H", label="the melee's result", inline=True, own_choices=True)


def _attacker_eliminated(sc: Scenario, attacker_ids: tuple[str, ...], side: str, eff: MeleeEffect,
                         value: tuple[GameState, tuple[str, ...]]) -> Steps[tuple[GameState, tuple[str, ...]]]:
    """6.4 H: an attacker's elimination takes one unit of the whole attack, picked by its owner."""
    st, att_hexes = value
    live = [a for a in attacker_ids if st.piece(a).hex and st.piece(a).status in LIVE]
    for _ in range(min(eff.attacker_eliminate, len(live))):
        pick = yield Choose(tuple(live), rule="6.4 H", player=side, label="which attacking unit is eliminated?")
        live.remove(pick)
        st = st.with_piece(pick, status=Status.ELIMINATED, hex=None)
    return st, att_hexes


def _attackers_hit(sc: Scenario, i: int, last: bool, side: str, eff: MeleeEffect,
                   value: tuple[GameState, tuple[str, ...]]
                   ) -> Steps[tuple[GameState, tuple[str, ...]] | GameState]:
    """6.4 H to the attackers in the ``i``-th of their hexes (in the hexes' order); the ``last`` step gives
    the position alone."""
    st, att_hexes = value
    if i < len(att_hexes):
        st = yield _effect(sc, st, att_hexes[i], side, eff.attacker_fatigue, eff.attacker_retreat, 0)
    return st if last else (st, att_hexes)


def sub_melee(sc: Scenario, st: GameState, attackers: tuple[str, ...], target: str, charging: Iterable[str] = (),
              defenders_checked: bool = False, setup: MeleeSetup | None = None) -> Sub:
    return Sub(("tbf-melee-action", sc.key, st, attackers, target, tuple(charging), defenders_checked, setup),
               partial(melee_action, sc, st, attackers, target, tuple(charging), defenders_checked, setup),
               rule="6.4", label="melee")



def charge_melee_setup(sc: Scenario, st: GameState, unit_id: str, target: str, mode: str = "charge") -> MeleeSetup:
    """The melee a charge ends in: the charger attacks without the Attacker to Perform Melee check (6.4 D),
    its MF multiplied by the charge (``"charge"``) or not (``"counter"``, ``"reaction"``: 6.2.9 B, 6.2.10 C);
    the defenders already checked (6.4 F)."""
    base = cached(melee_setup)(sc, st, (unit_id,), target, (unit_id,), True)
    return base if mode == "charge" else dc_replace(base, no_doubling=True)


@lru_cache(maxsize=4096)
def cached_melee_setup(game: GameState, units: tuple[str, ...], target: str, sc: Scenario | None = None) -> MeleeSetup:
    """The melee set-up of the Dürenstein game (``sc``: with a game's own tables), through
    :func:`melee_action`'s own memo (as it asks it)."""
    return cached(melee_setup)(sc or default_scenario(), game, units, target, (), False)


# ------------------------------------------------------------------------------------------------
# In the game: the Melee Segment (6.4)
# ------------------------------------------------------------------------------------------------
def charge_melee_possible(ctx: Queries, s: TbfState, cm: ChargeMelee) -> bool:
    """Whether a charge's melee can still be fought (6.2.8 H): the charger on the map, not fatigued or worse
    (a charger fatigued by defensive fire ends its charge and cannot melee, 6.2.8 K), next to its target,
    which still holds enemy units."""
    sc, g = ctx.sc, s.game
    p = g.piece(cm.charger)
    return (p.hex is not None and p.status == Status.NORMAL and sc.board.grid.distance(p.hex, cm.target) == 1
            and bool(occupants(sc, g, cm.target, other(sc.side(cm.charger)))))


def charge_melee_of(ctx: Queries, s: TbfState, a: Melee) -> ChargeMelee | None:
    """The pending charge melee that ``a`` fights (its charger alone, at its target), if any."""
    for cm in s.activation.charge_melees:
        if tuple(a.units) == (cm.charger,) and a.target == cm.target:
            return cm
    return None


def check_end_of_melee(ctx: Queries, s: TbfState) -> None:
    """6.2.8 E, H: a charge that reached a target that stood ends in a melee: the Melee Segment may not end
    before it is fought (unless it can no longer be, 6.2.8 K)."""
    for cm in s.activation.charge_melees:
        if charge_melee_possible(ctx, s, cm):
            raise RuleViolation("6.2.8 H", f"{cm.charger} charged {cm.target}: its melee must be fought before the "
                                           "Melee Segment ends")


def melee_candidates(ctx: Queries, s: TbfState, side: str) -> list[Melee]:
    sc, g = ctx.sc, s.game
    grid = sc.board.grid
    imp = s.activation
    out = [Melee(side, (cm.charger,), cm.target) for cm in imp.charge_melees if charge_melee_possible(ctx, s, cm)]
    ready = [u for u in imp.units if g.piece(u).hex and g.piece(u).status in ACTING
             and not book(imp, u).meleed and not book(imp, u).charged]
    targets = occupied(sc, g, side)[0]            # the hexes of live enemy units
    by_target: dict[str, list[str]] = {}               # each target's adjacent attackers, in ready's order
    for u in ready:
        for t in grid.neighbours(g.piece(u).hex):
            if t in targets:
                by_target.setdefault(t, []).append(u)
    for t in sorted(by_target):
        ids = by_target[t]
        for u in ids:
            out.append(Melee(side, (u,), t))
        for kinds in (("infantry", "artillery"), ("cavalry",)):
            grp = tuple(sorted(u for u in ids if sc.units[u].kind in kinds))
            if len(grp) > 1:
                out.append(Melee(side, grp, t))
    return out


def check_melee(ctx: Queries, s: TbfState, a: Melee) -> None:
    sc, g, imp = ctx.sc, s.game, s.activation
    if not a.units or len(set(a.units)) != len(a.units):
        raise RuleViolation("6.4 B", "name each attacking unit once")
    target = sc.board.check_hex(a.target, "6.4")
    cm = charge_melee_of(ctx, s, a)
    if cm is not None:
        if not charge_melee_possible(ctx, s, cm):
            raise RuleViolation("6.2.8 K", f"{cm.charger} can no longer melee {cm.target} (fatigued by defensive "
                                           "fire, moved off or the hex is empty)")
        cached_melee_setup(g, tuple(a.units), target, sc)
        return
    kinds: set[str] = set()
    for uid in a.units:
        check_actor(ctx, s, uid, "melee")
        p = g.piece(uid)
        if p.hex is None or p.status in GONE:
            raise RuleViolation("6.4 B", f"{uid} is not on the map")
        if p.status == Status.ROUTED:
            raise RuleViolation("6.7 F", f"{uid} is routed and cannot attack")
        bk = book(imp, uid)
        if bk.meleed:
            raise RuleViolation("6.4 K", f"{uid} has already made a melee attack this impulse")
        if bk.charged:
            raise RuleViolation("6.2.8 H", f"{uid} charged this impulse: its melee was the charge's")
        kinds.add("cavalry" if sc.units[uid].kind == "cavalry" else "foot")
        if uid in s.rear_guard and not ctx.in_rear_rows(target):
            raise RuleViolation("9.2 G", f"{uid} is in the Rear Guard: it may not attack outside rows XX01-XX06")
    if len(kinds) > 1:
        raise RuleViolation("6.4 C", "cavalry and infantry may not melee the same hex together")
    cached_melee_setup(g, tuple(a.units), target, sc)


def do_melee(ctx: Queries, s: TbfState, a: Melee) -> Steps[TbfState]:
    cm = charge_melee_of(ctx, s, a)
    if cm is None:
        g = yield from melee_action(ctx.sc, s.game, tuple(a.units), a.target)
    else:                                   # the charge's melee (6.2.8 H, 6.2.9 B, 6.2.10 D)
        setup = charge_melee_setup(ctx.sc, s.game, cm.charger, cm.target, cm.mode)
        g = yield from melee_action(ctx.sc, s.game, (cm.charger,), cm.target, (cm.charger,), True, setup)
    imp = s.activation
    if cm is not None:
        imp = replace(imp, charge_melees=tuple(x for x in imp.charge_melees if x != cm))
    for u in a.units:
        imp = with_book(imp, replace(book(imp, u), meleed=True))
    return replace(s, game=g, impulse=imp)
