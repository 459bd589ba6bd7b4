"""Exact odds of an Ordre Mixte assault (27.6) by what matters (issue 26): the combat card is projected to
its icon, its Assault results and its Fire results at the column and each net shift; the card read (the draw,
the neutral shifts 23.4, the redraw) is an inline step whose outcomes, the final result and the pile as icons,
meet before the effects; the card that leads to a redraw is drawn in an inline step of its own that keeps of
each card only what the redraw reads (its icon and Fire result at the read), so cards that showed different
Assault results meet.

Differential: the same odds with those steps run in place and the Ordre Mixte piles left unprojected (each card
its own branch again, rows kept, tests/bc/card_steps.py): the same fractions, line by line and metric by metric,
and the same end positions, from the whole position and from each side's view (15.0), on random-bot positions
and the play page's positions offering an Ordre Mixte assault; and less work."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from engine.bc.game.actions import Attack
from engine.core.game import Session
from engine.core.quick_odds import WHOLE, quick_odds
from engine.systems import system_of
from tests.bc.card_steps import Rewired, odds_of, unprojected

R = system_of("bc")


def _ordre_mixte_positions() -> list[tuple[Any, Attack]]:
    """Random-bot games (bot seeds 5 and 8, different positions): the first position of each offering an
    Ordre Mixte assault; and the play page's benchmark position where one is offered (bot seed 6,
    tests/bench/test_play_odds_bench.py)."""
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
    sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
    from attack_records import record_until
    wanted = (lambda r, s, a: isinstance(a, Attack) and a.attack == "assault")
    _, st, _, _ = record_until("bc", wanted, bot_seed=6, limit=3000)
    out += [(st, a) for a in R.legal_actions(st) if isinstance(a, Attack) and a.special == "ordre_mixte"][:1]
    return out


@pytest.fixture(scope="module")
def positions() -> list[tuple[Any, Attack]]:
    found = _ordre_mixte_positions()
    assert len(found) == 3 and len({st for st, _ in found}) == 3
    return found


@pytest.mark.parametrize("seen", ["whole", "side"])
def test_ordre_mixte_odds_are_the_same_fractions_with_less_work(positions, seen, monkeypatch):
    now = []
    for st, a in positions:
        seen_by = WHOLE if seen == "whole" else R.to_act(st)
        now.append(quick_odds(R, st, a, cache=None, seen_by=seen_by))
    unprojected(monkeypatch)
    for (st, a), fast in zip(positions, now):
        seen_by = WHOLE if seen == "whole" else R.to_act(st)
        before = quick_odds(Rewired(R), st, a, cache=None, seen_by=seen_by)
        assert odds_of(fast) == odds_of(before), fast["action"]
        # the steps meet: at least three times less work than each card its own branch
        assert 3 * fast["steps"] < before["steps"], (fast["steps"], before["steps"])
