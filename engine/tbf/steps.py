"""The type of a These Brave Fellows rules procedure: a generator the drivers run (play, replay, exact odds)
that yields its requests (dice, choices, sub-procedures, log lines) and returns its result, e.g.
``Steps[CheckOutcome]`` for a Fatigue Check (4.2) or ``Steps[TbfState]`` for an action of the game."""
from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

from engine.core.procedure import Request

__all__ = ["Steps"]

_T = TypeVar("_T")
Steps = Generator[Request, Any, _T]
