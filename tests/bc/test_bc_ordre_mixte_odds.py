"""Exact odds of an Ordre Mixte assault (27.6) by what matters (issue 26): the combat card is projected to
its icon, its Assault results and its Fire results at the column and each net shift, so cards alike in all
three are one branch and the card-and-effects step is memoised as for any other attack; the redraw on the
Fire line is an inline step (key "bc-fire-redraw") whose result and pile left (icons only) meet across cards alike.

Differential: the same odds with the Ordre Mixte piles left unprojected (rows kept, as before) and the
redraw run in place (each card its own branch again): the same fractions, line by line and metric by
metric, from the whole position and from each side's view (15.0), on random-bot positions offering an Ordre
Mixte assault; and less work."""
from __future__ import annotations

from collections.abc import Generator
from functools import partial
from typing import Any

import pytest

from engine.bc import deck as bc_deck
from engine.bc.game.actions import Attack
from engine.core.game import Session
from engine.core.procedure import Sub
from engine.core.quick_odds import WHOLE, quick_odds
from engine.systems import system_of

R = system_of("bc")


def _in_place(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Relay ``gen``'s requests, the Ordre Mixte redraw (an inline sub-procedure) run in place, at any depth."""
    try:
        req = next(gen)
        while True:
            if isinstance(req, Sub) and isinstance(req.key, tuple) and req.key[:1] == ("bc-fire-redraw",):
                answer = yield from _in_place(req.proc())
            elif isinstance(req, Sub):
                answer = yield Sub(req.key, partial(lambda f: _in_place(f()), req.proc), req.rule, req.label)
            else:
                answer = yield req
            req = gen.send(answer)
    except StopIteration as stop:
        return stop.value


class _InPlace:
    """The rules with the redraw run in place; everything else is the rules' own."""

    def __init__(self, rules: Any) -> None:
        self._rules = rules

    def perform(self, state: Any, action: Any) -> Generator[Any, Any, Any]:
        return _in_place(self._rules.perform(state, action))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)


def _ordre_mixte_positions() -> list[tuple[Any, Attack]]:
    """Random-bot games (bot seeds 5 and 8, different positions): the first position of each offering an
    Ordre Mixte assault."""
    out = []
    for bot_seed in (5, 8):
        bot = R.bots()["random"](seed=bot_seed)
        sess = Session.new(R, None, (), 1)
        for _ in range(1500):
            legal = sess.legal_actions()
            if not legal:
                break
            hits = [x for x in legal if isinstance(x, Attack) and x.attack == "assault" and x.special == "ordre_mixte"]
            if hits:
                out.append((sess.state, hits[0]))
                break
            x = bot.choose_action(R, sess.state, legal)
            sess.act(x, chooser=lambda req: bot.choose(req, sess.state))
    return out


def _odds(data: dict[str, Any]) -> tuple[Any, ...]:
    return (tuple((x["label"], x["fraction"]) for x in data["lines"]),
            tuple((x["metric"], x["fraction"]) for x in data["expected"]))


def _unprojected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ordre Mixte piles left as they were summarised (icons and both CRT rows), as before the projection."""
    for cls in (bc_deck.Pile, bc_deck.UnseenPile):
        own = cls.project_results

        def project(self, deck, table, reads, fire_reads=(), _own=own):
            return self if fire_reads else _own(self, deck, table, reads)
        monkeypatch.setattr(cls, "project_results", project)


@pytest.fixture(scope="module")
def positions() -> list[tuple[Any, Attack]]:
    found = _ordre_mixte_positions()
    assert len(found) == 2 and found[0][0] != found[1][0]
    return found


@pytest.mark.parametrize("seen", ["whole", "side"])
def test_ordre_mixte_odds_are_the_same_fractions_with_less_work(positions, seen, monkeypatch):
    now = []
    for st, a in positions:
        seen_by = WHOLE if seen == "whole" else R.to_act(st)
        now.append(quick_odds(R, st, a, cache=None, seen_by=seen_by))
    _unprojected(monkeypatch)
    for (st, a), fast in zip(positions, now):
        seen_by = WHOLE if seen == "whole" else R.to_act(st)
        before = quick_odds(_InPlace(R), st, a, cache=None, seen_by=seen_by)
        assert _odds(fast) == _odds(before), fast["action"]
        assert fast["end_positions"] == before["end_positions"]
        assert fast["steps"] < before["steps"]
