"""Fuzz test of every file-reading CLI command (issue 11, "Bad input: one line and exit 2").

Each case takes a shipped example file (data/examples, data/*/examples, the shipped tables, maps and
scenario folders, a freshly played game record), breaks a copy of it the ways a user's file goes wrong
(dropped keys, wrong types, huge and negative numbers, non-ASCII text, a list grown long, a truncated,
binary, non-UTF-8 or deeply nested file) and runs the command in-process through ``engine.cli.main``.
The outcome must be one of:

* exit 0 with valid JSON, every probability in it a fraction in [0, 1] equal to its float, and every
  distribution (``outcomes``, ``results``, ``crt``, ...) summing to exactly 1; or
* exit 2 with exactly one line on stderr, ``vedette: error: ...``.

Never a traceback, and never a run past a generous hang guard (:data:`HANG_S`: a bound against
explosions, not a speed claim; speed lives in tests/bench).

The default run is small and derandomized (so it is the same on every machine); set
``VEDETTE_FUZZ_EXAMPLES=200`` for a longer, randomized hunt.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import os
from pathlib import Path
import re
import shutil
import signal
import tempfile
from fractions import Fraction

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
HANG_S = 20
_N = int(os.environ.get("VEDETTE_FUZZ_EXAMPLES", "0") or 0)
EXAMPLES = _N or 5
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not _N, database=None,
                suppress_health_check=list(HealthCheck))


# --- running the CLI in-process --------------------------------------------------------------------
class _Hang(BaseException):
    """Raised by the hang guard (a BaseException, so no `except Exception` in the engine swallows it)."""


def _alarm(signum, frame):
    raise _Hang()


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 2
    except _Hang:
        pytest.fail(f"no answer within {HANG_S} s: {' '.join(argv)}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return rc, out.getvalue(), err.getvalue()


DISTRIBUTIONS = {"outcomes", "results", "distribution", "crt", "result", "own_before_end", "turn_ends_on_draw",
                 "attacker_morale", "defender_morale", "attacker_lead_state", "defender_lead_state", "critical"}


def check_json(value, where: str = "") -> None:
    """Every probability is a fraction in [0, 1] matching its float; named distributions sum to 1."""
    stack = [(value, "")]
    while stack:
        x, key = stack.pop()
        if isinstance(x, dict):
            if key.startswith("expected"):   # an expectation (e.g. of Morale), not a probability
                continue
            if set(x) == {"fraction", "float"}:
                f = Fraction(x["fraction"])
                assert 0 <= f <= 1, f"{where}: probability {f} out of [0, 1] at {key!r}"
                assert abs(float(f) - x["float"]) < 1e-9, f"{where}: fraction and float differ at {key!r}"
                continue
            vals = list(x.values())
            if key in DISTRIBUTIONS and vals and all(isinstance(v, dict) and set(v) == {"fraction", "float"}
                                                     for v in vals):
                assert sum(Fraction(v["fraction"]) for v in vals) == 1, f"{where}: {key!r} does not sum to 1"
            stack.extend((v, str(k)) for k, v in x.items())
        elif isinstance(x, list):
            if key in DISTRIBUTIONS and x and all(isinstance(i, dict) and isinstance(i.get("probability"), dict)
                                                  and "fraction" in i["probability"] for i in x):
                assert sum(Fraction(i["probability"]["fraction"]) for i in x) == 1, \
                    f"{where}: {key!r} does not sum to 1"
            stack.extend((v, key) for v in x)


def check_outcome(argv: list[str], note: str = "") -> tuple[int, str, str]:
    rc, out, err = run_cli(argv)
    where = f"{' '.join(argv)} [{note}]"
    if rc == 0:
        if "--text" not in argv:
            try:
                data = json.loads(out)
            except ValueError:
                pytest.fail(f"{where}: exit 0 but the output is not JSON: {out[:200]!r}")
            check_json(data, where)
    else:
        assert rc == 2, f"{where}: exit {rc}, expected 0 or 2; stderr {err[-500:]!r}"
        lines = err.splitlines()
        assert len(lines) == 1 and err.endswith("\n"), f"{where}: stderr is not one line: {err[:1000]!r}"
        assert re.match(r"vedette( [\w-]+)*: error: ", lines[0]), f"{where}: {lines[0][:300]!r}"
    return rc, out, err


# --- mutations --------------------------------------------------------------------------------------
ODD_VALUES = [None, True, False, 0, -1, -5, -100, 14, 24, 100, 1000, 100000, 2147483648, 10 ** 30,
              0.5, -0.5, float("inf"), float("-inf"), float("nan"), "", "x", "many", "~", "abc", "1e400",
              "Dürenstein – ☃ 漢字", "\u202e\u0000x", [], {}, [1, 2, 3], ["a"], {"a": 1}, {"x": [1]}, 2, "dazed"]


def _paths(doc) -> list[tuple]:
    """Every place in a parsed document (key/index paths), the root excluded; at most 600 of them."""
    out, stack = [], [((), doc)]
    while stack and len(out) < 600:
        path, x = stack.pop()
        items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
        for k, v in items:
            out.append(path + (k,))
            stack.append((path + (k,), v))
    return out


def _parent(doc, path):
    for k in path[:-1]:
        doc = doc[k]
    return doc


def mutate_doc(data, doc):
    """One structural change to a parsed document, drawn by hypothesis."""
    paths = _paths(doc)
    if not paths:
        return data.draw(st.sampled_from(ODD_VALUES), "root")
    path = data.draw(st.sampled_from(paths), "path")
    parent, key = _parent(doc, path), path[-1]
    how = data.draw(st.sampled_from(["drop", "value", "value", "grow", "rename", "nest", "shape", "shape",
                                     "swap"]), "how")
    if how == "shape":    # the same content in a near-miss type: what a hand-edited file gets wrong
        v = parent[key]
        if isinstance(v, list):
            parent[key] = v[0] if v else ""
        elif isinstance(v, dict):
            parent[key] = list(v.values())
        elif isinstance(v, bool):
            parent[key] = str(v).lower()
        elif isinstance(v, int):
            parent[key] = data.draw(st.sampled_from([str(v), v + 0.5, -v, v * 1000, -(v + 1), 2 ** 31]), "num")
        elif isinstance(v, str):
            parent[key] = data.draw(st.sampled_from([[v], len(v), v * 50, v[: len(v) // 2], v.upper()]), "str")
        return doc
    if how == "swap":     # a value from elsewhere in the same file
        other = data.draw(st.sampled_from(paths), "other")
        parent[key] = copy.deepcopy(_parent(doc, other)[other[-1]])
        return doc
    if how == "drop":
        del parent[key]
    elif how == "value":
        parent[key] = data.draw(st.sampled_from(ODD_VALUES) | st.integers() | st.text(max_size=30), "value")
    elif how == "grow":   # a list made long, or a count made huge (units per hex, cubes, hazards, ...)
        v = parent[key]
        n = data.draw(st.sampled_from([14, 24, 100, 1000]), "n")
        parent[key] = [copy.deepcopy(v[0]) for _ in range(n)] if isinstance(v, list) and v else \
            (n if isinstance(v, (int, float)) and not isinstance(v, bool) else [v] * n)
    elif how == "rename" and isinstance(parent, dict):
        parent[str(key) + "_x"] = parent.pop(key)
    else:
        parent[key] = [[[[[[parent[key]]]]]]]
    return doc


def mutate_text(data, text: str) -> bytes:
    """A change to the file's bytes: truncated, binary, not UTF-8, NUL bytes, deep nesting, huge."""
    how = data.draw(st.sampled_from(["truncate", "binary", "latin1", "nul", "deep", "junk", "bomb", "big"]), "text")
    raw = text.encode("utf-8")
    if how == "truncate":
        return raw[:data.draw(st.integers(0, max(0, len(raw) - 1)), "cut")]
    if how == "binary":
        return bytes(range(256)) * 4
    if how == "latin1":
        return ("# café\n" + text).encode("latin-1", "replace")
    if how == "nul":
        i = data.draw(st.integers(0, len(raw)), "at")
        return raw[:i] + b"\0" + raw[i:]
    if how == "deep":
        return b"[" * 5000 + b"]" * 5000
    if how == "bomb":
        lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        for prev, cur in zip("abcdefgh", "bcdefghi"):
            lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
        return ("\n".join(lines) + "\n").encode()
    if how == "big":
        return raw + b"\n# " + b"x" * 1_100_000 + b"\n"
    return data.draw(st.binary(max_size=200), "junk")


def write_mutant(data, src: Path, dst: Path) -> str:
    """Write a broken copy of ``src`` at ``dst``; returns a note saying how it was broken."""
    text = src.read_text(encoding="utf-8")
    if data.draw(st.integers(0, 3), "level") == 0:
        dst.write_bytes(mutate_text(data, text))
        return "text"
    is_json = src.suffix == ".json"
    doc = json.loads(text) if is_json else yaml.safe_load(text)
    for _ in range(data.draw(st.integers(1, 3), "changes")):
        doc = mutate_doc(data, doc)
    if is_json:
        dst.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    else:
        dst.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return "doc"


# --- the commands -----------------------------------------------------------------------------------
# (name, folder copied to a temporary place, file of it to break, argv with {f} for the broken file and
# {d} for the copied folder)
CASES = [
    ("n20-odds-worked", "examples", "n20_worked_example.yaml", "n20 odds {f}"),
    ("n20-odds-context-free", "examples", "n20_context_free_battle.yaml", "n20 odds {f}"),
    ("n20-odds-bussaco", "examples", "n20_bussaco_battle.yaml", "n20 odds {f}"),
    ("n20-tree-map", "examples", "n20_map_battle.yaml", "n20 tree {f}"),
    ("n20-tree-text", "examples", "n20_worked_example.yaml", "n20 tree {f} --text --max-depth 3"),
    ("n20-choices-map", "examples", "n20_map_battle.yaml", "n20 choices {f}"),
    ("n20-fight-almeida", "examples", "n20_almeida_battle.yaml", "n20 fight {f} --seed 3"),
    ("n20-map-file", "examples", "n20_test_map.yaml", "n20 odds {d}/n20_map_battle.yaml"),
    ("n20-tables", "n20", "tables_v3.yaml", "n20 odds data/examples/n20_worked_example.yaml --tables {f}"),
    ("n20-replay", "record", "n20.json", "n20 replay {f}"),
    ("n20-legal", "record", "n20.json", "n20 legal {f}"),
    ("n20-scenario-file", "n20", "bussaco/scenario.yaml", "n20 new --scenario {f} --record {d}/out.json"),
    ("n20-scenario-units", "n20", "bussaco/units.yaml", "n20 new --scenario {d}/bussaco/scenario.yaml --record {d}/o.json"),
    ("n20-scenario-events", "n20", "bussaco/events.yaml",
     "n20 new --scenario {d}/bussaco/scenario.yaml --record {d}/o.json"),
    ("n20-scenario-map", "n20", "bussaco/map.yaml", "n20 new --scenario {d}/bussaco/scenario.yaml --record {d}/o.json"),
    ("tbf-charge", "tbf/examples", "charge_two_targets.yaml", "tbf charge {f}"),
    ("tbf-charge-map", "tbf/examples", "charge_two_targets.yaml", "tbf charge {f} --map --no-tree"),
    ("tbf-tables-check", "tbf", "tables.yaml", "tbf check --check being_charged --fv 4 --tables {f}"),
    ("tbf-tables-checks", "tbf", "tables.yaml", "tbf checks --tables {f}"),
    ("tbf-tables-fire", "tbf", "tables.yaml",
     "tbf fire --firer ff=4,kind=infantry,range=1,status=normal --terrain town --tables {f}"),
    ("tbf-tables-melee", "tbf", "tables.yaml", "tbf melee --attacker mf=4,fv=4 --defender mf=3,fv=3 --tables {f}"),
    ("tbf-tables-charge", "tbf", "tables.yaml", "tbf charge data/tbf/examples/charge_two_targets.yaml --map "
                                                "--no-tree --tables {f}"),
    ("tbf-tables-reach", "tbf", "tables.yaml", "tbf reach 4l-1 --tables {f}"),
    ("tbf-map-los", "tbf/durenstein", "map.yaml", "tbf los 1513 1612 --map {f}"),
    ("tbf-map", "tbf/durenstein", "map.yaml", "tbf map --map {f}"),
    ("tbf-scenario-map", "tbf/durenstein", "map.yaml", "tbf scenario --scenario-dir {d}"),
    ("tbf-scenario-units", "tbf/durenstein", "units.yaml", "tbf scenario --scenario-dir {d}"),
    ("tbf-scenario-file", "tbf/durenstein", "scenario.yaml", "tbf victory --scenario-dir {d}"),
    ("bc-combat-fire", "bc/examples", "fire.yaml", "bc combat {f}"),
    ("bc-combat-assault", "bc/examples", "assault.yaml", "bc combat {f} --tree --depth 2"),
    ("bc-combat-redoubt", "bc/examples", "redoubt_fire.yaml", "bc combat {f}"),
    ("bc-map-art-redoubt", "bc/examples", "artillery_redoubt.yaml", "bc map-combat A B --scenario {f}"),
    ("bc-map-fort", "bc/examples", "fort_redoubt.yaml", "bc map-combat F B --attack fire --scenario {f}"),
    ("bc-scenario-fort", "bc/examples", "fort_redoubt.yaml", "bc scenario --scenario {f}"),
    ("bc-discards", "bc/examples", "discards.yaml", "bc combat {d}/fire.yaml --discards {f}"),
    ("bc-cup", "bc/examples", "cup.yaml", "bc cup {f}"),
    ("bc-deck", "bc", "deck.yaml", "bc deck --deck {f}"),
    ("bc-deck-combat", "bc", "deck.yaml", "bc combat data/bc/examples/fire.yaml --deck {f}"),
    ("bc-terrain", "bc", "terrain.yaml", "bc combat data/bc/examples/assault.yaml --terrain {f}"),
    ("bc-scenario", "bc/demo", "scenario.yaml", "bc scenario --scenario {f}"),
    ("lob-tables-fire", "lob", "tables.yaml", "lob fire --tables {f}"),
    ("lob-tables-schedule", "lob", "tables.yaml", "lob schedule --tables {f}"),
    ("lob-map", "lob/albuera", "map.yaml", "lob map --map {f}"),
    ("lob-replay", "lobrecord", "lob.json", "lob replay {f}"),
]


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    """Short game records made by playing: n20 (the first 40 events of a bot game) and LoB."""
    d = tmp_path_factory.mktemp("records")
    rc, _, err = run_cli(["n20", "play", "--scenario", "bussaco", "--seed", "1", "--record", str(d / "full.json")])
    if rc == 0:
        rec = json.loads((d / "full.json").read_text(encoding="utf-8"))
        rec["events"] = rec["events"][:40]
        (d / "n20.json").write_text(json.dumps(rec), encoding="utf-8")
    rc, _, err = run_cli(["lob", "play", "--seed", "1", "--max-actions", "20", "--record", str(d / "lob.json")])
    return d


def _source(case, records: Path) -> Path:
    _, folder, file, _ = case
    src = records if folder in ("record", "lobrecord") else DATA / folder
    if not (src / file).exists():
        pytest.fail(f"no {src / file}: `vedette ... play --record` did not make one")
    return src


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_unbroken_example_runs(case, records):
    """The command itself works on the unbroken example (so the fuzz below tests the checks, not a typo)."""
    _, folder, file, argv = case
    src = _source(case, records)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "copy"
        shutil.copytree(src, d, ignore=shutil.ignore_patterns("full.json"))
        rc, out, err = check_outcome(argv.format(f=d / file, d=d).split(), "unbroken")
    assert rc == 0, err


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@FUZZ
@given(data=st.data())
def test_broken_copy_gives_json_or_one_line(case, records, data):
    _, folder, file, argv = case
    src = _source(case, records)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp) / "copy"
        shutil.copytree(src, d, ignore=shutil.ignore_patterns("full.json"))
        note = write_mutant(data, src / file, d / file)
        check_outcome(argv.format(f=d / file, d=d).split(), note)


# --- the inputs issue 11 found by hand: each refused with one line naming the field or rule ----------
def _yaml_edit(src: str, change) -> str:
    doc = yaml.safe_load((DATA / src).read_text(encoding="utf-8"))
    change(doc)
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def _set(path, value):
    def change(doc):
        parent = _parent(doc, path)
        parent[path[-1]] = value(parent[path[-1]]) if callable(value) else value
    return change


CHARGE = "tbf/examples/charge_two_targets.yaml"
CUP = "bc/examples/cup.yaml"
BATTLE = "examples/n20_context_free_battle.yaml"
NAMED = [
    # (name, file to write or None, its text, argv with {f}, text the one line must hold)
    ("tbf-rout-to-int", CHARGE, _yaml_edit(CHARGE, _set(("targets", 0, "rout_to"), 1)), "tbf charge {f}", "rout_to"),
    ("tbf-cost-negative", CHARGE, _yaml_edit(CHARGE, _set(("targets", 0, "cost"), -5)), "tbf charge {f}",
     "targets[0].cost"),
    ("tbf-14-units-one-hex", CHARGE, _yaml_edit(CHARGE, _set(("targets", 0, "units"), lambda u: u * 14)),
     "tbf charge {f}", "at most 6 units"),
    ("tbf-firer-dazed", None, "", "tbf fire --firer ff=3,kind=infantry,range=1,status=dazed", "4.2.4"),
    ("tbf-checks-dazed", None, "", "tbf checks --status dazed", "4.2.4"),
    ("tbf-los-kind", None, "", "tbf los 1513 1612 --kind bogus", "--kind"),
    ("tbf-turn-negative", None, "", "tbf scenario --turn -3", "rule 3.0"),
    ("bc-cup-no-skill", CUP, _yaml_edit(CUP, lambda d: d["prepare"]["commanders"]["french"].pop("skill")),
     "bc cup {f}", "prepare.commanders.french.skill"),
    ("bc-cup-hqs-huge", CUP, _yaml_edit(CUP, _set(("prepare", "both_hqs_steady", "french"), 1000000)),
     "bc cup {f}", "both_hqs_steady"),
    ("bc-cup-bool-negative", CUP, _yaml_edit(CUP, _set(("prepare", "daylight"), -100)), "bc cup {f}", "daylight"),
    ("bc-cup-nan", CUP, _yaml_edit(CUP, _set(("prepare", "commanders", "french", "cubes"), float("nan"))),
     "bc cup {f}", "cubes"),
    ("bc-cup-1e400", CUP, _yaml_edit(CUP, _set(("prepare", "commanders", "french", "tokens"), "1e400")),
     "bc cup {f}", "tokens"),
    ("bc-cup-many", CUP, _yaml_edit(CUP, _set(("prepare", "commanders", "french", "cubes"), "many")),
     "bc cup {f}", "cubes"),
    ("bc-cup-100-yellow", CUP, "cubes: {blue: 8, white: 5, yellow: 100, red: 3, black: 3}\n", "bc cup {f}",
     "cubes.yellow"),
    ("bc-cup-1000-yellow", CUP, "cubes: {blue: 8, white: 5, yellow: 1000, red: 3, black: 3}\n", "bc cup {f}",
     "cubes.yellow"),
    ("bc-discards-int", "bc/examples/discards.yaml", "discards: 2\n", "bc combat data/bc/examples/fire.yaml "
                                                                     "--discards {f}", "discards"),
    ("bc-discards-inf", "bc/examples/discards.yaml", "discards: [-.inf]\n", "bc combat data/bc/examples/fire.yaml "
                                                                           "--discards {f}", "discards[0]"),
    ("n20-hazards-huge", BATTLE, _yaml_edit(BATTLE, _set(("paths", "seventh", "hazards"), [2147483648])),
     "n20 odds {f}", "hazards[0]"),
    ("n20-path-long-hazard", BATTLE, _yaml_edit(BATTLE, _set(("paths", "light-division"), [100000])),
     "n20 odds {f}", "hazards[0]"),
    ("n20-24-attackers", BATTLE, _yaml_edit(BATTLE, _set(("attackers",), lambda a: [
        dict(a[0], id=f"a{i}", strength=1) for i in range(24)])), "n20 odds {f}", "attackers"),
    ("binary-battle", BATTLE, bytes(range(256)).decode("latin-1"), "n20 odds {f}", "binary"),
]


@pytest.mark.parametrize("case", NAMED, ids=[c[0] for c in NAMED])
def test_named_bad_input_is_one_line(case, tmp_path):
    _, src, text, argv, needle = case
    f = tmp_path / (Path(src).name if src else "unused.yaml")
    if src:
        f.write_bytes(text.encode("latin-1") if case[0].startswith("binary") else text.encode("utf-8"))
    rc, _, err = check_outcome(argv.format(f=f).split(), case[0])
    assert rc == 2 and needle in err, err


# --- issue 29, "Bad input found by fuzzing": every system, every writing verb ----------------------
SYSTEMS = ("n20", "lob", "tbf", "bc")


def first_legal(rec: Path, system: str) -> str:
    rc, out, err = run_cli([system, "legal", "--record", str(rec)])
    assert rc == 0, err
    return json.dumps(json.loads(out)["legal"][0]["action"])


def one_line_refusal(argv: list[str]) -> str:
    rc, out, err = run_cli(argv)
    assert rc == 2 and out == "" and err.count("\n") == 1 and err.startswith("vedette"), (argv[:4], rc, err[-300:])
    return err


@pytest.fixture(scope="module")
def new_records(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("new-records")
    out = {}
    for system in SYSTEMS:
        out[system] = folder / f"{system}.json"
        assert run_cli([system, "new", "--seed", "1", "--record", str(out[system])])[0] == 0
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_action_nested_thousands_deep_is_one_line(system, new_records):
    rec = new_records[system]
    before = rec.read_bytes()
    deep = '{"kind": "end", "x": ' + "[" * 5000 + "]" * 5000 + "}"
    for verb in ("act", "odds"):
        err = one_line_refusal([system, verb, "--record", str(rec), deep])
        assert "nesting at most 32 levels" in err
    assert rec.read_bytes() == before


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_choices_integer_of_5000_digits_is_one_line(system, new_records):
    rec = new_records[system]
    before = rec.read_bytes()
    action = first_legal(rec, system)
    err = one_line_refusal([system, "act", "--record", str(rec), action, "--choices", "7" * 5000])
    assert "--choices" in err and "digits" in err
    err = one_line_refusal([system, "act", "--record", str(rec), action, "--choices", "[" * 3000])
    assert "--choices" in err
    assert rec.read_bytes() == before


def _no_game(*a, **k):
    raise AssertionError("a game was played before the record's folder was checked")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_record_that_cannot_be_written_is_refused_before_any_action(system, tmp_path, monkeypatch):
    import engine.core.game_cli as game_cli
    monkeypatch.setattr(game_cli, "play_game", _no_game)       # play checks the folder before the first action
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    bad = {"missing folder": (tmp_path / "no" / "such" / "g.json", "no folder"),
           "file as folder": (a_file / "g.json", "is a file, not a folder"),
           "name too long": (tmp_path / ("n" * 300 + ".json"), "cannot write"),
           "a folder": (tmp_path, "not a regular file")}
    for what, (path, says) in bad.items():
        for verb in ("new", "play"):
            err = one_line_refusal([system, verb, "--seed", "1", "--record", str(path)])
            assert says in err, (what, verb, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]          # nothing written


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_read_only_folder_is_refused_before_any_action(system, tmp_path, monkeypatch):
    import tempfile
    import engine.core.game_cli as game_cli
    monkeypatch.setattr(game_cli, "play_game", _no_game)
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if os.geteuid() == 0:
            # root writes into a read-only folder: the refusal of the file system is simulated
            def refuse(*a, **k):
                raise PermissionError(13, "Permission denied")
            monkeypatch.setattr(tempfile, "mkstemp", refuse)
        for verb in ("new", "play"):
            err = one_line_refusal([system, verb, "--seed", "1", "--record", str(ro / "g.json")])
            assert "cannot write" in err and "Permission denied" in err
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_fifo_is_refused_not_waited_on(system, tmp_path):
    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    for argv in (["replay", str(fifo)], ["legal", "--record", str(fifo)], ["act", "--record", str(fifo), "x"],
                 ["odds", "--record", str(fifo), "x"], ["undo", "--record", str(fifo)]):
        err = one_line_refusal([system, *argv])
        assert "regular file" in err


def test_a_fifo_named_as_a_data_file_is_refused(tmp_path):
    fifo = tmp_path / "tables.yaml"
    os.mkfifo(fifo)
    assert "regular file" in one_line_refusal(["lob", "combat", "albuera:17>Albuera", "--tables", str(fifo)])
    assert "regular file" in one_line_refusal(["lob", "combat", str(fifo)])


@pytest.mark.parametrize("system", ("n20", "bc"))        # lob and tbf refused them already (their own tests)
def test_a_record_with_an_unknown_option_key_is_refused(system, new_records, tmp_path):
    data = json.loads(new_records[system].read_text())
    data["options"]["colour"] = "blue"
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(data))
    for argv in (["replay", str(rec)], ["legal", "--record", str(rec)]):
        err = one_line_refusal([system, *argv])
        assert "options" in err and "unknown key" in err and "colour" in err


@pytest.mark.parametrize("system", ("lob", "tbf", "bc"))        # n20's scenarios have editions: refused already
def test_a_record_with_an_unknown_edition_is_refused(system, new_records, tmp_path):
    data = json.loads(new_records[system].read_text())
    data["edition"] = "v99"
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(data))
    assert "field 'edition'" in one_line_refusal([system, "replay", str(rec)])


def test_simulate_refuses_a_scheduler_that_is_no_address():
    assert "--scheduler: expected a scheduler address" in one_line_refusal(
        ["lob", "simulate", "--games", "1", "--scheduler", "notaurl", "--no-progress"])


def test_simulate_refuses_a_scheduler_that_says_nothing_within_its_bound(monkeypatch):
    # a listener on the loopback that accepts and says nothing, as a web server does to a Dask client
    import socket
    import engine.core.simulate as simulate
    monkeypatch.setattr(simulate, "SCHEDULER_WAIT_S", 0.2)
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        port = srv.getsockname()[1]
        err = one_line_refusal(["lob", "simulate", "--games", "1", "--scheduler", f"tcp://127.0.0.1:{port}",
                                "--no-progress"])
    assert "said nothing within 0.2 s" in err


def test_a_fifo_named_inside_a_record_is_refused(new_records, tmp_path):
    # an n20 record may name a tables file (the command line opens what a record names): a FIFO is refused
    data = json.loads(new_records["n20"].read_text())
    fifo = tmp_path / "tables.yaml"
    os.mkfifo(fifo)
    data["options"]["tables"] = str(fifo)
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(data))
    assert "regular file" in one_line_refusal(["n20", "replay", str(rec)])
