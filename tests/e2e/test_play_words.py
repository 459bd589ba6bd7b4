"""Every word on the play page is a player's word (issue 25 points 1, 3 and 5; tests (a) and (c)).

(a) For each system, the new-game form names every optional rule in words (not "fog_of_war", not "11.1"); a
stored bot game is imported up to its first fight after a few actions, the fight is selected (its odds
show), made, and its questions answered; the page's visible text (and the texts the canvas maps draw) is
read at each question and then at 390, 1024, 1280 and 1920 px wide, and no line may show JSON braces, a
Python repr or an identifier with an underscore (the game's links, which carry their keys, are left out:
an address is not a word).
(c) Napoleonic 20: a battle resolved with typed dice names its CRT result with its rule in the result panel
("DR, the defender is routed (9.6.5)"), and an event card typed in is offered and logged by its title from
our data (data/n20/bussaco/events.yaml), not by its code.
Point 3: a long list is grouped by unit and narrowed by what is typed in its filter. Point 5: a click on a
hex the picked unit cannot reach says the rule that refuses it.

Every wait is on the page's state (data attributes, texts), never on time.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Page, expect

from n20_helpers import click_hex, wait_ready

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
STATUS = ".status-line .status"
WIDTHS = (390, 1024, 1280, 1920)
RECORDS = {"n20": "n20_bussaco_greedy_seed1.json", "tbf": "tbf_durenstein_greedy_seed4.json",
           "lob": "lob_albuera_greedy_seed4.json", "bc": "bc_demo_greedy_seed1.json"}

#: the visible text of the page, through Panel's shadow roots: each text node whose element has a size on
#: the page and is not hidden; the game's links (addresses with their keys) are left out
VISIBLE_TEXT = """() => { const out = [];
  const walk = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let n; while ((n = w.nextNode())) {
      const p = n.parentElement; if (!p || ['SCRIPT', 'STYLE', 'TEMPLATE'].includes(p.tagName)) continue;
      if (p.closest('a[href*="key="]')) continue;
      const r = p.getBoundingClientRect(), cs = getComputedStyle(p);
      if (!r.width || !r.height || cs.visibility === 'hidden' || cs.display === 'none') continue;
      const t = n.textContent.trim(); if (t) out.push(t); }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document); return out; }"""

#: what a player's words never contain: JSON or a dict's braces, a list of lists or strings, a Python repr
#: ("{'", "<... object at", "Action("), an identifier with an underscore ("units_map", "muskets_shot")
NOT_WORDS = re.compile(r"[{}]|\[\[|\[['\"]|<[\w.]+ object at|\b[A-Z]\w*\(\w+=|\bAction\(|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")


#: the texts the maps drawn on a canvas (Bokeh: TBF, LoB) show: each text glyph's column of its source
DRAWN_TEXT = """() => { const out = [];
  for (const d of (window.Bokeh && window.Bokeh.documents) || []) for (const m of d.all_models) {
    const g = m.glyph; if (!g || !g.properties || !g.properties.text || !m.data_source) continue;
    const spec = g.properties.text.get_value(), f = spec && spec.field;
    for (const t of (f && m.data_source.data[f]) || []) if (String(t).trim()) out.push(String(t)); }
  return out; }"""


def _not_words(page: Page) -> list[str]:
    texts = page.evaluate(VISIBLE_TEXT) + page.evaluate(DRAWN_TEXT)
    return [t[:160] for t in texts if NOT_WORDS.search(t)]


#: the systems whose attack's probability tree ("show the tree" under the odds) is read too (issue 25 point 1)
TREE_SYSTEMS = ("n20", "lob", "tbf", "bc")
#: every text under one element, its folded (closed ``<details>``) parts too
ALL_TEXT = """(el) => { const out = []; const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  let n; while ((n = w.nextNode())) { const t = n.textContent.trim(); if (t) out.push(t); } return out; }"""

#: a value's fields dumped instead of said (engine/core/quick_odds.py cuts a long one with "…"; the field
#: names of a retreat's or a combat's result): tests/core/test_tree_words.py's check
DUMP = re.compile(r"\b(uid|digest|beyond ma|end hex|advance path|pieces id)\b|…$")


def _tree_words(page: Page) -> list[str]:
    """The probability tree under the odds shown ("show the tree"): every text of it, its folded branches
    and sub-procedures too, that is not a player's word or is a dump of a result's fields."""
    page.locator(".odds-tree-open button").click()
    tree = page.locator(".odds-tree[data-state='ready'], .odds-tree[data-state='error']").first
    expect(tree).to_be_attached(timeout=120_000)
    texts = tree.evaluate(ALL_TEXT)
    assert texts, "the tree shows nothing"
    return [f"the tree: {t[:160]}" for t in texts if NOT_WORDS.search(t) or DUMP.search(t)]


def _options_named(page: Page) -> list[str]:
    """The new-game form's optional rules that are not named in words (an id, a bare rule number)."""
    labels = page.locator(".variants label.variant").all_inner_texts()
    return [t for t in labels if NOT_WORDS.search(t) or not re.search(r"[A-Za-z]{3}", t)]


def _frames(page: Page) -> None:
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))")


def _first_fight(system: str) -> tuple[dict, int, str]:
    """A stored bot game up to (not including) its first fight after ten actions; that fight's words."""
    from engine.systems import system_of
    rules = system_of(system)
    rec = json.loads((REPO / "data/records" / RECORDS[system]).read_text())
    for k, ev in enumerate(rec["events"]):
        if k < 10:
            continue
        action = rules.action_from_json(ev["action"])
        if rules.is_attack(action):
            rec["events"] = rec["events"][:k]
            return rec, k, rules.describe_action(action)
    raise AssertionError(f"no fight in the {system} record")


def _import(page: Page, app_url: str, system: str, rec: dict, tmp_path: Path, width: int = 1280) -> int:
    """Import ``rec`` on the play page and switch to play at its last position; returns its action count."""
    f = tmp_path / f"{system}.json"
    f.write_text(json.dumps(rec))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_url}/play?system={system}")
    expect(page.locator(".status-line [data-state='no-game']")).to_be_attached(timeout=90_000)
    wait_ready(page)
    unnamed = _options_named(page)
    assert not unnamed, f"optional rules not named in words: {unnamed}"
    page.locator(".import-record input[type=file]").set_input_files(str(f))
    n = len(rec["events"])
    expect(page.locator(f"{STATUS}[data-events='{n}']")).to_be_attached(timeout=90_000)
    expect(page.locator(".play-mode button.bk-active", has_text="replay")).to_be_attached(timeout=60_000)
    page.locator(".play-mode button", has_text=re.compile(r"^play$")).click()
    expect(page.locator(f"{STATUS}[data-state='ready'][data-events='{n}']")).to_be_attached(timeout=60_000)
    return n


def _select(page: Page, label: str) -> None:
    sel = page.locator(".action-list select")
    option = sel.locator("option").filter(has_text=re.compile("^" + re.escape(label) + "$")).first
    expect(option).to_be_attached(timeout=60_000)
    sel.select_option(value=option.get_attribute("value"))


def _answer_until(page: Page, events: int, bad: list[str]) -> None:
    """Answer each question of the action under way with its first choice (or a typed die's first face),
    reading the page's words at each question, until the action is saved."""
    done = page.locator(f"{STATUS}[data-events='{events}']")
    asked = page.locator(".pending-request")
    for _ in range(60):
        expect(done.or_(asked).first).to_be_attached(timeout=60_000)
        if done.count():
            return
        answered = asked.get_attribute("data-answered")
        _frames(page)
        bad += _not_words(page)
        if asked.get_attribute("data-kind") == "choose":
            page.locator(".pending .choice button").first.click()
        else:
            page.locator(".typed-die select").select_option(index=0)
            page.locator(".enter-die button").click()
        # the next question (more answers than this one had), or the action saved
        expect(done.or_(page.locator(f".pending-request:not([data-answered='{answered}'])")).first
               ).to_be_attached(timeout=60_000)
    raise AssertionError("the action did not end within 60 answers")


@pytest.mark.parametrize("system", ["n20", "tbf", "lob", "bc"])
def test_every_visible_word_is_a_players_word_after_a_fight(page: Page, app_url: str, system: str, tmp_path):
    rec, k, said = _first_fight(system)
    _import(page, app_url, system, rec, tmp_path)
    bad: list[str] = []
    _select(page, said)
    # the odds of the fight selected, before it is made (an error says why there are none: hidden hands)
    expect(page.locator(".action-odds[data-state='ready'], .action-odds[data-state='error']").first
           ).to_be_attached(timeout=120_000)
    bad += _not_words(page)
    if system in TREE_SYSTEMS:
        bad += _tree_words(page)
    page.locator(".do-action button").click()
    _answer_until(page, k + 1, bad)
    expect(page.locator(".action-result[data-state='resolved']")).to_be_attached(timeout=60_000)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        _frames(page)
        bad += [f"{width} px: {t}" for t in _not_words(page)]
    assert not bad, f"{system}: not a player's words on the page:\n" + "\n".join(dict.fromkeys(bad))


def test_n20_battle_names_its_crt_result_and_an_event_card_its_title(page: Page, app_url: str, tmp_path):
    """(c) Bussaco, greedy seed 1: its first battle with typed dice (each question's first answer: no
    reserves, 12.5; the CRT die typed 1), then its first event card drawn, typed in (the first card offered)."""
    rec = json.loads((REPO / "data/records" / RECORDS["n20"]).read_text())
    k = next(i for i, e in enumerate(rec["events"]) if e["action"]["kind"] == "resolve")
    rec["events"] = rec["events"][:k]
    _import(page, app_url, "n20", rec, tmp_path)
    page.locator(".dice-mode button", has_text="I type").click()
    _select(page, "fight declared battle no. 1 (9.0)")
    page.locator(".do-action button").click()
    _answer_until(page, k + 1, [])
    result = page.locator(".action-result[data-state='resolved']")
    expect(result).to_be_attached(timeout=60_000)
    # the CRT die with the result it gives, named with its rule (v2 rules at Bussaco: 9.6.1-9.6.8)
    crt = re.compile(r"CRT column [+-]\d+: die \d: (AB|AR|AW|DB|DR|DW|EX|N), [a-z][^()]* \(9\.6\.\d\)")
    expect(result).to_contain_text(crt)
    expect(page.locator("table.dice-log")).to_contain_text(crt)

    # the event card: the list goes on to the next draw of the game (5.0); the typed draw offers the cards by
    # their titles, and the log says the one drawn by its title
    cards = yaml.safe_load((REPO / "data/n20/bussaco/events.yaml").read_text())
    titles = _titles(cards)
    draw = next(i for i, e in enumerate(json.loads((REPO / "data/records" / RECORDS["n20"]).read_text())["events"])
                if e["action"]["kind"] == "draw_event")
    rec2 = json.loads((REPO / "data/records" / RECORDS["n20"]).read_text())
    rec2["events"] = rec2["events"][:draw]
    _import(page, app_url, "n20", rec2, tmp_path)
    page.locator(".dice-mode button", has_text="I type").click()
    _select(page, "draw this turn's event card (5.0)")
    page.locator(".do-action button").click()
    expect(page.locator(".pending-request[data-rule='5.0']")).to_be_attached(timeout=60_000)
    faces = page.locator(".typed-die select option")
    first = faces.first.inner_text()
    assert any(t in first for t in titles), f"the first card offered is not named by its title: {first!r}"
    page.locator(".typed-die select").select_option(index=0)
    page.locator(".enter-die button").click()
    expect(page.locator(f"{STATUS}[data-events='{draw + 1}']")).to_be_attached(timeout=60_000)
    title = next(t for t in titles if t in first)
    expect(page.locator("table.dice-log")).to_contain_text(f"“{title}”")


def _titles(data) -> list[str]:
    """Every card title in an events file, whatever its nesting."""
    out: list[str] = []
    if isinstance(data, dict):
        if isinstance(data.get("title"), str):
            out.append(data["title"])
        for v in data.values():
            out += _titles(v)
    elif isinstance(data, list):
        for v in data:
            out += _titles(v)
    return out


def test_tbf_long_list_is_grouped_by_unit_and_narrowed_by_a_filter(page: Page, app_url: str, tmp_path):
    """Point 3: the Dürenstein game (greedy seed 4) after 17 actions, a Coalition activation with about 300
    moves listed: they come in one group per unit, by the name its counter shows ("POD 3 bn"), and typing
    words narrows the list to the actions that say them."""
    rec = json.loads((REPO / "data/records" / RECORDS["tbf"]).read_text())
    rec["events"] = rec["events"][:17]
    _import(page, app_url, "tbf", rec, tmp_path)
    box = page.locator(".action-list")
    expect(box).to_have_attribute("data-grouped", "yes", timeout=60_000)
    total = int(box.get_attribute("data-count"))
    assert total > 100
    labels = page.locator(".action-list optgroup").evaluate_all("(gs) => gs.map((g) => g.label)")
    assert "POD 3 bn" in labels and "General Kutusov" in labels, labels
    page.locator(".action-filter input").fill("pod 3")
    expect(box).not_to_have_attribute("data-shown", str(total), timeout=30_000)
    shown = int(box.get_attribute("data-shown"))
    assert 0 < shown < total
    texts = page.locator(".action-list option:not([hidden])").all_inner_texts()
    assert len(texts) == shown and all("POD 3 bn" in t for t in texts), texts[:5]
    expect(page.locator(".action-list optgroup:not([hidden])")).to_have_count(1)


def test_n20_click_on_a_hex_the_unit_cannot_reach_says_the_rule(page: Page, app_url: str):
    """Point 5: Bussaco turn 1, the French cavalry FRCV in 1011 picked, then 1611 clicked: six hexes away,
    beyond its movement allowance (6.2); the page says so with the rule, and nothing changes."""
    page.goto(app_url + "/play")
    expect(page.locator(".status-line")).to_contain_text("No game", timeout=30_000)
    wait_ready(page)
    page.locator(".scenario-select select").select_option("bussaco")
    page.locator(".seed-input input").fill("1")
    page.locator(".seed-input input").press("Enter")
    page.locator(".start-game button").click()
    expect(page.locator(f"{STATUS}[data-state='ready'][data-events='0']")).to_be_attached(timeout=60_000)
    click_hex(page, "bussaco", "1011")
    expect(page.locator(STATUS)).to_have_attribute("data-picked", "1011", timeout=30_000)
    click_hex(page, "bussaco", "1611")
    refusal = page.locator(".refusal-box [data-state='refused']")
    expect(refusal).to_contain_text(re.compile(r"rule 6\.2.*1611.*FRCV.*movement allowance"), timeout=30_000)
    expect(page.locator(STATUS)).to_have_attribute("data-events", "0")
