"""The Lines of Battle package in the shape every system has (issue 27): actions with a kind and a side,
an explicit handler table, no module over 800 lines, no import cycle, no private name imported across
modules (measured by scripts/code_shape.py)."""
import importlib.util
from pathlib import Path

import pytest

from engine.core.errors import RuleViolation, VedetteError
from engine.lob.actions import Action, Kind
from engine.lob.handlers import HANDLERS, check, legal_actions
from engine.lob.protocol import LobRules
from engine.lob.setup import new_game

ROOT = Path(__file__).resolve().parents[2]
R = LobRules()


def _shape():
    spec = importlib.util.spec_from_file_location("code_shape", ROOT / "scripts" / "code_shape.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_package_has_no_big_module_no_cycle_and_no_private_import():
    shape = _shape()
    mods, sizes, edges, private_imports, private_reads = shape.scan(ROOT / "engine" / "lob")
    assert max(sizes.values()) <= 800, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    assert shape.cycles(edges) == []
    assert private_imports == [] and private_reads == []
    assert "engine.lob.game" not in mods            # the old 1,241-line module is gone


def test_every_kind_has_its_handler_and_every_candidate_its_side():
    assert set(HANDLERS) == set(Kind)
    g = new_game()
    for a in legal_actions(g):
        assert a.kind in Kind and a.side == g.player == "French"


def test_the_json_keeps_type_reads_kind_and_never_writes_the_side():
    a = Action(Kind.ACTIVATE, area="75", side="French")
    assert R.action_to_json(a) == {"type": "activate", "area": "75"}         # records stay as they were
    assert R.action_from_json({"kind": "activate", "area": "75"}) == a       # side does not count in equality
    assert R.action_from_json({"type": "activate", "area": "75", "side": "French"}).side == "French"
    with pytest.raises(VedetteError, match="'type' .* or 'kind', not both"):
        R.action_from_json({"type": "activate", "kind": "activate", "area": "75"})
    with pytest.raises(VedetteError, match="field 'side'"):
        R.action_from_json({"type": "activate", "area": "75", "side": "Prussian"})


def test_an_action_of_the_side_not_to_act_is_refused_by_rule_2():
    g = new_game()                                             # turn 1, the French admin phase
    check(g, Action(Kind.END_ADMIN, side="French"))
    with pytest.raises(RuleViolation) as e:
        check(g, Action(Kind.END_ADMIN, side="Allied"))
    assert e.value.rule == "2" and "French player's go" in str(e.value)
