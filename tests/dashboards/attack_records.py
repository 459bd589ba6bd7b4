"""Records of bot games stopped where the side to act may attack (for the odds panel's tests, issue 15.2).

:func:`record_until` plays a system's random bot from a fixed seed, one action at a time, and stops at the
first position where ``wanted(rules, state, action)`` holds for a legal action; it returns the record
(which the play page imports) and that action. Made at test time from the engine itself, so a change of
the rules never leaves a stale file behind.
"""
from __future__ import annotations

from typing import Any, Callable

from engine.core.game import Session, system_of


def kind_of(rules, action) -> str:
    j = rules.action_to_json(action)
    return str(j.get("type") or j.get("kind") or "")


def record_until(system: str, wanted: Callable[[Any, Any, Any], bool], seed: int = 1, bot_seed: int = 3,
                 limit: int = 1500, games: int = 6, bot: str = "random"):
    """(record, state, action, rules): the game up to the first position with a wanted legal action, both
    sides played by the system's ``bot`` (random by default; greedy reaches the big fights random play seldom does).
    A game that ends first (a random bot may lose its army's commander early) is followed by the next
    game seed, up to ``games`` games and ``limit`` actions in all."""
    rules = system_of(system)
    bot = rules.bots()[bot](seed=bot_seed)
    played = 0
    for game_seed in range(seed, seed + games):
        sess = Session.new(rules, None, (), game_seed)
        while played < limit:
            legal = sess.legal_actions()
            if not legal:
                break
            hits = [a for a in legal if wanted(rules, sess.state, a)]
            if hits:
                return sess.record, sess.state, hits[0], rules
            a = bot.choose_action(rules, sess.state, legal)
            sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
            played += 1
    raise AssertionError(f"no wanted action in {played} actions of {system} bot games")


def tbf_long_range_artillery_fire(rules, state, action) -> bool:
    """A fire by one artillery unit of FF 4 at 4 hexes, with no DRM and no column shift (the case the
    tests work out by hand)."""
    if kind_of(rules, action) != "fire" or state.impulse is None or state.impulse.segment != "offensive_fire":
        return False
    from engine.tbf.game.fire_combat import cached_fire_setup
    try:
        s = cached_fire_setup(state.game, action.units, action.target, False)
    except Exception:  # noqa: BLE001 - not a legal fire set-up: not the case wanted
        return False
    return (len(s.firers) == 1 and s.firers[0].kind == "artillery" and s.firers[0].ff == 4
            and s.firers[0].range == 4 and s.drm == 0 and s.terrain_drm == 0 and not s.modifiers
            and s.shift == 0 and not s.night)


def view_at(store, rec):
    """The play page with ``rec`` imported and resumed at its last position."""
    from dashboards.play.view import GamePlayView
    v = GamePlayView(system=rec.game, store=store)
    m = v.model
    m.import_record(rec, server=True)
    m.mode, m.position = "play", len(m.states) - 1          # as the page's "play" switch does
    v.board = None
    v.refresh()
    return v


def tree_answers(name: str) -> list[str]:
    """The answers (sub-procedure results) the top of the probability tree shows for the play page's odds
    benchmark attack called ``name`` (tests/bench/test_play_odds_bench.py CASES), in the first position bot
    seed 3's game offers it."""
    import sys
    from pathlib import Path

    from engine.core.quick_odds import action_tree
    bench = str(Path(__file__).resolve().parents[1] / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    from test_play_odds_bench import CASES
    _, system, wanted = next(c for c in CASES if c[0] == name)
    _, state, action, rules = record_until(system, wanted, bot_seed=3, limit=3000)
    tree = action_tree(rules, state, action)
    return [str(c.outcome_text) for n in tree.nodes() for c in n.children if c.outcome_text is not None]
