"""Odds page polish (issue 17 point 6): the CRT column in use, whole fractions without "/1"."""
from __future__ import annotations

from fractions import Fraction

from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.calculators.n20.results import _frac, results_html


def test_whole_numbers_and_minus_sign():
    assert _frac(Fraction(-1)) == "\u22121" and _frac(Fraction(1)) == "1" and _frac(Fraction(-2, 6)) == "\u22121/3"


def test_crt_column_in_use_is_shown():
    plan = BattlePlan.from_battle_file(example_battles()["n20_worked_example"])
    text = results_html(plan)
    # the worked example attacks on column +2 (9.0): 1 EX, 2 N, 3-4 DW, 5-6 DR on the shipped chart
    assert "one d6 on CRT column +2" in text and "data-column='2'" in text
    assert "<td data-die='3'>DW</td><td data-die='4'>DW</td>" in text
    assert "/1<" not in text and "/1 " not in text    # whole numbers shown as "0", "1", "−1"
