"""6.1 Activation: who a leader's activation reaches (6.1.1-6.1.3), a leaderless command's (6.1.4), the
scenario's limits on acting (9.1 E, 9.2, 9.4, see :mod:`.exclusive`), the Out of Command check (6.1.3 C);
in the game, opening an impulse by a leader or a leaderless command, taking a unit along (6.1.3 A), and
whether a unit is one of the impulse's (every action of a unit asks)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Log, Roll

from ..fatigue import CheckSpec, check_sub
from ..scenario import Scenario
from ..steps import Steps
from ..turn import turn_data
from .actions import Activate, ActivateCommand, Attach, OutOfCommand
from .exclusive import activation_allowed
from .position import current_fv, leader_cvs
from .queries import Queries
from .rout import apply_status, continue_rout
from .state import GameState, Impulse, TbfState, replace
from .types import LIVE, Segment, Side, Status

__all__ = ["activation_plan", "choose_subordinates", "leaderless_activation", "may_activate", "activate",
           "out_of_command_check",
           "check_activate", "check_activate_command", "do_activate", "do_activate_command", "check_actor",
           "check_out_of_command", "do_out_of_command", "check_attach", "do_attach"]


def activation_plan(sc: Scenario, st: GameState, leader_id: str, declined: frozenset[str] = frozenset()
                    ) -> dict[str, Any]:
    """Which leaders and units a leader's activation reaches (6.1.1-6.1.3), and which units of his
    command are out of range and would need an Out of Command Fatigue Check (6.1.3 C). ``declined``: the
    subordinate leaders his owner chose not to activate with him (6.1.1 B-C, 6.1.2 A-B say "may"); they
    and the leaders below them are not reached through them."""
    if leader_id not in sc.leaders:
        raise RuleViolation("6.1 B", f"{leader_id!r} is not a leader")
    lp = st.piece(leader_id)
    if lp.hex is None or lp.status != Status.NORMAL:
        raise RuleViolation("6.1 B", f"{leader_id} is not on the map")
    if lp.activated:
        raise RuleViolation("6.1.3 E", f"{leader_id} has already activated this turn")
    key = (sc.key, st, leader_id, declined)
    got = _PLANS.get(key)
    if got is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        got = _PLANS[key] = _activation_plan(sc, st, leader_id, declined)
    leaders, in_cmd, out_cmd, extra = got
    return {"leader": leader_id, "leaders": list(leaders), "units": list(in_cmd), "out_of_command": list(out_cmd),
            "extra_units_allowed": sc.leaders[leader_id].cv, "extra_candidates": list(extra), "rule": "6.1.1-6.1.3"}


#: the leaders reached, the units in command, those out of range (6.1.3 C), the extra candidates (6.1.3 A)
Plan = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
#: (scenario, position, leader, declined) -> his plan, as tuples (the answer's lists are copies)
_PLANS: dict[tuple[str, GameState, str, frozenset[str]], Plan] = {}


def _activation_plan(sc: Scenario, st: GameState, leader_id: str, declined: frozenset[str] = frozenset()) -> Plan:
    g = sc.board.grid
    lp = st.piece(leader_id)
    ldr = sc.leaders[leader_id]
    td = turn_data()
    reach_leader = td.command_reach.leaders                     # 6.1.1 B-C, 6.1.2 A-B
    subs, owns = _command_tables(sc)
    leaders = [leader_id]
    frontier = [leader_id]
    while frontier:
        cur = frontier.pop()
        r = reach_leader[sc.leaders[cur].rank]
        for sub in subs.get(cur, ()):
            if sub not in leaders and sub not in declined:
                sp = st.piece(sub)
                if sp.hex and sp.status == Status.NORMAL and not sp.activated and g.distance(sp.hex, st.piece(cur).hex) <= r:
                    leaders.append(sub)
                    frontier.append(sub)
    # each unit of his side that one of these leaders commands, in or out of that leader's reach
    ok: dict[str, bool] = {}
    units = sc.units
    for x in leaders:
        xh = st.piece(x).hex
        for uid, rng in owns[x]:
            if ok.get(uid):
                continue
            p = st.piece(uid)
            if p.hex is None or p.status not in LIVE or p.activated or units[uid].side != ldr.side:
                continue
            ok[uid] = g.distance(xh, p.hex) <= rng
    in_cmd = sorted(u for u, v in ok.items() if v)
    out_cmd = sorted(u for u, v in ok.items() if not v)
    reach = td.extra_units_reach.hexes
    extra = sorted(p.id for p in st.placed if p.id in units and units[p.id].side == ldr.side and p.id not in ok
                   and p.status in LIVE and not p.activated and g.distance(p.hex, lp.hex) <= reach)   # 6.1.3 A
    return tuple(leaders), tuple(in_cmd), tuple(out_cmd), tuple(extra)


#: each leader's direct subordinates; the units each leader commands, with the reach he commands them at
CommandTables = tuple[dict[str, tuple[str, ...]], dict[str, tuple[tuple[str, int], ...]]]
_COMMAND_TABLES: dict[str, CommandTables] = {}


def _command_tables(sc: Scenario) -> CommandTables:
    """From the order of battle alone (made once per scenario): each leader's direct subordinates (6.1.1
    B-C, 6.1.2), in the order of battle's order, and the units each leader commands with the reach he
    commands them at: (unit, hexes), 6.1.1 A, 6.1.2 A."""
    got = _COMMAND_TABLES.get(sc.key)
    if got is None:
        reach_units = turn_data().command_reach.units
        subs: dict[str, list[str]] = {}
        for x in sc.leaders.values():
            if x.superior:
                subs.setdefault(x.superior, []).append(x.id)
        owns: dict[str, tuple[tuple[str, int], ...]] = {}
        for x in sc.leaders.values():
            mine: list[tuple[str, int]] = []
            for uid, u in sc.units.items():
                if (x.command == u.command
                        or (x.rank == "division" and x.command == u.command.split("-")[0])
                        # 6.1.1 D: a division's own (black-factor) units answer to any leader of that division
                        or ("-" not in u.command and x.command.split("-")[0] == u.command and x.side == Side.FRENCH)
                        # 9.2 I: Column VI is directly under Kutusov (a column leader's 4-hex reach, 6.1.2 A)
                        or (u.command == "VI" and x.rank == "army")):
                    mine.append((uid, reach_units["column"] if (u.command == "VI" and x.rank == "army")
                                 else reach_units[x.rank]))
            owns[x.id] = tuple(mine)
        got = _COMMAND_TABLES[sc.key] = ({k: tuple(v) for k, v in subs.items()}, owns)
    return got


def leaderless_activation(sc: Scenario, st: GameState, command: str, designated: str) -> dict:
    """6.1.4: a command whose leaders are all gone activates around one designated unit: its units in or
    next to that unit's hex are in command, the others must pass the 6.1.3 C check."""
    if any(x.command == command and st.piece(x.id).status == Status.NORMAL and st.piece(x.id).hex
           for x in sc.leaders.values()):
        raise RuleViolation("6.1.4", f"command {command} still has a leader on the map")
    d = st.piece(designated)
    if designated not in sc.units or sc.units[designated].command != command or d.hex is None:
        raise RuleViolation("6.1.4 A", f"{designated} is not a unit of command {command} on the map")
    g = sc.board.grid
    inside: list[str] = []
    outside: list[str] = []
    for uid, u in sc.units.items():
        p = st.piece(uid)
        if u.command != command or p.hex is None or p.status not in LIVE or p.activated:
            continue
        (inside if g.distance(p.hex, d.hex) <= 1 else outside).append(uid)
    return {"command": command, "designated": designated, "units": sorted(inside), "out_of_command": sorted(outside),
            "rule": "6.1.4 A"}



#: the rule by which a leader of each rank activates the leaders below him
_SUBORDINATES_RULE = {"corps": "6.1.1 C", "division": "6.1.1 B", "army": "6.1.2 B", "column": "6.1.2 A"}


def choose_subordinates(sc: Scenario, st: GameState, leader_id: str) -> Steps[frozenset[str]]:
    """6.1.1 B-C, 6.1.2 A-B: the leaders within reach below ``leader_id`` *may* be activated with him (each
    one then activates his own, and so on down): his owner is asked about each, in the order the command
    chain reaches them, activating first (as before). A leader kept back may open an impulse of his own later
    this turn (6.1.3 E). A procedure returning the leaders kept back."""
    g = sc.board.grid
    reach_leader = turn_data().command_reach.leaders
    subs, _ = _command_tables(sc)
    side = sc.side(leader_id)
    reached, frontier = [leader_id], [leader_id]
    declined: set[str] = set()
    while frontier:
        cur = frontier.pop()
        r = reach_leader[sc.leaders[cur].rank]
        for sub in subs.get(cur, ()):
            if sub in reached or sub in declined:
                continue
            sp = st.piece(sub)
            if not (sp.hex and sp.status == Status.NORMAL and not sp.activated
                    and g.distance(sp.hex, st.piece(cur).hex) <= r):
                continue
            if activation_allowed(sc, st, sub)[0]:
                pick = yield Choose(("activate", "keep"), rule=_SUBORDINATES_RULE[sc.leaders[cur].rank], player=side,
                                    label=f"{cur} activates {sub} too?")
                if pick == "keep":
                    declined.add(sub)
                    continue
            reached.append(sub)
            frontier.append(sub)
    return frozenset(declined)


def may_activate(sc: Scenario, st: GameState, ids: Iterable[str]) -> None:
    """The scenario's activation limits (9.1 E, 9.2, 9.4) for units acting in their own impulse."""
    for i in ids:
        if i.startswith("gb:") or i in sc.leaders:
            continue
        ok, why = activation_allowed(sc, st, i)
        if not ok:
            raise RuleViolation(why.split(":")[0], f"{i} may not act yet ({why})")


def activate(sc: Scenario, st: GameState, leader_id: str) -> tuple[dict[str, Any], GameState]:
    """6.1: activate a leader during an impulse. Returns who the activation reaches (6.1.1-6.1.3, see
    ``rules.activation_plan``) and the new state with every leader it reaches flipped to his activated
    side (6.1.3 B), so none of them activates again this turn (6.1.3 E). The scenario's limits
    (9.1 E, 9.2, 9.4) apply to the leader. Units are marked activated when they act."""
    if leader_id not in sc.leaders:
        raise RuleViolation("6.1 B", f"{leader_id!r} is not a leader")
    ok, why = activation_allowed(sc, st, leader_id)
    if not ok:
        raise RuleViolation(why.split(":")[0], f"{leader_id} may not activate yet ({why})")
    plan = activation_plan(sc, st, leader_id)
    for ldr in plan["leaders"]:
        st = st.with_piece(ldr, activated=True)
    return plan, st


def out_of_command_check(sc: Scenario, st: GameState, uid: str) -> Steps[tuple[bool, GameState]]:
    """6.1.3 C: a unit outside its leader's command range checks to act this impulse; returns
    (may act, new state) -- a fatigued unit that fails routs (6.7 A)."""
    p = st.piece(uid)
    if p.hex is None or sc.is_leader(uid):
        raise RuleViolation("6.1.3 C", f"{uid} is not a unit on the map")
    out = yield check_sub(sc.tables, CheckSpec("out_of_command", current_fv(sc, p), p.status, leader_cvs(sc, st, uid),
                                               unit=uid), rule="6.1.3 C")
    st = yield from apply_status(sc, st, uid, out.status)
    return (out.effect == "act", st)



# ------------------------------------------------------------------------------------------------
# In the game
# ------------------------------------------------------------------------------------------------
def check_activate(ctx: Queries, s: TbfState, a: Activate) -> None:
    sc = ctx.sc
    if a.leader not in sc.leaders:
        raise RuleViolation("6.1 B", f"{a.leader!r} is not a leader")
    if sc.side(a.leader) != a.side:
        raise RuleViolation("6.1 B", f"{a.leader} is not a {a.side} leader")
    why = ctx.can_activate(s, a.leader)
    if why == "6.1.3 E":
        raise RuleViolation("6.1.3 E", f"{a.leader} has already been activated this turn")
    if why == "6.1 B":
        raise RuleViolation("6.1 B", f"{a.leader} is not on the map")
    if why is not None:
        _, reason = activation_allowed(sc, s.game, a.leader)
        raise RuleViolation(why, f"{a.leader} may not activate yet ({reason})")


def check_activate_command(ctx: Queries, s: TbfState, a: ActivateCommand) -> None:
    sc, g = ctx.sc, s.game
    if a.unit not in sc.units or sc.side(a.unit) != a.side:
        raise RuleViolation("6.1.4 A", f"{a.unit!r} is not a {a.side} unit")
    if f"command {a.command}" in s.activations:
        raise RuleViolation("6.1.4 B", f"command {a.command} has already been activated this turn")
    if a.command not in ctx.leaderless(s, a.side):
        raise RuleViolation("6.1.4", f"command {a.command} is not a {a.side} command left without its leaders")
    if g.piece(a.unit).activated:
        raise RuleViolation("6.1.3 E", f"{a.unit} has already been activated this turn")
    leaderless_activation(sc, g, a.command, a.unit)               # 6.1.4, 6.1.4 A
    ok, why = activation_allowed(sc, g, a.unit)
    if not ok:
        raise RuleViolation(why.split(":")[0], f"{a.unit} may not activate yet ({why})")


def do_activate(ctx: Queries, s: TbfState, a: Activate) -> Steps[TbfState]:
    sc = ctx.sc
    g = s.game
    declined = yield from choose_subordinates(sc, g, a.leader)                # 6.1.1 B-C, 6.1.2 A-B
    plan = activation_plan(sc, g, a.leader, declined)
    leaders = tuple(l for l in plan["leaders"] if activation_allowed(sc, g, l)[0])
    units = tuple(u for u in plan["units"] if activation_allowed(sc, g, u)[0])
    ooc = tuple(u for u in plan["out_of_command"] if activation_allowed(sc, g, u)[0])
    extra = tuple(u for u in plan["extra_candidates"] if activation_allowed(sc, g, u)[0])
    for l in leaders:
        g = g.with_piece(l, activated=True)                               # 6.1.3 B
    for u in units:
        g = g.with_piece(u, activated=True)                               # 6.1.3 E
    r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
    ch = sc.tables.levels
    levels = tuple((k, getattr(ch.level2[r], k), getattr(ch.level3[r], k)) for k in ("infantry", "cavalry", "artillery"))
    yield Log("6.1", f"{a.leader} activates {', '.join(leaders)}: {len(units)} units in command, "
                     f"{len(ooc)} out of range")
    imp = Impulse(Side(a.side), a.leader, Segment.MOVEMENT, leaders, units, ooc, (), extra,
                  sc.leaders[a.leader].cv if extra else 0, levels)
    s = replace(s, game=g, impulse=imp, passes=0, activations=s.activations + (a.leader,))
    for u in units:                                                       # 6.7 F: routed units run on
        p = s.game.piece(u)
        if p.hex is not None and p.status == Status.ROUTED:
            s = yield from continue_rout(ctx.sc, s, u)
    return s


def do_activate_command(ctx: Queries, s: TbfState, a: ActivateCommand) -> Steps[TbfState]:
    sc, g = ctx.sc, s.game
    plan = leaderless_activation(sc, g, a.command, a.unit)
    units = tuple(u for u in plan["units"] if activation_allowed(sc, g, u)[0])
    ooc = tuple(u for u in plan["out_of_command"] if activation_allowed(sc, g, u)[0])
    for u in units:
        g = g.with_piece(u, activated=True)
    r = yield Roll("d6", rule="6.2.3 A", label="Level 2/3 Movement Chart")
    ch = sc.tables.levels
    levels = tuple((k, getattr(ch.level2[r], k), getattr(ch.level3[r], k)) for k in ("infantry", "cavalry", "artillery"))
    yield Log("6.1.4 A", f"command {a.command} has no leader left: {a.unit} takes local command; "
                         f"{len(units)} units in or next to its hex, {len(ooc)} must check (6.1.3 C)")
    imp = Impulse(Side(a.side), f"command {a.command}", Segment.MOVEMENT, (), units, ooc, (), (), 0, levels)
    s = replace(s, game=g, impulse=imp, passes=0, activations=s.activations + (f"command {a.command}",))
    for u in units:
        p = s.game.piece(u)
        if p.hex is not None and p.status == Status.ROUTED:
            s = yield from continue_rout(ctx.sc, s, u)
    return s


def check_actor(ctx: Queries, s: TbfState, uid: str, what: str, leaders_ok: bool = False) -> None:
    """``uid`` is one of the activated units (or leaders) of this impulse and may act."""
    sc, imp = ctx.sc, s.activation
    if uid not in sc.units and uid not in sc.leaders:
        raise RuleViolation("2.4", f"no unit or leader {uid!r} in this game")
    if sc.side(uid) != imp.side:
        raise RuleViolation("6.1", f"{uid} is not a {imp.side} unit")
    if sc.is_leader(uid):
        if not leaders_ok:
            raise RuleViolation("6.3.5" if what == "fire" else "6.4 B", f"leader {uid} cannot {what}")
        if uid not in imp.leaders:
            raise RuleViolation("6.1.3 B", f"leader {uid} was not activated in this impulse")
        return
    if uid in imp.units:
        return
    if uid in imp.out_of_command:
        if uid in imp.tried:
            raise RuleViolation("6.1.3 C", f"{uid} failed its Out of Command check: it may not {what} this turn")
        raise RuleViolation("6.1.3 C", f"{uid} is out of its leader's command range: it must pass an Out of "
                                       f"Command check first")
    if ctx.pieces(s)[uid].activated:
        raise RuleViolation("6.1.3 E", f"{uid} has already been activated this turn")
    raise RuleViolation("6.1", f"{uid} is not activated in this impulse (leader {imp.leader})")


def check_out_of_command(ctx: Queries, s: TbfState, a: OutOfCommand) -> None:
    imp = s.activation
    if a.unit not in imp.out_of_command:
        raise RuleViolation("6.1.3 C", f"{a.unit} is not a unit of this command outside its leader's range")
    if a.unit in imp.tried:
        raise RuleViolation("6.1.3 C", f"{a.unit} has already taken its Out of Command check this turn")


def do_out_of_command(ctx: Queries, s: TbfState, a: OutOfCommand) -> Steps[TbfState]:
    ok, g = yield from out_of_command_check(ctx.sc, s.game, a.unit)
    imp = replace(s.activation, tried=s.activation.tried + (a.unit,))
    if ok and g.piece(a.unit).hex is not None:
        imp = replace(imp, units=imp.units + (a.unit,))
        g = g.with_piece(a.unit, activated=True)
        yield Log("6.1.3 C", f"{a.unit} passes and joins the activation")
    else:
        yield Log("6.1.3 C", f"{a.unit} fails: it may not move or act this turn, only fire defensively")
    return replace(s, game=g, impulse=imp)


def check_attach(ctx: Queries, s: TbfState, a: Attach) -> None:
    imp = s.activation
    if a.unit in imp.units:
        raise RuleViolation("6.1.3 E", f"{a.unit} is already activated in this impulse")
    if a.unit not in imp.extra:
        raise RuleViolation("6.1.3 A", f"{a.unit} is not a friendly unit outside {imp.leader}'s command within "
                                       f"{ctx.td.extra_units_reach.hexes} hexes of him")
    if imp.extra_left <= 0:
        raise RuleViolation("6.1.3 A", f"{imp.leader} has taken along as many extra units as his CV allows")


def do_attach(ctx: Queries, s: TbfState, a: Attach) -> Steps[TbfState]:
    was = s.activation
    imp = replace(was, units=was.units + (a.unit,), extra_left=was.extra_left - 1)
    yield Log("6.1.3 A", f"{s.activation.leader} takes {a.unit} along")
    return replace(s, game=s.game.with_piece(a.unit, activated=True), impulse=imp)
