import json

import pytest
from pydantic import Field

from engine.core.areas import AreaGraph
from engine.core.data import Sourced, load_yaml, parse_yaml, provenance_kind
from engine.core.errors import DataError, RecordError
from engine.core.record import GameRecord, replay_states


def test_area_graph():
    g = AreaGraph.build({1: {"terrain": "clear"}, 2: {"terrain": "hill"}, 3: {"terrain": "wood"}},
                        [(1, 2, ["approach"]), (2, 3, ["stream"], {"ford": True})])
    assert g.neighbours(2) == [1, 3]
    assert g.border(3, 2).has("stream") and g.border(2, 3).attrs["ford"]
    assert g.distance(1, 3) == 2 and g.connected()
    with pytest.raises(KeyError):
        g.border(1, 3)
    with pytest.raises(ValueError):
        AreaGraph.build({1: {}}, [(1, 9)])


class Table(Sourced):
    cells: list[int]
    column: int = Field(ge=-3, le=4)


def test_data_errors_name_file_field_expectation(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text("source: provisional\ncells: [1, 2]\ncolumn: 9\n")
    with pytest.raises(DataError) as e:
        load_yaml(f, Table)
    assert str(f) in str(e.value) and "column" in str(e.value) and "less than or equal to 4" in str(e.value)
    with pytest.raises(DataError, match="source"):
        parse_yaml("source: my guess\ncells: []\ncolumn: 0", Table, "x.yaml")
    with pytest.raises(DataError, match=r"cells\[1\]"):
        parse_yaml("source: provisional\ncells: [1, two]\ncolumn: 0", Table, "x.yaml")
    with pytest.raises(DataError, match="an existing file"):
        load_yaml(tmp_path / "missing.yaml", Table)
    t = parse_yaml("source: rulebook 9.8.3\ncells: [1]\ncolumn: 0", Table, "x.yaml")
    assert provenance_kind(t.source) == "rulebook"


def test_record_round_trip_and_replay(tmp_path):
    rec = GameRecord(game="demo", scenario="counter", seed=3).append({"kind": "add", "rule": "1", "n": 2},
                                                                      {"kind": "add", "rule": "1", "n": 5})
    path = tmp_path / "g.json"
    rec.save(path)
    back = GameRecord.load(path)
    assert back == rec
    states = replay_states(back, lambda r: 0, lambda s, e: s + e["n"])
    assert states == [0, 2, 7]
    assert back.truncated(1).events == rec.events[:1]
    data = json.loads(path.read_text())
    data["format_version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(RecordError, match="version"):
        GameRecord.load(path)
    from engine.core.errors import RuleViolation

    def apply(s, e):
        if e["n"] > 4:
            raise RuleViolation("6.3", "too far")
        return s + e["n"]
    with pytest.raises(RecordError, match="event 1"):
        replay_states(rec, lambda r: 0, apply)
