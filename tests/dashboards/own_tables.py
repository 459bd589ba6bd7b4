"""A TBF game with the player's own Fire Combat Table (for the tests of issue 25.4, model and browser): the
upload a player makes on /charts, and a bot game played up to the long-range artillery fire the tests work
out by hand."""
from __future__ import annotations

from attack_records import tbf_long_range_artillery_fire
from dashboards.calculators.charts_model import ChartBook
from engine.core.game import system_of
from engine.core.tables import upload_tables


def _tbf_upload():
    """The TBF Fire Combat Table with one cell typed in on /charts: roll 7 in strength column 2 reads FR
    (fatigued and retreat) instead of the shipped R (retreat)."""
    book = ChartBook("tbf")
    b = book.block("fire")
    b.set_grid_cell("7", 1, "FR")                  # columns 1, 2, 3, ...: index 1 is strength column 2
    b.set_source("published chart player aid of my copy")
    up = upload_tables(system_of("tbf"), book.to_bytes(), book.filename())
    assert up.ok, up.error
    return up


def _bot_until_fire(sess, bot_seed: int = 2, limit: int = 1500):
    """The random bot plays ``sess`` up to the first long-range artillery fire the tests work out by hand."""
    rules = sess.rules
    bot = rules.bots()["random"](seed=bot_seed)
    for _ in range(limit):
        legal = sess.legal_actions()
        hits = [a for a in legal if tbf_long_range_artillery_fire(rules, sess.state, a)]
        if hits:
            return hits[0]
        a = bot.choose_action(rules, sess.state, legal)
        sess.act(a, chooser=lambda req: bot.choose(req, sess.state))
    raise AssertionError("no long-range artillery fire")
