"""``vedette n20 ...``: battle odds and trees (and, when present, the game verbs of engine.n20.game_cli).

* ``vedette n20 odds BATTLE [--tables FILE]`` -- exact odds as JSON (fractions as strings + floats);
* ``vedette n20 tree BATTLE [--tables FILE] [--max-depth N] [--decisions] [--text]`` -- the probability tree;
* ``vedette n20 choices BATTLE [--tables FILE]`` -- every decision with all its options (default first);
* ``vedette n20 fight BATTLE [--tables FILE] [--seed N | --dice 6,2,5]`` -- resolve it once with the play driver.

BATTLE is a YAML/JSON battle file (docs/n20-battles.md; examples in data/examples/). Errors (bad files,
illegal battles) are raised as VedetteError: the top-level CLI prints them and exits with code 2.
"""
from __future__ import annotations

import argparse

from engine import n20
from engine.core.dist import prob_json
from engine.core.errors import DataError
from engine.core.procedure import TypedDice
from engine.core.tree import Tree

from .game_cli import register_game_verbs

__all__ = ["register"]


def _tables_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", metavar="FILE", default=None,
                   help="a tables file (CRT, TEC, ...) to use instead of the battle's or the shipped one")


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``n20`` sub-command and its verbs to the top-level ``vedette`` parser."""
    parser = subparsers.add_parser("n20", help="Napoleonic 20 (Fuentes de Oñoro 20, Bussaco 20)",
                                   description="Napoleonic 20 battles: exact odds, probability trees, play.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    p = verbs.add_parser("odds", help="exact odds of a battle (JSON)")
    p.add_argument("battle", metavar="BATTLE", help="battle file (YAML or JSON)")
    _tables_arg(p)
    p.set_defaults(handler=cmd_odds)

    p = verbs.add_parser("tree", help="probability tree of a battle (JSON, or --text)")
    p.add_argument("battle", metavar="BATTLE", help="battle file (YAML or JSON)")
    _tables_arg(p)
    p.add_argument("--max-depth", type=int, default=None, help="cut the tree below this depth")
    p.add_argument("--decisions", action="store_true",
                   help="keep every choice (retreat path, exchange, advance) as a decision node")
    p.add_argument("--text", action="store_true", help="print an indented text drawing instead of JSON")
    p.set_defaults(handler=cmd_tree)

    p = verbs.add_parser("choices", help="every decision a battle can call for, with all its options")
    p.add_argument("battle", metavar="BATTLE", help="battle file (YAML or JSON)")
    _tables_arg(p)
    p.set_defaults(handler=cmd_choices)

    p = verbs.add_parser("fight", help="resolve a battle once (seeded dice, or dice typed in)")
    p.add_argument("battle", metavar="BATTLE", help="battle file (YAML or JSON)")
    _tables_arg(p)
    p.add_argument("--seed", type=int, default=None, help="seed for the dice")
    p.add_argument("--dice", default=None, help="the dice rolled at the table, in order, e.g. 6,2,5")
    p.set_defaults(handler=cmd_fight)

    register_game_verbs(verbs)          # the whole-game verbs (engine.n20.game_cli)
    return parser


def cmd_odds(args) -> dict:
    return n20.odds(args.battle, tables=args.tables).to_json()


def _pj(p):
    return prob_json(p)


def cmd_tree(args):
    battle = n20.load_battle(args.battle, args.tables)
    t: Tree = n20.tree(battle, keep_decisions=args.decisions)
    if args.text:
        return t.render(max_depth=args.max_depth)
    out = {"edition": battle.edition, "battle": battle.name, "decisions_kept": args.decisions,
           "nodes": t.size(), **t.to_json(max_depth=args.max_depth)}
    if not args.decisions:
        out["total_probability"] = _pj(t.total())
    return out


def cmd_fight(args) -> dict:
    battle = n20.load_battle(args.battle, args.tables)
    dice = None
    if args.dice:
        try:
            values = [int(v) for v in args.dice.replace(" ", "").split(",") if v]
        except ValueError:
            raise DataError("--dice", "--dice", "whole numbers separated by commas, e.g. 6,2,5", args.dice) from None
        dice = TypedDice(values)
    played = n20.play_battle(battle, seed=args.seed, dice=dice)
    return {"edition": battle.edition, "battle": battle.name, "outcome": played.result.to_json(),
            "text": str(played.result), "events": [e.to_json() for e in played.events]}


def cmd_choices(args) -> dict:
    battle = n20.load_battle(args.battle, args.tables)
    return {"edition": battle.edition, "battle": battle.name, "choices": n20.choices(battle)}
