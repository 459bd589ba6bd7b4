"""Issue 10 for every system on the protocol (n20 Fuentes and Bussaco, LoB, TBF, BC), as a new user meets it.

* ``vedette GAME new|legal|act|undo|replay`` run in-process through :func:`engine.cli.main`;
* dice typed in with ``--dice`` and answers with ``--choices`` give the same event as the game's own seeded
  roll (the one seeding rule: event ``i`` of a game of seed ``s`` rolls with ``action_seed(s, i)``);
* a half-answered action (one answer given, the rest still to come) saved as JSON and resumed ends in the
  same event as the action answered at once;
* every bad input the issue lists exits 2 with one line on stderr naming the field, the option or the
  event index, prints nothing on stdout, and leaves the record file byte for byte as it was.

The games are short seeded greedy games (80 actions at most): the first event whose procedure asked for a
die (n20, LoB, TBF; BC draws cubes and cards, no dice) is the one typed in again.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.core.game import Session, play_game, replay, system_of
from engine.core.record import GameRecord

SYSTEMS = [("n20", "fuentes"), ("n20", "bussaco"), ("lob", None), ("tbf", None), ("bc", None)]
IDS = [f"{g}-{s}" if s else g for g, s in SYSTEMS]
ASKED = ("roll", "draw", "choose", "chance")        # answers a procedure asked for (the rest are notes)


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:              # argparse usage errors
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc, out.getvalue(), err.getvalue()


def asked(event: dict) -> list[dict]:
    return [a for a in event["answers"] if a["kind"] in ASKED]


@pytest.fixture(scope="module", params=SYSTEMS, ids=IDS)
def game(request):
    """A seeded greedy game (its record) and, if one rolled, the first event whose procedure rolled a die
    without drawing (so ``--dice`` can type every chance answer of it)."""
    system, scenario = request.param
    rules = system_of(system)
    _, rec = play_game(rules, ("greedy", "greedy"), scenario, (), 3, max_actions=80)
    rolled = next((i for i, e in enumerate(rec.events)
                   if {a["kind"] for a in asked(e)} & {"roll"} and not {a["kind"] for a in asked(e)} & {"draw"}),
                  None)
    two = next(i for i, e in enumerate(rec.events) if len(asked(e)) >= 2)
    return {"system": system, "scenario": scenario, "rules": rules, "record": rec, "rolled": rolled,
            "two": two}


def write(rec: GameRecord, path: Path, n: int | None = None) -> Path:
    """``rec`` with its first ``n`` events (all by default) written at ``path``."""
    (rec if n is None else rec.truncated(n)).save(path)
    return path


def test_new_legal_act_undo_replay_through_the_cli(game, tmp_path):
    g, f = game["system"], tmp_path / "g.json"
    scen = ["--scenario", game["scenario"]] if game["scenario"] else []
    rc, out, err = run([g, "new", *scen, "--seed", "3", "--record", str(f)])
    assert rc == 0, err
    assert json.loads(out)["events"] == 0 and GameRecord.load(f).game == g
    rc, out, err = run([g, "legal", "--record", str(f)])
    assert rc == 0, err
    legal = json.loads(out)["legal"]
    assert legal and all({"text", "action", "says"} <= set(x) for x in legal)
    # the first action of the greedy game, typed in its short notation
    first = game["rules"].format_action(game["rules"].action_from_json(game["record"].events[0]["action"]))
    assert first in [x["text"] for x in legal]
    rc, out, err = run([g, "act", "--record", str(f), first])
    assert rc == 0, err
    played = GameRecord.load(f).events
    # the one seeding rule: the same seed, the same event index, the same answers as the bot game had
    assert len(played) == 1 and asked(played[0]) == asked(game["record"].events[0])
    rc, out, err = run([g, "replay", str(f), "--upto", "0"])
    assert rc == 0 and json.loads(out)["after_events"] == 0, err
    rc, out, err = run([g, "undo", "--record", str(f)])
    assert rc == 0 and json.loads(out)["events"] == 0 and not GameRecord.load(f).events, err


def test_replay_and_legal_at_a_turn(game, tmp_path):
    """``--turn T``: the first position of turn T (the record's last turn here), the same for legal."""
    rules, rec = game["rules"], game["record"]
    f = write(rec, tmp_path / "g.json")
    states = [rules.position(s).turn for s in replay(rules, rec)]
    last = states[-1]
    rc, out, err = run([game["system"], "replay", str(f), "--turn", str(last)])
    assert rc == 0, err
    assert json.loads(out)["after_events"] == states.index(last) and json.loads(out)["turn"] == last
    rc, out, err = run([game["system"], "legal", str(f), "--turn", str(last)])
    assert rc == 0 and json.loads(out)["turn"] == last, err


def test_typed_dice_and_choices_give_the_seeded_event(game, tmp_path):
    i = game["rolled"]
    if i is None:
        pytest.skip(f"{game['system']}: no procedure of the game rolls a die (cubes and cards only)")
    g, ev = game["system"], game["record"].events[i]
    f = write(game["record"], tmp_path / "g.json", i)
    dice = ",".join(str(a["value"]) for a in asked(ev) if a["kind"] == "roll")
    choices = json.dumps([a["value"] for a in asked(ev) if a["kind"] == "choose"])
    rc, out, err = run([g, "act", "--record", str(f), json.dumps(ev["action"]), "--dice", dice,
                        "--choices", choices])
    assert rc == 0, err
    typed = GameRecord.load(f).events[-1]
    assert typed["action"] == ev["action"] and asked(typed) == asked(ev)
    # an answer more than the action asks for is refused like a die face more (nothing is written)
    f2 = write(game["record"], tmp_path / "g2.json", i)
    before = f2.read_bytes()
    extra = json.dumps([a["value"] for a in asked(ev) if a["kind"] == "choose"] + ["spare"])
    rc, out, err = run([g, "act", "--record", str(f2), json.dumps(ev["action"]), "--dice", dice,
                        "--choices", extra])
    assert rc == 2 and "--choices: 1 answer(s) left over" in err and f2.read_bytes() == before, err


def test_a_half_answered_action_saved_and_resumed(game):
    """Session API: one answer given, the session saved as JSON, loaded again, the other answers given."""
    rules, i = game["rules"], game["two"]
    ev = game["record"].events[i]
    answers = [a["value"] for a in asked(ev)]
    s = Session(rules, game["record"].truncated(i))
    p = s.begin(rules.action_from_json(ev["action"]))
    assert p.request is not None and p.request.kind == asked(ev)[0]["kind"]
    s.answer(answers[0])
    waiting = s.pending.request
    saved = json.loads(json.dumps(s.to_json()))
    assert len(saved["events"]) == i and saved["pending"]["action"] == ev["action"]
    resumed = Session.from_json(rules, saved)
    assert (resumed.pending.request.kind, resumed.pending.request.rule) == (waiting.kind, waiting.rule)
    for v in answers[1:]:
        resumed.answer(v)
    assert resumed.pending is None and len(resumed.record.events) == i + 1
    assert asked(resumed.record.events[-1]) == asked(ev)


# --- bad input: exit 2, one line naming the field, the record untouched -----------------------------
def _wrong_shape(system: str) -> list[tuple[str, str]]:
    """(action JSON of the wrong shape, the field the error must name): a list where an id is expected and a
    number where a string is (LoB reads a whole number as an area's digits, so its number case is ``end``)."""
    return {
        "n20": [('{"kind": "move", "unit": ["FFER"], "path": ["0713"]}', "unit"),
                ('{"kind": "move", "unit": "FFER", "path": [713]}', "path")],
        "lob": [('{"type": "activate", "area": ["75"]}', "area"),
                ('{"type": "move", "units": ["F-Brayer"], "path": ["67"], "end": 5}', "end")],
        "tbf": [('{"side": "coalition", "kind": "activate", "leader": ["kutusov"]}', "leader"),
                ('{"side": "coalition", "kind": "activate", "leader": 7}', "leader")],
        "bc": [('{"side": ["french"], "kind": "start_turn"}', "side"),
               ('{"side": "french", "kind": "move", "zones": [5], "moves": []}', "zones[0]")],
    }[system]


def _bad_cases(game) -> list[tuple[list[str], str]]:
    g, first = game["system"], json.dumps(game["record"].events[0]["action"])
    cases = [([g, "act", "--record", "{rec}", a], field) for a, field in _wrong_shape(g)]
    cases += [
        ([g, "act", "--record", "{rec}", first, "--dice", "x"], "--dice"),
        ([g, "act", "--record", "{rec}", first, "--choices", "[not json"], "--choices"),
        ([g, "act", "--record", "{rec}", first, "--choices", '{"a": 1}'], "--choices"),
        ([g, "new", "--seed", "x", "--record", "{rec}"], "--seed"),
        ([g, "play", "--seed", "1.5", "--record", "{rec}"], "--seed"),
        ([g, "legal", "--record", "{other}"], "other.json: field 'game'"),
        ([g, "legal", "--record", "{version}"], "version.json: field 'engine_version'"),
        ([g, "replay", "{format}"], "field 'format_version'"),
        ([g, "replay", "{event}"], "event.json: event 1"),
        ([g, "act", "--record", "{event}", first], "event.json: event 1"),
        ([g, "legal", "--record", "{binary}"], "binary"),
        ([g, "undo", "--record", "{event}"], "event.json: event 1"),
        ([g, "undo", "--record", "{rec}", "-n", "99"], "cannot undo 99"),
        ([g, "replay", "{rec}", "--turn", "9999"], "--turn: the record reaches turn"),   # not the last position
        ([g, "legal", "--record", "{rec}", "--turn", "9999"], "--turn: the record reaches turn"),
    ]
    if game["rolled"] is not None:      # a die off its faces, in the event that rolls (its rule named)
        ev = game["record"].events[game["rolled"]]
        rule = next(a["rule"] for a in asked(ev) if a["kind"] == "roll")
        cases.append(([g, "act", "--record", "{pre}", json.dumps(ev["action"]), "--dice", "7"], f"[rule {rule}]"))
    return cases


def test_every_bad_input_is_one_line_exit_2_and_the_record_is_untouched(game, tmp_path):
    rec = game["record"]
    files = {"rec": write(rec, tmp_path / "rec.json", 2),
             "pre": write(rec, tmp_path / "pre.json", game["rolled"] or 0),
             "binary": tmp_path / "bin.json"}
    files["binary"].write_bytes(bytes(range(256)))
    data = rec.truncated(3).to_json()
    for name, change in (("other", {"game": "lob" if game["system"] != "lob" else "n20"}),
                         ("version", {"engine_version": f"{game['system']}-game-0"}),
                         ("format", {"format_version": 0}),
                         ("event", {"events": [data["events"][0], {"kind": "action", "action": {"zzz": 1}},
                                               data["events"][2]]})):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps({**data, **change}), encoding="utf-8")
    before = {k: p.read_bytes() for k, p in files.items()}
    for argv, needle in _bad_cases(game):
        for k, p in files.items():
            argv = [a.replace("{" + k + "}", str(p)) for a in argv]
        rc, out, err = run(argv)
        where = " ".join(argv)
        assert rc == 2, f"{where}: exit {rc}: {err or out[:200]}"
        assert not out and len(err.splitlines()) == 1 and err.endswith("\n"), f"{where}: {err!r}"
        assert needle in err, f"{where}: {needle!r} not in {err!r}"
        for k, p in files.items():
            assert p.read_bytes() == before[k], f"{where}: {p.name} changed"
