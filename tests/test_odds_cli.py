"""``vedette GAME odds --record F ACTION`` for every system (issue 26 point 1): the exact odds of one action in
a record's position, by the same engine.core.odds.action_odds the play page uses; refusals as ``act``'s.

Each record is written by greedy play from a fixed seed through core's Session (the seeding rule of
tests/core/test_action_odds.py), so each test sees the same position every run."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from engine.cli import main
from engine.core import odds as core_odds
from engine.core.game import RandomDice, Session, _make_bots, action_seed
from engine.core.odds import action_odds
from engine.systems import system_of


def record_until(tmp_path, system: str, seed: int, stop, limit: int = 600):
    """Greedy play from ``seed`` until ``stop(rules, state, legal)`` names an action; the record is saved."""
    rules = system_of(system)
    players = _make_bots(rules, ("greedy", "greedy"), seed)
    s = Session.new(rules, None, (), seed)
    for n in range(limit):
        st = s.state
        legal = rules.legal_actions(st)
        hit = stop(rules, st, legal)
        if hit is not None:
            path = tmp_path / f"{system}.json"
            s.record.save(path)
            return rules, s.state, hit, str(path)
        bot = players[rules.to_act(st)]
        s.act(bot.choose_action(rules, st, legal), dice=RandomDice(action_seed(seed, n)),
              chooser=lambda r, b=bot, st=st: players.get(r.player, b).choose(r, st))
    raise AssertionError("the position was not reached")


def run(capsys, *argv):
    try:
        rc = main(list(argv))
    except SystemExit as exc:           # argparse's usage errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 else None), err


def frac(d) -> Fraction:
    return Fraction(d["fraction"])


def by_label(out) -> dict[str, Fraction]:
    return {o["label"]: frac(o["probability"]) for o in out["outcomes"]}


def test_n20_a_declared_battle_resolved(tmp_path, capsys):
    rules, st, a, rec = record_until(tmp_path, "n20", 1, lambda r, s, l: next((a for a in l if a.kind == "resolve"), None))
    rc, out, err = run(capsys, "n20", "odds", "--record", rec, rules.format_action(a))
    assert rc == 0, err
    # FHEU (2) attacks A6 (4): differential -2, column -2 (9.4); the d6 reads AR on 2 faces, AW on 2, DW on
    # 1 and N on 1 (tests/core/test_action_odds.py works the column out). On AR the attacker routs d6 hexes
    # (9.6.2), and a rout of 3+ hexes costs the French a Morale Point: E[French morale] = -(2/6 * 4/6) = -2/9
    assert out["rule"] == "9.0" and frac(out["total_probability"]) == 1
    assert frac(out["expected"]["morale.french"]) == Fraction(-2, 9)
    assert sum(p for lab, p in by_label(out).items() if "attacker routs" in lab) == Fraction(1, 3)
    assert by_label(out)["both sides hold"] == Fraction(1, 6)
    # the battle file verb of n20 is unchanged: without --record its argument is a battle file
    assert main(["n20", "odds", "data/examples/n20_worked_example.yaml"]) == 0


def test_lob_artillery_fire(tmp_path, capsys):
    rules, st, a, rec = record_until(tmp_path, "lob", 1, lambda r, s, l: next(
        (a for a in l if a.kind == "fire" and a.units == ("F-ResArt",) and a.target == "A-Head"), None))
    rc, out, err = run(capsys, "lob", "odds", "-r", rec, "fire F-ResArt at A-Head")
    assert rc == 0, err
    # 4.2.1: one d6, no modifier, at A-Head, light cavalry of rating 1 (two hits eliminate it, 1.2), in the
    # open. 1-3: no effect (3 faces, 1/2). 4-5: a hit or a retreat, the target's choice, answered by the
    # first listed option, "hit" (2 faces, 1/3: "takes 1 hit"). 6: a certain hit and then the same choice,
    # "hit": two hits, eliminated (1/6), costing the Allies its rating, 1 morale point (5.3 via 4.2.1):
    # E[Allied morale] = -1 * 1/6 = -1/6
    assert by_label(out) == {"target unhurt": Fraction(1, 2), "target takes 1 hit": Fraction(1, 3),
                             "target eliminated; Allied morale -1": Fraction(1, 6)}
    assert frac(out["expected"]["morale.Allied"]) == Fraction(-1, 6)
    assert out["rule"] == "4.2.1" and out["to_act"] == "French" and out["says"].endswith("(4.2.1)")


def test_tbf_and_bc_print_what_the_page_computes(tmp_path, capsys):
    for system, pick in (("tbf", lambda r, s, l: next(iter(r.attack_candidates(s)), None) if r.to_act(s) else None),
                         ("bc", lambda r, s, l: next((a for a in r.attack_candidates(s) if "fire" in r.format_action(a)),
                                                     None) if r.to_act(s) else None)):
        rules, st, a, rec = record_until(tmp_path, system, 1, pick)
        rc, out, err = run(capsys, system, "odds", "--record", rec, json.dumps(rules.action_to_json(a)))
        assert rc == 0, err
        want = action_odds(rules, st, a).to_json()
        assert {k: out[k] for k in want} == want and frac(out["total_probability"]) == 1


def test_an_action_the_position_refuses_is_one_line_naming_the_rule(tmp_path, capsys):
    rules, st, a, rec = record_until(tmp_path, "lob", 1, lambda r, s, l: next(
        (a for a in l if a.kind == "fire" and a.units == ("F-ResArt",)), None))
    before = open(rec).read()
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, "fire F-ResArt at A-Nobody")
    assert rc == 2 and err.count("\n") == 1 and "rule 1.2" in err and open(rec).read() == before
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, "rally F-Nobody")
    assert rc == 2 and err.count("\n") == 1 and "[rule" in err


def test_odds_past_the_bound_name_it_and_how_far_they_got(tmp_path, capsys, monkeypatch):
    rules, st, a, rec = record_until(tmp_path, "lob", 1, lambda r, s, l: next((a for a in l if a.kind == "attack"), None))
    monkeypatch.setattr(core_odds, "MAX_STEPS", 400)
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, rules.format_action(a))
    assert rc == 2 and err.count("\n") == 1
    assert "enumeration steps: at most 400" in err and "when it stopped" in err
    monkeypatch.undo()
    monkeypatch.setattr(core_odds, "MAX_OUTCOMES", 1)
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, rules.format_action(a))
    assert rc == 2 and "end positions: at most 1: more than 1" in err


def test_the_bounds_may_be_given_on_the_command_line(tmp_path, capsys):
    rules, st, a, rec = record_until(tmp_path, "lob", 1, lambda r, s, l: next((a for a in l if a.kind == "attack"), None))
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, rules.format_action(a), "--max-steps", "300")
    assert rc == 2 and "enumeration steps: at most 300" in err
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, rules.format_action(a), "--max-outcomes", "1")
    assert rc == 2 and "end positions: at most 1: more than 1" in err
    rc, out, err = run(capsys, "lob", "odds", "--record", rec, rules.format_action(a), "--max-steps", "0")
    assert rc == 2 and "--max-steps" in err
