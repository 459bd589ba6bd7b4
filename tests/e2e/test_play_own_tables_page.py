"""A game that keeps the player's own tables, in the browser (issue 25.4): a TBF record made with a Fire
Combat Table typed in on /charts is imported on /play, and the odds the served page shows (worked out in the
odds worker process, which gets the tables with the position) are those of the file, not the shipped ones.
Every wait is on page state."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from play_helpers import open_record, select_action

sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
from own_tables import _bot_until_fire, _tbf_upload  # noqa: E402

pytestmark = pytest.mark.e2e


def test_tbf_fire_odds_from_the_games_own_fire_table(page: Page, app_url: str, tmp_path):
    from engine.core.game import Session
    up = _tbf_upload()
    sess = Session.new(up.rules, None, (), 1)
    fire = _bot_until_fire(sess)
    assert sess.record.options["tables"]["fingerprint"] == up.tables.fingerprint
    open_record(page, app_url, "tbf", sess.record, tmp_path)
    select_action(page, sess.rules.describe_action(fire))
    ready = page.locator(".odds-panel .action-odds[data-state='ready']")
    expect(ready).to_be_attached(timeout=90_000)
    # By hand: FF 4 artillery at 4 hexes fires in column 2 (4 // 2, 6.3.4 B), no DRM, a d10 (6.3.7 D).
    # The file's column 2 reads "-" on 1-6, FR on 7 (the shipped chart: R), F on 8 and 9, FR on 10: no
    # effect 6/10 = 3/5, fatigued 2/10 = 1/5, fatigued and retreat 2/10 = 1/5; no 1/10 line (the shipped
    # chart's retreat on 7 and FR on 10 each 1/10).
    expect(ready.locator("tr.odds-line", has_text="no effect").locator("td.frac")).to_have_text("3/5")
    expect(ready.locator("tr.odds-line td.frac", has_text="1/5")).to_have_count(2)
    expect(ready.locator("tr.odds-line td.frac", has_text="1/10")).to_have_count(0)
