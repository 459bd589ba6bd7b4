"""A /play game started with the player's own tables file plays with it (issue 25.4): the legal actions, the
quick odds the page shows (dashboards/play/action_odds.py through the odds worker) and a reopened saved game
use the file's values, not the shipped charts (the TBF and BC rules hold their charts: rules_for(record))."""
from __future__ import annotations

import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from own_tables import _bot_until_fire, _tbf_upload  # noqa: E402

from dashboards.play.view import GamePlayView  # noqa: E402
from dashboards.server.storage import GameStore  # noqa: E402
from engine.core.game import system_of  # noqa: E402
from engine.core.quick_odds import position_key  # noqa: E402
from engine.core.tables import upload_tables  # noqa: E402


@pytest.fixture
def store(tmp_path):
    return GameStore(tmp_path / "games.sqlite3")


def _fractions(html_text: str) -> list[Fraction]:
    return sorted(Fraction(p) for p in re.findall(r"class='odds-line' data-p='([0-9/]+)'", html_text))


def _play_until_fire(m):
    """The bot plays the page's game (each action saved as the page saves it) up to that fire."""
    fire = _bot_until_fire(m.game.session)
    m.game.changed()
    m.sync()
    m.mode, m.position = "play", len(m.states) - 1
    return fire


def test_a_tbf_game_with_its_own_fire_table_shows_the_odds_of_those_values_also_when_reopened(store):
    up = _tbf_upload()
    v = GamePlayView(system="tbf", store=store)
    m = v.model
    gid = m.new(seed=1, tables=up.tables)
    assert m.rules.game_tables == up.tables and m.game.rules.game_tables == up.tables
    fire = _play_until_fire(m)
    v.board = None
    v.refresh()
    v.select(fire)
    text = v.odds.pane.object
    # Hand check: one artillery unit of FF 4 at 4 hexes fires at half strength, 4 // 2 = 2 (6.3.4 B):
    # column 2, no DRM, a d10 (6.3.7 D). The shipped column reads "-" for 1-6, R for 7, F for 8 and 9,
    # FR for 10 (no effect 3/5, retreat 1/10, fatigued 1/5, fatigued and retreat 1/10). With the typed
    # cell roll 7 reads FR: no effect 6/10 = 3/5, fatigued 2/10 = 1/5, fatigued and retreat 2/10 = 1/5,
    # and no "retreat" only line.
    assert "data-state='ready'" in text, text[:300]
    assert _fractions(text) == [Fraction(1, 5), Fraction(1, 5), Fraction(3, 5)], text
    # the same position with the shipped charts has another key: the odds worked out for one are never
    # shown for the other
    assert position_key(m.rules, m.state) != position_key(system_of("tbf"), m.state)
    # the saved game reopened on another page keeps the file's values
    again = GamePlayView(system="tbf", store=store)
    again.model.open(gid, key=store.keys(gid)["owner"])
    assert again.model.rules.game_tables == up.tables and not again.model.broken
    assert again.model.state == m.state
    again.board = None
    again.refresh()
    again.select(fire)
    assert _fractions(again.odds.pane.object) == [Fraction(1, 5), Fraction(1, 5), Fraction(3, 5)]


def test_a_new_game_after_one_with_tables_plays_with_the_shipped_charts(store):
    up = _tbf_upload()
    v = GamePlayView(system="tbf", store=store)
    v.model.new(seed=1, tables=up.tables)
    v.model.new(seed=1)
    assert v.model.rules.game_tables is None and v.model.record.options.get("tables") is None


def test_the_odds_worker_process_builds_the_rules_of_the_tables_sent_with_the_position():
    """The server's worker process gets the game's tables with the position and works out the same odds
    as the game's own rules (hand check as above: 3/5, 1/5, 1/5); the shipped-charts position under its own
    key still gets the shipped odds (3/5, 1/5, 1/10, 1/10 or 3/5, 3/10, 1/10)."""
    from dashboards.play.action_odds import tables_json
    from dashboards.server.odds_worker import OddsWorker
    from engine.core.game import Session
    from engine.core.quick_odds import WHOLE

    up = _tbf_upload()
    sess = Session.new(up.rules, None, (), 1)
    fire = _bot_until_fire(sess)
    rules, state = sess.rules, sess.state
    w = OddsWorker(size=1)
    try:
        mine = w.ask("odds", position_key(rules, state), "tbf", lambda: rules.state_to_json(state),
                     rules.action_to_json(fire), WHOLE, tables=tables_json(rules))
        shipped = system_of("tbf")
        theirs = w.ask("odds", position_key(shipped, state), "tbf", lambda: shipped.state_to_json(state),
                       rules.action_to_json(fire), WHOLE)
    finally:
        w.shutdown()
    got = sorted(Fraction(e["fraction"]) for e in mine["lines"])
    assert got == [Fraction(1, 5), Fraction(1, 5), Fraction(3, 5)], mine
    assert sorted(Fraction(e["fraction"]) for e in theirs["lines"]) in (
        [Fraction(1, 10), Fraction(1, 10), Fraction(1, 5), Fraction(3, 5)],
        [Fraction(1, 10), Fraction(3, 10), Fraction(3, 5)])


@pytest.mark.parametrize("chart", ["bc-deck", "bc-terrain"])
def test_a_bc_game_with_its_own_tables_starts_and_reopens_with_them(store, chart):
    """Battle Commander's rules hold their charts too: a game started on the page with a file of either
    chart plays with it, and the saved game reopens with it (it was refused as set up with other tables)."""
    from dashboards.calculators.charts_model import ChartBook
    from dashboards.play.model import GamePlayModel
    from engine.core.tables import rules_for
    book = ChartBook(chart)
    b = book.blocks()[0]
    b.set_source("published chart player aid of my copy")
    up = upload_tables(system_of("bc"), book.to_bytes(), book.filename())
    assert up.ok, up.error
    m = GamePlayModel(store, system="bc")
    gid = m.new(seed=2, tables=up.tables)
    assert m.rules.game_tables == up.tables and not m.broken
    assert m.record.options["tables"]["fingerprint"] == up.tables.fingerprint
    again = GamePlayModel(store, system="bc")
    again.open(gid, key=store.keys(gid)["owner"])
    assert again.rules.game_tables == up.tables and not again.broken
    assert again.rules.legal_actions(again.state) == rules_for(system_of("bc"), m.record).legal_actions(m.state)


def test_a_bot_of_a_game_with_its_own_tables_plays_with_them():
    """The bot's worker gets the game's tables with the position (as the odds worker does): its rules are
    the game's (rules_for), and the answers it sends back replay on the game's own session to the end of
    its action."""
    from dashboards.play import bots
    from engine.core.game import Session
    up = _tbf_upload()
    sess = Session.new(up.rules, None, (), 1)
    _bot_until_fire(sess)
    side = sess.rules.to_act(sess.state)
    assert bots._rules("tbf", up.tables.to_json()).game_tables == up.tables
    assert bots._rules("tbf").game_tables is None
    seats = {s: "random" for s in sess.rules.sides}
    seeds = {s: bots.bot_seed(1, i) for i, s in enumerate(sess.rules.sides)}
    got = bots.bot_move("tbf", sess.rules.state_to_json(sess.state), seats, seeds, 1, sess.index,
                        up.tables.to_json())
    p = sess.rules.begin(sess.state, got["action"])
    for a in got["answers"]:
        p = p.answer(a)
    assert p.done == got["done"] and side in seats
