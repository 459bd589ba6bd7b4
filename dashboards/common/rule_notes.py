"""Rule reminders (our own words) for hover text, for every system: ``note("9.8.3 EZOC hazard")`` -> a one-line
summary of a Napoleonic 20 rule; :func:`rule_note_for` gives the lookup of any system (lob, tbf, bc from
``rule_notes_systems.yaml``). The tree pictures, the dice logs and the play page all take their notes here."""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Callable

import yaml

__all__ = ["note", "notes", "rule_number", "rule_note_for"]

_FILE = Path(__file__).with_name("rule_notes_n20.yaml")
_SYSTEMS_FILE = Path(__file__).with_name("rule_notes_systems.yaml")
_NUM = re.compile(r"\d+(?:\.\d+)+|\d+")


@lru_cache(maxsize=1)
def notes() -> dict[str, str]:
    data = yaml.safe_load(_FILE.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in (data.get("rules") or {}).items()}


def rule_number(rule: str) -> str | None:
    """The first rule number in a ``rule=`` string (``"9.6 [E] DR"`` -> ``"9.6"``)."""
    m = _NUM.search(str(rule or ""))
    return m.group(0) if m else None


def note(rule: str) -> str:
    """The summary for the most specific known case of ``rule`` (``9.8.3`` -> ``9.8`` -> ``9.0``), or ''."""
    table = notes()
    parts = [rule_number(r) for r in re.split(r"[,;/]| and ", str(rule or ""))]
    out = []
    for num in parts:
        if not num:
            continue
        probe = num
        while probe:
            if probe in table:
                out.append(f"{probe}: {table[probe]}")
                break
            if "." not in probe:
                if f"{probe}.0" in table:
                    out.append(f"{probe}.0: {table[probe + '.0']}")
                break
            head, _, tail = probe.rpartition(".")
            probe = f"{head}.0" if tail != "0" and "." not in head else head if tail != "0" else ""
            if probe == num:
                break
    return " · ".join(dict.fromkeys(out))


@lru_cache(maxsize=1)
def _system_notes() -> dict[str, dict[str, str]]:
    data = yaml.safe_load(_SYSTEMS_FILE.read_text(encoding="utf-8")) or {}
    return {sys_: {str(k): str(v) for k, v in (rules or {}).items()} for sys_, rules in (data.get("systems") or {}).items()}


def rule_note_for(system: str) -> Callable[[str], str]:
    """The rule-summary lookup of a game system (n20: :func:`note`; lob, tbf, bc: our YAML file)."""
    if system == "n20":
        return note
    table = _system_notes().get(system, {})

    def lookup(rule: str) -> str:
        out = []
        for part in re.split(r"[,;/]| and ", str(rule or "")):
            num = rule_number(part)
            probe = num
            while probe:
                if probe in table:
                    out.append(f"{probe}: {table[probe]}")
                    break
                probe = probe.rpartition(".")[0]
        return " · ".join(dict.fromkeys(out))
    return lookup
