"""The play page's layout for every system (issue 25 point 2), in play and in replay:

* the board is never covered: at 1024, 1280, 1400 and 1920 px wide (and on a 390 px phone) the element at
  each of the board's four corners (inset 4 px) and at its centre is the board or something inside it
  (``document.elementFromPoint``, through Panel's shadow roots), with the page scrolled so that point is
  on the screen;
* the new-game form folds away once a game starts (its title only, at most 64 px high, where it was 190 to
  260 px) and opens again from its title, and folds again;
* no text on the page is drawn as an empty box: every character outside plain ASCII is drawn in a canvas
  with the font its element uses and compared, pixel for pixel, with a code point that no font has (the
  browser's "missing glyph" box); replay's buttons are words and each replay step carries a caption (which
  action, whose, which turn);
* on a 390 px phone (a mobile browser: the page's viewport meta tag is obeyed) the page is as wide as the
  phone (not a desktop page shrunk to 40 %) and does not scroll sideways, the board is the phone's full
  width (no wider), the actions come below it, and every button, list and field to tap is at least 40 px
  high (Bokeh's own toolbar aside).

Every wait is on page state (the status line's ``data-*``, the board drawn, the layout's boxes still over
a few animation frames), never on time.
"""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from n20_helpers import wait_ready
from test_layouts import settle

pytestmark = pytest.mark.e2e

SYSTEMS = ["n20", "lob", "tbf", "bc"]
DESKTOP = [1024, 1280, 1400, 1920]
HEIGHT = 900
STATUS = ".status-line .status"

# Where the board is on the page (the first element with the class ``play-board``, through shadow roots), and
# what the browser finds at its corners (inset 4 px) and centre, each point scrolled onto the screen first.
COVERED = r"""
() => {
  const deep = (root, sel) => {
    const f = root.querySelector(sel);
    if (f) return f;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const g = deep(el.shadowRoot, sel); if (g) return g; }
    return null;
  };
  const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentNode;
  const name = (el) => {
    const out = [];
    for (let n = el; n && n.nodeType === 1 && out.length < 4; n = up(n)) {
      const c = typeof n.className === 'string' && n.className.trim() ? '.' + n.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
      out.push(n.tagName.toLowerCase() + c);
    }
    return out.join(' < ');
  };
  const board = deep(document, '.play-board');
  if (!board) return {found: false};
  const hit = (x, y) => {
    let el = document.elementFromPoint(x, y);
    while (el && el.shadowRoot) {
      const inner = el.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  };
  const inside = (el) => { for (let n = el; n; n = up(n)) if (n === board) return true; return false; };
  const r0 = board.getBoundingClientRect();
  const docX = r0.left + window.scrollX, docY = r0.top + window.scrollY, w = r0.width, h = r0.height;
  const points = [["top left", 4, 4], ["top right", w - 4, 4], ["bottom left", 4, h - 4],
                  ["bottom right", w - 4, h - 4], ["centre", w / 2, h / 2]];
  const bad = [];
  for (const [where, dx, dy] of points) {
    window.scrollTo(Math.max(0, docX + dx - window.innerWidth / 2), Math.max(0, docY + dy - window.innerHeight / 2));
    const x = docX + dx - window.scrollX, y = docY + dy - window.scrollY;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) {
      bad.push(`${where} (${Math.round(docX + dx)}, ${Math.round(docY + dy)}) cannot be scrolled onto the screen`);
      continue;
    }
    const el = hit(x, y);
    if (!el || !inside(el)) bad.push(`${where} (${Math.round(docX + dx)}, ${Math.round(docY + dy)}): ${el ? name(el) : 'nothing'}`);
  }
  window.scrollTo(0, 0);
  const r = board.getBoundingClientRect();
  return {found: true, bad, left: r.left, top: r.top + window.scrollY, width: r.width, height: r.height,
          page: document.documentElement.clientWidth, inner: window.innerWidth};
}
"""

# Every visible character outside plain ASCII that the browser draws as the "missing glyph" box: each is drawn
# in a canvas with its element's font and compared with U+0378 (a code point no font has).
EMPTY_BOXES = r"""
() => {
  const texts = [];
  const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentNode;
  const shown = (el) => {
    for (let n = el; n && n.nodeType === 1; n = up(n)) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    }
    return true;
  };
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let t = it.nextNode(); t; t = it.nextNode()) {
      const el = t.parentElement;
      if (!el || /[^\x00-\x7f]/.test(t.data) === false) continue;
      if (['STYLE', 'SCRIPT', 'TITLE'].includes(el.tagName)) continue;
      if (shown(el)) texts.push([t.data, el]);
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  for (const el of (function all(root, out) {
    for (const e of root.querySelectorAll('button, input[type=button], input[type=submit]')) out.push(e);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) all(e.shadowRoot, out);
    return out; })(document, [])) {
    if (el.value && /[^\x00-\x7f]/.test(el.value) && shown(el)) texts.push([el.value, el]);
  }
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (font, ch) => {
    ctx.clearRect(0, 0, 64, 64); ctx.font = font; ctx.fillStyle = '#000'; ctx.textBaseline = 'middle';
    ctx.fillText(ch, 8, 32);
    return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(',');
  };
  const missing = {}, seen = new Set();
  for (const [text, el] of texts) {
    const cs = getComputedStyle(el);
    const font = `32px ${cs.fontFamily}`;
    const box = draw(font, '\u0378');
    for (const ch of text) {
      if (ch.codePointAt(0) < 0x80 || /\s/.test(ch)) continue;
      const key = font + ch;
      if (seen.has(key)) continue;
      seen.add(key);
      if (draw(font, ch) === box) missing[ch] = `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} in "${text.trim().slice(0, 40)}"`;
    }
  }
  return Object.values(missing);
}
"""

# Whether the new-game form is open, and where the board starts under the status line.
FORM = r"""
() => {
  const deep = (root, sel) => {
    const f = root.querySelector(sel);
    if (f) return f;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const g = deep(el.shadowRoot, sel); if (g) return g; }
    return null;
  };
  const form = deep(document, 'details.new-game'), status = deep(document, '.status-line');
  const start = deep(document, '.start-game button'), board = deep(document, '.play-board');
  const r = (el) => el ? el.getBoundingClientRect() : null;
  return {open: !!(form && form.open), formHeight: form ? r(form).height : 0,
          startShown: !!(start && start.checkVisibility()),
          boardTop: board ? r(board).top + window.scrollY : null,
          statusBottom: status ? r(status).bottom + window.scrollY : null};
}
"""

# The things a thumb taps (buttons, lists, fields, the form's title) that are shown and too small, at a phone's width.
SMALL_TARGETS = r"""
(least) => {
  const out = [];
  const up = (n) => n.parentNode instanceof ShadowRoot ? n.parentNode.host : n.parentNode;
  const shown = (el) => {
    for (let n = el; n && n.nodeType === 1; n = up(n)) {
      const cs = getComputedStyle(n);
      if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const inToolbar = (el) => { for (let n = el; n; n = up(n)) if (n.classList && n.classList.contains('bk-Toolbar')) return true; return false; };
  const walk = (root) => {
    for (const el of root.querySelectorAll('button, select, input, summary')) {
      if (el.type === 'hidden' || el.type === 'file' || el.type === 'checkbox' || el.type === 'radio') continue;
      if (!shown(el) || inToolbar(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.height < least) out.push(`${el.tagName.toLowerCase()} "${(el.innerText || el.value || el.placeholder || '').trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)} px`);
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}
"""


def _first_action(page: Page) -> None:
    """Make the first listed action, answering each question with its first button."""
    options = page.locator(".action-list select option")
    expect(options.first).to_be_attached(timeout=60_000)
    page.locator(".action-list select").select_option(index=0)
    page.locator(".do-action button").click()
    done = page.locator(f"{STATUS}[data-events='1']")
    for _ in range(20):
        choice = page.locator(".pending .choice button").first
        expect(done.or_(choice)).to_be_attached(timeout=60_000)
        if done.count():
            break
        answered = page.locator(".pending-request").get_attribute("data-answered")
        choice.click()
        expect(done.or_(page.locator(f".pending-request:not([data-answered='{answered}'])"))).to_be_attached(
            timeout=60_000)
    expect(done).to_be_attached(timeout=60_000)


def _start(page: Page, url: str, system: str) -> None:
    page.goto(f"{url}/play?system={system}")
    start = page.locator(".start-game button")
    expect(start).to_be_visible(timeout=90_000)
    wait_ready(page)
    seed = page.locator(".seed-input input")
    seed.fill("1")
    start.click()
    expect(page.locator(f"{STATUS}[data-state='ready'][data-events='0']")).to_be_attached(timeout=90_000)
    expect(page.locator(".play-board").first).to_be_attached(timeout=60_000)


def _board_free(page: Page, where: str) -> list[str]:
    settle(page)
    found = page.evaluate(COVERED)
    if not found["found"]:
        return [f"{where}: no board on the page"]
    return [f"{where}: the board ({found['width']:.0f}x{found['height']:.0f} px at x {found['left']:.0f}) is covered "
            f"at its {b}" for b in found["bad"]]


def _glyphs(page: Page, where: str) -> list[str]:
    return [f"{where}: drawn as an empty box: {m}" for m in page.evaluate(EMPTY_BOXES)]


def _replay(page: Page) -> None:
    page.locator(".play-mode button", has_text="replay").click()
    expect(page.locator(".replay-controls")).to_be_visible(timeout=30_000)


def _fold_works(page: Page) -> list[str]:
    """The form is folded once the game is on, the board close under the status line; its title opens it
    and folds it again."""
    out = []
    settle(page)
    f = page.evaluate(FORM)
    if f["open"] or f["startShown"]:
        return [f"the new-game form stays open after the start ({f['formHeight']:.0f} px high; the board starts "
                f"{f['boardTop'] - f['statusBottom']:.0f} px below the status line)"]
    if f["formHeight"] > 64:
        out.append(f"the folded form is {f['formHeight']:.0f} px high (its title only: at most 64 px)")
    if f["boardTop"] is None:
        out.append("no board on the page")
    title = page.locator("summary.new-game-title")
    title.click()
    expect(page.locator(".start-game button")).to_be_visible(timeout=10_000)
    if not page.evaluate(FORM)["open"]:
        out.append("the form's title does not open it again")
    title.click()
    expect(page.locator(".start-game button")).to_be_hidden(timeout=10_000)
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_board_never_covered_form_folds_no_empty_glyphs(page: Page, app_url: str, system: str):
    """At 1024, 1280, 1400 and 1920 px, in play and in replay: the board uncovered, the form folded (and it
    opens again), no character drawn as an empty box, replay's step captioned."""
    page.set_viewport_size({"width": DESKTOP[0], "height": HEIGHT})
    _start(page, app_url, system)
    problems = _fold_works(page)
    _first_action(page)
    for width in DESKTOP:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        problems += _board_free(page, f"{system} play at {width} px")
    problems += _glyphs(page, f"{system} play")
    _replay(page)
    expect(page.locator(".replay-at[data-position='1']")).to_be_attached(timeout=30_000)
    for width in DESKTOP:
        page.set_viewport_size({"width": width, "height": HEIGHT})
        problems += _board_free(page, f"{system} replay at {width} px")
    problems += _glyphs(page, f"{system} replay")
    # the step shown (action 1) says which action, whose and the turn
    caption = page.locator(".replay-caption")
    text = caption.inner_text() if caption.count() else ""
    if not re.search(r"action 1 of 1", text) or "turn" not in text.lower() or len(text) < 30:
        problems.append(f"{system} replay: the step's caption says {text!r}")
    assert not problems, "\n".join(problems)
    page.locator(".replay-controls button", has_text="first").click()
    expect(page.locator(".replay-at[data-position='0']")).to_be_attached(timeout=30_000)
    expect(caption).to_contain_text("start", timeout=30_000)
    assert not problems, "\n".join(problems)


@pytest.fixture
def phone(browser: Browser):
    """A 390 px phone: a mobile browser with touch, which obeys the page's viewport meta tag."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    yield page
    ctx.close()


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_390_px_phone_plays_with_one_thumb(phone: Page, app_url: str, system: str):
    page = phone
    _start(page, app_url, system)
    problems = _fold_works(page)
    settle(page)
    found = page.evaluate(COVERED)
    assert found["found"], "no board on the page"
    if found["page"] > 400:
        problems.append(f"the page is laid out {found['page']} px wide on a 390 px phone (no viewport meta tag?)")
    if not 390 - 2 * 16 - 2 <= found["width"] <= 390:
        problems.append(f"the board is {found['width']:.0f} px wide, not the phone's width")
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    if wide > 391:
        problems.append(f"the page scrolls sideways ({wide} px wide on a 390 px phone)")
    problems += [f"the board is covered at its {b}" for b in found["bad"]]
    below = page.evaluate("""(b) => {
      const deep = (root, sel) => { const f = root.querySelector(sel); if (f) return f;
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const g = deep(el.shadowRoot, sel); if (g) return g; }
        return null; };
      const a = deep(document, '.action-list'); return a ? a.getBoundingClientRect().top + window.scrollY : null; }""",
                          found)
    if below is None or below < found["top"] + found["height"] - 1:
        problems.append(f"the actions (top {below}) are not below the board (bottom {found['top'] + found['height']:.0f})")
    problems += [f"too small to tap: {s}" for s in page.evaluate(SMALL_TARGETS, 40)]
    problems += _glyphs(page, f"{system} on a phone")
    assert not problems, "\n".join(problems)


def test_a_game_started_with_your_printed_charts_shows_them_and_a_bad_file_starts_nothing(page: Page, app_url: str,
                                                                                          tmp_path):
    """Issue 25.4: a tables file made on the Charts page goes with the new-game form; the charts line says
    "your printed values" with the file's name, and each chart's badge is marked as from your file. A file
    that is not a tables file is refused in one line naming it, and no game starts."""
    from pathlib import Path
    repo = Path(__file__).resolve().parents[2]
    mine = tmp_path / "my_albuera_charts.yaml"
    mine.write_text((repo / "data" / "lob" / "tables.yaml").read_text())
    bad = tmp_path / "not_charts.yaml"
    bad.write_text("combat: 7\n")
    page.set_viewport_size({"width": 1280, "height": HEIGHT})
    page.goto(f"{app_url}/play?system=lob")
    expect(page.locator(".start-game button")).to_be_visible(timeout=90_000)
    wait_ready(page)
    files = page.locator(".tables-file input[type=file]")
    files.set_input_files(str(bad))
    expect(page.locator(".tables-note[data-file='not_charts.yaml']")).to_be_attached(timeout=30_000)
    page.locator(".start-game button").click()
    refusal = page.locator(".refusal-box [data-state='refused']")
    expect(refusal).to_contain_text("not_charts.yaml", timeout=60_000)
    assert str(tmp_path) not in refusal.inner_text()                      # the name only, never a folder
    expect(page.locator(f"{STATUS}[data-state='no-game']")).to_be_attached()
    files.set_input_files(str(mine))
    expect(page.locator(".tables-note[data-file='my_albuera_charts.yaml']")).to_be_attached(timeout=30_000)
    page.locator(".start-game button").click()
    expect(page.locator(f"{STATUS}[data-state='ready'][data-events='0']")).to_be_attached(timeout=90_000)
    line = page.locator(".charts-badge[data-values='your printed values']")
    expect(line).to_contain_text("your printed values · my_albuera_charts.yaml (sha256:", timeout=60_000)
    expect(line.locator(".prov-from-file").first).to_be_attached()


# Each Battle Commander label drawn on the zone map, measured by the browser: a Block's text against its
# Block's box, every text and Block against its Zone's box (through Panel's shadow roots).
LABELS_INSIDE = r"""
() => {
  const all = (root, sel, out) => { for (const e of root.querySelectorAll(sel)) out.push(e);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) all(e.shadowRoot, sel, out); return out; };
  const bad = [];
  const inside = (a, b, slack) => a.x >= b.x - slack && a.y >= b.y - slack && a.x + a.width <= b.x + b.width + slack
                                 && a.y + a.height <= b.y + b.height + slack;
  const zones = all(document, 'svg.bc-map g.bc-zone', []);
  for (const z of zones) {
    const box = z.querySelector(':scope > rect').getBBox();
    for (const t of z.querySelectorAll('text')) {
      const r = t.getBBox();
      if (!inside(r, box, 0.5)) bad.push(`"${t.textContent}" runs out of Zone ${z.dataset.zone}`);
    }
    for (const b of z.querySelectorAll('g.bc-block')) {
      const rect = b.querySelector('rect').getBBox(), text = b.querySelector('text');
      if (!inside(rect, box, 0.5)) bad.push(`Block ${b.dataset.block} runs out of Zone ${z.dataset.zone}`);
      if (text.getComputedTextLength() > rect.width - 4 + 0.5)
        bad.push(`"${text.textContent}" (${text.getComputedTextLength().toFixed(0)} px) is wider than its Block (${rect.width} px)`);
    }
  }
  return {zones: zones.length, bad};
}
"""


def test_every_battle_commander_label_fits_its_block_and_zone(page: Page, app_url: str):
    """Issue 25: no Block label on the zone map is cut off (before: "C1 long infantry s2 steady (lead)" drawn
    at 10 px ran past its 138 px Block); every Block and text lies inside its Zone."""
    page.set_viewport_size({"width": 1280, "height": HEIGHT})
    _start(page, app_url, "bc")
    expect(page.locator("svg.bc-map g.bc-block").first).to_be_attached(timeout=60_000)
    found = page.evaluate(LABELS_INSIDE)
    assert found["zones"] >= 9
    assert not found["bad"], "\n".join(found["bad"])
