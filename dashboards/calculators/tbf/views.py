"""These Brave Fellows page parts: a view model holding the session's tables, and the calculator views
(Fatigue Checks, charge trees, fire, melee, the Dürenstein map with line of sight).

No rule is computed here: every number comes from ``engine.tbf`` procedures driven by the engine.
"""
from __future__ import annotations

import html
from fractions import Fraction
from functools import partial

import panel as pn
import param

from dashboards.server.background import Background
from dashboards.render.dist_bars import bars, bars_html, STYLESHEET as BARS_CSS
from dashboards.common.provenance import badge, badge_html, STYLESHEET as BADGE_CSS
from dashboards.common.uploads import STATUS_CSS, FileLoader
from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_plot import TreeCanvas, canvas_params, layout_tree
from dashboards.render.tree_view import STYLESHEET as TREE_CSS
from dashboards.common.layout import columns, flow
from dashboards.common.unit_rows import RowsTable
from engine.core.errors import VedetteError
from engine.core.procedure import enumerate_tree
from engine.tbf.board import default_board
from engine.tbf.calc import fighter_from_kv, firer_from_kv
from engine.tbf.charge import MAX_TARGETS as _ENGINE_MAX_TARGETS, MAX_UNITS_PER_TARGET as _ENGINE_MAX_UNITS
from engine.tbf.charge import charge_from_spec, charge_proc
from engine.tbf.fatigue import CheckSpec, check_distribution
from engine.tbf.fire import FireSetup, fire_distribution
from engine.tbf.melee import MeleeSetup, melee_distribution
from engine.tbf.policies import POLICIES
from engine.tbf.tables import Tables, default_tables, load_tables

__all__ = ["TbfSession", "check_panel", "charge_panel", "fire_panel", "melee_panel", "map_panel", "EXAMPLE_CHARGE"]

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


def parse_charge_text(src: str) -> dict:
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


def outcome_bars(items: list) -> str:
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
    stopped = {}
    for o, w in d.items():
        stopped[o.stopped] = stopped.get(o.stopped, Fraction(0)) + w
    summary = bars_html(sorted(stopped.items(), key=lambda kv: -kv[1]), "how the charge ends",
                        css_class="tbf-charge-ends")
    outcomes = outcome_bars(sorted(d.items(), key=lambda kv: -kv[1]))
    total = tree.total()
    picture = canvas_params(layout_tree(tree, fmt_result=str, rule_note=rule_note_for("tbf")))
    return (f"tree total <b class='tbf-total'>{total.numerator}/{total.denominator}</b></div>" + summary + outcomes,
            picture["data"], picture["outline"])


class TbfSession(param.Parameterized):
    """One browser session's state: the tables in use (shipped or uploaded)."""

    tables = param.ClassSelector(class_=Tables)
    uploaded = param.Boolean(default=False)
    tables_name = param.String(default="shipped provisional charts")

    def __init__(self, **params):
        params.setdefault("tables", default_tables())
        super().__init__(**params)
        self.loader = FileLoader(load_tables, self._loaded, self._reset, label="Load your own TBF tables file")

    def _loaded(self, tables, filename):
        self.param.update(tables=tables, uploaded=True, tables_name=filename)

    def _reset(self):
        self.param.update(tables=default_tables(), uploaded=False, tables_name="shipped provisional charts")

    def badge(self, block: str) -> str:
        src = getattr(self.tables, block).source
        notes = getattr(self.tables, block).notes
        return badge_html(src, notes, label=block, uploaded=self.uploaded)


def _error(exc: Exception) -> pn.pane.Alert:
    return pn.pane.Alert(f"**Cannot compute this:** {html.escape(str(exc))}", alert_type="danger",
                         css_classes=["tbf-error"], sizing_mode="stretch_width")


def _html(s: str, css=()) -> pn.pane.HTML:
    return pn.pane.HTML(s, stylesheets=[BADGE_CSS, BARS_CSS, TREE_CSS, *css], sizing_mode="stretch_width")


# ---------------------------------------------------------------------------------------------------
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
_SHARED_CHECKS: dict[tuple, tuple[str, str]] = {}
_SHARED_MAX = 256


def _pass_grid_html(tables: Tables, status: str, leader: tuple[int, ...]) -> str:
    """The chance to pass every check at every FV, for a unit of ``status`` with these leaders."""
    grid = []
    for k, c in tables.fatigue.checks.items():
        if status not in c.allowed:
            continue
        cells = []
        for f in range(tables.fatigue.fv_min, tables.fatigue.fv_max + 1):
            q = check_distribution(tables, CheckSpec(k, f, status, leader)).prob(lambda o: o.passed)
            cells.append(f"<td title='{q}'>{float(q) * 100:.0f}%</td>")
        grid.append(f"<tr><td>{html.escape(c.name)}</td>{''.join(cells)}</tr>")
    hdr = "".join(f"<th>FV {f}</th>" for f in range(tables.fatigue.fv_min, tables.fatigue.fv_max + 1))
    return (f"<table class='tbf-grid'><caption>Chance to pass, {html.escape(status)} unit, leaders {list(leader)}"
            f"</caption><tr><th>check</th>{hdr}</tr>{''.join(grid)}</table>")


_GRIDS: dict[tuple, str] = {}     # shipped tables only (in the process that computes them)


def check_head(tables: Tables | None, check_v: str, fv_v: int, status_v: str, cvs_v: str, mods_v: tuple,
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
    p = d.prob(lambda o: o.passed)
    faces = [f for f in range(1, 7) if f + spec.total_drm(tables) <= fv_v]
    rows = [(("pass: " if o.passed else "fail: ") + o.effect + (" (MF doubled)" if o.doubled else ""), w,
             "#2e7d32" if o.passed else "#c62828")
            for o, w in d.sorted_items(key=lambda o: (not o.passed, o.effect, not o.doubled))]
    head = (f"<div class='tbf-check-result' data-pass='{p.numerator}/{p.denominator}'>"
            f"<b>{html.escape(cd.name)}</b> (rule {html.escape(cd.rule)}) {badge}<br>"
            f"net DRM {spec.total_drm(tables):+d}; passes on d6 {', '.join(map(str, faces)) or 'never'}: "
            f"<b>{p.numerator}/{p.denominator}</b> ({float(p) * 100:.1f}%)</div>")
    return head + bars_html(rows, "outcomes")


def check_grid(tables: Tables | None, status_v: str, cvs_v: str) -> str:
    """The chance to pass every check at every FV (4.2.2) for a unit of this status with these leaders, as
    an HTML table (kept per status and leaders for the shipped set, ``tables`` None)."""
    shipped = tables is None
    tables = default_tables() if shipped else tables
    leader = parse_leader_cvs(cvs_v)
    key = (status_v, leader)
    grid = _GRIDS.get(key) if shipped else None
    if grid is None:
        grid = _pass_grid_html(tables, status_v, leader)
        if shipped:
            if len(_GRIDS) > 64:
                _GRIDS.clear()
            _GRIDS[key] = grid
    return grid


def check_work(tables: Tables | None, check_v: str, fv_v: int, status_v: str, cvs_v: str, mods_v: tuple,
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


def check_panel(sess: TbfSession):
    """The Fatigue Check calculator (4.2.2): answered at once in the callback while its cost is bounded to a
    few milliseconds (:func:`check_cost`; the shipped tables), else in a worker process with a busy line and
    *cancel* (issue 12.3); the answers for the shipped tables are shared by every session."""
    t = sess.tables
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

    def refresh_mods(*_):
        cd = sess.tables.fatigue.checks.get(check.value)
        mods.options = list(cd.modifiers) if cd else []
        mods.value = [m for m in mods.value if m in mods.options]

    check.param.watch(refresh_mods, "value")
    refresh_mods()

    def shown(parts):
        out.object, grid_out.object = parts

    def failed(exc):
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

        def done(parts, key=key):
            if key is not None:
                if len(_SHARED_CHECKS) >= _SHARED_MAX:
                    _SHARED_CHECKS.pop(next(iter(_SHARED_CHECKS)))
                _SHARED_CHECKS[key] = parts
            shown(parts)

        inline = check_cost(sess.tables) <= INLINE_CHECK_CELLS
        if not inline:
            if len(results) == 2:
                results.insert(0, bg.panel())
            bg.start(partial(check_work, tables, *args), done, failed, label="working out the check…")
            return
        if not pn.state.loaded:             # building the page (or no server): both parts at once
            bg.start(partial(check_work, tables, *args), done, failed, label="working out the check…", inline=True)
            return

        def grid_next(head):                # the odds now; the grid (10 ms more when new) on the next tick
            out.object = head

            def grid():
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


# ---------------------------------------------------------------------------------------------------
#: the columns of the charge's defenders table: one row per unit; rows with the same hex are one target hex
TARGET_FIELDS = {"hex": str, "name": str, "fv": int, "mf": int, "status": ("normal", "fatigued", "routed"),
                 "rout_to": str}
TARGET_TITLES = {"hex": "target hex", "fv": "FV", "mf": "MF", "status": "status (4.2.4)",
                 "rout_to": "routs to (hex)"}


def charge_targets(rows: list[dict]) -> list[dict]:
    """The CHARGE file's ``targets`` from the defenders table: the hexes in the order they first appear, each
    with its units; the hex's ``rout_to`` is the first one typed on its rows."""
    out: dict[str, dict] = {}
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


def target_rows(targets) -> list[dict]:
    """The defenders table's rows from a CHARGE file's ``targets`` (the inverse of :func:`charge_targets`)."""
    rows = []
    for t in targets or []:
        for k, u in enumerate(t.get("units") or []):
            rows.append({"hex": str(t.get("hex", "")), "name": u.get("name", ""), "fv": u.get("fv"),
                         "mf": u.get("mf"), "status": u.get("status", "normal"),
                         "rout_to": str(t.get("rout_to") or "") if k == 0 else ""})
    return rows


def charge_yaml(spec: dict) -> str:
    """The CHARGE file (docs/tbf.md) of the form, one unit a line."""
    import yaml

    def dump(v):
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


def charge_panel(sess: TbfSession):
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
    summary = _html("", [EVERY_CSS, STATUS_CSS])
    picture = TreeCanvas(sizing_mode="stretch_width", css_classes=["tree-plot"], min_width=300)
    out = pn.Column(summary, sizing_mode="stretch_width", css_classes=["tbf-charge-out"])
    tree_area = pn.Column(picture, sizing_mode="stretch_width", css_classes=["tbf-charge-tree"])
    bg = Background()
    guard = [False]

    def spec() -> dict:
        return {"charger": {"name": name.value or "charger", "hex": hex0.value.strip(), "facing": facing.value,
                            "fv": fv.value, "mf": mf.value, "ma": ma.value},
                "path": path.value.replace(",", " ").split(), "targets": charge_targets(targets.rows()),
                "melee": melee.value}

    def show(parts):
        head, data, outline = parts
        summary.object = f"<div>{sess.badge('fatigue')} {sess.badge('melee')} " + head
        picture.param.update(data=data, outline=outline)

    def failed(exc):
        summary.object = (f"<div class='tbf-error alert alert-danger'><b>Cannot compute this:</b> "
                          f"{html.escape(str(exc))}</div>")

    def compute(*_, process: bool = True):
        work = partial(charge_work, text.value, sess.tables, use_map.value, policy.value)
        bg.start(work, show, failed, label="computing the charge tree…", process=process)

    def form_changed(*_):
        if guard[0]:
            return
        guard[0] = True
        try:
            text.value = charge_yaml(spec())
        finally:
            guard[0] = False
        compute()

    def fill(d: dict):
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

    def text_changed(event):     # the advanced box: the form follows a typed charge it can show
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

    def charger_picked(event):
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

    def add_defender(*_):
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
    col._targets, col._text, col._charger = targets, text, (pick_charger, name, hex0, facing, fv, mf, ma, path)
    return col


# ---------------------------------------------------------------------------------------------------
# Units as a form (a table with one row per unit); the "key=value" lines stay as an advanced box
# ---------------------------------------------------------------------------------------------------
def _kv_line(row: dict, fields: dict) -> str:
    bits = []
    for k, kind in fields.items():
        v = row.get(k)
        if kind is bool:
            if v in (True, "true", "yes", 1):
                bits.append(k)
        elif v not in (None, "") and not (isinstance(v, float) and v != v):
            bits.append(f"{k}={int(v) if kind is int and str(v).lstrip('-').isdigit() else v}")
    return ",".join(bits)


def unit_form(text: pn.widgets.TextAreaInput, fields: dict, blank: dict, what: str, css: str,
              setup: dict | None = None):
    """A table of units kept in step with ``text`` (one ``key=value,…`` line per unit): editing a cell,
    adding or removing a row rewrites the text; the text, edited in its advanced box, rebuilds the table."""
    import pandas as pd
    from engine.tbf.calc import parse_kv

    cols = list(fields)

    def frame(src: str):
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
    table = pn.widgets.Tabulator(frame(text.value), show_index=False, editors=editors, formatters=formatters,
                                 layout="fit_data_stretch", sizing_mode="stretch_width", css_classes=[css],
                                 configuration={"columnDefaults": {"headerSort": False}})
    busy = [False]

    def to_text(*_):
        if busy[0]:
            return
        busy[0] = True
        try:
            text.value = "\n".join(_kv_line(r, fields) for r in table.value.to_dict("records"))
        finally:
            busy[0] = False

    def from_text(e):
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

    def added(_):
        df = table.value
        new = pd.DataFrame([{k: blank.get(k, False if fields[k] is bool else "") for k in cols}]).astype(object)
        table.value = pd.concat([df, new], ignore_index=True).astype(object)
        to_text()

    def dropped(_):
        if len(table.value) > 1:
            table.value = table.value.iloc[:-1].reset_index(drop=True)
            to_text()

    add.on_click(added)
    drop.on_click(dropped)
    buttons = [add, drop]
    if setup:               # a unit of the Dürenstein set-up, its printed values filled in
        pick = pn.widgets.Select(label="a unit of the set-up", options=list(setup), width=300,
                                 css_classes=[css + "-pick"])
        take = pn.widgets.Button(label=f"add it as {a_n} {what}", width=200, css_classes=[css + "-take"])

        def taken(_):
            row = {k: blank.get(k, False if fields[k] is bool else "") for k in cols} | setup[pick.value]
            new = pd.DataFrame([row], columns=cols).astype(object)
            table.value = pd.concat([table.value, new], ignore_index=True).astype(object)
            to_text()

        take.on_click(taken)
        buttons += [pick, take]
    advanced = pn.Card(text, title="Advanced: the same units as text lines", collapsed=True,
                       sizing_mode="stretch_width")
    return pn.Column(table, flow(*buttons), advanced, sizing_mode="stretch_width")


def setup_units(kind: str) -> dict:
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


# ---------------------------------------------------------------------------------------------------
#: computing limits of the fire and melee panels (not rules): a melee's exact odds branch on every
#: attacker's own check (6.4 D): 6 attackers take a few seconds, 8 about twenty
MAX_FIRERS = 12
MAX_MELEE_UNITS = 6
MAX_UNITS_TEXT = 4000


def unit_lines(text: str, what: str, limit: int) -> list[str]:
    """The non-empty lines of a units box, bounded (a one-line message naming the limit)."""
    text = str(text or "")
    if len(text) > MAX_UNITS_TEXT:
        raise VedetteError(f"{what}: at most {MAX_UNITS_TEXT} characters on this page (got {len(text)})")
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) > limit:
        raise VedetteError(f"{what}: at most {limit} units on this page (got {len(lines)})")
    return lines


def melee_work(tables: Tables | None, a: str, d: str, terr: str, sh: int, badge: str = "") -> str:
    """Off the event loop (in a worker process): a melee's exact results (6.4) as HTML; ``tables`` None: the
    shipped set."""
    tables = default_tables() if tables is None else tables
    if not isinstance(sh, int) or abs(sh) > 9:
        raise VedetteError(f"other column shift: from -9 to +9 on this page, not {sh!r}")
    A = tuple(fighter_from_kv(l, "attacker", i) for i, l in enumerate(unit_lines(a, "attackers", MAX_MELEE_UNITS)))
    D = tuple(fighter_from_kv(l, "defender", i) for i, l in enumerate(unit_lines(d, "defenders", MAX_MELEE_UNITS)))
    tt = tables.terrain.terrain.get(terr)
    dist = melee_distribution(tables, MeleeSetup(A, D, shift=sh + (tt.melee_shift if tt else 0)))
    res, cols = {}, {}
    for o, w in dist.items():
        res[o.result] = res.get(o.result, Fraction(0)) + w
        cols[o.column or "none"] = cols.get(o.column or "none", Fraction(0)) + w
    meaning = tables.melee.results
    rows = [(f"{k} — {meaning[k].text}" if k in meaning else k, w) for k, w in sorted(res.items(), key=lambda kv: -kv[1])]
    return (f"<div>{badge}</div>" + bars_html(rows, "melee results", css_class="tbf-melee-bars")
            + bars_html(sorted(cols.items(), key=lambda kv: -kv[1]), "final odds column"))


# ---------------------------------------------------------------------------------------------------
def fire_panel(sess: TbfSession):
    firers = pn.widgets.TextAreaInput(label="Firing units, one per line (ff=3,kind=artillery,range=2,status=fatigued)",
                                      value="ff=3\nff=4,kind=artillery,range=1", height=120, css_classes=["tbf-firers"])
    night = pn.widgets.Checkbox(label="night (turn 11+, 8.1)")
    defensive = pn.widgets.Checkbox(label="defensive fire (6.3.6)")
    terrain = pn.widgets.Select(label="target terrain", options=list(sess.tables.terrain.terrain), value="level0")
    drm = pn.widgets.IntInput(label="other DRM", value=0, start=-6, end=6, width=120)

    def view(text, night_v, def_v, terr, drm_v, tables):
        try:
            fs = tuple(firer_from_kv(line, i) for i, line in enumerate(unit_lines(text, "firing units", MAX_FIRERS)))
            tt = tables.terrain.terrain.get(terr)
            setup = FireSetup(fs, defensive=def_v, night=night_v, terrain_drm=tt.fire_drm if tt else 0, drm=drm_v)
            d = fire_distribution(tables, setup)
        except VedetteError as exc:
            return _error(exc)
        res = {}
        for o, w in d.items():
            res[o.result] = res.get(o.result, Fraction(0)) + w
        meaning = tables.fire.results
        rows = [(f"{k} — {meaning[k].text}" if k in meaning else k, w) for k, w in sorted(res.items(), key=lambda kv: -kv[1])]
        cols = sorted({o.column or "none" for o in d})
        return _html(f"<div>{sess.badge('fire')} {sess.badge('terrain')} column(s): {', '.join(cols)}</div>"
                     + bars_html(rows, "fire results", css_class="tbf-fire-bars"))

    out = pn.bind(view, firers, night, defensive, terrain, drm, sess.param.tables)
    from engine.tbf.fire import FIRER_KINDS
    from engine.tbf.tables import STATUSES
    form = unit_form(firers, {"name": str, "ff": int, "kind": FIRER_KINDS, "range": int, "status": STATUSES,
                              "moved": bool}, {"ff": 3, "kind": "infantry", "range": 1, "status": "normal"},
                     "firer", "tbf-fire-form", setup=setup_units("fire"))
    return pn.Column(pn.pane.Markdown("**Firing units** (6.3): one row each; the results follow every change.",
                                      margin=(0, 5)), form, flow(night, defensive, terrain, drm),
                     pn.panel(out, sizing_mode="stretch_width"), sizing_mode="stretch_width", name="Fire")


def melee_panel(sess: TbfSession):
    att = pn.widgets.TextAreaInput(label="Attackers, one per line (mf=4,fv=4,flank,cv=1)", value="mf=4,fv=4,cv=1\nmf=4,fv=4",
                                   height=100, css_classes=["tbf-attackers"])
    dfn = pn.widgets.TextAreaInput(label="Defenders (mf=4,fv=3,status=fatigued)", value="mf=4,fv=3", height=80)
    terrain = pn.widgets.Select(label="defender's terrain", options=list(sess.tables.terrain.terrain), value="level0")
    shift = pn.widgets.IntInput(label="other column shift", value=0, start=-4, end=4, width=120)

    out = pn.pane.HTML("<div class='tbf-melee-wait'>working out the melee…</div>",
                       stylesheets=[BADGE_CSS, BARS_CSS], sizing_mode="stretch_width", css_classes=["tbf-melee-out"])
    bg = Background()

    def compute(*_):
        tables = None if sess.tables is default_tables() else sess.tables      # None: the shipped set
        bg.start(partial(melee_work, tables, att.value, dfn.value, terrain.value, shift.value, sess.badge("melee")),
                 lambda text: setattr(out, "object", text),
                 lambda exc: setattr(out, "object", f"<div class='tbf-error alert alert-danger'><b>Cannot compute "
                                                    f"this:</b> {html.escape(str(exc))}</div>"),
                 label="working out the melee…")

    for wdg in (att, dfn, terrain, shift):
        wdg.param.watch(compute, "value")
    sess.param.watch(compute, "tables")
    compute()
    from engine.tbf.melee import UNIT_KINDS
    from engine.tbf.tables import STATUSES
    fields = {"name": str, "mf": int, "fv": int, "kind": UNIT_KINDS, "status": STATUSES, "cv": str, "flank": bool}
    blank = {"mf": 4, "fv": 4, "kind": "infantry", "status": "normal"}
    melee_setup = setup_units("melee")
    col = pn.Column(pn.pane.Markdown("**Attackers** (6.4): one row each; *cv*: the CVs of leaders with them, "
                                      "joined by +.", margin=(0, 5)),
                     unit_form(att, fields, blank, "attacker", "tbf-melee-att", setup=melee_setup),
                     pn.pane.Markdown("**Defenders**", margin=(0, 5)),
                     unit_form(dfn, fields, blank, "defender", "tbf-melee-def", setup=melee_setup),
                     flow(terrain, shift), bg.panel(), out, sizing_mode="stretch_width", name="Melee")
    return col


# ---------------------------------------------------------------------------------------------------


def map_panel(sess: TbfSession):
    from dashboards.render.hexmap import TBF_COLOURS, Counter, HexMapFigure, MapSpec, Marked
    from engine.tbf.scenario import default_scenario
    from engine.tbf.game.setup import initial_state

    sc = default_scenario()
    b = sc.board
    names = {hs[0]: n for n, hs in b.data.towns.items()}
    names.update({h: f"col {k}" for k, h in b.data.setup_numbers.items() if h not in names})
    roads = [r.hexes for r in b.data.roads]
    spec = MapSpec(b.grid, {h: b.terrain(h) for h in b.hexes()}, names=names, roads=roads,
                   title="Dürenstein (provisional map)", source=b.data.source)
    fig = HexMapFigure(spec, width=980, show_labels=True)
    fig.terrain_source.data = dict(fig.terrain_source.data,
                                   colour=[TBF_COLOURS.get(t, "#eeeeee") for t in fig.terrain_source.data["terrain"]])
    st = initial_state(sc)
    counters = []
    for p in st.on_map():
        if sc.is_leader(p.id):
            continue
        u = sc.units[p.id]
        counters.append(Counter(p.id, p.hex, "french" if u.side == "french" else "allied", u.kind, u.fv, u.ma, u.name))
    fig.set_counters(counters)
    a = pn.widgets.TextInput(label="LOS from", value="1514", width=100, css_classes=["tbf-los-a"])
    c = pn.widgets.TextInput(label="to", value="1511", width=100, css_classes=["tbf-los-b"])
    viewer = pn.widgets.Select(label="viewer", options=["artillery", "howitzer", "cavalry", "infantry"], width=140)
    info = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["tbf-los-result"])
    picked = pn.pane.HTML("<i>click a hex to see its terrain</i>", sizing_mode="stretch_width", css_classes=["tbf-hex-info"])

    def los(*_):
        try:
            r = b.los(a.value.strip(), c.value.strip(), sess.tables, viewer=viewer.value)
        except VedetteError as exc:
            info.object = f"<span class='tbf-error'>{html.escape(str(exc))}</span>"
            fig.set_paths([])
            return
        fig.set_paths([(list(r.path), "#2e7d32" if r.clear else "#c62828", "LOS")])
        fig.set_highlights([Marked(r.blocked_by, "X", "#e53935")] if r.blocked_by else [])
        info.object = (f"<b class='tbf-los' data-clear='{str(r.clear).lower()}'>LOS {html.escape(a.value)} → "
                       f"{html.escape(c.value)}: {'clear' if r.clear else 'blocked at ' + str(r.blocked_by)}</b> "
                       f"(rule {r.rule}) {badge_html(b.data.source, b.data.notes, 'map')}")

    def tapped(h):
        if h is None:
            return
        d = b.describe(h)
        picked.object = (f"<b>{h}</b>: {d['terrain']}, level {d['level']}" + (f", {d['town']}" if d["town"] else "")
                         + (", walled road" if d["walled_road"] else "") + (", Strong Point" if d["strong_point"] else "")
                         + (f", road to {', '.join(d['road_to'])}" if d["road_to"] else ""))

    for w in (a, c, viewer):
        w.param.watch(los, "value")
    sess.param.watch(los, "tables")
    fig.on_tap(tapped)
    los()
    legend = " ".join(f"<span style='background:{col};padding:0 6px;border:1px solid #999'>{k}</span>"
                      for k, col in TBF_COLOURS.items())
    return pn.Column(pn.Row(a, c, viewer), info, picked, pn.pane.HTML(legend), pn.pane.Bokeh(fig.fig),
                     sizing_mode="stretch_width", name="Map and LOS")


# ---------------------------------------------------------------------------------------------------
def situation_work(tables, places_v, units_v, levels_v, what_v, side_v, target_v, path_v, nxt_v):
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


def situation_panel(sess: TbfSession):
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
    shown = _html("<i>working out every end state…</i>", [STATUS_CSS])
    out = pn.Column(shown, sizing_mode="stretch_width", css_classes=["tbf-situation-out"])

    bg = Background()

    def compute(_=None):
        # the inputs are read here, on the event loop; the enumeration runs off it (issue 12.3)
        tables = None if sess.tables is default_tables() else sess.tables     # None: the shipped set
        work = partial(situation_work, tables, places.value, units.value, levels.value, what.value, side.value,
                       target.value, path.value, nxt.value)
        bg.start(work, _situation_shown, _situation_failed, label="working out every end state…")

    def _situation_failed(exc):
        shown.object = (f"<div class='tbf-error alert alert-danger'><b>Cannot compute this:</b> "
                        f"{html.escape(str(exc))}</div>")

    def _situation_shown(r):
        _situation_html(*r)

    def _situation_html(sources, res):
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

    def follow(*_):                # the results follow every change once the tab has been opened (no button)
        if opened[0]:
            compute()

    def first_open():
        opened[0] = True
        compute()

    for wdg in (places, what, side, units, target, levels, path, nxt):
        wdg.param.watch(follow, "value")
    sess.param.watch(follow, "tables")
    row = columns(pn.Column(places, what, side_note, side, units, target, levels, path, nxt, bg.panel(),
                            sizing_mode="stretch_width"), out, basis=420, name="Situation")
    row.compute = first_open       # the page runs it the first time the tab is opened
    return row
