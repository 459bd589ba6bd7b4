"""6.2.8-6.2.10 Cavalry charges on the map: the charge set-up taken from the pieces (the charger, its straight
path, the units of each target hex, where routers would run, the counter-charge arcs 6.2.9 A and the
reaction chargers 6.2.10 A), the charge procedure of :mod:`engine.tbf.charge` run on it and its results
applied (routs, surrenders, the charger's last hex, the melee, the Charged marker); in the game, the charge
candidates of the Movement Segment, the check (6.2.8 A-C) and the charge action."""
from __future__ import annotations

from dataclasses import replace as dc_replace
from typing import Any
from functools import lru_cache, partial

from engine.core.errors import DataError, RuleViolation
from engine.core.hexgrid import HexGrid
from engine.core.procedure import Log, Sub

from ..charge import (ChargeOutcome, ChargeSetup, Reactor, Target, charge as charge_proc_fn, charge_from_spec,
                      charge_lines, frontal_directions)
from ..charge import validate as charge_validate
from ..melee import Fighter
from ..scenario import Scenario, default_scenario
from ..steps import Steps
from .actions import Charge
from .activation import may_activate
from .leaders import capture_leaders
from .melee_combat import charge_melee_setup, sub_melee
from .memo import cached
from .movement import finish_mover, moving
from .position import current_fv, frontal, leader_cvs, occupants
from .queries import Queries
from .results import apply_effect
from .rout import apply_status, rout_path, sub_rout
from .state import ChargeMelee, GameState, TbfState, book, replace, with_book
from .types import LIVE, Status, other

__all__ = ["charge_setup", "reaction_wedge", "counter_charge_meeting", "charge_action", "charge_movement",
           "cached_charge_setup",
           "charge_candidates", "check_charge", "do_charge"]


def charge_setup(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...],
                 next_targets: tuple[str, ...] = (), mp_left: int | None = None, *,
                 outline: bool = False) -> ChargeSetup:
    """A charge from the map: the charger, its straight path, the units in each target hex, where
    routers would run (6.7), and enemy cavalry that could react (6.2.10). ``outline``: only what says
    whether the charge may be declared (the charger, path, MPs and targets, 6.2.8 A-C), leaving out where
    routers would run, the counter-charge arcs and the reactors (none of which can refuse it)."""
    p = st.piece(unit_id)
    u = sc.units.get(unit_id)
    if u is None:
        raise RuleViolation("6.2.8 A", f"{unit_id} is a leader: only cavalry units charge")
    if p.hex is None:
        raise RuleViolation("6.2.8", f"{unit_id} is not on the map")
    side = u.side
    enemy = other(side)
    g, b, t = sc.board.grid, sc.board, sc.tables

    def units_of(h: str, stop: str) -> list[dict[str, Any]]:
        us = []
        for q in occupants(sc, st, h, enemy):
            d = sc.units[q.id]
            # 6.2.8 K: a target that stands may fire defensively at the charger stopped next to it, if
            # that hex is in its front (any adjacent hex when fatigued, 4.2.4 C).
            can_fire = d.kind != "cavalry" and q.status != Status.ROUTED and (q.status == Status.FATIGUED or stop in frontal(sc, st, q))
            us.append({"name": q.id, "fv": current_fv(sc, q), "mf": d.mf, "kind": d.kind, "status": q.status,
                       "leader_cvs": list(leader_cvs(sc, st, q.id)), "ma": d.ma, "activated": q.activated,
                       "ff": d.ff if can_fire else 0})
        return us

    hexes = [path[-1], *next_targets]
    targets: list[dict[str, Any]] = []
    for i, h in enumerate(hexes):
        us = units_of(h, path[-2] if i == 0 else hexes[i - 1])
        rout_to = None
        if us and not outline:
            trial = st
            for x in us:
                trial = trial.with_piece(x["name"], status=Status.ROUTED)
            rp = rout_path(sc, trial, us[0]["name"])
            rout_to = rp.path[-1] if rp.fate not in ("eliminated", "exited") else None
        targets.append({"hex": h, "units": us, "rout_to": rout_to})
    names = [n.upper() for n in g.direction_names]
    spec = {"charger": {"name": unit_id, "hex": p.hex, "facing": names[p.facing], "fv": current_fv(sc, p),
                        "mf": u.mf, "ma": u.ma, "status": p.status, "leader_cvs": list(leader_cvs(sc, st, unit_id))},
            "path": list(path), "targets": targets, "mp_left": u.ma if mp_left is None else mp_left,
            "defensive_fire": True}
    friendly = frozenset(q.hex for q in st.on_map() if q.hex is not None and sc.side(q.id) == side
                         and not sc.is_leader(q.id) and q.id != unit_id)
    enemy_h = frozenset(q.hex for q in st.on_map() if q.hex is not None and sc.side(q.id) == enemy
                        and not sc.is_leader(q.id) and q.status in LIVE) - {path[-1]}
    setup = charge_from_spec(spec, g, "charge", terrain=b.charge_terrain(t),
                             los=lambda a, c: b.los(a, c, t, viewer="cavalry", enemy=enemy_h, friendly=friendly).clear)
    if outline:
        return setup
    lane = {p.hex, *path[:-1]}
    targets_arc: list[Target] = []
    for i, tgt in enumerate(setup.targets):
        qs = occupants(sc, st, tgt.hex, enemy)
        arc = False
        if len(qs) == 1 and sc.units[qs[0].id].kind == "cavalry":
            # 6.2.9 A: the charger must start in, or pass into, the counter-charger's frontal charge arc
            # (the straight charge lines out of its front, 6.2.11)
            seen = {h for line in charge_lines(g, tgt.hex, qs[0].facing).values() for h in line}
            arc = bool(seen & (lane if i == 0 else {hexes[i - 1]}))
        targets_arc.append(dc_replace(tgt, counter_arc=arc))
    setup = dc_replace(setup, targets=tuple(targets_arc))
    reactors: list[Reactor] = []
    for q in st.on_map():
        if (q.hex is None or sc.side(q.id) != enemy or sc.is_leader(q.id) or q.hex in hexes
                or q.status != Status.NORMAL or q.activated):
            continue
        if sc.units[q.id].kind != "cavalry":
            continue
        if reaction_wedge(g, q.hex, q.facing) & lane - {p.hex}:      # 6.2.10 A
            qd = sc.units[q.id]
            reactors.append(Reactor(Fighter(q.id, qd.mf, current_fv(sc, q), "cavalry", "normal",
                                            leader_cvs(sc, st, q.id), ma=qd.ma), 0))
    return dc_replace(setup, reactors=tuple(reactors))


def reaction_wedge(g: HexGrid, hex_: str, facing: int) -> frozenset[str]:
    """6.2.10 A: the hexes within two of a cavalry unit inside its frontal charge arc -- the whole
    120-degree wedge (three hexes at one, five at two), not only the three straight lines."""
    dirs = frontal_directions(facing)
    out: set[str] = set()
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
                  next_targets: tuple[str, ...] = (), mp_left: int | None = None, auto_fatigue: bool = True
                  ) -> Steps[GameState]:
    """A charge and all it leads to, as one step (the calculators' charge: ``act charge``, the page's
    Situation tab): routs and rout moves, surrenders, the charger's final hex, a standing target's
    defensive fire at it (6.2.8 K) and the melee, and the Charged marker with automatic fatigue (4.2.3,
    6.2.8 J-L). ``mp_left``: the MPs the charger has left of its MA when it declares the charge (6.2.8 A;
    default: its whole MA). The game plays a charge in its segments instead (:func:`charge_movement`).
    A procedure returning the new state."""
    st, _ = yield from _charge(sc, st, unit_id, path, next_targets, mp_left, auto_fatigue, False)
    return st


def charge_movement(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...],
                    next_targets: tuple[str, ...] = (), mp_left: int | None = None
                    ) -> Steps[tuple[GameState, ChargeMelee | None]]:
    """A charge in the game's Movement Segment (3.3 B, 6.2.8): the attempt, the targets' checks, routs and
    surrenders, counter and reaction charges, the charger's final hex and the Charged markers. The defensive
    fire at the charger comes in the Defensive Fire Segment (6.3.1 A; a charger it fatigues cannot melee,
    6.2.8 K) and the melee in the Melee Segment: returned as a :class:`~.state.ChargeMelee` (None when the
    charge ends without one). A procedure returning ``(new state, melee or None)``."""
    return (yield from _charge(sc, st, unit_id, path, next_targets, mp_left, False, True))


def _charge(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...], next_targets: tuple[str, ...],
            mp_left: int | None, auto_fatigue: bool, segments: bool) -> Steps[tuple[GameState, ChargeMelee | None]]:
    may_activate(sc, st, (unit_id,))
    start_hex = st.piece(unit_id).hex
    setup = cached(charge_setup)(sc, st, unit_id, tuple(path), tuple(next_targets), mp_left)
    assert start_hex is not None, "a charger off the map is refused by charge_setup (6.2.8)"
    setup = dc_replace(setup, resolve_melee=False, defensive_fire=setup.defensive_fire and not segments)
    out = yield Sub(("tbf-charge", sc.tables.key, setup), partial(charge_proc_fn, sc.tables, setup), rule="6.2.8",
                    label="Charge")
    if not out.attempted:
        return st, None
    # the results as one memoised step: exact odds enumerate them once per charge outcome
    return (yield Sub(("tbf-charge-results", sc.key, st, unit_id, tuple(path), setup, out, start_hex, auto_fatigue,
                       segments),
                      partial(_charge_results, sc, st, unit_id, tuple(path), setup, out, start_hex, auto_fatigue,
                              segments),
                      rule="6.2.8", label="the charge's results"))


def _charge_results(sc: Scenario, st: GameState, unit_id: str, path: tuple[str, ...], setup: ChargeSetup,
                    out: ChargeOutcome, start_hex: str, auto_fatigue: bool = True, segments: bool = False
                    ) -> Steps[tuple[GameState, ChargeMelee | None]]:
    """What a charge that went in does to the map (6.2.8 E-L, 6.2.9 B, 6.2.10): a procedure returning the
    new state and the melee left for the Melee Segment (``segments``; else the melee is fought here)."""
    pending: ChargeMelee | None = None
    for step in out.steps:
        h, _, rest = step.partition(": ")
        for part in rest.split(", "):
            name, _, what = part.rpartition(" ")
            if what == "routs" and name in sc.units:
                st = yield sub_rout(sc, st, name)
    for name in out.surrendered:
        if name in sc.units:
            st = yield from apply_status(sc, st, name, "surrendered")
    if out.ended_at:
        st = st.with_piece(unit_id, hex=out.ended_at)
        st = yield from capture_leaders(sc, st, out.ended_at, sc.side(unit_id))   # 6.5 C
    if out.stopped == "defensive fire":
        code = next(x for x in out.steps if x.startswith("defensive fire ")).split()[-1]
        eff = sc.tables.fire.results[code]
        here = st.piece(unit_id).hex
        if here is not None:                    # (a hex with none of the side's units: nothing happens there)
            st = yield from apply_effect(sc, st, here, sc.side(unit_id), eff.fatigue, eff.retreat, eff.eliminate,
                                         "6.2.8 K")
    if out.stopped == "target stands":
        target = next(t.hex for t in setup.targets if any(s.startswith(t.hex) and "stands" in s for s in out.steps))
        if segments:
            pending = ChargeMelee(unit_id, target, "charge")
        else:
            st = yield sub_melee(sc, st, (unit_id,), target, charging=(unit_id,), defenders_checked=True)
    elif out.stopped in ("counter charge", "reaction charge"):
        # 6.2.9 / 6.2.10: the two cavalry units meet; the original charger attacks, nobody doubles; still
        # charging, the charger takes no Attacker to Perform Melee check (6.4 D)
        step = next(x for x in out.steps if x.endswith(" counter charges") or x.endswith(" reaction charges"))
        name = step.rsplit(" ", 2)[0].split(": ")[-1]
        here = st.piece(unit_id).hex
        assert here is not None, "the charger stands next to the unit that met its charge"
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
        met = st.piece(name).hex
        if met and g.distance(met, here) == 1:
            mode = "counter" if out.stopped == "counter charge" else "reaction"
            if segments:
                pending = ChargeMelee(unit_id, met, mode)
            else:
                st = yield sub_melee(sc, st, (unit_id,), met, setup=charge_melee_setup(sc, st, unit_id, met, mode))
    if st.piece(unit_id).hex is not None:
        now = st.piece(unit_id).status
        st = st.with_piece(unit_id, charged=True, activated=True,
                           status=Status.FATIGUED if now == Status.NORMAL and auto_fatigue else now)
    return st, pending


@lru_cache(maxsize=4096)
def cached_charge_setup(game: GameState, uid: str, path: tuple[str, ...], nxt: tuple[str, ...], mp_left: int,
                        sc: Scenario | None = None) -> ChargeSetup:
    """The outline of a Dürenstein charge (what its check needs, 6.2.8 A-C; ``sc``: with a game's own tables)."""
    return charge_setup(sc or default_scenario(), game, uid, path, nxt, mp_left, outline=True)


# ------------------------------------------------------------------------------------------------
# In the game: charges in the Movement Segment (6.2.8)
# ------------------------------------------------------------------------------------------------
def charge_candidates(ctx: Queries, s: TbfState, uid: str) -> list[Charge]:
    sc, g = ctx.sc, s.game
    grid = sc.board.grid
    p = g.piece(uid)
    side = sc.side(uid)
    enemy = other(side)
    occupied = ctx.units_in(s)            # hexes with live units in them (leaders do not block)
    out: list[Charge] = []
    for d in frontal_directions(p.facing):
        line: list[str] = []
        h = p.hex
        for _ in range(ctx.mp_left(s, uid) + 1):
            h = grid.neighbour(h, d)
            if h is None:
                break
            line.append(h)
            if h in occupied:
                break
        if len(line) < 3 or not occupants(sc, g, line[-1], enemy):
            continue
        path = tuple(line)
        out.append(Charge(side, uid, path))
        for n in grid.neighbours(path[-1]):
            if grid.direction(path[-1], n) in frontal_directions(p.facing) and occupants(sc, g, n, enemy):
                out.append(Charge(side, uid, path, (n,)))
    return out


def check_charge(ctx: Queries, s: TbfState, a: Charge) -> None:
    bk = moving(ctx, s, a.unit, "charge")
    sc, g = ctx.sc, s.game
    u = sc.units.get(a.unit)
    if u is None or u.kind != "cavalry":
        raise RuleViolation("6.2.8 A", f"{a.unit} is not cavalry: only cavalry charges")
    if g.piece(a.unit).status != Status.NORMAL:
        raise RuleViolation("4.2.4 F", f"{a.unit} is fatigued: fatigued cavalry may not charge")
    if bk.charge_tried:
        raise RuleViolation("6.2.8 A", f"{a.unit} has already attempted a charge this Movement Segment "
                                       "(once per segment; a failed attempt is not retried, 6.2.8 D)")
    if not a.path:
        raise RuleViolation("6.2.8 C", "a charge needs its path, ending on the target hex")
    for h in tuple(a.path) + tuple(a.next):
        sc.board.check_hex(h, "6.2.8 C")
        if a.unit in s.rear_guard and not ctx.in_rear_rows(h):
            raise RuleViolation("9.2 G", f"{a.unit} is in the Rear Guard: it may not charge outside rows XX01-XX06")
    for h in a.path[:-1]:
        if occupants(sc, g, h):
            raise RuleViolation("6.2.8 C", f"the charge line is blocked at {h}")
    mp_left = ctx.mp_left(s, a.unit)
    try:
        setup = cached_charge_setup(g, a.unit, tuple(a.path), tuple(a.next), mp_left, sc)
    except DataError as exc:
        enemy = other(a.side)
        empty = [h for h in (a.path[-1], *a.next) if not occupants(sc, g, h, enemy)]
        if empty:       # the same refusal, said as a player would: a charge ends on enemy units (6.2.8 C)
            raise RuleViolation("6.2.8 C", f"{empty[0]} holds no enemy unit: a charge's path ends on the "
                                           "enemy it charges") from None
        raise RuleViolation("6.2.8 C", f"not a valid charge: {exc}") from None
    charge_validate(setup, sc.tables)


def do_charge(ctx: Queries, s: TbfState, a: Charge) -> Steps[TbfState]:
    sc = ctx.sc
    mp_left = ctx.mp_left(s, a.unit)
    bk = book(s.activation, a.unit)
    g, melee = yield from charge_movement(sc, s.game, a.unit, tuple(a.path), tuple(a.next), mp_left)
    p = g.piece(a.unit)
    charged = p.charged
    imp = finish_mover(s.activation, a.unit)
    imp = with_book(imp, replace(bk, charge_tried=True, charged=charged, done=charged or bk.done,
                                  mp=bk.mp + (mp_left if charged else 0)))
    if melee is not None:                                                 # 6.2.8 H: in the Melee Segment
        imp = replace(imp, charge_melees=imp.charge_melees + (melee,))
        yield Log("6.2.8 H", f"{a.unit} will melee {melee.target} in the Melee Segment")
    if not charged:
        yield Log("6.2.8 D", f"{a.unit} fails its attempt: no charge this segment; it may still move")
    return replace(s, game=g, impulse=imp)
