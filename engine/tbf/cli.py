"""``vedette tbf ...``: Fatigue Check odds, fire and melee calculators, charge trees, map queries.

Every probability is printed as an exact fraction string with a float beside it.
"""
from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from engine.core.data import load_data
from engine.core.errors import DataError, RuleViolation
from engine.core.game_cli import act as core_act, int_arg, register_game_verbs
from engine.core.procedure import Procedure, distribution, first_option

from .board import default_grid, load_board
from .calc import (action_summary, charge_summary, check_grid, check_summary, dist_rows, fighter_from_kv, fire_summary,
                   firer_from_kv, melee_summary, phase_summary, state_from_placements)
from .charge import charge_from_spec
from .fatigue import CheckSpec
from .fire import FireSetup
from .game.activation import activation_plan
from .game.phases import initiative
from .game.protocol import TbfRules
from .game.reinforcement import (column_muster, dupont_arrival, mortier_alert, optional_arrival, regroup,
                                 second_group_delay)
from .game.retreat import retreat, retreat_options
from .game.rout import rout_path
from .game.search import reachable
from .game.victory import victory, victory_json
from .melee import MeleeSetup
from .policies import POLICIES, passive
from .game.state import GameState
from .scenario import Scenario, load_scenario
from .tables import Tables, load_tables

__all__ = ["register"]



def _tables(args: argparse.Namespace) -> Tables:
    return load_tables(getattr(args, "tables", None))


def _add_tables(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", metavar="FILE", help="a tables file in the format of docs/tbf.md "
                   "(default: the shipped provisional charts)")


def _check(args: argparse.Namespace) -> dict[str, Any]:
    t = _tables(args)
    spec = CheckSpec(args.check, args.fv, args.status, tuple(args.leader_cv or ()), tuple(args.mod or ()), args.drm)
    return check_summary(t, spec)


def _checks(args: argparse.Namespace) -> dict[str, Any]:
    return check_grid(_tables(args), tuple(args.leader_cv or ()), args.status)


def _fire(args: argparse.Namespace) -> dict[str, Any]:
    t = _tables(args)
    firers = tuple(firer_from_kv(s, i) for i, s in enumerate(args.firer))
    terrain_drm = 0
    if args.terrain:
        tt = t.terrain.terrain.get(args.terrain)
        if tt is None:
            raise RuleViolation("6.3.7 C", f"unknown terrain {args.terrain!r} (one of {', '.join(t.terrain.terrain)})")
        terrain_drm = tt.fire_drm
    setup = FireSetup(firers, defensive=args.defensive, night=args.night, terrain_drm=terrain_drm,
                      modifiers=tuple(args.mod or ()), drm=args.drm, shift=args.shift,
                      cavalry_fire=args.cavalry_fire, ammo_halved=args.ammo_halved)
    return fire_summary(t, setup)


def _melee(args: argparse.Namespace) -> dict[str, Any]:
    t = _tables(args)
    att = tuple(fighter_from_kv(s, "attacker", i) for i, s in enumerate(args.attacker))
    dfn = tuple(fighter_from_kv(s, "defender", i) for i, s in enumerate(args.defender))
    shift = args.shift
    if args.terrain:
        tt = t.terrain.terrain.get(args.terrain)
        if tt is None:
            raise RuleViolation("6.4 H", f"unknown terrain {args.terrain!r} (one of {', '.join(t.terrain.terrain)})")
        shift += tt.melee_shift
    setup = MeleeSetup(att, dfn, shift=shift, shifts=tuple(args.named_shift or ()), drm=args.drm,
                       drms=tuple(args.mod or ()), attacker_leaders=tuple(args.attacker_leader or ()),
                       defender_leaders=tuple(args.defender_leader or ()))
    return melee_summary(t, setup)


def _read_spec(path: str) -> Any:
    data = load_data(path)   # size, encoding, nesting and alias bounds (core/data.py)
    if not isinstance(data, dict):
        raise DataError(path, "", "a mapping with charger, path and targets")
    return data


def _charge(args: argparse.Namespace) -> dict[str, Any]:
    t = _tables(args)
    spec = _read_spec(args.charge)
    board = load_board(args.map) if (args.map or spec.get("map")) else None
    if board is None:
        setup = charge_from_spec(spec, default_grid(), args.charge)
    else:
        setup = charge_from_spec(spec, board.grid, args.charge, terrain=board.charge_terrain(t),
                                 los=lambda a, b: board.los(a, b, t, viewer="cavalry").clear)
    policy = None
    if args.no_reactions:
        policy = passive
    return charge_summary(t, setup, tree=not args.no_tree, max_depth=args.depth, policy=policy or first_option)


def _los(args: argparse.Namespace) -> dict[str, Any]:
    t = _tables(args)
    b = load_board(args.map)
    r = b.los(args.a, args.b, t, viewer=args.kind, enemy=frozenset(args.enemy or ()), friendly=frozenset(args.friend or ()))
    return {"from": args.a, "to": args.b, "viewer": args.kind, "clear": r.clear, "blocked_by": r.blocked_by,
            "rule": r.rule, "path": r.path, "provenance": b.provenance("terrain_rows")}


def _map(args: argparse.Namespace) -> dict[str, Any]:
    b = load_board(args.map)
    if args.hex:
        return b.describe(args.hex)
    return b.summary()


def _register_calculators(subparsers):
    p = subparsers.add_parser("tbf", help="These Brave Fellows (Dürenstein 1805): fatigue checks, fire, melee, charges",
                              description="These Brave Fellows: exact odds of Fatigue Checks, fire and melee, "
                                          "and charges as probability trees.")
    sub = p.add_subparsers(dest="verb", metavar="VERB")

    c = sub.add_parser("check", help="chance to pass one Fatigue Check (4.2)")
    c.add_argument("--check", required=True, help="reason for the check, e.g. being_charged (see `vedette tbf checks`)")
    c.add_argument("--fv", type=int, required=True, help="the unit's current Fatigue Value")
    c.add_argument("--status", default="normal", help="normal, fatigued or routed")
    c.add_argument("--leader-cv", type=int, action="append", metavar="CV",
                   help="CV of a leader in or next to the unit in its chain of command (repeat for each hex)")
    c.add_argument("--mod", action="append", metavar="NAME", help="a named DRM of this check (see the table)")
    c.add_argument("--drm", type=int, default=0, help="any other DRM")
    _add_tables(c)
    c.set_defaults(handler=_check)

    cs = sub.add_parser("checks", help="chance to pass every Fatigue Check at every FV")
    cs.add_argument("--status", default="normal")
    cs.add_argument("--leader-cv", type=int, action="append", metavar="CV")
    _add_tables(cs)
    cs.set_defaults(handler=_checks)

    f = sub.add_parser("fire", help="fire combat result distribution (6.3)")
    f.add_argument("--firer", action="append", required=True, metavar="ff=N,kind=K,range=R,status=S",
                   help="one firing unit (repeat); kind infantry/artillery/howitzer/cavalry/leader/grand_battery")
    f.add_argument("--defensive", action="store_true", help="Defensive Fire Segment (6.3.6)")
    f.add_argument("--night", action="store_true", help="turn 11 or later (8.1)")
    f.add_argument("--terrain", help="terrain of the target hex (TEC key, e.g. town)")
    f.add_argument("--mod", action="append", metavar="NAME", help="a named DRM of the Fire Combat Table")
    f.add_argument("--drm", type=int, default=0)
    f.add_argument("--shift", type=int, default=0, help="extra column shift (negative = left)")
    f.add_argument("--cavalry-fire", action="store_true", help="optional rule 11.1")
    f.add_argument("--ammo-halved", action="store_true", help="optional rule 11.2 B applies")
    _add_tables(f)
    f.set_defaults(handler=_fire)

    m = sub.add_parser("melee", help="melee result distribution (6.4)")
    m.add_argument("--attacker", action="append", required=True, metavar="mf=N,fv=N[,kind=K,status=S,flank,cv=1+1]")
    m.add_argument("--defender", action="append", required=True, metavar="mf=N,fv=N[,kind=K,status=S]")
    m.add_argument("--terrain", help="terrain of the defender's hex (TEC key)")
    m.add_argument("--shift", type=int, default=0, help="extra column shift (negative = left)")
    m.add_argument("--named-shift", action="append", metavar="NAME", help="a named shift of the Melee Combat Table")
    m.add_argument("--mod", action="append", metavar="NAME", help="a named DRM of the Melee Combat Table")
    m.add_argument("--drm", type=int, default=0)
    m.add_argument("--attacker-leader", action="append", metavar="NAME", help="leader with the attackers (6.5)")
    m.add_argument("--defender-leader", action="append", metavar="NAME", help="leader with the defenders (6.5)")
    _add_tables(m)
    m.set_defaults(handler=_melee)

    ch = sub.add_parser("charge", help="a cavalry charge as an exact probability tree (6.2.8-6.2.11)")
    ch.add_argument("charge", metavar="CHARGE", help="a CHARGE file (YAML/JSON, format in docs/tbf.md)")
    ch.add_argument("--map", nargs="?", const="default", help="check terrain and LOS on a map (default: Dürenstein)")
    ch.add_argument("--no-tree", action="store_true", help="print only the distribution and summary")
    ch.add_argument("--depth", type=int, help="cut the printed tree at this depth")
    ch.add_argument("--no-reactions", action="store_true", help="defenders never counter or reaction charge")
    _add_tables(ch)
    ch.set_defaults(handler=_charge)

    lo = sub.add_parser("los", help="line of sight between two hexes of the map (4.4)")
    lo.add_argument("a")
    lo.add_argument("b")
    lo.add_argument("--kind", default="artillery", choices=["artillery", "howitzer", "cavalry", "infantry"],
                    help="viewer (4.4): artillery, howitzer, cavalry, infantry")
    lo.add_argument("--enemy", action="append", metavar="HEX", help="an enemy-occupied hex (blocks, 4.4 E)")
    lo.add_argument("--friend", action="append", metavar="HEX", help="a friendly-occupied hex (blocks cavalry, 4.4 D)")
    lo.add_argument("--map", help="a map file (default: Dürenstein)")
    _add_tables(lo)
    lo.set_defaults(handler=_los)

    mp = sub.add_parser("map", help="the Dürenstein map: summary, or one hex")
    mp.add_argument("hex", nargs="?")
    mp.add_argument("--map", help="a map file (default: Dürenstein)")
    mp.set_defaults(handler=_map)
    return sub


# ---------------------------------------------------------------------------------------------------
# Scenario verbs: a Dürenstein state (set-up, changed with --place) and actions on it
# ---------------------------------------------------------------------------------------------------
def _state(args: argparse.Namespace) -> tuple[Scenario, GameState]:
    sc = load_scenario(getattr(args, "scenario_dir", None), tables=_tables(args))
    return sc, state_from_placements(sc, getattr(args, "place", None) or (), getattr(args, "turn", None),
                                     getattr(args, "alert", False))


def _add_state(p: argparse.ArgumentParser) -> None:
    p.add_argument("--place", action="append", metavar="ID=HEX[:FACING[:STATUS]]",
                   help="change a piece of the set-up (repeat); HEX 'off' takes it off the map")
    p.add_argument("--turn", type=int, help="game turn (night from turn 11)")
    p.add_argument("--alert", action="store_true", help="Mortier's Alert has succeeded (9.5.2)")
    p.add_argument("--scenario-dir", metavar="DIR", help="a folder with your own map.yaml, units.yaml and "
                   "scenario.yaml (default: data/tbf/durenstein)")
    _add_tables(p)


def _scenario(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    return {"scenario": sc.file.name, "turns": sc.file.turns, "night_from": sc.file.night_from,
            "first_impulse": sc.file.first_impulse,
            "on_map": {p.id: {"hex": p.hex, "facing": sc.board.grid.direction_names[p.facing], "status": p.status,
                              "side": sc.side(p.id)} for p in st.on_map()},
            "control": dict(st.control), "victory_now": victory_json(victory(sc, st)),
            "provenance": {"units": sc.oob.source, "scenario": sc.file.source, "map": sc.board.data.source}}


def _activate(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    return activation_plan(sc, st, args.leader)


def _reach(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    r = reachable(sc, st, args.unit, {2: args.level2, 3: args.level3})
    return {"unit": args.unit, "from": st.piece(args.unit).hex,
            "reachable": {h: {"mp": c, "path": list(p)} for h, (c, p) in sorted(r.items())}}


def _retreat(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    h = st.piece(args.units[0]).hex
    opts = retreat_options(sc, st, tuple(args.units), h)
    d = distribution(partial(retreat, sc, st, tuple(args.units), h))
    return {"from": h, "options": [{"hex": x, "rank": r, "rule": rule} for x, r, rule in opts],
            "outcomes": dist_rows(d)}


def _rout(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    r = rout_path(sc, st, args.unit, just_routed=not args.continuing)
    return {"unit": args.unit, "path": list(r.path), "fate": r.fate, "entered_friends": list(r.entered_friends),
            "rule": "6.7"}


_ACT_WHATS = ("move", "fire", "melee", "charge")


def _act(args: argparse.Namespace) -> Any:
    """``act``: with ``--record`` the game verb (play one action of a recorded game, through the core
    protocol); without it the older calculator (the odds of a move, fire, melee or charge on the set-up)."""
    if args.record:
        args.action = args.what
        return core_act(TbfRules(), args)
    if args.what not in _ACT_WHATS:
        raise DataError("act", "what", f"one of {', '.join(_ACT_WHATS)} (or --record FILE and a game action)",
                        args.what)
    if not args.unit:
        raise DataError("act", "--unit", "at least one acting unit (--unit ID)")
    sc, st = _state(args)
    return action_summary(sc, st, args.what, tuple(args.unit), args.target, tuple(args.path or ()),
                          tuple(args.next or ()), args.defensive, POLICIES[args.policy],
                          ((2, args.level2), (3, args.level3)))


def _roll(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    turn = args.turn or st.turn
    what = args.what
    f: Procedure
    if what == "dupont":
        f, rule = partial(dupont_arrival, sc, turn), "9.6.2"
    elif what == "second-group":
        f, rule = partial(second_group_delay, sc), "9.6.2 D"
    elif what in ("muster-II", "muster-III"):
        f, rule = partial(column_muster, sc, what.split("-")[1], turn), "9.2 B"
    elif what == "alert":
        f, rule = partial(mortier_alert, sc, args.since), "9.5.2"
    elif what == "initiative":
        f, rule = partial(initiative, turn, not args.no_mortier), "3.2"
    elif what == "regroup":
        f, rule = regroup, "5.3"
    else:
        f, rule = partial(optional_arrival, what, args.since), "11.x"
    return {"roll": what, "turn": turn, "rule": rule, "outcomes": dist_rows(distribution(f))}


def _phase(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    return phase_summary(sc, st, args.what, args.side, args.leader, args.unit)


def _victory(args: argparse.Namespace) -> Any:
    sc, st = _state(args)
    return victory_json(victory(sc, st, args.rear_guard_shortfall))


def register(subparsers) -> None:
    """Add ``vedette tbf`` and its verbs: the calculators, the game verbs of the core protocol
    (new, legal, undo, replay, play; ``act`` serves both, see :func:`_act`), then the scenario verbs."""
    sub = _register_calculators(subparsers)
    register_game_verbs(sub, TbfRules, skip=("act",))
    s = sub.add_parser("scenario", help="the Dürenstein set-up: pieces, control, victory now")
    _add_state(s)
    s.set_defaults(handler=_scenario)
    a = sub.add_parser("activate", help="who a leader's activation reaches (6.1)")
    a.add_argument("leader")
    _add_state(a)
    a.set_defaults(handler=_activate)
    r = sub.add_parser("reach", help="hexes a unit can reach this Movement Segment (6.2)")
    r.add_argument("unit")
    r.add_argument("--level2", type=int, default=0, help="Level 2 hexes allowed by the 6.2.3 roll")
    r.add_argument("--level3", type=int, default=0, help="Level 3 hexes allowed by the 6.2.3 roll")
    _add_state(r)
    r.set_defaults(handler=_reach)
    rt = sub.add_parser("retreat", help="retreat priorities and outcomes of a stack (6.6)")
    rt.add_argument("units", nargs="+")
    _add_state(rt)
    rt.set_defaults(handler=_retreat)
    ro = sub.add_parser("rout", help="the rout move of a unit (6.7)")
    ro.add_argument("unit")
    ro.add_argument("--continuing", action="store_true", help="already routed at the start of its Movement Segment (6.7 F)")
    _add_state(ro)
    ro.set_defaults(handler=_rout)
    ac = sub.add_parser("act", help="with --record: play one action of a game (JSON or text, see `legal`); "
                                    "without: odds of a move, fire, melee or charge on the scenario state")
    ac.add_argument("what", metavar="ACTION|WHAT",
                    help="with --record: the action; without: move, fire, melee or charge")
    ac.add_argument("--record", "-r", default=None, metavar="FILE", help="the game record to play the action in")
    ac.add_argument("--dice", default=None, help="with --record: die faces typed in, e.g. 3,5,1")
    ac.add_argument("--choices", default=None, help="with --record: JSON list of answers to the action's questions")
    ac.add_argument("--unit", action="append", metavar="ID", help="acting unit (repeat)")
    ac.add_argument("--target", "--to", dest="target", help="target hex (fire, melee) or destination (move)")
    ac.add_argument("--level2", type=int, default=0, help="move: Level 2 hexes allowed by the 6.2.3 roll")
    ac.add_argument("--level3", type=int, default=0, help="move: Level 3 hexes allowed by the 6.2.3 roll")
    ac.add_argument("--defensive", action="store_true")
    ac.add_argument("--path", nargs="+", metavar="HEX", help="charge path, ending on the first target")
    ac.add_argument("--next", nargs="+", metavar="HEX", help="further charge targets, in order")
    ac.add_argument("--policy", choices=["aggressive", "passive"], default="aggressive",
                    help="defenders' counter/reaction charges and other choices")
    _add_state(ac)
    ac.set_defaults(handler=_act)
    ro2 = sub.add_parser("roll", help="odds of a Reinforcement Phase or initiative roll")
    ro2.add_argument("what", choices=["dupont", "second-group", "muster-II", "muster-III", "alert", "initiative",
                                      "regroup", "klein", "murat", "dumonceau"])
    ro2.add_argument("--since", type=int, default=0, help="turns since the first Alert roll / turns available")
    ro2.add_argument("--no-mortier", action="store_true", help="Mortier is off the map (3.2 A)")
    _add_state(ro2)
    ro2.set_defaults(handler=_roll)
    ph = sub.add_parser("phase", help="odds of one step of the turn on the scenario state (3.1, 3.2, 6.1, 4.1.10 B, 7.0)")
    ph.add_argument("what", choices=["reinforcement", "initiative", "activate", "out-of-command",
                                     "end-of-activation", "recovery"])
    ph.add_argument("--side", choices=["french", "coalition"], help="end-of-activation: whose phase ends")
    ph.add_argument("--leader", metavar="ID", help="activate: the leader")
    ph.add_argument("--unit", metavar="ID", help="out-of-command: the unit")
    _add_state(ph)
    ph.set_defaults(handler=_phase)
    v = sub.add_parser("victory", help="victory level of a state (10.0)")
    # 9.2 F-G: the full Rear Guard is 4 battalions and 2 squadrons; leaving more behind gains nothing
    v.add_argument("--rear-guard-shortfall", type=int_arg("--rear-guard-shortfall", 0, 6), default=0,
                   help="units short of the 9.2 F rear guard (0-6)")
    _add_state(v)
    v.set_defaults(handler=_victory)
