"""Memo keys of TBF are values (issue 10.6): the charts, the map and the scenario each carry a digest of
their content, made once when loaded, and every memo key (Sub requests, module caches) holds that digest,
never an object identity. Two files loaded separately with the same content give the same keys; a file
with one changed value gives other keys."""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from engine.tbf.board import default_board
from engine.tbf.fatigue import CheckSpec, check_sub
from engine.tbf.scenario import default_scenario, load_scenario
from engine.tbf.tables import DEFAULT_TABLES, Tables, load_tables, parse_tables

ENGINE = Path(__file__).resolve().parents[2] / "engine" / "tbf"


def test_equal_tables_loaded_separately_give_one_key():
    a, b = load_tables(str(DEFAULT_TABLES)), load_tables(str(DEFAULT_TABLES))
    assert a is not b
    assert a.key == b.key and a == b and hash(a) == hash(b)
    spec = CheckSpec("overstack", 4)
    assert check_sub(a, spec).key == check_sub(b, spec).key
    # the same text uploaded (another way in) is the same value too
    assert parse_tables(Path(DEFAULT_TABLES).read_text()).key == a.key


def test_changed_tables_give_another_key():
    raw = yaml.safe_load(Path(DEFAULT_TABLES).read_text())
    raw["fatigue"]["checks"]["overstack"]["drm"] += 1           # one DRM moved by one
    changed = Tables.model_validate(raw)
    base = load_tables(str(DEFAULT_TABLES))
    assert changed.key != base.key and changed != base
    spec = CheckSpec("overstack", 4)
    assert check_sub(changed, spec).key != check_sub(base, spec).key
    # a copy with a changed field is another value as well (its digest is made again)
    copy = base.model_copy(update={"fatigue": changed.fatigue})
    assert copy.key == changed.key != base.key


def test_scenarios_compare_by_content():
    sc = default_scenario()
    again = load_scenario()                                     # map, units and set-up read again
    assert again is not sc and again.key == sc.key and again == sc and hash(again) == hash(sc)
    assert again.board.key == default_board().key
    raw = yaml.safe_load(Path(DEFAULT_TABLES).read_text())
    raw["melee"]["source"] = "provisional"
    raw["fatigue"]["checks"]["overstack"]["drm"] += 1
    other = load_scenario(tables=Tables.model_validate(raw))
    assert other.key != sc.key and other != sc


def test_no_memo_key_is_built_from_an_object_identity():
    hits = [f"{p.name}:{i + 1}" for p in sorted(ENGINE.glob("*.py"))
            for i, line in enumerate(p.read_text().splitlines()) if re.search(r"\bid\((sc|tables|self|st)\b", line)]
    assert hits == []
