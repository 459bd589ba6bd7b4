"""The served app: index lists every page; a page route answers (browser test)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def test_index_lists_pages_and_saved_games(page: Page, app_url: str):
    page.goto(app_url + "/")
    expect(page.get_by_role("heading", name="What is this?")).to_be_visible(timeout=20_000)
    expect(page.get_by_role("heading", name="Saved games")).to_be_visible()
    # every tool card links to its route
    links = page.locator(".tool-card a")
    n = links.count()
    assert n >= 1
    for i in range(n):
        assert re.fullmatch(r"/\w+", links.nth(i).get_attribute("href"))
