"""Helpers for the play page's browser tests: open a record at its last position, select an action."""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from n20_helpers import wait_ready


def open_record(page: Page, app_url: str, system: str, rec, tmp_path) -> None:
    """Import ``rec`` on the play page and switch to play at its last position."""
    f = tmp_path / f"{system}.json"
    f.write_text(rec.dumps())
    page.goto(f"{app_url}/play?system={system}")
    expect(page.locator(".status-line [data-state='no-game']")).to_be_attached(timeout=90_000)
    wait_ready(page)
    page.locator(".import-record input[type=file]").set_input_files(str(f))
    n = len(rec.events)
    expect(page.locator(f".status-line [data-events='{n}']")).to_be_attached(timeout=90_000)
    # the import opens the record in replay: wait until the switch shows it, then switch to play
    expect(page.locator(".play-mode button.bk-active", has_text="replay")).to_be_attached(timeout=60_000)
    page.locator(".play-mode button", has_text=re.compile(r"^play$")).click()
    expect(page.locator(f".status-line [data-state='ready'][data-events='{n}']")).to_be_attached(timeout=60_000)


def select_action(page: Page, label: str) -> None:
    sel = page.locator(".action-list select")
    expect(sel.locator("option", has_text=label).first).to_be_attached(timeout=60_000)
    value = sel.locator("option", has_text=label).first.get_attribute("value")
    sel.select_option(value=value)
