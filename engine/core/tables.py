"""A player's printed values in a game: the content of a tables file (the file the /charts page saves), its
name and its fingerprint, checked by the system's own validating loader.

Many charts are printed on the games' player aids and not in the rulebooks, so several shipped charts are
provisional. A game may be played with a player's own values instead: ``vedette GAME new --tables FILE``
(or ``play``), or the play page's upload (:func:`upload_tables`). The game's record then keeps the whole
content under ``options.tables``, with its fingerprint, so ``replay``, ``legal``, ``act`` and ``odds`` use the
very same values with no file at hand; a record without it plays with the shipped charts, as before.

A system says which of its chart files a game may replace (:meth:`GameRules.chart_files
<engine.core.game.GameRules.chart_files>`, one :class:`ChartFile` each, with the loader's validation of
parsed data) and makes the rules of a game with such values (:meth:`~engine.core.game.GameRules.with_tables`).
The content goes through the same validation wherever it comes from: a file, an upload, a record. The
fingerprint is a check against a record edited by hand (a changed value with the old fingerprint is
refused, naming the field), not a signature.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, ClassVar, Protocol, TypeVar, cast

from .data import MAX_DEPTH, check_depth, decode_text, parse_data, provenance_kind, read_text
from .errors import DataError, RecordError, VedetteError, one_line, short
from .record import GameRecord


class GameRules(Protocol):
    """What this module asks of a system's rules (:class:`engine.core.game.GameRules` has it; named here so
    that core's game module imports this one and not the reverse)."""

    system: ClassVar[str]

    def chart_files(self, state: Any = None) -> tuple["ChartFile", ...]: ...

    def with_tables(self, tables: "GameTables | None") -> Any: ...

    def tables_of(self, state: Any) -> "GameTables | None": ...


R = TypeVar("R", bound=GameRules)

__all__ = ["ChartFile", "GameTables", "TablesUpload", "MAX_TABLES_BYTES", "YOURS", "read_tables", "read_tables_file",
           "tables_from_content", "tables_from_json", "tables_from_record", "rules_for", "upload_tables",
           "charts_summary", "fingerprint_of", "own_tables", "check_tables"]

#: the largest tables file a game takes (the shipped ones are 3 to 23 KB; a record must stay under 1 MiB)
MAX_TABLES_BYTES = 262_144

#: how the values of a game's own tables file are named in summaries and badges
YOURS = "your printed values"

_FINGERPRINT = re.compile(r"^sha256:[0-9a-f]{16}$")
_JSON_KEYS = ("file", "chart", "fingerprint", "content")


def _always(_data: Any) -> bool:
    return True


@dataclass(frozen=True)
class ChartFile:
    """One shipped chart file a game may replace: ``key`` (``"n20-v3"``), a player's ``title`` and short
    ``label``, the shipped ``path``, ``validate(data, file)`` (parsed data to the loaded charts, or a
    :class:`DataError` naming the file, field and expectation: the loader's own checks) and ``claims(data)``
    (is a file with this content meant to be this chart file: which of a system's files a loaded file is)."""

    key: str
    title: str
    label: str
    path: Path
    validate: Callable[[Any, str], Any]
    claims: Callable[[Any], bool] = _always


class GameTables:
    """A game's own tables: which chart file they replace (``chart``), the file's ``name``, the content
    (``text``, canonical JSON: a value, never changed), its ``fingerprint``, and the loaded charts the rules
    use (``value``). Equal (and hashed) by chart file, fingerprint and name, so it can stand in memo and
    cache keys. Not a dataclass: a position holding it is written as :meth:`to_json` says."""

    __slots__ = ("chart", "name", "text", "fingerprint", "value")
    chart: str
    name: str
    text: str
    fingerprint: str
    value: Any

    def __init__(self, chart: str, name: str, text: str, fingerprint: str, value: Any) -> None:
        for k, v in (("chart", chart), ("name", name), ("text", text), ("fingerprint", fingerprint), ("value", value)):
            object.__setattr__(self, k, v)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("a game's tables are a value: they never change")

    def __repr__(self) -> str:
        return f"GameTables(chart={self.chart!r}, name={self.name!r}, fingerprint={self.fingerprint!r})"

    @property
    def content(self) -> Any:
        """The content as data (a fresh copy: the value itself never changes)."""
        return json.loads(self.text)

    def to_json(self) -> dict[str, Any]:
        """What a record keeps (``options.tables``): the file's name, the chart file, the fingerprint, the content."""
        return {"file": self.name, "chart": self.chart, "fingerprint": self.fingerprint, "content": self.content}

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, GameTables) and (self.chart, self.fingerprint, self.name)
                                 == (other.chart, other.fingerprint, other.name))

    def __hash__(self) -> int:
        return hash(("tables", self.chart, self.fingerprint, self.name))

    def provenance(self) -> dict[str, dict[str, str]]:
        """Each chart of the file with its own provenance (the ``source`` typed for it)."""
        return _blocks(self.text, self.chart)


def fingerprint_of(text: str) -> str:
    """``sha256:`` and the first 16 hex digits of the SHA-256 of canonical JSON text."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _canonical(data: Any, file: str) -> str:
    """The content as canonical JSON (keys sorted, no spaces): what the fingerprint is taken of. YAML values
    JSON cannot hold are refused (a key that is a list, NaN)."""
    try:
        # as JSON first (keys become text: YAML's 1 and 10 sort as "1" < "10" < "2", as the record's will)
        plain = json.loads(json.dumps(data, ensure_ascii=False, allow_nan=False, default=str))
        return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise DataError(file, "", f"values a record can keep: text, numbers, lists and mappings "
                                  f"({short(one_line(exc), 60)[1:-1]})") from None


def _name(filename: Any) -> str:
    """The file's own name (no folder), one line, at most 80 characters: what records and badges show."""
    name = Path(one_line(str(filename or "tables.yaml")).replace("\\", "/")).name or "tables.yaml"
    return name if len(name) <= 80 else name[:79] + "…"


def tables_from_content(rules: GameRules, data: Any, name: str, chart: str | None = None) -> GameTables:
    """Parsed content (of a file, an upload or a record) as a game's tables: the chart file it replaces
    (``chart``, else the first of the system's that claims it), checked by that file's validation. Keys
    become text first (as JSON keeps them), so a file and the record made from it are validated alike."""
    files = rules.chart_files()
    if not files:
        raise VedetteError(f"{rules.system}: a game of this system plays with no chart a tables file replaces")
    if not isinstance(data, dict):
        raise DataError(name, "", "a tables file: a mapping of charts, as the charts page saves it", data)
    check_depth(data, name, MAX_DEPTH)
    text = _canonical(data, name)
    content = json.loads(text)
    if chart is None:
        cf = next((f for f in files if f.claims(content)), files[0])
    else:
        named = next((f for f in files if f.key == chart), None)
        if named is None:
            raise DataError(name, "chart", f"one of {', '.join(f.key for f in files)}", chart)
        cf = named
    try:
        value = cf.validate(content, name)
    except RecursionError:
        raise DataError(name, "", f"nesting at most {MAX_DEPTH} levels deep") from None
    return GameTables(cf.key, name, text, fingerprint_of(text), value)


def read_tables(rules: GameRules, raw: bytes | str, filename: str = "tables.yaml") -> GameTables:
    """A tables file's bytes (or text) as a game's tables: at most :data:`MAX_TABLES_BYTES`, UTF-8 text,
    YAML or JSON within core's bounds, then :func:`tables_from_content`. Any problem is one
    :class:`~engine.core.errors.VedetteError` line naming the file (its name only), the field and what was
    expected there."""
    name = _name(filename)
    if not isinstance(raw, (bytes, bytearray, str)):
        raise DataError(name, "", "the bytes of a tables file")
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > MAX_TABLES_BYTES:
        raise DataError(name, "", f"a tables file of at most {MAX_TABLES_BYTES // 1024} KiB (this one has "
                                  f"{size // 1024} KiB; the charts page saves files of a few KiB)")
    text = raw if isinstance(raw, str) else decode_text(bytes(raw), name)
    data = parse_data(text, name)
    if data is None:
        raise DataError(name, "", "a tables file, not an empty document")
    return tables_from_content(rules, data, name)


def read_tables_file(rules: GameRules, path: str | Path, flag: str = "--tables") -> GameTables:
    """``--tables FILE``: the file read within the bounds (a FIFO, a folder, a binary file refused), then
    :func:`read_tables`; errors name the file as given."""
    def fail(file: str, fld: str, expected: str) -> DataError:
        return DataError(f"{flag} {file}", fld, expected)
    text = read_text(path, error=fail)
    if len(text.encode("utf-8")) > MAX_TABLES_BYTES:
        raise DataError(f"{flag} {path}", "", f"a tables file of at most {MAX_TABLES_BYTES // 1024} KiB")
    return read_tables(rules, text, str(path))


@dataclass(frozen=True)
class TablesUpload:
    """What :func:`upload_tables` gives the play page: the validated ``tables`` and the ``rules`` of a new
    game played with them, or ``error``, the one line to show (then both are None and nothing should
    change)."""

    tables: GameTables | None
    error: str = ""
    rules: Any = None

    @property
    def ok(self) -> bool:
        return self.tables is not None


def upload_tables(rules: R, data: bytes, filename: str = "tables.yaml") -> TablesUpload:
    """The play page's one entry point for a player's tables: the bytes a browser sent (at most
    :data:`MAX_TABLES_BYTES`; the file's name is only shown, never opened) as the validated tables of a new
    game of ``rules``' system, and those rules with the tables (``upload.rules``: start the game with them
    as with any rules, ``new_game`` then ``new_record``, or ``Session.new(upload.rules, ...)``; the record
    keeps the tables). On a problem: ``upload.error``, one line naming the file, the field and what was
    expected. Panel-free. A saved game is opened with the rules of :func:`rules_for`."""
    try:
        tables = read_tables(rules, data, filename)
        return TablesUpload(tables, "", cast(R, rules.with_tables(tables)))
    except VedetteError as exc:
        return TablesUpload(None, str(exc))


def tables_from_json(rules: GameRules, value: Any, where: str = "options.tables") -> GameTables:
    """A record's tables (``{"file", "chart", "fingerprint", "content"}``, as :meth:`GameTables.to_json`
    writes them): every field checked, the fingerprint taken again and compared (a content changed by hand
    is refused), the content validated as a file would be. A problem is one :class:`RecordError` naming the
    field (``options.tables.content.crt.rows``)."""
    def bad(fld: str, expected: str, got: Any = None) -> RecordError:
        tail = "" if got is None else f", got {short(got, 60)}"
        return RecordError(f"field '{where}{'.' + fld if fld else ''}': expected {expected}{tail}")

    if not isinstance(value, dict):
        raise bad("", "an object with the file, chart, fingerprint and content of a tables file", value)
    extra = sorted(map(str, set(value) - set(_JSON_KEYS)))
    if extra:
        raise bad(short(extra[0], 30)[1:-1], f"only the keys {', '.join(_JSON_KEYS)}")
    for key, typ, what in (("file", str, "the tables file's name (text)"), ("chart", str, "a chart file's key (text)"),
                           ("fingerprint", str, "'sha256:' and 16 hex digits"), ("content", dict, "an object")):
        if not isinstance(value.get(key), typ):
            raise bad(key, what, value.get(key))
    name = value["file"]
    if _name(name) != name:
        raise bad("file", "a file's own name (no folder, one line, at most 80 characters)", name)
    if not _FINGERPRINT.match(value["fingerprint"]):
        raise bad("fingerprint", "'sha256:' and 16 hex digits", value["fingerprint"])
    chart = value["chart"]
    if chart not in {f.key for f in rules.chart_files()}:
        raise bad("chart", f"one of {', '.join(f.key for f in rules.chart_files()) or 'nothing (no charts)'}", chart)
    try:
        text = _canonical(value["content"], name)
    except DataError as exc:
        raise bad("content", exc.expected) from None
    if fingerprint_of(text) != value["fingerprint"]:
        raise RecordError(f"field '{where}.fingerprint': the content's fingerprint is {fingerprint_of(text)}, "
                          f"the record says {value['fingerprint']}: the tables were changed after the game "
                          f"began (by hand?); this record is refused")
    try:
        return _cached(rules, chart, name, text)
    except DataError as exc:
        fld = f"content.{exc.field}" if exc.field else "content"
        raise bad(fld, exc.expected, exc.got) from None
    except VedetteError as exc:
        raise RecordError(f"field '{where}.content': {exc}") from None


def _cached(rules: GameRules, chart: str, name: str, text: str) -> GameTables:
    """Validated tables of a record, kept per system, chart, name and content (a session's verbs and pages
    read one record's tables many times)."""
    return _validated(rules.system, type(rules), chart, name, text, rules)


_VALIDATED: dict[tuple[str, type, str, str, str], GameTables] = {}      # (system, rules class, chart, name, content) -> GameTables, the 32 latest


def _validated(system: str, cls: type, chart: str, name: str, text: str, rules: GameRules) -> GameTables:
    key = (system, cls, chart, name, text)
    got = _VALIDATED.get(key)
    if got is None:
        got = tables_from_content(rules, json.loads(text), name, chart=chart)
        if len(_VALIDATED) >= 32:
            _VALIDATED.pop(next(iter(_VALIDATED)))
        _VALIDATED[key] = got
    return got


def own_tables(rules: GameRules, tables: GameTables | None) -> GameTables | None:
    """``tables`` when they replace one of ``rules``' chart files (None passes): for ``with_tables``."""
    if tables is not None and tables.chart not in {f.key for f in rules.chart_files()}:
        raise VedetteError(f"{rules.system}: {tables.name} holds the {tables.chart} charts, not charts of this "
                           f"game ({', '.join(f.key for f in rules.chart_files()) or 'it has none to replace'})")
    return tables


def tables_from_record(rules: GameRules, record: GameRecord) -> GameTables | None:
    """The tables a record keeps (``options.tables`` as an object), or None (the shipped charts; an n20
    record may also name shipped tables by id, which its rules read themselves)."""
    opts = record.options if isinstance(record.options, dict) else {}
    value = opts.get("tables")
    if value is None or isinstance(value, str):
        return None
    return tables_from_json(rules, value)


def rules_for(rules: R, record: GameRecord) -> R:
    """The rules ``record``'s game plays with: ``rules`` with the tables the record keeps (the shipped charts
    when it keeps none). Replay, sessions and the CLI verbs take their rules from here; so must a page that
    opens a saved game (the TBF and BC rules hold their charts, not their positions)."""
    return cast(R, rules.with_tables(tables_from_record(rules, record)))     # a system's with_tables keeps its type


def check_tables(rules: GameRules, record: GameRecord, state: Any) -> None:
    """The record's first position plays with the tables the record keeps (its own printed values, or the
    shipped charts when it keeps none): rules made for other tables are refused, not used silently (take a
    record's rules from :func:`~engine.core.tables.rules_for`)."""
    kept = tables_from_record(rules, record)
    if kept is None and isinstance((record.options or {}).get("tables"), str):
        return                              # n20: shipped tables named by id (or a file), read by its rules
    if rules.tables_of(state) != kept:
        raise RecordError("field 'options.tables': the record's game plays with "
                          + (f"the tables {kept.name} ({kept.fingerprint})" if kept else "the shipped charts")
                          + ", these rules with other ones (take them from rules_for(record))")


# --------------------------------------------------------------------------------------------------
# provenance
# --------------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _blocks(text: str, chart: str) -> dict[str, dict[str, str]]:
    content = json.loads(text)
    out: dict[str, dict[str, str]] = {}
    if isinstance(content, dict):
        for k, v in content.items():
            if isinstance(v, dict) and isinstance(v.get("source"), str):
                out[str(k)] = {"source": v["source"], "kind": provenance_kind(v["source"])}
        if not out and isinstance(content.get("source"), str):
            out[chart] = {"source": content["source"], "kind": provenance_kind(content["source"])}
    return out


@lru_cache(maxsize=16)
def _shipped_text(path: str) -> str:
    return _canonical(parse_data(Path(path).read_text(encoding="utf-8"), path), path)


def charts_summary(rules: GameRules, state: Any) -> list[dict[str, Any]]:
    """Where the charts of a game come from, one entry per chart file it plays with: ``values`` is
    :data:`YOURS` (with the file's name and fingerprint) or ``"shipped"``, and ``tables`` gives each chart
    its own provenance (rulebook, published chart, provisional, as its ``source`` says): what the play
    page's provenance badge shows and what ``state_summary`` carries."""
    mine = rules.tables_of(state)
    out: list[dict[str, Any]] = []
    for cf in rules.chart_files(state):
        if mine is not None and mine.chart == cf.key:
            out.append({"chart": cf.key, "title": cf.title, "values": YOURS, "file": mine.name,
                        "fingerprint": mine.fingerprint, "tables": mine.provenance()})
        else:
            out.append({"chart": cf.key, "title": cf.title, "values": "shipped", "file": cf.path.name,
                        "tables": _blocks(_shipped_text(str(cf.path)), cf.key)})
    return out
