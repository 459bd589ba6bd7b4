"""Loading data files (YAML or JSON) into pydantic models, with errors that name file, field and expectation.

Every table, map and unit value carries its provenance in a ``source`` field, one of:
``rulebook <rule>`` (the text gives it), ``published chart <reference>`` (a public transcription),
``provisional`` (our plausible design until a player types in the printed value).
"""
from __future__ import annotations

from pathlib import Path
import re
from typing import Annotated, Any, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from .errors import DataError

__all__ = ["Source", "Sourced", "Strict", "load_yaml", "parse_yaml", "validate", "provenance_kind",
           "DATA_DIR", "data_path"]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

_SOURCE = re.compile(r"^(rulebook \S.*|published chart \S.*|provisional(\b.*)?)$", re.S)


def _check_source(value: str) -> str:
    if not _SOURCE.match(value.strip()):
        raise ValueError("a provenance: 'rulebook <rule>', 'published chart <reference>' or 'provisional'")
    return value.strip()


Source = Annotated[str, AfterValidator(_check_source)]


def provenance_kind(source: str) -> str:
    """``"rulebook"``, ``"published chart"`` or ``"provisional"``: the badge a UI shows."""
    s = source.strip()
    if s.startswith("rulebook"):
        return "rulebook"
    if s.startswith("published chart"):
        return "published chart"
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


def _field(loc: tuple) -> str:
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
        err = exc.errors()[0]
        msg = err.get("msg", "a valid value")
        if err.get("type") == "extra_forbidden":
            expected = "only the documented field names (this one is unknown: check its spelling)"
        elif err.get("type") == "missing":
            expected = "this required field"
        else:
            expected = msg[0].lower() + msg[1:] if msg else "a valid value"
            expected = expected.replace("value error, ", "")
            expected = re.sub(r"^input should be ", "", expected)
        got = err.get("input") if err.get("type") not in ("missing",) else None
        if isinstance(got, (dict, list)) and len(repr(got)) > 80:
            got = None
        raise DataError(file, _field(tuple(err.get("loc", ()))), expected, got) from None


def parse_yaml(text: str, model: type[M], file: str = "<input>") -> M:
    """Parse YAML (or JSON, which YAML reads too) text and validate it."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise DataError(file, where, f"valid YAML/JSON ({getattr(exc, 'problem', None) or exc})") from None
    if data is None:
        raise DataError(file, "", "a non-empty document")
    return validate(data, model, file)


def load_yaml(path: str | Path, model: type[M]) -> M:
    """Load and validate a YAML/JSON file. Errors name the file, the field and what was expected."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(str(p), "", "an existing file") from None
    except OSError as exc:
        raise DataError(str(p), "", f"a readable file ({exc.strerror})") from None
    return parse_yaml(text, model, str(p))
