"""Shared helpers for the n20 battle tests: battles from dicts, tables with a forced CRT result."""
from __future__ import annotations

from pathlib import Path

from engine import n20
from engine.n20.tables import CRTModel, Tables, default_tables

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "data" / "examples"


def forced_tables(code: str, edition: str = "v3") -> Tables:
    """The shipped tables of ``edition`` with every CRT cell set to ``code`` (so a test can pick the result)."""
    base = default_tables(edition)
    crt = base.model.crt
    rows = {d: [code] * len(crt.columns) for d in range(1, 7)}
    model = base.model.model_copy(update={"crt": CRTModel(source="provisional", columns=crt.columns, rows=rows)})
    return Tables(model, f"<all {code}>")


def battle(data: dict, tables: Tables | None = None):
    return n20.parse_battle(data, name="<test>", tables=tables)


def inf(uid: str, strength: int = 2, **kw) -> dict:
    return {"id": uid, "type": "infantry", "strength": strength, "movement": 2, **kw}


def cav(uid: str, strength: int = 1, **kw) -> dict:
    return {"id": uid, "type": "cavalry", "strength": strength, "movement": 3, **kw}
