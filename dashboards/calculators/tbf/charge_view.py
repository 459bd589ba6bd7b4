"""The Charge tab of the These Brave Fellows page (6.2.8-6.2.11): a cavalry charge set up in a form (or as a
CHARGE file), bounded for the served page, its exact probability tree laid out in a worker process."""
from __future__ import annotations

import html
from collections.abc import Hashable
from fractions import Fraction
from functools import partial
from typing import Any

import panel as pn
import param

from dashboards.common.layout import columns, flow
from dashboards.common.rule_notes import rule_note_for
from dashboards.common.unit_rows import RowsTable
from dashboards.common.uploads import STATUS_CSS
from dashboards.render.dist_bars import bars_html
from dashboards.render.tree_plot import TreeCanvas, canvas_params, layout_tree
from dashboards.server.background import Background
from engine.core.errors import VedetteError
from engine.core.procedure import enumerate_tree
from engine.tbf.board import default_board
from engine.tbf.charge import MAX_TARGETS as _ENGINE_MAX_TARGETS, MAX_UNITS_PER_TARGET as _ENGINE_MAX_UNITS
from engine.tbf.charge import charge_from_spec, charge_outcome, charge_proc
from engine.tbf.policies import POLICIES
from engine.tbf.tables import Tables

from .session import TbfSession, html_pane

__all__ = ["EXAMPLE_CHARGE", "MAX_CHARGE_TEXT", "MAX_UNITS_PER_TARGET", "MAX_TARGETS", "MAX_DEFENDERS",
           "MAX_OUTCOME_ROWS", "TARGET_FIELDS", "TARGET_TITLES", "EVERY_CSS", "parse_charge_text", "outcome_bars",
           "charge_work", "charge_targets", "target_rows", "charge_yaml", "charge_panel"]

EXAMPLE_CHARGE = """# A dragoon squadron charges two enemy hexes in a row (format: docs/tbf.md)
charger: {name: 1st Dragoons sqn, hex: "1214", facing: NE, fv: 4, mf: 3, ma: 8}
path: ["1314", "1413", "1513"]
targets:
  - hex: "1513"
    units: [{name: Pskov 1st bn, fv: 3, mf: 4}]
    rout_to: "1611"
  - hex: "1612"
    units: [{name: Pskov 2nd bn, fv: 2, mf: 4}]
    rout_to: "1809"
melee: true
"""


#: computing limits of the served page (not rules): a charge into more defenders than this has tens of
#: thousands of outcomes and takes seconds to minutes to enumerate
MAX_CHARGE_TEXT = 20_000       # characters of CHARGE YAML
MAX_UNITS_PER_TARGET = _ENGINE_MAX_UNITS   # defending units in one target hex (the engine's 4.1 bound)
MAX_TARGETS = _ENGINE_MAX_TARGETS          # target hexes in one charge (the engine's bound)
MAX_DEFENDERS = 12             # defending units over all targets (this page's computing limit)


def parse_charge_text(src: str) -> Any:
    """The CHARGE YAML of the page, parsed and bounded (a clear message naming the limit when too big)."""
    if len(src) > MAX_CHARGE_TEXT:
        raise VedetteError(f"CHARGE: at most {MAX_CHARGE_TEXT} characters on this page (got {len(src)})")
    from engine.core.data import parse_data
    spec = parse_data(src, "CHARGE")   # bounded: nesting, YAML aliases, one-line errors (core/data.py)
    targets = spec.get("targets") if isinstance(spec, dict) else None
    if isinstance(targets, list):
        if len(targets) > MAX_TARGETS:
            raise VedetteError(f"CHARGE targets: at most {MAX_TARGETS} target hexes on this page (got {len(targets)})")
        total = 0
        for i, t in enumerate(targets):
            units = t.get("units") if isinstance(t, dict) else None
            if isinstance(units, list):
                if len(units) > MAX_UNITS_PER_TARGET:
                    raise VedetteError(f"CHARGE targets[{i}].units: at most {MAX_UNITS_PER_TARGET} units per target "
                                       f"hex on this page (got {len(units)})")
                total += len(units)
        if total > MAX_DEFENDERS:
            raise VedetteError(f"CHARGE targets: at most {MAX_DEFENDERS} defending units in all on this page "
                               f"(got {total})")
    return spec


#: the outcomes listed one a row under the charge (a display limit, not a rule): a charge into the page's
#: most defenders has some 700, 420 KB of HTML for the server to send and the browser to draw (issue 12.3);
#: the rest share one row with their total chance
MAX_OUTCOME_ROWS = 60


def outcome_bars(items: list[tuple[Hashable, Fraction]]) -> str:
    """The charge's outcomes, likeliest first, as bars: at most :data:`MAX_OUTCOME_ROWS` rows, then one row
    for all the others together (their summed chance, so the rows still add up to the tree's total)."""
    rows = [(str(o), w) for o, w in items[:MAX_OUTCOME_ROWS]]
    rest = items[MAX_OUTCOME_ROWS:]
    if rest:
        rows.append((f"… {len(rest)} less likely outcomes together", sum((w for _, w in rest), Fraction(0))))
        return bars_html(rows, f"the {MAX_OUTCOME_ROWS} likeliest of {len(items)} outcomes",
                         css_class="tbf-charge-every")
    return bars_html(rows, "every outcome", css_class="tbf-charge-every")


def charge_work(src: str, tables: Tables, use_map_v: bool, policy_v: str) -> tuple[str, str, str]:
    """Off the event loop (in a child process): parse, bound, enumerate and lay out a CHARGE; returns three
    strings, so that the server's part when they arrive is copying them into the page (issue 12.3): the
    summary's HTML (after the badges), the tree picture's JSON and its text outline
    (:func:`~dashboards.render.tree_plot.canvas_params`)."""
    spec = parse_charge_text(src)
    b = default_board()
    if use_map_v:
        setup = charge_from_spec(spec, b.grid, "CHARGE", terrain=b.charge_terrain(tables),
                                 los=lambda a, c: b.los(a, c, tables, viewer="cavalry").clear)
    else:
        setup = charge_from_spec(spec, b.grid, "CHARGE")
    tree = enumerate_tree(charge_proc(tables, setup), policy=POLICIES[policy_v])
    d = tree.distribution()
    stopped: dict[str, Fraction] = {}
    for o, w in d.items():
        end = charge_outcome(o).stopped
        stopped[end] = stopped.get(end, Fraction(0)) + w
    summary = bars_html(sorted(stopped.items(), key=lambda kv: -kv[1]), "how the charge ends",
                        css_class="tbf-charge-ends")
    outcomes = outcome_bars(sorted(d.items(), key=lambda kv: -kv[1]))
    total = tree.total()
    picture = canvas_params(layout_tree(tree, fmt_result=str, rule_note=rule_note_for("tbf")))
    return (f"tree total <b class='tbf-total'>{total.numerator}/{total.denominator}</b></div>" + summary + outcomes,
            picture["data"], picture["outline"])


#: the columns of the charge's defenders table: one row per unit; rows with the same hex are one target hex
TARGET_FIELDS: dict[str, Any] = {"hex": str, "name": str, "fv": int, "mf": int,
                                 "status": ("normal", "fatigued", "routed"), "rout_to": str}
TARGET_TITLES = {"hex": "target hex", "fv": "FV", "mf": "MF", "status": "status (4.2.4)",
                 "rout_to": "routs to (hex)"}


def charge_targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The CHARGE file's ``targets`` from the defenders table: the hexes in the order they first appear, each
    with its units; the hex's ``rout_to`` is the first one typed on its rows."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        h = str(r.get("hex") or "").strip()
        t = out.setdefault(h, {"hex": h, "units": []})
        u = {"name": r.get("name") or "?", "fv": r.get("fv"), "mf": r.get("mf")}
        if r.get("status") not in (None, "", "normal"):
            u["status"] = r["status"]
        t["units"].append(u)
        if r.get("rout_to") and "rout_to" not in t:
            t["rout_to"] = str(r["rout_to"]).strip()
    return list(out.values())


def target_rows(targets: Any) -> list[dict[str, Any]]:
    """The defenders table's rows from a CHARGE file's ``targets`` (the inverse of :func:`charge_targets`)."""
    rows = []
    for t in targets or []:
        for k, u in enumerate(t.get("units") or []):
            rows.append({"hex": str(t.get("hex", "")), "name": u.get("name", ""), "fv": u.get("fv"),
                         "mf": u.get("mf"), "status": u.get("status", "normal"),
                         "rout_to": str(t.get("rout_to") or "") if k == 0 else ""})
    return rows


def charge_yaml(spec: dict[str, Any]) -> str:
    """The CHARGE file (docs/tbf.md) of the form, one unit a line."""
    import yaml

    def dump(v: Any) -> str:
        return yaml.safe_dump(v, default_flow_style=True, sort_keys=False, width=400).split("\n...")[0].strip()
    lines = ["# A charge set up in the form (format: docs/tbf.md)", f"charger: {dump(spec['charger'])}",
             f"path: {dump(spec['path'])}", "targets:"]
    for t in spec["targets"]:
        head = {k: v for k, v in t.items() if k != "units"}
        lines.append(f"  - {dump(head)[:-1]}, units: [" if head else "  - {units: [")
        lines[-1] = lines[-1].replace("{, units", "{units")
        lines += [f"      {dump(u)}," for u in t["units"]]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("    ]}")
    lines.append(f"melee: {'true' if spec.get('melee', True) else 'false'}")
    return "\n".join(lines) + "\n"


_FORM_KEYS = {"charger", "path", "targets", "melee"}
#: an outcome of a charge names every target hex: its label wraps rather than widening the page
EVERY_CSS = ".tbf-charge-every td.lab {white-space:normal;width:60%;overflow-wrap:anywhere}"


def charge_panel(sess: TbfSession) -> pn.Column:
    """A charge set up in a form: the charger (a cavalry unit of the set-up or typed in), its hex, facing and
    path, the defenders as a table (one row per unit, grouped by hex); the CHARGE YAML stays in an advanced
    box, in step with it. The tree follows every change (no button)."""
    from engine.tbf.scenario import default_scenario
    from engine.tbf.game.setup import initial_state

    sc = default_scenario()
    st0 = initial_state(sc)
    grid = sc.board.grid
    dirs = list(grid.direction_names)
    first = parse_charge_text(EXAMPLE_CHARGE)
    ch = first["charger"]
    at = {p.id: p for p in st0.on_map()}
    cav = {f"{sc.units[pid].name} ({sc.units[pid].side}, {p.hex})": pid for pid, p in at.items()
           if pid in sc.units and getattr(sc.units[pid], "kind", "") == "cavalry"}
    anyone = {f"{sc.units[pid].name} ({sc.units[pid].side}, {p.hex})": pid for pid, p in at.items()
              if pid in sc.units and not sc.is_leader(pid) and hasattr(sc.units[pid], "mf")}
    w = pn.widgets
    pick_charger = w.Select(name="Charger from the Dürenstein set-up", options={"(as typed below)": ""} | cav,
                            value="", width=330, css_classes=["tbf-charge-pick"])
    name = w.TextInput(name="charger", value=ch["name"], width=200, css_classes=["tbf-charge-name"])
    hex0 = w.TextInput(name="in hex", value=str(ch["hex"]), width=90, css_classes=["tbf-charge-hex"])
    facing = w.Select(name="facing", options=dirs, value=ch["facing"], width=90, css_classes=["tbf-charge-facing"])
    fv = w.IntInput(name="FV", value=ch["fv"], start=0, end=9, width=80, css_classes=["tbf-charge-fv"])
    mf = w.IntInput(name="MF", value=ch["mf"], start=0, end=9, width=80)
    ma = w.IntInput(name="MA", value=ch["ma"], start=0, end=20, width=80)
    path = w.TextInput(name="path (hexes from the charger; the last is the first target, 6.2.8 C)",
                       value=" ".join(first["path"]), width=420, css_classes=["tbf-charge-path"])
    melee = w.Checkbox(name="melee after the charge (6.2.10)", value=bool(first.get("melee", True)))
    policy = w.Select(name="Defenders' counter and reaction charges", options=list(POLICIES), value="aggressive",
                      width=300)
    use_map = w.Checkbox(name="check terrain and LOS on the Dürenstein map", value=True)
    pick_def = w.Select(name="A unit of the set-up", options=anyone, width=330, css_classes=["tbf-charge-pick-def"])
    add_def = w.Button(name="add to the defenders", width=190, css_classes=["tbf-charge-add-def"])
    text = w.TextAreaInput(name="CHARGE (YAML, docs/tbf.md)", value=EXAMPLE_CHARGE, height=300,
                           sizing_mode="stretch_width", css_classes=["tbf-charge-text"])
    # one summary pane and one picture, made with the tab: a result changes their text in place (two
    # property patches on the event loop, not new models: issue 12.3)
    summary = html_pane("", [EVERY_CSS, STATUS_CSS])
    picture = TreeCanvas(sizing_mode="stretch_width", css_classes=["tree-plot"], min_width=300)
    out = pn.Column(summary, sizing_mode="stretch_width", css_classes=["tbf-charge-out"])
    tree_area = pn.Column(picture, sizing_mode="stretch_width", css_classes=["tbf-charge-tree"])
    bg = Background()
    guard = [False]

    def spec() -> dict[str, Any]:
        return {"charger": {"name": name.value or "charger", "hex": (hex0.value or "").strip(), "facing": facing.value,
                            "fv": fv.value, "mf": mf.value, "ma": ma.value},
                "path": (path.value or "").replace(",", " ").split(), "targets": charge_targets(targets.rows()),
                "melee": melee.value}

    def show(parts: tuple[str, str, str]) -> None:
        head, data, outline = parts
        summary.object = f"<div>{sess.badge('fatigue')} {sess.badge('melee')} " + head
        picture.param.update(data=data, outline=outline)

    def failed(exc: Exception) -> None:
        summary.object = (f"<div class='tbf-error alert alert-danger'><b>Cannot compute this:</b> "
                          f"{html.escape(str(exc))}</div>")

    def compute(*_: object, process: bool = True) -> None:
        work = partial(charge_work, text.value or "", sess.charts, use_map.value, policy.value)
        bg.start(work, show, failed, label="computing the charge tree…", process=process)

    def form_changed(*_: object) -> None:
        if guard[0]:
            return
        guard[0] = True
        try:
            text.value = charge_yaml(spec())
        finally:
            guard[0] = False
        compute()

    def fill(d: dict[str, Any]) -> None:
        c = d.get("charger") or {}
        name.value = str(c.get("name", ""))
        hex0.value = str(c.get("hex", ""))
        if str(c.get("facing", "")).upper() in [x.upper() for x in dirs]:
            facing.value = next(x for x in dirs if x.upper() == str(c["facing"]).upper())
        for wdg, k in ((fv, "fv"), (mf, "mf"), (ma, "ma")):
            if isinstance(c.get(k), int):
                wdg.value = c[k]
        path.value = " ".join(str(h) for h in d.get("path") or [])
        targets.set_rows(target_rows(d.get("targets")))
        melee.value = bool(d.get("melee", True))

    def text_changed(event: param.parameterized.Event) -> None:     # the advanced box: the form follows a typed charge it can show
        if guard[0]:
            return
        try:
            d = parse_charge_text(event.new)
        except VedetteError:
            d = None             # the run below names what is wrong
        if isinstance(d, dict) and set(d) <= _FORM_KEYS and isinstance(d.get("charger"), dict) \
                and isinstance(d.get("targets"), list) and all(isinstance(t, dict) for t in d["targets"]):
            guard[0] = True
            try:
                fill(d)
            except (TypeError, ValueError, AttributeError):
                pass
            finally:
                guard[0] = False
        compute()

    def charger_picked(event: param.parameterized.Event) -> None:
        pid = event.new
        if not pid:
            return
        u, p = sc.units[pid], at[pid]
        guard[0] = True
        try:
            name.value, hex0.value, facing.value = u.name, p.hex, dirs[p.facing]
            fv.value, mf.value, ma.value = u.fv, u.mf, u.ma
        finally:
            guard[0] = False
        form_changed()

    def add_defender(*_: object) -> None:
        pid = pick_def.value
        if pid in at:
            u, p = sc.units[pid], at[pid]
            targets.append({"hex": p.hex, "name": u.name, "fv": u.fv, "mf": u.mf, "status": p.status
                            if p.status in TARGET_FIELDS["status"] else "normal", "rout_to": ""})

    targets = RowsTable(TARGET_FIELDS, target_rows(first["targets"]), form_changed, what="defender",
                        css="tbf-charge-targets", blank={"fv": 3, "mf": 4, "status": "normal"}, titles=TARGET_TITLES,
                        max_rows=MAX_DEFENDERS)
    pick_charger.param.watch(charger_picked, "value")
    add_def.on_click(add_defender)
    for wdg in (name, hex0, facing, fv, mf, ma, path, melee):
        wdg.param.watch(form_changed, "value")
    for wdg in (policy, use_map):
        wdg.param.watch(compute, "value")
    text.param.watch(text_changed, "value")
    sess.param.watch(compute, "tables")
    compute(process=False)      # the page's own small example: a pool thread is enough
    advanced = pn.Card(text, title="Advanced: the same charge as YAML (docs/tbf.md; reactors, path costs…)",
                       collapsed=True, sizing_mode="stretch_width", css_classes=["tbf-charge-advanced"])
    form = pn.Column(
        pn.pane.Markdown("**A cavalry charge** (6.2.8): the charger, its straight path and the units in each target "
                         "hex; the exact tree follows every change.", sizing_mode="stretch_width", margin=(0, 5)),
        flow(pick_charger, name, hex0, facing, fv, mf, ma), path,
        pn.pane.HTML("<b>Defenders</b> <small>(one row per unit; rows with the same hex are one target, in the "
                     "order charged, 6.2.8 G)</small>", margin=(4, 5, 0, 5), sizing_mode="stretch_width"),
        targets.panel(), flow(pick_def, add_def), flow(melee, use_map), policy, advanced,
        sizing_mode="stretch_width")
    col = pn.Column(columns(form, pn.Column(bg.panel(), out, sizing_mode="stretch_width",
                                            css_classes=["tbf-charge-results"]), basis=440), tree_area,
                    sizing_mode="stretch_width", name="Charge")
    # the tab's parts, for the page's tests (a Column takes any attribute: the type checker is told so)
    col._targets, col._text, col._charger = (  # type: ignore[attr-defined]
        targets, text, (pick_charger, name, hex0, facing, fv, mf, ma, path))
    return col
