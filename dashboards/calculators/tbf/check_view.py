"""The Fatigue Check tab of the These Brave Fellows page (4.2.2): one check's odds and the chance to pass every
check at every FV, answered at once while the work is small, else in a worker process (issue 12.3)."""
from __future__ import annotations

import html
from functools import partial
from typing import Any

import panel as pn

from dashboards.common.provenance import STYLESHEET as BADGE_CSS
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS, bars_html
from dashboards.server.background import Background
from engine.core.errors import VedetteError
from engine.tbf.fatigue import CheckSpec, check_distribution, check_outcome
from engine.tbf.tables import Tables, default_tables

from .session import TbfSession

__all__ = ["MAX_LEADERS", "MAX_CV", "MAX_CHECK_DRM", "MAX_CVS_TEXT", "INLINE_CHECK_CELLS", "GRID_CSS",
           "parse_leader_cvs", "check_head", "check_grid", "check_work", "check_cost", "check_panel"]

#: computing limits of the check panel (not rules): leaders typed beside the unit, their CVs, the other DRM
MAX_LEADERS = 6
MAX_CV = 9
MAX_CHECK_DRM = 9
MAX_CVS_TEXT = 60


def parse_leader_cvs(text: str) -> tuple[int, ...]:
    """The leaders' CVs typed on the check panel ("1, 2"), bounded: a one-line message naming the limit."""
    text = str(text or "")
    if len(text) > MAX_CVS_TEXT:
        raise VedetteError(f"leader CVs: at most {MAX_CVS_TEXT} characters on this page (got {len(text)})")
    bits = text.replace(",", " ").split()
    try:
        cvs = tuple(int(x) for x in bits)
    except ValueError:
        raise VedetteError(f"leader CVs must be whole numbers separated by commas, not {text[:40]!r}") from None
    if len(cvs) > MAX_LEADERS:
        raise VedetteError(f"leader CVs: at most {MAX_LEADERS} leaders on this page (got {len(cvs)})")
    for cv in cvs:
        if not 0 <= cv <= MAX_CV:
            raise VedetteError(f"leader CVs: each from 0 to {MAX_CV} on this page (4.2.2 C), not {cv}")
    return cvs


#: the check panel's answers for the shipped tables, shared by every session (plain strings, never changed)
_SHARED_CHECKS: dict[tuple[Any, ...], tuple[str, str]] = {}
_SHARED_MAX = 256


def _pass_grid_html(tables: Tables, status: str, leader: tuple[int, ...]) -> str:
    """The chance to pass every check at every FV, for a unit of ``status`` with these leaders."""
    grid = []
    for k, c in tables.fatigue.checks.items():
        if status not in c.allowed:
            continue
        cells = []
        for f in range(tables.fatigue.fv_min, tables.fatigue.fv_max + 1):
            q = check_distribution(tables, CheckSpec(k, f, status, leader)).prob(lambda o: check_outcome(o).passed)
            cells.append(f"<td title='{q}'>{float(q) * 100:.0f}%</td>")
        grid.append(f"<tr><td>{html.escape(c.name)}</td>{''.join(cells)}</tr>")
    hdr = "".join(f"<th>FV {f}</th>" for f in range(tables.fatigue.fv_min, tables.fatigue.fv_max + 1))
    return (f"<table class='tbf-grid'><caption>Chance to pass, {html.escape(status)} unit, leaders {list(leader)}"
            f"</caption><tr><th>check</th>{hdr}</tr>{''.join(grid)}</table>")


_GRIDS: dict[tuple[str, tuple[int, ...]], str] = {}     # shipped tables only (in the process that computes them)


def check_head(tables: Tables | None, check_v: str, fv_v: int, status_v: str, cvs_v: str, mods_v: tuple[str, ...],
               drm_v: int, badge: str = "") -> str:
    """One Fatigue Check's odds (4.2.2) as HTML: the result line and its outcomes; ``tables`` None: the
    shipped set."""
    tables = default_tables() if tables is None else tables
    leader = parse_leader_cvs(cvs_v)
    if not isinstance(drm_v, int) or abs(drm_v) > MAX_CHECK_DRM:
        raise VedetteError(f"other DRM: from -{MAX_CHECK_DRM} to +{MAX_CHECK_DRM} on this page, not {drm_v!r}")
    spec = CheckSpec(check_v, fv_v, status_v, leader, tuple(mods_v), drm_v)
    d = check_distribution(tables, spec)
    cd = tables.check(check_v)
    p = d.prob(lambda o: check_outcome(o).passed)
    faces = [f for f in range(1, 7) if f + spec.total_drm(tables) <= fv_v]
    rows = [(("pass: " if o.passed else "fail: ") + o.effect + (" (MF doubled)" if o.doubled else ""), w,
             "#2e7d32" if o.passed else "#c62828")
            for o, w in ((check_outcome(x), w) for x, w in d.sorted_items(
                key=lambda o: (not o.passed, o.effect, not o.doubled)))]
    head = (f"<div class='tbf-check-result' data-pass='{p.numerator}/{p.denominator}'>"
            f"<b>{html.escape(cd.name)}</b> (rule {html.escape(cd.rule)}) {badge}<br>"
            f"net DRM {spec.total_drm(tables):+d}; passes on d6 {', '.join(map(str, faces)) or 'never'}: "
            f"<b>{p.numerator}/{p.denominator}</b> ({float(p) * 100:.1f}%)</div>")
    return head + bars_html(rows, "outcomes")


def check_grid(tables: Tables | None, status_v: str, cvs_v: str) -> str:
    """The chance to pass every check at every FV (4.2.2) for a unit of this status with these leaders, as
    an HTML table (kept per status and leaders for the shipped set, ``tables`` None)."""
    shipped = tables is None
    charts = default_tables() if tables is None else tables
    leader = parse_leader_cvs(cvs_v)
    key = (status_v, leader)
    grid = _GRIDS.get(key) if shipped else None
    if grid is None:
        grid = _pass_grid_html(charts, status_v, leader)
        if shipped:
            if len(_GRIDS) > 64:
                _GRIDS.clear()
            _GRIDS[key] = grid
    return grid


def check_work(tables: Tables | None, check_v: str, fv_v: int, status_v: str, cvs_v: str, mods_v: tuple[str, ...],
               drm_v: int, badge: str = "") -> tuple[str, str]:
    """Off the event loop (in a worker process): one Fatigue Check's odds (4.2.2) and the pass chances of
    every check; ``tables`` None: the shipped set. Returns (the result's HTML, the grid's HTML)."""
    head = check_head(tables, check_v, fv_v, status_v, cvs_v, mods_v, drm_v, badge)
    return head, check_grid(tables, status_v, cvs_v)


GRID_CSS = ".tbf-grid td,.tbf-grid th{padding:2px 6px;border-bottom:1px solid #ddd}"

#: the most d6 checks one request of the check panel may enumerate to be answered at once, in the callback
#: (issue 12.3): the shipped tables need 73 (12 checks at FV 1-6, and the asked one), measured at 10-15 ms
#: of CPU when none is cached yet; a loaded set of tables with more checks or a wider FV range goes to a
#: worker with the busy line
INLINE_CHECK_CELLS = 100


def check_cost(tables: Tables) -> int:
    """How many d6 checks (4.2.2) a request of the check panel enumerates at most: the asked check and
    the grid's every check at every FV (a bound on its work: the leaders and the DRM only shift the roll)."""
    f = tables.fatigue
    return 1 + len(f.checks) * (f.fv_max - f.fv_min + 1)


def _at_once(*widgets) -> None:
    """The browser's changes of these widgets reach their watchers at once: Panel otherwise holds each
    change for 50 ms in case another one follows (its ``_debounce``), a sixth of the 300 ms an odds
    update may take (issue 12.3). The text box's keystrokes (``value_input``) too, or its ``value`` would
    wait behind the keystroke sent just before it."""
    for wdg in widgets:
        wdg._priority_changes = ["value", "value_input", "active"]


def check_panel(sess: TbfSession) -> pn.Row:
    """The Fatigue Check calculator (4.2.2): answered at once in the callback while its cost is bounded to a
    few milliseconds (:func:`check_cost`; the shipped tables), else in a worker process with a busy line and
    *cancel* (issue 12.3); the answers for the shipped tables are shared by every session."""
    t = sess.charts
    check = pn.widgets.Select(label="Reason for the check", options={c.name + f" ({c.rule})": k
                                                                    for k, c in t.fatigue.checks.items()},
                              value="being_charged", css_classes=["tbf-check-select"])
    fv = pn.widgets.IntSlider(label="Current FV", start=t.fatigue.fv_min, end=t.fatigue.fv_max, value=4,
                              css_classes=["tbf-fv"])
    status = pn.widgets.RadioButtonGroup(label="Status", options=["normal", "fatigued", "routed"], value="normal")
    cvs = pn.widgets.TextInput(label="Leaders' CVs in or next to the unit (e.g. 1, 2)", value="1",
                               css_classes=["tbf-cvs"], max_length=MAX_CVS_TEXT)
    mods = pn.widgets.CheckBoxGroup(label="Modifiers", options=[], inline=False)
    drm = pn.widgets.IntInput(label="Other DRM", value=0, start=-MAX_CHECK_DRM, end=MAX_CHECK_DRM, width=120)
    # the result, and below it the grid (its own pane: a changed input shows its odds first, the grid a
    # moment later, and an input that leaves the grid as it was sends the result only)
    out = pn.pane.HTML("<div class='tbf-check-wait'>working out the check…</div>",
                       stylesheets=[BADGE_CSS, BARS_CSS], sizing_mode="stretch_width", css_classes=["tbf-check-out"])
    grid_out = pn.pane.HTML("", stylesheets=[GRID_CSS], sizing_mode="stretch_width", css_classes=["tbf-check-grid"])
    bg = Background()
    _at_once(check, status, cvs, mods, drm)
    # the busy line is only drawn for a loaded set of tables too big to answer at once (check_cost)
    results = pn.Column(out, grid_out, sizing_mode="stretch_width", css_classes=["tbf-check-results"])
    asked = [0]       # the latest request: a grid still to come for an older one is not shown

    def refresh_mods(*_: object) -> None:
        cd = sess.charts.fatigue.checks.get(check.value)
        mods.options = list(cd.modifiers) if cd else []
        mods.value = [m for m in mods.value if m in mods.options]

    check.param.watch(refresh_mods, "value")
    refresh_mods()

    def shown(parts: tuple[str, str]) -> None:
        out.object, grid_out.object = parts

    def failed(exc: Exception) -> None:
        out.object = f"<div class='tbf-error alert alert-danger'><b>Cannot compute this:</b> {html.escape(str(exc))}</div>"
        grid_out.object = ""

    def compute(*_):
        asked[0] += 1
        mine = asked[0]
        tables = None if sess.tables is default_tables() else sess.tables      # None: the shipped set
        badge = sess.badge("fatigue")
        args = (check.value, fv.value, status.value, cvs.value, tuple(mods.value), drm.value, badge)
        key = args if tables is None else None
        if key is not None and key in _SHARED_CHECKS:
            bg.drop()                       # an older request still running is not wanted any more
            shown(_SHARED_CHECKS[key])
            return

        def done(parts: tuple[str, str], key: tuple[Any, ...] | None = key) -> None:
            if key is not None:
                if len(_SHARED_CHECKS) >= _SHARED_MAX:
                    _SHARED_CHECKS.pop(next(iter(_SHARED_CHECKS)))
                _SHARED_CHECKS[key] = parts
            shown(parts)

        inline = check_cost(sess.charts) <= INLINE_CHECK_CELLS
        if not inline:
            if len(results) == 2:
                results.insert(0, bg.panel())
            bg.start(partial(check_work, tables, *args), done, failed, label="working out the check…")
            return
        if not pn.state.loaded:             # building the page (or no server): both parts at once
            bg.start(partial(check_work, tables, *args), done, failed, label="working out the check…", inline=True)
            return

        def grid_next(head: str) -> None:                # the odds now; the grid (10 ms more when new) on the next tick
            out.object = head

            def grid() -> None:
                if asked[0] != mine:
                    return
                try:
                    done((head, check_grid(tables, args[2], args[3])))
                except VedetteError as exc:
                    failed(exc)
            pn.state.execute(grid, schedule=True)

        bg.start(partial(check_head, tables, *args), grid_next, failed, label="working out the check…", inline=True)

    for wdg in (check, fv, status, cvs, mods, drm):
        wdg.param.watch(compute, "value")
    sess.param.watch(compute, "tables")
    compute()
    return pn.Row(pn.Column(check, fv, status, cvs, mods, drm, width=320), results,
                  sizing_mode="stretch_width", name="Fatigue Checks")
