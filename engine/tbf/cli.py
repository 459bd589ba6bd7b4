"""``vedette tbf ...``: Fatigue Check odds, fire and melee calculators, charge trees, map queries.

Every probability is printed as an exact fraction string with a float beside it.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from engine.core.errors import DataError

from .calc import (charge_summary, check_grid, check_summary, fighter_from_kv, fire_summary, firer_from_kv,
                   melee_summary)
from .fatigue import CheckSpec
from .fire import FireSetup
from .melee import MeleeSetup
from .tables import load_tables

__all__ = ["register"]


def _tables(args):
    return load_tables(getattr(args, "tables", None))


def _add_tables(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", metavar="FILE", help="a tables file in the format of docs/tbf.md "
                   "(default: the shipped provisional charts)")


def _check(args) -> dict[str, Any]:
    t = _tables(args)
    spec = CheckSpec(args.check, args.fv, args.status, tuple(args.leader_cv or ()), tuple(args.mod or ()), args.drm)
    return check_summary(t, spec)


def _checks(args) -> dict[str, Any]:
    return check_grid(_tables(args), tuple(args.leader_cv or ()), args.status)


def _fire(args) -> dict[str, Any]:
    t = _tables(args)
    firers = tuple(firer_from_kv(s, i) for i, s in enumerate(args.firer))
    terrain_drm = 0
    if args.terrain:
        from engine.core.errors import RuleViolation
        tt = t.terrain.terrain.get(args.terrain)
        if tt is None:
            raise RuleViolation("6.3.7 C", f"unknown terrain {args.terrain!r} (one of {', '.join(t.terrain.terrain)})")
        terrain_drm = tt.fire_drm
    setup = FireSetup(firers, defensive=args.defensive, night=args.night, terrain_drm=terrain_drm,
                      modifiers=tuple(args.mod or ()), drm=args.drm, shift=args.shift,
                      cavalry_fire=args.cavalry_fire, ammo_halved=args.ammo_halved)
    return fire_summary(t, setup)


def _melee(args) -> dict[str, Any]:
    t = _tables(args)
    att = tuple(fighter_from_kv(s, "attacker", i) for i, s in enumerate(args.attacker))
    dfn = tuple(fighter_from_kv(s, "defender", i) for i, s in enumerate(args.defender))
    shift = args.shift
    if args.terrain:
        from engine.core.errors import RuleViolation
        tt = t.terrain.terrain.get(args.terrain)
        if tt is None:
            raise RuleViolation("6.4 H", f"unknown terrain {args.terrain!r} (one of {', '.join(t.terrain.terrain)})")
        shift += tt.melee_shift
    setup = MeleeSetup(att, dfn, shift=shift, shifts=tuple(args.named_shift or ()), drm=args.drm,
                       drms=tuple(args.mod or ()), attacker_leaders=tuple(args.attacker_leader or ()),
                       defender_leaders=tuple(args.defender_leader or ()))
    return melee_summary(t, setup)


def _read_spec(path: str) -> dict:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError:
        raise DataError(path, "", "an existing, readable CHARGE file (YAML or JSON)") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DataError(path, "", f"valid YAML/JSON ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise DataError(path, "", "a mapping with charger, path and targets")
    return data


def _charge(args) -> dict[str, Any]:
    from .board import load_board
    from .charge import charge_from_spec
    t = _tables(args)
    spec = _read_spec(args.charge)
    board = load_board(args.map) if (args.map or spec.get("map")) else None
    if board is None:
        from .board import default_grid
        setup = charge_from_spec(spec, default_grid(), args.charge)
    else:
        setup = charge_from_spec(spec, board.grid, args.charge, terrain=board.charge_terrain(t),
                                 los=lambda a, b: board.los(a, b, t, viewer="cavalry").clear)
    policy = None
    if args.no_reactions:
        from .policies import passive
        policy = passive
    from engine.core.procedure import first_option
    return charge_summary(t, setup, tree=not args.no_tree, max_depth=args.depth, policy=policy or first_option)


def _los(args) -> dict[str, Any]:
    from .board import load_board
    t = _tables(args)
    b = load_board(args.map)
    r = b.los(args.a, args.b, t, viewer=args.kind, enemy=frozenset(args.enemy or ()), friendly=frozenset(args.friend or ()))
    return {"from": args.a, "to": args.b, "viewer": args.kind, "clear": r.clear, "blocked_by": r.blocked_by,
            "rule": r.rule, "path": r.path, "provenance": b.provenance("terrain_rows")}


def _map(args) -> dict[str, Any]:
    from .board import load_board
    b = load_board(args.map)
    if args.hex:
        return b.describe(args.hex)
    return b.summary()


def register(subparsers) -> None:
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
    lo.add_argument("--kind", default="artillery", help="viewer: artillery, howitzer, cavalry, infantry")
    lo.add_argument("--enemy", action="append", metavar="HEX", help="an enemy-occupied hex (blocks, 4.4 E)")
    lo.add_argument("--friend", action="append", metavar="HEX", help="a friendly-occupied hex (blocks cavalry, 4.4 D)")
    lo.add_argument("--map", help="a map file (default: Dürenstein)")
    _add_tables(lo)
    lo.set_defaults(handler=_los)

    mp = sub.add_parser("map", help="the Dürenstein map: summary, or one hex")
    mp.add_argument("hex", nargs="?")
    mp.add_argument("--map", help="a map file (default: Dürenstein)")
    mp.set_defaults(handler=_map)
