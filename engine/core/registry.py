"""The registry of game systems (issue 27.6: split from :mod:`engine.core.game`): the CLI, the play page and
simulations find a system's rules by its id (:mod:`engine.systems` registers the shipped ones)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import VedetteError
from .protocol import GameRules

__all__ = ["register", "systems", "system_of", "factory_of"]


_SYSTEMS: dict[str, Callable[[], GameRules[Any, Any]]] = {}


def register(system: str, factory: Callable[[], GameRules[Any, Any]]) -> None:
    """Make a system's rules available by name (the CLI, the play page and simulations look them up)."""
    _SYSTEMS[system] = factory


def systems() -> list[str]:
    """The registered systems' ids, sorted."""
    return sorted(_SYSTEMS)


def system_of(name: str) -> GameRules[Any, Any]:
    """The rules of the registered system ``name`` (``"n20"``, ``"lob"``, ``"tbf"``, ``"bc"`` once
    :mod:`engine.systems`, the table of the shipped systems, is imported)."""
    return factory_of(name)()


def factory_of(name: str) -> Callable[[], GameRules[Any, Any]]:
    """What makes the rules of the registered system ``name`` (a class, picklable by reference: a Dask
    worker that receives it imports that system alone)."""
    try:
        return _SYSTEMS[name]
    except KeyError:
        known = ", ".join(sorted(_SYSTEMS)) or "none registered: import engine.systems"
        raise VedetteError(f"unknown game system {str(name)[:20]!r}; one of {known}") from None
