"""3.1 The Reinforcement Phase: the scenario's rolls (Columns II and III mustering 9.2 B, Mortier's Alert
9.5.2, Dupont 9.6.2, Column IV 11.4.1, the optional forces 11.5-11.7), regrouping (5.3) and where each
arrival is set down (9.2 C-G with the Rear Guard, 9.2 I Column VI, 9.6.2 C-D Dupont's groups, 6.5 A
wounded leaders); in the game, the whole phase run at the start of a turn."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import partial
from typing import Any

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll, Sub

from ..scenario import Scenario
from ..steps import Steps
from ..turn import turn_data
from .exclusive import muster_hexes
from .leaders import wounded_return
from .position import occupants
from .queries import Queries
from .stacking import stacking_problem_with
from .state import GameState, TbfState, replace
from .types import GONE, LIVE, SIDES, Status, other

__all__ = ["dupont_arrival", "second_group_delay", "column_muster", "mortier_alert", "regroup", "column_iv_release",
           "optional_arrival", "entry_mp", "regroup_hexes", "reinforcement_phase", "deploy", "deploy_column_vi",
           "reinforcement_segment", "rear_guard", "regroup_segment"]


def _shared(key: tuple[Hashable, ...], proc: Callable[[], Steps[Any]], rule: str, label: str) -> Sub:
    """A roll of the phase whose result depends on nothing but ``key`` (the scenario, the turn), as one
    inline step: the exact odds weigh its few results once instead of each face of the die, and play and
    replay record the same die as before (``Sub(inline=True)``)."""
    return Sub(("tbf-reinforcement",) + key, proc, rule=rule, label=label, inline=True)


def dupont_arrival(sc: Scenario, turn: int) -> Steps[bool]:
    """9.6.2 A-B: from turn 6, a d6 each turn; the needed range widens each turn."""
    dp = sc.file.dupont
    if turn < dp.first_turn:
        raise RuleViolation("9.6.2 A", f"Dupont's Division is not rolled for before turn {dp.first_turn}")
    i = min(turn - dp.first_turn, len(dp.needs) - 1)
    r = yield Roll("d6", rule="9.6.2 B", label=f"Dupont arrival (needs {dp.needs[i]}+)")
    return r >= dp.needs[i]


def second_group_delay(sc: Scenario) -> Steps[int]:
    """9.6.2 D: turns until Dupont's second group arrives."""
    r = yield Roll("d6", rule="9.6.2 D", label="second group delay")
    return sc.file.dupont.second_group_delay[r]


def column_muster(sc: Scenario, column: str, turn: int) -> Steps[bool]:
    """9.2 B: Columns II and III muster on a roll within the turn's range."""
    table = getattr(sc.file.mustering, column, None)
    if table is None:
        raise RuleViolation("9.2 B", f"only Columns II and III roll to muster, not {column!r}")
    if turn < 2:
        raise RuleViolation("9.2 A", "mustering rolls start on turn 2")
    rng = table.get(min(turn, max(table)), [])
    r = yield Roll("d6", rule="9.2 B", label=f"Column {column} mustering")
    return r in rng


def mortier_alert(sc: Scenario, turns_since_first: int) -> Steps[bool]:
    """9.5.2: 4+ (+1 per turn after the first roll) lifts the dark blue line restriction."""
    a = sc.file.alert
    r = yield Roll("d6", rule="9.5.2 A", label="Mortier's Alert")
    return r + a.drm_per_turn * turns_since_first >= a.need


def regroup() -> Steps[bool]:
    """5.3 D: an eliminated infantry unit returns on a 1."""
    r = yield Roll("d6", rule="5.3 D", label="Regroup")
    return r in turn_data().rolls.regroup_on


def column_iv_release(turn: int) -> Steps[bool]:
    """Optional 11.4.1: from turn 6 Column IV musters on a d6 inside the turn's range (``turn.yaml``)."""
    c = turn_data().column_iv
    if turn < c.first_turn:
        raise RuleViolation("11.4.1", f"Column IV rolls from turn {c.first_turn}, not {turn}")
    rng = c.ranges.get(min(turn, max(c.ranges)), [])
    r = yield Roll("d6", rule="11.4.1", label="Column IV release")
    return r in rng


def optional_arrival(which: str, turn: int = 0) -> Steps[tuple[bool, str]]:
    """Optional forces: Klein (11.6.1: a 6 then 1-4 entry A next turn, 5-6 entry B two turns later),
    Murat (11.7.1: a 6), Dumonceau (11.5.2: Dupont's progression). Returns (arrives, detail)."""
    rolls = turn_data().rolls
    if which == "klein":
        r = yield Roll("d6", rule="11.6.1 A", label="Klein")
        if r not in rolls.klein_on:
            return (False, "")
        r2 = yield Roll("d6", rule="11.6.1 A", label="Klein entry")
        return (True, "A 0801, next turn" if r2 in rolls.klein_entry_a else "B 1901, in two turns")
    if which == "murat":
        r = yield Roll("d6", rule="11.7.1", label="Murat")
        ok = r in rolls.murat_on
        return (ok, "east edge road from Mautern 3620" if ok else "")
    if which == "dumonceau":
        needs = rolls.dumonceau_needs
        need = needs[min(max(turn, 0), len(needs) - 1)]
        r = yield Roll("d6", rule="11.5.2 A", label=f"Dumonceau (needs {need}+)")
        return (r >= need, "")
    raise RuleViolation("11.0", f"unknown optional force {which!r} (klein, murat, dumonceau)")


def entry_mp(ma: int, k: int) -> int:
    """MPs left to the k-th unit or stack (1 = first) entering at the same hex (5.2 D, 9.6.2 C)."""
    if k < 1:
        raise RuleViolation("5.2 B", "entering stacks are counted from 1")
    return max(0, ma - (k - 1))


def regroup_hexes(sc: Scenario, st: GameState, uid: str) -> list[str]:
    """Where a regrouped unit may be placed (5.3 E): within two hexes of one of its commanding leaders,
    not within two hexes of an enemy unit (and on ground it could stand on)."""
    g, b = sc.board.grid, sc.board
    side = sc.side(uid)
    leaders = [lp.hex for lp in (st.piece(l) for l in sc.chain_of_command(uid))
               if lp.hex and lp.status == Status.NORMAL]
    enemies = [p.hex for p in st.on_map() if sc.side(p.id) != side and not sc.is_leader(p.id) and p.status in LIVE]
    out: set[str] = set()
    for lh in leaders:
        for h in g.within(lh, 2):
            if b.terrain(h) == "river":
                continue
            if any(g.distance(h, e) <= 2 for e in enemies):
                continue
            out.add(h)
    return sorted(out)



def reinforcement_phase(sc: Scenario, st: GameState, alert_first_turn: int | None = None,
                        dupont_arrived: bool = False) -> Steps[GameState]:
    """The scenario's rolls of the Reinforcement Phase, as flags on the state: Columns II and III
    mustering (9.2 B, from turn 2), Mortier's Alert (9.5.2, once Column II crossed the light blue
    line), Dupont's arrival (9.6.2, from turn 6). Placing the arriving units is the players' job."""
    t = st.turn
    if t >= 2:
        for col in ("II", "III"):
            flag = f"column_{col}_mustered"
            if flag not in st.flags:
                if (yield _shared((sc.key, "muster", col, t), partial(column_muster, sc, col, t), "9.2 B",
                                  f"Column {col} mustering")):
                    st = st.with_flag(flag)
    if "alert" not in st.flags and "light_blue_crossed" in st.flags and alert_first_turn is not None:
        since = max(0, t - alert_first_turn)
        if (yield _shared((sc.key, "alert", since), partial(mortier_alert, sc, since), "9.5.2 A", "Mortier's Alert")):
            st = st.with_flag("alert")
    if t >= sc.file.dupont.first_turn and not dupont_arrived and "dupont_arrived" not in st.flags:
        if (yield _shared((sc.key, "dupont", t), partial(dupont_arrival, sc, t), "9.6.2 B", "Dupont arrival")):
            st = st.with_flag("dupont_arrived").with_flag("alert")          # 9.5.2 C
    return st



def deploy_column_vi(ctx: Queries, g: GameState) -> Steps[GameState]:
    """9.2 I: Column VI, once a French unit comes within three hexes of its hex, is set down on or next to
    it (once; a column with units gone is not set down again)."""
    if "column_VI_deployed" in g.flags and not any(g.piece(u).hex for u in ctx.column("VI")) \
            and not any(g.piece(u).status in GONE for u in ctx.column("VI")):
        g = deploy(ctx, g, ctx.column("VI"), ctx.near(ctx.td.column_vi.hex, 1))
        yield Log("9.2 I", "Column VI deploys next to 3309")
    return g


# ------------------------------------------------------------------------------------------------
# In the game: the phase at the start of a turn
# ------------------------------------------------------------------------------------------------
def deploy(ctx: Queries, g: GameState, ids: Iterable[str], hexes: Iterable[str]) -> GameState:
    """Set units on the first of ``hexes`` where they stack legally (4.1), enemy-free, passable."""
    sc = ctx.sc
    spots = [h for h in hexes if sc.board.terrain(h) != "river"]
    for uid in ids:
        if g.piece(uid).status in GONE or g.piece(uid).hex is not None:
            continue
        side = sc.side(uid)
        for h in spots:
            if occupants(sc, g, h, other(side)):
                continue
            # the hex's stack as it would be with the unit in it, judged without making that position
            if uid in sc.leaders or stacking_problem_with(sc, g, h, uid) is None:
                g = g.with_piece(uid, hex=h)
                break
    return g


def reinforcement_segment(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    sc = ctx.sc
    g = s.game
    yield Log("3.1", f"Reinforcement Phase of turn {g.turn}")
    g = yield from reinforcement_phase(sc, g, s.alert_from, s.dupont_first)       # 5.1, 9.2 B, 9.5.2, 9.6.2
    for col, leader in (("II", "dokhturov"), ("III", "strik")):
        flag = f"column_{col}_mustered"
        if flag in g.flags and not any(g.piece(u).hex for u in ctx.column(col)) and \
                g.piece(leader).hex is None and g.piece(leader).status == Status.NORMAL:
            spots = muster_hexes(sc, col)                                 # 9.2 C-D
            centre = sc.board.data.setup_numbers[col]
            spots.sort(key=lambda h: (sc.board.grid.distance(centre, h), h))
            if col == "II":                                               # 9.2 E-G
                rear, short = yield from rear_guard(ctx)
                s = replace(s, rear_guard=rear, rear_guard_short=short)
                g = deploy(ctx, g, rear, [h for h in spots if ctx.in_rear_rows(h)])
            g = deploy(ctx, g, ctx.column(col), spots)
            g = deploy(ctx, g, [leader], spots)
            yield Log("9.2 C" if col == "II" else "9.2 D", f"Column {col} musters around {centre}")
    dp = sc.file.dupont
    entry = ctx.near(dp.entry_hex, ctx.td.dupont_entry.radius)
    if "dupont_arrived" in g.flags and not s.dupont_first:
        g = deploy(ctx, g, dp.first_group, entry)                        # 9.6.2 C
        delay = yield _shared((sc.key, "delay"), partial(second_group_delay, sc), "9.6.2 D", "second group delay")
        s = replace(s, dupont_first=True, dupont_second=g.turn + delay)
        yield Log("9.6.2 C", f"Dupont's first group enters at {dp.entry_hex}; the second follows on turn "
                             f"{g.turn + delay}")
    if s.dupont_second is not None and g.turn >= s.dupont_second:
        g = deploy(ctx, g, dp.second_group, entry)
        s = replace(s, dupont_second=None)
        yield Log("9.6.2 D", "Dupont's second group enters")
    if "elite" in sc.units and g.piece("elite").hex is not None and "elite_disbanded" not in g.flags:
        # 8.3 B: in any Reinforcement Phase the French may break the Elite battalion up for good, giving
        # the 100th and 103rd back their printed FF and MF (8.3 A); it is not a loss (10.2.2)
        pick = yield Choose(("keep", "disband"), rule="8.3 B", player="french", label="disband the Elite battalion?")
        if pick == "disband":
            g = g.with_piece("elite", hex=None, status=Status.DISBANDED).with_flag("elite_disbanded")
            yield Log("8.3 B", "the French disband the Elite battalion")
    if "11.4" in s.options and "optional_11.4" not in g.flags and g.turn >= ctx.td.column_iv.first_turn:
        if (yield _shared(("column IV", g.turn), partial(column_iv_release, g.turn), "11.4.1",     # 11.4.1
                          "Column IV release")):
            c = ctx.td.column_iv
            near = ctx.near(c.hex, c.radius)
            # our reading: a unit with no room within one hex goes to the nearest hex beyond
            g = deploy(ctx, g, ctx.column("IV") + ["bagration"], near + ctx.near(c.hex, c.radius + 2))
            g = g.with_flag("optional_11.4")
            yield Log("11.4.1", f"Column IV musters around {c.hex}; the Coalition needs two more French "
                                "battalions for each victory level (11.4.2)")
    s = replace(s, game=g)
    s = yield from wounded_return(ctx, s)
    return (yield from regroup_segment(ctx, s))


def rear_guard(ctx: Queries) -> Steps[tuple[tuple[str, ...], int]]:
    """9.2 E: as Column II musters the Coalition names its Rear Guard, up to four battalions and two
    cavalry units of the column; each one short raises the Coalition's victory thresholds by one
    (9.2 G; more gives nothing). Returns (the units, the shortfall)."""
    need = ctx.sc.file.victory.rear_guard
    col = ctx.column("II")
    picked: list[str] = []
    short = 0
    for kind in ("infantry", "cavalry"):
        n = 0
        while n < getattr(need, kind):
            left = tuple(u for u in col if ctx.sc.units[u].kind == kind and u not in picked)
            if not left:
                break
            pick = yield Choose(left + ("done",), rule="9.2 E", player="coalition",
                                label=f"Rear Guard: leave which {kind} unit behind?")
            if pick == "done":
                break
            picked.append(pick)
            n += 1
        short += getattr(need, kind) - n
    yield Log("9.2 E", f"Rear Guard: {', '.join(picked) or 'none'}" + (
        f"; {short} short, so the Coalition needs {short} more French battalions per level (9.2 G)" if short
        else " (the full 4 battalions and 2 cavalry: victory unchanged, 9.2 F)"))
    return tuple(picked), short


def regroup_segment(ctx: Queries, s: TbfState) -> Steps[TbfState]:
    """5.3: each side may try to bring back one eliminated (not surrendered) infantry unit. A unit that
    returns is placed within two hexes of one of its leaders, two away from the enemy (5.3 E), and still
    counts as lost for the Coalition's levels (10.2.6, kept in ``TbfState.regrouped``). The Elite battalion
    regrouped is not placed: the 100th and 103rd fight at their printed values again and it stays one unit
    lost (8.3 C)."""
    sc = ctx.sc
    g = s.game
    regrouped = s.regrouped
    for side in SIDES:
        dead = sorted(u for u, d in sc.units.items() if d.side == side and d.kind == "infantry"
                      and g.piece(u).status == Status.ELIMINATED
                      and not (u == "elite" and "elite_regrouped" in g.flags))
        if not dead:
            continue
        pick = yield Choose(tuple(["none"] + dead), rule="5.3 B", player=side, label="regroup which unit?")
        if pick == "none":
            continue
        if (yield _shared(("regroup",), partial(regroup), "5.3 D", "Regroup")):
            if pick == "elite":                                           # 8.3 C
                g = g.with_flag("elite_regrouped")
                yield Log("8.3 C", "the Elite battalion is regrouped: the 100th and 103rd fight at their printed "
                                   "values again; it is not placed and stays one unit lost (10.2.6)")
                continue
            spots = regroup_hexes(sc, g, pick)                            # 5.3 E
            g2 = g.with_piece(pick, status=Status.NORMAL)
            placed = deploy(ctx, g2, [pick], spots) if spots else g2
            if placed.piece(pick).hex is not None:
                g = placed
                regrouped += (pick,)                                      # 10.2.6
                yield Log("5.3 D", f"{pick} regroups in {g.piece(pick).hex}")
    return replace(s, game=g, regrouped=regrouped)
