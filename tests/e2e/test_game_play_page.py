"""The play page for Lines of Battle, These Brave Fellows and Battle Commander (issue 15): start a game,
make a legal move, get a refusal, type a die, undo, reload and find the game, replay (browser test)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def _events(page: Page) -> int:
    return int(page.locator(".status-line [data-events]").get_attribute("data-events"))


@pytest.mark.parametrize("system", ["lob", "tbf", "bc"])
def test_start_move_undo_reload_replay(page: Page, app_url: str, system: str):
    page.goto(f"{app_url}/play?system={system}")
    page.locator(".start-game button").click()
    ready = page.locator(".status-line [data-state='ready'][data-events='0']")
    expect(ready).to_be_attached(timeout=90_000)
    options = page.locator(".action-list select option")
    expect(options.first).to_be_attached(timeout=30_000)
    page.locator(".action-list select").select_option(index=0)
    page.locator(".do-action button").click()
    # the action's questions (if any: a TBF activation asks about each subordinate leader, 6.1.1 B-C) answered
    # with the first button
    done = page.locator(".status-line [data-events='1']")
    for _ in range(20):
        choice = page.locator(".pending .choice button").first
        expect(done.or_(choice)).to_be_attached(timeout=60_000)
        if done.count():
            break
        answered = page.locator(".pending-request").get_attribute("data-answered")
        choice.click()
        moved_on = page.locator(f".pending-request:not([data-answered='{answered}'])")
        expect(done.or_(moved_on)).to_be_attached(timeout=60_000)
    expect(done).to_be_attached(timeout=60_000)
    # the address bar now holds the game's link: a reload reopens the same game
    expect(page).to_have_url(re.compile(r"game=\w+&key="), timeout=30_000)
    page.reload()
    expect(page.locator(".status-line [data-events='1']")).to_be_attached(timeout=90_000)
    page.locator(".undo button").click()
    expect(page.locator(".status-line [data-events='0']")).to_be_attached(timeout=60_000)


def test_typed_card_then_an_import_naming_a_file_changes_nothing(page: Page, app_url: str, tmp_path):
    page.goto(f"{app_url}/play?system=bc")
    page.locator(".dice-mode button", has_text="I type").click()
    page.locator(".start-game button").click()
    expect(page.locator(".status-line [data-state='ready']")).to_be_attached(timeout=90_000)
    # the turn starts with the hands dealt (15.0): the first card drawn is typed in from the table
    page.locator(".action-list select").select_option(index=0)
    page.locator(".do-action button").click()
    expect(page.locator(".pending-request[data-rule='15.0']")).to_be_attached(timeout=60_000)
    page.locator(".typed-die select").select_option(index=6)        # card 7
    cards = page.locator(".typed-die select option").count()
    page.locator(".enter-die button").click()
    # the next draw waits, from a deck one card smaller (draws without replacement)
    expect(page.locator(".typed-die select option")).to_have_count(cards - 1, timeout=60_000)
    assert _events(page) == 0                                          # nothing saved mid-action
    page.locator("button", has_text="let the computer roll").click()
    expect(page.locator(".status-line [data-events='1']")).to_be_attached(timeout=60_000)
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "vedette-record", "format_version": 1, "game": "lob", "scenario": "albuera", '
                   '"engine_version": "lob-game-2", "options": {"tables": "/etc/passwd"}, "events": []}')
    page.locator(".import-record input[type=file]").set_input_files(str(bad))
    expect(page.locator(".refusal-box [data-state='refused']")).to_contain_text("may not name a file", timeout=60_000)
    assert "root:" not in page.content()
    expect(page.locator(".status-line [data-events='1']")).to_be_attached()
