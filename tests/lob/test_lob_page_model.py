"""The Lines of Battle page's view model (no browser): taps, errors, uploads change nothing when bad."""
from fractions import Fraction

from dashboards.calculators.lob.views import LobSession, result_html
from engine.lob.tables import TABLES_FILE


def test_taps_set_attacker_then_defender_area():
    s = LobSession()
    s.tap("25")
    assert s.origin == "25" and s.click_sets == "defender's area"
    s.tap("65")
    assert s.target == "65"
    assert set(s.attackers) == {"F-Bron", "F-Dellard", "F-Eclat", "F-Schwitter"}


def test_illegal_choice_is_an_error_not_a_crash():
    s = LobSession()
    s.tap("19")
    s.tap("16")                      # empty area: not a combat
    try:
        s.analysis()
        raise AssertionError("expected an error")
    except Exception as exc:
        assert "enemy" in str(exc)


def test_bad_upload_changes_nothing_good_upload_is_used():
    s = LobSession()
    before = s.tables
    assert not s.loader.accept_upload(b"combat: {source: rulebook 5.2.1}\n", "bad.yaml")
    assert s.tables is before and "bad.yaml" in s.loader.error
    text = TABLES_FILE.read_bytes().replace(b"town_infantry_defence: 2", b"town_infantry_defence: 0")
    assert s.loader.accept_upload(text, "mine.yaml")
    assert s.uploaded and s.tables.terrain.town_infantry_defence == 0
    html = result_html(s.analysis(), s)
    assert "your file" in html        # each block keeps its own kind, marked as from your file (issue 17)
