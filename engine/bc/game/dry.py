"""A driver for checks: run a rules procedure to its end without chance, so that its refusals
(:class:`~engine.core.errors.RuleViolation`) are found before an action is played (legality has one source:
the procedure that plays it)."""
from __future__ import annotations

from collections.abc import Generator
from typing import Any

from engine.core.procedure import ChanceRequest, Choose, Draw, Log, Sub

from ..deck import default_deck

__all__ = ["dry_run"]


def dry_run(gen: Generator, deck=None) -> Any:
    """Run a rules procedure to its end with a driver that takes the first option of every request, except
    an Out of Command check (21.3), answered with a card that succeeds (in ``deck``, the game's) so that the
    moves are checked too. Raises the procedure's :class:`RuleViolation` without any randomness."""
    deck = deck or default_deck()
    stack = [gen]
    send = None
    first = True
    while True:
        g = stack[-1]
        try:
            req = next(g) if first else g.send(send)
            first = False
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            send, first = stop.value, False
            continue
        if isinstance(req, Log):
            send = None
        elif isinstance(req, Sub):
            stack.append(req.proc())
            first = True
        elif isinstance(req, Draw):
            send = req.cards[0]
            if req.rule == "21.3":
                good = [c for c in req.cards if not deck.is_reshuffle(c) and
                        deck.skill(c) in ("officer", "crossed_flags", "flags_1")]
                send = good[0] if good else send
        elif isinstance(req, Choose):
            send = req.options[0]
        elif isinstance(req, ChanceRequest):
            send = req.outcomes()[0][0]
        else:
            raise TypeError(f"unexpected request {req!r}")
