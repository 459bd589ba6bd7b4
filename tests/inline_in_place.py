"""Run a procedure's shared steps in place: the reference side of the differential tests of exact odds.

An inline sub-procedure (``Sub(inline=True)``, and so every :func:`engine.core.procedure.chain`) is a step
of its caller's own procedure, made a sub-procedure only so that the enumerate driver works its results out
once and shares them. Run in place instead, the driver branches on each of its dice again, as the
enumeration did before the step was shared: the same odds must come out, fraction for fraction.

* :func:`in_place` relays a live procedure's requests, each step ``which`` picks (default: every inline
  one) run in place at any depth (inside a memoised sub-procedure too);
* :class:`InPlace` wraps a game's rules so that ``perform`` runs that way (everything else is the rules'
  own), for :func:`engine.core.quick_odds.quick_odds` and :func:`engine.core.odds.enumerate_action`.

Used by tests/tbf/test_tbf_shared_rolls.py and tests/tbf/test_tbf_turn_end_odds.py (every inline step);
Battle Commander's card steps have their own reference (tests/bc/card_steps.py: run in place with the
Ordre Mixte projections turned off too)."""
from __future__ import annotations

from collections.abc import Callable, Generator
from functools import partial
from typing import Any

from engine.core.procedure import Sub

__all__ = ["in_place", "InPlace", "every_inline"]


def every_inline(req: Sub) -> bool:
    """The default pick: every inline step."""
    return bool(req.inline)


def in_place(gen: Generator[Any, Any, Any], which: Callable[[Sub], bool] = every_inline
             ) -> Generator[Any, Any, Any]:
    """Relay ``gen``'s requests, running each sub-procedure ``which`` picks in place (its dice branch one by
    one), at any depth; the others stay the sub-procedures they are (key and flags kept), their own steps
    run in place as well."""
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub) and which(req):
                answer = yield from in_place(req.proc(), which)
            elif isinstance(req, Sub):          # the same request (key, flags), its own steps in place
                answer = yield req.wrapped(partial(_wrap_in_place, which=which))
            else:
                answer = yield req
            req = gen.send(answer)
    except StopIteration as stop:
        return stop.value


def _wrap_in_place(proc: Callable[[], Generator[Any, Any, Any]], which: Callable[[Sub], bool]
                   ) -> Callable[[], Generator[Any, Any, Any]]:
    return partial(_proc_in_place, proc, which)


def _proc_in_place(proc: Callable[[], Generator[Any, Any, Any]], which: Callable[[Sub], bool]
                   ) -> Generator[Any, Any, Any]:
    return in_place(proc(), which)


class InPlace:
    """The rules with the steps ``which`` picks run in place (default every inline one); everything else is
    the rules' own."""

    def __init__(self, rules: Any, which: Callable[[Sub], bool] = every_inline) -> None:
        self._rules = rules
        self._which = which

    def perform(self, state: Any, action: Any) -> Generator[Any, Any, Any]:
        return in_place(self._rules.perform(state, action), self._which)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)
