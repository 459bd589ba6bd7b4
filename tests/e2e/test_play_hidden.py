"""What each side's browser receives in a game with hidden information (issue 28 point 4): everything the
page shows and every websocket message the server sends it, read in the browser, holds no hidden name,
id or card of the other side: Napoleonic 20 with fog of war (16.1: the Allied counters face down to the
French player), Battle Commander's hands (15.0 "No Peeking!": the Coalition's cards to the French
player)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from together_helpers import STATUS, do_first, events, open_link, status
from n20_helpers import wait_ready

pytestmark = pytest.mark.e2e

#: every text and attribute of the page, shadow roots included
_ALL_TEXT = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll('*')) {
      for (const a of el.attributes || []) out.push(a.value);
      if (el.shadowRoot) walk(el.shadowRoot); }
    out.push(root.textContent || ''); };
  walk(document); return out.join('\\n'); }"""


def _listen(page: Page) -> list[str]:
    """Every websocket message the page receives from now on (text frames; binary ones decoded)."""
    frames: list[str] = []

    def on_ws(ws):
        ws.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, str) else payload.decode("utf-8", errors="replace")))
    page.on("websocket", on_ws)
    return frames


def _start(page: Page, base: str, system: str, scenario: str | None, options=(), seed: str = "1") -> dict:
    page.goto(f"{base}/play?system={system}")
    expect(page.locator(".status-line [data-state='no-game']")).to_be_attached(timeout=90_000)
    wait_ready(page)
    if scenario:
        page.locator(".scenario-select select").select_option(scenario)
    for o in options:
        page.locator(f".variants input[value='{o}']").check()
    page.locator(".seed-input input").fill(seed)
    page.locator(".start-game button").click()
    expect(page.locator(".game-links a.link-owner")).to_be_attached(timeout=90_000)
    links = {}
    for a in page.locator(".game-links a").all():
        links[re.sub(r"^link-", "", a.get_attribute("class") or "")] = \
            re.sub(r"^https?://[^/]+", "", a.get_attribute("href") or "")
    return links


def _found(text: str, words: list[str]) -> list[str]:
    return [w for w in words if re.search(r"(?<![\w.])" + re.escape(w) + r"(?![\w])", text)]


ALLIED_NAMES = ["1st Division", "Light Division", "2nd Division", "3rd Division", "4th Division", "5th Division",
                "Indep. Brigades"]
ALLIED_IDS = ["A1", "ALT", "A2", "A3", "A4", "A5", "APOR", "AIB", "ACAV", "AD1", "AD2"]


def test_fog_of_war_the_french_browser_gets_no_hidden_allied_name_or_id(browser: Browser, app_url: str):
    """Bussaco with 16.1: every Allied counter starts face down to the French. The French player's browser
    (its side's link) is opened, plays a move and ends its phase; the Allied player (its own browser) then
    acts. Neither the French page's text and attributes nor any message it received names an Allied
    division or id (their counters show as tokens; their nationality may show, 16.1)."""
    owner = browser.new_context().new_page()
    links = _start(owner, app_url, "n20", "bussaco", options=("fog_of_war",), seed="1")
    french = browser.new_context().new_page()
    frames = _listen(french)
    open_link(french, app_url, links["french"])
    allied = browser.new_context().new_page()
    open_link(allied, app_url, links["allied"])
    do_first(french, "move FRCV")
    expect(french.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    for _ in range(6):                                  # the French end their phases until the Allied act
        if status(allied, "mine") == "yes":
            break
        n = events(french)
        do_first(french, "end this phase")
        expect(french.locator(f"{STATUS}[data-events='{n + 1}']")).to_be_attached(timeout=60_000)
    expect(allied.locator(f"{STATUS}[data-mine='yes']")).to_be_attached(timeout=60_000)
    n = events(allied)
    do_first(allied)
    expect(french.locator(f"{STATUS}[data-events='{n + 1}']")).to_be_attached(timeout=60_000)
    page_text = french.evaluate(_ALL_TEXT)
    received = "\n".join(frames)
    assert len(frames) > 5 and "FRCV" in received                    # the French page did get its game
    assert not _found(page_text, ALLIED_NAMES + ALLIED_IDS), _found(page_text, ALLIED_NAMES + ALLIED_IDS)
    assert not _found(received, ALLIED_NAMES + ALLIED_IDS), _found(received, ALLIED_NAMES + ALLIED_IDS)
    # the Allied player sees their own counters in full
    assert _found(allied.evaluate(_ALL_TEXT), ["1st Division"]) or _found(allied.evaluate(_ALL_TEXT), ["A1"])
    for p in (owner, french, allied):
        p.context.close()


def test_battle_commander_the_french_browser_gets_no_coalition_card(browser: Browser, app_url: str, app_server):
    """The turn starts with the hands dealt (15.0): the French player's browser receives no card of the
    Coalition's hand, in the page or in any message (the log says a card was drawn, face down)."""
    from dashboards.server.storage import GameStore
    from engine.core.game import replay
    from engine.core.record import GameRecord
    from engine.systems import system_of

    owner = browser.new_context().new_page()
    links = _start(owner, app_url, "bc", None, seed="3")
    french = browser.new_context().new_page()
    frames = _listen(french)
    open_link(french, app_url, links["french"])
    do_first(french, "start the turn")
    expect(french.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    expect(french.locator("table.dice-log")).to_contain_text("coalition", timeout=30_000)
    gid = re.search(r"game=(\w+)", links["owner"]).group(1)
    saved = GameStore(app_server.db).load(gid)
    rules = system_of("bc")
    state = replay(rules, GameRecord(game="bc", scenario=saved.scenario, seed=saved.seed, options=saved.options,
                                     events=saved.events, engine_version=saved.engine_version))[-1]
    hands = dict(state.g.hands)
    theirs = [c for c in hands["coalition"] if c not in hands["french"]]
    assert theirs
    page_text = french.evaluate(_ALL_TEXT)
    received = "\n".join(frames)
    cards = [f"card {c}" for c in theirs]
    assert [f"card {c}" for c in hands["french"] if f"card {c}" in page_text]     # the French see their own
    assert not _found(page_text, cards), _found(page_text, cards)
    assert not _found(received, cards), _found(received, cards)
    for p in (owner, french):
        p.context.close()
