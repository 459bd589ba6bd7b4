"""The TBF page without a browser: it builds, recomputes on input, keeps the session on a bad upload."""
from pathlib import Path

import yaml

from dashboards.calculators.tbf.views import TbfSession, charge_panel, check_panel
from dashboards.pages import tbf as page_mod

REPO = Path(__file__).resolve().parents[2]


def _html_of(view) -> str:
    out = []

    def walk(o):
        obj = getattr(o, "object", None)
        if isinstance(obj, str):
            out.append(obj)
        for c in getattr(o, "objects", []) or []:
            walk(c)
    walk(view)
    return "\n".join(out)


def test_page_builds_with_title_and_summary():
    assert page_mod.TITLE and page_mod.SUMMARY
    p = page_mod.page()
    assert p is not None


def test_check_panel_shows_hand_worked_odds():
    sess = TbfSession()
    row = check_panel(sess)
    bound = row.objects[1]
    html = _html_of(bound._pane if hasattr(bound, "_pane") else bound)
    # default: Being Charged, FV 4, CV 1 -> 5/6 (4.2.2 C)
    assert "data-pass='5/6'" in html


def test_bad_tables_upload_shows_error_and_changes_nothing():
    sess = TbfSession()
    before = sess.tables
    ok = sess.loader.accept_upload(b"fatigue: [1, 2\n", "bad.yaml")
    assert not ok and "bad.yaml" in sess.loader.error
    assert sess.tables is before and not sess.uploaded


def test_good_tables_upload_replaces_tables():
    sess = TbfSession()
    data = yaml.safe_load((REPO / "data/tbf/tables.yaml").read_text())
    data["fatigue"]["checks"]["being_charged"]["drm"] = 1
    ok = sess.loader.accept_upload(yaml.safe_dump(data, allow_unicode=True).encode(), "mine.yaml")
    assert ok and sess.uploaded and sess.tables.fatigue.checks["being_charged"].drm == 1


def test_charge_panel_bad_yaml_shows_error():
    sess = TbfSession()
    panel = charge_panel(sess)
    out = panel.objects[0].objects[1].objects[1]  # the results beside the form
    summary, picture = out.objects[0], panel.objects[1].objects[0]
    assert "tbf-total" in summary.object and '"parent"' in picture.data and "Fatigue Check" in picture.outline
    shown = picture.data
    panel._text.value = "charger: [oops"         # typed into the advanced box: no button, the result follows
    # the same two parts, their text changed in place (issue 12.3: no new models when a result arrives)
    assert out.objects == [summary] and panel.objects[1].objects == [picture]
    assert "tbf-error" in summary.object and "CHARGE" in summary.object
    assert picture.data == shown                  # a refused charge leaves the last tree drawn


def test_charge_work_sends_three_strings():
    """The charge's worker answers with plain text only (issue 12.3: the event loop copies it into the
    page); the example charge's tree sums to 1 (every branch of 6.2.8 enumerated)."""
    import json
    from dashboards.calculators.tbf.views import EXAMPLE_CHARGE, charge_work
    from engine.tbf.tables import default_tables

    head, data, outline = charge_work(EXAMPLE_CHARGE, default_tables(), True, "aggressive")
    assert "<b class='tbf-total'>1/1</b>" in head
    cols = json.loads(data)
    assert cols["parent"][0] == -1 and len(cols["label"]) == len(cols["parent"]) and cols["height"] >= 300
    assert "tree-outline" in outline


def test_check_work_hand_worked_and_bounded():
    """The check panel's work function (run in a worker process on the server): Being Charged, FV 4, one
    leader of CV 1: net DRM -1 (the check's own DRM 0, minus the CV), so d6 1-5 pass: 5/6 (4.2.2 C)."""
    import pytest
    from dashboards.calculators.tbf.views import MAX_LEADERS, check_work
    from engine.core.errors import VedetteError

    head, grid = check_work(None, "being_charged", 4, "normal", "1", (), 0)
    assert "data-pass='5/6'" in head and "passes on d6 1, 2, 3, 4, 5" in head
    assert "tbf-grid" in grid and "FV 6" in grid
    # no leader: d6 1-4 pass at FV 4 -> 4/6 = 2/3
    assert "data-pass='2/3'" in check_work(None, "being_charged", 4, "normal", "", (), 0)[0]
    with pytest.raises(VedetteError, match=f"at most {MAX_LEADERS} leaders"):
        check_work(None, "being_charged", 4, "normal", ", ".join(["1"] * (MAX_LEADERS + 1)), (), 0)
    with pytest.raises(VedetteError, match="from 0 to 9"):
        check_work(None, "being_charged", 4, "normal", "12", (), 0)
    with pytest.raises(VedetteError, match="at most 60 characters"):
        check_work(None, "being_charged", 4, "normal", "1 " * 40, (), 0)
    with pytest.raises(VedetteError, match="other DRM"):
        check_work(None, "being_charged", 4, "normal", "1", (), 50)


def test_check_panel_follows_its_inputs_and_melee_is_bounded():
    import pytest
    from dashboards.calculators.tbf.views import MAX_MELEE_UNITS, melee_work
    from engine.core.errors import VedetteError

    row = check_panel(TbfSession())
    cvs = row.objects[0].objects[3]
    cvs.value = ""                        # no leader: 2/3 (above)
    assert "data-pass='2/3'" in _html_of(row.objects[1])
    cvs.value = "x"
    assert "tbf-error" in _html_of(row.objects[1]) and "whole numbers" in _html_of(row.objects[1])
    too_many = "\n".join(["mf=4,fv=4"] * (MAX_MELEE_UNITS + 1))
    with pytest.raises(VedetteError, match=f"at most {MAX_MELEE_UNITS} units"):
        melee_work(None, too_many, "mf=4,fv=3", "level0", 0)


def test_tables_loader_panel_grows_its_status_on_first_use():
    """The loader shows its label and file box only; the reset button and the status line join the panel
    when a file is first tried (issue 12.3), with the same messages as before."""
    sess = TbfSession()
    col = sess.loader.panel()
    assert len(col.objects) == 2 and col.objects[1] is sess.loader.file_input
    assert not sess.loader.accept_upload(b"fatigue: [1, 2\n", "bad.yaml")
    reset, status = col.objects[2:]
    assert reset.disabled and "upload-error" in status.object and "bad.yaml" in status.object
    data = yaml.safe_load((REPO / "data/tbf/tables.yaml").read_text())
    assert sess.loader.accept_upload(yaml.safe_dump(data, allow_unicode=True).encode(), "mine.yaml")
    assert not reset.disabled and "upload-ok" in status.object and "mine.yaml" in status.object
    reset.clicks += 1                            # back to the shipped tables
    assert not sess.uploaded and reset.disabled and status.object == ""
    assert len(sess.loader.panel().objects) == 4   # a panel made later shows them at once


def test_charge_outcomes_list_the_likeliest_and_sum_the_rest():
    """At most MAX_OUTCOME_ROWS outcome rows, then one row with the others' summed chance: one outcome of
    1/32 and 62 of 1/64 (2/64 + 62/64 = 1): 63 in all -> the 1/32 first, 59 of 1/64, then the 3 left
    together: 3/64; 61 rows."""
    from fractions import Fraction
    from dashboards.calculators.tbf.views import MAX_OUTCOME_ROWS, outcome_bars

    assert MAX_OUTCOME_ROWS == 60
    items = [("big", Fraction(1, 32))] + [(f"o{i}", Fraction(1, 64)) for i in range(62)]
    text = outcome_bars(items)
    assert text.count("<tr") == 61 and "the 60 likeliest of 63 outcomes" in text
    assert "data-label='… 3 less likely outcomes together' data-fraction='3/64'" in text
    few = outcome_bars(items[:5])
    assert few.count("<tr") == 5 and "every outcome" in few


def test_situation_results_replace_one_pane_in_place():
    """Each result of the Situation tab changes the text of one pane (issue 12.3); a bad placement shows
    a one-line error there and the next good input shows its results again."""
    from dashboards.calculators.tbf.views import situation_panel

    row = situation_panel(TbfSession())

    def find(o):
        if "tbf-situation-out" in (getattr(o, "css_classes", None) or []):
            return o
        for c in getattr(o, "objects", []) or []:
            got = find(c)
            if got is not None:
                return got
    out = find(row)
    pane = out.objects[0]
    row.compute()                                 # the tab opened: 4l-1 fires at ci-1 in 2114 (the default)
    assert out.objects == [pane] and "distinct end states" in pane.object and "tbf-piece-ci-1" in pane.object
    places = row.objects[0].objects[0]
    places.value = "ci-1=9999"                    # no such hex
    assert out.objects == [pane] and "tbf-error" in pane.object
    places.value = "ci-1=2114:SW"
    assert out.objects == [pane] and "tbf-piece-ci-1" in pane.object
