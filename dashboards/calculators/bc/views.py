"""Battle Commander page pieces: a session view model and the combat, skill check, cup and deck panels.

No rules here: every number comes from :mod:`engine.bc.calc`, which runs the engine's procedures.
"""
from __future__ import annotations

import html
from functools import partial
from fractions import Fraction

import panel as pn
import param

from dashboards.server.background import Background
from dashboards.render.dist_bars import bars
from dashboards.common.provenance import STYLESHEET as BADGE_CSS, badge_html
from dashboards.common.uploads import FileLoader
from dashboards.render.zone_map import zone_map_svg
from engine.bc.blocks import BLOCK_KINDS, Block
from engine.bc.calc import check_odds, cup_odds, deck_summary
from engine.bc.combat import combat_procedure, neutral_policy
from engine.bc.cup import Cup
from engine.bc.deck import Pile, default_deck, load_deck, parse_card_list
from engine.bc.tally import CombatSetup, CombatSide, Wing, prepare
from engine.bc.terrain import default_terrain, load_terrain
from engine.core.errors import VedetteError
from engine.core.procedure import distribution, enumerate_tree
from dashboards.common.rule_notes import rule_note_for
from dashboards.render.tree_plot import TreePlot, layout_tree

__all__ = ["BcSession", "combat_panel", "check_panel", "cup_panel", "deck_panel", "demo_panel"]

RESULT_COLOURS = {"gun_smoke": "#9aa5b1", "muskets_shot": "#c2a14d", "round_shot": "#d08a3a", "skull_bones": "#8b2e2e",
                  "black_cross": "#8b2e2e", "horse_head": "#9aa5b1", "bayonets": "#c2a14d",
                  "bayonets_burst": "#d08a3a", "burst": "#5a8f4e", "retreat_flag": "#2f6f3f"}
NONE = "(none)"
#: the tally, check and deck tables: a rule under each row, numbers right-aligned
TABLE_CSS = """
table {border-collapse:collapse;font-size:13px}
th, td {border-bottom:1px solid #e0e0e0;padding:2px 8px;text-align:left}
td {font-variant-numeric:tabular-nums}
"""


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


class BcSession(param.Parameterized):
    """One browser session's deck, terrain chart and known discard pile (nothing module-level)."""

    discards_text = param.String(default="", doc="known discard pile: card numbers, comma-separated")
    version = param.Integer(default=0, doc="bumped when the deck or terrain changes")
    error = param.String(default="")

    def __init__(self, **params):
        super().__init__(**params)
        self.deck = default_deck()
        self.terrain = default_terrain()
        self.deck_uploaded = False
        self.terrain_uploaded = False
        self.deck_loader = FileLoader(load_deck, self._deck_loaded, self._deck_reset,
                                      label="Load your own deck file (docs/bc.md)")
        self.terrain_loader = FileLoader(load_terrain, self._terrain_loaded, self._terrain_reset,
                                         label="Load your own terrain chart")

    def _deck_loaded(self, deck, name):
        self.deck, self.deck_uploaded = deck, True
        self.version += 1

    def _deck_reset(self):
        self.deck, self.deck_uploaded = default_deck(), False
        self.version += 1

    def _terrain_loaded(self, terrain, name):
        self.terrain, self.terrain_uploaded = terrain, True
        self.version += 1

    def _terrain_reset(self):
        self.terrain, self.terrain_uploaded = default_terrain(), False
        self.version += 1

    def discards(self) -> tuple[int, ...]:
        """Parse the discard pile text with the engine's own validation (raises DataError)."""
        items = [t for t in self.discards_text.replace(";", ",").replace(" ", ",").split(",") if t.strip()]
        return parse_card_list(self.deck, items, "discard pile", "discard pile box")

    def badges(self) -> str:
        return (badge_html(self.deck.source, self.deck.notes[:300], "deck", self.deck_uploaded) + " " +
                badge_html(self.terrain.source, self.terrain.model.notes[:300], "terrain", self.terrain_uploaded))


# ------------------------------------------------------------------------------------------------
# Combat
# ------------------------------------------------------------------------------------------------
class CombatForm(param.Parameterized):
    attack: param.Selector[str] = param.Selector(default="fire", objects=["fire", "assault"])
    a_kind: param.Selector[str] = param.Selector(default="artillery", objects=list(BLOCK_KINDS), label="Lead attacker")
    a_skill = param.Integer(default=2, bounds=(0, 4), label="Attacker skill")
    a_state: param.Selector[str] = param.Selector(default="steady", objects=["steady", "shaken", "disrupted"],
                                                  label="Attacker state")
    a_second: param.Selector[str] = param.Selector(default=NONE, objects=[NONE, *BLOCK_KINDS],
                                                   label="Attacker second line")
    a_hq = param.Boolean(default=False, label="Steady HQ with the attacker")
    wings_adjacent = param.Integer(default=0, bounds=(0, 4), label="Wing supports next to the attacker")
    wings_far = param.Integer(default=0, bounds=(0, 3), label="Wing supports not next to the attacker (9.4 II)")
    a_morale: param.Selector[str] = param.Selector(default="good", objects=["good", "bad"],
                                                   label="Attacker army morale")
    d_kind: param.Selector[str] = param.Selector(default="infantry", objects=list(BLOCK_KINDS), label="Lead defender")
    d_skill = param.Integer(default=2, bounds=(0, 4), label="Defender skill")
    d_state: param.Selector[str] = param.Selector(default="steady", objects=["steady", "shaken", "disrupted"],
                                                  label="Defender state")
    d_square = param.Boolean(default=False, label="Defender in Square")
    d_second: param.Selector[str] = param.Selector(default=NONE, objects=[NONE, *BLOCK_KINDS],
                                                   label="Defender second line")
    d_morale: param.Selector[str] = param.Selector(default="good", objects=["good", "bad"],
                                                   label="Defender army morale")
    terrain: param.Selector[str] = param.Selector(default="clear", objects=["clear"], label="Defender's zone terrain")
    interval: param.Selector[str] = param.Selector(default="none", objects=["none"], label="Interval terrain")
    card_shifts = param.Integer(default=0, bounds=(-4, 4), label="Event card shifts (+ right)")
    neutral_attacker = param.Integer(default=0, bounds=(0, 2), label="Attacker's neutral shifts")
    neutral_defender = param.Integer(default=0, bounds=(0, 2), label="Defender's neutral shifts")

    def setup(self) -> CombatSetup:
        def blk(kind, skill=2, state="steady", formation="none"):
            b = Block(kind, skill=skill, state=state if not (state == "shaken" and kind not in
                                                              ("infantry", "long_infantry")) else "disrupted",
                      formation=formation)
            return b
        wings = tuple(Wing(Block("infantry")) for _ in range(self.wings_adjacent)) + \
            tuple(Wing(Block("infantry"), adjacent_to_attacker=False) for _ in range(self.wings_far))
        a = CombatSide(blk(self.a_kind, self.a_skill, self.a_state),
                       blk(self.a_second) if self.a_second != NONE else None,
                       _hq() if self.a_hq else None, wings, self.a_morale)
        d = CombatSide(blk(self.d_kind, self.d_skill, "steady" if self.d_square else self.d_state,
                           "square" if self.d_square else "none"),
                       blk(self.d_second) if self.d_second != NONE else None, None, (), self.d_morale,
                       terrain=self.terrain)
        return CombatSetup(self.attack, a, d, interval=self.interval, card_shifts=self.card_shifts,
                           neutral_attacker=self.neutral_attacker, neutral_defender=self.neutral_defender)


def _hq():
    from engine.bc.blocks import HQ
    return HQ()


def combat_panel(sess: BcSession) -> pn.Column:
    form = CombatForm()

    def refresh_terrain(*_):
        form.param.terrain.objects = sorted(sess.terrain.model.zones)
        form.param.interval.objects = sorted(sess.terrain.model.intervals)
        if form.terrain not in form.param.terrain.objects:
            form.terrain = form.param.terrain.objects[0]
        if form.interval not in form.param.interval.objects:
            form.interval = "none" if "none" in form.param.interval.objects else form.param.interval.objects[0]
    refresh_terrain()
    sess.param.watch(refresh_terrain, "version")

    out = pn.Column(sizing_mode="stretch_width", css_classes=["bc-combat-out"])
    tree_area = pn.Column(sizing_mode="stretch_width", css_classes=["bc-tree"])
    tree_card = pn.Card(tree_area, title="The combat as a probability tree (picture and text)", collapsed=True,
                        sizing_mode="stretch_width", css_classes=["bc-tree-card"])

    def show_tree(*_):
        if tree_card.collapsed:
            tree_area.clear()
            return
        def no_tree(exc):
            tree_area[:] = [pn.pane.Alert(f"**No tree**: {html.escape(str(exc))}", alert_type="danger",
                                          sizing_mode="stretch_width")]

        try:
            setup = form.setup()
            disc = sess.discards()
        except (VedetteError, ValueError) as exc:
            no_tree(exc)
            return
        # enumerated and laid out off the event loop, in a worker process (issue 12.3)
        tree_bg.start(partial(combat_tree_work, setup, sess.deck, disc, sess.terrain),
                      lambda lay: tree_area.__setitem__(slice(None), [TreePlot(lay)]), no_tree,
                      label="building the tree…")

    tree_bg = Background()
    tree_card.objects = [tree_bg.panel(), tree_area]
    bg = Background()

    def failed(exc):
        out[:] = [pn.pane.Alert(f"**Not computed** (the last result stays below): {html.escape(str(exc))}",
                                alert_type="danger", css_classes=["bc-error"], sizing_mode="stretch_width")] + \
            [o for o in out.objects if "bc-error" not in (getattr(o, "css_classes", None) or [])]

    def compute(*_):
        try:
            setup = form.setup()
            disc = sess.discards()
        except (VedetteError, ValueError) as exc:
            failed(exc)
            return

        # off the event loop (issue 12.3), in a worker process: the exact card enumeration
        work = partial(combat_work, setup, sess.deck, disc, sess.terrain)

        def shown(r):
            out[:] = _combat_view(sess, r[0], r[1], disc)
            show_tree()

        bg.start(work, shown, failed, label="working out the combat odds…")

    # results follow the inputs, as on the n20 odds page: no button to press
    form.param.watch(compute, [p for p in form.param if p != "name"])
    sess.param.watch(compute, ["discards_text", "version"])
    tree_card.param.watch(show_tree, "collapsed")
    compute()
    controls = pn.Param(form, show_name=False, widgets={
        "a_skill": pn.widgets.IntSlider, "d_skill": pn.widgets.IntSlider}, sizing_mode="stretch_width")
    return pn.Column(pn.Row(pn.Column(controls, width=360), pn.Column(bg.panel(), out, tree_card, sizing_mode="stretch_width"),
                            sizing_mode="stretch_width"),
                     name="Combat", sizing_mode="stretch_width")


def combat_tree_work(setup, deck, disc, terrain):
    """One combat's probability tree laid out for the picture (module-level: it runs in a worker process)."""
    from dashboards.render.tree_plot import prepare
    try:
        pile = Pile.for_odds(deck, disc)
        tree = enumerate_tree(combat_procedure(setup, deck, pile, terrain), policy=neutral_policy)
    except ValueError as exc:
        raise VedetteError(str(exc)) from None
    return prepare(layout_tree(tree, rule_note=rule_note_for("bc")))


def demo_work(st, az, tz, attack, persp, deck, disc, terrain):
    """(tally, distribution) of a combat on the demonstration map (module-level: it runs in a worker)."""
    from engine.bc.game.combat import bombardment_from_map, combat_from_map
    from engine.bc.game.orders import command_perspective

    here = st
    for side in persp:
        here = command_perspective(here, side, rally_order=False)
    if attack.startswith("bombardment"):
        setup = bombardment_from_map(here, az, tz, terrain)
    else:
        setup = combat_from_map(here, az, tz, attack)
    return combat_work(setup, deck, disc, terrain)


def combat_work(setup, deck, disc, terrain):
    """(tally, distribution) of one combat: module-level, so that it runs in a worker process."""
    try:
        tally = prepare(setup, terrain)
        pile = Pile.for_odds(deck, disc)
        dist = distribution(combat_procedure(setup, deck, pile, terrain), policy=neutral_policy)
    except ValueError as exc:
        raise VedetteError(str(exc)) from None
    return tally, dist


def _combat_view(sess, tally, dist, disc) -> list:
    total = dist.total
    rows = "".join(f"<tr><td>{html.escape(l.side)}</td><td>{html.escape(l.what)}</td><td>{l.cp}</td>"
                   f"<td>{html.escape(l.rule)}</td></tr>" for l in tally.lines)
    shifts = "".join(f"<li>{s.amount:+d} {html.escape(s.why)} <small>({html.escape(s.rule)})</small></li>"
                     for s in tally.shifts) or "<li>none</li>"
    head = (f"<div class='bc-tally' data-column='{tally.column}' data-net='{tally.net_shift}'>"
            f"<p>{sess.badges()}</p>"
            f"<p><b>Attacker {tally.attacker_cp} CP − defender {tally.defender_cp} CP = {tally.raw_column:+d}</b>, "
            f"column <b>{tally.column:+d}</b> (23.4 clamps to −2…+4){' · flanked' if tally.flanked else ''}</p>"
            f"<table class='bc-lines'><tr><th>side</th><th>what</th><th>CP</th><th>rule</th></tr>{rows}</table>"
            f"<p>Shifts (net {tally.net_shift:+d}):</p><ul>{shifts}</ul>"
            f"<p><small>Discard pile known: {len(disc)} card(s). Total probability "
            f"<span class='bc-total'>{_frac(total)}</span>.</small></p></div>")
    res = dist.map(lambda o: o.result)
    order = sess.deck.order[tally.table] + tuple(r for r in res if r not in sess.deck.order[tally.table])
    res_rows = [(r.replace("_", " "), res[r], RESULT_COLOURS.get(r)) for r in order if res[r]]
    dm = dist.map(lambda o: o.defender_morale)
    am = dist.map(lambda o: o.attacker_morale)
    extras = [("defender lead retreats", dist.prob(lambda o: o.fate("defender_lead").retreats > 0)),
              ("defender Zone emptied", dist.prob(lambda o: o.zone_emptied)),
              ("defender lead eliminated", dist.prob(lambda o: o.fate("defender_lead").eliminated)),
              ("attacker lead eliminated", dist.prob(lambda o: o.fate("attacker_lead").eliminated))]
    return [pn.pane.HTML(head, sizing_mode="stretch_width", stylesheets=[BADGE_CSS, TABLE_CSS]),
            bars(res_rows, "Final combat result (after shifts and exceptions)", css_class="bc-results"),
            bars([(f"{k:+d}", p) for k, p in dm.sorted_items(key=lambda k: k)], "Defender army morale change",
                 css_class="bc-def-morale"),
            bars([(f"{k:+d}", p) for k, p in am.sorted_items(key=lambda k: k)], "Attacker army morale change",
                 css_class="bc-att-morale"),
            bars(extras, "Other chances", css_class="bc-extras")]


# ------------------------------------------------------------------------------------------------
# Skill checks
# ------------------------------------------------------------------------------------------------
class CheckForm(param.Parameterized):
    table: param.Selector[str] = param.Selector(default="general", objects=["general", "rally", "command"],
                           label="Table (21.2 general, 21.1 rally, 21.3 out of command)")
    bad_morale = param.Boolean(default=False, label="Army in Bad Morale (13.1)")
    enemy_adjacent = param.Boolean(default=False, label="Rally: enemy-adjacent Zone")
    leader = param.Boolean(default=False, label="Leader-assisted (29.6)")


def check_panel(sess: BcSession) -> pn.Column:
    form = CheckForm()

    @pn.depends(form.param.table, form.param.bad_morale, form.param.enemy_adjacent, form.param.leader,
                sess.param.discards_text, sess.param.version)
    def view(table, bad, adj, leader, _t, _v):
        try:
            disc = sess.discards()
            rows = []
            cells = []
            for skill in range(5):
                kw = {"enemy_adjacent": adj} if table == "rally" else {}
                plain = check_odds(table, skill, hq=False, good_morale=not bad, deck=sess.deck, discards=disc,
                                   leader_assist=leader, **kw)
                hq = check_odds(table, skill, hq=True, good_morale=not bad, deck=sess.deck, discards=disc,
                                leader_assist=leader, **kw) if skill < 5 else plain
                p0, p1 = Fraction(plain["success"]["fraction"]), Fraction(hq["success"]["fraction"])
                rows.append((f"skill {skill}", p0))
                rows.append((f"skill {skill} + HQ", p1, "#5a8f4e"))
                cells.append(f"<tr data-skill='{skill}' data-plain='{_frac(p0)}' data-hq='{_frac(p1)}'>"
                             f"<td>{skill}</td><td>{_frac(p0)}</td><td>{_frac(p1)}</td></tr>")
        except VedetteError as exc:
            return pn.pane.Alert(str(exc), alert_type="danger", css_classes=["bc-error"])
        table_html = (f"<p>{sess.badges()}</p><table class='bc-check-table'><tr><th>skill</th><th>success</th>"
                      f"<th>with a Steady HQ (+1, 21.0)</th></tr>{''.join(cells)}</table>")
        return pn.Column(pn.pane.HTML(table_html, sizing_mode="stretch_width", stylesheets=[BADGE_CSS, TABLE_CSS]),
                         bars(rows, f"Chance of success on the {table} table", css_class="bc-check-bars"),
                         sizing_mode="stretch_width")

    return pn.Column(pn.Row(pn.Param(form, show_name=False, width=360), view, sizing_mode="stretch_width"),
                     name="Skill checks", sizing_mode="stretch_width")


# ------------------------------------------------------------------------------------------------
# Cup
# ------------------------------------------------------------------------------------------------
class CupForm(param.Parameterized):
    blue = param.Integer(default=6, bounds=(0, 15), label="Blue (French)")
    white = param.Integer(default=5, bounds=(0, 15), label="White (Coalition)")
    gold = param.Integer(default=0, bounds=(0, 1), label="Gold")
    yellow = param.Integer(default=2, bounds=(0, 4), label="Yellow")
    red = param.Integer(default=3, bounds=(0, 4), label="Red")
    black = param.Integer(default=3, bounds=(1, 4), label="Black")
    own: param.Selector[str] = param.Selector(default="blue", objects=["blue", "white"], label="Count orders of")
    passes = param.ListSelector(default=[], objects=["blue", "white"], label="Pass on every own cube (18.0)")
    gold_next: param.Selector[str] = param.Selector(default="event card",
                                                    objects=["event card", "blue", "white", "yellow", "red",
                                                              "black"], label="Gold cube names (18.0)")


def cup_work(counts: dict, own: str, passes: tuple, gold_next: str | None) -> tuple[int, dict]:
    """Off the event loop (in a child process): the cup's size and exact odds (16.2, 18.0)."""
    cup = Cup.of(counts)
    return cup.size, cup_odds(cup, own, passes=passes, gold_next=gold_next)


def cup_panel(sess: BcSession) -> pn.Column:
    form = CupForm()
    out = pn.Column(sizing_mode="stretch_width", css_classes=["bc-cup-out"])
    bg = Background()
    names = ("blue", "white", "gold", "yellow", "red", "black", "own", "passes", "gold_next")

    def show(res, own):
        size, d = res
        at_least = [(f"at least {k}", Fraction(v["fraction"])) for k, v in d["at_least_own_before_end"].items()
                    if k != "0"]
        within = [(f"within {n} draws", Fraction(v["fraction"])) for n, v in d["turn_ended_within"].items()]
        out[:] = [
            pn.pane.HTML(f"<p class='bc-cup' data-size='{size}' data-expected='{d['expected_own_before_end']}'>"
                         f"{size} cubes. Expected {own} orders before the last black cube: "
                         f"{d['expected_own_before_end']} (16.2).</p>"),
            bars(at_least, f"{own.title()} orders drawn before the turn ends", css_class="bc-cup-own"),
            bars(within, "The turn has ended (last black cube drawn)", css_class="bc-cup-end")]

    def error(exc):
        out[:] = [pn.pane.Alert(html.escape(str(exc)), alert_type="danger", css_classes=["bc-error"])]

    def compute(*_):
        counts = {c: getattr(form, c) for c in ("blue", "white", "gold", "yellow", "red", "black")}
        gold = None if form.gold_next == "event card" else form.gold_next
        own = form.own
        bg.start(partial(cup_work, counts, own, tuple(form.passes), gold), lambda r: show(r, own), error,
                 label="drawing every order of the cup…", process=True)

    form.param.watch(compute, list(names))
    compute()
    return pn.Column(pn.Row(pn.Column(pn.Param(form, show_name=False, width=300, css_classes=["bc-cup-form"]),
                                      bg.panel(), width=310), out,
                            sizing_mode="stretch_width"),
                     name="Cube cup", sizing_mode="stretch_width")


# ------------------------------------------------------------------------------------------------
# Deck
# ------------------------------------------------------------------------------------------------
def deck_panel(sess: BcSession) -> pn.Column:
    @pn.depends(sess.param.discards_text, sess.param.version)
    def view(_t, _v):
        try:
            s = deck_summary(sess.deck, sess.discards())
        except VedetteError as exc:
            return pn.pane.Alert(str(exc), alert_type="danger", css_classes=["bc-error"])
        comp = (f"<p>{sess.badges()}</p><p class='bc-deck' data-cards='{s['deck']['cards']}'>"
                f"{s['deck']['cards']} event cards + reshuffle card #{s['deck']['reshuffle']}; sides "
                f"{html.escape(str(s['sides']))}; Skill Check icons {html.escape(str(s['skill_icons']))}.</p>"
                f"<p><small>{html.escape(s['notes'])}</small></p>")
        tables = []
        for table in ("fire", "assault"):
            head = "".join(f"<th>{c}</th>" for c in s["next_card"][table])
            results = sess.deck.order[table]
            body = "".join(
                "<tr><td>" + r.replace("_", " ") + "</td>" + "".join(
                    f"<td>{s['next_card'][table][c].get(r, {'fraction': '0/1'})['fraction']}</td>"
                    for c in s["next_card"][table]) + "</tr>" for r in results)
            tables.append(f"<p><b>{table.title()}</b>: chance of each printed result on the next card, per odds "
                          f"column (before shifts)</p><table class='bc-next-{table}'><tr><th></th>{head}</tr>"
                          f"{body}</table>")
        return pn.pane.HTML(comp + "".join(tables), sizing_mode="stretch_width", stylesheets=[BADGE_CSS, TABLE_CSS])

    return pn.Column(view, pn.Row(sess.deck_loader.panel(), sess.terrain_loader.panel(), sizing_mode="stretch_width"),
                     name="Deck and files", sizing_mode="stretch_width")


# ------------------------------------------------------------------------------------------------
# Demonstration battle (our invented scenario): the zone map and a combat set up from it
# ------------------------------------------------------------------------------------------------
class MapCombatForm(param.Parameterized):
    attacker_zone: param.Selector[str] = param.Selector(default="M2", objects=["M2"], label="Attacking Zone")
    target_zone: param.Selector[str] = param.Selector(default="E2", objects=["E2"], label="Target Zone")
    attack: param.Selector[str] = param.Selector(default="assault", objects=["fire", "assault", "bombardment (27.5)"])
    perspective = param.ListSelector(default=[], objects=["french", "coalition"],
                                     label="Command Perspective (29.1)")


def demo_panel(sess: BcSession) -> pn.Column:
    from engine.bc.game.state import new_map

    st = new_map()
    form = MapCombatForm()
    zones = list(st.scenario.model.zones)
    form.param.attacker_zone.objects = zones
    form.param.target_zone.objects = zones

    view = pn.Column(sizing_mode="stretch_width", css_classes=["bc-demo-out"])
    demo_bg = Background()

    def no_combat(exc):
        view[:] = [pn.pane.Alert(f"**No combat**: {html.escape(str(exc))}", alert_type="warning",
                                 css_classes=["bc-error"], sizing_mode="stretch_width")]

    def compute(*_):      # the exact card enumeration runs in a worker process (issue 12.3)
        try:
            disc = sess.discards()
        except VedetteError as exc:
            no_combat(exc)
            return
        demo_bg.start(partial(demo_work, st, form.attacker_zone, form.target_zone, form.attack,
                              tuple(form.perspective), sess.deck, disc, sess.terrain),
                      lambda r: view.__setitem__(slice(None), _combat_view(sess, r[0], r[1], disc)), no_combat,
                      label="working out the combat odds…")

    form.param.watch(compute, ["attacker_zone", "target_zone", "attack", "perspective"])
    sess.param.watch(compute, ["discards_text", "version"])
    compute()

    intro = pn.pane.Markdown(
        f"**{html.escape(st.scenario.name)}** — an invented nine-Zone battle (provisional, not a Playbook scenario) "
        "that exercises the rules on a map: lead and second-line Blocks, wing supports and their restrictions, "
        "flanks, terrain and interval terrain are read from the map. Hover a Block for its Battle Zones.",
        sizing_mode="stretch_width")
    return pn.Column(intro, pn.pane.HTML(zone_map_svg(st), sizing_mode="stretch_width"),
                     pn.Row(pn.Param(form, show_name=False, width=300),
                            pn.Column(demo_bg.panel(), view, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
                     name="Demonstration battle", sizing_mode="stretch_width")
