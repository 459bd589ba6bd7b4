"""Bad input: a clear message naming file, field and expectation, exit code 2, nothing printed as an answer.
And the CLI verbs on the shipped examples."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine import cli, n20
from engine.core.errors import DataError

from n20_battle_helpers import EXAMPLES, ROOT

GOOD = {"attackers": [{"id": "a", "type": "infantry", "strength": 3}],
        "defenders": [{"id": "d", "type": "infantry", "strength": 2}]}


def write(tmp_path: Path, name: str, data) -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return p


def run_cli(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("mutate, field, words", [
    (lambda d: d["attackers"][0].update(type="dragon"), "attackers[0].type", "infantry"),
    (lambda d: d["defenders"][0].update(strength=-1), "defenders[0].strength", "greater than or equal to 0"),
    (lambda d: d.update(terrain="lava"), "terrain", "TEC"),
    (lambda d: d.update(colour="red"), "colour", "documented field names"),
    (lambda d: d.update(paths={"ghost": [1]}), "paths.ghost", "id of an attacking or defending unit"),
])
def test_bad_battle_file_exits_2_and_names_file_field_expectation(tmp_path, capsys, mutate, field, words):
    data = json.loads(json.dumps(GOOD))
    mutate(data)
    p = write(tmp_path, "battle.yaml", data)
    with pytest.raises(DataError) as e:
        n20.load_battle(p)
    assert e.value.field == field and str(p) in str(e.value) and words in str(e.value)
    code, out, err = run_cli(["n20", "odds", str(p)], capsys)
    assert code == 2 and out == "" and field in err


def _tables_text() -> str:
    return (ROOT / "data" / "n20" / "tables_v3.yaml").read_text(encoding="utf-8")


def test_crt_with_a_missing_cell_is_refused(tmp_path, capsys):
    text = _tables_text().replace("3: [AR, AR, AW, AW, N,  DW, DW, DW, DR, DR, DB]", "3: [AR, AR, AW, AW, N,  DW, DW, DW, DR, DR]")
    assert text != _tables_text()
    t = write(tmp_path, "tables.yaml", text)
    b = write(tmp_path, "battle.yaml", GOOD)
    code, out, err = run_cli(["n20", "odds", str(b), "--tables", str(t)], capsys)
    assert code == 2 and out == ""
    assert "tables.yaml" in err and "crt" in err and "rows.3" in err and "11 cells" in err


@pytest.mark.parametrize("text, field", [
    ("edition: v3\nsource: provisional\n", "crt"),
    ("[1, 2", "line"),
    (None, "crt.rows"),
])
def test_malformed_tables_files(tmp_path, text, field):
    if text is None:
        text = _tables_text().replace("    6: [N,  N,  DW", "    6: [N,  XX, DW")
    t = write(tmp_path, "t.yaml", text)
    with pytest.raises(DataError) as e:
        n20.load_tables(t)
    assert field in str(e.value) and "t.yaml" in str(e.value)


def test_terrain_missing_from_a_users_tec(tmp_path):
    text = _tables_text().replace("    forest:    {combat: 1", "    # forest removed\n    rough2:    {combat: 1")
    t = write(tmp_path, "t.yaml", text)
    with pytest.raises(DataError):
        n20.load_tables(t)         # unknown terrain name in the TEC
    text = _tables_text().replace('    forest:    {combat: 1, movement: {cost: 1, stop: true},  source: "rulebook example after 9.9.8"}\n', "")
    t = write(tmp_path, "t2.yaml", text)
    with pytest.raises(DataError) as e:
        n20.load_battle(EXAMPLES / "n20_worked_example.yaml", tables=t)
    assert e.value.field == "terrain" and "TEC" in e.value.expected


def test_edition_mismatch_between_battle_and_tables(tmp_path):
    p = write(tmp_path, "b.yaml", {**GOOD, "edition": "v2"})
    with pytest.raises(DataError) as e:
        n20.load_battle(p, tables=n20.default_tables("v3"))
    assert e.value.field == "edition"


def test_illegal_battle_is_a_rule_violation_exit_2(tmp_path, capsys):
    p = write(tmp_path, "b.yaml", {**GOOD, "reserves": {"defender": True},
                                   "defenders": [{"id": "g", "type": "garrison", "strength": 2}]})
    code, out, err = run_cli(["n20", "odds", str(p)], capsys)
    assert code == 2 and out == "" and "9.4.4" in err


def test_cli_odds_json_has_the_documented_fields(capsys):
    code, out, err = run_cli(["n20", "odds", str(EXAMPLES / "n20_worked_example.yaml")], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["differential"] == 2 and d["column"] == 2
    assert d["crt"]["DR"] == {"fraction": "1/3", "float": pytest.approx(1 / 3)}
    for key in ("defender_broken", "attacker_broken", "defender_dislodged", "expected_morale"):
        assert key in d["summary"]
    assert set(d["summary"]["expected_morale"]) == {"french", "allied"}
    assert d["total_probability"]["fraction"] == "1/1"
    assert all("morale" in o and "probability" in o for o in d["outcomes"])
    assert d["tables"]["crt"]["kind"] == "provisional"


def test_cli_tree_json_and_text(capsys):
    code, out, _ = run_cli(["n20", "tree", str(EXAMPLES / "n20_map_battle.yaml")], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["total_probability"]["fraction"] == "1/1"
    root = d["tree"]
    assert root["rule"] == "9.0" and all("probability" in c for c in root["children"])
    assert "9.0 F" in json.dumps(d["subtrees"][root["subtree"]])   # the CRT roll inside steps B-F
    code, out, _ = run_cli(["n20", "tree", str(EXAMPLES / "n20_worked_example.yaml"), "--text", "--max-depth", "1"],
                           capsys)
    assert code == 0 and "rule 9.0)" in out


def test_cli_fight_with_typed_dice(capsys):
    code, out, _ = run_cli(["n20", "fight", str(EXAMPLES / "n20_worked_example.yaml"), "--dice", "6,2,5,3"], capsys)
    assert code == 0
    d = json.loads(out)
    assert d["outcome"]["result"] == "DR"
    code, out, err = run_cli(["n20", "fight", str(EXAMPLES / "n20_worked_example.yaml"), "--dice", "7"], capsys)
    assert code == 2 and out == "" and "d6" in err
    code, out, err = run_cli(["n20", "fight", str(EXAMPLES / "n20_worked_example.yaml"), "--dice", "6"], capsys)
    assert code == 2 and out == ""     # typed dice ran out before the battle ended


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("n20_*battle*.yaml")) + ["n20_worked_example.yaml"])
def test_every_example_battle_resolves(name):
    res = n20.odds(EXAMPLES / name)
    assert res.outcomes.total == 1
    text = json.dumps(res.to_json())                      # JSON-able throughout
    assert json.loads(text)["total_probability"]["fraction"] == "1/1"
    df = res.dataframe()
    assert len(df) == len(res.outcomes) and abs(df["probability"].sum() - 1) < 1e-9
