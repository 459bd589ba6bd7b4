"""``vedette lob ...``: exact combat odds, artillery fire odds, the command-point schedule, the map, and the
game verbs every system shares (``new|legal|act|undo|replay|play``, from :mod:`engine.core.game_cli`).

The older spellings of the game verbs keep working: the record as the first argument (``legal game.json``,
``act game.json ACTION``, ``undo game.json``), ``replay --units``, ``play --bid SIDE=N``, ``act`` on a missing
record (it is created with ``--options``/``--seed``, and kept only if the action is played), ``legal``
with no record (the set-up)."""
from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.dist import prob_json
from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import jsonable

__all__ = ["register"]


if TYPE_CHECKING:
    from .board import Board
    from .fight import CombatContext
    from .policies import CombatPolicy
    from .protocol import LobRules
    from .tables import Tables
    from .units import Unit

def _frac(x: Fraction | int) -> dict[str, Any]:
    x = Fraction(x)
    return {"fraction": f"{x.numerator}/{x.denominator}", "float": float(x)}


def _tables(args: argparse.Namespace) -> Tables:
    from .tables import load_tables
    return load_tables(getattr(args, "tables", None))


def _board(args: argparse.Namespace) -> Board:
    from .board import load_board
    return load_board(getattr(args, "map", None))


def _policy(args: argparse.Namespace) -> CombatPolicy:
    from .policies import CombatPolicy
    both = args.policy or "stay"
    return CombatPolicy(args.attacker_policy or both, args.defender_policy or both)


def resolve_combat(spec: str, board: Board, tables: Tables, record: str | None = None
                   ) -> tuple[CombatContext, tuple[Unit, ...], tuple[Unit, ...]]:
    """COMBAT: a YAML/JSON combat file, or ``albuera:FROM>TO[:UNIT,UNIT]`` on the set-up (or a record's end)."""
    from .analysis import load_combat
    from .attack import combat_context
    from .setup import new_game
    from .state import Setup
    if spec.startswith("albuera:"):
        body = spec.split(":", 1)[1]
        parts = body.split(":")
        route = parts[0]
        if ">" not in route:
            raise VedetteError(f"combat {spec!r}: write albuera:FROM>TO or albuera:FROM>TO:UNIT,UNIT")
        origin, target = (s.strip() for s in route.split(">", 1))
        if record:
            from .records import Session
            g = Session.load(record).state
        else:
            g = new_game(Setup(board=board, tables=tables))
        board.check_area(origin, "origin area")
        board.check_area(target, "target area")
        side = g.holder(origin)
        if side is None:
            raise RuleViolation("5", f"area {origin} holds no unit to attack with")
        if g.holder(target) in (None, side):
            raise RuleViolation("5", f"area {target} holds no enemy of the {side}")
        here = {u.uid: u for u in g.in_area(origin)}
        if len(parts) > 1 and parts[1]:
            names = [n.strip() for n in parts[1].split(",") if n.strip()]
            for n in names:
                if n not in here:
                    raise RuleViolation("5", f"unit {n!r} is not in area {origin} (there: {', '.join(sorted(here))})")
            att = tuple(here[n] for n in names)
        else:
            att = tuple(u for u in here.values() if u.is_combat and u.strength >= 1
                        and u.approach in (None, target))
        ctx = combat_context(g, target, origin, side)
        return ctx, att, g.in_area(target)
    if not Path(spec).exists():
        raise VedetteError(f"combat {spec!r}: no such file (or write albuera:FROM>TO[:UNIT,UNIT])")
    return load_combat(spec, board, tables)


def cmd_combat(args: argparse.Namespace) -> dict[str, Any]:
    from .analysis import analyse, combat_tree
    tables, board = _tables(args), _board(args)
    ctx, att, dfn = resolve_combat(args.combat, board, tables, args.record)
    an = analyse(ctx, att, dfn, _policy(args))
    out = an.to_json()
    out["map"] = {"source": board.source, "provenance": board.provenance}
    if args.tree:
        out["tree"] = combat_tree(ctx, att, dfn, _policy(args)).to_dict(max_depth=args.tree_depth)
    return out


def cmd_fire(args):
    from .fire import FireSetup, fire_odds, prefer_hit, prefer_retreat
    if not 0 <= args.strength <= 9:
        raise VedetteError(f"--strength {args.strength}: a unit's strength is 0 to 9 (rating less hits, rule 1.2)")
    tables = _tables(args)
    kind = args.target
    left = 1 if kind == "art" else max(1, args.strength + 1)
    s = FireSetup(arty=args.arty, target_kind=kind, target_square=args.square, target_on_approach=args.approach,
                  target_deployed_artillery=kind == "art" and args.deployed, target_in_town=args.town,
                  long_range=args.long, can_retreat=not args.no_retreat, target_hits_left=left)
    pol = prefer_retreat if args.prefer == "retreat" else prefer_hit
    d = fire_odds(s, tables, pol)
    return {
        "setup": jsonable(s), "target_prefers": args.prefer,
        "outcomes": {f"hits={o.hits}{', retreats' if o.retreated else ''}": prob_json(p)
                     for o, p in sorted(d.items())},
        "any_effect": prob_json(d.prob(lambda o: o.hits > 0 or o.retreated)),
        "expected_hits": _frac(d.expect(lambda o: o.hits)),
        "eliminated": prob_json(d.prob(lambda o: o.hits >= left)),
        "provenance": {"fire": tables.provenance()["fire"]},
    }


def cmd_schedule(args: argparse.Namespace) -> dict[str, Any]:
    from .command import cp_schedule
    if not 1 <= args.turns <= 200:
        raise VedetteError(f"--turns {args.turns}: give 1 to 200 turns (Albuera has 25, rule 2)")
    tables = _tables(args)
    sch = cp_schedule(args.turns, tables)
    out = {}
    for side, data in sch.items():
        out[side] = {"expected_total": _frac(data["expected_total"]),
                     "turns": [{"turn": r["turn"], "expected": _frac(r["expected"]),
                                "distribution": {k: prob_json(v) for k, v in r["distribution"].items()}}
                               for r in data["turns"]]}
    out["provenance"] = {"command": tables.provenance()["command"]}
    return out


# ------------------------------------------------------------------------------------------------
# Game verbs: core's new|legal|act|undo|replay|play (engine.core.game_cli), with the older LoB spellings
# ------------------------------------------------------------------------------------------------
def _rules() -> LobRules:
    from .protocol import LobRules
    return LobRules()


def _bid_option(args: argparse.Namespace) -> None:
    """``--bid SIDE=N`` (scenario option 1) is the option ``bid:SIDE=N`` of ``--options``."""
    bid = getattr(args, "bid", None)
    if bid:
        from .protocol import parse_options
        parse_options([f"bid:{bid}"])               # a bad bid: one line naming --bid's form
        args.options = ",".join(o for o in ((args.options or "").split(",") + [f"bid:{bid}"]) if o)


def _old_state(out: dict[str, Any]) -> dict[str, Any]:
    """The position as the older verbs printed it under ``state``."""
    keys = ("turn", "player", "phase", "cp", "morale", "winner", "reason", "areas")
    return {k: out.get(k) for k in keys}


def _play(core_play):
    def run(args):
        _bid_option(args)
        out = core_play(args)
        out["actions"] = out.get("events")
        out["record"] = args.record
        return out
    return run


def _legal(core_legal):
    def run(args):
        from engine.core.game_cli import summary
        if getattr(args, "record", None) or getattr(args, "record_file", None):
            out = core_legal(args)
        else:
            # the older `legal` with no record: the actions at the start of the Albuera set-up
            rules = _rules()
            g = rules.new_game()
            out = summary(rules, g)
            out["legal"] = [{"text": rules.format_action(a), "says": rules.describe_action(a),
                             "action": rules.action_to_json(a)} for a in rules.legal_actions(g)]
        out["state"] = _old_state(out)
        return out
    return run


def _act(core_act):
    def run(args):
        from engine.core.game_cli import record_path
        path = Path(record_path(args))
        created = False
        if not path.exists():
            # the older `act` on a missing record starts one (--options, --seed), kept only if the action is played
            from engine.core.game import Session
            from engine.core.game_cli import parse_options, save_record
            _bid_option(args)
            s = Session.new(_rules(), "albuera", parse_options(args.options), args.seed or 0)
            save_record(s.record, str(path))
            created = True
        try:
            out = core_act(args)
        except BaseException:
            if created:
                path.unlink(missing_ok=True)
            raise
        out["answers"] = out["event"]["answers"]
        return out
    return run


def _replay(core_replay):
    def run(args):
        units = getattr(args, "units", False)
        out = core_replay(args)
        out["events_replayed"] = out.get("after_events")
        if units:
            from engine.core.game_cli import load_record, state_at
            rules = _rules()
            g, _ = state_at(rules, load_record(rules, args.file), args)
            out["units"] = [u.to_json() for u in g.units]
        return out
    return run


def register_lob_game_verbs(verbs) -> None:
    """The protocol's game verbs under ``vedette lob``, plus what the older verbs took: ``--bid`` on
    ``play``/``new``/``act``, ``--units`` on ``replay``, ``--seed``/``--options`` on ``act`` (for a record it
    creates), ``legal`` with no record (the set-up)."""
    from engine.core.game_cli import int_arg, register_game_verbs
    from .protocol import LobRules
    register_game_verbs(verbs, LobRules)
    bid_help = "scenario option 1: SIDE=N morale points paid by the bid's winner, e.g. French=2"
    p = verbs.choices["play"]
    p.add_argument("--bid", help=bid_help)
    p.set_defaults(handler=_play(p.get_default("handler")))
    p = verbs.choices["new"]
    p.add_argument("--bid", help=bid_help)
    core_new = p.get_default("handler")

    def new(a: argparse.Namespace) -> Any:
        _bid_option(a)
        return core_new(a)

    p.set_defaults(handler=new)
    p = verbs.choices["legal"]
    p.set_defaults(handler=_legal(p.get_default("handler")))
    p = verbs.choices["act"]
    p.add_argument("--seed", type=int_arg("--seed", 0, 2 ** 63 - 1), default=None,
                   help="for a record this creates: the game's seed (each action's dice follow from it)")
    p.add_argument("--options", default="", help="for a record this creates: comma list of optional rules")
    p.add_argument("--bid", help="for a record this creates: " + bid_help)
    p.set_defaults(handler=_act(p.get_default("handler")))
    p = verbs.choices["replay"]
    p.add_argument("--units", action="store_true", help="list every unit of the position")
    p.set_defaults(handler=_replay(p.get_default("handler")))


def cmd_map(args: argparse.Namespace) -> dict[str, Any]:
    return _board(args).to_json()


def register(subparsers) -> None:
    p = subparsers.add_parser("lob", help="Lines of Battle: Albuera 1811",
                              description="Lines of Battle (Albuera 1811): exact combat odds, artillery fire, "
                                          "command points, play and replay. JSON out.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--tables", help="a tables YAML file replacing data/lob/tables.yaml")
        q.add_argument("--map", help="a map YAML file replacing data/lob/albuera/map.yaml")

    q = verbs.add_parser("combat", help="exact odds of one combat under named policies")
    q.add_argument("combat", help="a combat YAML/JSON file, or albuera:FROM>TO[:UNIT,UNIT] on the set-up")
    q.add_argument("--policy", help="both sides: stay, until:K, spent:K, outnumbered, rbc, feint (default stay)")
    q.add_argument("--attacker-policy")
    q.add_argument("--defender-policy")
    q.add_argument("--record", help="take the units from the end of this game record (albuera: form)")
    q.add_argument("--tree", action="store_true", help="include the probability tree")
    q.add_argument("--tree-depth", type=int, default=6)
    common(q)
    q.set_defaults(handler=cmd_combat)

    q = verbs.add_parser("fire", help="odds of one artillery shot (4.2.1)")
    q.add_argument("--target", choices=("inf", "cav", "art"), default="inf")
    q.add_argument("--strength", type=int, default=3, help="target strength (infantry/cavalry)")
    q.add_argument("--square", action="store_true")
    q.add_argument("--approach", action="store_true", help="target is infantry on an approach")
    q.add_argument("--deployed", action="store_true", help="target artillery is deployed")
    q.add_argument("--town", action="store_true", help="target is in the town")
    q.add_argument("--long", action="store_true", help="two areas away, from a hill")
    q.add_argument("--arty", choices=("foot", "horse", "heavy", "rockets"), default="foot")
    q.add_argument("--no-retreat", action="store_true", help="the target has nowhere to retreat")
    q.add_argument("--prefer", choices=("hit", "retreat"), default="hit",
                   help="the target's choice when it may take a hit or retreat")
    common(q)
    q.set_defaults(handler=cmd_fire)

    q = verbs.add_parser("schedule", help="the command points per turn (D3 schedule)")
    q.add_argument("--turns", type=int, default=25)
    common(q)
    q.set_defaults(handler=cmd_schedule)

    register_lob_game_verbs(verbs)

    q = verbs.add_parser("map", help="the area map as JSON")
    common(q)
    q.set_defaults(handler=cmd_map)
