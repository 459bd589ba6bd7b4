"""Napoleonic 20 on the core game protocol (:class:`engine.core.game.GameRules`): Fuentes de Oñoro 20
(standard scenario and 18.1) and Bussaco 20.

``N20Rules`` supplies the rules only -- the first state, who acts, candidate actions, the check (the same
one applying runs), the rules procedure of each action, the outcome, JSON and a short text notation for
actions, a full position round trip, the invariants -- and core gives the record, replay, undo, the
session with half-answered actions, the one seeding rule and the bot loop.

Text notation (``format_action`` / ``parse_action``), one action a line::

    end                         end_phase            move FFER 0713-0712     path, hexes joined by '-'
    place AL1 0405              draw_event           night_move FX 0901-0902
    declare F1+F2>A1 F3>garrison:0906               countercharge AC>F1
    resolve 0                   rally F2,F3 spend    add_dummy FCL FD1        withdraw A1
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.core.codec import from_json as codec_from_json, to_json as codec_to_json
from engine.core.data import data_path, parse_json
from engine.core.errors import DataError, RecordError, RuleViolation, VedetteError
from engine.core.game import Bot, GameRules, Outcome, Places, Position, RandomBot, register
from engine.core.record import GameRecord
from engine.core.tables import ChartFile, GameTables, charts_summary, own_tables, tables_from_json

from .actions import KINDS, Action
from .handlers import candidates, check, perform
from .odds_words import n20_label, n20_value
from .queries import places
from .scenario import load_scenario, scenario_ids
from .setup import new_game, option_problem
from .state import OPTIONS, Battle, GameState
from .turn import actor
from .types import SIDES, Status, Step
from .view import hides, odds_view, view, visible_action, visible_event
from .words import (describe, describe_answer, describe_option, describe_result, metric_title, option_title,
                    piece_name)

__all__ = ["N20Rules", "RULES", "ENGINE_VERSION", "OLD_VERSIONS", "SHIPPED_TABLES", "action_from_json",
           "register_bot"]

#: n20-game-5: the readings of issue 29 (6.0 every step of a path, 6.9 judged at the end of the movement
#: phase, 12.2.1 a Guard reinforcement, 14.1 the night march's own forced march, 14.2 the night's rest,
#: Bussaco 16.8, 17.1 a square after a move). Records of n20-game-4 (the core record and seeding rule) and
#: n20-game-3 (all answers, no sides) replay under these readings as far as they still mean what they
#: meant: an event whose meaning a reading changed is refused naming the version and the rule
#: (:attr:`GameState.made_by`), as is one these readings no longer allow.
ENGINE_VERSION = "n20-game-5"
OLD_VERSIONS = ("n20-game-4", "n20-game-3")

#: shipped tables a record may name by id (``options.tables``) instead of by a file path
SHIPPED_TABLES = {"v3": ("n20", "tables_v3.yaml"), "v2": ("n20", "tables_v2.yaml")}


def _tables_id(path: str | GameTables | None) -> str | dict[str, Any] | None:
    """A shipped tables file by its id (``v3``, ``v2``), any other file as it was named; a game's own
    tables (:class:`~engine.core.tables.GameTables`) as their name, fingerprint and content."""
    if path is None:
        return None
    if isinstance(path, GameTables):
        return path.to_json()
    for tid, parts in SHIPPED_TABLES.items():
        if str(path) == str(data_path(*parts)):
            return tid
    return path


def _chart_file(edition: str) -> ChartFile:
    from ..tables import Tables, TablesModel

    def validate(data, file):
        from engine.core.data import validate as check
        return Tables(check(data, TablesModel, file), file)
    title = {"v3": "Napoleonic 20, v3.0 charts (CRT, TEC, Rally, Controlled Advance, Morale Chart)",
             "v2": "Napoleonic 20, older edition charts (Bussaco)"}[edition]

    def claims(data: Any) -> bool:
        return isinstance(data, dict) and data.get("edition") == edition
    return ChartFile(f"n20-{edition}", title, "charts", data_path(*SHIPPED_TABLES[edition]), validate, claims)


CHART_FILES = (_chart_file("v3"), _chart_file("v2"))


def _short(value, n: int = 40) -> str:
    r = repr(value)
    return r if len(r) <= n else r[: n - 1] + "…"


# ------------------------------------------------------------------------------------------------
# Actions as JSON, checked field by field
# ------------------------------------------------------------------------------------------------
_ACTION_FIELDS = ("kind", "unit", "hex", "path", "battles", "units", "index", "spend")


def _json_error(what: str, _field: str, expected: str) -> VedetteError:
    return VedetteError(f"{what}: expected {expected}")


def _field_error(name: str, expected: str, got) -> VedetteError:
    return VedetteError(f"action field {name!r}: expected {expected}, got {_short(got)}")


def _str_list(d: dict, name: str, what: str) -> tuple[str, ...]:
    v = d.get(name)
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _field_error(name, f"a list of {what} (strings)", v)
    return tuple(v)


def action_from_json(d) -> Action:
    """An :class:`Action` from JSON, every field checked (a list where a unit id is expected, a number
    where a string is: :class:`VedetteError` naming the field)."""
    if isinstance(d, Action):
        return d
    if not isinstance(d, dict):
        raise VedetteError(f"an action is a JSON object with a 'kind', got {_short(d)}")
    unknown = sorted(set(d) - set(_ACTION_FIELDS))
    if unknown:
        raise VedetteError(f"action field {unknown[0]!r}: not a field of an action (fields: {', '.join(_ACTION_FIELDS)})")
    kind = d.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise _field_error("kind", f"one of {', '.join(KINDS)}", kind)
    for name, what in (("unit", "a unit id (a string)"), ("hex", "a hex label (a string such as '0713')")):
        if d.get(name) is not None and not isinstance(d[name], str):
            raise _field_error(name, what, d[name])
    index = d.get("index")
    if index is not None and (isinstance(index, bool) or not isinstance(index, int)):
        raise _field_error("index", "a whole number (the declared battle's position)", index)
    spend = d.get("spend", False)
    if not isinstance(spend, bool):
        raise _field_error("spend", "true or false", spend)
    battles = d.get("battles")
    bs = ()
    if battles is not None:
        if not isinstance(battles, list):
            raise _field_error("battles", "a list of {attackers, defenders} objects", battles)
        out = []
        for i, b in enumerate(battles):
            if not isinstance(b, dict) or set(b) != {"attackers", "defenders"}:
                raise _field_error(f"battles[{i}]", "an object with 'attackers' and 'defenders' lists", b)
            out.append(Battle(tuple(sorted(_str_list(b, "attackers", "unit ids"))),
                              tuple(sorted(_str_list(b, "defenders", "unit ids")))))
        bs = tuple(out)
    return Action(kind=kind, unit=d.get("unit"), hex=d.get("hex"), path=_str_list(d, "path", "hex labels"),
                  battles=bs, units=_str_list(d, "units", "unit ids"), index=index, spend=spend)


# ------------------------------------------------------------------------------------------------
# Text notation
# ------------------------------------------------------------------------------------------------
_WORD = {"end_phase": "end"}
_KIND_OF_WORD = {v: k for k, v in _WORD.items()}
#: what follows the kind, per kind
_SHAPE = {"place": ("unit", "hex"), "move": ("unit", "path"), "night_move": ("unit", "path"),
          "disengage": ("unit", "path"), "penetrate": ("unit", "path"), "form_square": ("unit",),
          "breakdown": ("unit",), "withdraw": ("unit",), "add_dummy": ("unit", "units?"),
          "place_fieldworks": ("hex",), "countercharge": ("battles",), "declare": ("battles",),
          "resolve": ("index",), "rally": ("units", "spend?")}


def format_action(a: Action) -> str:
    bits = [_WORD.get(a.kind, a.kind)]
    for part in _SHAPE.get(a.kind, ()):
        name = part.rstrip("?")
        v = getattr(a, name)
        if name == "unit" and v is not None:
            bits.append(v)
        elif name == "hex" and v is not None:
            bits.append(v)
        elif name == "path" and v:
            bits.append("-".join(v))
        elif name == "units" and v:
            bits.append(",".join(v))
        elif name == "battles":
            bits += [f"{'+'.join(b.attackers)}>{'+'.join(b.defenders)}" for b in v]
        elif name == "index" and v is not None:
            bits.append(str(v))
        elif name == "spend" and v:
            bits.append("spend")
    text = " ".join(bits)
    try:
        if parse_action(text) == a:
            return text
    except VedetteError:
        pass
    return json.dumps(a.to_json(), separators=(",", ":"))   # fields the notation has no place for


def parse_action(text: str) -> Action:
    text = str(text).strip()
    if text.startswith("{"):
        # bounded as every JSON Vedette reads (nesting, digits, length): the page sends this text
        return action_from_json(parse_json(text, "action", _json_error))
    words = text.split()
    if not words:
        raise VedetteError("action: empty; give a kind such as 'end' or 'move FFER 0713-0712'")
    kind = _KIND_OF_WORD.get(words[0], words[0])
    if kind not in KINDS:
        raise VedetteError(f"action: unknown kind {words[0][:30]!r}; one of end, {', '.join(k for k in KINDS if k != 'end_phase')}")
    rest = words[1:]
    d: dict = {"kind": kind}
    shape = _SHAPE.get(kind, ())
    if shape == ("battles",):
        bs = []
        for w in rest:
            if w.count(">") != 1:
                raise VedetteError(f"action: battle {w[:40]!r} is not ATTACKERS>DEFENDERS (units joined by '+')")
            att, dfd = w.split(">")
            bs.append({"attackers": [x for x in att.split("+") if x], "defenders": [x for x in dfd.split("+") if x]})
        d["battles"] = bs
        return action_from_json(d)
    i = 0
    for part in shape:
        name, optional = part.rstrip("?"), part.endswith("?")
        if i >= len(rest):
            if optional:
                continue
            raise VedetteError(f"action: {kind} needs its {name} ({' '.join(p.rstrip('?') for p in shape)})")
        w = rest[i]
        if name == "spend":
            if w != "spend":
                raise VedetteError(f"action: expected 'spend' after the units, got {w[:20]!r}")
            d["spend"] = True
        elif name == "path":
            d["path"] = w.split("-")
        elif name == "units":
            d["units"] = [x for x in w.split(",") if x]
        elif name == "index":
            try:
                d["index"] = int(w)
            except ValueError:
                raise VedetteError(f"action: the battle number is a whole number, got {w[:20]!r}") from None
        else:
            d[name] = w
        i += 1
    if i < len(rest):
        raise VedetteError(f"action: {' '.join(rest[i:])[:40]!r} left over after '{kind}'")
    return action_from_json(d)


# ------------------------------------------------------------------------------------------------
# The bots (they import this module, never the reverse)
# ------------------------------------------------------------------------------------------------
_BOTS: dict[str, Callable[..., Bot]] = {"random": RandomBot}


def register_bot(name: str, factory: Callable[..., Bot]) -> None:
    """Offer a bot by ``name`` (:meth:`N20Rules.bots`); ``factory(seed=...)`` makes one. The bot modules
    are above the protocol: they import it, and the package registers them when it is imported."""
    _BOTS[name] = factory


# ------------------------------------------------------------------------------------------------
# The rules
# ------------------------------------------------------------------------------------------------
_RESULT_RULES = (("12.1.2", "12.1.2"), ("sudden death", "4.0"), ("12.7", "12.7"))


class N20Rules(GameRules[GameState, Action]):
    system = "n20"
    title = "Napoleonic 20 (Fuentes de Oñoro 20, Bussaco 20)"
    sides = SIDES
    engine_version = ENGINE_VERSION
    accepts_versions = OLD_VERSIONS
    default_scenario = "fuentes"

    def __init__(self, allow_paths: bool = True, tables: str | GameTables | None = None):
        #: ``allow_paths=False`` (the served app): no scenario or tables file named by a record or a request
        self.allow_paths = allow_paths
        #: the charts a new game plays with when the options name none: a game's own tables (the record
        #: keeps them), a shipped id, or (``allow_paths``) a tables file's path
        self.tables = tables
        self.game_tables = tables if isinstance(tables, GameTables) else None

    # --- a game's own charts (engine/core/tables.py) ---------------------------------------------
    def chart_files(self, state: GameState | None = None) -> tuple[ChartFile, ...]:
        """The v3.0 and the older edition's charts; a game plays with its scenario's edition's."""
        if state is None:
            return CHART_FILES
        return tuple(f for f in CHART_FILES if f.key == f"n20-{state.scenario.edition}")

    def with_tables(self, tables: GameTables | None) -> "N20Rules":
        if tables == self.game_tables and (tables is not None or self.tables is None):
            return self
        return N20Rules(allow_paths=self.allow_paths, tables=own_tables(self, tables))

    def tables_of(self, state: GameState) -> GameTables | None:
        return state.tables_file if isinstance(state.tables_file, GameTables) else None

    # --- what the protocol asks for --------------------------------------------------------------
    def scenarios(self) -> dict[str, str]:
        return {sid: load_scenario(sid).name for sid in scenario_ids()}

    def options(self) -> dict[str, str]:
        return dict(OPTIONS)

    def new_game(self, scenario: str | None = None, options: Sequence[str] | Mapping = (), seed: int = 0,
                 tables: str | None = None) -> GameState:
        """``options``: option names, or a record's ``{"options": [...], "tables": id-or-file}``."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise VedetteError(f"seed: expected a whole number, got {_short(seed)}")
        scenario = scenario or self.default_scenario
        if isinstance(options, Mapping):
            names = options.get("options", ())
            if not isinstance(names, (list, tuple)) or not all(isinstance(o, str) for o in names):
                raise RecordError(f"field 'options.options': expected a list of option names, got {_short(names)}")
            tables = options.get("tables", tables)
        else:
            names = options
        tables = self._tables(tables if tables is not None else self.tables)
        if scenario not in scenario_ids() and not self.allow_paths:
            raise RecordError(f"field 'scenario': expected one of {', '.join(scenario_ids())} (this server opens "
                              f"no file named by a record), got {_short(scenario)}")
        if isinstance(tables, GameTables):
            edition = load_scenario(scenario).edition
            if tables.value.edition != edition:
                rules = "the v3.0 Standard Rules" if edition == "v3" else "the older edition of the rules"
                raise VedetteError(f"tables: {tables.name} holds the {tables.value.edition} charts; the "
                                   f"scenario {scenario} is played with the {edition} ones ({rules}): make the "
                                   "file from those on the charts page")
        return new_game(scenario, options=tuple(names), seed=seed, tables=tables)

    def _tables(self, tables):
        if tables is None or isinstance(tables, GameTables):
            return tables
        if isinstance(tables, dict):               # a game's own tables, kept by its record
            return tables_from_json(self, tables)
        if not isinstance(tables, str):
            raise RecordError(f"field 'options.tables': expected a shipped tables id ({', '.join(SHIPPED_TABLES)}), "
                              f"a game's own tables (file, chart, fingerprint, content) or nothing, got {_short(tables)}")
        if tables in SHIPPED_TABLES:
            return str(data_path(*SHIPPED_TABLES[tables]))
        if not self.allow_paths:
            raise RecordError(f"field 'options.tables': this server opens no file named by a record; name the "
                              f"shipped tables by id ({', '.join(SHIPPED_TABLES)}) or leave it empty for the "
                              f"scenario's own (got {_short(tables)})")
        return tables

    def initial_state(self, record: GameRecord) -> GameState:
        """The first state of a record: a scenario by id or (``allow_paths``) by file; a file named by a
        record is never quoted in an error (its field and what was expected there only)."""
        if record.game != self.system:
            raise RecordError(f"field 'game': expected 'n20', got {_short(record.game)}")
        if record.engine_version and record.engine_version != ENGINE_VERSION \
                and record.engine_version not in OLD_VERSIONS:
            raise RecordError(f"field 'engine_version': this engine replays {ENGINE_VERSION} (and "
                              f"{', '.join(OLD_VERSIONS)}) records, the record was made by "
                              f"{_short(record.engine_version)}; it cannot be replayed by this version")
        opts = record.options if isinstance(record.options, dict) else {}
        named_file = record.scenario not in scenario_ids() or (
            isinstance(opts.get("tables"), str) and opts.get("tables") not in SHIPPED_TABLES)
        seed = record.seed if record.seed is not None else 0
        try:
            st = self.new_game(record.scenario, opts, seed)
        except RecordError:
            raise
        except DataError as exc:
            if named_file:
                where = f"{exc.field}: " if exc.field else ""
                raise RecordError(f"the record's scenario cannot be set up: a file it names ({_short(exc.file, 60)}) "
                                  f"was refused: {where}expected {exc.expected[:120]}") from None
            raise RecordError(f"the record's scenario cannot be set up: {exc}") from None
        except VedetteError as exc:
            raise RecordError(f"the record's scenario cannot be set up: {exc}") from None
        if record.edition and record.edition != st.scenario.edition:
            raise RecordError(f"field 'edition': the scenario {record.scenario} is played with edition "
                              f"{st.scenario.edition}, the record says {_short(record.edition)}")
        if record.engine_version in OLD_VERSIONS:
            st = replace(st, made_by=record.engine_version)      # its readings: refused where they differ
        return st

    def to_act(self, state: GameState) -> str | None:
        return actor(state)

    def candidates(self, state: GameState, unit: str | None = None):
        return candidates(state, unit)

    def legal_actions(self, state: GameState, unit: str | None = None) -> list[Action]:
        """The candidates that pass :meth:`check` (``unit``: only that unit's actions)."""
        if state.over:
            return []
        out = []
        for a in candidates(state, unit):
            try:
                check(state, a)
            except VedetteError:
                continue
            out.append(a)
        return out

    def check(self, state: GameState, action: Action) -> None:
        try:
            check(state, action)
        except RuleViolation as exc:
            if not state.made_by or "the record was made by" in exc.message:
                raise
            # an older record's event these readings no longer allow (issue 29): say whose readings it had
            raise RuleViolation(exc.rule, f"{exc.message} (the record was made by {state.made_by}, whose "
                                          f"readings differ from {ENGINE_VERSION}'s)") from None

    def perform(self, state: GameState, action: Action):
        return perform(state, action)

    def outcome(self, state: GameState) -> Outcome | None:
        if state.result is None:
            return None
        winner, level, reason = state.result
        rule = next((r for key, r in _RESULT_RULES if key in reason), "15.0")
        return Outcome(None if winner == "draw" else winner, level, reason, rule)

    def action_to_json(self, action: Action) -> dict:
        return action.to_json()

    def action_from_json(self, data) -> Action:
        return action_from_json(data)

    def format_action(self, action: Action) -> str:
        return format_action(action)

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def describe_action(self, action: Action) -> str:
        return describe(action)

    # --- a player's words (engine/n20/game/words.py) ---------------------------------------------
    def describe_option(self, state: GameState, request, option) -> str:
        return describe_option(state, request, option)

    def describe_answer(self, state: GameState, answer: dict) -> str:
        return describe_answer(state, answer)

    def describe_result(self, state: GameState, request, value) -> str:
        return describe_result(state, request, value)

    def option_title(self, name: str) -> str:
        return option_title(name)

    def metric_title(self, key: str) -> str:
        return metric_title(key)

    def piece_name(self, state: GameState, piece: str) -> str:
        return piece_name(state, piece)

    def scenario_options(self, scenario: str) -> dict[str, str]:
        """The options (:meth:`options`) a game of ``scenario`` may be played with, in a player's words: a
        new-game form offers these only (the Fuentes variants are not Bussaco's, nor Bussaco's 16.9
        Fuentes'); a new game refuses the others with the same reason (:func:`.setup.option_problem`)."""
        if scenario not in scenario_ids() and not self.allow_paths:
            raise VedetteError(f"scenario: one of {', '.join(scenario_ids())}")
        sc = load_scenario(scenario)
        return {name: option_title(name) for name in OPTIONS if option_problem(sc, name) is None}

    def rule_of(self, action: Action) -> str:
        return KINDS[action.kind]

    def coerce_action(self, action):
        if isinstance(action, dict):
            return action_from_json(action)
        if isinstance(action, str):
            return parse_action(action)
        return action

    def state_to_json(self, state: GameState) -> dict:
        """The whole position (every field of the state; the scenario by its id, shipped tables by id)."""
        d = codec_to_json(state)
        d["tables_file"] = _tables_id(state.tables_file)
        return d

    def state_from_json(self, data) -> GameState:
        if not isinstance(data, dict):
            raise VedetteError(f"a position is a JSON object (as state_to_json writes it), got {_short(data)}")
        own = data.get("tables_file")
        if isinstance(own, dict):                  # a game's own tables: validated again, fingerprint checked
            own = self._tables(own)
            data = {**data, "tables_file": None}
        st = codec_from_json(GameState, data)
        fix: dict[str, Any] = {}
        if isinstance(own, GameTables):
            fix["tables_file"] = own
        elif st.tables_file is not None:
            fix["tables_file"] = self._tables(st.tables_file)
        for name in ("event", "result", "last"):
            v = getattr(st, name)
            if isinstance(v, list):
                fix[name] = tuple(v)
        if fix:
            st = replace(st, **fix)
        if st.scenario_id not in scenario_ids() and not self.allow_paths:
            raise VedetteError(f"field 'scenario_id': one of {', '.join(scenario_ids())}")
        try:
            sc = st.scenario
        except VedetteError as exc:
            raise VedetteError(f"field 'scenario_id': the position's scenario cannot be loaded: {exc}") from None
        ids = [u.id for u in st.units]
        if sorted(ids) != sorted(sc.units):
            raise VedetteError("field 'units': a position lists every counter of its scenario once")
        return st

    def position(self, state: GameState) -> Position:
        return Position(state.turn, str(state.step))

    def record_options(self, state: GameState) -> dict:
        return {"options": list(state.options), "tables": _tables_id(state.tables_file)}

    def edition(self, state: GameState) -> str:
        return state.scenario.edition

    def scenario_of(self, state: GameState) -> str:
        return state.scenario_id

    def is_pass(self, action: Action) -> bool:
        return action.kind == "end_phase"

    def state_summary(self, state: GameState) -> dict:
        return {"scenario": state.scenario_id, "turn_label": state.scenario.turn_label(state.turn),
                "player": state.player, "morale": dict(state.morale), "actor": actor(state),
                "result": None if state.result is None else
                {"winner": state.result[0], "level": state.result[1], "reason": state.result[2]},
                "charts": charts_summary(self, state)}

    def invariants(self, state: GameState) -> list[str]:
        return invariants(state)

    def metrics(self, state: GameState) -> dict[str, float]:
        """What a study follows turn by turn: each side's Morale (12.0) and its units on the map,
        broken (9.6.1, may rally) and gone for good."""
        out: dict[str, float] = {f"morale.{side}": float(v) for side, v in state.morale}
        sc = state.scenario
        for side in ("french", "allied"):
            for status in ("map", "broken", "gone"):
                out[f"units_{status}.{side}"] = 0.0
        for u in state.units:
            d = sc.units[u.id]
            if d.type in ("leader", "dummy") or str(u.status) not in ("map", "broken", "gone"):
                continue
            key = f"units_{u.status}.{d.side}"
            if key in out:
                out[key] += 1
        return out

    def bots(self) -> dict[str, Callable[..., Bot]]:
        """The bots by name: core's random bot, and those :func:`register_bot` added (the package adds the
        greedy bot of :mod:`.bots` and the odds bot of :mod:`.odds_bot`)."""
        return dict(_BOTS)

    # --- what boards and each side's page may use (16.1 Fog of War: engine/n20/game/view.py) ------
    def places(self, state: GameState, action: Action) -> Places:
        return places(state, action)

    def hides(self, state: GameState) -> bool:
        return hides(state)

    def view(self, state: GameState, side: str | None) -> GameState:
        return view(state, side)

    def visible_action(self, state: GameState, action: Action, side: str | None) -> Action:
        return visible_action(state, action, side)

    def visible_event(self, state: GameState, event: dict, side: str | None) -> dict:
        try:
            action = action_from_json(event.get("action")) if isinstance(event, dict) else None
        except VedetteError:
            action = None                   # a malformed record's event: its ids are still masked
        return visible_event(state, event, side, action)

    def odds_view(self, state: GameState, action, side: str | None, **kw):
        """The exact odds of ``action`` that ``side`` may be shown (None when a face-down counter could
        change them, :func:`~engine.n20.game.view.odds_unknown` says which): the page asks this, not
        :func:`engine.core.odds.action_odds`, for a player's odds under Fog of War (16.1)."""
        return odds_view(self, state, self.coerce_action(action), side, **kw)

    # --- odds of an action (engine/core/odds.py) ------------------------------------------------
    def is_attack(self, action: Action) -> bool:
        """A declared battle resolved (9.0) and a countercharge (8.2) are decided by the dice."""
        return action.kind in ("resolve", "countercharge")

    def attack_candidates(self, state: GameState) -> list[Action]:
        """Attacks exist only in the combat and reaction steps (9.0, 8.0): no move list elsewhere."""
        if state.over or state.step not in ("combat", "reaction"):
            return []
        return [a for a in self.legal_actions(state) if self.is_attack(a)]

    def odds_label(self, before: GameState, after: GameState, action: Action):
        return n20_label(self, before, after, action)

    def evaluate(self, state: GameState, side: str) -> float:
        return n20_value(self, state, side)


# ------------------------------------------------------------------------------------------------
# Invariants (checked by the conformance suite at every state)
# ------------------------------------------------------------------------------------------------
def invariants(s: GameState) -> list[str]:
    out: list[str] = []
    sc = s.scenario
    board = s.board
    seen: dict[str, str] = {}
    sides: dict[str, set] = {}
    ids = [u.id for u in s.units]
    if len(ids) != len(set(ids)):
        out.append("a unit is listed twice (in two places)")
    for u in s.units:
        d = sc.units[u.id]
        if u.status == Status.MAP:
            if u.hex is None or not board.on_map(u.hex):
                out.append(f"{u.id} is on the map without a hex on the map ({u.hex})")
                continue
            sides.setdefault(u.hex, set()).add(d.side)
            if d.type != "leader":
                other_id = seen.get(u.hex)
                # 6.9 is judged at the end of the movement phase: within it a move may end on a friend that
                # moves on (a dummy pair 16.1.3, Cadres to build up 16.6.2 alike); a game may end within it
                if other_id is not None and s.step not in (Step.MOVEMENT, Step.OVER):
                    out.append(f"6.9: {u.id} and {other_id} stacked in {u.hex} ({s.step}, turn {s.turn})")
                seen[u.hex] = u.id
            g = board.garrisons.get(u.hex)
            if g is not None and not s.garrison_gone and g.side != d.side:
                out.append(f"9.4.4: {u.id} inside an enemy garrison in {u.hex}")
        elif u.hex is not None:
            out.append(f"{u.id} is {u.status} but still has a hex ({u.hex})")
    for h, ss in sides.items():
        if len(ss) > 1:
            out.append(f"6.3: both sides in {h}")
    mx = sc.tables.morale_maximum
    for side, m in s.morale:
        if not 0 <= m <= mx:
            out.append(f"12.1.1: {side} Morale {m} outside 0..{mx}")
    if not (1 <= s.turn <= sc.last_turn):
        out.append(f"turn {s.turn} outside the scenario's 1..{sc.last_turn}")
    if s.step not in tuple(Step):
        out.append(f"unknown step {s.step!r}")
    if s.player not in SIDES:
        out.append(f"unknown phasing player {s.player!r}")
    if (s.step == Step.OVER) != (s.result is not None):
        out.append("the step is 'over' exactly when there is a result")
    return out


#: the rules with the shipped scenarios and tables (they hold no game state: one serves every game)
RULES = N20Rules()

register("n20", N20Rules)
