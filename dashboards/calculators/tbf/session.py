"""One browser session of the These Brave Fellows page: the tables in use (shipped or uploaded, with their
provenance badges), and the panes every calculator tab shows its answers and its refusals in."""
from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import panel as pn
import param

from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.common.uploads import FileLoader
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS
from dashboards.render.tree_view import STYLESHEET as TREE_CSS
from engine.tbf.tables import Tables, default_tables, load_tables

__all__ = ["TbfSession", "error_pane", "html_pane"]


class TbfSession(param.Parameterized):
    """One browser session's state: the tables in use (shipped or uploaded)."""

    tables = param.ClassSelector(class_=Tables)
    uploaded = param.Boolean(default=False)
    tables_name = param.String(default="shipped provisional charts")

    def __init__(self, **params: Any) -> None:
        params.setdefault("tables", default_tables())
        super().__init__(**params)
        self.loader = FileLoader(load_tables, self._loaded, self._reset, label="Load your own TBF tables file")

    @property
    def charts(self) -> Tables:
        """The tables in use (set when the session is made, replaced by a load or a reset: never None)."""
        tables = self.tables
        assert tables is not None, "a session always has its tables"
        return tables

    def _loaded(self, tables: Tables, filename: str) -> None:
        self.param.update(tables=tables, uploaded=True, tables_name=filename)

    def _reset(self) -> None:
        self.param.update(tables=default_tables(), uploaded=False, tables_name="shipped provisional charts")

    def badge(self, block: str) -> str:
        src = getattr(self.tables, block).source
        notes = getattr(self.tables, block).notes
        return badge_html(src, notes, label=block, uploaded=self.uploaded)


def error_pane(exc: Exception) -> pn.pane.Alert:
    """A refusal in the player's words (the engine's one-line message), as the tabs show it."""
    return pn.pane.Alert(f"**Cannot compute this:** {html.escape(str(exc))}", alert_type="danger",
                         css_classes=["tbf-error"], sizing_mode="stretch_width")


def html_pane(s: str, css: Iterable[str] = ()) -> pn.pane.HTML:
    """An answer's HTML with the badges', bars' and trees' stylesheets (and ``css``)."""
    return pn.pane.HTML(s, stylesheets=[BADGE_CSS, BARS_CSS, TREE_CSS, *css], sizing_mode="stretch_width")
