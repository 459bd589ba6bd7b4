"""The Battle Commander deck on the charts page (issue 17 point 5): one row per card, its result in each odds
column of Fire or Assault, counts of cards per result; a typed card reaches the engine's deck."""
from __future__ import annotations

import pytest

from dashboards.calculators.charts_model import ChartBook
from dashboards.pages.charts import ChartsView, cards_counts_html
from engine.bc.calc import deck_summary
from engine.core.errors import VedetteError


def _deck():
    book = ChartBook("bc-deck")
    (block,) = book.blocks()
    return book, block


def test_the_deck_is_a_table_of_cards_not_one_value_a_row():
    _, b = _deck()
    assert b.is_cards and b.card_rows() == ["fire", "assault"]
    heads, rows = b.card_table("faces")
    assert heads[:4] == ["number", "name", "side", "skill"] and len(rows) == 71     # 70 event cards + reshuffle
    heads, rows = b.card_table("fire")
    assert heads == ["number", "-2", "-1", "+0", "+1", "+2", "+3", "+4"]
    assert rows[0] == ["1", "gun_smoke", "gun_smoke", "muskets_shot", "muskets_shot", "muskets_shot",
                       "round_shot", "round_shot"]
    assert rows[30] == ["31", "", "", "", "", "", "", ""]      # the reshuffle card shows no result
    # the other values of the file stay in the plain values table; no 'cards[3].fire' rows there
    assert [p for p, _ in b.rows()] == ["columns", "fire_order", "assault_order", "reshuffle"]


def test_counts_match_the_decks_own_notes_and_the_engine():
    _, b = _deck()
    c = b.card_counts()
    # the shipped notes: skull & bones on 4,6,9,12,16,21,27 of 70 cards from column -2 to +4
    assert list(c["fire"]["skull_bones"].values()) == [4, 6, 9, 12, 16, 21, 27]
    assert list(c["assault"]["retreat_flag"].values()) == [3, 4, 6, 9, 13, 18, 24]
    assert c["side"] == {"coalition": 20, "french": 20, "shared": 31}          # 7.0, the reshuffle card shared
    # 16 of 70 at +2 is the engine's next-card chance, 8/35
    assert deck_summary(b.book.check(), ())["next_card"]["fire"]["+2"]["skull_bones"]["fraction"] == "8/35"
    html = cards_counts_html(b)
    assert "data-result='skull_bones'" in html and "<td data-column='+2'>16</td>" in html


def test_a_typed_card_changes_the_counts_and_the_engines_deck():
    book, b = _deck()
    heads, rows = b.card_table("fire")
    i = next(k for k, r in enumerate(rows) if r[5] == "round_shot")      # a card showing round shot at +2
    b.set_card_cell(i, "fire", "+2", "skull_bones")
    assert b.card_counts()["fire"]["skull_bones"]["+2"] == 17
    deck = book.check()                    # the engine's own loader, as --deck FILE
    # 17 of 70 cards now show skull & bones at +2
    assert deck_summary(deck, ())["next_card"]["fire"]["+2"]["skull_bones"]["fraction"] == "17/70"


def test_the_reshuffle_card_refuses_a_result():
    _, b = _deck()
    with pytest.raises(VedetteError, match="no fire row"):
        b.set_card_cell(30, "fire", "+2", "skull_bones")


def test_every_chart_tab_shows_its_own_provenance_badge():
    from dashboards.calculators.charts_model import SYSTEMS

    for key in SYSTEMS:
        v = ChartsView(key)
        for tab, block in zip(v.tabs, v.book.blocks()):
            badge = tab.objects[0].objects[0].object
            assert "prov-badge" in badge and block.name in badge, (key, block.name)
