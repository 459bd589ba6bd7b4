"""The game verbs of every system, written once over the protocol:

``vedette GAME new|legal|act|odds|undo|replay|play|simulate``, with the same options for every system:

* ``new --scenario S --options a,b --seed N --record FILE [--tables FILE]`` -- start a game, write its record
  (``--tables``: a tables file, as the /charts page saves it, whose values the game plays with; the record
  keeps its content and fingerprint, so every verb below uses them with no file at hand);
* ``legal --record FILE [--upto N | --turn T]`` -- the legal actions of the side to act;
* ``act --record FILE ACTION [--dice 3,5] [--choices JSON]`` -- play one action (JSON or text
  notation), append it to the record; without ``--dice`` the game's seeded dice roll;
* ``odds --record FILE ACTION [--upto N | --turn T]`` -- the exact odds of one action in the record's
  position (:func:`engine.core.odds.action_odds`, as the play page shows them); nothing is written;
* ``undo --record FILE [-n N]`` -- drop the last events;
* ``replay FILE [--upto N | --turn T]`` -- the position after some events (every event by default; a turn
  the record never reaches is refused, not answered with the last position);
* ``play --scenario S --seed N --bots A,B --record FILE [--tables FILE]`` -- a whole bot game.

Bad input (a record of another system, an action of the wrong shape, a die off its faces, ``--dice x``,
non-JSON ``--choices``): :class:`VedetteError`, which the CLI prints as one line with exit code 2; the
record file is written only after an action succeeded.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import stat
import tempfile
from pathlib import Path
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from .data import parse_json
from .errors import RecordError, VedetteError
from .game import GameRules, Session, action_seed, parse_dice, play_game, replay
from .procedure import Choose, NeedInput, RandomDice, TypedDice
from .record import GameRecord
from .tables import GameTables, read_tables_file, rules_for

__all__ = ["register_game_verbs", "parse_options", "parse_choices", "int_arg", "record_path", "summary", "load_record",
           "record_rules",
           "save_record", "state_at", "act", "odds", "parse_action_arg", "check_record_path"]

VERBS = ("new", "legal", "act", "odds", "undo", "replay", "play", "simulate")


def int_arg(name: str, lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number within bounds, with a one-line error naming the option."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"{name}: expected a whole number, got {str(text)[:20]!r}") from None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{name}: expected a number from {lo} to {hi}, got {v}")
        return v
    return parse


def parse_options(text: str | None) -> list[str]:
    return [o.strip() for o in (text or "").split(",") if o.strip()]


def _flag_error(what: str, field: str, expected: str) -> VedetteError:
    return VedetteError(f"{what}: expected {expected}")


def parse_choices(text: str | None) -> list[Any] | None:
    """``--choices``: a JSON list of answers to the procedure's questions, in order (bounded as every
    JSON Vedette reads: nesting, digits, length)."""
    if text is None:
        return None
    data = parse_json(text, "--choices", _flag_error)
    if not isinstance(data, list):
        raise VedetteError("--choices: expected a JSON list of answers, such as '[\"reserve\", 2]'")
    return data


def parse_action_arg(rules: GameRules[Any, Any], text: str) -> Any:
    """The ACTION argument: JSON (bounded, as :func:`parse_choices`) or the system's text notation."""
    if text.strip().startswith("{"):
        return rules.action_from_json(parse_json(text.strip(), "action", _flag_error))
    return rules.parse_action(text)


def check_record_path(path: str, flag: str = "--record") -> None:
    """Refuse, before anything is played or written, a record path whose folder is missing, is a file, is
    not writable, or whose name is too long: a file is made there and removed again (one line)."""
    p = Path(path).expanduser()
    folder = p.parent if str(p.parent) else Path(".")

    def mode(x: Path) -> int | None:
        try:
            return x.stat().st_mode
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise VedetteError(f"{flag}: cannot write {str(p)[:80]!r} ({exc.strerror or exc})") from None

    here = mode(p)
    if here is not None and not stat.S_ISREG(here):
        raise VedetteError(f"{flag}: {str(p)[:80]!r} is not a regular file (a folder, a FIFO, a device?)")
    there = mode(folder)
    if there is None:
        raise VedetteError(f"{flag}: no folder {str(folder)[:80]!r} to write {p.name[:40]!r} in")
    if not stat.S_ISDIR(there):
        raise VedetteError(f"{flag}: {str(folder)[:80]!r} is a file, not a folder")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=p.name + ".", suffix=".tmp")
    except OSError as exc:
        raise VedetteError(f"{flag}: cannot write {str(p)[:80]!r} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(tmp)


def load_record(rules: GameRules[Any, Any], path: str) -> GameRecord:
    """The record at ``path``, refused (naming the file) when it is another system's."""
    rec = GameRecord.load(path)
    if rec.game != rules.system:
        raise RecordError(f"field 'game': this is a record of {rec.game!r}, not {rules.system!r}", file=path)
    return rec


def record_rules(rules: GameRules[Any, Any], path: str) -> tuple[GameRules[Any, Any], GameRecord]:
    """The record at ``path`` and the rules its game plays with (the tables it keeps: bad or changed
    tables are refused naming the file and the field)."""
    rec = load_record(rules, path)
    with _naming(path):
        return rules_for(rules, rec), rec


def _tables(rules: GameRules[Any, Any], args: argparse.Namespace) -> GameTables | None:
    path = getattr(args, "tables", None)
    return None if path is None else read_tables_file(rules, path)


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """A record that loads but does not replay (a bad event, an engine version, a scenario) is named by
    its file in the one-line error, as a record that does not load is."""
    try:
        yield
    except RecordError as exc:
        if exc.file:
            raise
        named = RecordError(str(exc), file=path)
        named.index = exc.index
        raise named from None


def save_record(rec: GameRecord, path: str) -> None:
    """Write atomically: a failed or interrupted write leaves the old record as it was."""
    p = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=p.parent or ".", prefix=p.name + ".", suffix=".tmp")
    except OSError as exc:
        raise VedetteError(f"{path[:80]}: cannot write the record ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(rec.dumps())
        os.replace(tmp, p)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise VedetteError(f"{path}: cannot write the record ({exc.strerror})") from None


def summary(rules: GameRules[Any, Any], state: Any, record: GameRecord | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"system": rules.system, "position": str(rules.position(state)),
           "turn": rules.position(state).turn, "phase": rules.position(state).phase,
           "to_act": rules.to_act(state)}
    oc = rules.outcome(state)
    out["outcome"] = oc.to_json() if oc else None
    for k, v in rules.state_summary(state).items():
        out.setdefault(k, v)
    if record is not None:
        out["events"] = len(record.events)
        out["seed"] = record.seed
    return out


def state_at(rules: GameRules[Any, Any], rec: GameRecord, args: argparse.Namespace) -> tuple[Any, int]:
    """The position ``--upto`` / ``--turn`` name in the record, and how many events lead to it."""
    states = replay(rules, rec, upto=args.upto)
    if getattr(args, "turn", None) is not None:
        for i, s in enumerate(states):
            if rules.position(s).turn >= args.turn:
                return s, i
        # never the last position in the turn's place, silently: say how far the record goes
        raise VedetteError(f"--turn: the record reaches turn {rules.position(states[-1]).turn} at most "
                           f"(after {len(states) - 1} events), not turn {args.turn}")
    return states[-1], len(states) - 1


def register_game_verbs(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                        rules_factory: Callable[[], GameRules[Any, Any]],
                        aliases: dict[str, list[str]] | None = None, skip: tuple[str, ...] = ()) -> None:
    """Add the protocol's game verbs to a system's sub-command parser (``skip``: verbs the system
    keeps its own, older spelling of; ``aliases``: old verb names that mean the same)."""
    aliases = aliases or {}

    def common(p: argparse.ArgumentParser, record_required: bool) -> None:
        if record_required:
            _record_args(p)
        p.add_argument("--upto", type=int_arg("--upto", 0), default=None, help="use only the first N events")
        p.add_argument("--turn", type=int_arg("--turn", 0, 10_000), default=None,
                       help="the position at the start of game turn T")

    def start_opts(p: argparse.ArgumentParser) -> None:
        p.add_argument("--scenario", default=None, help="scenario id")
        p.add_argument("--options", default="", help="comma-separated optional rules and variants")
        p.add_argument("--seed", type=int_arg("--seed", 0, 2 ** 63 - 1), default=0, help="the game's seed")

    def tables_opt(p: argparse.ArgumentParser) -> None:
        p.add_argument("--tables", metavar="FILE", default=None,
                       help="a tables file (as the charts page saves it) whose printed values the game plays "
                            "with; the record keeps its content")

    if "new" not in skip:
        p = sub.add_parser("new", help="start a game and write its record", aliases=aliases.get("new", []))
        start_opts(p)
        tables_opt(p)
        p.add_argument("--record", "-r", required=True, metavar="FILE")
        p.set_defaults(handler=lambda a: _new(rules_factory(), a))
    if "legal" not in skip:
        p = sub.add_parser("legal", help="the legal actions of the side to act", aliases=aliases.get("legal", []))
        common(p, True)
        p.set_defaults(handler=lambda a: _legal(rules_factory(), a))
    if "act" not in skip:
        p = sub.add_parser("act", help="play one action and append it to the record", aliases=aliases.get("act", []))
        _record_args(p)
        p.add_argument("action", help="the action: JSON (as `legal` lists it) or its text notation")
        p.add_argument("--dice", default=None, help="die faces typed in, e.g. 3,5,1 (default: the game's seeded dice)")
        p.add_argument("--choices", default=None, help="JSON list of answers to the action's questions")
        p.set_defaults(handler=lambda a: act(rules_factory(), a))
    if "odds" not in skip:
        _odds_verb(sub, rules_factory, common)
    if "undo" not in skip:
        p = sub.add_parser("undo", help="drop the last events of a record", aliases=aliases.get("undo", []))
        _record_args(p)
        p.add_argument("-n", type=int_arg("-n", 1, 1_000_000), default=1, help="how many events")
        p.set_defaults(handler=lambda a: _undo(rules_factory(), a))
    if "replay" not in skip:
        p = sub.add_parser("replay", help="replay a record: the position after its events", aliases=aliases.get("replay", []))
        p.add_argument("file", metavar="RECORD")
        p.add_argument("--upto", type=int_arg("--upto", 0), default=None, help="replay only the first N events")
        p.add_argument("--turn", type=int_arg("--turn", 0, 10_000), default=None,
                       help="the position at the start of game turn T")
        p.add_argument("--full", action="store_true", help="print the whole position")
        p.set_defaults(handler=lambda a: _replay(rules_factory(), a))
    if "play" not in skip:
        p = sub.add_parser("play", help="a whole game between bots", aliases=aliases.get("play", []))
        start_opts(p)
        tables_opt(p)
        p.add_argument("--bots", default="greedy,greedy", help="one bot per side, e.g. greedy,random")
        p.add_argument("--record", "-r", default=None, metavar="FILE", help="write the game's record here")
        p.add_argument("--max-actions", type=int_arg("--max-actions", 1, 1_000_000), default=20000)
        p.set_defaults(handler=lambda a: _play(rules_factory(), a))
    if "simulate" not in skip:
        p = sub.add_parser("simulate", help="many bot games on Dask, with win rates and 95%% intervals",
                           aliases=aliases.get("simulate", []))
        start_opts(p)
        p.add_argument("--bots", default="greedy,greedy", help="one bot per side, e.g. greedy,random")
        p.add_argument("--games", type=int_arg("--games", 1, 1_000_000), default=100, help="how many games")
        p.add_argument("--workers", type=int_arg("--workers", 0, 256), default=None,
                       help="Dask LocalCluster worker processes (default: one per core; 0: in this process)")
        p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="an existing Dask scheduler")
        p.add_argument("--out", default=None, metavar="FILE.parquet", help="write one row per game")
        p.add_argument("--compare", default=None, metavar="OPTIONS",
                       help="also run the same games with these options and compare the win rates")
        p.add_argument("--max-actions", type=int_arg("--max-actions", 1, 1_000_000), default=20000)
        p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
        p.set_defaults(handler=lambda a: _simulate(rules_factory(), a))


def _odds_verb(sub: Any, rules_factory: Callable[[], GameRules[Any, Any]],
               common: Callable[[argparse.ArgumentParser, bool], None]) -> None:
    """``odds --record FILE ACTION``. A system with an ``odds`` verb of its own (n20: the odds of a battle
    file) keeps it: ``--record`` then makes its one argument the action to weigh in the record's position."""
    own = sub.choices.get("odds")
    if own is None:
        p = sub.add_parser("odds", help="the exact odds of one action in a record's position")
        p.add_argument("--record", "-r", required=True, metavar="FILE", help="the game record (JSON)")
        p.add_argument("action", help="the action: JSON (as `legal` lists it) or its text notation")
        common(p, False)
        _bound_args(p)
        p.set_defaults(handler=lambda a: odds(rules_factory(), a, a.action))
        return
    probe = "\x00probe"                 # the one argument the system's verb takes: where argparse puts it
    positional = next(k for k, v in vars(own.parse_known_args([probe])[0]).items() if v == probe)
    own.add_argument("--record", "-r", default=None, metavar="FILE",
                     help=f"a game record: {positional.upper()} is then an action, weighed in the record's position")
    common(own, False)
    _bound_args(own)
    theirs = own.get_default("handler")
    own.set_defaults(handler=lambda a: odds(rules_factory(), a, getattr(a, positional)) if a.record else theirs(a))


def _bound_args(p: argparse.ArgumentParser) -> None:
    from .odds import MAX_OUTCOMES, MAX_STEPS
    p.add_argument("--max-steps", type=int_arg("--max-steps", 1, 10 * MAX_STEPS), default=None,
                   help=f"stop the enumeration past this many steps (default {MAX_STEPS:,}, the page's bound)")
    p.add_argument("--max-outcomes", type=int_arg("--max-outcomes", 1, 10 * MAX_OUTCOMES), default=None,
                   help=f"refuse odds with more end positions than this (default {MAX_OUTCOMES:,})")


def _record_args(p: argparse.ArgumentParser) -> None:
    """``--record FILE``, or the file as the first argument (the older spelling: ``legal game.json``)."""
    p.add_argument("--record", "-r", default=None, metavar="FILE", help="the game record (JSON)")
    p.add_argument("record_file", nargs="?", default=None, metavar="RECORD", help="the game record, as --record")


def record_path(args: argparse.Namespace) -> str:
    """The record file named by ``--record`` or by the first argument (one of them, not two different ones)."""
    a, b = getattr(args, "record", None), getattr(args, "record_file", None)
    if a and b and a != b:
        raise VedetteError(f"--record: two different records given ({a[:40]!r} and {b[:40]!r})")
    if not (a or b):
        raise VedetteError("--record: name the game record file (--record FILE, or as the first argument)")
    return str(a or b)


def _new(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    check_record_path(args.record)
    s = Session.new(rules, args.scenario, parse_options(args.options), args.seed, tables=_tables(rules, args))
    save_record(s.record, args.record)
    return summary(s.rules, s.state, s.record)


def _legal(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    path = record_path(args)
    rules, rec = record_rules(rules, path)
    with _naming(path):
        state, _ = state_at(rules, rec, args)
    acts = rules.legal_actions(state)
    out = summary(rules, state, rec)
    out["legal"] = [{"text": rules.format_action(a), "says": rules.describe_action(a),
                     "action": rules.action_to_json(a)} for a in acts]
    return out


def act(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``act``: play one action on the record's last position and append it (nothing written if refused)."""
    path = record_path(args)
    rec = load_record(rules, path)
    with _naming(path):
        session = Session(rules, rec)
    rules = session.rules                       # the record's own tables, if it keeps any
    action = parse_action_arg(rules, args.action)
    dice_faces = parse_dice(args.dice)
    choices = parse_choices(args.choices)
    dice: RandomDice | TypedDice
    if dice_faces is None:
        dice = RandomDice(action_seed(rec.seed or 0, session.index))
    else:
        dice = TypedDice(dice_faces)
    queue = list(choices) if choices is not None else None

    def chooser(req: Choose) -> Hashable:
        if queue is None:
            return req.options[0]
        if not queue:
            raise NeedInput(req)
        answer: Hashable = queue.pop(0)
        return answer

    try:
        session.act(action, dice=dice, chooser=chooser)
    except NeedInput as exc:
        r = exc.request
        what = "die" if r.kind == "roll" else ("choice" if r.kind == "choose" else r.kind)
        raise VedetteError(f"[rule {r.rule}] the action needs another {what} ({r.label or r.kind}); "
                           f"give it with {'--choices' if r.kind == 'choose' else '--dice'}") from None
    if dice_faces is not None and isinstance(dice, TypedDice) and dice.used < len(dice_faces):
        raise VedetteError(f"--dice: {len(dice_faces) - dice.used} die face(s) left over; the action used {dice.used}")
    if queue:
        raise VedetteError(f"--choices: {len(queue)} answer(s) left over; the action asked for "
                           f"{len(choices or []) - len(queue)}")
    save_record(session.record, path)
    out = summary(rules, session.state, session.record)
    out["event"] = session.record.events[-1]
    return out


def odds(rules: GameRules[Any, Any], args: argparse.Namespace, action_text: str) -> dict[str, Any]:
    """``odds``: the exact odds of one action in the record's position (``--upto`` / ``--turn``), by the one
    :func:`~engine.core.odds.action_odds` the play page uses. An action the rules refuse in that position is
    one line naming the rule; an action past the enumeration bounds names the bound and how far it got."""
    from . import odds as bounds
    from .odds import action_odds
    path = record_path(args)
    rules, rec = record_rules(rules, path)
    with _naming(path):
        state, i = state_at(rules, rec, args)
    if rules.to_act(state) is None:
        raise VedetteError(f"{path}: the game is over: no action to weigh")
    action = parse_action_arg(rules, action_text)
    out = summary(rules, state, rec)
    out["after_events"] = i
    out["says"] = rules.describe_action(action)
    steps = getattr(args, "max_steps", None) or bounds.MAX_STEPS
    outcomes = getattr(args, "max_outcomes", None) or bounds.MAX_OUTCOMES
    out.update(action_odds(rules, state, action, max_outcomes=outcomes, max_steps=steps).to_json())
    return out


def _undo(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    path = record_path(args)
    rec = load_record(rules, path)
    with _naming(path):
        session = Session(rules, rec)
    session.undo(args.n)
    save_record(session.record, path)
    return summary(session.rules, session.state, session.record)


def _replay(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    rules, rec = record_rules(rules, args.file)
    with _naming(args.file):
        state, i = state_at(rules, rec, args)
    out = summary(rules, state, rec)
    out["after_events"] = i
    if args.full:
        out["state"] = rules.state_to_json(state)
    return out


def _play(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    bots = [b.strip() for b in args.bots.split(",")]
    if args.record:
        check_record_path(args.record)          # before the first action, not after the whole game
    rules = rules.with_tables(_tables(rules, args))
    final, rec = play_game(rules, bots, args.scenario, parse_options(args.options), args.seed,
                           max_actions=args.max_actions)
    if args.record and rec is not None:
        save_record(rec, args.record)
    out = summary(rules, final, rec)
    out["bots"] = bots
    return out


def _simulate(rules: GameRules[Any, Any], args: argparse.Namespace) -> dict[str, Any]:
    from .simulate import Study, StudyInterrupted, compare, run_study, summarise, write_parquet
    bots = tuple(b.strip() for b in args.bots.split(","))
    study = Study(rules.system, args.scenario, tuple(parse_options(args.options)), bots, args.games, args.seed,
                  args.max_actions).validate()
    other = None
    if args.compare is not None:
        try:
            other = Study(rules.system, study.scenario, tuple(parse_options(args.compare)), bots, args.games,
                          args.seed, args.max_actions).validate()
        except VedetteError as exc:        # the second option set's error names its own flag
            raise VedetteError("--compare: " + str(exc).removeprefix("--options: ")) from None
    if args.out and not str(args.out).endswith(".parquet"):
        raise VedetteError(f"--out: expected a FILE.parquet name, got {str(args.out)[:60]!r}")
    if args.out:
        folder = Path(args.out).expanduser().resolve().parent
        if not folder.is_dir():            # before any game is played, not after the whole study
            raise VedetteError(f"--out: no folder {str(folder)[:80]!r} to write {Path(args.out).name[:40]!r} in")
    interrupted = False
    try:
        rows = run_study(study, args.workers, args.scheduler, progress=not args.no_progress)
    except StudyInterrupted as exc:
        rows, interrupted = exc.rows, True
        if not rows:
            raise
    out = summarise(rows, study)
    if interrupted:
        out["interrupted"] = True
    if args.out:
        write_parquet(rows, args.out, study)
        out["out"] = args.out
    if other is not None and not interrupted:
        rows_b = run_study(other, args.workers, args.scheduler, progress=not args.no_progress)
        out["compare"] = {"b": summarise(rows_b, other),
                          "difference": {side: compare(rows, rows_b, side) for side in rules.sides}}
    return out
