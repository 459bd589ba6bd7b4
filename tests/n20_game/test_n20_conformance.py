"""The core conformance suite (engine.core.conformance.check_game) on Napoleonic 20: random-legal games of
the three scenarios; at every state the legal actions pass check and apply, illegal ones are refused with
a rule and change nothing, actions and positions round-trip through JSON and text, the invariants hold
(6.9 stacking, 6.3, 12.1.1 Morale range, the turn range), and replaying the record rebuilds every state.
Small in the default run; whole games with every option under ``-m slow``."""
from __future__ import annotations

import pytest

from engine.core.conformance import check_game
from engine.n20.game.protocol import N20Rules

R = N20Rules()

ALL_OPTIONS = {
    "fuentes": ("leaders", "fatigue", "special_units", "fog_of_war", "rally_hexes", "unit_reduction", "squares",
                "penetration", "artillery_support", "breakdown"),
    "fuentes-5may": ("leaders", "special_units", "fatigue"),
    "bussaco": ("portuguese_reliability", "special_units", "fog_of_war", "penetration", "artillery_support"),
}


@pytest.mark.parametrize("scenario,seed,options,n", [
    ("fuentes", 1, (), 60),
    ("fuentes-5may", 2, ALL_OPTIONS["fuentes-5may"], 50),
    ("bussaco", 3, (), 60),
    ("fuentes", 4, ALL_OPTIONS["fuentes"], 40),
])
def test_conformance_small(scenario, seed, options, n):
    rep = check_game(R, scenario, options, seed=seed, max_actions=n, apply_sample=2, illegal_sample=3)
    assert rep.actions > 0 and rep.legal_applied > 0
    assert rep.illegal_refused > 0 and all(rep.rules_cited)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(ALL_OPTIONS))
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_conformance_whole_games(scenario, seed):
    opts = ALL_OPTIONS[scenario] if seed % 2 else ()
    rep = check_game(R, scenario, opts, seed=seed, max_actions=5000)
    assert rep.over and rep.outcome is not None
