"""Browser tests of a server shared by a club (issue 12): no server file leaks, games belong to their
players, one session's heavy request does not stall another's page."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Page, expect

from n20_helpers import click_hex, wait_ready

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def _passwd_lines() -> list[str]:
    try:
        return [l for l in Path("/etc/passwd").read_text().splitlines() if len(l) > 8]
    except OSError:
        return ["root:x:0:0"]


def test_a_record_naming_etc_passwd_shows_no_line_of_it_and_changes_nothing(page: Page, app_url: str, tmp_path):
    rec = json.loads((REPO / "data/records/n20_fuentes_greedy_seed1.json").read_text())
    rec["options"]["tables"] = "/etc/passwd"
    bad = tmp_path / "crafted.json"
    bad.write_text(json.dumps(rec))
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".import-record input[type=file]").set_input_files(str(bad))
    refusal = page.locator(".refusal-box .refusal")
    expect(refusal).to_contain_text("not loaded (nothing changed)", timeout=30_000)
    expect(refusal).to_contain_text("options.tables")
    text = page.locator("body").inner_text()
    for line in _passwd_lines():
        assert line not in text
    assert "root:" not in text and "/bin/bash" not in text and "nologin" not in text
    expect(page.locator(".status-line")).to_contain_text("No game")        # nothing was opened or saved
    page.goto(app_url + "/")
    expect(page.locator("text=Saved games").first).to_be_visible(timeout=30_000)
    assert "imported fuentes" not in page.locator("body").inner_text()


def _start_bussaco(page: Page, app_url: str) -> str:
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".scenario-select select").select_option("bussaco")
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(".status-line")).to_contain_text("phase: movement", timeout=30_000)
    owner = page.locator(".game-links a.link-owner")
    expect(owner).to_be_visible(timeout=30_000)
    expect(page).to_have_url(re.compile(r"/play\?game=\w+&key=[\w-]+$"), timeout=30_000)  # a reload keeps it
    return owner.get_attribute("href")


def test_a_browser_without_the_key_cannot_act_and_does_not_see_the_game(browser: Browser, app_url: str):
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    owner_link = _start_bussaco(a, app_url)
    gid = owner_link.split("game=")[1].split("&")[0]
    click_hex(a, "bussaco", "1011")                      # the French cavalry FRCV: 1011 -> 0912 (as in the play test)
    expect(a.locator(".status-line .status")).to_have_attribute("data-picked", "1011", timeout=30_000)
    click_hex(a, "bussaco", "0912")
    expect(a.locator(".status-line .status")).to_have_attribute("data-events", "1", timeout=30_000)
    # A's own index lists the game (its cookie holds the owner's key)
    a.goto(app_url + "/")
    expect(a.locator(f"tr.saved-game[data-game-id='{gid}'] a.resume")).to_be_visible(timeout=30_000)

    # B holds no key: the index does not list the game ...
    b.goto(app_url + "/")
    expect(b.locator("text=Saved games").first).to_be_visible(timeout=30_000)
    assert b.locator(f"tr.saved-game[data-game-id='{gid}']").count() == 0
    # ... and its URL without the key, or with a wrong key, opens nothing
    for url in (f"/play?game={gid}", f"/play?game={gid}&key=AAAAAAAAAAAAAAAAAAAAAA"):
        b.goto(app_url + url)
        expect(b.locator(".refusal-box")).to_contain_text("no saved game opens with this link", timeout=30_000)
        expect(b.locator(".status-line")).to_contain_text("No game")

    # the owner makes it public: B may watch (read-only replay) but not act
    a.goto(app_url + owner_link)
    expect(a.locator(".status-line .status")).to_have_attribute("data-events", "1", timeout=30_000)
    a.locator(".public-toggle input").check()
    expect(a.locator(".message")).to_contain_text("now public", timeout=10_000)
    b.goto(app_url + "/")
    row = b.locator(f"tr.saved-game[data-game-id='{gid}']")
    expect(row.locator("a.watch")).to_be_visible(timeout=30_000)
    assert row.locator("a.resume").count() == 0
    b.goto(app_url + f"/play?game={gid}")
    expect(b.locator(".game-links")).to_contain_text("Watching", timeout=30_000)
    expect(b.locator(".play-controls")).to_be_hidden()
    expect(b.locator(".replay-controls")).to_be_visible()
    # the game is unchanged: still one event, for A too (a reload of A's address reopens it)
    a.reload()
    expect(a.locator(".status-line .status")).to_have_attribute("data-events", "1", timeout=30_000)
    a.context.close()
    b.context.close()


def _heavy_charge() -> str:
    """The page's example charge with as many defenders as the page allows (8 in the first target hex, 2 in
    the second): its heaviest request."""
    from dashboards.calculators.tbf.views import EXAMPLE_CHARGE, MAX_DEFENDERS, MAX_UNITS_PER_TARGET

    spec = yaml.safe_load(EXAMPLE_CHARGE)
    spec["targets"][0]["units"] = [{"name": f"bn {i}", "fv": 3, "mf": 4} for i in range(MAX_UNITS_PER_TARGET)]
    spec["targets"][1]["units"] = [{"name": f"sq {i}", "fv": 3, "mf": 4}
                                   for i in range(MAX_DEFENDERS - MAX_UNITS_PER_TARGET)]
    return yaml.safe_dump(spec, sort_keys=False)


def _type_charge(p: Page, text: str) -> None:
    """Type a charge into the Charge tab's advanced YAML box; leaving the box starts the computation."""
    p.locator(".tbf-charge-advanced .card-header").first.click()
    box = p.locator(".tbf-charge-text textarea").first
    box.fill(text)
    box.press("Tab")


# the two issue-12 figures (a page's load and odds update while another browser runs a heavy request) are
# measured in test_stall_load.py


def test_cancel_drops_the_request_and_frees_the_page(page: Page, app_url: str):
    page.goto(app_url + "/tbf")
    expect(page.locator(".tbf-check-result").first).to_be_visible(timeout=60_000)
    page.locator(".bk-tab").filter(has_text="Charge").first.click()
    expect(page.locator(".tbf-total").first).to_have_text("1/1", timeout=30_000)
    _type_charge(page, _heavy_charge())
    page.locator(".tbf-charge-results .busy-cancel button").first.click(timeout=10_000)
    expect(page.locator(".tbf-charge-out")).to_contain_text("cancelled", timeout=10_000)
    expect(page.locator(".tbf-charge-results .busy-cancel").first).to_be_hidden()


def test_too_many_defenders_are_refused_with_the_limit(page: Page, app_url: str):
    from dashboards.calculators.tbf.views import MAX_UNITS_PER_TARGET

    spec = yaml.safe_load(_heavy_charge())
    spec["targets"][0]["units"] *= 2
    page.goto(app_url + "/tbf")
    expect(page.locator(".tbf-check-result").first).to_be_visible(timeout=60_000)
    page.locator(".bk-tab").filter(has_text="Charge").first.click()
    _type_charge(page, yaml.safe_dump(spec))
    expect(page.locator(".tbf-error").first).to_contain_text(f"at most {MAX_UNITS_PER_TARGET} units per target hex",
                                                             timeout=10_000)
