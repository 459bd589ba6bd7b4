"""Benchmarks of the play page (issue 28, Speed): the server's time for a unit pick in the TBF opening,
a live change reaching a second page in the server, and in a browser: a commit on one side's page until
the other side's page shows it, and a greedy bot's move until it is on the page (pytest-benchmark, with
the in-page figures in ``extra_info``; no timed assertion)."""
from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from dashboards.play.view import GamePlayView
from dashboards.server.storage import GameStore

pytestmark = pytest.mark.benchmark


def _p95(values: list[float]) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(0.95 * (len(v) - 1))))]


def test_bench_tbf_opening_unit_pick(benchmark, tmp_path):
    """A click on a hex with a unit in the TBF opening, then on nothing: what the server does for a pick
    (the list narrowed through the actions' places, the board's highlights and facing, the status)."""
    v = GamePlayView(system="tbf", store=GameStore(tmp_path / "g.sqlite3"))
    v.__panel__()
    v._start({"seed": "1"})
    st = v.model.state
    hexes = sorted({p.hex for p in st.game.on_map()})
    legal_hexes = [h for h in hexes if any(v.board.concerns(st, h, e[3]) for e in v._legal_entries())]
    assert legal_hexes
    picks = iter(legal_hexes * 10_000)

    def pick():
        v._pick(next(picks))
    benchmark.pedantic(pick, setup=lambda: v._pick(None), rounds=60, iterations=1)
    assert v.picked and v._shown


def test_bench_a_commit_reaches_the_other_page_in_the_server(benchmark, tmp_path):
    """Side A's action until side B's page (another session in the same process) has drawn it: the
    server's share of commit -> other page updated (the store's write, the live game, B's parts)."""
    store = GameStore(tmp_path / "g.sqlite3")
    a = GamePlayView(system="lob", store=store)
    a.__panel__()
    a._start({"seed": "2"})
    keys = store.keys(a.model.game_id)
    b = GamePlayView(system="lob", store=store)
    b.__panel__()
    b.open(a.model.game_id, keys["owner"])

    def move():
        if not a.model.legal():
            a.model.undo()
        a.model.act(a.model.legal()[0])
        return len(b.model.events)
    assert benchmark(move) >= 0


# -- in a browser ------------------------------------------------------------------------------------------
_STAMP = "() => performance.timeOrigin + performance.now()"
_FIND = """(function f(root) {
      const h = root.querySelector(".status-line .status[data-events]"); if (h) return h;
      for (const e of root.querySelectorAll("*")) if (e.shadowRoot) { const x = f(e.shadowRoot); if (x) return x; }
      return null; })(document)"""
#: the page's clock at the first frame showing ``n`` events or more (an error past 60 s)
_WAIT_EVENTS = """(n) => new Promise((done, fail) => {
  const end = performance.now() + 60000;
  const look = () => { const s = """ + _FIND + """;
    if (s && +s.dataset.events >= n) done(performance.timeOrigin + performance.now());
    else if (performance.now() > end) fail(new Error("not shown within 60 s"));
    else requestAnimationFrame(look); };
  look(); })"""
#: [the page's clock, events, mine] at the first frame showing ``n`` events or more, or the player's move
_WAIT_BOT = """(n) => new Promise((done, fail) => {
  const end = performance.now() + 60000;
  const look = () => { const s = """ + _FIND + """;
    if (s && (+s.dataset.events >= n || s.dataset.mine === "yes"))
      done([performance.timeOrigin + performance.now(), +s.dataset.events, s.dataset.mine]);
    else if (performance.now() > end) fail(new Error("not shown within 60 s"));
    else requestAnimationFrame(look); };
  look(); })"""


@pytest.mark.e2e
def test_bench_commit_to_the_other_sides_page_in_a_browser(benchmark, browser, app_url):
    """LoB, seed 3, one browser context per side (each by its side's link): 20 times, the side whose move
    it is makes the first action of its list that is not an attack (an attack would wait for the other
    side's choices); the time from its press to the frame in which the other side's page shows it, both
    read from the pages' clocks (one browser: one clock)."""
    import sys
    sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
    from together_helpers import STATUS, events, open_link, start_game, status

    a, b = browser.new_context().new_page(), browser.new_context().new_page()
    links = start_game(a, app_url, "lob", seed="3")
    sides = [r for r in links if r != "owner"]
    open_link(a, app_url, links[sides[0]])
    open_link(b, app_url, links[sides[1]])
    lat: list[float] = []

    def move():
        actor, other = (a, b) if status(a, "mine") == "yes" else (b, a)
        n = events(actor)
        sel = actor.locator(".action-list select")
        option = sel.locator("option:not(.attack)").first
        option.wait_for(state="attached", timeout=60_000)
        sel.select_option(value=option.get_attribute("value"))
        t0 = actor.evaluate(_STAMP)
        actor.locator(".do-action button").click()
        t1 = other.evaluate(_WAIT_EVENTS, n + 1)
        lat.append(t1 - t0)
        actor.wait_for_selector(f"{STATUS}[data-events='{n + 1}']", state="attached")
    benchmark.pedantic(move, rounds=20, iterations=1)
    benchmark.extra_info.update(commit_to_other_page_ms_p50=statistics.median(lat), commit_to_other_page_ms_p95=_p95(lat))
    print(f"\ncommit -> other page shown: p50 {statistics.median(lat):.0f} ms, p95 {_p95(lat):.0f} ms, "
          f"max {max(lat):.0f} ms over {len(lat)} moves")
    a.context.close()
    b.context.close()


_REFUSAL = _FIND.replace(".status-line .status[data-events]", ".refusal-box")
#: [the page's clock, events, mine, rev] at the first frame whose change counter is not ``rev``, or that
#: shows another refusal than ``said`` (a press on a list that changed under it: the list is drawn anew),
#: 60 s at most
_WAIT_REV = """([rev, said]) => new Promise((done, fail) => {
  const end = performance.now() + 60000;
  const look = () => { const s = """ + _FIND + """, r = """ + _REFUSAL + """;
    const now = r ? r.textContent : "";
    if (s && (s.dataset.rev !== rev || (now && now !== said)))
      done([performance.timeOrigin + performance.now(), +s.dataset.events, s.dataset.mine, s.dataset.rev]);
    else if (performance.now() > end) fail(new Error("no change within 60 s"));
    else requestAnimationFrame(look); };
  look(); })"""


@pytest.mark.e2e
@pytest.mark.slow   # 25 bot moves watched in a browser: on a loaded 2-core machine a move may take past the
                    # page's 60 s look; the live bot game's behaviour is tested in tests/e2e/test_play_together.py
def test_bench_greedy_bot_move_on_the_page(benchmark, page, app_url):
    """Bussaco, the Allied side to the greedy bot: the French player ends each phase (or answers what it is
    asked); for each action the bot makes, the time from the frame showing the change before it (the
    player's action, or the bot's previous one) to the frame showing it: its thinking in a worker, the
    live game, the push and the page's drawing. Over 25 bot actions."""
    import sys
    sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from together_helpers import events, start_game, status

    start_game(page, app_url, "n20", scenario="bussaco", seed="5", seats={"allied": "greedy"})
    lat: list[float] = []

    def play():
        t0, n, rev = page.evaluate(_STAMP), events(page), status(page, "rev")
        said = lambda: page.locator(".refusal-box").text_content() or ""   # noqa: E731
        for _ in range(400):
            if len(lat) >= 25:
                break
            if status(page, "mine") == "yes":             # the player's move: answer, end the phase, or the
                choice = page.locator(".pending[data-state='yours'] .choice button")   # forced action (5.0)
                before = said()
                try:
                    if choice.count():
                        choice.first.click(timeout=5_000)
                    else:
                        ends = page.locator(".action-list option", has_text="end this phase")
                        option = ends.first if ends.count() else page.locator(".action-list option").first
                        page.locator(".action-list select").select_option(
                            value=option.get_attribute("value", timeout=5_000), timeout=5_000)
                        page.locator(".do-action button").click(timeout=5_000)
                except PlaywrightTimeout:        # the page moved on under the press (the next change was
                    t0, n, rev = page.evaluate(_STAMP), events(page), status(page, "rev")   # on its way): look again
                    continue
                t0, n, _, rev = page.evaluate(_WAIT_REV, [rev, before])
                continue
            t1, shown, _, rev = page.evaluate(_WAIT_REV, [rev, said()])
            if shown > n:                                  # a bot action is on the page
                lat.append(t1 - t0)
            t0, n = t1, shown
    benchmark.pedantic(play, rounds=1, iterations=1)
    assert lat
    benchmark.extra_info.update(bot_move_ms_p50=statistics.median(lat), bot_move_ms_p95=_p95(lat))
    print(f"\ngreedy bot move on the page: p50 {statistics.median(lat):.0f} ms, p95 {_p95(lat):.0f} ms, "
          f"max {max(lat):.0f} ms over {len(lat)} moves")
