"""Helpers for the browser tests of playing together (issue 28): start a game with its seats, read the
page's state, make the first listed action, run more servers on one saved-games file."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, expect

from n20_helpers import wait_ready

REPO = Path(__file__).resolve().parents[2]

STATUS = ".status-line .status"


def start_game(page: Page, base: str, system: str, scenario: str | None = None, seed: str = "3",
               seats: dict | None = None) -> dict[str, str]:
    """Start a game on ``page`` from the play page's form; returns ``{role: link path}`` of its links."""
    page.goto(f"{base}/play?system={system}")
    expect(page.locator(".status-line [data-state='no-game']")).to_be_attached(timeout=90_000)
    wait_ready(page)
    if scenario:
        page.locator(".scenario-select select").select_option(scenario)
    page.locator(".seed-input input").fill(seed)
    for side, bot in (seats or {}).items():
        page.locator(f".seat-choice select[data-side='{side}']").select_option(bot)
    page.locator(".start-game button").click()
    expect(page.locator(f"{STATUS}[data-events]")).to_be_attached(timeout=90_000)
    owner = page.locator(".game-links a.link-owner")
    expect(owner).to_be_attached(timeout=60_000)
    links = {}
    for a in page.locator(".game-links a").all():
        role = re.sub(r"^link-", "", a.get_attribute("class") or "")
        links[role] = re.sub(r"^https?://[^/]+", "", a.get_attribute("href") or "")
    return links


def status(page: Page, name: str) -> str:
    return page.locator(STATUS).get_attribute(f"data-{name}") or ""


def events(page: Page) -> int:
    return int(status(page, "events") or -1)


def do_first(page: Page, text: str | None = None) -> None:
    """Select the first listed action (or the first whose label has ``text``) and press Do it."""
    sel = page.locator(".action-list select")
    option = sel.locator("option", has_text=text).first if text else sel.locator("option").first
    expect(option).to_be_attached(timeout=60_000)
    sel.select_option(value=option.get_attribute("value"))
    page.locator(".do-action button").click()


def open_link(page: Page, base: str, link: str) -> None:
    page.goto(base + link)
    expect(page.locator(f"{STATUS}[data-events]")).to_be_attached(timeout=90_000)
    wait_ready(page)


class SharedServer:
    """A ``vedette-serve`` of its own (a second server on one saved-games file, or one with more worker
    processes): started by :meth:`start`, stopped with its process group by :meth:`stop`."""

    def __init__(self, workdir, db=None, extra: tuple = (), env: dict | None = None):
        self.port = _free_port()
        self.db = db if db is not None else workdir / "games.sqlite3"
        self.log = workdir / f"server-{self.port}.log"
        self.url = f"http://127.0.0.1:{self.port}"
        self.extra, self.env = list(extra), dict(env or {})
        self.proc = None

    def start(self) -> str:
        exe = shutil.which("vedette-serve")
        base = [exe] if exe else [sys.executable, "-m", "dashboards.server.serve"]
        cmd = base + ["--port", str(self.port), "--address", "127.0.0.1",
                      "--allow-websocket-origin", f"127.0.0.1:{self.port}", "--db", str(self.db), *self.extra]
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self.env)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the app exited:\n{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=5) as r:
                    if r.status == 200:
                        return self.url
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"the app did not answer:\n{self.log.read_text()[-3000:]}")

    def stop(self, hard: bool = False) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL if hard else signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=20)
        self.proc = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
