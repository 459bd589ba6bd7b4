"""An editable table of units, one row each (a cell per field; lists as drop-downs, flags as ticks), with
buttons to add a row and to remove the last one.

The calculators of Lines of Battle and These Brave Fellows set up their units with it instead of typed YAML;
the page keeps the typed form in an "advanced" box and calls :meth:`RowsTable.set_rows` when it is edited.
Nothing here knows a rule: the page turns the rows into the engine's own input and the engine checks it.
"""
from __future__ import annotations

from typing import Callable

import panel as pn

__all__ = ["RowsTable", "clean_row"]


def _blank_of(kind):
    if kind is bool:
        return False
    if isinstance(kind, tuple):
        return kind[0]
    return ""


def clean_row(row: dict, fields: dict) -> dict:
    """A table row as plain values: whole numbers as ``int`` (a cell left empty or not a number stays as typed,
    for the engine to refuse with its own message), ticks as ``bool``, text stripped."""
    out = {}
    for k, kind in fields.items():
        v = row.get(k)
        if v is None or (isinstance(v, float) and v != v):      # NaN from an empty cell
            v = _blank_of(kind) if kind is not int else ""
        if kind is bool:
            v = v in (True, "true", "yes", 1)
        elif kind is int:
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            elif isinstance(v, str) and v.strip().lstrip("-").isdigit():
                v = int(v.strip())
        elif isinstance(v, str):
            v = v.strip()
        out[k] = v
    return out


class RowsTable:
    """``fields`` maps a column to its kind: ``str``, ``int``, ``bool`` or a tuple of the allowed values.
    ``on_change(rows)`` is called after every edit, addition and removal made on the page."""

    def __init__(self, fields: dict, rows: list[dict], on_change: Callable[[list[dict]], None], *, what: str,
                 css: str, blank: dict | None = None, titles: dict | None = None, max_rows: int = 12):
        import pandas as pd

        self._pd = pd
        self.fields = dict(fields)
        self.blank = {k: _blank_of(kind) for k, kind in self.fields.items()} | dict(blank or {})
        self.on_change = on_change
        self.max_rows = max_rows
        editors = {k: ({"type": "list", "values": list(kind)} if isinstance(kind, tuple) else
                       "tickCross" if kind is bool else {"type": "number"} if kind is int else "input")
                   for k, kind in self.fields.items()}
        formatters = {k: {"type": "tickCross"} for k, kind in self.fields.items() if kind is bool}
        self.table = pn.widgets.Tabulator(self._frame(rows), show_index=False, editors=editors, formatters=formatters,
                                          titles=dict(titles or {}), layout="fit_data_stretch",
                                          sizing_mode="stretch_width", css_classes=[css],
                                          configuration={"columnDefaults": {"headerSort": False}})
        self.table.on_edit(lambda *_: self._changed())
        article = "an" if what[:1] in "aeiou" else "a"
        self.add = pn.widgets.Button(label=f"+ add {article} {what}", width=190, css_classes=[css + "-add"])
        self.drop = pn.widgets.Button(label=f"remove the last {what}", width=230, css_classes=[css + "-drop"])
        self.add.on_click(lambda *_: self.append(dict(self.blank)))
        self.drop.on_click(lambda *_: self._drop())

    def _frame(self, rows: list[dict]):
        cols = list(self.fields)
        return self._pd.DataFrame([{k: r.get(k, self.blank[k]) for k in cols} for r in rows],
                                  columns=cols).astype(object)

    def rows(self) -> list[dict]:
        return [clean_row(r, self.fields) for r in self.table.value.to_dict("records")]

    def set_rows(self, rows: list[dict]) -> None:
        """Show ``rows`` (from the page, not an edit: ``on_change`` is not called)."""
        self.table.value = self._frame(rows)

    def append(self, row: dict) -> None:
        if len(self.table.value) >= self.max_rows:
            return
        self.table.value = self._frame(self.rows() + [{**self.blank, **row}])
        self._changed()

    def _drop(self) -> None:
        if len(self.table.value) > 1:
            self.table.value = self._frame(self.rows()[:-1])
            self._changed()

    def _changed(self) -> None:
        self.on_change(self.rows())

    def panel(self) -> pn.Column:
        return pn.Column(self.table, pn.Row(self.add, self.drop), sizing_mode="stretch_width", margin=0)
