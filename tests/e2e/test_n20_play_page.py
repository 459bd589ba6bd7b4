"""Browser tests of Napoleonic 20 on the one play page (issue 15): start a game, a legal move by two clicks
(timed: click to board update), a refusal with its rule, a battle resolved with typed dice, undo, reload,
replay to a bookmark, a server restart, two sessions kept apart; a balance page's replay link (issue 16.4).
Every wait is on the page's state (data attributes), never on time."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from n20_helpers import click_hex, wait_ready

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
STATUS = ".status-line .status"


def start_bussaco(page: Page, app_url: str) -> None:
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".scenario-select select").select_option("bussaco")
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(".status-line")).to_contain_text("phase: movement", timeout=30_000)
    expect(page.locator(f"{STATUS}[data-state='ready']")).to_have_attribute("data-events", "0")


#: in the browser: the time of the next mouse press, and of the first animation frame after it in which the
#: status line (inside Panel's shadow roots) says ``data-events`` = N (the map is patched in the same message)
_ARM = """() => { window.__vt = {};
  document.addEventListener('mousedown', () => { window.__vt.click = performance.now(); }, {once: true, capture: true}); }"""
_SEEN = """(n) => {
  const find = (root) => { const el = root.querySelector(`.status[data-events='${n}']`); if (el) return el;
    for (const h of root.querySelectorAll('*')) { if (h.shadowRoot) { const f = find(h.shadowRoot); if (f) return f; } }
    return null; };
  if (window.__vt && window.__vt.click !== undefined && find(document)) { window.__vt.seen = performance.now(); return true; }
  return false; }"""


def move_cavalry(page: Page) -> float:
    """The French cavalry FRCV starts in 1011; 0912 is one of its legal destinations. Returns the
    milliseconds from the mouse press on 0912 to the frame that shows the move made, measured in the browser."""
    click_hex(page, "bussaco", "1011")
    expect(page.locator(STATUS)).to_have_attribute("data-picked", "1011", timeout=30_000)
    expect(page.locator(".action-list select option", has_text="FRCV").first).to_be_attached()
    page.evaluate(_ARM)
    click_hex(page, "bussaco", "0912")
    page.wait_for_function(_SEEN, arg=1, polling="raf", timeout=30_000)
    took = page.evaluate("() => window.__vt.seen - window.__vt.click")
    expect(page.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=30_000)
    expect(page.locator(".message")).to_contain_text("move FRCV from 1011 to 0912")
    return took


def test_start_move_by_click_refusal_with_its_rule_undo_and_reload(page: Page, app_url: str):
    start_bussaco(page, app_url)
    took = move_cavalry(page)
    print(f"\n[issue 15 figure] n20 move, click to board update: {took:.0f} ms (goal <= 300 ms)")
    # FRCV again, then a neighbouring hex: it has moved this phase, so the rules refuse (6.4)
    click_hex(page, "bussaco", "0912")
    expect(page.locator(STATUS)).to_have_attribute("data-picked", "0912", timeout=30_000)
    click_hex(page, "bussaco", "0811")
    refusal = page.locator(".refusal-box [data-state='refused']")
    expect(refusal).to_contain_text("rule 6.4", timeout=30_000)
    expect(page.locator(STATUS)).to_have_attribute("data-events", "1")          # nothing changed
    # the address bar holds the game's link: a reload reopens the same game
    expect(page).to_have_url(re.compile(r"/play\?game=\w+&key=[\w-]+$"), timeout=30_000)
    page.reload()
    expect(page.locator(f"{STATUS}[data-events='1']")).to_be_attached(timeout=60_000)
    page.locator(".undo button").click()
    expect(page.locator(f"{STATUS}[data-events='0']")).to_be_attached(timeout=30_000)
    expect(page.locator(".message")).to_contain_text("Undone: move FRCV")


def _answer_everything_typed(page: Page, events_done: int) -> None:
    """Answer each waiting request in turn: the first choice offered, or die face 1 typed in."""
    done = page.locator(f"{STATUS}[data-events='{events_done}']")
    for i in range(40):
        now = page.locator(f".pending-request[data-answered='{i}'], {STATUS}[data-events='{events_done}']")
        expect(now.first).to_be_attached(timeout=30_000)
        if done.count():
            return
        kind = page.locator(".pending-request").get_attribute("data-kind")
        if kind == "choose":
            page.locator(".choice button").first.click()
        else:
            page.locator(".typed-die select").select_option(index=0)
            page.locator(".enter-die button").click()
    raise AssertionError("the battle did not end within 40 answers")


def test_a_battle_resolved_with_typed_dice_then_undo_then_replay_to_a_bookmark(page: Page, app_url: str, tmp_path):
    """The Bussaco record up to its first battle (declared, not yet resolved), imported; the battle is then
    resolved with dice typed in one at a time: 12.5 reserves, 9.0 F the CRT die, 9.8.2 retreat path."""
    rec = json.loads((REPO / "data/records/n20_bussaco_greedy_seed1.json").read_text())
    k = next(i for i, e in enumerate(rec["events"]) if e["action"]["kind"] == "resolve")
    rec["events"] = rec["events"][:k]
    path = tmp_path / "bussaco_first_battle.json"
    path.write_text(json.dumps(rec))
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".import-record input[type=file]").set_input_files(str(path))
    expect(page.locator(f"{STATUS}[data-events='{k}'][data-state='replay']")).to_be_attached(timeout=60_000)
    page.locator(".play-mode button").nth(0).click()                               # play
    expect(page.locator(f"{STATUS}[data-state='ready']")).to_be_attached(timeout=30_000)
    page.locator(".dice-mode button", has_text="I type").click()
    page.locator(".action-list select").select_option(label="fight declared battle no. 1 (9.0)")
    page.locator(".do-action button").click()
    expect(page.locator(".pending-request[data-rule='12.5']")).to_be_attached(timeout=30_000)
    _answer_everything_typed(page, k + 1)
    expect(page.locator("table.dice-log")).to_contain_text("9.0 F")
    # each rule in the log carries its reminder on hover (dashboards/common/rule_notes_n20.yaml)
    expect(page.locator("table.dice-log .rule-tag[data-rule='9.0 F']").first).to_have_attribute(
        "title", re.compile(r"^9\.0: \S"))
    expect(page.locator(".message")).to_contain_text("Done: fight declared battle no. 1")
    page.locator(".undo button").click()
    expect(page.locator(f"{STATUS}[data-events='{k}']")).to_be_attached(timeout=30_000)
    # replay: first, next twice, bookmark it; last; the bookmark brings action 2 back
    page.locator(".play-mode button").nth(1).click()                               # replay
    where = page.locator(".replay-at")
    expect(where).to_be_visible(timeout=30_000)
    page.locator("button", has_text="first").click()
    expect(where).to_have_attribute("data-position", "0", timeout=30_000)
    for n in (1, 2):
        page.locator("button", has_text="next").click()
        expect(where).to_have_attribute("data-position", str(n), timeout=30_000)
    name = page.locator(".replay-controls input[placeholder='a name']")
    name.fill("two in")
    name.press("Enter")                          # the name reaches the server before the button's click
    page.locator("button", has_text="add bookmark").click()
    expect(page.locator(".bookmarks select option", has_text="two in")).to_be_attached(timeout=30_000)
    page.locator("button", has_text="last").click()
    expect(where).to_have_text(f"action {k} of {k}", timeout=30_000)
    page.locator(".bookmarks select").select_option(label="two in (action 2)")
    expect(where).to_have_text(f"action 2 of {k}", timeout=30_000)
    # the first entry of "jump to" is a real jump too (issue 15.6)
    page.locator(".jump-to select").select_option(index=1)
    expect(where).to_have_attribute("data-position", "0", timeout=30_000)


def test_make_a_move_then_restart_the_server_and_resume(page: Page, app_url: str, restart_server):
    start_bussaco(page, app_url)
    move_cavalry(page)
    url = restart_server()                      # killed without a clean shutdown, then started again
    page.goto(url + "/")
    row = page.locator("tr.saved-game", has_text="Bussaco").first
    expect(row).to_be_visible(timeout=30_000)
    row.locator("a.resume").click()
    expect(page.locator(STATUS)).to_have_attribute("data-events", "1", timeout=30_000)
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
    expect(b.locator(f"{STATUS}[data-state='ready'][data-events='0']")).to_be_attached(timeout=30_000)
    expect(b.locator(".status-line")).to_contain_text("3 May")
    expect(a.locator(STATUS)).to_have_attribute("data-events", "1")
    expect(a.locator(".status-line")).to_contain_text("26 Sep")
    a.context.close()
    b.context.close()


def test_a_balance_page_replay_link_opens_the_game_at_its_last_action(page: Page, app_url: str):
    """The link the Scenario balance page writes for a study game: the bots' game is played again from its
    seed and shown read-only at its last action; a bad link says why in one line and opens nothing."""
    from dashboards.play.study_replay import ReplayLink, play_study_game
    from dashboards.calculators.study_view import replay_link
    from engine.core.simulate import Study

    study = Study("n20", "bussaco", (), ("greedy", "greedy"), games=1, seed=0)
    link = replay_link(study, {"seed": 12345})
    rec, _, _ = play_study_game(ReplayLink("n20", "bussaco", (), ("greedy", "greedy"), 12345))
    n = len(rec.events)
    page.goto(app_url + link)
    where = page.locator(".replay-at")
    expect(where).to_have_text(f"action {n} of {n}", timeout=120_000)
    expect(page.locator(".game-links")).to_contain_text("Watching")
    expect(page.locator(".play-controls")).to_be_hidden()
    expect(page.locator(STATUS)).to_have_attribute("data-state", "over")
    page.locator("button", has_text="previous").click()
    expect(where).to_have_text(f"action {n - 1} of {n}", timeout=30_000)
    page.goto(app_url + link.replace("bots=greedy%2Cgreedy", "bots=greedy%2Cnobody"))
    expect(page.locator(".refusal-box")).to_contain_text("parameter 'bots'", timeout=60_000)
    expect(page.locator(".status-line")).to_contain_text("No game")
