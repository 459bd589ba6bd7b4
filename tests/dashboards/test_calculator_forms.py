"""The LoB "Any combat" and TBF charge calculators set up from forms (issue 17 point 6): no YAML to type, no
Compute button; the form and the advanced YAML box stay in step and the results follow every change.

Outside a server the page's background runner works at once, so each result is on the page when the call that
changed the form returns.
"""
from __future__ import annotations

import re
from fractions import Fraction
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st

from dashboards.calculators.lob.views import (EXAMPLE_COMBAT, LobSession, UNIT_FIELDS, combat_yaml, custom_panel,
                                              unit_row, unit_spec)
from dashboards.calculators.tbf.views import (EXAMPLE_CHARGE, TbfSession, charge_panel, charge_targets, charge_yaml,
                                              parse_charge_text, target_rows)
from dashboards.common.unit_rows import clean_row
from engine.core.data import parse_yaml
from engine.lob.analysis import CombatSpec, analyse, parse_combat
from engine.lob.board import default_board
from engine.lob.tables import default_tables


def _edit(rows_table, row: int, column: str, value):
    """As a typed cell does: the table's value changes, then its edit callbacks run."""
    df = rows_table.table.value.copy()
    df.loc[row, column] = value
    rows_table.table.value = df
    for cb in rows_table.table._on_edit_callbacks:
        cb(SimpleNamespace(row=row, column=column, value=value))


def _taken(panel) -> str:
    html = panel.objects[2].objects[0].object
    return re.search(r"data-taken='([^']+)'", html).group(1)


def _engine_taken(src: str) -> str:
    ctx, att, dfn = parse_combat(src, default_board(), default_tables())
    p = analyse(ctx, att, dfn).attacker_takes_area
    return f"{p.numerator}/{p.denominator}"


# -- Lines of Battle: Any combat -------------------------------------------------------------------------------
def test_lob_any_combat_opens_on_the_example_with_its_units_in_the_tables():
    p = custom_panel(LobSession())
    att, dfn = p._tables
    assert [r["uid"] for r in att.rows()] == ["French-line"] and att.rows()[0]["rating"] == 3
    assert dfn.rows()[0]["approach"] == "23"
    # infantry 3 against infantry 3 on the approach, both stay: the engine's exact number (as the e2e test)
    assert _taken(p) == "95188895/725594112"
    assert not any(getattr(o, "name", "") == "Compute" for o in _walk(p))


def _walk(obj):
    yield obj
    for o in getattr(obj, "objects", []) or []:
        yield from _walk(o)


def test_lob_a_cell_edit_rewrites_the_yaml_and_the_result_follows():
    p = custom_panel(LobSession())
    att, dfn = p._tables
    _edit(dfn, 0, "rating", 1)          # the defender down to rating 1
    assert "rating: 1" in p._text.value
    assert parse_yaml(p._text.value, CombatSpec, "form").defenders[0].rating == 1
    # the page shows what the engine gives for the form's own YAML, and the weaker defender loses more often
    assert _taken(p) == _engine_taken(p._text.value)
    assert Fraction(_taken(p)) > Fraction("95188895/725594112")


def test_lob_a_refused_unit_shows_one_line_naming_the_rule_and_keeps_the_form():
    p = custom_panel(LobSession())
    att, _ = p._tables
    _edit(att, 0, "rating", 0)          # infantry with rating 0 (1.2)
    alert = p.objects[2].objects[0]
    assert "1.2" in alert.object and "rating of 1 or more" in alert.object
    assert att.rows()[0]["rating"] == 0


def test_lob_the_advanced_yaml_fills_the_form():
    p = custom_panel(LobSession())
    att, dfn = p._tables
    p._text.value = ("target: '16'\norigin: '24'\nattacker_side: Allied\n"
                     "attackers: [{uid: A1, kind: cav, rating: 2, cav: heavy}, {uid: A2, kind: inf, rating: 3}]\n"
                     "defenders: [{uid: D1, kind: inf, rating: 2}]\n")
    assert [r["uid"] for r in att.rows()] == ["A1", "A2"] and att.rows()[0]["cav"] == "heavy"
    assert [r["uid"] for r in dfn.rows()] == ["D1"]
    assert _taken(p) == _engine_taken(p._text.value)


def test_lob_a_unit_of_the_set_up_is_added_with_its_rating():
    sess = LobSession()
    p = custom_panel(sess)
    att, _ = p._tables
    pick = next(o for o in _walk(p) if getattr(o, "css_classes", None) == ["lob-custom-pick"])
    pick.value = "F-Brayer"
    add = next(o for o in _walk(p) if getattr(o, "css_classes", None) == ["lob-custom-add-att"])
    add.clicks += 1
    brayer = next(u for u in sess.game.units if u.uid == "F-Brayer")
    assert att.rows()[-1]["uid"] == "F-Brayer" and att.rows()[-1]["rating"] == brayer.rating
    assert "F-Brayer" in p._text.value


_units = st.fixed_dictionaries({
    "uid": st.sampled_from(["a", "b c", "X-1"]), "kind": st.sampled_from(["inf", "cav", "art"]),
    "rating": st.integers(0, 5), "hits": st.integers(0, 3), "cav": st.sampled_from(["", "heavy", "lancer"]),
    "approach": st.sampled_from(["", "23", "16"]), "square": st.booleans(), "deployed": st.booleans(),
    "arty": st.sampled_from(["foot", "horse", "heavy", "rockets"])})


@settings(max_examples=60, deadline=None)
@given(st.lists(_units, min_size=1, max_size=3), st.lists(_units, min_size=1, max_size=3),
       st.lists(st.sampled_from(["10", "11", "14"]), unique=True, max_size=2), st.booleans())
def test_lob_form_to_yaml_and_back_is_the_same_combat(att, dfn, enemy, rain):
    spec = {"target": "15", "origin": "23", "attacker_side": "French", "attackers": [unit_spec(r) for r in att],
            "defenders": [unit_spec(r) for r in dfn], "enemy_adjacent": enemy, "friendly_adjacent": [],
            "charge": False, "rain": rain}
    back = parse_yaml(combat_yaml(spec), CombatSpec, "form")
    assert [unit_row(u) for u in back.attackers] == [clean_row(r, UNIT_FIELDS) for r in att]
    assert [unit_row(u) for u in back.defenders] == [clean_row(r, UNIT_FIELDS) for r in dfn]
    assert list(back.enemy_adjacent) == enemy and back.rain == rain


# -- These Brave Fellows: the charge --------------------------------------------------------------------------
def _ends(panel) -> str:
    return panel.objects[0].objects[1].objects[1].objects[0].object


def _fraction(html: str, label: str) -> str:
    return re.search(rf"data-label='{re.escape(label)}'[^>]*data-fraction='([^']+)'", html).group(1)


def test_tbf_charge_opens_on_the_example_as_a_form():
    p = charge_panel(TbfSession())
    assert [r["hex"] for r in p._targets.rows()] == ["1513", "1612"]
    html = _ends(p)
    assert "tbf-total'>1/1<" in html
    # the charger (FV 4) attempts the charge: it fails on a d6 above its FV, 5 or 6 -> 2/6 = 1/3 (as the e2e test)
    assert _fraction(html, "attempt failed") == "1/3"


def test_tbf_charge_follows_the_chargers_fv():
    p = charge_panel(TbfSession())
    fv = p._charger[4]
    fv.value = 5
    assert "fv: 5" in p._text.value
    # FV 5: the attempt now fails on a 6 only -> 1/6
    assert _fraction(_ends(p), "attempt failed") == "1/6"


def test_tbf_charge_a_bad_path_is_one_line_naming_the_rule():
    p = charge_panel(TbfSession())
    p._charger[7].value = "1314 1413"           # the target two hexes away: too close (6.2.8 C)
    alert = p.objects[0].objects[1].objects[1].objects[0]
    assert "6.2.8 C" in alert.object


def test_tbf_charge_advanced_yaml_fills_the_form_and_extras_still_compute():
    p = charge_panel(TbfSession())
    typed = EXAMPLE_CHARGE.replace("fv: 3, mf: 4}]", "fv: 1, mf: 4}]")
    p._text.value = typed
    assert p._targets.rows()[0]["fv"] == 1
    # a file with a field the form does not show (reactors) is still computed from the text as typed
    p._text.value = EXAMPLE_CHARGE + "reactors: []\n"
    assert "tbf-total'>1/1<" in _ends(p)


def test_tbf_targets_table_round_trip():
    spec = parse_charge_text(EXAMPLE_CHARGE)
    assert charge_targets(target_rows(spec["targets"])) == spec["targets"]
    again = parse_charge_text(charge_yaml({**spec, "targets": charge_targets(target_rows(spec["targets"]))}))
    assert again == spec


# -- These Brave Fellows: fire and melee forms take units of the set-up ----------------------------------------
def test_tbf_fire_form_adds_a_unit_of_the_set_up_with_its_ff():
    from dashboards.calculators.tbf.views import fire_panel, setup_units
    from engine.tbf.scenario import default_scenario

    p = fire_panel(TbfSession())
    form = p.objects[1]
    table, buttons, text = form.objects[0], form.objects[1], form.objects[2].objects[0]
    pick, take = buttons.objects[2], buttons.objects[3]
    label = next(k for k in setup_units("fire") if k.startswith("1/4th Legere"))
    pick.value = label
    take.clicks += 1
    ff = default_scenario().units["4l-1"].ff
    assert list(table.value["name"])[-1] == "1/4th Legere"
    assert text.value.splitlines()[-1] == f"name=1/4th Legere,ff={ff},kind=infantry,range=1,status=normal"
