"""View model of the odds explorer (param level): the plan -> the engine's exact odds, errors leave it unchanged."""
from __future__ import annotations

import re
from fractions import Fraction

import yaml
from hypothesis import given, settings, strategies as st

from dashboards.calculators.n20.battle_form import BattlePlan, UnitEntry, example_battles
from dashboards.calculators.n20.odds_view import plan_inputs
from dashboards.calculators.n20.results import results_html
from dashboards.common.uploads import FileLoader
from engine import n20
from engine.core.data import data_path

WORKED = example_battles()["n20_worked_example"]


def test_worked_example_after_9_9_8_gives_differential_plus_2():
    # 4 + 2 + 1 = 7 attacking; 3 + 1 (forest, 9.4) + 1 (defender's reserve, 12.5) = 5 defending -> +2
    plan = BattlePlan.from_battle_file(WORKED)
    assert plan.error == ""
    assert (plan.result.attack, plan.result.defence, plan.result.differential) == (7, 5, 2)
    assert sum(plan.result.crt.values()) == 1


def test_rule_9_0_changing_a_strength_recomputes_at_once():
    plan = BattlePlan.from_battle_file(WORKED)
    rev = plan.revision
    plan.attackers[0].strength = 6            # 9 - 5 = +4
    assert plan.revision > rev and plan.result.differential == 4
    plan.reserves_defender = False            # 9 - 4 = +5
    assert plan.result.differential == 5


def test_rule_9_8_3_bad_hazard_text_is_an_error_and_the_last_result_stays():
    plan = BattlePlan.from_battle_file(WORKED)
    before = plan.result
    plan.defenders[0].hazards = "1,x"
    assert "hazards must be whole numbers" in plan.error
    assert plan.result is before
    plan.defenders[0].hazards = "1,1"
    assert plan.error == "" and plan.result is not before


def test_rule_9_0_a_battle_needs_both_sides():
    plan = BattlePlan.from_battle_file(WORKED)
    plan.defenders = []
    assert "at least one attacker and one defender" in plan.error


def test_battle_data_round_trips_through_the_battle_file_format():
    plan = BattlePlan.from_battle_file(WORKED)
    again = BattlePlan()
    again.load_battle_data(plan.battle_data())
    assert again.result.outcomes == plan.result.outcomes


def test_plan_b_copies_plan_a_and_then_differs():
    a = BattlePlan.from_battle_file(WORKED)
    b = BattlePlan(title="Plan B")
    b.copy_from(a)
    assert b.result.outcomes == a.result.outcomes
    b.terrain = "clear"                        # 7 - (3 + 0 + 1) = +3
    assert b.result.differential == 3 and a.result.differential == 2


def test_uploaded_tables_replace_the_crt_and_a_bad_file_changes_nothing(tmp_path):
    plan = BattlePlan.from_battle_file(WORKED)
    plan_inputs(plan)                          # builds the upload widget
    up: FileLoader = plan._uploader
    before = plan.result
    assert not up.accept_upload(b"crt: [not, a, table]\n", "mine.yaml")
    assert "mine.yaml" in up.error and plan.result is before and plan.tables is None
    # a copy of the shipped v3 tables whose column +2 is all DB: the defender must then always break
    data = yaml.safe_load(data_path("n20", "tables_v3.yaml").read_text(encoding="utf-8"))
    i = data["crt"]["columns"].index(2)
    for die in data["crt"]["rows"]:
        data["crt"]["rows"][die][i] = "DB"
    assert up.accept_upload(yaml.safe_dump(data).encode(), "all_db.yaml")
    assert plan.tables is not None and plan.result.crt == {"DB": Fraction(1)}
    assert plan.result.summary["defender_broken"] == 1
    assert "CRT: provisional · your file" in results_html(plan)   # its own kind, from your file (issue 17)
    plan.reset_tables()
    assert plan.result.outcomes == before.outcomes


@settings(max_examples=25, deadline=None)
@given(att=st.lists(st.integers(0, 8), min_size=1, max_size=3), dfn=st.integers(0, 6),
       terrain=st.sampled_from(["clear", "forest", "town", "fortified"]))
def test_the_bars_shown_sum_to_exactly_one(att, dfn, terrain):
    """Property: whatever the strengths, the CRT bars on the page hold fractions summing to exactly 1."""
    plan = BattlePlan()
    with plan.hold():
        plan.attackers = [UnitEntry(uid=f"a{i}", strength=s) for i, s in enumerate(att)]
        plan.defenders = [UnitEntry(uid="d", strength=dfn)]
        plan.terrain = terrain
    assert plan.error == ""
    page = results_html(plan)
    crt = page.split("crt-bars")[1].split("</table>")[0]
    fracs = [Fraction(f) for f in re.findall(r"data-fraction='(\d+/\d+)'", crt)]
    assert sum(fracs) == 1
    assert plan.result.differential == sum(att) - dfn - n20.default_tables("v3").terrain_combat(terrain)
