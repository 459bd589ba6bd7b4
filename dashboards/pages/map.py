"""Interactive map (Napoleonic 20): terrain, units, reachable hexes, zones of control, attack odds, retreats."""
from __future__ import annotations

import html
from functools import lru_cache, partial

import panel as pn
import param
from panel.custom import JSComponent

from dashboards.calculators.n20.battle_form import odds_work, scenario_choices
from dashboards.calculators.n20.map_view import GameMapView, unit_at
from dashboards.calculators.n20.results import RESULTS_CSS, odds_html
from dashboards.render.hexmap import Marked
from dashboards.common.layout import flow
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from engine.core.errors import VedetteError
from engine.n20.game import combat as C
from engine.n20.game import zoc as Z
from engine.n20.game.setup import new_game
from engine.n20.game.state import Battle, GameState
from engine.n20.retreat import MapRetreat

TITLE = "Map (Napoleonic 20)"
SUMMARY = ("The scenario map in its printed numbering: click a unit for its reachable hexes and costs, shade "
           "the zones of control, pick attackers and a defender for the odds, preview retreat paths and hazards.")


@lru_cache(maxsize=8)
def setup_state(scenario: str) -> GameState:
    """A scenario's first state. States are immutable values, so sessions can share it safely."""
    return new_game(scenario)


class MapModel(param.Parameterized):
    """What the map page shows for one session: a scenario's position and the user's selections."""

    scenario = param.Selector(default="fuentes", objects=["fuentes"])
    mode = param.Selector(default="inspect", objects=["inspect", "plan an attack"])
    attackers = param.List(default=[])
    defenders = param.List(default=[])
    reserves_attacker = param.Boolean(default=False)
    reserves_defender = param.Boolean(default=False)
    retreat_distance = param.Integer(default=2, bounds=(1, 6), doc="hexes the defender must retreat (rout die)")
    odds = param.String(default="")
    hex_info = param.String(default="")
    retreat_info = param.String(default="")

    def __init__(self, **params):
        ids = list(scenario_choices())
        wanted = params.pop("scenario", "fuentes")
        super().__init__(**params)
        self.param.scenario.objects = ids
        self.scenario = wanted if wanted in ids else ids[0]
        self.state: GameState = setup_state(self.scenario)
        # the check boxes and the "click a hex by its number" box are drawn by the board itself (issue 17.1)
        self.view = GameMapView(self.state, width=800, goto=True,
                                toggles=(("show_zoc", "shade zones of control (7.0)", "zoc-toggle"),
                                         ("show_reach", "show reachable hexes (6.0)", "reach-toggle")))
        self.view.on_hex(self.click)
        self.param.watch(self._scenario_changed, ["scenario"])
        self.param.watch(lambda *_: self.update_attack(), ["attackers", "defenders", "reserves_attacker",
                                                          "reserves_defender", "retreat_distance"])
        self.param.watch(self._mode_changed, ["mode"])

    def load_saved(self, game_id: str) -> None:
        """Show the latest position of a saved game (replayed through the engine)."""
        from dashboards.server.storage import GameStore
        from engine.core.record import GameRecord
        from engine.n20.game.record import ENGINE_VERSION, replay_record

        saved = GameStore().load(game_id)
        rec = GameRecord(game="n20", scenario=saved.scenario, edition=saved.edition, options=saved.options,
                         seed=saved.seed, events=saved.events, engine_version=ENGINE_VERSION)
        state = replay_record(rec)[-1]
        self._loading = True
        try:
            self.scenario = saved.scenario
        finally:
            self._loading = False
        self.state = state
        self.attackers, self.defenders = [], []
        self.view.selected = ""
        self.view.set_state(state)
        self.hex_info = f"Position after {len(saved.events)} actions of saved game {html.escape(saved.title)}."

    # -- events ------------------------------------------------------------------------------------------
    def _scenario_changed(self, *_):
        if getattr(self, "_loading", False):
            return
        self.state = setup_state(self.scenario)
        self.attackers, self.defenders = [], []
        self.view.selected = ""
        self.view.set_state(self.state)
        self.hex_info = ""

    def _mode_changed(self, *_):
        with param.parameterized.batch_call_watchers(self):
            self.attackers, self.defenders = [], []
        self.view.selected = ""
        self.update_attack()   # the hint (or nothing) for the new mode, also when no unit was picked

    def click(self, h: str | None) -> None:
        """A click on hex ``h``: describe it; select its unit (inspect) or add it to the attack plan."""
        st = self.state
        if h is None:
            return
        uid = unit_at(st, h)
        if self.mode == "inspect":
            self.view.selected = uid or ""
            self.hex_info = self._describe(h)
            return
        self.hex_info = self._describe(h)
        if uid is None:
            return
        side = st.scenario.units[uid].side
        atk_side = st.scenario.units[self.attackers[0]].side if self.attackers else None
        if atk_side is None and not self.defenders:
            self.attackers = [uid]
        elif side == (atk_side or ("allied" if st.scenario.units[self.defenders[0]].side == "french" else "french")):
            self.attackers = [a for a in self.attackers if a != uid] if uid in self.attackers else self.attackers + [uid]
        else:
            self.defenders = [d for d in self.defenders if d != uid] if uid in self.defenders else self.defenders + [uid]

    def _describe(self, h: str) -> str:
        st = self.state
        b = st.scenario.board
        parts = [f"<b>hex {h}</b>: {b.terrain(h)}"]
        if h in b.names:
            parts.append(html.escape(b.names[h]))
        if h in b.garrisons:
            g = b.garrisons[h]
            parts.append(f"garrison ({g.side}, strength {g.strength}) <small>9.4.4</small>")
        for side, hexes in b.loc.items():
            if h in hexes:
                parts.append(f"LOC of the {side} <small>9.8.6</small>")
        for oh, side, pts in b.objectives:
            if oh == h:
                parts.append(f"objective ({side}, {pts} point)")
        sides = [hs for k, feats in b.features.items() if h in k for hs in [f"{'/'.join(sorted(feats))} towards {next(iter(k - {h}))}"]]
        if sides:
            parts.append("hexsides: " + "; ".join(sorted(sides)))
        for uid in st.occupants.get(h, ()):
            d = st.scenario.units[uid]
            u = st.unit(uid)
            marks = [m for m in (("Routed!" if u.routed else ""), ("square" if u.square else "")) if m]
            parts.append(f"<span class='unit-line' data-unit='{uid}'>{html.escape(d.name)} ({uid}): {d.side} {d.type} "
                         f"{d.strength}-{d.movement}{' elite' if 'elite' in d.flags else ''}"
                         f"{' · ' + ', '.join(marks) if marks else ''} {badge_html(d.source, label='counter')}</span>")
        if self.mode == "inspect" and self.view.selected and self.view.reach:
            parts.append(f"<span class='reach-count'>{len(self.view.reach)} reachable hexes</span> "
                         f"(movement points shown on the map; 6.0-6.9, 7.0)")
        return "<br>".join(parts)

    # -- attack planning -----------------------------------------------------------------------------------
    #: the page's off-loop runner of the odds (a ``Background``), made when an attack is first planned
    runner = None

    def odds_runner(self):
        """The runner of this session's odds requests (worker process, busy line, *cancel*; issue 12.3)."""
        if self.runner is None:
            from dashboards.server.background import Background
            self.runner = Background()   # the page's time budget (VEDETTE_BUDGET_S)
        return self.runner

    def _drop_odds(self) -> None:
        """Forget the odds request in flight (the plan changed): its answer, if any, is not shown."""
        self._odds_token = getattr(self, "_odds_token", 0) + 1
        if self.runner is not None and self.runner.busy:
            self.runner.cancel()

    def update_attack(self) -> None:
        st = self.state
        self._drop_odds()
        self.view.also_selected = list(self.attackers) + list(self.defenders)
        self.view.extra_marks, self.view.paths = [], []
        self.retreat_info = ""
        if not (self.attackers and self.defenders):
            self.odds = ("<i>Click your attacking units, then the enemy unit(s) to attack.</i>"
                         if self.mode != "inspect" else "")
            self.view.redraw()
            return
        side = st.scenario.units[self.attackers[0]].side
        far = [(a, d) for a in self.attackers for d in self.defenders
               if not Z.combat_adjacent(st, st.unit(a).hex, st.unit(d).hex)]
        if far:
            a, d = far[0]
            self.odds = (f"<div class='odds-error'>[rule 9.2.2] {a} is not adjacent to {d}: every attacker must be "
                         f"next to every defender.</div>")
            self.view.redraw()
            return
        try:
            eb = C.engine_battle(st, Battle(tuple(self.attackers), tuple(self.defenders)), side,
                                 (self.reserves_attacker, self.reserves_defender), False)
        except VedetteError as exc:
            self.odds = f"<div class='odds-error'>{html.escape(str(exc))}</div>"
            self.view.redraw()
            return
        self._retreat_preview(eb)
        self.view.redraw()
        # the exact odds off the event loop (issue 12.3): in a worker process on a server, here in a test
        token = self._odds_token
        self.odds = "<div class='odds-results' data-state='busy'><i>Working out the exact odds…</i></div>"

        def done(answer, token=token):
            if token == self._odds_token:
                res, _, ms = answer
                self.odds = odds_html(res, elapsed_ms=ms, title="map")

        def failed(exc, token=token):
            if token == self._odds_token:
                self.odds = f"<div class='odds-error'>{html.escape(str(exc)[:300])}</div>"

        self.odds_runner().start(partial(odds_work, eb), done, failed, label="working out the odds of this attack…")

    def _retreat_preview(self, eb) -> None:
        """Each defender's retreat paths for the chosen distance, as the battle engine lists them."""
        st = self.state
        env = MapRetreat(eb.board, eb.rules.loc_breaks_retreat)
        positions = tuple((u.id, (u.side, u.hex, Z.exerts_zoc(st, st.unit(u.id)) if not u.id.startswith("garrison:") else True))
                          for u in eb.attackers + eb.defenders + eb.others)
        lines, marks, paths = [], [], []
        colours = ["#d81b60", "#8e24aa", "#3949ab"]
        for i, d in enumerate(eb.defenders):
            opts = env.options(d, d.hex, self.retreat_distance, positions)
            best = opts[0]
            alts = "".join(f"<li>{html.escape(str(o))}</li>" for o in opts[1:6])
            more = f"<li>… {len(opts) - 6} more</li>" if len(opts) > 6 else ""
            lines.append(f"<li><b>{html.escape(d.id)}</b> retreating {self.retreat_distance}: "
                         f"{len(opts)} path(s) the rules allow; the owner's default (least chance of breaking) "
                         f"<span class='retreat-path'>{html.escape(str(best))}</span> <small>9.8.2-9.8.7</small>"
                         + (f"<ul class='retreat-alternatives'>{alts}{more}</ul>" if alts else "") + "</li>")
            paths.append(([d.hex] + list(best.hexes), colours[i % 3], f"retreat of {d.id}"))
            for o in opts[1:3]:  # two alternatives, drawn in grey under the default path
                paths.insert(0, ([d.hex] + list(o.hexes), "#bdbdbd", f"alternative retreat of {d.id}"))
            for h, hz in zip(best.hexes, best.hazards):
                if hz:
                    marks.append(Marked(h, "⚠" * len(hz), "#ff8a65"))
        self.retreat_info = "<ul class='retreat-list'>" + "".join(lines) + "</ul>"
        self.view.extra_marks, self.view.paths = marks, paths


_CONTROLS_JS = r"""
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));

export function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "map-controls";
  const picks = document.createElement("div");
  picks.className = "mc-picks";
  const info = document.createElement("div");
  info.className = "hex-info";
  root.append(picks, info);
  el.appendChild(root);
  const parts = {};
  const choose = (key, value) => { model.chosen = Object.assign({}, model.chosen || {}, {[key]: value}); };
  const drawChoices = () => {
    picks.innerHTML = "";
    for (const k in parts) delete parts[k];
    for (const [key, label, kind, options, cls] of (model.choices || [])) {
      const now = (model.chosen || {})[key];
      if (kind === "buttons") {
        const group = document.createElement("div");
        group.className = "mc-buttons " + (cls || "");
        group.setAttribute("role", "radiogroup");
        if (label) group.setAttribute("aria-label", label);
        const buttons = options.map(([value, text]) => {
          const b = document.createElement("button");
          b.type = "button"; b.textContent = text; b.dataset.value = value;
          b.addEventListener("click", () => choose(key, value));
          group.appendChild(b);
          return b;
        });
        picks.appendChild(group);
        parts[key] = {show: (v) => buttons.forEach((b) => {
          b.classList.toggle("active", b.dataset.value === v); b.setAttribute("aria-checked", String(b.dataset.value === v));
        })};
      } else {
        const lab = document.createElement("label");
        lab.className = "mc-select " + (cls || "");
        const sel = document.createElement("select");
        sel.innerHTML = options.map(([value, text]) => `<option value="${esc(value)}">${esc(text)}</option>`).join("");
        sel.addEventListener("change", () => choose(key, sel.value));
        lab.append(document.createTextNode(label), sel);
        picks.appendChild(lab);
        parts[key] = {show: (v) => { sel.value = v === undefined ? "" : v; }};
      }
      parts[key].show(now);
    }
  };
  const drawChosen = () => { for (const [key, part] of Object.entries(parts)) part.show((model.chosen || {})[key]); };
  const drawInfo = () => { info.innerHTML = model.info || ""; };
  drawChoices();
  drawInfo();
  model.on("choices", drawChoices);
  model.on("chosen", drawChosen);
  model.on("info", drawInfo);
}
"""

_CONTROLS_CSS = """
.map-controls {display:flex; flex-direction:column; gap:8px; font: 13px sans-serif}
.mc-picks {display:flex; flex-wrap:wrap; align-items:flex-end; gap:8px 14px}
.mc-select {display:flex; flex-direction:column; gap:2px}
.mc-select select {font: 13px sans-serif; padding: 4px 6px; border: 1px solid #bbb; border-radius: 4px; background: #fff;
  min-width: 150px; max-width: 260px}
.mc-buttons {display:flex; flex-wrap:wrap}
.mc-buttons button {font: 13px sans-serif; padding: 5px 12px; border: 1px solid #bbb; background: #f6f6f6; cursor: pointer;
  white-space: nowrap; margin-right: -1px}
.mc-buttons button:first-child {border-radius: 4px 0 0 4px}
.mc-buttons button:last-child {border-radius: 0 4px 4px 0}
.mc-buttons button.active {background: #0072b5; border-color: #0072b5; color: #fff}
.hex-info {line-height: 1.5}
"""


class MapControls(JSComponent):
    """The map page's pickers (scenario, saved game, mode) and its hex description: one model, not a
    select, a button group and an HTML pane, each with style sheets of its own (issue 17.1)."""

    choices = param.List(default=[], doc="[[key, label, 'select' or 'buttons', [[value, label], ...], css class]]")
    chosen = param.Dict(default={}, doc="{key: value} of those pickers (both ways)")
    info = param.String(default="", doc="trusted HTML (made by our own code, text escaped): the hex description")

    _esm = _CONTROLS_JS
    _stylesheets = [_CONTROLS_CSS + BADGE_CSS]

    def add_choice(self, key: str, label: str, kind: str, options: list, css_class: str = "",
                   value: str = "", on_pick=None) -> None:
        """A picker: ``options`` ``[(value, label)]``; ``on_pick(value)`` for a value the browser chose (only
        one of ``options``: anything else is ignored)."""
        self.choices = [*self.choices, [key, label, kind, [[str(v), str(t)] for v, t in options], css_class]]
        self.chosen = {**self.chosen, key: value}
        allowed = {str(v) for v, _ in options}
        if on_pick is not None:
            def picked(e):
                v, was = (e.new or {}).get(key), (e.old or {}).get(key)
                if v == was:
                    return
                if v in allowed:
                    on_pick(v)
                else:   # not one of the options (a tampered message): the picker shows the value it had
                    self.chosen = {**self.chosen, key: was}
            self.param.watch(picked, "chosen")

    def link(self, obj: param.Parameterized, name: str, label: str, kind: str, css_class: str = "") -> None:
        """A picker for the Selector ``name`` of ``obj`` (its objects as options), kept in step both ways."""
        objects = list(obj.param[name].objects)

        def to_obj(v):
            if getattr(obj, name) != v:
                setattr(obj, name, v)
        self.add_choice(name, label, kind, [(o, o) for o in objects], css_class, str(getattr(obj, name)), to_obj)
        obj.param.watch(lambda e: setattr(self, "chosen", {**self.chosen, name: str(e.new)}), name)


#: shown as HTML (a Markdown pane would parse its text again in every session)
LEGEND_HTML = ("<p>"
    'Yellow hexes: where the selected unit can move, with the movement points it would spend. Blue and '
    'red shading: French and Allied zones of control. In <em>plan an attack</em> mode click your units, '
    "then the enemy to attack: the odds appear at once and each defender's default retreat path is drawn, "
    'with ⚠ on every hex that needs a hazard roll (9.8.3, 9.8.4).'
    "</p>")


def _badges_html(state: GameState) -> str:
    prov = state.scenario.provenance()
    return " ".join(badge_html(prov[k], label=k.replace("_", " ")) for k in ("map", "units", "scenario")
                    if isinstance(prov.get(k), str))


def page():
    """One session's map page. What is the same for every session (the map's drawing data, the legend) is
    made once per process; the map with its legend, check boxes and goto box is one model (an SVG board
    drawn in the browser, :mod:`dashboards.render.hexboard`); the scenario and saved-game pickers, the
    mode buttons and the hex description are one more (:class:`MapControls`); the attack planner's controls, busy line and result panes are built the first
    time the visitor switches to *plan an attack*, and the saved-game picker only when this browser holds
    a saved game (each Bokeh model a session does not need is time every page load saves, issue 17)."""
    m = MapModel()
    view = m.view
    ctl = MapControls(info="<i>Click a hex or a unit.</i>", width=440, css_classes=["map-controls-view"])
    m.param.watch(lambda e: setattr(ctl, "info", e.new), "hex_info")
    from dashboards.server.access import browser_keys
    from dashboards.server.storage import GameStore, StorageError

    try:   # only the games this browser holds a key of, and public ones
        visible = [g for g, _, _ in GameStore().visible(browser_keys(), "n20")][:50]
    except StorageError:
        visible = []
    ctl.link(m, "scenario", "Scenario", "select", "scenario-pick")
    if visible:
        def load_saved(game_id):
            if game_id:
                try:
                    m.load_saved(game_id)
                except (VedetteError, KeyError) as exc:  # a record that no longer replays: say so, keep the map
                    m.hex_info = f"<span class='odds-error'>Cannot load that game: {html.escape(str(exc)[:300])}</span>"

        ctl.add_choice("saved", "or a saved game's position", "select",
                       [("", "")] + [(g.id, f"{g.title} ({g.n_events} actions)") for g in visible], "saved-pick",
                       on_pick=load_saved)
    ctl.link(m, "mode", "", "buttons", "map-mode")
    built: list = []

    def build_attack(*_):
        """The attack planner's parts, made once, when the visitor first plans an attack."""
        if built or m.mode == "inspect":
            return
        built.append(True)
        odds_pane = pn.pane.HTML(m.odds, stylesheets=[RESULTS_CSS], sizing_mode="stretch_width",
                                 css_classes=["map-odds"])
        retreat_pane = pn.pane.HTML(m.retreat_info, sizing_mode="stretch_width", css_classes=["retreat-info"])
        m.param.watch(lambda e: setattr(odds_pane, "object", e.new), "odds")
        m.param.watch(lambda e: setattr(retreat_pane, "object", e.new), "retreat_info")
        controls.extend([
            flow(pn.widgets.Checkbox.from_param(m.param.reserves_attacker, name="attacker reserves"),
                 pn.widgets.Checkbox.from_param(m.param.reserves_defender, name="defender reserves")),
            pn.widgets.IntSlider.from_param(m.param.retreat_distance, name="retreat distance to preview", width=220),
            m.odds_runner().panel(), retreat_pane, odds_pane])

    m.param.watch(build_attack, "mode")
    controls = pn.Column(ctl, width=440)
    # the legend and the provenance badges: shown by the board above the map (its check boxes and the
    # "click a hex by its number" box too: one model, not four)
    view.figure.model.note = LEGEND_HTML + f"<p class='map-badges'>{_badges_html(m.state)}</p>"
    # the map and its controls side by side where there is room, the controls under the map where not: a
    # column laid out as a wrapping row (a FlexBox does the same as a templated model costing more, issue 17)
    return pn.Column(view.panel(), controls, sizing_mode="stretch_width", css_classes=["map-layout"],
                     styles={"flex-direction": "row", "flex-wrap": "wrap", "align-items": "flex-start"})
