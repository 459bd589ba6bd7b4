"""Playing together in the browser (issue 28): two browsers on one game, each side's page live without a
reload, in one server process and across processes; a person against a bot; watching two bots; the turn
in the tab's title and the notification a player may allow; a stale refusal cleared by the pushed view; a
browser that loses its server and comes back. Every wait is on the page's state (never on time)."""
from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from together_helpers import STATUS, SharedServer, do_first, events, open_link, start_game, status

pytestmark = pytest.mark.e2e

MARK = "window.__vedette_same_page = 'yes'"      # gone if the page were reloaded


def _pair(browser: Browser) -> tuple[Page, Page]:
    return browser.new_context().new_page(), browser.new_context().new_page()


def _other(sides: list[str], side: str) -> str:
    return next(s for s in sides if s.lower() != side.lower())


def _move_seen_on_the_other_side(a: Page, b: Page, base_a: str, base_b: str) -> None:
    links = start_game(a, base_a, "lob", seed="3")
    to_act = status(a, "to-act")
    other = _other([r for r in links if r != "owner"], to_act)
    open_link(b, base_b, links[other])
    expect(b.locator(".waiting")).to_contain_text(f"Waiting for the {to_act} player", timeout=30_000)
    assert f"{to_act} to move" in b.title()
    b.evaluate(MARK)
    do_first(a)
    expect(a.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    expect(b.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=30_000)     # pushed, no reload
    assert b.evaluate("window.__vedette_same_page") == "yes"


def test_a_move_on_one_side_is_on_the_other_sides_page_without_reload(browser: Browser, app_url: str):
    a, b = _pair(browser)
    _move_seen_on_the_other_side(a, b, app_url, app_url)
    a.context.close()
    b.context.close()


def test_two_server_processes_on_one_file_tell_each_other(browser: Browser, tmp_path):
    """Two ``vedette-serve`` processes on one saved-games file (as ``--num-procs 2`` gives, but each browser
    surely on another process): the store's change counter tells the second of the first's move."""
    one = SharedServer(tmp_path)
    two = SharedServer(tmp_path, db=one.db)
    one.start()
    two.start()
    try:
        a, b = _pair(browser)
        _move_seen_on_the_other_side(a, b, one.url, two.url)
        a.context.close()
        b.context.close()
    finally:
        one.stop()
        two.stop()


def test_num_procs_2_pushes_a_move_to_the_other_browser(browser: Browser, tmp_path):
    server = SharedServer(tmp_path, extra=("--num-procs", "2"))
    server.start()
    try:
        a, b = _pair(browser)
        _move_seen_on_the_other_side(a, b, server.url, server.url)
        a.context.close()
        b.context.close()
    finally:
        server.stop()


def test_a_stale_refusal_goes_when_the_game_moves_on(browser: Browser, app_url: str):
    """Two tabs of the owner: a refusal in one (nothing picked) is cleared by a move made in the other."""
    ctx = browser.new_context()
    a = ctx.new_page()
    links = start_game(a, app_url, "lob", seed="4")
    b = ctx.new_page()
    open_link(b, app_url, links["owner"])
    b.locator(".do-action button").click()
    expect(b.locator(".refusal-box [data-state='refused']")).to_contain_text("pick an action", timeout=30_000)
    do_first(a)
    expect(b.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=30_000)
    expect(b.locator(".refusal-box [data-state='none']")).to_be_attached(timeout=30_000)
    ctx.close()


def test_undo_in_a_live_game_takes_back_only_your_own_action(browser: Browser, app_url: str):
    """The one undo policy of live games, stated on the page: each side by its own link; the French side
    switches a battery (no dice, still its move); the Allied player's Undo is refused (a side takes back
    its own actions only); the French player's Undo takes it back, and the Allied page is told."""
    owner, a, b = browser.new_context().new_page(), browser.new_context().new_page(), browser.new_context().new_page()
    links = start_game(owner, app_url, "lob", seed="3")
    open_link(a, app_url, links["French"])
    open_link(b, app_url, links["Allied"])
    expect(a.locator(".undo-policy")).to_contain_text("your own last action")
    do_first(a)
    expect(b.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    b.locator(".undo button").click()
    expect(b.locator(".refusal-box [data-state='refused']")).to_contain_text("takes back its own actions only",
                                                                            timeout=30_000)
    assert events(a) == 1
    a.locator(".undo button").click()
    expect(a.locator(f"{STATUS}[data-events='0']")).to_be_attached(timeout=60_000)
    expect(b.locator(f"{STATUS}[data-events='0']")).to_be_attached(timeout=30_000)
    expect(b.locator(".refusal-box [data-state='none']")).to_be_attached(timeout=30_000)
    for p in (owner, a, b):
        p.context.close()


def test_a_person_against_a_greedy_bot_to_the_end_of_an_n20_turn(page: Page, app_url: str):
    """Bussaco, the Allied side to the greedy bot: the French player ends each of their phases (and
    answers what they are asked); the bot plays its phases on the server, each action shown as made,
    until turn 2 begins."""
    start_game(page, app_url, "n20", scenario="bussaco", seed="5", seats={"allied": "greedy"})
    expect(page.locator(".seats .seat[data-side='allied']")).to_have_attribute("data-bot", "greedy")
    for _ in range(200):
        if page.locator(".status-line", has_text="Turn 2").count():
            break
        rev = status(page, "rev")
        choice = page.locator(".pending .choice button")
        if page.locator(".pending[data-state='yours']").count() and choice.count():
            choice.first.click()
        elif status(page, "mine") == "yes":
            ends = page.locator(".action-list option", has_text="end this phase").count()
            do_first(page, "end this phase" if ends else None)    # else a forced action (5.0 event card)
        expect(page.locator(f"{STATUS}:not([data-rev='{rev}'])")).to_be_attached(timeout=60_000)
    expect(page.locator(".status-line")).to_contain_text("Turn 2", timeout=60_000)
    assert events(page) > 3
    assert "Your move" in page.title() or "to move" in page.title()


def test_watching_two_bots_pause_step_and_go_on(page: Page, app_url: str):
    start_game(page, app_url, "lob", seed="6", seats={"French": "random", "Allied": "random"})
    expect(page.locator(".watch[data-state='paused']")).to_be_attached(timeout=30_000)
    assert events(page) == 0
    page.locator(".watch-step button").click()
    expect(page.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    page.locator(".watch-go button").click()
    expect(page.locator(f"{STATUS}[data-events='4']")).to_be_attached(timeout=60_000)
    page.locator(".watch-pause button").click()
    expect(page.locator(".watch[data-state='paused']")).to_be_attached(timeout=30_000)
    n = events(page)
    page.locator(".watch-step button").click()
    expect(page.locator(f"{STATUS}[data-events='{n + 1}']")).to_be_attached(timeout=60_000)


NOTIFY_STUB = """
(() => {
  window.__shown = [];
  const perm = { value: "default" };
  function N(title, opts) { window.__shown.push(title); this.close = () => {}; }
  Object.defineProperty(N, "permission", { get: () => perm.value });
  N.requestPermission = (cb) => { perm.value = "%s"; if (cb) cb(perm.value); return Promise.resolve(perm.value); };
  window.Notification = N;
})();
"""


def test_your_move_notification_allowed_and_denied(browser: Browser, app_url: str):
    a, b = _pair(browser)
    b.context.add_init_script(NOTIFY_STUB % "granted")
    links = start_game(a, app_url, "lob", seed="7")
    to_act = status(a, "to-act")
    other = _other([r for r in links if r != "owner"], to_act)
    open_link(b, app_url, links[other])
    b.locator(".notify-me").click()
    expect(b.locator(".notify-box[data-permission='granted']")).to_be_attached(timeout=10_000)
    # the first side acts until the turn passes to B: then B's tab says so and B is notified
    for _ in range(60):
        if status(b, "mine") == "yes":
            break
        rev = status(a, "rev")
        do_first(a, "end") if a.locator(".action-list option", has_text="end").count() else do_first(a)
        expect(a.locator(f"{STATUS}:not([data-rev='{rev}'])")).to_be_attached(timeout=60_000)
    expect(b.locator(f"{STATUS}[data-mine='yes']")).to_be_attached(timeout=30_000)
    assert b.title().startswith("Your move — Albuera, turn ")
    b.wait_for_function("() => window.__shown.length > 0", timeout=10_000)
    assert b.evaluate("window.__shown[0]").startswith("Your move")
    c = browser.new_context()
    c.add_init_script(NOTIFY_STUB % "denied")
    cp = c.new_page()
    open_link(cp, app_url, links["owner"])
    cp.locator(".notify-me").click()
    expect(cp.locator(".notify-box[data-permission='denied']")).to_contain_text("blocked", timeout=10_000)
    for ctx in (a.context, b.context, c):
        ctx.close()


def test_a_browser_that_loses_its_server_catches_up_and_nothing_is_doubled(browser: Browser, tmp_path):
    server = SharedServer(tmp_path)
    server.start()
    try:
        a, b = _pair(browser)
        links = start_game(a, server.url, "lob", seed="8")
        open_link(b, server.url, links["owner"])
        do_first(a)
        expect(b.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=30_000)
        server.stop(hard=True)
        expect(b.locator("#vedette-connection-lost")).to_be_visible(timeout=30_000)
        server.start()
        b.locator("#vedette-connection-lost a").click()
        expect(b.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=90_000)
        do_first(b)
        expect(b.locator(f"{STATUS}[data-events='2']")).to_be_attached(timeout=60_000)
        b.locator(".do-action button").click()          # the same press again: nothing is made twice
        expect(b.locator(".refusal-box [data-state='refused']")).to_be_attached(timeout=30_000)
        assert events(b) == 2
        a.context.close()
        b.context.close()
    finally:
        server.stop()
