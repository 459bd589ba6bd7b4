"""CLI verbs of whole Napoleonic 20 games (hooked under ``vedette n20`` by :mod:`engine.n20.cli`): the core
game verbs of every system (:func:`engine.core.game_cli.register_game_verbs`, over
:class:`~engine.n20.game.protocol.N20Rules`), with the options every system has, plus the n20 ones.

    vedette n20 scenarios
    vedette n20 play --scenario fuentes --seed 7 --bots greedy,greedy --record game.json
    vedette n20 replay game.json --turn 10            # or --upto N (old spelling: --event N), --view allied
    vedette n20 new --scenario bussaco --options fog_of_war --record my.json     # a game for people
    vedette n20 legal my.json [--unit FCL]             # or --record my.json
    vedette n20 act my.json 'move FCL 1013-1012' [--dice 4,2] [--choices '[false, false]']
    vedette n20 act my.json '{"kind": "move", "unit": "FCL", "path": ["1013", "1012"]}'
    vedette n20 undo my.json [-n 2]

``--tables FILE`` (new, play; core's option, as for every system) plays the game with the file's charts and
keeps them in the record. Every handler returns JSON; rule and data errors exit with code 2 (engine.cli),
and a refused action leaves the record file as it was.
"""
from __future__ import annotations

from engine.core.game_cli import int_arg, register_game_verbs as core_register_game_verbs

__all__ = ["register_game_verbs"]


def _rules():
    # the game package is imported when a game verb runs, not when the parser is built: loading it takes
    # about half a second, which `vedette n20 odds` and every other command would pay for nothing
    from engine.n20.game.protocol import N20Rules
    return N20Rules()


def register_game_verbs(verbs) -> None:
    p = verbs.add_parser("scenarios", help="list the game scenarios and optional rules")
    p.set_defaults(handler=cmd_scenarios)
    core_register_game_verbs(verbs, _rules)
    ch = verbs.choices

    # old spellings and n20 options (docs/n20-game.md)
    if "replay" in ch:
        ch["replay"].add_argument("--event", dest="upto", type=int_arg("--event", 0), default=None,
                                  help="the state after this many events (the same as --upto)")
        ch["replay"].add_argument("--view", choices=("french", "allied"), default=None,
                                  help="hide the other side's face-down units (16.1)")
        _wrap(ch["replay"], _replay)
    if "legal" in ch:
        ch["legal"].add_argument("--unit", default=None, help="only this unit's actions")
        _wrap(ch["legal"], _legal)
    if "act" in ch:
        _wrap(ch["act"], _act)
    if "play" in ch:
        _wrap(ch["play"], _play)


def _wrap(parser, outer) -> None:
    inner = parser.get_default("handler")
    parser.set_defaults(handler=lambda args: outer(inner, args))


def _replay(inner, args) -> dict:
    """The core replay, with the position in the n20 JSON view at the top level (as before)."""
    full = args.full
    args.full = True
    out = inner(args)
    rules = _rules()
    state = rules.state_from_json(out["state"])
    if not full:
        del out["state"]
    view = (rules.view(state, args.view) if args.view else state).to_json()
    merged = {**view, **out}
    merged["events_replayed"] = out.get("after_events")
    return merged


def _mentions(action: dict, unit: str) -> bool:
    if action.get("unit") == unit or unit in (action.get("units") or ()):
        return True
    return any(unit in b.get("attackers", ()) or unit in b.get("defenders", ()) for b in action.get("battles") or ())


def _legal(inner, args) -> dict:
    out = inner(args)
    if args.unit:
        out["legal"] = [x for x in out["legal"] if _mentions(x["action"], args.unit)]
    out["actions"] = [x["action"] for x in out["legal"]]      # the older key: the actions' JSON only
    return out


def _act(inner, args) -> dict:
    out = inner(args)
    out["answers"] = out["event"].get("answers", [])
    return out


def _play(inner, args) -> dict:
    out = inner(args)
    if args.record:
        out["record"] = args.record
    return out


def cmd_scenarios(args) -> dict:
    from engine.n20 import game as g        # on use, as in _rules
    out = []
    for sid in g.scenario_ids():
        sc = g.load_scenario(sid)
        out.append({"id": sid, "name": sc.name, "edition": sc.edition, "first_player": sc.first_player,
                    "start_turn": sc.spec.start_turn, "last_turn": sc.last_turn, "provenance": {
                        k: v for k, v in sc.provenance().items() if k != "tables"}})
    return {"scenarios": out, "options": dict(g.OPTIONS)}
