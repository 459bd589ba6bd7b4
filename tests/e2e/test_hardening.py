"""Hardening found by the security audit of issue 28, in the browser: the keys cookie is HttpOnly (page
scripts cannot read it) and still opens the browser's games; every page says it may be framed by this
server only; an upload too large is refused by the page before it is sent, with a message and the
connection kept; game keys stay out of the server's log."""
from __future__ import annotations

import re
import urllib.request

import pytest
from playwright.sync_api import Page, expect

from together_helpers import start_game

pytestmark = pytest.mark.e2e


def test_the_keys_cookie_is_httponly_and_still_lists_the_game(page: Page, app_url: str):
    with page.expect_response(lambda r: "/vedette-keys" in r.url, timeout=90_000) as answer:
        links = start_game(page, app_url, "lob", seed="11")   # the page posts its grant: the server sets the cookie
    assert answer.value.status == 204
    gid = re.search(r"game=(\w+)", links["owner"]).group(1)
    cookie = next((c for c in page.context.cookies() if c["name"] == "vedette_keys"), None)
    assert cookie is not None and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert "vedette_keys" not in page.evaluate("document.cookie")         # no page script reads the keys
    page.goto(app_url + "/")
    expect(page.locator(f"tr.saved-game[data-game-id='{gid}'] a.resume")).to_be_visible(timeout=30_000)


def test_a_forged_grant_sets_no_cookie(app_url: str):
    req = urllib.request.Request(app_url + "/vedette-keys", data=b"eyJrIjpbXX0.0000", method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 403 and "Set-Cookie" not in err.value.headers


def test_pages_may_be_framed_by_this_server_only(app_url: str):
    for route in ("/", "/play", "/lob"):
        with urllib.request.urlopen(app_url + route, timeout=60) as r:
            csp = r.headers.get("Content-Security-Policy", "")
            assert "frame-ancestors 'self'" in csp and "default-src 'self'" in csp
            assert r.headers.get("X-Frame-Options") == "SAMEORIGIN"


def test_an_upload_too_large_is_refused_before_it_is_sent(page: Page, app_url: str, tmp_path):
    big = tmp_path / "huge_tables.yaml"
    big.write_bytes(b"# padding\n" * 1_600_000)                    # 16 MB
    page.goto(app_url + "/lob")
    page.locator(".upload input[type=file]").first.set_input_files(str(big))
    err = page.locator(".upload-error").first
    expect(err).to_contain_text("too large", timeout=30_000)
    expect(err).to_contain_text("huge_tables.yaml")
    assert page.locator("#vedette-connection-lost").count() == 0        # the page keeps its connection


def test_game_keys_stay_out_of_the_servers_log(page: Page, app_server, app_url: str):
    links = start_game(page, app_url, "lob", seed="12")
    page.goto(app_url + links["owner"])
    expect(page.locator(".status-line [data-events]")).to_be_attached(timeout=60_000)
    key = re.search(r"key=([\w-]+)", links["owner"]).group(1)
    assert key not in app_server.log.read_text(errors="replace")
