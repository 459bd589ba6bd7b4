"""Test helpers: Battle Commander exact odds with the combat's card steps run in place and the Ordre Mixte
projections left out, the enumeration the steps must agree with (issue 26).

The combat card read (key "bc-combat-card-read": 23.2/23.3, 23.4, 27.6), the card drawn before an Ordre Mixte
redraw ("bc-combat-card-draw", 27.6) and the HQs' Fate of War cards ("bc-hq-fates", 27.10, 27.11) are inline
sub-procedures keyed by value, so exact enumeration works each out once and merges its equal outcomes. Run in
place (each card its own branch again, at the depth of the procedure that asks for it) and with every card kept
as it was summarised (no projection to what an Ordre Mixte redraw reads), the enumeration is the one these steps
stand for: the same fractions, more work.

The combat's odds run as a chain of steps (engine/bc/combat.py resolve: Square check, card, effects, HQs' fate),
each worked out once per distinct position reached; relayed by :func:`in_place`, the chain is a plain
sub-procedure whose steps run one after the other inside it (no merging between them), and
:func:`unclassed` keeps each card's own icon for the Fate of War draws."""
from __future__ import annotations

from collections.abc import Generator
from functools import partial
from typing import Any

import pytest

from engine.bc import combat as bc_combat
from engine.bc import deck as bc_deck
from engine.core.procedure import Sub

#: the inline steps run in place
STEPS = ("bc-combat-card-read", "bc-combat-card-draw", "bc-hq-fates")


def in_place(gen: Generator[Any, Any, Any], steps: tuple[str, ...] = STEPS) -> Generator[Any, Any, Any]:
    """Relay ``gen``'s requests, the sub-procedures keyed by one of ``steps`` run in place, at any depth."""
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub) and isinstance(req.key, tuple) and req.key[:1] and req.key[0] in steps:
                answer = yield from in_place(req.proc(), steps)
            elif isinstance(req, Sub):
                answer = yield Sub(req.key, partial(lambda f: in_place(f(), steps), req.proc), req.rule, req.label,
                                   inline=req.inline)
            else:
                answer = yield req
            req = gen.send(answer)
    except StopIteration as stop:
        return stop.value


class Rewired:
    """The rules, with each action's procedure passed through ``relay`` (a generator function of the procedure's
    generator); everything else is the rules' own."""

    def __init__(self, rules: Any, relay: Any = in_place) -> None:
        self._rules, self._relay = rules, relay

    def perform(self, state: Any, action: Any) -> Generator[Any, Any, Any]:
        return self._relay(self._rules.perform(state, action))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)


def unprojected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ordre Mixte piles left as they were summarised (icons and both CRT rows), before and after the card that
    leads to a redraw: no projection to the results a card can give."""
    for cls in (bc_deck.Pile, bc_deck.UnseenPile):
        own = cls.project_results

        def project(self, deck, table, reads, fire_reads=(), _own=own):
            return self if fire_reads else _own(self, deck, table, reads)
        monkeypatch.setattr(cls, "project_results", project)
    monkeypatch.setattr(bc_combat, "as_the_redraw_reads", lambda pile, deck, column, net: pile)


def unclassed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piles left as they were summarised, each card its own icon: not the class of icons that the HQs' Fate of
    War (27.11) tells apart, nor the classes the rest of a combat tells apart (engine/bc/readings.py)."""
    for cls in (bc_deck.Pile, bc_deck.UnseenPile):
        monkeypatch.setattr(cls, "by_icons", lambda self, deck, classes: self)
        monkeypatch.setattr(cls, "classed", lambda self, deck, classes: self)


def odds_of(data: dict[str, Any]) -> tuple[Any, ...]:
    """What a player is shown of quick odds: each line and each metric, as exact fractions, and the number of
    end positions."""
    return (tuple((x["label"], x["fraction"]) for x in data["lines"]),
            tuple((x["metric"], x["fraction"]) for x in data["expected"]), data["end_positions"])
