"""Browser tests of hotseat play: make a move, survive a server restart, keep two sessions apart."""
from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from n20_helpers import click_hex, wait_ready

pytestmark = pytest.mark.e2e


def start_bussaco(page: Page, app_url: str) -> None:
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".scenario-select select").select_option("bussaco")
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(".status-line")).to_contain_text("phase: movement", timeout=30_000)


def move_cavalry(page: Page) -> None:
    # the French cavalry (FRCV) starts in 1011; 0912 is one of its legal destinations
    click_hex(page, "bussaco", "1011")
    page.wait_for_timeout(300)
    click_hex(page, "bussaco", "0912")
    expect(page.locator(".status-line .status")).to_have_attribute("data-events", "1")
    expect(page.locator(".message")).to_contain_text("move FRCV 1011->0912")


def test_make_a_move_then_restart_the_server_and_resume(page: Page, app_url: str, restart_server):
    start_bussaco(page, app_url)
    move_cavalry(page)
    url = restart_server()                      # killed without a clean shutdown, then started again
    page.goto(url + "/")
    row = page.locator("tr.saved-game", has_text="Bussaco").first
    expect(row).to_be_visible(timeout=30_000)
    row.locator("a.resume").click()
    expect(page.locator(".status-line .status")).to_have_attribute("data-events", "1", timeout=30_000)
    expect(page.locator(".message")).to_contain_text("loaded (1 actions)")


def test_two_browser_contexts_do_not_share_a_game(browser: Browser, app_url: str):
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    start_bussaco(a, app_url)
    move_cavalry(a)
    b.goto(app_url + "/play")                   # the same page in another browser: its own, empty session
    expect(b.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(b)
    b.locator(".start-game button").click()     # B starts a Fuentes game; A's Bussaco game is untouched
    expect(b.locator(".status-line .status")).to_have_attribute("data-events", "0", timeout=30_000)
    expect(b.locator(".status-line")).to_contain_text("3 May")
    expect(a.locator(".status-line .status")).to_have_attribute("data-events", "1")
    expect(a.locator(".status-line")).to_contain_text("26 Sep")
    a.context.close()
    b.context.close()
