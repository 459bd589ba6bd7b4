"""``vedette lob ...``: exact combat odds, artillery fire odds, the command-point schedule, play and replay."""
from __future__ import annotations

import argparse
import json
from fractions import Fraction
from pathlib import Path

from engine.core.dist import prob_json
from engine.core.errors import RuleViolation, VedetteError
from engine.core.procedure import RandomDice, TypedDice, jsonable
from engine.core.record import GameRecord

__all__ = ["register"]


def _frac(x) -> dict:
    x = Fraction(x)
    return {"fraction": f"{x.numerator}/{x.denominator}", "float": float(x)}


def _tables(args):
    from .tables import load_tables
    return load_tables(getattr(args, "tables", None))


def _board(args):
    from .board import load_board
    return load_board(getattr(args, "map", None))


def _policy(args):
    from .policies import CombatPolicy
    both = args.policy or "stay"
    return CombatPolicy(args.attacker_policy or both, args.defender_policy or both)


def resolve_combat(spec: str, board, tables, record: str | None = None):
    """COMBAT: a YAML/JSON combat file, or ``albuera:FROM>TO[:UNIT,UNIT]`` on the set-up (or a record's end)."""
    from .analysis import load_combat
    from .game import Setup, combat_context, new_game
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


def cmd_combat(args):
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


def cmd_schedule(args):
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


def _chooser(bots):
    def choose(req):
        bot = bots.get(req.player)
        return bot.choose(req) if bot else req.options[0]
    return choose


def cmd_play(args):
    from .bots import make_bot
    from .records import Session
    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 2:
        raise VedetteError("--bots takes two names, French first: e.g. greedy,random")
    options = [o for o in (args.options or "").split(",") if o]
    bid = None
    if args.bid:
        side, _, n = args.bid.partition("=")
        if side not in ("French", "Allied") or not n.isdigit():
            raise VedetteError(f"--bid {args.bid!r}: write SIDE=N, e.g. French=2")
        bid = {side: int(n)}
    s = Session.start(options=options, seed=args.seed, bid=bid)
    bots = {"French": make_bot(names[0], args.seed), "Allied": make_bot(names[1], None if args.seed is None
                                                                        else args.seed + 1)}
    dice = RandomDice(args.seed)
    n = 0
    while not s.state.over and n < args.max_actions:
        s.do(bots[s.state.player].act(s.state), dice=dice, chooser=_chooser(bots))
        n += 1
    if args.record:
        s.save(args.record)
    g = s.state
    return {"winner": g.winner, "reason": g.reason, "turn": g.turn, "morale": dict(g.morale), "actions": n,
            "finished": g.over, "record": args.record,
            "eliminated": sorted(u.uid for u in g.units if u.area is None)}


def _summary(g):
    return {"turn": g.turn, "player": g.player, "phase": g.phase, "cp": g.cp, "morale": dict(g.morale),
            "winner": g.winner, "reason": g.reason,
            "areas": {a: sorted(u.uid for u in g.in_area(a)) for a in g.board.areas if g.in_area(a)}}


def cmd_replay(args):
    from .records import replay_record
    rec = GameRecord.load(args.record)
    states = replay_record(rec, args.upto)
    out = _summary(states[-1])
    out["events_replayed"] = len(states) - 1
    if args.units:
        out["units"] = [u.to_json() for u in states[-1].units]
    return out


def cmd_legal(args):
    from .game import legal_actions
    from .records import Session
    s = Session.load(args.record) if args.record else Session.start()
    return {"state": _summary(s.state), "legal": [a.to_json() for a in legal_actions(s.state)]}


def cmd_act(args):
    from .game import Action
    from .records import Session
    from .bots import make_bot
    path = Path(args.record)
    s = Session.load(path) if path.exists() else Session.start(options=[o for o in (args.options or "").split(",") if o])
    try:
        action = Action.from_json(json.loads(args.action))
    except json.JSONDecodeError as exc:
        raise VedetteError(f"ACTION must be JSON, e.g. '{{\"type\": \"end-admin\"}}' ({exc})") from None
    try:
        faces = [int(x) for x in args.dice.split(",") if x.strip()] if args.dice else None
    except ValueError:
        raise VedetteError(f"--dice {args.dice[:40]!r}: write die faces separated by commas, e.g. 4,2") from None
    dice = TypedDice(faces) if faces is not None else RandomDice(args.seed)
    try:
        answers = json.loads(args.choices) if args.choices else None
    except json.JSONDecodeError:
        raise VedetteError(f"--choices {args.choices[:40]!r}: write a JSON list, e.g. '[\"stay\"]'") from None
    if answers is not None and not isinstance(answers, list):
        raise VedetteError("--choices: write a JSON list of answers, e.g. '[\"stay\"]'")
    answers = iter(answers) if answers is not None else None
    helper = make_bot("greedy", args.seed)

    def choose(req):
        if answers is not None:
            try:
                return next(answers)
            except StopIteration:
                pass
        return helper.choose(req)
    g = s.do(action, dice=dice, chooser=choose)
    s.save(path)
    out = _summary(g)
    out["answers"] = s.record.events[-1]["answers"]
    return out


def cmd_undo(args):
    from .records import Session
    s = Session.load(args.record)
    g = s.undo()
    s.save(args.record)
    return _summary(g)


def cmd_map(args):
    return _board(args).to_json()


def register(subparsers) -> None:
    p = subparsers.add_parser("lob", help="Lines of Battle: Albuera 1811",
                              description="Lines of Battle (Albuera 1811): exact combat odds, artillery fire, "
                                          "command points, play and replay. JSON out.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")

    def common(q):
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

    q = verbs.add_parser("play", help="play a whole game between bots")
    q.add_argument("--seed", type=int, default=None)
    q.add_argument("--bots", default="greedy,greedy", help="French,Allied: greedy or random")
    q.add_argument("--record", help="save the game record here (JSON)")
    q.add_argument("--options", help="comma list: kemmis, madden, spanish-no-show, rain, setup, leaders, light-cavalry")
    q.add_argument("--bid", help="scenario option 1: SIDE=N morale points paid by the bid's winner, e.g. French=2")
    q.add_argument("--max-actions", type=int, default=20000)
    q.set_defaults(handler=cmd_play)

    q = verbs.add_parser("replay", help="replay a game record and show where it stands")
    q.add_argument("record")
    q.add_argument("--upto", type=int, default=None, help="replay only the first N events")
    q.add_argument("--units", action="store_true")
    q.set_defaults(handler=cmd_replay)

    q = verbs.add_parser("legal", help="the legal actions at the end of a record (or at the start)")
    q.add_argument("record", nargs="?")
    q.set_defaults(handler=cmd_legal)

    q = verbs.add_parser("act", help="play one action into a record (created if missing)")
    q.add_argument("record")
    q.add_argument("action", help='JSON, e.g. \'{"type": "activate", "area": "75"}\'')
    q.add_argument("--dice", help="typed dice, comma separated (else random with --seed)")
    q.add_argument("--choices", help="JSON list of answers to the questions asked, in order")
    q.add_argument("--seed", type=int, default=None)
    q.add_argument("--options", help="for a new record: comma list of scenario options")
    q.set_defaults(handler=cmd_act)

    q = verbs.add_parser("undo", help="drop the last action of a record")
    q.add_argument("record")
    q.set_defaults(handler=cmd_undo)

    q = verbs.add_parser("map", help="the area map as JSON")
    common(q)
    q.set_defaults(handler=cmd_map)
