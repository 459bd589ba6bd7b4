"""The Situation tab of the These Brave Fellows page: pieces placed on the Dürenstein set-up, then the exact
fate of every piece in one action (move, fire, melee, charge) or one step of the turn (3.1, 4.1.10 B, 7.0),
worked out in a worker process."""
from __future__ import annotations

import html
from fractions import Fraction
from functools import partial
from typing import Any

import panel as pn

from dashboards.common.layout import columns
from dashboards.common.provenance import badge_html
from dashboards.common.uploads import STATUS_CSS
from dashboards.render.dist_bars import bars_html
from dashboards.server.background import Background
from engine.core.errors import VedetteError
from engine.tbf.tables import Tables, default_tables

from .session import TbfSession, html_pane

__all__ = ["situation_work", "situation_panel"]


def situation_work(tables: Tables | None, places_v: str, units_v: str, levels_v: str, what_v: str, side_v: str,
                   target_v: str, path_v: str, nxt_v: str) -> tuple[tuple[str, str, str], dict[str, Any]]:
    """((map source, counters source, counters notes), summary) of one action or step of the turn on the
    Dürenstein set-up (``tables`` None: the shipped set): module-level, so that it runs in a worker process."""
    from engine.tbf.calc import action_summary, phase_summary, state_from_placements
    from engine.tbf.scenario import default_scenario, load_scenario

    sc = default_scenario() if tables is None else load_scenario(tables=tables)
    st = state_from_placements(sc, places_v.splitlines())
    ids = tuple(x.strip() for x in units_v.split(",") if x.strip())
    try:
        l2, l3 = (int(x) for x in (levels_v.split() + ["0", "0"])[:2])
    except ValueError:
        raise VedetteError(f"Level 2/3 hexes must be two whole numbers, not {levels_v!r}") from None
    if what_v in ("reinforcement", "end-of-activation", "recovery"):     # 3.1, 4.1.10 B, 7.0
        res = phase_summary(sc, st, what_v, side_v)
    else:
        res = action_summary(sc, st, what_v, ids, target_v.strip() or None, tuple(path_v.split()),
                             tuple(nxt_v.split()), level_hexes=((2, l2), (3, l3)))
    return (sc.board.data.source, sc.oob.source, sc.oob.notes), res


def situation_panel(sess: TbfSession) -> pn.FlexBox:
    """An action or a step of the turn on the Dürenstein set-up: place pieces, then see the exact fate of
    every piece involved."""
    places = pn.widgets.TextAreaInput(label="Changes to the set-up, one per line: ID=HEX[:FACING[:STATUS]]",
                                      value="ci-1=2114:SW", height=110, css_classes=["tbf-places"])
    what = pn.widgets.RadioButtonGroup(options=["move", "fire", "melee", "charge", "reinforcement",
                                                "end-of-activation", "recovery"], value="fire",
                                       orientation="vertical", width=200,   # seven choices fit the 420 px column
                                       css_classes=["tbf-situation-what"])
    side = pn.widgets.RadioButtonGroup(options=["french", "coalition"], value="french",
                                       css_classes=["tbf-situation-side"])
    side_note = pn.pane.Markdown("_end-of-activation (4.1.10 B): whose Activation Phase ends_")
    units = pn.widgets.TextInput(label="acting unit ids (comma separated; gb:3412 for a Grand Battery hex)",
                                 value="4l-1", css_classes=["tbf-units"])
    target = pn.widgets.TextInput(label="target hex (fire, melee) or destination (move)", value="2114", width=300)
    levels = pn.widgets.TextInput(label="move: Level 2 and Level 3 hexes from the 6.2.3 roll (e.g. 2 1)", value="0 0")
    path = pn.widgets.TextInput(label="charge path (hexes, the last is the first target)", value="")
    nxt = pn.widgets.TextInput(label="further charge targets", value="")
    # one pane whose text each result replaces (issue 12.3: no new models on the event loop per result)
    shown = html_pane("<i>working out every end state…</i>", [STATUS_CSS])
    out = pn.Column(shown, sizing_mode="stretch_width", css_classes=["tbf-situation-out"])

    bg = Background()

    def compute(_=None):
        # the inputs are read here, on the event loop; the enumeration runs off it (issue 12.3)
        tables = None if sess.tables is default_tables() else sess.tables     # None: the shipped set
        work = partial(situation_work, tables, places.value, units.value, levels.value, what.value, side.value,
                       target.value, path.value, nxt.value)
        bg.start(work, _situation_shown, _situation_failed, label="working out every end state…")

    def _situation_failed(exc: Exception) -> None:
        shown.object = (f"<div class='tbf-error alert alert-danger'><b>Cannot compute this:</b> "
                        f"{html.escape(str(exc))}</div>")

    def _situation_shown(r: tuple[tuple[str, str, str], dict[str, Any]]) -> None:
        _situation_html(*r)

    def _situation_html(sources: tuple[str, str, str], res: dict[str, Any]) -> None:
        map_source, oob_source, oob_notes = sources
        parts = [f"<div>{sess.badge('fatigue')} {sess.badge('fire')} {sess.badge('melee')} "
                 f"{badge_html(map_source, 'map', 'map')} {badge_html(oob_source, oob_notes, 'counters')}"
                 f" · {res['states']} distinct end states</div>"]
        for pid, rows in res["pieces"].items():
            parts.append(bars_html([(r["outcome"], Fraction(r["probability"]["fraction"])) for r in rows],
                                   f"{pid}", css_class=f"tbf-piece tbf-piece-{pid}"))
        for flag, p in res.get("new_flags", {}).items():
            parts.append(f"<div class='tbf-flag' data-flag='{html.escape(flag)}' data-fraction='{p['fraction']}'>"
                         f"{html.escape(flag)}: {p['fraction']} ({p['float']:.3f})</div>")
        if "phase" in res:
            parts.append(f"<div>rule {res['rule']} · turn afterwards: "
                         f"{', '.join(str(t) for t in res['next_turn'])}</div>")
        shown.object = "".join(parts)

    opened = [False]

    def follow(*_: object) -> None:                # the results follow every change once the tab has been opened (no button)
        if opened[0]:
            compute()

    def first_open() -> None:
        opened[0] = True
        compute()

    for wdg in (places, what, side, units, target, levels, path, nxt):
        wdg.param.watch(follow, "value")
    sess.param.watch(follow, "tables")
    row = columns(pn.Column(places, what, side_note, side, units, target, levels, path, nxt, bg.panel(),
                            sizing_mode="stretch_width"), out, basis=420, name="Situation")
    # the page runs it the first time the tab is opened (a layout takes any attribute: the checker is told so)
    row.compute = first_open  # type: ignore[attr-defined]
    return row
