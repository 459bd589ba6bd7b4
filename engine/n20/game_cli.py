"""CLI verbs of whole Napoleonic 20 games (hooked under ``vedette n20`` by :mod:`engine.n20.cli`).

    vedette n20 scenarios
    vedette n20 play --scenario fuentes --seed 7 --bots greedy,greedy --record game.json
    vedette n20 replay game.json --turn 10
    vedette n20 new --scenario bussaco --options fog_of_war --record my.json     # a game for people
    vedette n20 legal my.json                   # the actions open to the side to act
    vedette n20 act my.json '{"kind": "move", "unit": "FCL", "path": ["1013", "1012"]}' [--dice 4,2]
    vedette n20 undo my.json

Every handler returns JSON; rule and data errors exit with code 2 (engine.cli).
"""
from __future__ import annotations

import argparse
import json

from engine.core.errors import RecordError, VedetteError

__all__ = ["register_game_verbs"]


def _opts(text: str | None) -> tuple[str, ...]:
    return tuple(o.strip() for o in (text or "").split(",") if o.strip())


def register_game_verbs(verbs) -> None:
    p = verbs.add_parser("scenarios", help="list the game scenarios and optional rules")
    p.set_defaults(handler=cmd_scenarios)

    p = verbs.add_parser("play", help="play a whole game bot against bot and print the result")
    p.add_argument("--scenario", default="fuentes", help="scenario id (see `vedette n20 scenarios`)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bots", default="greedy,greedy", help="French bot,allied bot: random or greedy")
    p.add_argument("--options", default="", help="optional rules, comma separated (e.g. leaders,fatigue)")
    p.add_argument("--tables", metavar="FILE", default=None, help="a tables file replacing the scenario's charts")
    p.add_argument("--record", metavar="FILE", default=None, help="save the game record (JSON) here")
    p.set_defaults(handler=cmd_play)

    p = verbs.add_parser("replay", help="replay a game record and print the state at a turn")
    p.add_argument("record", metavar="RECORD")
    p.add_argument("--turn", type=int, default=None, help="game turn (default: the final state)")
    p.add_argument("--event", type=int, default=None, help="state after this many events instead")
    p.add_argument("--view", choices=("french", "allied"), default=None, help="hide the other side's hidden units")
    p.set_defaults(handler=cmd_replay)

    p = verbs.add_parser("new", help="start a game record for people to play with `act`")
    p.add_argument("--scenario", default="fuentes")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--options", default="")
    p.add_argument("--tables", metavar="FILE", default=None)
    p.add_argument("--record", metavar="FILE", required=True)
    p.set_defaults(handler=cmd_new)

    p = verbs.add_parser("legal", help="the legal actions of the side to act in a recorded game")
    p.add_argument("record", metavar="RECORD")
    p.add_argument("--unit", default=None, help="only this unit's actions")
    p.set_defaults(handler=cmd_legal)

    p = verbs.add_parser("act", help="apply one action (JSON) to a recorded game and save it")
    p.add_argument("record", metavar="RECORD")
    p.add_argument("action", metavar="ACTION", help='e.g. \'{"kind": "end_phase"}\'')
    p.add_argument("--dice", default=None, help="dice rolled at the table, in order (else seeded dice)")
    p.add_argument("--choices", default=None, help="answers to the questions inside the action, JSON list")
    p.set_defaults(handler=cmd_act)

    p = verbs.add_parser("undo", help="remove the last event of a recorded game")
    p.add_argument("record", metavar="RECORD")
    p.add_argument("-n", type=int, default=1)
    p.set_defaults(handler=cmd_undo)


def _summary(state) -> dict:
    j = state.to_json()
    return {k: j[k] for k in ("scenario", "turn", "turn_label", "player", "phase", "morale", "result")}


def cmd_scenarios(args) -> dict:
    from engine.n20 import game as g
    out = []
    for sid in g.scenario_ids():
        sc = g.load_scenario(sid)
        out.append({"id": sid, "name": sc.name, "edition": sc.edition, "first_player": sc.first_player,
                    "start_turn": sc.spec.start_turn, "last_turn": sc.last_turn, "provenance": {
                        k: v for k, v in sc.provenance().items() if k != "tables"}})
    return {"scenarios": out, "options": dict(g.OPTIONS)}


def cmd_play(args) -> dict:
    from engine.n20 import game as g
    bots = tuple(b.strip() for b in args.bots.split(","))
    if len(bots) != 2 or any(b not in g.BOTS for b in bots):
        raise VedetteError(f"--bots: two of {', '.join(g.BOTS)} separated by a comma (French,allied), got {args.bots!r}")
    final, rec = g.play_game(args.scenario, bots=bots, seed=args.seed, options=_opts(args.options), tables=args.tables)
    if args.record:
        rec.save(args.record)
    out = _summary(final)
    out["events"] = len(rec.events)
    out["bots"] = {"french": bots[0], "allied": bots[1]}
    if args.record:
        out["record"] = args.record
    return out


def _load(path):
    from engine.n20 import game as g
    rec = g.GameRecord.load(path)
    return rec, g.replay_record(rec)


def cmd_replay(args) -> dict:
    from engine.n20 import game as g
    rec, states = _load(args.record)
    if args.event is not None:
        if not 0 <= args.event <= len(rec.events):
            raise RecordError(f"--event: 0..{len(rec.events)}, got {args.event}", file=args.record)
        s = states[args.event]
    elif args.turn is not None:
        s = next((x for x in states if x.turn >= args.turn), None)
        if s is None or s.turn != args.turn and not s.over:
            raise RecordError(f"--turn: the game has turns {states[0].turn}..{states[-1].turn}, got {args.turn}",
                              file=args.record)
    else:
        s = states[-1]
    out = s.to_json(view=args.view)
    out["events_replayed"] = len(rec.events)
    return out


def cmd_new(args) -> dict:
    from engine.n20 import game as g
    s = g.new_game(args.scenario, options=_opts(args.options), seed=args.seed, tables=args.tables)
    rec = g.make_record(s, [])
    rec.save(args.record)
    out = _summary(s)
    out["actor"] = g.actor(s)
    out["record"] = args.record
    return out


def cmd_legal(args) -> dict:
    from engine.n20 import game as g
    rec, states = _load(args.record)
    s = states[-1]
    return {"actor": g.actor(s), "phase": s.step, "turn": s.turn,
            "actions": [a.to_json() for a in g.legal_actions(s, unit=args.unit)]}


def cmd_act(args) -> dict:
    from engine.n20 import game as g
    rec, states = _load(args.record)
    s = states[-1]
    try:
        action = json.loads(args.action)
    except json.JSONDecodeError as exc:
        raise VedetteError(f"ACTION: a JSON object like {{\"kind\": \"end_phase\"}} ({exc})") from None
    a = g.Action.from_json(action)
    dice = None
    if args.dice:
        try:
            dice = g.TypedDice([int(x) for x in args.dice.split(",")])
        except ValueError:
            raise VedetteError(f"--dice: whole numbers separated by commas, got {args.dice!r}") from None
    chooser = None
    if args.choices:
        answers = list(json.loads(args.choices))

        def chooser(req):
            if not answers:
                raise VedetteError(f"[rule {req.rule}] a choice is needed: {req.label}: "
                                   f"{[getattr(o, 'to_json', lambda: o)() for o in req.options]}")
            return req.check(answers.pop(0))
    else:
        from engine.core.procedure import first_option
        chooser = first_option
    new, ev = g.apply_logged(s, a, dice=dice, chooser=chooser)
    rec = rec.append(ev)
    rec.save(args.record)
    out = _summary(new)
    out["actor"] = g.actor(new)
    out["answers"] = ev["answers"]
    return out


def cmd_undo(args) -> dict:
    from engine.n20 import game as g
    rec = g.GameRecord.load(args.record)
    short, s = g.undo(rec, args.n)
    short.save(args.record)
    out = _summary(s)
    out["events"] = len(short.events)
    return out
