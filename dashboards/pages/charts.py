"""Charts in the browser: every chart in use as a table with its provenance; type in the printed values and
save them as a tables file (the format ``--tables FILE`` and the upload widgets read)."""
from __future__ import annotations

import html
import io

import panel as pn

from dashboards.calculators.charts_model import SYSTEMS, Block, ChartBook
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from engine.core.errors import VedetteError

TITLE = "Charts (type in the printed values)"
SUMMARY = ("Every chart the calculators use (n20 CRT, TEC, Morale Chart, Rally, Controlled Advance; Lines of "
           "Battle tables; Battle Commander deck and terrain; These Brave Fellows tables) with where its numbers "
           "come from. Type in the values printed on your charts and save them as a tables file.")

HELP = ("The charts printed on the player aids are not in the rulebooks' text, so several shipped charts are "
        "**provisional** (orange): our own estimate. Pick a file, open a chart, type the printed values into "
        "its table (double-click a cell), set its *source* to say where they come from (for instance "
        "`published chart player aid of my copy`), then check and save. The saved file loads with the "
        "command shown, with the upload box on each calculator page, or as a new game's tables: the game "
        "then plays with your values and its record keeps them. Only the values change: the file keeps the "
        "shipped layout.")


COUNTS_CSS = """
table.charts-count {border-collapse:collapse;font-size:12px;margin:4px 0 10px 0}
table.charts-count th, table.charts-count td {border-bottom:1px solid #e0e0e0;padding:1px 8px;text-align:right}
table.charts-count th:first-child, table.charts-count td:first-child {text-align:left}
"""


def cards_counts_html(b: Block) -> str:
    """How many cards show each result in each odds column, and how many carry each icon or side."""
    n = len(b.data["cards"])
    parts = [f"<p><b>Counts</b> <small>(of {n} cards; they follow your typing)</small></p>"
             "<div style='display:flex;flex-wrap:wrap;gap:0 28px;align-items:flex-start'>"]
    cols = b.card_columns()
    for what, table in b.card_counts().items():
        if what in b.card_rows():
            head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
            body = "".join(f"<tr data-result='{html.escape(r, quote=True)}'><td>{html.escape(r.replace('_', ' '))}</td>"
                           + "".join(f"<td data-column='{html.escape(c, quote=True)}'>{per[c]}</td>" for c in cols)
                           + "</tr>" for r, per in table.items())
            parts.append(f"<table class='charts-count charts-count-{html.escape(what)}'><caption style='text-align:left'>"
                         f"{html.escape(what)}: cards showing each result, per odds column</caption>"
                         f"<tr><th>result</th>{head}</tr>{body}</table>")
        else:
            body = "".join(f"<tr data-value='{html.escape(v, quote=True)}'><td>{html.escape(v or '(none)')}</td>"
                           f"<td>{k}</td></tr>" for v, k in table.items())
            parts.append(f"<table class='charts-count charts-count-{html.escape(what)}'><tr><th>{html.escape(what)}"
                         f"</th><th>cards</th></tr>{body}</table>")
    return "".join(parts) + "</div>"


class ChartsView:
    """The page's widgets around a :class:`ChartBook` (one per session)."""

    def __init__(self, key: str = "n20-v3"):
        self.book = ChartBook(key)
        self.pick = pn.widgets.Select(label="Chart file", options={f.title: k for k, f in SYSTEMS.items()},
                                      value=key, width=520, css_classes=["charts-pick"])
        self.summary = pn.pane.HTML("", stylesheets=[BADGE_CSS], sizing_mode="stretch_width",
                                    css_classes=["charts-summary"])
        self.tabs = pn.Tabs(sizing_mode="stretch_width", dynamic=True, css_classes=["charts-tabs"])
        self.status = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["charts-status"])
        self.check_button = pn.widgets.Button(label="Check the file", button_type="primary", width=200,
                                              css_classes=["charts-check"])
        self.download = pn.widgets.FileDownload(callback=self._file, filename=self._filename(), label="Save the file",
                                                width=200, css_classes=["charts-download"])
        self.check_button.on_click(lambda *_: self.check())
        self.pick.param.watch(lambda e: self.load(e.new), "value")
        self._fill()

    # -- model -----------------------------------------------------------------------------------
    def load(self, key: str) -> None:
        self.book = ChartBook(key)
        self.download.filename = self._filename()
        self.status.object = ""
        self._fill()

    def _filename(self) -> str:
        return self.book.filename()

    def _file(self):
        return io.StringIO(self.book.to_yaml())

    def check(self) -> bool:
        try:
            self.book.check()
        except VedetteError as exc:
            self.status.object = (f"<div class='charts-error' style='color:#b71c1c'>Not a valid file yet: "
                                  f"{html.escape(str(exc))}</div>")
            return False
        self.status.object = (f"<div class='charts-ok' style='color:#1b5e20'>The engine loads this file. Save it, "
                              f"then use it with <code>{html.escape(self.book.file.option)}</code>, or start a "
                              f"game with it: <code>{html.escape(self.book.file.game_option)}</code> (or the "
                              f"play page's tables upload); the game's record keeps your values.</div>")
        return True

    # -- views -----------------------------------------------------------------------------------
    def _summary_html(self) -> str:
        badges = " ".join(badge_html(b.source, b.notes, b.name).replace(
            "class='prov-badge", f"data-block='{html.escape(b.name, quote=True)}' class='charts-badge prov-badge")
            for b in self.book.blocks())
        still = self.book.provisional()
        left = (f"Still provisional: <b class='charts-left' data-left='{len(still)}'>{html.escape(', '.join(still))}</b>"
                if still else "<b class='charts-left' data-left='0'>No chart is provisional any more.</b>")
        return f"<div>{badges}</div><div>{left}</div>"

    def _refresh(self) -> None:
        self.summary.object = self._summary_html()
        self.status.object = ""

    def _fill(self) -> None:
        self.tabs[:] = [self._block_view(b) for b in self.book.blocks()]
        self._refresh()

    def _block_view(self, b: Block):
        badge = pn.pane.HTML(badge_html(b.source, b.notes, b.name), stylesheets=[BADGE_CSS], margin=(8, 4))
        source = pn.widgets.TextInput(label="source (rulebook …, published chart …, provisional …)", value=b.source,
                                      sizing_mode="stretch_width", css_classes=["charts-source"])

        def set_source(e):
            b.set_source(e.new)
            badge.object = badge_html(b.source, b.notes, b.name)
            self._refresh()

        source.param.watch(set_source, "value")
        notes = pn.pane.Markdown(b.notes, sizing_mode="stretch_width", styles={"font-size": "12px"})
        return pn.Column(pn.Row(badge, source, sizing_mode="stretch_width"), notes, self._table(b),
                         name=b.name, sizing_mode="stretch_width")

    def _table(self, b: Block):
        import pandas as pd

        if b.is_cards:
            return pn.Column(self._values_table(b, pd), self._cards_view(b, pd), sizing_mode="stretch_width")
        if b.is_grid:
            rows, cols, cells = b.grid()
            df = pd.DataFrame(cells, columns=cols, index=pd.Index(rows, name="row"))
            table = pn.widgets.Tabulator(df, sizing_mode="stretch_width", show_index=True, layout="fit_data_stretch",
                                         css_classes=["charts-grid"], editors={"row": None})

            def edited(e):
                b.set_grid_cell(str(df.index[e.row]), cols.index(e.column), str(e.value))
                self._refresh()
        else:
            return self._values_table(b, pd)
        table.on_edit(edited)
        return table

    def _values_table(self, b: Block, pd):
        data = b.rows()
        df = pd.DataFrame(data, columns=["value of", "value"])
        table = pn.widgets.Tabulator(df, sizing_mode="stretch_width", show_index=False, layout="fit_data_stretch",
                                     editors={"value of": None}, pagination="local" if len(data) > 60 else None,
                                     page_size=60, css_classes=["charts-values"])

        def edited(e):
            b.set_value(df["value of"][e.row], str(e.value))
            self._refresh()

        table.on_edit(edited)
        return table

    def _cards_view(self, b: Block, pd):
        """A deck as a table, one row per card: its face (number, name, side, Skill Check icon…) or its
        result in each odds column of one table; below, how many cards show each result and icon."""
        views = {"card faces": "faces", **{f"{r} row, per odds column": r for r in b.card_rows()}}
        pick = pn.widgets.RadioButtonGroup(options=views, value="faces", css_classes=["charts-cards-view"])
        counts = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["charts-card-counts"],
                              stylesheets=[COUNTS_CSS])
        note = pn.pane.HTML("", css_classes=["charts-cards-note"], sizing_mode="stretch_width")

        def frame(view):
            heads, rows = b.card_table(view)
            return pd.DataFrame(rows, columns=heads)

        def editors(view):
            if view == "faces":
                return {"number": None}
            order = list(b.data.get(f"{view}_order") or [])
            cols = b.card_columns()
            return {"number": None, **({c: {"type": "list", "values": order} for c in cols} if order else {})}

        table = pn.widgets.Tabulator(frame("faces"), show_index=False, layout="fit_data_stretch",
                                     sizing_mode="stretch_width", editors=editors("faces"), pagination="local",
                                     page_size=24, css_classes=["charts-cards"],
                                     configuration={"columnDefaults": {"headerSort": False}})

        def show_counts():
            counts.object = cards_counts_html(b)

        def switched(e):
            table.param.update(value=frame(e.new), editors=editors(e.new))

        def edited(e):
            try:
                b.set_card_cell(int(e.row), pick.value, str(e.column), str(e.value))
                note.object = ""
            except VedetteError as exc:
                note.object = f"<span style='color:#b71c1c'>not changed: {html.escape(str(exc))}</span>"
                table.value = frame(pick.value)
            show_counts()
            self._refresh()

        pick.param.watch(switched, "value")
        table.on_edit(edited)
        show_counts()
        return pn.Column(pn.pane.HTML(f"<b>The {len(b.data['cards'])} cards</b> <small>(double-click a cell to "
                                      f"type the printed value)</small>", margin=(8, 5, 0, 5)),
                         pick, table, note, counts, sizing_mode="stretch_width")

    def panel(self):
        return pn.Column(pn.pane.Markdown(HELP, sizing_mode="stretch_width"), self.pick, self.summary, self.tabs,
                         pn.Row(self.check_button, self.download), self.status, sizing_mode="stretch_width",
                         css_classes=["charts-page"])


def page():
    return ChartsView().panel()
