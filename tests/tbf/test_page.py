"""The TBF page without a browser: it builds, recomputes on input, keeps the session on a bad upload."""
from pathlib import Path

import yaml

from dashboards.components.tbf_views import TbfSession, charge_panel, check_panel
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
    panel._text.value = "charger: [oops"         # typed into the advanced box: no button, the result follows
    out = panel.objects[0].objects[1].objects[1]  # the results beside the form
    assert "tbf-error" in (out.objects[0].css_classes or [])
