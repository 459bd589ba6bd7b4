"""Lines of Battle page parts: the session's view model and the combat, fire and command-point views.

No rule is computed here: combats, fire and command points come from ``engine.lob`` procedures run by
the engine's drivers (exact enumeration).
"""
from __future__ import annotations

import html
from fractions import Fraction
from functools import partial

import panel as pn
import param

from dashboards.server.background import Background
from dashboards.render.dist_bars import STYLESHEET as BARS_CSS, bars_html, fmt_pct
from dashboards.render.lob_map import AreaMapFigure
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.common.uploads import FileLoader
from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_plot import TreePlot, layout_tree
from dashboards.common.lazy import lazy_card
from dashboards.common.layout import columns, flow
from dashboards.render.tree_view import STYLESHEET as TREE_CSS
from dashboards.common.unit_rows import RowsTable
from engine.core.errors import VedetteError
from engine.lob.analysis import analyse, combat_tree
from engine.lob.board import default_board
from engine.lob.command import cp_schedule
from engine.lob.fire import FireSetup, fire_odds, prefer_hit, prefer_retreat
from engine.lob.attack import combat_context
from engine.lob.setup import new_game
from engine.lob.state import Setup
from engine.lob.policies import CombatPolicy
from engine.lob.tables import Tables, default_tables, load_tables

__all__ = ["LobSession", "combat_panel", "custom_panel", "fire_panel", "schedule_panel", "POLICY_CHOICES", "EXAMPLE_COMBAT"]

POLICY_CHOICES = ["stay", "until:0", "until:1", "until:2", "outnumbered", "rbc", "feint"]
POLICY_HELP = ("**Policies** decide, round by round, what each side does: *stay* fights on; *until:K* pulls "
               "the lead out when its strength is K or less (the whole side if no fresh unit is left); "
               "*outnumbered* gives up when the enemy's total strength is greater; *rbc* (defender) retreats "
               "before combat; *feint* (attacker) feints whenever allowed.")
#: where the Combat tab starts. The Albuera set-up allows only two attacks, both hopeless (0 %), so the page
#: opens on an example instead: Girard's two strength-3 brigades (Brayer, Veilande) moved up to area 16,
#: assaulting the KGL brigade in Albuera town (an example position of ours, not a scenario's).
EXAMPLE_START = "example: two French brigades in 16 assault Albuera"
SETUP_START = "the Albuera set-up as printed"
_EXAMPLE_MOVES = {"F-Brayer": "16", "F-Veilande": "16"}
CSS = """
.lob-big {font-size:28px;font-weight:700;color:#2f4f6f}
.lob-kv td {padding:2px 8px;font-size:13px}
.lob-kv th {text-align:left;font-size:12px;color:#555;padding:2px 8px}
"""


class LobSession(param.Parameterized):
    """One browser session's state: tables in use, the combat being set up, the policies."""

    origin = param.String(default="16")
    target = param.String(default="Albuera")
    start: param.Selector[str] = param.Selector(default=EXAMPLE_START, objects=[EXAMPLE_START, SETUP_START],
                           doc="the position the combat is set up in")
    attackers = param.List(default=[])
    attacker_policy: param.Selector[str] = param.Selector(default="stay", objects=POLICY_CHOICES)
    defender_policy: param.Selector[str] = param.Selector(default="stay", objects=POLICY_CHOICES)
    rain = param.Boolean(default=False)
    tables = param.ClassSelector(class_=Tables)
    uploaded = param.Boolean(default=False)
    click_sets: param.Selector[str] = param.Selector(default="attacker's area",
                                                     objects=["attacker's area", "defender's area"])
    version = param.Integer(default=0)

    def __init__(self, **params):
        params.setdefault("tables", default_tables())
        super().__init__(**params)
        self.board = default_board()
        self.loader = FileLoader(load_tables, self._loaded, self._reset, label="Load your own Lines of Battle tables file")
        self.game = self._new_game(self.tables)
        self.attackers = self.default_attackers()
        self.param.watch(self._start_changed, "start")

    def _new_game(self, tables):
        from dataclasses import replace
        g = new_game(Setup(board=self.board, tables=tables))
        if self.start == EXAMPLE_START:
            g = g.with_units([replace(u, area=_EXAMPLE_MOVES[u.uid]) for u in g.units if u.uid in _EXAMPLE_MOVES])
        return g

    def _start_changed(self, event):
        self.game = self._new_game(self.tables)
        origin = "16" if event.new == EXAMPLE_START else "17"
        self.param.update(origin=origin, target="Albuera", attackers=[], version=self.version + 1)
        self.attackers = self.default_attackers()

    # -- tables ---------------------------------------------------------------------------------
    def _loaded(self, tables, filename):
        self.game = self._new_game(tables)
        self.param.update(tables=tables, uploaded=True, version=self.version + 1)

    def _reset(self):
        self.game = self._new_game(default_tables())
        self.param.update(tables=default_tables(), uploaded=False, version=self.version + 1)

    def badge(self, block: str) -> str:
        b = getattr(self.tables, block)
        return badge_html(b.source, b.notes, label=block, uploaded=self.uploaded)

    def map_badge(self) -> str:
        return badge_html(self.board.source, self.board.spec.notes, label="map")

    # -- the combat ----------------------------------------------------------------------------
    def units_by_area(self) -> dict:
        out: dict = {}
        for u in self.game.live():
            out.setdefault(u.area, []).append(u)
        return out

    def origin_units(self):
        return [u for u in self.game.in_area(self.origin)] if self.origin in self.board else []

    def default_attackers(self) -> list[str]:
        return [u.uid for u in self.origin_units() if u.is_combat and u.strength >= 1
                and u.approach in (None, self.target)]

    def tap(self, area: str | None) -> None:
        if area is None:
            return
        if self.click_sets == "attacker's area":
            self.param.update(origin=area, attackers=[], click_sets="defender's area")
            self.attackers = self.default_attackers()
        else:
            self.param.update(target=area, click_sets="attacker's area")
            self.attackers = self.default_attackers()

    def build(self):
        """(ctx, attackers, defenders) for the current choice; RuleViolation when it is not a legal combat."""
        g = self.game
        self.board.check_area(self.origin, "attacker's area")
        self.board.check_area(self.target, "defender's area")
        side = g.holder(self.origin)
        if side is None:
            raise VedetteError(f"area {self.origin} holds no unit: pick an area with units to attack from")
        if g.holder(self.target) in (None, side):
            raise VedetteError(f"area {self.target} holds no enemy of the {side}: pick an enemy-held area")
        if not self.attackers:
            raise VedetteError("choose at least one attacking unit")
        here = {u.uid: u for u in g.in_area(self.origin)}
        missing = [a for a in self.attackers if a not in here]
        if missing:
            raise VedetteError(f"{', '.join(missing)} not in area {self.origin}")
        ctx = combat_context(g, self.target, self.origin, side)
        if self.rain:
            from dataclasses import replace
            ctx = replace(ctx, rain=True)
        return ctx, tuple(here[a] for a in self.attackers), g.in_area(self.target)

    def policy(self) -> CombatPolicy:
        return CombatPolicy(self.attacker_policy, self.defender_policy)

    def analysis(self):
        ctx, att, dfn = self.build()
        return analyse(ctx, att, dfn, self.policy())


def _html(s: str, css_classes=()) -> pn.pane.HTML:
    return pn.pane.HTML(s, stylesheets=[BADGE_CSS, BARS_CSS, TREE_CSS, CSS], sizing_mode="stretch_width",
                        css_classes=list(css_classes))


def _error(exc: Exception) -> pn.pane.Alert:
    return pn.pane.Alert(f"**Cannot compute this combat:** {html.escape(str(exc))}", alert_type="danger",
                         css_classes=["lob-error"], sizing_mode="stretch_width")


def _frac(p) -> str:
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}"


def result_html(an, sess: LobSession) -> str:
    p = an.attacker_takes_area
    head = (f"<div class='lob-result' data-taken='{_frac(p)}'>Chance the attacker takes area "
            f"<b>{html.escape(an.ctx.target)}</b>: <span class='lob-big'>{fmt_pct(p)}</span> "
            f"<span class='frac'>({_frac(p)})</span> {sess.badge('combat')} {sess.badge('retreat')} "
            f"{sess.map_badge()}</div>")
    stage_names = {"rounds": "fought out in combat rounds", "retreat-before-combat": "defender retreated before combat",
                   "feint": "attacker feinted", "repulsed": "defensive artillery broke the attack",
                   "artillery": "only artillery defended: it retreated"}
    ends = [(f"{'attacker' if w == 'attacker' else 'defender'} holds · {stage_names.get(s, s)}", q)
            for (w, s), q in sorted(an.dist.map(lambda r: (r.winner, r.stage)).items(), key=lambda kv: -kv[1])]
    bars1 = bars_html(ends, title="How the combat ends", css_class="lob-ends")
    rows = []
    for u in an.attackers + an.defenders:
        role = "attacker" if u in an.attackers else "defender"
        hd = an.hits_dist(u.uid)
        dist_txt = ", ".join(f"{h}: {fmt_pct(q)}" for h, q in sorted(hd.items()))
        rows.append(f"<tr data-unit='{html.escape(u.uid, quote=True)}' data-expected-hits='{_frac(an.expected_hits(u.uid))}'>"
                    f"<td>{html.escape(role)}</td><td>{html.escape(u.label())}</td>"
                    f"<td>{float(an.expected_hits(u.uid)):.2f}</td><td>{fmt_pct(an.eliminated(u.uid))}</td>"
                    f"<td>{html.escape(dist_txt)}</td></tr>")
    table = ("<table class='lob-kv lob-hits'><tr><th>side</th><th>unit</th><th>expected hits</th>"
             "<th>eliminated</th><th>hits distribution</th></tr>" + "".join(rows) + "</table>")
    morale = "".join(f"<tr data-side='{s}' data-expected-morale='{_frac(an.expected_morale(s))}'><td>{s}</td>"
                     f"<td>{float(an.expected_morale(s)):+.3f}</td></tr>"
                     for s in (an.ctx.attacker_side, an.ctx.defender_side))
    morale = ("<table class='lob-kv lob-morale'><tr><th>side</th><th>expected morale change (5.3)</th></tr>"
              + morale + "</table>")
    charge = (f"<p class='lob-charge' data-charge='{_frac(an.charge_chance)}'>Chance the winner has fresh cavalry "
              f"for a follow-up charge (5.3.1): <b>{fmt_pct(an.charge_chance)}</b></p>")
    return head + bars1 + table + morale + charge


def combat_panel(sess: LobSession):
    amap = AreaMapFigure(sess.board)
    amap.update(sess.units_by_area(), sess.origin, sess.target)
    amap.on_tap(sess.tap)
    areas = sess.board.areas
    origin_w = pn.widgets.Select(name="Attacker's area", options=areas, value=sess.origin, css_classes=["lob-origin"])
    target_w = pn.widgets.Select(name="Defender's area", options=areas, value=sess.target, css_classes=["lob-target"])
    att_w = pn.widgets.MultiChoice(name="Attacking units", options=[u.uid for u in sess.origin_units()],
                                   value=list(sess.attackers), css_classes=["lob-attackers"])
    apol = pn.widgets.Select.from_param(sess.param.attacker_policy, name="Attacker policy", css_classes=["lob-apol"])
    dpol = pn.widgets.Select.from_param(sess.param.defender_policy, name="Defender policy", css_classes=["lob-dpol"])
    rain = pn.widgets.Checkbox.from_param(sess.param.rain, name="rain squall (scenario option 5)")
    clicks = pn.widgets.RadioButtonGroup.from_param(sess.param.click_sets, name="A click on the map sets")
    start = pn.widgets.Select.from_param(sess.param.start, name="Position", sizing_mode="stretch_width",
                                         css_classes=["lob-start"])

    def sync_from_session(*_):
        origin_w.value = sess.origin
        target_w.value = sess.target
        att_w.options = [u.uid for u in sess.origin_units()]
        att_w.value = list(sess.attackers)
        amap.update(sess.units_by_area(), sess.origin, sess.target)

    sess.param.watch(sync_from_session, ["origin", "target", "attackers", "version"])

    def origin_changed(event):
        if event.new != sess.origin:
            sess.origin = event.new
            sess.attackers = sess.default_attackers()

    def target_changed(event):
        if event.new != sess.target:
            sess.target = event.new
            sess.attackers = sess.default_attackers()

    origin_w.param.watch(origin_changed, "value")
    target_w.param.watch(target_changed, "value")
    att_w.param.watch(lambda e: setattr(sess, "attackers", list(e.new)) if list(e.new) != sess.attackers else None,
                      "value")

    res_out = pn.Column(sizing_mode="stretch_width")
    res_bg = Background()

    def show_results(an):
        res_out[:] = [_html(result_html(an, sess), ["lob-results"])]

    def results_error(exc):
        res_out[:] = [_error(exc)]

    def results(*_):     # enumerated off the event loop (a child process), the page stays responsive
        try:
            ctx, att, dfn = sess.build()
        except VedetteError as exc:
            results_error(exc)
            return
        res_bg.start(partial(analyse, ctx, att, dfn, sess.policy()), show_results, results_error,
                     label="enumerating every combat round…", process=True)

    sess.param.watch(results, ["origin", "target", "attackers", "attacker_policy", "defender_policy", "rain",
                               "version"])
    results()

    tree_area = pn.Column(sizing_mode="stretch_width", css_classes=["lob-tree"])
    tree_card = pn.Card(tree_area, title="The combat as a probability tree (picture and text)", collapsed=True,
                        sizing_mode="stretch_width", css_classes=["lob-tree-card"])

    tree_bg = Background()

    def show_tree(*_):
        if tree_card.collapsed:
            tree_area.clear()
            return
        try:
            ctx, att, dfn = sess.build()
        except VedetteError as exc:
            tree_area[:] = [_error(exc)]
            return

        def shown(res):
            total, lay = res
            tree_area[:] = [_html(f"<p>Ends of the tree sum to <b class='lob-tree-total'>{_frac(total)}</b>. The "
                                  f"rounds follow one another (5.2.1 to 5.2.5) until one side gives way; only the "
                                  f"first {len(lay)} steps are drawn.</p>"), TreePlot(lay)]

        # enumerated and laid out in a worker process (issue 12.3): only the drawing is left to the page
        tree_bg.start(partial(combat_tree_work, ctx, att, dfn, sess.policy()), shown,
                      lambda exc: tree_area.__setitem__(slice(None), [_error(exc)]),
                      label="building the tree…", process=True)

    tree_card.param.watch(show_tree, "collapsed")
    sess.param.watch(show_tree, ["origin", "target", "attackers", "attacker_policy", "defender_policy", "rain",
                                 "version"])
    form = pn.Column(pn.pane.Markdown("**Set up a combat**: click the attacker's area on the map, then the "
                                      "defender's (or use the lists). The units come from the Albuera set-up."),
                     start, clicks, flow(origin_w, target_w), att_w, flow(apol, dpol), rain,
                     pn.pane.Markdown(POLICY_HELP), sizing_mode="stretch_width")
    tree_card.objects = [tree_bg.panel(), tree_area]
    return pn.Column(columns(pn.pane.Bokeh(amap.fig), form, basis=420), res_bg.panel(), res_out,
                     tree_card, name="Combat odds", sizing_mode="stretch_width")


def fire_panel(sess: LobSession):
    kind = pn.widgets.Select(name="Target", options={"infantry": "inf", "cavalry": "cav", "artillery": "art"},
                             value="inf", css_classes=["lob-fire-kind"])
    strength = pn.widgets.IntSlider(name="Target strength", start=0, end=5, value=3)
    arty = pn.widgets.Select(name="Artillery type (7.2)", options=["foot", "horse", "heavy", "rockets"], value="foot")
    square = pn.widgets.Checkbox(name="target in square (+1)")
    approach = pn.widgets.Checkbox(name="infantry on the approach (-1)", css_classes=["lob-fire-approach"])
    deployed = pn.widgets.Checkbox(name="target artillery deployed (-1)")
    town = pn.widgets.Checkbox(name="target in the town (-2)")
    far = pn.widgets.Checkbox(name="two areas away, from a hill")
    prefer = pn.widgets.RadioButtonGroup(name="target's choice", options=["stand", "retreat"], value="stand")

    # (Panel's annotations of depends name fewer arguments than it takes)
    @pn.depends(kind, strength, arty, square, approach, deployed, town, far, prefer,  # type: ignore[call-overload]
                sess.param.version)
    def view(k, st, ar, sq, ap, dep, tw, fr, pr, _v):
        left = 1 if k == "art" else st + 1
        s = FireSetup(arty=ar, target_kind=k, target_square=sq, target_on_approach=ap and k == "inf",
                      target_deployed_artillery=dep and k == "art", target_in_town=tw, long_range=fr,
                      target_hits_left=left)
        d = fire_odds(s, sess.tables, prefer_retreat if pr == "retreat" else prefer_hit)
        rows = [(f"{o.hits} hit(s)" + (" and retreats" if o.retreated else ""), p)
                for o, p in sorted(d.items())]
        eff = d.prob(lambda o: o.hits or o.retreated)
        return _html(f"<p class='lob-fire-effect' data-effect='{_frac(eff)}'>Chance of an effect: "
                     f"<b>{fmt_pct(eff)}</b> ({_frac(eff)}) {sess.badge('fire')} {sess.badge('optional')}</p>"
                     + bars_html(rows, title="Result of one shot (4.2.1)", css_class="lob-fire-bars"))

    return pn.Column(flow(kind, strength, arty), flow(square, approach, deployed, town, far), prefer, view,
                     name="Artillery fire", sizing_mode="stretch_width")


def schedule_panel(sess: LobSession):
    @pn.depends(sess.param.version)
    def view(_v):
        s = cp_schedule(25, sess.tables)
        rows = []
        for i in range(25):
            f, a = s["French"]["turns"][i], s["Allied"]["turns"][i]

            def cell(r):
                d = r["distribution"]
                return ", ".join(f"{k}: {_frac(p)}" for k, p in d.items())
            rows.append(f"<tr><td>{i + 1}</td><td>{cell(f)}</td><td>{float(f['expected']):.2f}</td>"
                        f"<td>{cell(a)}</td><td>{float(a['expected']):.2f}</td></tr>")
        tf, ta = s["French"]["expected_total"], s["Allied"]["expected_total"]
        return _html(f"<p>{sess.badge('command')} Expected command points over 25 turns: French "
                     f"<b class='lob-cp-french'>{float(tf):.1f}</b>, Allies <b class='lob-cp-allied'>{float(ta):.1f}</b>."
                     f"</p><table class='lob-kv'><tr><th>turn</th><th>French CP</th><th>mean</th><th>Allied CP</th>"
                     f"<th>mean</th></tr>{''.join(rows)}</table>")

    return pn.Column(view, name="Command points", sizing_mode="stretch_width")


EXAMPLE_COMBAT = """# Any combat on the Albuera map (format: docs/lob.md)
target: "15"          # the defender's area
origin: "23"          # where the attackers come from
attacker_side: French
attackers:
  - {uid: French-line, kind: inf, rating: 3}
defenders:
  - {uid: Allied-line, kind: inf, rating: 3, approach: "23"}   # on the approach facing 23
"""


#: the custom combat's YAML, at most (this page's limit)
MAX_COMBAT_TEXT = 20_000


def combat_tree_work(ctx, att, dfn, policy):
    """(total, laid-out picture) of a combat's probability tree (module-level: it runs in a worker process)."""
    from dashboards.render.tree_plot import prepare
    tree = combat_tree(ctx, att, dfn, policy)
    return tree.total(), prepare(layout_tree(tree, rule_note=rule_note_for("lob")))


def custom_work(src: str, tables, apol: str, dpol: str):
    """Off the event loop (a child process): the custom combat's analysis and tree (on the shipped map, which
    every session uses; it is loaded in the child rather than sent to it)."""
    from engine.lob.analysis import parse_combat

    ctx, att, dfn = parse_combat(src, default_board(), tables, file="your combat")
    pol = CombatPolicy(apol, dpol)
    from dashboards.render.tree_plot import prepare
    return analyse(ctx, att, dfn, pol), prepare(layout_tree(combat_tree(ctx, att, dfn, pol),
                                                            rule_note=rule_note_for("lob")))


#: the columns of the units tables of the Any combat tab (UnitSpec's fields, docs/lob.md)
UNIT_FIELDS = {"uid": str, "kind": ("inf", "cav", "art"), "rating": int, "hits": int,
               "cav": ("", "heavy", "light", "lancer"), "approach": str, "square": bool, "deployed": bool,
               "arty": ("foot", "horse", "heavy", "rockets")}
UNIT_TITLES = {"uid": "unit", "rating": "rating (1.2)", "cav": "cavalry type", "approach": "on the approach to",
               "square": "square (4.2.2)", "deployed": "deployed", "arty": "artillery (7.2)"}
_BLANK = {"kind": "inf", "rating": 2, "hits": 0, "cav": "", "arty": "foot"}


def unit_row(u) -> dict:
    """A row of the units table from a unit (a :class:`UnitSpec` of a typed combat, or a set-up unit)."""
    return {"uid": u.uid, "kind": u.kind, "rating": u.rating, "hits": u.hits, "cav": u.cav or "",
            "approach": u.approach or "", "square": bool(u.square), "deployed": bool(u.deployed), "arty": u.arty}


def unit_spec(row: dict) -> dict:
    """A units-table row as the combat description's unit (only what differs from UnitSpec's defaults)."""
    d = {"uid": row["uid"] or "?", "kind": row["kind"], "rating": row["rating"]}
    if row.get("hits") not in (0, "", None):
        d["hits"] = row["hits"]
    for k in ("cav", "approach"):
        if row.get(k):
            d[k] = row[k]
    for k in ("square", "deployed"):
        if row.get(k):
            d[k] = True
    if row.get("arty") not in (None, "", "foot"):
        d["arty"] = row["arty"]
    return d


def combat_yaml(spec: dict) -> str:
    """The combat description (docs/lob.md) of the form, one unit a line."""
    import yaml

    def dump(v):
        return yaml.safe_dump(v, default_flow_style=True, sort_keys=False, width=400).split("\n...")[0].strip()
    lines = ["# Any combat on the Albuera map (format: docs/lob.md)"]
    for k in ("target", "origin", "attacker_side"):
        lines.append(f"{k}: {dump(spec[k])}")
    for k in ("attackers", "defenders"):
        lines.append(f"{k}:")
        lines += [f"  - {dump(u)}" for u in spec[k]]
    for k in ("enemy_adjacent", "friendly_adjacent"):
        if spec.get(k):
            lines.append(f"{k}: {dump(list(spec[k]))}")
    for k in ("charge", "rain"):
        if spec.get(k):
            lines.append(f"{k}: true")
    return "\n".join(lines) + "\n"


def custom_panel(sess: LobSession):
    """Any combat, set up in a form: the two areas, each side's units as a table (or picked from the Albuera
    set-up), the neighbours held by each side; the combat's YAML stays in an advanced box, in step with it.
    The results follow every change (no button)."""
    from engine.core.data import parse_yaml
    from engine.lob.analysis import CombatSpec

    board = sess.board
    areas = list(board.areas)
    first = parse_yaml(EXAMPLE_COMBAT, CombatSpec, "example")
    text = pn.widgets.TextAreaInput(name="Combat (YAML, docs/lob.md)", value="", height=240,
                                    sizing_mode="stretch_width", css_classes=["lob-custom-text"])
    target = pn.widgets.Select(name="Defender's area", options=areas, value=first.target, width=170,
                               css_classes=["lob-custom-target"])
    origin = pn.widgets.Select(name="Attackers come from", options=sorted(board.neighbours(first.target)),
                               value=first.origin, width=170, css_classes=["lob-custom-origin"])
    side = pn.widgets.Select(name="Attacking side", options=["French", "Allied"], value=first.attacker_side,
                             width=140, css_classes=["lob-custom-side"])
    enemy_adj = pn.widgets.MultiChoice(name="Other areas next to the target held by the attackers (5.1.2)",
                                       options=[], value=[], sizing_mode="stretch_width",
                                       css_classes=["lob-custom-enemy-adj"])
    friendly_adj = pn.widgets.MultiChoice(name="Areas next to the target held by the defenders (retreat routes)",
                                          options=[], value=[], sizing_mode="stretch_width",
                                          css_classes=["lob-custom-friendly-adj"])
    charge = pn.widgets.Checkbox(name="cavalry charge (5.3.1)", value=first.charge)
    rain = pn.widgets.Checkbox(name="rain squall (scenario option 5)", value=first.rain)
    apol = pn.widgets.Select(name="Attacker policy", options=POLICY_CHOICES, value="stay", width=170,
                             css_classes=["lob-custom-apol"])
    dpol = pn.widgets.Select(name="Defender policy", options=POLICY_CHOICES, value="stay", width=170)
    setup_units = {f"{u.label()} · {u.side}, area {u.area}": u.uid for u in sess.game.live()}
    pick = pn.widgets.Select(name="A unit of the Albuera set-up", options=setup_units, width=420,
                             css_classes=["lob-custom-pick"])
    add_att = pn.widgets.Button(name="add to the attackers", width=190, css_classes=["lob-custom-add-att"])
    add_dfn = pn.widgets.Button(name="add to the defenders", width=190, css_classes=["lob-custom-add-dfn"])
    out = pn.Column(sizing_mode="stretch_width", css_classes=["lob-custom-out"])
    bg = Background()
    guard = [False]       # set while the page itself writes into the widgets

    def neighbours():
        near = sorted(board.neighbours(target.value)) if target.value in board else []
        return near, [a for a in near if a != origin.value]

    def refresh_areas():
        near, others = neighbours()
        origin.options = near
        if origin.value not in near and near:
            origin.value = near[0]
        near, others = neighbours()
        enemy_adj.options = others
        friendly_adj.options = others
        enemy_adj.value = [a for a in enemy_adj.value if a in others]
        friendly_adj.value = [a for a in friendly_adj.value if a in others]

    def spec() -> dict:
        return {"target": target.value, "origin": origin.value, "attacker_side": side.value,
                "attackers": [unit_spec(r) for r in att.rows()], "defenders": [unit_spec(r) for r in dfn.rows()],
                "enemy_adjacent": list(enemy_adj.value), "friendly_adjacent": list(friendly_adj.value),
                "charge": charge.value, "rain": rain.value}

    def shown(res):
        an, lay = res         # the tree laid out in the worker (issue 12.3)
        out[:] = [_html(result_html(an, sess), ["lob-results"]),
                  lazy_card("The combat as a probability tree (picture and text)", lambda: TreePlot(lay))]

    def run(*_):
        if len(text.value) > MAX_COMBAT_TEXT:
            out[:] = [_error(VedetteError(f"your combat: at most {MAX_COMBAT_TEXT} characters on this page "
                                          f"(got {len(text.value)})"))]
            return
        bg.start(partial(custom_work, text.value, sess.tables, apol.value, dpol.value), shown,
                 lambda exc: out.__setitem__(slice(None), [_error(exc)]), label="enumerating your combat…",
                 process=True)

    def form_changed(*_):
        if guard[0]:
            return
        guard[0] = True
        try:
            refresh_areas()
            text.value = combat_yaml(spec())
        finally:
            guard[0] = False
        run()

    def text_changed(event):       # the advanced box: the form follows the typed combat when it reads
        if guard[0]:
            return
        try:
            typed = parse_yaml(event.new, CombatSpec, "your combat") if len(event.new) <= MAX_COMBAT_TEXT else None
        except VedetteError:
            typed = None          # the run below names what is wrong
        if typed is not None:
            guard[0] = True
            try:
                fill(typed)
            finally:
                guard[0] = False
        run()

    def fill(c):
        if c.target in board:
            target.value = c.target
        refresh_areas()
        if c.origin in origin.options:
            origin.value = c.origin
        side.value = c.attacker_side
        att.set_rows([unit_row(u) for u in c.attackers])
        dfn.set_rows([unit_row(u) for u in c.defenders])
        _, others = neighbours()
        enemy_adj.options = others
        friendly_adj.options = others
        enemy_adj.value = [a for a in c.enemy_adjacent if a in others]
        friendly_adj.value = [a for a in c.friendly_adjacent if a in others]
        charge.value, rain.value = c.charge, c.rain

    att = RowsTable(UNIT_FIELDS, [unit_row(u) for u in first.attackers], form_changed, what="attacker",
                    css="lob-custom-att", blank={**_BLANK, "uid": "attacker"}, titles=UNIT_TITLES)
    dfn = RowsTable(UNIT_FIELDS, [unit_row(u) for u in first.defenders], form_changed, what="defender",
                    css="lob-custom-def", blank={**_BLANK, "uid": "defender"}, titles=UNIT_TITLES)

    def add_from_setup(table):
        u = next((x for x in sess.game.live() if x.uid == pick.value), None)
        if u is not None:
            table.append({**unit_row(u), "approach": "", "square": False})

    add_att.on_click(lambda *_: add_from_setup(att))
    add_dfn.on_click(lambda *_: add_from_setup(dfn))
    for w in (target, origin, side, enemy_adj, friendly_adj, charge, rain):
        w.param.watch(form_changed, "value")
    for w in (apol, dpol):
        w.param.watch(run, "value")
    text.param.watch(text_changed, "value")
    sess.param.watch(run, ["version"])
    guard[0] = True
    refresh_areas()
    text.value = EXAMPLE_COMBAT
    guard[0] = False
    run()
    # the YAML box is put in its card the first time the card opens (rarely used: issue 17.1); the widget
    # itself is made above, so the form and the box stay in step while it is closed
    advanced = pn.Card(title="Advanced: the same combat as YAML (docs/lob.md)", collapsed=True,
                       sizing_mode="stretch_width", css_classes=["lob-custom-advanced"])

    def advanced_opened(event):
        if not event.new and not advanced.objects:
            advanced.objects = [text]

    advanced.param.watch(advanced_opened, "collapsed")
    form = pn.Column(
        pn.pane.Markdown("**Any combat** on the Albuera map: pick the two areas, then each side's units (type in "
                         "the tables, or add units of the Albuera set-up). The odds follow every change.",
                         sizing_mode="stretch_width"),
        flow(target, origin, side, apol, dpol),
        pn.pane.HTML("<b>Attackers</b>", margin=(4, 5, 0, 5)), att.panel(),
        pn.pane.HTML("<b>Defenders</b>", margin=(4, 5, 0, 5)), dfn.panel(),
        flow(pick, add_att, add_dfn),
        enemy_adj, friendly_adj, flow(charge, rain), advanced, sizing_mode="stretch_width")
    col = pn.Column(form, bg.panel(), out, name="Any combat", sizing_mode="stretch_width")
    # handles for the view-model tests (a Column takes any attribute: the type checker is told so)
    col._tables = (att, dfn)  # type: ignore[attr-defined]
    col._text = text  # type: ignore[attr-defined]
    return col
