"""The type of a Lines of Battle rules procedure: a generator the drivers run (play, replay, exact odds)
that yields its requests (dice, choices, sub-procedures, log lines) and returns its result, e.g.
``Steps[str]`` for a leader loss roll (7.1.1) or ``Steps[Game]`` for an action of the game."""
from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from engine.core.procedure import Request

__all__ = ["Steps"]

_T = TypeVar("_T")
Steps = Generator[Request, Any, _T]
