"""Game records (:class:`engine.core.record.GameRecord`): save, load, replay every state, undo.

A record is the scenario id, edition, options, seed and the ordered events; each event is an action
with every answer its procedure got (the raw die faces, the cards, the choices) and the notes with the
modified rolls. Replaying re-runs the same procedures on the recorded answers and checks each one fits
its request: a record that does not replay raises :class:`RecordError` naming the event's index.
"""
from __future__ import annotations

from functools import partial

from engine.core.data import data_path
from engine.core.errors import DataError, RecordError, VedetteError
from engine.core.record import GameRecord, replay_states

from .actions import Action
from .engine import apply_logged, new_game
from .state import GameState

__all__ = ["make_record", "replay_record", "initial_state", "apply_event", "undo", "state_at_turn", "ENGINE_VERSION"]

ENGINE_VERSION = "n20-game-3"


def make_record(state: GameState, events, meta=None) -> GameRecord:
    return GameRecord(game="n20", scenario=state.scenario_id, edition=state.scenario.edition,
                      options={"options": list(state.options), "tables": state.tables_file},
                      seed=state.seed, events=tuple(events), engine_version=ENGINE_VERSION, meta=meta or {})


#: shipped tables a record may name by id (``options.tables``) instead of by a file path
SHIPPED_TABLES = {"v3": ("n20", "tables_v3.yaml"), "v2": ("n20", "tables_v2.yaml")}


def _short(value, n: int = 40) -> str:
    """A piece of the record itself, cut short, for an error message."""
    r = repr(value)
    return r if len(r) <= n else r[: n - 1] + "…"


def initial_state(rec: GameRecord, allow_paths: bool = True) -> GameState:
    """The first state of a record. ``allow_paths=False`` (the served app) refuses a record that names a
    file (its ``scenario`` or ``options.tables``): only shipped scenarios and tables, by id. A file named by
    a record is never quoted in an error, whoever runs it: the message gives its field and what was
    expected there, not what the file holds."""
    from .scenario import scenario_ids

    if rec.game != "n20":
        raise RecordError(f"field 'game': expected 'n20', got {_short(rec.game)}")
    if rec.engine_version and rec.engine_version != ENGINE_VERSION:
        raise RecordError(f"field 'engine_version': this engine replays {ENGINE_VERSION} records, the record was "
                          f"made by {_short(rec.engine_version)}; it cannot be replayed by this version")
    opts = rec.options if isinstance(rec.options, dict) else {}
    tables = opts.get("tables")
    named_file = False
    if tables is not None and not isinstance(tables, str):
        raise RecordError(f"field 'options.tables': expected a shipped tables id ({', '.join(SHIPPED_TABLES)}) "
                          f"or nothing, got {_short(tables)}")
    if tables in SHIPPED_TABLES:
        tables = str(data_path(*SHIPPED_TABLES[tables]))
    elif tables is not None:
        if not allow_paths:
            raise RecordError(f"field 'options.tables': this server opens no file named by a record; name the "
                              f"shipped tables by id ({', '.join(SHIPPED_TABLES)}) or leave it empty for the "
                              f"scenario's own (got {_short(tables)})")
        named_file = True
    if rec.scenario not in scenario_ids():
        if not allow_paths:
            raise RecordError(f"field 'scenario': expected one of {', '.join(scenario_ids())} (this server opens "
                              f"no file named by a record), got {_short(rec.scenario)}")
        named_file = True
    try:
        st = new_game(rec.scenario, options=tuple(opts.get("options", ())), seed=rec.seed or 0, tables=tables)
    except DataError as exc:
        if named_file:   # the file's own text stays out of the message (its field and the expectation only)
            where = f"{exc.field}: " if exc.field else ""
            raise RecordError(f"the record's scenario cannot be set up: a file it names ({_short(exc.file, 60)}) "
                              f"was refused: {where}expected {exc.expected[:120]}") from None
        raise RecordError(f"the record's scenario cannot be set up: {exc}") from None
    except VedetteError as exc:
        raise RecordError(f"the record's scenario cannot be set up: {exc}") from None
    if rec.edition and rec.edition != st.scenario.edition:
        raise RecordError(f"field 'edition': the scenario {rec.scenario} is played with edition "
                          f"{st.scenario.edition}, the record says {_short(rec.edition)}")
    return st


def apply_event(state: GameState, event: dict) -> GameState:
    if event.get("kind") != "action" or "action" not in event:
        raise RecordError(f"expected an action event, got kind {event.get('kind')!r}")
    try:
        new, _ = apply_logged(state, Action.from_json(event["action"]), answers=event.get("answers", []))
    except RecordError as exc:
        # the index core.replay gives is the answer's position inside the event: name it, and let
        # replay_states name the event
        inner = f"answer {exc.index}: " if exc.index is not None else ""
        msg = str(exc).split(": ", 1)[1] if exc.index is not None and ": " in str(exc) else str(exc)
        raise RecordError(inner + msg) from None
    return new


def replay_record(rec: GameRecord, upto: int | None = None, allow_paths: bool = True) -> list[GameState]:
    """Every state of the recorded game (the first state, then one after each event); ``allow_paths=False``
    refuses a record naming a file (see :func:`initial_state`)."""
    start = initial_state if allow_paths else partial(initial_state, allow_paths=False)
    return replay_states(rec, start, apply_event, upto)


def undo(rec: GameRecord, n: int = 1) -> tuple[GameRecord, GameState]:
    """The record without its last ``n`` events, and the state it leads to."""
    short = rec.truncated(max(0, len(rec.events) - n))
    return short, replay_record(short)[-1]


def state_at_turn(rec: GameRecord, turn: int) -> GameState:
    """The state at the start of game turn ``turn`` (the last state if the game ended before it)."""
    states = replay_record(rec)
    for s in states:
        if s.turn >= turn:
            return s
    return states[-1]
