"""The movement search's bucket form (engine.core.graph.search_parents_whole, whole-number MPs) finds what the general
cheapest-first search (engine.core.graph.search_parents) finds: the same hexes, costs and paths, in the
same order, for every unit of positions met in games (6.2)."""
from __future__ import annotations

import pytest

from engine.core.game import play_game
from engine.core import graph
from engine.core.graph import search_parents
from engine.tbf.game import search as R
from engine.tbf.game.protocol import TbfRules
from engine.tbf.scenario import default_scenario

SC = default_scenario()


def _positions(seed: int, every: int = 60) -> list:
    seen = []
    play_game(TbfRules(), ("random", "random"), seed=seed, record=False, max_actions=320,
              on_action=lambda s, n: seen.append(s.game) if n % every == 0 else None)
    return seen


def _both(monkeypatch, g, uid, levels, mp_left):
    R.forget()
    fast = R.reachable(SC, g, uid, levels, mp_left=mp_left)
    R.forget()
    with monkeypatch.context() as m:
        m.setattr(graph, "search_parents_whole", lambda start, successors, ma, halts:      # the general search
                  search_parents(((start, 0),), successors, ma, halts=halts))
        slow = R.reachable(SC, g, uid, levels, mp_left=mp_left)
    R.forget()
    return fast, slow


@pytest.mark.parametrize("seed", [3])
def test_bucket_search_agrees_with_search_parents(monkeypatch, seed):
    checked = 0
    for g in _positions(seed):
        for p in g.on_map():
            if p.status not in ("normal", "fatigued"):
                continue
            for levels, mp_left in (({2: 2, 3: 1}, None), ({}, 3), ({2: 1}, 0)):
                fast, slow = _both(monkeypatch, g, p.id, levels, mp_left)
                assert list(fast.items()) == list(slow.items()), (p.id, levels, mp_left)
                checked += 1
    assert checked > 100, checked
