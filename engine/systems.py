"""The game systems Vedette ships, in one explicit table.

Core (:mod:`engine.core.game`) knows no system: it keeps a registry that this module fills. Importing it
imports each system's protocol by name (``import``, not a module-name string), so a reader and a type
checker see every system the command line, the pages, the studies and the notebooks can name::

    from engine.systems import system_of
    rules = system_of("lob")          # a LobRules

A system that is not shipped with Vedette registers itself with :func:`engine.core.game.register` (a
study's ``plugin`` module is imported first on every worker for that).
"""
from __future__ import annotations

from engine.core.game import GameRules, register, system_of, systems
from engine.bc.game.protocol import BcRules
from engine.lob.protocol import LobRules
from engine.n20.game.protocol import N20Rules
from engine.tbf.game.protocol import TbfRules

__all__ = ["SHIPPED", "system_of", "systems"]

#: system id -> its rules (the ids records, the CLI and the pages use)
SHIPPED: dict[str, type[GameRules]] = {"n20": N20Rules, "lob": LobRules, "tbf": TbfRules, "bc": BcRules}

for _name, _rules in SHIPPED.items():
    register(_name, _rules)
