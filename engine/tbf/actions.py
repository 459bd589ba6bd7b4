"""Actions on a game state: fire (6.3), melee (6.4) and charges (6.2.8) taken from the pieces on the map,
their results applied (fatigue, rout, retreat, elimination, advance, leader casualties, Charged
markers). Each action is a procedure whose result is the new :class:`GameState` (the old one is never
changed), so it can be played, replayed or enumerated like any other."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache, partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Sub

from .board import frontal_hexes
from .charge import ChargeSetup, Reactor, Target, charge as charge_proc_fn, _validate as _charge_validate
from .charge import frontal_directions
from .fatigue import CheckSpec, check_sub
from .fire import Firer, FireSetup, fire_combat, leader_casualty_sub
from .melee import Fighter, MeleeSetup, melee
from .rules import (LIVE, current_fv, current_ma, enemy_front, factors, frontal, leader_cvs, occupants, reachable,
                    retreat, rout_path, stacking_problem, _occupied)
from .scenario import GameState, Scenario

__all__ = ["fire_setup", "fire_action", "melee_setup", "melee_action", "charge_setup", "charge_action",
           "move_action", "leader_fire_retreat", "cavalry_retreat_action", "reaction_wedge", "counter_charge_meeting", "out_of_command_check", "reinforcement_phase", "recovery_phase",
           "apply_status", "rout_unit", "overstack_checks", "end_of_activation_overstack", "activate",
           "initiative_phase"]


_CACHES: dict = {}


def _cached(fn):
    """Memoise a pure function of (scenario, state, ...): the enumerate driver re-runs a procedure from
    its start for every branch, so set-ups and rout paths are computed once per state, not per branch."""
    c = _CACHES.get(fn)
    if c is None:
        c = _CACHES[fn] = lru_cache(maxsize=4096)(fn)
    return c


def _may_activate(sc: Scenario, st: GameState, ids) -> None:
    """The scenario's activation limits (9.1 E, 9.2, 9.4) for units acting in their own impulse."""
    from .rules import activation_allowed
    for i in ids:
        if i.startswith("gb:") or i in sc.leaders:
            continue
        ok, why = activation_allowed(sc, st, i)
        if not ok:
            raise RuleViolation(why.split(":")[0], f"{i} may not act yet ({why})")


def _side(sc: Scenario, ids) -> str:
    sides = {"coalition" if i.startswith("gb:") else sc.side(i) for i in ids}
    if len(sides) != 1:
        raise RuleViolation("6.3.7 A", "all acting units must belong to one side")
    return sides.pop()


def _occupy(sc: Scenario, st: GameState, hex_: str, side: str) -> GameState:
    """Entering a town hex gives its control to the side, unless the enemy still holds another of its hexes
    (control = friendly-occupied or last to occupy, 6.6 A)."""
    town = sc.board.town_of.get(hex_)
    if town is None or st.controller(town) == side:
        return st
    enemy = "coalition" if side == "french" else "french"
    if any(occupants(sc, st, h, enemy) for h in sc.board.data.towns[town]):
        return st
    return replace(st, control=tuple(sorted((t, side if t == town else o) for t, o in st.control)))


def _leaders_in(sc: Scenario, st: GameState, hex_: str) -> tuple[str, ...]:
    return tuple(p.id for p in st.in_hex(hex_) if p.id in sc.leaders and p.status == "normal")


# ---------------------------------------------------------------------------------------------------
# status changes
# ---------------------------------------------------------------------------------------------------
def rout_unit(sc: Scenario, st: GameState, uid: str):
    """A unit that has just routed moves at once (6.7 C-H). Friends in the hexes it enters check (6.7 K);
    any of them routed by that check runs at once too (6.7 C), after the first router has finished its
    move and in the order their hexes were entered; then any overstack left where the router stopped is
    checked (6.7 K: that check comes after the 6.7 K checks, and only if still needed; 4.1.9).
    A procedure returning the new state."""
    _, _, checks = _cached(_rout_start)(sc, st, uid)
    outs = ()
    if checks:
        outs = yield Sub(("tbf-6.7K", sc.tables.key, checks), partial(_checks_in_turn, sc.tables, checks, "6.7 K"),
                         rule="6.7 K", label="checks of the units the router runs through")
    st, newly_routed, end = _cached(_rout_moved)(sc, st, uid, tuple(outs))
    for other, where in newly_routed:                                   # 6.7 K failure, 6.7 A: rout now
        if st.piece(other).hex == where and st.piece(other).status == "routed":
            st = yield _sub_rout(sc, st, other)
    if end is not None and st.piece(uid).hex == end:
        st = yield from overstack_checks(sc, st, end)
    return st


def _rout_moved(sc: Scenario, st: GameState, uid: str, outs: tuple):
    """The position once a fresh router has run (6.7 C-H) and the friends it ran through took their checks
    with statuses ``outs`` (6.7 K): (the position, the friends those checks routed with their hexes, in
    the order entered, the router's last hex or None). A pure function of its arguments (memoised: exact
    odds replay a procedure from its start for every branch)."""
    st, path, checks = _cached(_rout_start)(sc, st, uid)
    newly_routed = []
    for spec, status in zip(checks, outs):
        if status == spec.status:
            continue
        if status == "surrendered":
            st = st.with_piece(spec.unit, status="surrendered", hex=None)
            continue
        st = st.with_piece(spec.unit, status=status)
        if status == "routed":
            newly_routed.append((spec.unit, st.piece(spec.unit).hex))   # runs at once, in rout_unit (6.7 C)
    if path.fate in ("eliminated", "exited"):
        st = st.with_piece(uid, status="eliminated", hex=None)          # 6.7 D, 6.7 H
        end = None
    else:
        end = path.path[-1]
        st = st.with_piece(uid, hex=end)
    return st, tuple(newly_routed), end


def _rout_start(sc: Scenario, st: GameState, uid: str):
    """What a fresh router's move starts from (6.7 C, 6.7 K): the state with it routed, its rout path and
    the checks of the friends it runs through. A pure function of its arguments (memoised: exact odds
    replay a procedure from its start for every branch)."""
    st = st.with_piece(uid, status="routed")
    path = _cached(rout_path)(sc, st, uid, True)
    checks = tuple(CheckSpec("hex_entered_by_router", current_fv(sc, q), q.status, leader_cvs(sc, st, q.id), unit=q.id)
                   for h in path.entered_friends for q in occupants(sc, st, h, sc.side(uid))
                   if q.id != uid and _takes_check(sc.tables, "hex_entered_by_router", q.status))
    return st, path, checks


def _takes_check(tables, check: str, status: str) -> bool:
    """Whether a unit in this status has anything at stake in the check: its status may take it and
    passing or failing may change it (per the tables file). A routed unit on the shipped Overstack or
    Hex Entered rows has nothing at stake, so no die is rolled for it; a player's table may differ."""
    from .fatigue import apply_effect
    cd = tables.check(check)
    if status not in cd.allowed:
        return False
    return any(apply_effect(status, eff.get(status)) != status for eff in (cd.passed, cd.failed))


def _checks_in_turn(tables, specs, rule):
    """Several units' checks one after the other; returns their statuses (memoised as one step)."""
    out = []
    for spec in specs:
        o = yield check_sub(tables, spec, rule=rule)
        out.append(o.status)
    return tuple(out)


def overstack_checks(sc: Scenario, st: GameState, hex_: str, rule: str = "4.1.9", side: str | None = None):
    """4.1.9: every unit of an overstacked hex checks at once (failing: fatigued, or routed if already
    fatigued, 6.7 A). All the stack checks first; then units routed by a check run at once (6.7 C).
    ``rule`` is 4.1.10 B for the check at the end of the Activation Phase. A procedure."""
    if stacking_problem(sc, st, hex_) is None:
        return st
    routed = []
    for q in occupants(sc, st, hex_, side):
        if not _takes_check(sc.tables, "overstack", q.status):
            continue
        out = yield check_sub(sc.tables, CheckSpec("overstack", current_fv(sc, q), q.status,
                                                   leader_cvs(sc, st, q.id), unit=q.id), rule=rule)
        if out.status == "routed":
            routed.append(q.id)
        elif out.status != q.status:
            st = yield from apply_status(sc, st, q.id, out.status)
    for uid in routed:
        if st.piece(uid).hex is not None and st.piece(uid).status != "routed":
            st = yield _sub_rout(sc, st, uid)
    return st


def end_of_activation_overstack(sc: Scenario, st: GameState, side: str):
    """4.1.10 B: at the end of a side's Activation Phase, every unit of that side still in an overstacked
    hex takes an Overstack check (each turn it stays overstacked). A procedure returning the new state."""
    if side not in ("french", "coalition"):
        raise RuleViolation("4.1.10 B", f"side must be french or coalition, not {side!r}")
    hexes = sorted({p.hex for p in st.on_map() if not sc.is_leader(p.id) and sc.side(p.id) == side
                    and p.status in LIVE})
    for h in hexes:
        problem = stacking_problem(sc, st, h)
        if problem is not None:
            yield Log("4.1.10 B", f"{h} is still overstacked at the end of the {side} Activation Phase ({problem})")
            st = yield from overstack_checks(sc, st, h, rule="4.1.10 B", side=side)
    return st


def apply_status(sc: Scenario, st: GameState, uid: str, status: str):
    """Set a unit's status after a check; routing units run (6.7 C), surrendered ones leave the game.
    A procedure returning the new state."""
    p = st.piece(uid)
    if status == p.status:
        return st
    if status == "surrendered":
        return st.with_piece(uid, status="surrendered", hex=None)
    if status == "routed":
        return (yield _sub_rout(sc, st, uid))
    return st.with_piece(uid, status=status)


def _apply_effect(sc: Scenario, st: GameState, hex_: str, side: str, fatigue: bool, retreat_n: int,
                  eliminate: int, rule: str, leader_checks: bool = True):
    """Apply one side's part of a combat result to the units of ``side`` in ``hex_`` (a procedure)."""
    units = [p.id for p in occupants(sc, st, hex_, side)]
    eliminated = []
    for _ in range(min(eliminate, len(units))):
        pick = yield Choose(tuple(units), rule=rule, player=side, label="which unit is eliminated?")
        units.remove(pick)
        eliminated.append(pick)
        st = st.with_piece(pick, status="eliminated", hex=None)
    if eliminated and leader_checks:                                # melee leaders check once, 6.4 I
        for ldr in _leaders_in(sc, st, hex_):                       # 6.3.9, 6.5 A
            # the 2d6 turns out of a wound (6.5 A) are rolled by the game when it applies the wound
            fate = yield leader_casualty_sub(ldr, roll_turns=False)
            st = _leader_fate(sc, st, ldr, fate)
            if fate.fate == "killed":
                st = yield from _leader_loss(sc, st, ldr, hex_)     # 6.5 B
    if fatigue:
        for uid in list(units):
            p = st.piece(uid)
            if p.status == "normal":
                st = st.with_piece(uid, status="fatigued")
            elif p.status == "fatigued":                            # a fatigued unit hit again routs (6.7 A)
                st = yield _sub_rout(sc, st, uid)
                units.remove(uid)
    stay = [u for u in units if st.piece(u).hex == hex_ and st.piece(u).status in LIVE]
    here = hex_
    for _ in range(retreat_n):
        if not stay:
            break
        out = yield Sub(("tbf-retreat", sc.key, st, tuple(stay), here), partial(retreat, sc, st, tuple(stay), here),
                        rule="6.6", label="retreat")
        for uid, status in out.units:
            st = yield from apply_status(sc, st, uid, status)
        if out.hex is None:
            break
        for uid in stay:
            if st.piece(uid).hex == here and st.piece(uid).status in LIVE:
                st = st.with_piece(uid, hex=out.hex)
                for ldr in _leaders_in(sc, st, here):               # 6.5 D: leaders go along
                    st = st.with_piece(ldr, hex=out.hex)
        stay = [u for u in stay if st.piece(u).hex == out.hex and st.piece(u).status in LIVE]
        here = out.hex
    return st


def _leader_fate(sc: Scenario, st: GameState, ldr: str, fate) -> GameState:
    if fate.fate == "killed":
        return st.with_piece(ldr, status="killed", hex=None)
    if fate.fate == "wounded":
        return st.with_piece(ldr, status="wounded", hex=None)
    return st


def _leader_loss(sc: Scenario, st: GameState, ldr: str, where: str, rule: str = "6.5 B"):
    """6.5 B: a killed leader's subordinates in or next to his hex check for leader loss (6.5 C: the
    same check for a captured leader's subordinates next to him)."""
    g = sc.board.grid
    for pid in [q.id for q in st.on_map()]:
        p = st.piece(pid)              # as it is now: an earlier unit's rout may have changed it (6.7 K)
        if p.hex is None or sc.is_leader(p.id) or p.status not in LIVE or sc.side(p.id) != sc.side(ldr):
            continue
        if ldr in sc.chain_of_command(p.id) and g.distance(p.hex, where) <= 1:
            out = yield check_sub(sc.tables, CheckSpec("leader_loss", current_fv(sc, p), p.status,
                                                       leader_cvs(sc, st, p.id), unit=p.id), rule=rule)
            st = yield from apply_status(sc, st, p.id, out.status)
    return st


# ---------------------------------------------------------------------------------------------------
# 6.3 Fire
# ---------------------------------------------------------------------------------------------------
def fire_setup(sc: Scenario, st: GameState, firer_ids: tuple[str, ...], target: str, defensive: bool = False,
               cavalry_fire: bool = False, moved: tuple[str, ...] = (), short_ammo: tuple[str, ...] = ()) -> FireSetup:
    """The FireSetup for firing units on the map (checks 4.3, 4.4, 6.3.2-6.3.6, 8.1, TEC DRMs). Optional
    rules: ``cavalry_fire`` (11.1 A-B) with ``moved`` the cavalry that moved this segment (11.1 C);
    ``short_ammo`` the infantry whose FF is halved by the ammunition roll (11.2 B, rounded down)."""
    if not firer_ids:
        raise RuleViolation("6.3.7 A", "no unit is firing")
    side = _side(sc, firer_ids)
    b, g, t = sc.board, sc.board.grid, sc.tables
    target = b.check_hex(target, "6.3")
    enemies = occupants(sc, st, target, "coalition" if side == "french" else "french")
    if not enemies:
        raise RuleViolation("6.3", f"no enemy unit in {target}")
    enemy_hexes = _occupied(sc, st, side)[0]                  # hexes of live enemy units (kept per position)
    firers = []
    for fid in firer_ids:
        if fid.startswith("gb:"):
            firers.append(_grand_battery_firer(sc, st, fid, target, enemy_hexes))
            continue
        p = st.piece(fid)
        if p.hex is not None and sc.is_leader(fid):
            if not defensive or occupants(sc, st, p.hex, side) or g.distance(p.hex, target) != 1:
                raise RuleViolation("6.3.5", f"{fid} may fire only defensively, alone in his hex, at an adjacent hex")
            firers.append(Firer(1, "leader", 1, "normal", False, True, fid))
            continue
        if p.hex is None:
            raise RuleViolation("6.3", f"{fid} is not on the map")
        u = sc.units[fid]
        d = g.distance(p.hex, target)
        kind = "howitzer" if u.howitzer else u.kind
        if d == 1:
            if target not in frontal(sc, st, p) and not (p.status == "fatigued" and defensive):
                raise RuleViolation("6.3.2 A", f"{fid} does not face {target}")
        else:
            if u.kind != "artillery":
                raise RuleViolation("6.3.3", f"{fid} is {d} hexes away; only artillery fires beyond adjacent hexes")
            if target not in _arc(g, p.hex, p.facing, d):
                raise RuleViolation("6.3.2 A", f"{target} is not in the front of {fid}")
            los = b.los(p.hex, target, t, viewer=kind, enemy=enemy_hexes - {target})
            if not los.clear:
                raise RuleViolation("6.3.4 A", f"{fid} has no line of sight to {target} (blocked at {los.blocked_by})")
        ff = u.ff_red if u.kind == "cavalry" else factors(sc, st, fid)[0]          # 11.1 B, 8.3 A
        if fid in short_ammo and u.kind == "infantry":
            ff = ff // 2                                                            # 11.2 B
        firers.append(Firer(ff, kind, d, p.status, fid in moved, True, fid))
    tt = t.terrain.terrain[b.terrain(target)]
    drm = tt.fire_drm
    if any(b.level(target) > b.level(f[3:] if f.startswith("gb:") else st.piece(f).hex) for f in firer_ids
           if f.startswith("gb:") or f in sc.units):
        drm += t.terrain.uphill_fire_drm
    if target == b.data.strong_point and any(p.id == "elite" for p in enemies):
        drm += t.terrain.strong_point_fire_drm                      # 8.4 B, TEC
    mods = ("target_stacked",) if len(enemies) >= 2 and "target_stacked" in t.fire.drms else ()
    if any(f.kind == "artillery" and f.range == 1 for f in firers) and "point_blank_artillery" in t.fire.drms:
        mods += ("point_blank_artillery",)                          # 6.3.6
    return FireSetup(tuple(firers), defensive=defensive, night=st.turn >= sc.file.night_from, terrain_drm=drm,
                     modifiers=mods, cavalry_fire=cavalry_fire)


def _grand_battery_firer(sc: Scenario, st: GameState, fid: str, target: str, enemy_hexes) -> Firer:
    """8.2 C: a Grand Battery hex fires at FF 20 out of each hexside that has a gun (artillery range and LOS)."""
    b, g = sc.board, sc.board.grid
    h = fid[3:]
    guns = b.data.grand_battery.get(h)
    if guns is None:
        raise RuleViolation("8.2 A", f"{h} is not a Grand Battery hex (they are {', '.join(b.data.grand_battery)})")
    d = g.distance(h, target)
    if not 1 <= d <= 4:
        raise RuleViolation("6.3.3", f"the Grand Battery in {h} reaches 4 hexes, not {d}")
    names = [n.upper() for n in g.direction_names]
    dirs = {names.index(x.upper()) for x in guns}
    line = g.line(h, target)
    if g.direction(h, line[1]) not in dirs:
        raise RuleViolation("8.2 C", f"no gun of the Grand Battery in {h} points toward {target}")
    if d > 1 and not b.los(h, target, sc.tables, viewer="artillery", enemy=enemy_hexes - {target}).clear:
        raise RuleViolation("6.3.4 A", f"the Grand Battery in {h} has no line of sight to {target}")
    return Firer(0, "grand_battery", d, "normal", False, True, fid)


@lru_cache(maxsize=8192)
def _arc(g, hex_: str, facing: int, dist: int) -> frozenset[str]:
    """Hexes at ``dist`` inside the 120-degree wedge in front of a unit (its frontal arc extended); pure
    geometry, memoised (the grid is a value)."""
    out = set()
    dirs = frontal_directions(facing)
    for h in g.ring(hex_, dist):
        line = g.line(hex_, h)
        if len(line) > 1 and g.direction(hex_, line[1]) in dirs:
            out.add(h)
    return frozenset(out)


def fire_action(sc: Scenario, st: GameState, firer_ids: tuple[str, ...], target: str, defensive: bool = False,
                cavalry_fire: bool = False, moved: tuple[str, ...] = (), short_ammo: tuple[str, ...] = ()):
    """Fire at ``target`` and apply the result (6.3.7 F), advance into a vacated hex (6.3.8)."""
    setup = _cached(fire_setup)(sc, st, tuple(firer_ids), target, defensive, cavalry_fire, tuple(moved),
                                tuple(short_ammo))
    if not defensive:
        _may_activate(sc, st, firer_ids)
    side = _side(sc, firer_ids)
    enemy = "coalition" if side == "french" else "french"
    out = yield Sub(("tbf-fire", sc.tables.key, setup), partial(fire_combat, sc.tables, setup), rule="6.3.7",
                    label="Fire Combat")
    eff = sc.tables.fire.results[out.result]
    st = yield from _apply_effect(sc, st, target, enemy, eff.fatigue, eff.retreat, eff.eliminate, "6.3.7 F")
    for fid in firer_ids:
        if fid in sc.leaders:
            st = leader_fire_retreat(sc, st, fid)                         # 6.3.5
        elif not fid.startswith("gb:"):
            st = st.with_piece(fid, activated=st.piece(fid).activated or not defensive)
    if not defensive and not occupants(sc, st, target):
        movers = tuple(f for f in firer_ids if f in sc.units and sc.units[f].kind != "artillery"
                       and sc.board.grid.distance(st.piece(f).hex, target) == 1)
        if movers:
            go = yield Choose(("advance", "stay"), rule="6.3.8", player=side, label=f"advance into {target}?")
            if go == "advance":
                st = yield from _advance(sc, st, movers, target)
    return st


def _advance(sc: Scenario, st: GameState, movers: tuple[str, ...], target: str):
    """Advance after combat (6.3.8, 6.4 J) up to the stacking limits; a lone enemy leader in the hex is
    captured and his subordinates next to him check for leader loss (6.5 C). A procedure."""
    for m in movers:
        trial = st.with_piece(m, hex=target)
        if stacking_problem(sc, trial, target) is None:
            st = _occupy(sc, trial, target, sc.side(m))
            st = yield from _capture_leaders(sc, st, target, sc.side(m))
    return st


def _capture_leaders(sc: Scenario, st: GameState, hex_: str, side: str):
    """6.5 C: enemy leaders left in a hex that ``side`` enters are captured; each one's subordinate units
    next to the hex take a Leader Loss check (6.5 C, applied as 6.5 B). A procedure."""
    for ldr in _leaders_in(sc, st, hex_):
        if sc.side(ldr) != side:
            st = st.with_piece(ldr, status="captured", hex=None)
            yield Log("6.5 C", f"{ldr} is captured in {hex_}")
            st = yield from _leader_loss(sc, st, ldr, hex_, rule="6.5 C")
    return st


# ---------------------------------------------------------------------------------------------------
# 6.4 Melee
# ---------------------------------------------------------------------------------------------------
def melee_setup(sc: Scenario, st: GameState, attacker_ids: tuple[str, ...], target: str,
                charging: tuple[str, ...] = (), defenders_checked: bool = False) -> MeleeSetup:
    side = _side(sc, attacker_ids)
    b, g, t = sc.board, sc.board.grid, sc.tables
    target = b.check_hex(target, "6.4")
    defenders = occupants(sc, st, target, "coalition" if side == "french" else "french")
    if not defenders:
        raise RuleViolation("6.4 B", f"no enemy unit in {target}")
    atts = []
    for aid in attacker_ids:
        p = st.piece(aid)
        if p.hex is None or sc.is_leader(aid):
            raise RuleViolation("6.4 B", f"{aid} cannot attack")
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
    if any(b.level(target) > b.level(st.piece(a).hex) for a in attacker_ids):
        shift += t.terrain.uphill_melee_shift
    if target == b.data.strong_point and any(d.id == "elite" for d in defenders):
        shift += t.terrain.strong_point_melee_shift
    if b.is_walled(target):
        shift += t.terrain.walled_road_melee_shift
    att_leaders = tuple(sorted({l for a in attacker_ids for l in _leaders_in(sc, st, st.piece(a).hex)}))
    return MeleeSetup(tuple(atts), defs, shift=shift, attacker_leaders=att_leaders,
                      defender_leaders=_leaders_in(sc, st, target))


def melee_action(sc: Scenario, st: GameState, attacker_ids: tuple[str, ...], target: str,
                 charging: tuple[str, ...] = (), defenders_checked: bool = False, setup: MeleeSetup | None = None):
    """Melee against ``target`` and apply everything (6.4 D-J, 6.5, 6.7 J)."""
    if not charging and setup is None:
        _may_activate(sc, st, attacker_ids)
    setup = setup or _cached(melee_setup)(sc, st, tuple(attacker_ids), target, tuple(charging), defenders_checked)
    side = _side(sc, attacker_ids)
    enemy = "coalition" if side == "french" else "french"
    out = yield Sub(("tbf-melee", sc.tables.key, setup), partial(melee, sc.tables, setup), rule="6.4", label="Melee")
    for name, what in out.attackers:
        if what == "rout":
            st = yield _sub_rout(sc, st, name)
    for name, what in out.defenders:
        if what == "surrenders":
            st = yield from apply_status(sc, st, name, "surrendered")
        elif what == "routs":
            st = yield _sub_rout(sc, st, name)
        elif what == "fatigued":
            st = st.with_piece(name, status="fatigued")
    if out.result in sc.tables.melee.results:
        eff = sc.tables.melee.results[out.result]
        att_hexes = sorted({st.piece(a).hex for a in attacker_ids if st.piece(a).hex})
        st = yield from _apply_effect(sc, st, target, enemy, eff.defender_fatigue, eff.defender_retreat,
                                      eff.defender_eliminate, "6.4 H", leader_checks=False)
        live = [a for a in attacker_ids if st.piece(a).hex and st.piece(a).status in LIVE]
        for _ in range(min(eff.attacker_eliminate, len(live))):            # one unit of the whole attack
            pick = yield Choose(tuple(live), rule="6.4 H", player=side, label="which attacking unit is eliminated?")
            live.remove(pick)
            st = st.with_piece(pick, status="eliminated", hex=None)
        for h in att_hexes:
            st = yield from _apply_effect(sc, st, h, side, eff.attacker_fatigue, eff.attacker_retreat, 0, "6.4 H",
                                          leader_checks=False)
    for entry in out.leaders:
        ldr, _, fate = entry.partition(": ")
        if fate.startswith("killed"):
            where = st.piece(ldr).hex
            st = st.with_piece(ldr, status="killed", hex=None)
            if where:
                st = yield from _leader_loss(sc, st, ldr, where)
        elif fate.startswith("wounded"):
            st = st.with_piece(ldr, status="wounded", hex=None)
    if not occupants(sc, st, target):                                 # 6.4 J: mandatory advance
        movers = tuple(a for a in attacker_ids if st.piece(a).hex and st.piece(a).status in LIVE
                       and sc.units[a].kind in ("infantry", "cavalry")
                       and sc.board.grid.distance(st.piece(a).hex, target) == 1)
        if movers:
            st = yield from _advance(sc, st, movers[:1], target)
    return st


# ---------------------------------------------------------------------------------------------------
# 6.2.8 Charge
# ---------------------------------------------------------------------------------------------------
def charge_setup(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...],
                 next_targets: tuple[str, ...] = (), mp_left: int | None = None, *,
                 outline: bool = False) -> ChargeSetup:
    """A charge from the map: the charger, its straight path, the units in each target hex, where
    routers would run (6.7), and enemy cavalry that could react (6.2.10). ``outline``: only what says
    whether the charge may be declared (the charger, path, MPs and targets, 6.2.8 A-C), leaving out where
    routers would run, the counter-charge arcs and the reactors (none of which can refuse it)."""
    from .charge import charge_from_spec
    p = st.piece(unit_id)
    u = sc.units[unit_id]
    if p.hex is None:
        raise RuleViolation("6.2.8", f"{unit_id} is not on the map")
    side = u.side
    enemy = "coalition" if side == "french" else "french"
    g, b, t = sc.board.grid, sc.board, sc.tables

    def units_of(h, stop):
        us = []
        for q in occupants(sc, st, h, enemy):
            d = sc.units[q.id]
            # 6.2.8 K: a target that stands may fire defensively at the charger stopped next to it, if
            # that hex is in its front (any adjacent hex when fatigued, 4.2.4 C).
            can_fire = d.kind != "cavalry" and q.status != "routed" and (q.status == "fatigued" or stop in frontal(sc, st, q))
            us.append({"name": q.id, "fv": current_fv(sc, q), "mf": d.mf, "kind": d.kind, "status": q.status,
                       "leader_cvs": list(leader_cvs(sc, st, q.id)), "ma": d.ma, "activated": q.activated,
                       "ff": d.ff if can_fire else 0})
        return us

    hexes = [path[-1], *next_targets]
    targets = []
    for i, h in enumerate(hexes):
        us = units_of(h, path[-2] if i == 0 else hexes[i - 1])
        rout_to = None
        if us and not outline:
            trial = st
            for q in us:
                trial = trial.with_piece(q["name"], status="routed")
            rp = rout_path(sc, trial, us[0]["name"])
            rout_to = rp.path[-1] if rp.fate not in ("eliminated", "exited") else None
        targets.append({"hex": h, "units": us, "rout_to": rout_to})
    names = [n.upper() for n in g.direction_names]
    spec = {"charger": {"name": unit_id, "hex": p.hex, "facing": names[p.facing], "fv": current_fv(sc, p),
                        "mf": u.mf, "ma": u.ma, "status": p.status, "leader_cvs": list(leader_cvs(sc, st, unit_id))},
            "path": list(path), "targets": targets, "mp_left": u.ma if mp_left is None else mp_left,
            "defensive_fire": True}
    friendly = frozenset(q.hex for q in st.on_map() if sc.side(q.id) == side and not sc.is_leader(q.id)
                         and q.id != unit_id)
    enemy_h = frozenset(q.hex for q in st.on_map() if sc.side(q.id) == enemy and not sc.is_leader(q.id)
                        and q.status in LIVE) - {path[-1]}
    setup = charge_from_spec(spec, g, "charge", terrain=b.charge_terrain(t),
                             los=lambda a, c: b.los(a, c, t, viewer="cavalry", enemy=enemy_h, friendly=friendly).clear)
    if outline:
        return setup
    from .charge import charge_lines
    lane = {p.hex, *path[:-1]}
    targets_arc = []
    for i, tgt in enumerate(setup.targets):
        qs = occupants(sc, st, tgt.hex, enemy)
        arc = False
        if len(qs) == 1 and sc.units[qs[0].id].kind == "cavalry":
            # 6.2.9 A: the charger must start in, or pass into, the counter-charger's frontal charge arc
            # (the straight charge lines out of its front, 6.2.11)
            seen = {h for line in charge_lines(g, tgt.hex, qs[0].facing).values() for h in line}
            arc = bool(seen & (lane if i == 0 else {hexes[i - 1]}))
        targets_arc.append(replace(tgt, counter_arc=arc))
    setup = replace(setup, targets=tuple(targets_arc))
    reactors = []
    for q in st.on_map():
        if sc.side(q.id) != enemy or sc.is_leader(q.id) or q.hex in hexes or q.status != "normal" or q.activated:
            continue
        if sc.units[q.id].kind != "cavalry":
            continue
        if reaction_wedge(g, q.hex, q.facing) & lane - {p.hex}:      # 6.2.10 A
            qd = sc.units[q.id]
            reactors.append(Reactor(Fighter(q.id, qd.mf, current_fv(sc, q), "cavalry", "normal",
                                            leader_cvs(sc, st, q.id), ma=qd.ma), 0))
    return replace(setup, reactors=tuple(reactors))


def reaction_wedge(g, hex_: str, facing: int) -> frozenset[str]:
    """6.2.10 A: the hexes within two of a cavalry unit inside its frontal charge arc -- the whole
    120-degree wedge (three hexes at one, five at two), not only the three straight lines."""
    dirs = frontal_directions(facing)
    out = set()
    for a in dirs:
        h1 = g.neighbour(hex_, a)
        if h1 is None:
            continue
        out.add(h1)
        for b in dirs:
            h2 = g.neighbour(h1, b)
            if h2 is not None and g.distance(hex_, h2) <= 2:
                out.add(h2)
    out.discard(hex_)
    return frozenset(out)


def counter_charge_meeting(line: tuple[str, ...], charger_ma: int, counter_ma: int) -> tuple[str, str]:
    """6.2.9 B: the two cavalry units close along the charge line one hex at a time, the higher MA first
    (the charger on equal MAs: our reading), until they are adjacent. ``line`` runs from the charger's hex
    to the counter-charger's. Returns (charger's hex, counter-charger's hex)."""
    i, j = 0, len(line) - 1
    charger_turn = charger_ma >= counter_ma
    while j - i > 1:
        if charger_turn:
            i += 1
        else:
            j -= 1
        charger_turn = not charger_turn
    return line[i], line[j]


def charge_action(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...],
                  next_targets: tuple[str, ...] = (), mp_left: int | None = None, auto_fatigue: bool = True):
    """Charge, then apply it: routs and rout moves, surrenders, the charger's final hex, the melee, and
    the Charged marker with automatic fatigue (4.2.3, 6.2.8 J-L). ``mp_left``: the MPs the charger has
    left of its MA when it declares the charge (6.2.8 A; default: its whole MA). ``auto_fatigue=False``
    leaves the automatic fatigue (4.2.3, 6.2.8 J) to the caller, who applies it at the end of the
    impulse's Melee Segment (the game does)."""
    _may_activate(sc, st, (unit_id,))
    start_hex = st.piece(unit_id).hex
    setup = _cached(charge_setup)(sc, st, unit_id, tuple(path), tuple(next_targets), mp_left)
    setup = replace(setup, resolve_melee=False)
    out = yield Sub(("tbf-charge", sc.tables.key, setup), partial(charge_proc_fn, sc.tables, setup), rule="6.2.8",
                    label="Charge")
    if not out.attempted:
        return st
    # the results as one memoised step: exact odds enumerate them once per charge outcome
    return (yield Sub(("tbf-charge-results", sc.key, st, unit_id, tuple(path), setup, out, start_hex, auto_fatigue),
                      partial(_charge_results, sc, st, unit_id, tuple(path), setup, out, start_hex, auto_fatigue),
                      rule="6.2.8", label="the charge's results"))


def _sub_rout(sc: Scenario, st: GameState, uid: str) -> Sub:
    return Sub(("tbf-rout", sc.key, st, uid), partial(rout_unit, sc, st, uid), rule="6.7 C", label=f"{uid} routs")


def _sub_melee(sc: Scenario, st: GameState, attackers: tuple[str, ...], target: str, charging=(),
               defenders_checked=False, setup=None) -> Sub:
    return Sub(("tbf-melee-action", sc.key, st, attackers, target, tuple(charging), defenders_checked, setup),
               partial(melee_action, sc, st, attackers, target, tuple(charging), defenders_checked, setup),
               rule="6.4", label="melee")


def _charge_results(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...], setup: ChargeSetup, out,
                    start_hex: str, auto_fatigue: bool = True):
    """What a charge that went in does to the map (6.2.8 E-L, 6.2.9 B, 6.2.10): a procedure."""
    for step in out.steps:
        h, _, rest = step.partition(": ")
        for part in rest.split(", "):
            name, _, what = part.rpartition(" ")
            if what == "routs" and name in sc.units:
                st = yield _sub_rout(sc, st, name)
    for name in out.surrendered:
        if name in sc.units:
            st = yield from apply_status(sc, st, name, "surrendered")
    if out.ended_at:
        st = st.with_piece(unit_id, hex=out.ended_at)
        st = yield from _capture_leaders(sc, st, out.ended_at, sc.side(unit_id))   # 6.5 C
    if out.stopped == "defensive fire":
        code = next(x for x in out.steps if x.startswith("defensive fire ")).split()[-1]
        eff = sc.tables.fire.results[code]
        here = st.piece(unit_id).hex
        st = yield from _apply_effect(sc, st, here, sc.side(unit_id), eff.fatigue, eff.retreat, eff.eliminate, "6.2.8 K")
    if out.stopped == "target stands":
        target = next(t.hex for t in setup.targets if any(s.startswith(t.hex) and "stands" in s for s in out.steps))
        st = yield _sub_melee(sc, st, (unit_id,), target, charging=(unit_id,), defenders_checked=True)
    elif out.stopped in ("counter charge", "reaction charge"):
        # 6.2.9 / 6.2.10: the two cavalry units meet; the original charger attacks, nobody doubles.
        step = next(x for x in out.steps if x.endswith(" counter charges") or x.endswith(" reaction charges"))
        name = step.rsplit(" ", 2)[0].split(": ")[-1]
        here = st.piece(unit_id).hex
        g = sc.board.grid
        if out.stopped == "reaction charge":
            spots = [h for h in g.neighbours(here) if not occupants(sc, st, h)
                     and sc.board.step_cost(h, here, sc.tables)[0] is not None]
            if spots:
                spot = min(spots, key=lambda h: (g.distance(h, st.piece(name).hex), h))
                st = st.with_piece(name, hex=spot)
        elif st.piece(name).hex == path[-1] and not any(x.startswith(path[-1]) and "routs" in x for x in out.steps):
            # 6.2.9 B: a counter charge against the first target: both close along the charge line
            line = (start_hex, *path)
            mine, theirs = counter_charge_meeting(line, sc.units[unit_id].ma, sc.units[name].ma)
            st = st.with_piece(unit_id, hex=mine).with_piece(name, hex=theirs)
            here = mine
        st = st.with_piece(name, charged=True)                                  # 6.2.9 B, 6.2.10 E
        target = st.piece(name).hex
        if target and g.distance(target, here) == 1:
            base = _cached(melee_setup)(sc, st, (unit_id,), target, (), True)
            st = yield _sub_melee(sc, st, (unit_id,), target, setup=replace(base, no_doubling=True))
    if st.piece(unit_id).hex is not None:
        now = st.piece(unit_id).status
        st = st.with_piece(unit_id, charged=True, activated=True,
                           status="fatigued" if now == "normal" and auto_fatigue else now)
    return st


# ---------------------------------------------------------------------------------------------------
# 6.2 Movement as an action
# ---------------------------------------------------------------------------------------------------
def move_action(sc: Scenario, st: GameState, uid: str, dest: str, level_hexes: tuple[tuple[int, int], ...] = (),
                facing: int | None = None, bridge_intact: bool = False, mp_left: int | None = None):
    """Move a unit to ``dest`` by its cheapest legal path (6.2), capturing lone enemy leaders on the way
    (6.2.5 B, 6.5 C), removing the Strong Point when the Elite leaves it (8.4 C), noting Column II
    crossing the light blue line (9.5.2) or coming within four hexes of the French at-start units
    (9.5.2 C), then checking an overstack at the end (4.1.7, 4.1.9). ``mp_left``: the MPs the unit has left
    this segment (6.2.1; None: its whole MA), the same search the game's check of the move made.
    A procedure returning the new state."""
    _may_activate(sc, st, (uid,))
    if uid in sc.units and sc.units[uid].command == "VI":
        raise RuleViolation("9.2 I", f"{uid} belongs to Column VI, which never moves unless a combat retreat forces it")
    r = reachable(sc, st, uid, dict(level_hexes), bridge_intact, mp_left)
    dest = sc.board.check_hex(dest, "6.2")
    if dest not in r or dest == st.piece(uid).hex:
        raise RuleViolation("6.2.1", f"{uid} cannot reach {dest} this Movement Segment")
    _, path = r[dest]
    side = sc.side(uid)
    g, b = sc.board.grid, sc.board
    for h in path[1:]:
        st = yield from _capture_leaders(sc, st, h, side)                       # 6.2.5 B, 6.5 C
    if uid == "elite" and st.piece(uid).hex == b.data.strong_point:
        st = st.with_flag("strong_point_removed")                               # 8.4 C
    if sc.units[uid].command == "II" and side == "coalition":
        if any(frozenset(pair) in b.light_blue for pair in zip(path, path[1:])):
            st = st.with_flag("light_blue_crossed")                            # 9.5.2
        at_start = [st.piece(f).hex for f in sc.file.setup.french if st.piece(f).hex]
        if any(g.distance(dest, h) <= 4 for h in at_start):
            st = st.with_flag("alert")                                          # 9.5.2 C
    st = st.with_piece(uid, hex=dest, activated=True, facing=st.piece(uid).facing if facing is None else facing % 6)
    st = _occupy(sc, st, dest, side)
    st = yield from overstack_checks(sc, st, dest)
    return st


def cavalry_retreat_action(sc: Scenario, st: GameState, uid: str, path: tuple[str, ...]):
    """Optional 11.8 B-D: non-phasing cavalry falls back two hexes before the Defensive Fire Segment, by
    one of the paths :func:`rules.cavalry_retreat_before_combat` allows (6.6 priorities); a step into an
    enemy front takes the 6.6 D check. A procedure returning the new state."""
    from .rules import cavalry_retreat_before_combat, retreat_options
    paths = cavalry_retreat_before_combat(sc, st, uid)
    if tuple(path) not in paths:
        allowed = "; ".join("-".join(x) for x in paths) or "none"
        raise RuleViolation("11.8 B", f"{uid} may not fall back by {'-'.join(path)} (allowed: {allowed})")
    here = st.piece(uid).hex
    side = sc.side(uid)
    for h in path:
        rank = {x: r for x, r, _ in retreat_options(sc, st, (uid,), here)}[h]
        st = st.with_piece(uid, hex=h)
        if rank >= 2:                                                   # 6.6 D, by 11.8 D
            p = st.piece(uid)
            out = yield check_sub(sc.tables, CheckSpec("retreat_into_enemy_front", current_fv(sc, p), p.status,
                                                       leader_cvs(sc, st, uid), unit=uid), rule="6.6 D")
            st = yield from apply_status(sc, st, uid, out.status)
            if st.piece(uid).hex != h:
                return st
        here = h
    yield Log("11.8 B", f"{uid} falls back {'-'.join(path)} before the Defensive Fire Segment")
    return _occupy(sc, st, here, side)


def leader_fire_retreat(sc: Scenario, st: GameState, ldr: str) -> GameState:
    """6.3.5: after firing, a lone leader falls back two hexes away from the enemy, or is captured."""
    g, b = sc.board.grid, sc.board
    side = sc.side(ldr)
    enemies = [p.hex for p in st.on_map() if sc.side(p.id) != side and not sc.is_leader(p.id) and p.status in LIVE]
    here = st.piece(ldr).hex
    for _ in range(2):
        options = [n for n in g.neighbours(here) if n not in enemies and b.step_cost(here, n, sc.tables)[0] is not None]
        if not options:
            return st.with_piece(ldr, status="captured", hex=None)
        here = max(options, key=lambda n: (min((g.distance(n, e) for e in enemies), default=99), n))
    return st.with_piece(ldr, hex=here)


def activate(sc: Scenario, st: GameState, leader_id: str) -> tuple[dict, GameState]:
    """6.1: activate a leader during an impulse. Returns who the activation reaches (6.1.1-6.1.3, see
    ``rules.activation_plan``) and the new state with every leader it reaches flipped to his activated
    side (6.1.3 B), so none of them activates again this turn (6.1.3 E). The scenario's limits
    (9.1 E, 9.2, 9.4) apply to the leader. Units are marked activated when they act."""
    from .rules import activation_allowed, activation_plan
    if leader_id not in sc.leaders:
        raise RuleViolation("6.1 B", f"{leader_id!r} is not a leader")
    ok, why = activation_allowed(sc, st, leader_id)
    if not ok:
        raise RuleViolation(why.split(":")[0], f"{leader_id} may not activate yet ({why})")
    plan = activation_plan(sc, st, leader_id)
    for ldr in plan["leaders"]:
        st = st.with_piece(ldr, activated=True)
    return plan, st


def initiative_phase(sc: Scenario, st: GameState):
    """3.2 on a game state: the French add 1 while Mortier is on the map; turn 1 goes to the Coalition
    without a roll. A procedure returning the side that has the initiative."""
    from .rules import initiative
    m = st.piece("mortier") if "mortier" in sc.leaders else None
    on_map = m is not None and m.hex is not None and m.status == "normal"
    return (yield from initiative(st.turn, on_map))


def out_of_command_check(sc: Scenario, st: GameState, uid: str):
    """6.1.3 C: a unit outside its leader's command range checks to act this impulse; returns
    (may act, new state) -- a fatigued unit that fails routs (6.7 A)."""
    p = st.piece(uid)
    if p.hex is None or sc.is_leader(uid):
        raise RuleViolation("6.1.3 C", f"{uid} is not a unit on the map")
    out = yield check_sub(sc.tables, CheckSpec("out_of_command", current_fv(sc, p), p.status, leader_cvs(sc, st, uid),
                                               unit=uid), rule="6.1.3 C")
    st = yield from apply_status(sc, st, uid, out.status)
    return (out.effect == "act", st)


# ---------------------------------------------------------------------------------------------------
# Phases: Reinforcement (3.1, 5.1, 9.2, 9.5.2, 9.6.2) and Recovery (3.4, 7.0)
# ---------------------------------------------------------------------------------------------------
def reinforcement_phase(sc: Scenario, st: GameState, alert_first_turn: int | None = None,
                        dupont_arrived: bool = False):
    """The scenario's rolls of the Reinforcement Phase, as flags on the state: Columns II and III
    mustering (9.2 B, from turn 2), Mortier's Alert (9.5.2, once Column II crossed the light blue
    line), Dupont's arrival (9.6.2, from turn 6). Placing the arriving units is the players' job."""
    from .rules import column_muster, dupont_arrival, mortier_alert
    t = st.turn
    if t >= 2:
        for col in ("II", "III"):
            flag = f"column_{col}_mustered"
            if flag not in st.flags:
                if (yield from column_muster(sc, col, t)):
                    st = st.with_flag(flag)
    if "alert" not in st.flags and "light_blue_crossed" in st.flags and alert_first_turn is not None:
        if (yield from mortier_alert(sc, max(0, t - alert_first_turn))):
            st = st.with_flag("alert")
    if t >= sc.file.dupont.first_turn and not dupont_arrived and "dupont_arrived" not in st.flags:
        if (yield from dupont_arrival(sc, t)):
            st = st.with_flag("dupont_arrived").with_flag("alert")          # 9.5.2 C
    return st


def recovery_phase(sc: Scenario, st: GameState):
    """7.0: every fatigued unit tries to remove fatigue (not cavalry that charged, 7.0 C) and every
    routed unit not next to an enemy tries to rally (7.0 G); then Charged markers come off, leaders and
    units are ready again and the turn advances (7.0 H)."""
    g = sc.board.grid
    for p in st.on_map():
        if sc.is_leader(p.id) or p.status not in ("fatigued", "routed"):
            continue
        if p.status == "fatigued" and p.charged:
            continue
        if p.status == "routed" and any(sc.side(q.id) != sc.side(p.id) and q.status in LIVE and not sc.is_leader(q.id)
                                        for n in g.neighbours(p.hex) for q in st.in_hex(n)):
            continue                                    # 7.0 G: next to an enemy unit (distance 1)
        check = "remove_fatigue" if p.status == "fatigued" else "rally_from_rout"
        out = yield check_sub(sc.tables, CheckSpec(check, sc.units[p.id].fv_f, p.status, leader_cvs(sc, st, p.id),
                                                   unit=p.id), rule="7.0 D")
        st = st.with_piece(p.id, status=out.status)
    st = replace(st, pieces=tuple(replace(p, charged=False, activated=False) if p.charged or p.activated else p
                                  for p in st.pieces), turn=st.turn + 1)
    return st
