"""TBF fire and melee set up from forms (issue 17 point 6): the table and the advanced text stay in step."""
from __future__ import annotations

from types import SimpleNamespace

from dashboards.calculators.tbf.views import TbfSession, fire_panel, melee_panel


def _parts(panel):
    form = panel.objects[1]
    return form.objects[0], form.objects[1], form.objects[2].objects[0]   # table, buttons, text


def test_fire_form_edits_reach_the_text_and_back():
    table, buttons, text = _parts(fire_panel(TbfSession()))
    assert list(table.value["ff"]) == [3, 4] and list(table.value["kind"]) == ["infantry", "artillery"]
    df = table.value.copy()
    df.loc[1, "moved"] = True
    table.value = df
    for cb in table._on_edit_callbacks:
        cb(SimpleNamespace(row=1, column="moved", value=True))
    assert text.value.splitlines()[1] == "ff=4,kind=artillery,range=1,status=normal,moved"
    text.value = "ff=2,kind=howitzer,range=3"            # the advanced box rebuilds the table
    assert list(table.value["kind"]) == ["howitzer"] and list(table.value["range"]) == [3]
    buttons.objects[0].clicks += 1                       # add a firer: a default row
    assert len(text.value.splitlines()) == 2
    buttons.objects[1].clicks += 1                       # remove it again
    assert text.value == "ff=2,kind=howitzer,range=3,status=normal"


def test_melee_forms_for_both_sides():
    p = melee_panel(TbfSession())
    att, dfn = p.objects[1], p.objects[3]
    assert list(att.objects[0].value["cv"]) == ["1", ""] and list(dfn.objects[0].value["fv"]) == [3]
