"""/lob page cost (issue 17.1): only the first tab is built with the page; the others on first opening."""
from __future__ import annotations

import panel as pn

from dashboards.pages import lob


def _tabs(root) -> pn.Tabs:
    return next(o for o in root.objects if isinstance(o, pn.Tabs))


def _walk(obj):
    yield obj
    for o in getattr(obj, "objects", []) or []:
        yield from _walk(o)


def test_later_tabs_are_empty_until_opened_then_built_once():
    tabs = _tabs(lob.page())
    assert [t.name for t in tabs.objects] == ["Combat odds", "Any combat", "Artillery fire", "Command points"]
    assert tabs.objects[0].objects                           # the map's combat, built with the page
    assert all(not h.objects for h in tabs.objects[1:])      # the three others: empty holders
    tabs.active = 2                                          # Artillery fire opened
    fire = tabs.objects[2].objects
    assert len(fire) == 1 and fire[0].name == "Artillery fire"
    assert not tabs.objects[1].objects and not tabs.objects[3].objects
    tabs.active = 0
    tabs.active = 2                                          # opened again: the same panel, not a second one
    assert tabs.objects[2].objects[0] is fire[0]
    tabs.active = 3
    assert tabs.objects[3].objects[0].name == "Command points"


def test_any_combat_yaml_box_is_filled_on_first_opening_and_keeps_step_with_the_form():
    tabs = _tabs(lob.page())
    tabs.active = 1
    custom = tabs.objects[1].objects[0]
    assert custom.name == "Any combat"
    card = next(o for o in _walk(custom) if getattr(o, "css_classes", None) == ["lob-custom-advanced"])
    assert not card.objects                                  # closed: no YAML box made into a model yet
    assert "attackers:" in custom._text.value                # ... but the form's YAML is kept all along
    card.collapsed = False
    assert card.objects == [custom._text]
