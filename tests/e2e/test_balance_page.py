"""The Scenario balance page: a tiny study run in the background from the browser (issue 16)."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def test_a_tiny_study_runs_and_shows_its_results(page: Page, app_url: str):
    page.goto(app_url + "/balance")
    run = page.locator(".run-study button")
    expect(run).to_be_visible(timeout=60_000)
    games = page.locator(".study-games input")
    games.fill("3")
    games.press("Enter")
    run.click()
    # the page reports while the games run, then the summary and one row per game
    expect(page.locator(".study-status [data-state='done']")).to_be_attached(timeout=240_000)
    expect(page.locator(".study-summary")).to_contain_text("3 games", timeout=60_000)
    rows = page.locator("tr.study-row")
    expect(rows).to_have_count(3)
    link = rows.first.locator("a").get_attribute("href")
    assert link.startswith("/play?") and "seed=" in link and "system=n20" in link
