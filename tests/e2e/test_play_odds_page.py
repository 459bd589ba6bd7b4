"""The play page while an attack is declared (issue 15.2), in the browser: the exact odds of a selected
LoB combat, TBF fire and TBF charge before anything is committed, the result in words once made, the
busy line with cancel while a long enumeration runs, and the tree only on request. Every wait is on page state."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from conftest import AppServer
from play_helpers import open_record, select_action

sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
from attack_records import kind_of, record_until, tbf_long_range_artillery_fire  # noqa: E402

pytestmark = pytest.mark.e2e


def test_tbf_fire_odds_before_committing(page: Page, app_url: str, tmp_path):
    rec, state, fire, rules = record_until("tbf", tbf_long_range_artillery_fire, bot_seed=2)
    open_record(page, app_url, "tbf", rec, tmp_path)
    select_action(page, rules.describe_action(fire))
    ready = page.locator(".odds-panel .action-odds[data-state='ready']")
    expect(ready).to_be_attached(timeout=90_000)
    # By hand (provisional Fire Combat Table): FF 4 artillery at 4 hexes fires at 4 // 2 = 2 (6.3.4 B),
    # column 2, no DRM; the d10 (6.3.7 D) reads "-" on 1-6 of its 10 faces: no effect 6/10 = 3/5 = 60 %.
    line = ready.locator("tr.odds-line", has_text="no effect")
    expect(line.locator("td.frac")).to_have_text("3/5")
    expect(line.locator("td.pct")).to_have_text("60.00 %")
    expect(line.locator("td.rule")).not_to_be_empty()
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()   # nothing committed
    # made: the players' choices inside it (if any) answered with the first button, then the result in words
    page.locator(".do-action button").click()
    done = page.locator(f".status-line [data-events='{len(rec.events) + 1}']")
    for _ in range(20):
        choice = page.locator(".pending .choice button").first
        expect(done.or_(choice)).to_be_attached(timeout=60_000)
        if done.count():
            break
        answered = page.locator(".pending-request").get_attribute("data-answered")
        choice.click()
        moved_on = page.locator(f".pending-request:not([data-answered='{answered}'])")
        expect(done.or_(moved_on)).to_be_attached(timeout=60_000)
    said = page.locator(".result-panel .action-result[data-state='resolved']")
    expect(said).to_contain_text(re.compile(r"Fire Combat: (rolled )?\d+"), timeout=60_000)   # the d10, in the system's words
    expect(said).to_contain_text("rule 6.3.7 D")


def test_lob_combat_and_tbf_charge_odds_match_the_engine(page: Page, app_url: str, tmp_path):
    from engine.core.odds import action_odds
    for system, wanted in (("lob", lambda r, s, a: r.is_attack(a)),
                           ("tbf", lambda r, s, a: kind_of(r, a) == "charge")):
        rec, state, attack, rules = record_until(system, wanted)
        first = action_odds(rules, state, attack).outcomes[0]
        open_record(page, app_url, system, rec, tmp_path)
        select_action(page, rules.describe_action(attack))
        ready = page.locator(".odds-panel .action-odds[data-state='ready']")
        expect(ready).to_be_attached(timeout=90_000)
        row = ready.locator("tr.odds-line").first
        expect(row.locator("td.frac")).to_have_text(f"{first.probability.numerator}/{first.probability.denominator}")
        expect(row.locator("td.rule")).to_have_text(first.rule)


def _big_melee(r, s, a) -> bool:
    # the greedy bots' TBF melee of 2/100th Ligne on 1915 (bot seed 1): it ends the turn, and every fatigued or
    # routed unit's recovery roll follows it (7.0): 606 positions up to the end of the turn, 52,151 with it
    return kind_of(r, a) == "melee" and a.target == "1915" and "100-2" in a.units


def test_odds_too_big_with_the_turn_end_stop_before_it_and_say_so(page: Page, app_url: str, tmp_path):
    # issue 26: refused after 13-28 s of work before; now its odds up to the end of the turn (3.3 B), with the
    # line that says so above the table
    rec, state, melee, rules = record_until("tbf", _big_melee, bot_seed=1, bot="greedy")
    open_record(page, app_url, "tbf", rec, tmp_path)
    select_action(page, rules.describe_action(melee))
    ready = page.locator(".odds-panel .action-odds[data-state='ready']")
    expect(ready).to_be_attached(timeout=60_000)
    expect(ready.locator(".odds-until")).to_contain_text("These odds stop before the end of the turn (rule 3.3 B)")
    expect(ready.locator("tr.odds-line").first).to_be_attached()
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()   # nothing committed


@pytest.fixture
def patient_server(tmp_path):
    """A server whose page may work out odds 100 times longer than the default (a club's fast machine:
    ``$VEDETTE_ODDS_MAX_STEPS``, ``$VEDETTE_ODDS_MAX_OUTCOMES``), with no work ahead of a pick."""
    server = AppServer(tmp_path / "patient", {"VEDETTE_ODDS_MAX_STEPS": "40000000",
                                              "VEDETTE_ODDS_MAX_OUTCOMES": "2000000", "VEDETTE_ODDS_AHEAD_S": "0"})
    server.db.parent.mkdir(parents=True, exist_ok=True)
    yield server.start()
    server.stop()


@pytest.fixture
def tight_server(tmp_path):
    """A server whose page may reach one end position at most (``$VEDETTE_ODDS_MAX_OUTCOMES``): every attack
    with more than one outcome is past its bound."""
    server = AppServer(tmp_path / "tight", {"VEDETTE_ODDS_MAX_OUTCOMES": "1", "VEDETTE_ODDS_AHEAD_S": "0"})
    server.db.parent.mkdir(parents=True, exist_ok=True)
    yield server.start()
    server.stop()


def test_odds_past_the_pages_bound_are_refused_in_a_players_words(page: Page, tight_server: str, tmp_path):
    # issue 26 (bad input): the bound named and how far it got, in words: no action notation, no piece ids
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    open_record(page, tight_server, "lob", rec, tmp_path)
    select_action(page, rules.describe_action(attack))
    refused = page.locator(".odds-panel .action-odds[data-state='error'] .odds-error")
    expect(refused).to_have_text("No odds: they have more than 1 different end positions, the bound here: worked "
                                 "out no further", timeout=60_000)
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()   # nothing committed


def test_a_long_enumeration_busy_line_and_cancel(page: Page, patient_server: str, tmp_path):
    # with the page's bounds raised, the same melee is worked out whole, the end of the turn with it (52,151
    # end positions: tens of seconds): the page shows what it is working out, with cancel; cancelled, nothing
    # is committed and the page is free again
    rec, state, melee, rules = record_until("tbf", _big_melee, bot_seed=1, bot="greedy")
    open_record(page, patient_server, "tbf", rec, tmp_path)
    select_action(page, rules.describe_action(melee))
    busy = page.locator(".odds-box .busy-line[data-state='busy']")
    expect(busy).to_contain_text("odds of", timeout=60_000)
    expect(page.locator(".odds-panel .action-odds[data-state='busy']")).to_be_attached()
    page.locator(".odds-box .busy-cancel button").click()
    gone = page.locator(".odds-panel .action-odds[data-state='error']", has_text="cancelled")
    expect(gone).to_be_attached(timeout=30_000)
    expect(busy).not_to_be_attached()
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()   # nothing committed


def test_odds_of_an_attack_then_its_tree_on_request(page: Page, app_url: str, tmp_path):
    """Issue 26.3: a LoB attack picked shows its exact odds (the warm worker's data drawn on the page), with
    no tree; *show the tree* draws its probability tree under the odds, *hide the tree* folds it away; a
    second pick of the same attack shows the same odds again."""
    rec, state, attack, rules = record_until("lob", lambda r, s, a: r.is_attack(a))
    open_record(page, app_url, "lob", rec, tmp_path)
    select_action(page, rules.describe_action(attack))
    ready = page.locator(".odds-panel .action-odds[data-state='ready']")
    expect(ready).to_be_attached(timeout=90_000)
    expect(ready.locator("tr.odds-line").first).to_be_attached()
    expect(page.locator(".odds-tree-box .ptree")).not_to_be_attached()       # no tree until asked for
    first = ready.locator("tr.odds-line td.frac").first.text_content()
    page.locator(".odds-tree-open button").click()
    tree = page.locator(".odds-tree-box .odds-tree[data-state='ready'] .ptree")
    expect(tree).to_be_attached(timeout=60_000)
    expect(tree.locator(".rule[data-rule='5.2.1']").first).to_be_attached()  # the combat roll, with its rule
    page.locator(".odds-tree-open button").click()
    expect(page.locator(".odds-tree-box .odds-tree[data-state='closed']")).to_be_attached()
    # another action, then the attack again: the same odds
    other = page.locator(".action-list select option:not(.attack)").first.get_attribute("value")
    page.locator(".action-list select").select_option(value=other)
    expect(page.locator(".odds-panel .action-odds[data-state='idle']")).to_be_attached(timeout=30_000)
    select_action(page, rules.describe_action(attack))
    expect(ready.locator("tr.odds-line td.frac").first).to_have_text(first, timeout=30_000)
    expect(page.locator(f".status-line [data-events='{len(rec.events)}']")).to_be_attached()   # nothing committed
