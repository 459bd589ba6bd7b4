"""``vedette <game> <verb> ...``: the scripting face of the engine (JSON in, JSON out).

Each game package contributes its verbs through its ``cli.register(subparsers)`` (the table :data:`GAMES`);
a verb's handler returns a JSON-able value, printed here. Errors the engine raises on purpose
(:class:`~engine.core.errors.VedetteError`: a rule refused, a bad data file, a record that does not
replay) print one clear line on stderr and exit with code 2; nothing half-computed is printed.
"""
from __future__ import annotations

import argparse
import json
import sys
from types import ModuleType
from typing import Any

import engine.systems  # noqa: F401  (the shipped systems, registered for the verbs that name one)
from engine.bc import cli as bc_cli
from engine.core.errors import VedetteError
from engine.lob import cli as lob_cli
from engine.n20 import cli as n20_cli
from engine.tbf import cli as tbf_cli

#: each game's command-line verbs, in the order ``vedette --help`` lists them
GAMES: dict[str, ModuleType] = {"n20": n20_cli, "lob": lob_cli, "tbf": tbf_cli, "bc": bc_cli}


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr with exit code 2 (every sub-command parser inherits this)."""

    def error(self, message: str):  # noqa: D401 - argparse's hook
        self.exit(2, f"{self.prog}: error: {' '.join(str(message).split())[:300]}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="vedette", description="Vedette: rules, exact odds and trees for "
                                     "Napoleonic board wargames. Output is JSON.")
    sub = parser.add_subparsers(dest="game", metavar="GAME")
    for mod in GAMES.values():
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        out: Any = handler(args)
    except VedetteError as exc:
        print(f"vedette: error: {exc}", file=sys.stderr)
        return 2
    try:
        if isinstance(out, str):
            print(out)
        elif out is not None:
            print(json.dumps(out, indent=2, ensure_ascii=False))
        sys.stdout.flush()
    except BrokenPipeError:        # the reader (e.g. `| head`) stopped early: not an error of ours
        sys.stderr.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
