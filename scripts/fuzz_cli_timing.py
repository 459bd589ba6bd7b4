"""Time hostile command-line inputs, every system and verb (issue 29: no CLI input may take over 3 s unless it
is a legitimately big computation with a stated bound).

    python scripts/fuzz_cli_timing.py                  # every case, a table of the slowest, exit 1 if any is over
    python scripts/fuzz_cli_timing.py --over 3 --only lob --show 30

Each case runs in this process through ``engine.cli.main`` (its output swallowed) with a hang guard
(``--guard``, SIGALRM); its wall time is measured with ``time.perf_counter``. A case ends well when it exits
0 or 2 with at most one line on stderr. Cases marked ``big`` are computations the CLI documents as big
(a whole game, a study of one game) and are reported apart, with their bound.

The cases: records (fresh, from ``new``), actions nested thousands deep, numbers of thousands of digits,
huge ``--upto``/``--turn``/``-n``/``--seed``, long and non-ASCII strings, the same action twice, a FIFO,
``/dev/zero`` and a folder where a file is expected, an over-size file, record fields broken one by one,
and the systems' own calculators on big or odd inputs.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.cli import main  # noqa: E402

SYSTEMS = ("n20", "lob", "tbf", "bc")


class Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise Hang()


def run(argv: list[str], guard: int) -> tuple[int | str, float, str]:
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(guard)
    t = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc: int | str = main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 2
            except Exception as exc:                       # a traceback: reported, not raised
                rc = f"traceback {type(exc).__name__}: {str(exc)[:80]}"
    except Hang:
        rc = f"over the {guard} s guard"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return rc, time.perf_counter() - t, err.getvalue()


def cases(tmp: Path) -> list[tuple[str, list[str], bool]]:
    """(name, argv, big) for every hostile input."""
    out: list[tuple[str, list[str], bool]] = []
    fifo = tmp / "fifo.json"
    os.mkfifo(fifo)
    big_file = tmp / "big.json"
    big_file.write_text("[" + "0," * 600_000 + "0]")
    deep = '{"kind": "end", "x": ' + "[" * 20_000 + "]" * 20_000 + "}"
    digits = "9" * 5000
    for system in SYSTEMS:
        rec = tmp / f"{system}.json"
        rc, _, err = run([system, "new", "--seed", "3", "--record", str(rec)], 60)
        if rc != 0:
            out.append((f"{system} new", [system, "new", "--record", str(rec)], False))
            continue
        legal = io.StringIO()
        with contextlib.redirect_stdout(legal):
            main([system, "legal", "--record", str(rec)])
        acts = [json.dumps(x["action"]) for x in json.loads(legal.getvalue())["legal"]]
        first = acts[0]
        r = ["--record", str(rec)]
        for verb in ("act", "odds"):
            out += [(f"{system} {verb} deep action", [system, verb, *r, deep], False),
                    (f"{system} {verb} digits action", [system, verb, *r, '{"kind": ' + digits + "}"], False),
                    (f"{system} {verb} long text", [system, verb, *r, "x" * 200_000], False),
                    (f"{system} {verb} unicode", [system, verb, *r, "é☃漢\u202e\u0000"], False),
                    (f"{system} {verb} empty", [system, verb, *r, ""], False),
                    (f"{system} {verb} list", [system, verb, *r, "[" + first + "]"], False),
                    (f"{system} {verb} first legal", [system, verb, *r, first], False),
                    (f"{system} {verb} last legal", [system, verb, *r, acts[-1]], False)]
        out += [(f"{system} act choices digits", [system, "act", *r, first, "--choices", digits], False),
                (f"{system} act choices deep", [system, "act", *r, first, "--choices", "[" * 20_000], False),
                (f"{system} act choices long", [system, "act", *r, first, "--choices", json.dumps(["x"] * 100_000)], False),
                (f"{system} act dice long", [system, "act", *r, first, "--dice", ",".join(["6"] * 100_000)], False),
                (f"{system} act dice digits", [system, "act", *r, first, "--dice", digits], False)]
        for verb, extra in (("legal", []), ("replay", None), ("undo", ["-n", digits])):
            target = [str(rec)] if extra is None else [*r, *extra]
            out.append((f"{system} {verb}", [system, verb, *target], False))
        for flag in ("--upto", "--turn"):
            out += [(f"{system} legal {flag} digits", [system, "legal", *r, flag, digits], False),
                    (f"{system} legal {flag} huge", [system, "legal", *r, flag, "999999999"], False),
                    (f"{system} replay {flag} huge", [system, "replay", str(rec), flag, "999999999"], False)]
        for name, path in (("fifo", fifo), ("dev-zero", Path("/dev/zero")), ("folder", tmp), ("big file", big_file),
                           ("missing", tmp / "missing.json")):
            out += [(f"{system} replay {name}", [system, "replay", str(path)], False),
                    (f"{system} legal {name}", [system, "legal", "--record", str(path)], False),
                    (f"{system} odds {name}", [system, "odds", "--record", str(path), first], False)]
        for name, path in (("missing folder", tmp / "no" / "g.json"), ("file as folder", big_file / "g.json"),
                           ("long name", tmp / ("n" * 400)), ("folder", tmp)):
            out += [(f"{system} new {name}", [system, "new", "--record", str(path)], False),
                    (f"{system} play {name}", [system, "play", "--record", str(path)], False)]
        out += [(f"{system} new seed digits", [system, "new", "--seed", digits, "--record", str(tmp / "s.json")], False),
                (f"{system} new options long", [system, "new", "--options", ",".join(["x"] * 50_000),
                                                "--record", str(tmp / "s.json")], False),
                (f"{system} new scenario odd", [system, "new", "--scenario", "../../etc/passwd",
                                                "--record", str(tmp / "s.json")], False),
                (f"{system} play bots odd", [system, "play", "--bots", "x" * 10_000], False),
                (f"{system} play max-actions digits", [system, "play", "--max-actions", digits], False),
                (f"{system} play whole game", [system, "play", "--seed", "1", "--bots", "random,random"], True),
                (f"{system} simulate scheduler notaurl", [system, "simulate", "--games", "1", "--scheduler", "notaurl",
                                                          "--no-progress"], False),
                (f"{system} simulate games digits", [system, "simulate", "--games", digits, "--workers", "0"], False),
                (f"{system} simulate one game", [system, "simulate", "--games", "1", "--workers", "0", "--no-progress",
                                                 "--bots", "random,random"], True)]
        # record fields broken one by one
        data = json.loads(rec.read_text())
        for key, value in (("options", {"colour": 1}), ("edition", "v99"), ("seed", digits), ("seed", 10 ** 40),
                           ("events", [{"kind": "action", "action": {"kind": "x"}}] * 2000),
                           ("events", [{"kind": "action"}] * 5000), ("scenario", "é" * 5000)):
            broken = dict(data)
            broken[key] = value
            p = tmp / f"{system}-{key}.json"
            p.write_text(json.dumps(broken))
            out.append((f"{system} replay broken {key}", [system, "replay", str(p)], False))
    # the odds of every attack (at most 6) in a position of a greedy game, 20 and 60 actions in
    from engine.core.game import play_game
    from engine.systems import system_of
    for system in SYSTEMS:
        rules = system_of(system)
        for n in (20, 60, 150):
            state, rec = play_game(rules, ("greedy", "greedy"), seed=2, max_actions=n)
            path = tmp / f"{system}-mid-{n}.json"
            rec.save(path)
            if rules.to_act(state) is None:
                continue
            for a in rules.attack_candidates(state)[:6]:
                out.append((f"{system} odds mid-game {n}: {rules.format_action(a)[:40]}",
                            [system, "odds", "--record", str(path), json.dumps(rules.action_to_json(a))], False))
    # the systems' own calculators on big or odd inputs
    out += [("lob combat big stacks", ["lob", "combat", "albuera:75>19", "--policy", "stay"], False),
            ("lob combat tree", ["lob", "combat", "albuera:17>Albuera", "--tree"], False),
            ("lob combat fifo", ["lob", "combat", str(fifo)], False),
            ("lob fire odd", ["lob", "fire", "--strength", digits], False),
            ("lob schedule many turns", ["lob", "schedule", "--turns", "200"], False),
            ("n20 odds fifo", ["n20", "odds", str(fifo)], False),
            ("tbf check odd", ["tbf", "check", "--fv", digits, "--check", "being_charged"], False)]
    return out


def main_(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--over", type=float, default=3.0, help="seconds a case may take (default 3)")
    ap.add_argument("--guard", type=int, default=60, help="hang guard per case, seconds")
    ap.add_argument("--only", default=None, help="only the cases whose name starts with this")
    ap.add_argument("--show", type=int, default=15, help="how many of the slowest to list")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        todo = [c for c in cases(Path(d)) if args.only is None or c[0].startswith(args.only)]
        results = []
        for name, argv_, big in todo:
            rc, secs, err = run(argv_, args.guard)
            ok = rc in (0, 2) and err.count("\n") <= 1
            # a computation stopped by its stated bound (the odds' enumeration steps) is a big one
            bounded = rc == 2 and "enumeration steps: at most" in err
            results.append((secs, name, rc, ok, big or bounded, err.strip()[:100]))
    results.sort(reverse=True)
    bad = [r for r in results if not r[3]]
    slow = [r for r in results if r[0] > args.over and not r[4]]
    print(f"{len(results)} cases; {len(bad)} not ending in one line with exit 0 or 2; "
          f"{len(slow)} over {args.over:g} s (big computations apart)")
    for secs, name, rc, ok, big, err in results[:args.show]:
        tag = ("big" if rc == 0 else "bnd") if big else ("SLOW" if secs > args.over else "")
        print(f"{secs:7.2f} s {tag:4} {name:42.42} rc={rc} {err}")
    for secs, name, rc, ok, big, err in bad:
        print(f"BAD {name}: rc={rc} {err}")
    return 1 if bad or slow else 0


if __name__ == "__main__":
    sys.exit(main_())
