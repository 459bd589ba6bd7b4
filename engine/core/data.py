"""Loading data files (YAML or JSON) into pydantic models, with errors that name file, field and expectation.

Every table, map and unit value carries its provenance in a ``source`` field, one of:
``rulebook <rule>`` (the text gives it), ``published chart <reference>`` (a public transcription),
``provisional`` (our plausible design until a player types in the printed value).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
import re
import stat
from pathlib import Path
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from .errors import SHOWN, DataError, one_line, short

__all__ = ["Source", "Sourced", "Strict", "load_yaml", "parse_yaml", "validate", "provenance_kind",
           "DATA_DIR", "data_path", "read_text", "load_data", "parse_data", "check_depth", "short", "one_line",
           "MAX_FILE_BYTES", "MAX_DEPTH", "MAX_ALIASES", "MAX_NODES", "parse_json"]

# Bounds on every file a user hands to Vedette (docs/limits.md). A shipped data file or a whole played
# game record is well under a tenth of each; a file past one is refused with a one-line DataError
# naming the bound, before any engine code sees it.
MAX_FILE_BYTES = 1_048_576   # 1 MiB: the largest file read (YAML, JSON, game record)
MAX_DEPTH = 32               # nesting of mappings/lists (the shipped files use at most 8)
MAX_ALIASES = 100            # YAML aliases (*name) in one document
MAX_NODES = 200_000          # values in one document once every alias is expanded (alias bombs)

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: the kinds of provenance; any wording may follow the kind ("published chart, player aid 2", "rulebook 9.6")
KINDS = ("rulebook", "published chart", "provisional", "uploaded")
_SOURCE = re.compile(r"^(rulebook|published chart|provisional|uploaded)(\b.*)?$", re.S | re.I)


def _check_source(value: str) -> str:
    if not _SOURCE.match(value.strip()):
        raise ValueError("a provenance starting with its kind: 'rulebook …', 'published chart …', 'provisional …' "
                         "or 'uploaded …'")
    return value.strip()


Source = Annotated[str, AfterValidator(_check_source)]


def provenance_kind(source: str) -> str:
    """``"rulebook"``, ``"published chart"``, ``"uploaded"`` or ``"provisional"``: the badge a UI shows."""
    s = source.strip().lower()
    for kind in ("rulebook", "published chart", "uploaded"):
        if s.startswith(kind):
            return kind
    return "provisional"


class Strict(BaseModel):
    """Base model for data files: unknown fields are errors (typos must not pass silently)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Sourced(Strict):
    """A data block with its provenance."""

    source: Source
    notes: str = ""


M = TypeVar("M", bound=BaseModel)


def data_path(*parts: str) -> Path:
    """Path of a file shipped in the project's ``data/`` folder."""
    return DATA_DIR.joinpath(*parts)


def _field(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def validate(data: Any, model: type[M], file: str = "<input>") -> M:
    """Validate already-parsed data against ``model``; the first problem becomes a :class:`DataError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        msg = one_line(err.get("msg", "a valid value"))
        if err.get("type") == "extra_forbidden":
            expected = "only the documented field names (this one is unknown: check its spelling)"
        elif err.get("type") == "missing":
            expected = "this required field"
        else:
            expected = msg[0].lower() + msg[1:] if msg else "a valid value"
            expected = expected.replace("value error, ", "")
            expected = re.sub(r"^input should be ", "", expected)
        if len(expected) > 4 * SHOWN:
            expected = expected[:4 * SHOWN - 1] + "…"
        got = None if err.get("type") == "missing" else err.get("input")
        if isinstance(got, (dict, list, tuple)) and ("..." in short(got) or short(got).endswith("…")):
            got = None   # a long mapping or list says nothing the field name does not (bounded: reprlib)
        raise DataError(file, short_field(_field(tuple(err.get("loc", ())))), expected, got) from None
    except RecursionError:
        raise DataError(file, "", f"nesting at most {MAX_DEPTH} levels deep") from None


def short_field(name: str) -> str:
    """A field path cut to a readable length (keys come from the user's file)."""
    name = one_line(name)
    return name if len(name) <= 2 * SHOWN else name[:2 * SHOWN - 1] + "…"


# --- reading files: size, encoding, nesting and alias bounds ---------------------------------------
def read_text(path: str | Path, error: Callable[[str, str, str], Exception] | None = None) -> str:
    """The UTF-8 text of a user's file, refusing a missing or unreadable file, anything that is not a
    regular file (a FIFO, a device, a socket would block or never end), one over :data:`MAX_FILE_BYTES`,
    a binary file (NUL bytes) and text that is not UTF-8, each with one line.

    ``error`` is the exception class to raise (``DataError`` by default; called as ``error(file, field,
    expected)``); :class:`engine.core.record.GameRecord` passes its own adapter.
    """
    p = Path(path)
    fail = error or DataError
    try:
        # opened without blocking (a FIFO with no writer would wait for one), then only a regular file read
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as fh:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise fail(str(p), "", "a file, not a folder")
            if not stat.S_ISREG(mode):
                raise fail(str(p), "", "a regular file (not a FIFO, a device or a socket)")
            raw = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise fail(str(p), "", "an existing file") from None
    except IsADirectoryError:
        raise fail(str(p), "", "a file, not a folder") from None
    except OSError as exc:
        raise fail(str(p), "", f"a readable file ({one_line(exc.strerror or exc)})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise fail(str(p), "", f"a file of at most {MAX_FILE_BYTES} bytes (1 MiB); this one is larger") from None
    return decode_text(raw, str(p), fail)


def decode_text(raw: bytes, file: str = "<input>", error: Callable[[str, str, str], Exception] | None = None) -> str:
    """``raw`` decoded as UTF-8 (a BOM is dropped); binary data and other encodings are refused."""
    fail = error or DataError
    if b"\0" in raw:
        raise fail(file, "", "a text file (YAML or JSON); this one is binary (it holds NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(file, "", f"UTF-8 text; byte {exc.start} is not UTF-8 (save the file as UTF-8)") from None
    return text[1:] if text.startswith("\ufeff") else text


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [x for kv in node.value for x in kv]
    return []


def _check_expansion(root: yaml.Node, file: str) -> None:
    """Refuse a composed YAML graph whose aliases expand past :data:`MAX_NODES` values or
    :data:`MAX_DEPTH` levels, or that contains itself. Linear in the graph (sizes are memoised by
    node), so a 550-byte alias bomb is refused at once instead of being expanded."""
    # keyed by the node objects themselves (a YAML node hashes by identity, which is what an alias
    # shares; holding the node keeps its key from being reused, as an id() could be)
    size: dict[yaml.Node, int] = {}
    depth: dict[yaml.Node, int] = {}
    visiting: set[yaml.Node] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = node
        kids = _children(node)
        if done:
            visiting.discard(nid)
            size[nid] = 1 + sum(size[k] for k in kids)
            depth[nid] = (1 + max(depth[k] for k in kids)) if kids else 0
            if size[nid] > MAX_NODES:
                raise DataError(file, "", f"at most {MAX_NODES} values once YAML aliases are expanded "
                                          f"(this document expands to more: an alias bomb?)")
            if depth[nid] > MAX_DEPTH:
                raise DataError(file, "", f"nesting at most {MAX_DEPTH} levels deep (aliases included)")
            continue
        if nid in size:
            continue
        if nid in visiting:
            raise DataError(file, "", "YAML without an anchor that contains an alias of itself")
        visiting.add(nid)
        stack.append((node, True))
        for k in kids:
            if k not in size:
                stack.append((k, False))


#: libyaml's refusal of flow collections nested past its own bound (PyYAML >= 6.0.4 with libyaml >= 0.2.6)
LIBYAML_NESTING = "exceeded maximum nesting depth"

try:  # libyaml's scanner and parser are several times faster; the composer below stays in Python
    from yaml._yaml import CParser as _Parser

    def _init_parser(self: Any, text: str) -> None:
        _Parser.__init__(self, text)
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml.reader import Reader
    from yaml.scanner import Scanner
    from yaml.parser import Parser as _PyParser

    class _Parser(Reader, Scanner, _PyParser):  # type: ignore[no-redef]
        pass

    def _init_parser(self: Any, text: str) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        _PyParser.__init__(self)


class _BoundedLoader(yaml.composer.Composer, _Parser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """PyYAML's safe loader with the composer counting nesting depth and aliases as it goes."""

    def __init__(self, text: str, file: str) -> None:
        _init_parser(self, text)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self._file = file
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise DataError(self._file, "", f"at most {MAX_ALIASES} YAML aliases (*name) in one file")
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            event: Any = self.peek_event()          # the event that opens the level too deep
            mark = event.start_mark
            raise DataError(self._file, f"line {mark.line + 1}", f"nesting at most {MAX_DEPTH} levels deep")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def parse_data(text: str, file: str = "<input>") -> Any:
    """YAML (or JSON, which YAML reads too) text parsed within the bounds above; ``None`` if empty.

    Every problem is a one-line :class:`DataError`: PyYAML's several-line texts are joined, and the
    user's text is quoted at most :data:`SHOWN` characters long."""
    if len(text) > MAX_FILE_BYTES:
        raise DataError(file, "", f"a document of at most {MAX_FILE_BYTES} characters (1 MiB)")
    if "\0" in text:
        raise DataError(file, "", "text (YAML or JSON); this holds NUL characters (binary data?)")
    loader = _BoundedLoader(text, file)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, file)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        problem = one_line(getattr(exc, "problem", None) or exc)
        if problem == LIBYAML_NESTING:
            # libyaml's scanner reads ahead of the composer, so its own bound (1000 levels since PyYAML 6.0.4)
            # can stop a long run of brackets before the composer above sees level MAX_DEPTH + 1; past 1000
            # levels is past ours, so the refusal is ours, in our words
            raise DataError(file, where, f"nesting at most {MAX_DEPTH} levels deep") from None
        if len(problem) > 2 * SHOWN:
            problem = problem[:2 * SHOWN - 1] + "…"
        raise DataError(file, where, f"valid YAML/JSON ({problem})") from None
    except (ValueError, TypeError, OverflowError) as exc:   # e.g. an integer of more than 4300 digits
        raise DataError(file, "", f"values YAML can read ({short(one_line(exc), 2 * SHOWN)[1:-1]})") from None
    except RecursionError:
        raise DataError(file, "", f"nesting at most {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def load_data(path: str | Path) -> Any:
    """A user's YAML/JSON file read and parsed within the bounds (:func:`read_text`, :func:`parse_data`)."""
    return parse_data(read_text(path), str(path))


def parse_json(text: str, what: str = "input",
               error: Callable[[str, str, str], Exception] | None = None) -> Any:
    """JSON text parsed within the bounds above: one line for invalid JSON, nesting past :data:`MAX_DEPTH`
    (never a RecursionError), a number past Python's digit limit. ``error(file, field, expected)`` as in
    :func:`read_text` (default :class:`DataError`); ``what`` names the input (an option, ``action``)."""
    fail = error or DataError
    if len(text) > MAX_FILE_BYTES:
        raise fail(what, "", f"at most {MAX_FILE_BYTES} characters")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise fail(what, "", f"valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise fail(what, "", f"JSON nesting at most {MAX_DEPTH} levels deep") from None
    except ValueError as exc:          # an integer of more digits than Python reads (4300)
        raise fail(what, "", f"valid JSON ({one_line(str(exc))[:120]})") from None
    check_depth(data, what, MAX_DEPTH, fail)
    return data


def check_depth(data: Any, file: str = "<input>", limit: int = MAX_DEPTH,
                error: Callable[[str, str, str], Exception] | None = None) -> None:
    """Refuse parsed data (e.g. from ``json.loads``) nested more than ``limit`` levels (checked without
    recursion, so a deep file gives this error instead of a RecursionError further on)."""
    fail = error or DataError
    stack = [(data, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict):
            items = list(x.values())
        elif isinstance(x, (list, tuple)):
            items = list(x)
        else:
            continue
        if d + 1 > limit:
            raise fail(file, "", f"nesting at most {limit} levels deep")
        stack.extend((v, d + 1) for v in items)


def parse_yaml(text: str, model: type[M], file: str = "<input>") -> M:
    """Parse YAML (or JSON, which YAML reads too) text and validate it."""
    data = parse_data(text, file)
    if data is None:
        raise DataError(file, "", "a non-empty document")
    return validate(data, model, file)


def load_yaml(path: str | Path, model: type[M]) -> M:
    """Load and validate a YAML/JSON file. Errors name the file, the field and what was expected."""
    p = Path(path)
    return parse_yaml(read_text(p), model, str(p))
