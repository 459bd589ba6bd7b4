"""Positions, set-ups and loaded data are values (issue 10): equal content, equal hash; no id() keys.

A scenario, map or tables file loaded twice gives two objects that compare and hash alike (each one's
fingerprint is a digest of its whole content, computed once when it is read); a file with one value
changed gives another fingerprint, so a game set up from it never shares a memo entry with the first.
"""
from pathlib import Path

from hypothesis import given, settings, strategies as st

from engine.lob.board import MAP_FILE, load_board
from engine.lob.setup import new_game
from engine.lob.state import Setup
from engine.lob.scenario import SCENARIO_FILE, load_scenario
from engine.lob.tables import TABLES_FILE, load_tables


def _changed_copy(tmp_path: Path, src: Path, old: str, new: str) -> Path:
    text = src.read_text(encoding="utf-8")
    assert old in text, f"the shipped {src.name} no longer holds {old!r}"
    out = tmp_path / src.name
    out.write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


def test_two_separately_loaded_equal_scenarios_hash_equal():
    a, b = load_scenario(SCENARIO_FILE), load_scenario(SCENARIO_FILE)
    assert a is not b                       # two loads, two objects
    assert a == b and hash(a) == hash(b) and a.fingerprint == b.fingerprint
    ga, gb = new_game(Setup(scenario=a)), new_game(Setup(scenario=b))
    assert ga.setup == gb.setup and hash(ga.setup) == hash(gb.setup)
    assert ga == gb and hash(ga) == hash(gb)
    assert {ga: "memo"}[gb] == "memo"       # a memo filled with one game answers for the other


def test_a_copy_of_the_scenario_file_elsewhere_is_the_same_value(tmp_path):
    # the fingerprint is of the content, not of the path it was read from
    same = _changed_copy(tmp_path, SCENARIO_FILE, "turns: 25", "turns: 25")
    assert load_scenario(same) == load_scenario(SCENARIO_FILE)


def test_a_changed_scenario_does_not_hash_equal(tmp_path):
    # the French start on 9 morale instead of 10 (Albuera set-up gives both sides 10)
    changed = load_scenario(_changed_copy(tmp_path, SCENARIO_FILE, "morale: {French: 10,", "morale: {French: 9,"))
    shipped = load_scenario(SCENARIO_FILE)
    assert changed != shipped and hash(changed) != hash(shipped) and changed.fingerprint != shipped.fingerprint
    g1, g2 = new_game(Setup(scenario=shipped)), new_game(Setup(scenario=changed))
    assert g1.setup != g2.setup and hash(g1.setup) != hash(g2.setup)
    assert g1 != g2


def test_equal_positions_of_games_with_other_data_do_not_meet(tmp_path):
    # one scenario value that does not show in the position (the number of turns, 25 -> 24): the units,
    # morale and turn are the same, the set-ups are not, so the positions are not equal
    shorter = load_scenario(_changed_copy(tmp_path, SCENARIO_FILE, "turns: 25", "turns: 24"))
    g1, g2 = new_game(Setup()), new_game(Setup(scenario=shorter))
    assert g1.units == g2.units and g1.morale == g2.morale
    assert g1 != g2 and len({g1, g2}) == 2


def test_maps_and_tables_are_values_too(tmp_path):
    b1, b2 = load_board(MAP_FILE), load_board(MAP_FILE)
    assert b1 is not b2 and b1 == b2 and hash(b1) == hash(b2)
    moved = load_board(_changed_copy(tmp_path, MAP_FILE, 'name: "Valverde road"', 'name: "Valverde way"'))
    assert moved != b1 and moved.fingerprint != b1.fingerprint
    t1, t2 = load_tables(TABLES_FILE), load_tables(TABLES_FILE)
    assert t1 is not t2 and t1 == t2 and hash(t1) == hash(t2)
    (tmp_path / "t").mkdir()
    t3 = load_tables(_changed_copy(tmp_path / "t", TABLES_FILE, "fixed: 4", "fixed: 3"))
    assert t3 != t1 and t3.fingerprint != t1.fingerprint
    assert new_game(Setup(board=b1, tables=t1)) == new_game(Setup(board=b2, tables=t2))
    assert new_game(Setup(tables=t3)) != new_game(Setup(tables=t1))


def test_a_changed_copy_of_a_model_gets_its_own_fingerprint():
    sc = load_scenario(SCENARIO_FILE)
    again = sc.model_copy()
    assert again == sc and again.fingerprint == sc.fingerprint
    other = sc.model_copy(update={"turns": 12})
    assert other.fingerprint != sc.fingerprint and other != sc


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=-5, max_value=40))
def test_fingerprint_equal_exactly_when_the_content_is(turns):
    # property: a scenario with ``turns`` changed is equal to the shipped one iff turns is 25
    sc = load_scenario(SCENARIO_FILE)
    other = sc.model_copy(update={"turns": turns})
    assert (other == sc) == (turns == 25)
    if turns == 25:
        assert hash(other) == hash(sc)                 # equal values hash alike
    assert (new_game(Setup(scenario=other)) == new_game(Setup(scenario=sc))) == (turns == 25)
