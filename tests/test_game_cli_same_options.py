"""Every system's game CLI takes the same game options (issue 10): each verb of the core game verbs
(engine.core.game_cli) offers, in every system, at least the options the core verb defines
(--scenario --options --seed --record --dice --choices --turn --upto --bots ...). Systems are added to
SYSTEMS as they move onto the protocol."""
from __future__ import annotations

import argparse

import pytest

from engine.cli import build_parser
from engine.core.game_cli import VERBS, register_game_verbs

SYSTEMS = ["n20", "lob", "tbf", "bc"]

COMMON = {"new": {"--scenario", "--options", "--seed", "--record"},
          "legal": {"--record", "--turn", "--upto"},
          "act": {"--record", "--dice", "--choices"},
          "undo": {"--record", "-n"},
          "replay": {"--turn", "--upto"},
          "play": {"--scenario", "--options", "--seed", "--bots", "--record"}}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def _verbs(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _reference() -> dict[str, set[str]]:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    register_game_verbs(sub, lambda: None)
    return {v: _options(q) for v, q in _verbs(p).items()}


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_game_verbs_take_the_core_options(system):
    ref = _reference()
    game = _verbs(build_parser())[system]
    verbs = _verbs(game)
    for verb in VERBS:
        assert verb in verbs, f"{system} has no {verb!r} verb"
        missing = ref[verb] - _options(verbs[verb])
        assert not missing, f"{system} {verb} lacks {sorted(missing)}"
    for verb, opts in COMMON.items():
        assert opts <= _options(verbs[verb]), (system, verb, sorted(opts - _options(verbs[verb])))
