"""Units as a form on the These Brave Fellows page: a table with one row per unit, in step with its
``key=value`` lines (kept in an advanced box), the Dürenstein set-up's units to pick from, and the bound on
the lines a box may hold (a computing limit of the served page, not a rule)."""
from __future__ import annotations

from typing import Any

import panel as pn
import param
from panel.widgets import Widget

from dashboards.common.layout import flow
from engine.core.errors import VedetteError

__all__ = ["MAX_UNITS_TEXT", "unit_form", "setup_units", "unit_lines"]

MAX_UNITS_TEXT = 4000


def _kv_line(row: dict[str, Any], fields: dict[str, Any]) -> str:
    bits = []
    for k, kind in fields.items():
        v = row.get(k)
        if kind is bool:
            if v in (True, "true", "yes", 1):
                bits.append(k)
        elif v not in (None, "") and not (isinstance(v, float) and v != v):
            bits.append(f"{k}={int(v) if kind is int and str(v).lstrip('-').isdigit() else v}")
    return ",".join(bits)


def unit_form(text: pn.widgets.TextAreaInput, fields: dict[str, Any], blank: dict[str, Any], what: str, css: str,
              setup: dict[str, dict[str, Any]] | None = None) -> pn.Column:
    """A table of units kept in step with ``text`` (one ``key=value,…`` line per unit): editing a cell,
    adding or removing a row rewrites the text; the text, edited in its advanced box, rebuilds the table."""
    import pandas as pd
    from engine.tbf.calc import parse_kv

    cols = list(fields)

    def frame(src: str) -> pd.DataFrame:
        rows = []
        for line in (l for l in src.splitlines() if l.strip()):
            d = parse_kv(line, what)
            row = {k: (k in d) if kind is bool else d.get(k, blank.get(k, "")) for k, kind in fields.items()}
            for k, kind in fields.items():
                if kind is int and str(row[k]).lstrip("-").isdigit():
                    row[k] = int(row[k])
            rows.append(row)
        return pd.DataFrame(rows, columns=cols).astype(object)

    editors = {k: ({"type": "list", "values": list(kind)} if isinstance(kind, tuple) else
                   "tickCross" if kind is bool else {"type": "number"} if kind is int else "input")
               for k, kind in fields.items()}
    formatters = {k: {"type": "tickCross"} for k, kind in fields.items() if kind is bool}
    table = pn.widgets.Tabulator(frame(text.value or ""), show_index=False, editors=editors, formatters=formatters,
                                 layout="fit_data_stretch", sizing_mode="stretch_width", css_classes=[css],
                                 configuration={"columnDefaults": {"headerSort": False}})
    busy = [False]

    def to_text(*_: object) -> None:
        if busy[0]:
            return
        busy[0] = True
        try:
            text.value = "\n".join(_kv_line(r, fields) for r in table.value.to_dict("records"))
        finally:
            busy[0] = False

    def from_text(e: param.parameterized.Event) -> None:
        if busy[0]:
            return
        busy[0] = True
        try:
            table.value = frame(e.new)
        except Exception:   # noqa: BLE001 - a half-typed line: the view below names what is wrong
            pass
        finally:
            busy[0] = False

    table.on_edit(to_text)
    text.param.watch(from_text, "value")
    a_n = "an" if what[:1] in "aeiou" else "a"
    add = pn.widgets.Button(label=f"Add {a_n} {what}", width=180, css_classes=[css + "-add"])
    drop = pn.widgets.Button(label=f"Remove the last {what}", width=240, css_classes=[css + "-drop"])

    def added(_: object) -> None:
        df = table.value
        new = pd.DataFrame([{k: blank.get(k, False if fields[k] is bool else "") for k in cols}]).astype(object)
        table.value = pd.concat([df, new], ignore_index=True).astype(object)
        to_text()

    def dropped(_: object) -> None:
        if len(table.value) > 1:
            table.value = table.value.iloc[:-1].reset_index(drop=True)
            to_text()

    add.on_click(added)
    drop.on_click(dropped)
    buttons: list[Widget] = [add, drop]
    if setup:               # a unit of the Dürenstein set-up, its printed values filled in
        pick = pn.widgets.Select(label="a unit of the set-up", options=list(setup), width=300,
                                 css_classes=[css + "-pick"])
        take = pn.widgets.Button(label=f"add it as {a_n} {what}", width=200, css_classes=[css + "-take"])

        def taken(_: object) -> None:
            row = {k: blank.get(k, False if fields[k] is bool else "") for k in cols} | setup[pick.value]
            new = pd.DataFrame([row], columns=cols).astype(object)
            table.value = pd.concat([table.value, new], ignore_index=True).astype(object)
            to_text()

        take.on_click(taken)
        buttons += [pick, take]
    advanced = pn.Card(text, title="Advanced: the same units as text lines", collapsed=True,
                       sizing_mode="stretch_width")
    return pn.Column(table, flow(*buttons), advanced, sizing_mode="stretch_width")


def setup_units(kind: str) -> dict[str, dict[str, Any]]:
    """The Dürenstein set-up's units as rows of the fire (``kind='fire'``) or melee form, by their names."""
    from engine.tbf.scenario import default_scenario
    from engine.tbf.game.setup import initial_state

    sc = default_scenario()
    out = {}
    for p in initial_state(sc).on_map():
        if sc.is_leader(p.id) or p.id not in sc.units:
            continue
        u = sc.units[p.id]
        k = "howitzer" if getattr(u, "howitzer", False) else u.kind
        label = f"{u.name} ({u.side}, {p.hex})"
        if kind == "fire":
            out[label] = {"name": u.name, "ff": u.ff, "kind": k, "range": 1}
        else:
            out[label] = {"name": u.name, "mf": u.mf, "fv": u.fv, "kind": k}
    return out


def unit_lines(text: str, what: str, limit: int) -> list[str]:
    """The non-empty lines of a units box, bounded (a one-line message naming the limit)."""
    text = str(text or "")
    if len(text) > MAX_UNITS_TEXT:
        raise VedetteError(f"{what}: at most {MAX_UNITS_TEXT} characters on this page (got {len(text)})")
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) > limit:
        raise VedetteError(f"{what}: at most {limit} units on this page (got {len(lines)})")
    return lines
