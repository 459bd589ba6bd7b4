"""Lines of Battle on the core game protocol: the conformance suite (engine.core.conformance) on Albuera,
round trips of actions and positions (hypothesis), old records, outcomes, invariants, bots, and the
game verbs of the CLI with their older spellings and bad input."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.cli import main
from engine.core.conformance import check_game
from engine.core.errors import RecordError, RuleViolation, VedetteError
from engine.core.game import Session, action_seed, play_game, replay, system_of
from engine.core.procedure import RandomDice, TypedDice
from engine.core.record import GameRecord
from engine.lob.actions import Action
from engine.lob.setup import new_game
from engine.lob.protocol import ACTION_TYPES, ENGINE_VERSION, LobRules, parse_options
from engine.lob.records import Session as LobSession, replay_record

R = LobRules()


# ------------------------------------------------------------------------------------------------
# The conformance suite
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed,options", [(0, ()), (1, ("leaders", "light-cavalry")), (2, ("setup", "rain"))])
def test_conformance_first_actions(seed, options):
    rep = check_game(R, "albuera", options=options, seed=seed, max_actions=40)
    assert rep.actions == 40 and rep.illegal_refused > 0 and rep.legal_applied > 0
    assert rep.rules_cited                            # every refusal named a rule


@pytest.mark.slow
def test_conformance_a_whole_game():
    rep = check_game(R, "albuera", seed=3, max_actions=2000, apply_sample=1, illegal_sample=2, full_state_every=4)
    assert rep.over and isinstance(rep.outcome.reason, str) and rep.outcome.rule


@pytest.mark.slow
@pytest.mark.parametrize("seed,options", [(s, o) for s in range(10, 14)
                                          for o in [(), ("kemmis", "madden", "spanish-no-show", "leaders"),
                                                    ("setup-allied", "rain", "bid:French=2")]])
def test_conformance_whole_games_slow(seed, options):
    rep = check_game(R, "albuera", options=options, seed=seed, max_actions=3000)
    assert rep.over


def test_registered_under_lob():
    rules = system_of("lob")
    assert isinstance(rules, LobRules) and rules.sides == ("French", "Allied")
    assert set(rules.options()) >= {"leaders", "light-cavalry", "kemmis", "madden", "spanish-no-show", "rain",
                                    "setup", "bid"}
    assert all(rules.options().values())               # each names the rule it implements
    m = rules.metrics(rules.new_game())
    # the printed set-up: 17 French and 22 Allied units, the Allies in Albuera and on 28, morale 10 each
    assert (m["units_map.French"], m["units_map.Allied"], m["morale.French"]) == (17, 22, 10)
    assert m["holds_Albuera.Allied"] == m["holds_28.Allied"] == 1 and m["holds_28.French"] == 0


# ------------------------------------------------------------------------------------------------
# Actions: JSON and text both ways, bad shapes named by field
# ------------------------------------------------------------------------------------------------
ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8)
plain_ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9:-]{0,7}", fullmatch=True)


@st.composite
def actions(draw, name=ids):
    t = draw(st.sampled_from(ACTION_TYPES))
    end = draw(st.sampled_from(["area", "square", "line", "deploy"]) | name.map(lambda x: "approach:" + x)) \
        if t == "move" else "area"
    return Action(t, units=tuple(draw(st.lists(name, max_size=3))), path=tuple(draw(st.lists(name, max_size=3))),
                  area=draw(st.none() | name), target=draw(st.none() | name), end=end)


@settings(max_examples=150, deadline=None)
@given(actions() | actions(plain_ids))
def test_action_json_and_text_round_trip(a):
    assert R.action_from_json(json.loads(json.dumps(R.action_to_json(a)))) == a
    assert R.parse_action(R.format_action(a)) == a


def test_text_notation_examples():
    # the notation of each kind of action, read back to the same value
    for text, a in [("end-admin", Action("end-admin")), ("activate 75", Action("activate", area="75")),
                    ("activate 75 by Soult", Action("activate", area="75", units=("Soult",))),
                    ("move F-Dellard,F-Schwitter via 19", Action("move", units=("F-Dellard", "F-Schwitter"), path=("19",))),
                    ("move F-Brayer via 67>72 end approach:65",
                     Action("move", units=("F-Brayer",), path=("67", "72"), end="approach:65")),
                    ("move A-Myers end square", Action("move", units=("A-Myers",), end="square")),
                    ("attack Albuera with F-Briche,F-Arenberg", Action("attack", units=("F-Briche", "F-Arenberg"), target="Albuera")),
                    ("fire F-ResArt at A-Head", Action("fire", units=("F-ResArt",), target="A-Head")),
                    ("place A-KGL in 16", Action("place", units=("A-KGL",), area="16"))]:
        assert R.parse_action(text) == a and R.format_action(a) == text
    # an id the notation cannot carry prints as JSON, which reads back too
    odd = Action("activate", area="a b")
    assert R.format_action(odd).startswith("{") and R.parse_action(R.format_action(odd)) == odd


@pytest.mark.parametrize("data,field", [
    ({"type": "activate", "area": ["75"]}, "area"), ({"type": "activate", "area": {"id": "75"}}, "area"),
    ({"type": "move", "units": 5, "path": ["19"]}, "units"), ({"type": "move", "units": ["F-Vare"], "path": 19}, "path"),
    ({"type": "move", "units": ["F-Vare"], "path": ["19"], "end": 5}, "end"), ({"type": 3}, "type"),
    ({"type": "fly"}, "type"), ({"type": "fire", "units": ["F-ResArt"], "target": ["A-Head"]}, "target"),
    ({"type": "end-phase", "end": "square"}, "end"), ({"type": "move", "units": [None]}, "units")])
def test_action_of_the_wrong_shape_names_the_field(data, field):
    with pytest.raises(VedetteError, match=f"'{field}'"):
        R.action_from_json(data)


@pytest.mark.parametrize("text", ["", "move", "move F-Vare", "move F-Vare via", "attack 23", "activate",
                                  "fire F-ResArt A-Head", "move F-Vare via 19>>20", "teleport F-Vare"])
def test_bad_text_notation_is_refused(text):
    with pytest.raises(VedetteError, match="action"):
        R.parse_action(text)


# ------------------------------------------------------------------------------------------------
# Positions
# ------------------------------------------------------------------------------------------------
def _positions(seed: int, n: int, options=()):
    out = []
    play_game(R, ("random", "random"), options=options, seed=seed, max_actions=n,
              on_action=lambda s, i: out.append(s))
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n=st.integers(1, 80),
       options=st.sampled_from([(), ("leaders",), ("rain", "kemmis"), ("setup", "bid:Allied=1")]),
       morale=st.integers(-5, 30), rain=st.booleans())
def test_state_json_round_trip(seed, n, options, morale, rain):
    g = _positions(seed, n, options)[-1]
    g = replace(g, rain=rain).add_morale({"French": morale - g.morale_of("French")})
    data = json.loads(json.dumps(R.state_to_json(g)))
    back = R.state_from_json(data)
    assert back == g and back.setup.options == g.setup.options and back.setup.morale_bid == g.setup.morale_bid
    assert R.state_to_json(back) == data
    # the rebuilt position plays on exactly as the original
    assert R.legal_actions(back) == R.legal_actions(g)


def test_state_from_json_names_the_bad_field():
    data = R.state_to_json(new_game())
    for key, bad, field in [("turn", "one", "turn"), ("units", {"x": 1}, "units"), ("rallied", "F-Vare", "rallied")]:
        with pytest.raises(VedetteError, match=field):
            R.state_from_json({**data, key: bad})
    broken = json.loads(json.dumps(data))
    broken["units"][0]["hits"] = "two"
    with pytest.raises(VedetteError, match=r"units\[0\]\.hits"):
        R.state_from_json(broken)
    with pytest.raises(VedetteError, match="option"):
        R.state_from_json({**data, "setup": {"scenario": "albuera", "options": ["flying"]}})


# ------------------------------------------------------------------------------------------------
# Outcomes, invariants, options
# ------------------------------------------------------------------------------------------------
def test_outcome_values():
    g = new_game()
    assert R.outcome(g) is None and R.to_act(g) == "French" and str(R.position(g)) == "turn 1, admin"
    over = replace(g, phase="over", winner="Allied", reason="French morale at zero or less")
    oc = R.outcome(over)
    assert (oc.winner, oc.level, oc.rule) == ("Allied", "morale", "6") and R.to_act(over) is None
    draw = replace(g, phase="over", winner="draw", reason="both sides' morale at zero or less")
    assert R.outcome(draw).winner is None and R.outcome(draw).level == "draw"
    # the scenario's other endings, as the engine words them
    from engine.lob.victory import end_of_game as _end_of_game, sudden_death as _sudden_death
    rear = _sudden_death(g.with_units([replace(g.unit("F-Brayer"), area="1")]))    # French infantry in area 1
    assert (R.outcome(rear).winner, R.outcome(rear).level) == ("French", "sudden death")
    held = _end_of_game(g)                                   # the Allies still hold Albuera and 28
    assert (R.outcome(held).winner, R.outcome(held).level) == ("Allied", "objectives")
    shared = g.with_units([replace(u, area=None, hits=u.rating + 1) for u in g.units if u.area == "Albuera"])
    shared = shared.with_units([replace(shared.unit("F-Dulong"), area="Albuera")])
    # objectives shared, morale 10 to 10 (no loss was booked): the side last in Albuera, the Allies, wins
    assert (R.outcome(_end_of_game(shared)).winner, R.outcome(_end_of_game(shared)).level) == ("Allied", "last in Albuera")
    higher = shared.add_morale({"French": 1})
    assert (R.outcome(_end_of_game(higher)).winner, R.outcome(_end_of_game(higher)).level) == ("French", "morale at the end")


def test_invariants_catch_broken_positions():
    g = new_game()
    assert R.invariants(g) == []
    mixed = g.with_units([replace(g.unit("F-Brayer"), area="10")])       # 10 holds Stewart's Allies
    assert any(p.startswith("1.1") for p in R.invariants(mixed))
    low = g.add_morale({"French": -3})                                  # no unit lost: 10 - 0 is the floor
    assert any(p.startswith("5.3") for p in R.invariants(low))
    assert any(p.startswith("2") for p in R.invariants(replace(g, turn=26)))


def test_options_in_both_record_spellings_and_the_bid():
    # the older record form {"rules": [...], "bid": {...}} and the protocol's {"options": [...]} agree
    a = R.new_game("albuera", {"rules": ["kemmis"], "bid": {"French": 2}})
    b = R.new_game("albuera", ["kemmis", "bid:French=2"])
    assert a == b and a.morale_of("French") == 8 and len(a.units) == 40       # 10 - 2; 39 + Kemmis
    assert R.record_options(a) == {"options": ["bid", "kemmis"], "bid": {"French": 2}}
    assert parse_options(R.record_options(a)) == (frozenset({"bid", "kemmis"}), {"French": 2})
    for bad in (["flying"], {"rules": "kemmis"}, {"options": [], "bid": {"Prussian": 1}}, ["bid:French=-1"],
                {"options": [], "bid": {"French": True}}):
        with pytest.raises(VedetteError):
            R.new_game("albuera", bad)
    with pytest.raises(VedetteError, match="scenario"):
        R.new_game("talavera")


# ------------------------------------------------------------------------------------------------
# Records: one record, one replay, old records
# ------------------------------------------------------------------------------------------------
def test_old_records_replay_and_other_versions_are_refused():
    s = LobSession.start(options=["kemmis"], seed=4, bid={"Allied": 1})
    for a in ("end-admin", "activate 75", "end-phase"):
        s.do(R.parse_action(a))
    data = s.record.to_json()
    assert data["engine_version"] == ENGINE_VERSION and data["options"] == {"options": ["bid", "kemmis"],
                                                                           "bid": {"Allied": 1}}
    # a record of the older LoB code: no version, options under "rules", events without "side"
    old = {**data, "engine_version": "", "options": {"rules": ["kemmis"], "bid": {"Allied": 1}},
           "events": [{k: v for k, v in e.items() if k != "side"} for e in data["events"]]}
    assert replay_record(GameRecord.from_json(old))[-1] == s.state
    assert replay(R, GameRecord.from_json({**data, "engine_version": "lob-game-1"}))[-1] == s.state
    with pytest.raises(RecordError, match="engine_version.*lob-game-0"):
        replay(R, GameRecord.from_json({**data, "engine_version": "lob-game-0"}))
    with pytest.raises(RecordError, match="'game'"):
        replay(R, GameRecord.from_json({**data, "game": "n20"}))


def test_old_session_is_core_session_with_the_one_seeding_rule():
    s = LobSession.start(seed=11)
    s.do(Action("end-admin"))
    s.do(Action("activate", area="25"))
    s.do(Action("move", units=("F-Dellard", "F-Schwitter"), path=("19",)))
    c = Session.new(R, "albuera", {"options": []}, 11)
    for a in ("end-admin", "activate 25", "move F-Dellard,F-Schwitter via 19"):
        c.act(a)
    assert c.record.events == s.record.events and c.state == s.state
    before = s.states[-2]
    assert s.undo() == before and len(s.record.events) == 2
    with pytest.raises(RuleViolation):
        s.do(Action("activate", area="10"))          # an Allied area on the French go: nothing recorded
    assert len(s.record.events) == 2


def test_greedy_game_through_play_game_replays():
    final, rec = play_game(R, ("greedy", "greedy"), seed=2)
    assert R.outcome(final) is not None
    assert replay(R, GameRecord.loads(rec.dumps()))[-1] == final
    # greedy picks the same action from its own short list as from the full legal list
    from engine.lob.bots import GreedyBot
    b1, b2 = GreedyBot(seed=5), GreedyBot(seed=5)
    for g in replay(R, rec)[:-1:15]:
        assert b1.choose_action(R, g, None) == b2.choose_action(R, g, R.legal_actions(g))


def test_questions_go_to_the_bot_of_the_side_asked():
    from engine.lob.bots import GreedyBot, RandomBot

    class Spy(RandomBot):
        def choose(self, req, state=None):
            asked.append(req.player)
            return super().choose(req, state)

    asked: list = []
    play_game(R, {"French": GreedyBot(seed=1), "Allied": Spy(seed=2)}, seed=6, max_actions=150)
    assert asked and set(asked) <= {"Allied", ""}


# ------------------------------------------------------------------------------------------------
# The game verbs of the CLI
# ------------------------------------------------------------------------------------------------
def run(capsys, *argv):
    rc = main(["lob", *argv])
    out, err = capsys.readouterr()
    return rc, (json.loads(out) if rc == 0 and out.strip() else None), err


def test_cli_game_verbs_and_the_older_spellings(tmp_path, capsys):
    rec = str(tmp_path / "g.json")
    rc, out, err = run(capsys, "new", "--options", "kemmis", "--bid", "French=2", "--seed", "5", "--record", rec)
    assert rc == 0 and out["morale"]["French"] == 8 and out["to_act"] == "French"
    assert GameRecord.load(rec).options == {"options": ["bid", "kemmis"], "bid": {"French": 2}}
    assert run(capsys, "act", "--record", rec, "end-admin")[0] == 0                # --record FILE
    assert run(capsys, "act", rec, '{"type": "activate", "area": "75"}')[0] == 0  # the record first (older)
    rc, out, err = run(capsys, "legal", rec)
    assert rc == 0 and "end-phase" in [x["text"] for x in out["legal"]] and out["state"]["cp"] == 3
    rc, out, err = run(capsys, "legal", "--record", rec, "--upto", "1")
    assert out["phase"] == "command" and "activate 75" in [x["text"] for x in out["legal"]]
    rc, out, err = run(capsys, "replay", rec, "--upto", "0")
    assert out["phase"] == "admin" and out["events_replayed"] == 0
    rc, out, err = run(capsys, "replay", rec, "--turn", "1", "--units")
    assert rc == 0 and out["turn"] == 1 and len(out["units"]) == 40
    rc, out, err = run(capsys, "undo", rec)
    assert rc == 0 and out["events"] == 1
    rc, out, err = run(capsys, "undo", "--record", rec, "-n", "1")
    assert rc == 0 and out["events"] == 0
    rc, out, err = run(capsys, "legal")                                        # no record: the set-up
    assert rc == 0 and [x["text"] for x in out["legal"]][-1] == "end-admin"
    rc, out, err = run(capsys, "play", "--seed", "3", "--bots", "greedy,random", "--bid", "Allied=1",
                       "--record", str(tmp_path / "p.json"))
    assert rc == 0 and out["finished"] and out["outcome"]["rule"] and out["actions"] == out["events"]
    assert {"winner", "reason", "turn", "morale", "record", "eliminated"} <= set(out)   # the older play keys
    assert GameRecord.load(tmp_path / "p.json").options["bid"] == {"Allied": 1}


def test_cli_same_options_as_every_system():
    """The game verbs of `vedette lob` take every option core gives every system."""
    import argparse
    from engine.cli import build_parser
    from engine.core.game_cli import register_game_verbs
    bare = argparse.ArgumentParser().add_subparsers()
    register_game_verbs(bare, LobRules)
    lob = build_parser()._subparsers._group_actions[0].choices["lob"]._subparsers._group_actions[0].choices
    for verb, p in bare.choices.items():
        core_opts = {o for a in p._actions for o in a.option_strings}
        lob_opts = {o for a in lob[verb]._actions for o in a.option_strings}
        assert core_opts <= lob_opts, (verb, core_opts - lob_opts)
    assert {"--scenario", "--options", "--seed", "--record"} <= {o for a in lob["new"]._actions for o in a.option_strings}
    assert {"--dice", "--choices", "--record"} <= {o for a in lob["act"]._actions for o in a.option_strings}
    assert {"--turn", "--upto"} <= {o for a in lob["replay"]._actions for o in a.option_strings}
    assert "--bots" in {o for a in lob["play"]._actions for o in a.option_strings}


@pytest.mark.parametrize("argv", [
    ['{"type": "activate", "area": ["75"]}'], ['{"type": "activate", "area": {"id": "75"}}'],
    ['{"type": "move", "units": ["F-Brayer"], "path": ["67"], "end": 5}'], ['{"type": "move", "units": 5}'],
    ["activate 75", "--dice", "x"], ["activate 75", "--choices", "notjson"], ["activate 75", "--dice", "3"],
    ["activate 10"], ["teleport F-Vare"], ["{not json"]])
def test_cli_act_bad_input_exit_2_one_line_record_untouched(tmp_path, capsys, argv):
    rec = tmp_path / "g.json"
    assert run(capsys, "new", "--record", str(rec))[0] == 0
    assert run(capsys, "act", str(rec), "end-admin")[0] == 0
    before = rec.read_bytes()
    rc, out, err = run(capsys, "act", str(rec), *argv)
    assert rc == 2 and len(err.strip().splitlines()) == 1 and err.startswith("vedette: error:")
    assert rec.read_bytes() == before


def test_cli_act_on_a_missing_record_keeps_it_only_if_the_action_is_played(tmp_path, capsys):
    rec = tmp_path / "new.json"
    rc, out, err = run(capsys, "act", str(rec), "activate 75")          # admin phase: refused (3)
    assert rc == 2 and "3" in err and not rec.exists()
    rc, out, err = run(capsys, "act", str(rec), "end-admin", "--options", "rain", "--seed", "9")
    assert rc == 0 and out["events"] == 1 and GameRecord.load(rec).seed == 9


def test_cli_bad_records_and_options(tmp_path, capsys):
    rec = tmp_path / "g.json"
    rc, out, err = run(capsys, "new", "--options", "flying", "--record", str(rec))
    assert rc == 2 and "flying" in err and not rec.exists()
    rc, out, err = run(capsys, "play", "--bid", "French", "--seed", "1")
    assert rc == 2 and "SIDE=N" in err
    other = tmp_path / "n20.json"
    other.write_text(json.dumps({"format": "vedette-record", "format_version": 1, "game": "n20",
                                 "scenario": "fuentes", "events": []}))
    rc, out, err = run(capsys, "legal", str(other))
    assert rc == 2 and "n20" in err
    rc, out, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert rc == 2


_FUZZ_STATES: list = []


def _fuzz_states():
    if not _FUZZ_STATES:
        for seed, opts in ((1, ("leaders", "light-cavalry")), (2, ()), (3, ("setup", "rain"))):
            _FUZZ_STATES.extend(_positions(seed, 120, opts)[::6])
    return _FUZZ_STATES


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_action_is_either_played_or_refused_with_a_rule(data):
    """An action made of ids of the game (or none of it) is refused by check with a RuleViolation naming a
    rule, the position unchanged, or else it plays through."""
    states = _fuzz_states()
    g = data.draw(st.sampled_from(states))
    names = [u.uid for u in g.units] + [ld.name for ld in g.leaders] + list(g.board.areas) + ["zz", ""]
    name = st.sampled_from(names)
    t = data.draw(st.sampled_from(ACTION_TYPES))
    end = data.draw(st.sampled_from(["area", "square", "line", "deploy", "bogus"]) | name.map("approach:".__add__)) \
        if t == "move" else "area"
    a = Action(t, units=tuple(data.draw(st.lists(name, max_size=3))), path=tuple(data.draw(st.lists(name, max_size=3))),
               area=data.draw(st.none() | name), target=data.draw(st.none() | name), end=end)
    before = R.state_to_json(g)
    try:
        R.check(g, a)
    except RuleViolation as exc:
        assert exc.rule and R.state_to_json(g) == before
        return
    R.apply(g, a, dice=RandomDice(0))


def test_a_record_of_the_pre_protocol_engine_replays():
    """tests/lob/data/albuera_pre_protocol_record.json was written by the LoB code before the protocol
    (no engine_version, options as {"rules": [...], "bid": ...}, one dice stream for the game, events
    without "side"): 60 actions of greedy (French) against random (Allied) with Kemmis, rain and a French
    bid of 1. It must still replay to its end; when a rule reading changes what the procedures ask, bump
    ENGINE_VERSION and refuse such records with a message naming the version instead."""
    from pathlib import Path
    rec = GameRecord.load(Path(__file__).parent / "data" / "albuera_pre_protocol_record.json")
    assert rec.engine_version == "" and rec.options == {"rules": ["kemmis", "rain"], "bid": {"French": 1}}
    states = replay_record(rec)
    assert len(states) == 61 and states[-1].turn == 3
    assert dict(states[-1].morale) == {"Allied": 4, "French": 7}     # as the old engine ended it
    assert states[0].morale_of("French") == 9                       # 10 less the bid of 1 (option 1)


def test_typed_dice_one_at_a_time_survive_a_save():
    """The reserve artillery in 72 fires at the 13th Light Dragoons (4.2.1): the die is typed in, the
    half-answered action is saved and resumed, then the Allies answer hit-or-retreat for a 5."""
    s = Session.new(R, "albuera", (), 1)
    s.act("end-admin")
    s.act("activate 72")
    p = s.begin("fire F-ResArt at A-Head")
    assert (p.request.kind, p.request.rule) == ("roll", "4.2.1")
    with pytest.raises(RuleViolation):
        s.answer(7)                                       # a d6 has no 7: refused, nothing recorded
    resumed = Session.from_json(R, json.loads(json.dumps(s.to_json())))
    resumed.answer(5)                                     # 4 or 5: a hit or a retreat, the target's choice
    q = resumed.pending.request
    assert (q.kind, q.rule, q.player, tuple(q.options)) == ("choose", "4.2.1", "Allied", ("hit", "retreat"))
    resumed.answer("hit")
    assert resumed.pending is None and resumed.state.unit("A-Head").hits == 1 and len(resumed.record.events) == 3
