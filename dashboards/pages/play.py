"""Play Napoleonic 20 in the browser (hotseat), with saved games, undo, a dice log and replay controls."""
from __future__ import annotations

import html

import panel as pn

from dashboards.components.access import BrowserKeys, game_link, url_arg
from dashboards.components.hexmap import Marked
from dashboards.components.layout import flow
from dashboards.components.n20_battle_form import scenario_choices
from dashboards.components.n20_mapview import GameMapView, unit_at
from dashboards.components.n20_play import PlayModel, describe_request, dice_log_rows
from dashboards.components.n20_rule_notes import note
from dashboards.components.provenance import STYLESHEET as BADGE_CSS
from dashboards.storage import OWNER, GameStore, StorageError
from engine.core.errors import VedetteError
from engine.core.procedure import Choose, jsonable
from engine.core.record import GameRecord
from engine.n20.game.state import OPTIONS

TITLE = "Play a game (Napoleonic 20)"
SUMMARY = ("Hotseat play of Fuentes de Oñoro 20 or Bussaco 20 with the rules enforced: move, declare and "
           "resolve battles, rally; computer or table dice, undo, dice log, saved games and replays.")

CSS = BADGE_CSS + """
.status-line {font-size:14px;font-weight:600;color:#2f4f6f}
.refusal {color:#b71c1c;font-weight:600}
table.dice-log {border-collapse:collapse;font-size:12px;width:100%}
table.dice-log td, table.dice-log th {border-bottom:1px solid #e0e0e0;padding:1px 5px;text-align:left}
.rule-tag {background:#eef;border-radius:3px;padding:0 4px;font-size:11px;cursor:help}
.game-links {font-size:13px}
"""

#: largest record file the page accepts (a long game's record is well under 1 MB)
MAX_RECORD_BYTES = 2_000_000


def _rule(rule: str) -> str:
    return f"<span class='rule-tag' title='{html.escape(note(rule) or rule, quote=True)}'>{html.escape(rule)}</span>"


#: shown as HTML (a Markdown pane would parse its text again in every session)
INTRO_HTML = ("<p>Start a scenario or open a saved game. Every action is checked by the rules engine: a refused action "
              "shows the rule number and changes nothing. Click one of your units to see where it can go, then "
              "click a highlighted hex to move it. In the combat phase, click attackers and a defender, <em>add "
              "battle</em>, then <em>declare</em>. Each action is saved the moment it is made; the index page lists "
              "saved games.</p>")


def _system_wanted(store: GameStore) -> str:
    """The system of the page: the saved game's (``?game=``), else ``?system=``, else Napoleonic 20."""
    gid = url_arg("game", limit=40)
    if gid:
        try:
            return store.load(gid).system
        except (KeyError, VedetteError):
            pass
    return url_arg("system", "n20", limit=10)


def page():
    store = GameStore()
    system = _system_wanted(store)
    if system != "n20":
        return _generic_page(store, system)
    m = PlayModel(store)
    keys = BrowserKeys()
    want = url_arg("game", limit=40)
    want_key = url_arg("key", limit=64)
    want_mode = url_arg("mode", "play", limit=10)
    held: dict[str, str | None] = {}      # saved game id -> the key this browser holds for it
    links_pane = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["game-links"])
    public_box = pn.widgets.Checkbox(name="public: anyone may watch and replay this game (read-only)",
                                     visible=False, css_classes=["public-toggle"])
    holder = pn.Column(sizing_mode="stretch_width")
    status = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["status-line"])
    refusal = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["refusal-box"])

    def show_refusal(*_):   # a refusal is shown at once, also from the set-up callbacks (start, open, import)
        refusal.object = f"<div class='refusal'>{html.escape(m.refusal)}</div>" if m.refusal else ""

    m.param.watch(show_refusal, ["refusal", "revision"])
    message = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["message"])
    log_pane = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width", css_classes=["dice-log"])
    pending_box = pn.Column(sizing_mode="stretch_width", css_classes=["pending"])
    battles: list = []            # battles being assembled for a declaration: (attackers, defenders)
    picking = {"att": [], "def": []}
    ui: dict = {}

    # ---- new / open ---------------------------------------------------------------------------------
    ids = list(scenario_choices())
    scen = pn.widgets.Select(name="scenario", options=ids, value="fuentes" if "fuentes" in ids else ids[0], width=170,
                            css_classes=["scenario-select"])
    opts = pn.widgets.MultiChoice(name="optional rules and variants", options=list(OPTIONS), width=330,
                                  description="; ".join(f"{k}: rule {v}" for k, v in OPTIONS.items()))
    seed = pn.widgets.IntInput(name="seed (blank = random)", value=None, width=140, css_classes=["seed-input"])
    start = pn.widgets.Button(name="Start a new game", button_type="primary", css_classes=["start-game"])
    upload = pn.widgets.FileInput(accept=".json", name="import a record")
    saved_select = pn.widgets.Select(name="saved games", options={}, width=330)
    resume_b = pn.widgets.Button(name="resume", width=90)
    replay_b = pn.widgets.Button(name="replay", width=90)
    download = pn.widgets.FileDownload(label="download the record (JSON)", filename="game.json",
                                       callback=lambda: __import__("io").StringIO(m.record().dumps()), width=240)

    def refresh_saved():
        try:
            games = store.visible(keys.keys, "n20")
        except StorageError as exc:
            m.refusal = str(exc)
            return
        held.clear()
        held.update({g.id: k for g, _, k in games})
        saved_select.options = {f"{g.title} · {g.n_events} actions · {g.summary()['updated']}"
                                + ("" if role else " · watch only"): g.id for g, role, _ in games}

    def show_links():
        """The game's links: the owner sees every side's link to hand out; a player sees their own."""
        if not m.game_id:
            links_pane.object, public_box.visible = "", False
            return
        if m.role == OWNER:
            ks = store.keys(m.game_id)
            items = "".join(f"<li>{html.escape(role)}: <a class='link-{html.escape(role)}' "
                            f"href='{html.escape(game_link('/play', m.game_id, k))}'>"
                            f"{html.escape(game_link('/play', m.game_id, k))}</a></li>" for role, k in ks.items())
            links_pane.object = ("<b>Links to this game</b> (keep the owner's link; give each player their "
                                 f"side's link; anyone with a link can play that side):<ul>{items}</ul>")
            public_box.value = store.load(m.game_id).public
            public_box.visible = True
        else:
            links_pane.object = (f"You play the <b>{html.escape(m.role)}</b> side of this game." if m.role else
                                 "<b>Watching</b>: this public game is read-only for you (replay only).")
            public_box.visible = False

    def set_public(event):
        if m.role != OWNER or not m.game_id:
            return
        try:
            store.set_public(m.game_id, bool(event.new))
        except StorageError as exc:
            m.refusal = str(exc)
            m.revision += 1
            return
        m.message = ("This game is now public: anyone may watch and replay it." if event.new
                     else "This game is now private: only its links open it.")
        message.object = html.escape(m.message)

    public_box.param.watch(set_public, "value")

    def remember():
        """Keep the key of the game now open in this browser (so the index lists it); the address bar shows
        the game's owner link (so a reload reopens it)."""
        if m.game_id and m.role == OWNER:
            key = store.keys(m.game_id)[OWNER]
            keys.add(key)
            keys.show_url(game_link("/play", m.game_id, key))

    def do_start(_):
        try:
            m.new(scen.value, tuple(opts.value), seed.value)
        except VedetteError as exc:   # also a StorageError: the file could not be written
            m.refusal = f"Cannot start: {exc}"
            m.revision += 1
            return
        remember()
        rebuild()

    def do_open(mode):
        if not saved_select.value:
            return
        try:
            m.open(saved_select.value, mode, key=held.get(saved_select.value), check_key=True)
        except (VedetteError, KeyError) as exc:
            m.refusal = f"Cannot open: {exc}"
            m.revision += 1
            return
        rebuild()

    def do_import(event):
        if event.new is None:
            return
        name = (upload.filename or "record.json")[:60]
        try:
            if len(event.new) > MAX_RECORD_BYTES:
                raise VedetteError(f"{name}: at most {MAX_RECORD_BYTES // 1000} kB per record file on this page "
                                   f"(got {len(event.new) // 1000} kB)")
            rec = GameRecord.loads(event.new.decode("utf-8"), file=name)
            m.import_record(rec)
        except UnicodeDecodeError:
            m.refusal = f"The record was not loaded (nothing changed): {name}: not a UTF-8 text file"
            m.revision += 1
            return
        except VedetteError as exc:
            m.refusal = f"The record was not loaded (nothing changed): {str(exc)[:400]}"
            m.revision += 1
            return
        remember()
        rebuild()

    start.on_click(do_start)
    resume_b.on_click(lambda _: do_open("play"))
    replay_b.on_click(lambda _: do_open("replay"))
    upload.param.watch(do_import, "value")
    refresh_saved()
    setup = pn.Card(flow(scen, opts, seed, start), flow(saved_select, resume_b, replay_b), flow(upload, download),
                    title="Game", collapsed=False, sizing_mode="stretch_width")
    sharing = pn.Column(links_pane, public_box, keys.bridge, keys.url, sizing_mode="stretch_width")

    # ---- controls built once a game is open ----------------------------------------------------------
    def rebuild():
        st = m.state
        if st is None:
            holder[:] = []
            return
        view = GameMapView(st)
        ui["view"] = view
        view.on_hex(on_hex)
        dice_mode = pn.widgets.RadioButtonGroup.from_param(m.param.dice_mode, css_classes=["dice-mode"])
        undo = pn.widgets.Button(name="Undo", css_classes=["undo"], width=90)
        undo.on_click(lambda _: (m.undo(), after()))
        act_select = pn.widgets.Select(name="other actions", options={}, width=330, css_classes=["action-select"])
        act_go = pn.widgets.Button(name="Do it", button_type="primary", width=80, css_classes=["do-action"])
        act_go.on_click(lambda _: act_select.value and run(act_select.value))
        ui["act_select"] = act_select
        entering = pn.widgets.Select(name="reinforcement to bring on", options={}, width=250)
        entering.param.watch(lambda e: select_unit(e.new), "value")
        ui["entering"] = entering
        add_battle = pn.widgets.Button(name="add battle (selected units)", width=200, css_classes=["add-battle"])
        declare = pn.widgets.Button(name="declare these battles", button_type="primary", width=180,
                                    css_classes=["declare"])
        clear = pn.widgets.Button(name="clear", width=70)
        add_battle.on_click(lambda _: add_current_battle())
        declare.on_click(lambda _: (m.declare(battles), battles.clear(), after()))
        clear.on_click(lambda _: (battles.clear(), picking.update({"att": [], "def": []}), after()))
        battle_list = pn.pane.HTML("", css_classes=["battle-list"])
        ui["battle_list"] = battle_list
        goto = pn.widgets.TextInput(name="click a hex by its number", placeholder="e.g. 0707", width=150,
                                    css_classes=["goto-hex"])
        goto.param.watch(lambda e: e.new and view.figure.tap(e.new.strip()), "value")
        zoc = pn.widgets.Checkbox.from_param(view.param.show_zoc, name="zones of control")
        # replay
        first = pn.widgets.Button(name="⏮ first", width=80, css_classes=["rp-first"])
        prev = pn.widgets.Button(name="◀ previous", width=95, css_classes=["rp-prev"])
        nxt = pn.widgets.Button(name="next ▶", width=85, css_classes=["rp-next"])
        last = pn.widgets.Button(name="last ⏭", width=80, css_classes=["rp-last"])
        first.on_click(lambda _: (m.goto(0), after()))
        prev.on_click(lambda _: (m.goto(m.position - 1), after()))
        nxt.on_click(lambda _: (m.goto(m.position + 1), after()))
        last.on_click(lambda _: (m.goto(len(m.states) - 1), after()))
        jump = pn.widgets.Select(name="jump to turn / phase", options={}, width=300)
        jump.param.watch(lambda e: e.new is not None and (m.goto(e.new), after()), "value")
        ui["jump"] = jump
        mark_label = pn.widgets.TextInput(name="bookmark label", width=180)
        mark = pn.widgets.Button(name="bookmark this position", width=180)
        mark.on_click(lambda _: (m.add_bookmark(mark_label.value), after()))
        marks = pn.widgets.Select(name="bookmarks", options={}, width=220)
        marks.param.watch(lambda e: e.new is not None and (m.goto(e.new), after()), "value")
        ui["marks"] = marks
        mode = pn.widgets.RadioButtonGroup.from_param(m.param.mode, css_classes=["play-mode"], disabled=not m.role)
        mode.param.watch(lambda e: (m.goto(len(m.states) - 1 if e.new == "play" else m.position), after()), "value")
        replay_row = flow(first, prev, nxt, last, jump, mark_label, mark, marks, css_classes=["replay-controls"])
        ui["replay_row"] = replay_row
        play_controls = pn.Column(
            flow(dice_mode, undo, zoc, goto),
            flow(act_select, act_go, entering),
            flow(add_battle, declare, clear), battle_list, css_classes=["play-controls"],
            sizing_mode="stretch_width")
        ui["play_controls"] = play_controls
        setup.collapsed = True
        # the question being asked (a die to type, a choice) goes above the map, full width: beside a 900 px
        # map it was squeezed to a sliver on a 1280 px screen
        holder[:] = [flow(mode), replay_row, play_controls, pending_box, message, view.panel(), log_pane]
        # the new map was drawn from the current state when it was built; changing it again in this same
        # callback (before the browser knows the new figure) trips Bokeh's document lock
        after(redraw_map=False)

    # ---- interaction -------------------------------------------------------------------------------
    def run(action):
        m.act(action)
        ui["view"].selected = ""
        after()

    def select_unit(uid):
        view = ui.get("view")
        if view is None or not uid:
            return
        view.selected = uid if m.state.unit(uid).status == "map" else ""
        dests = m.moves_for(uid)
        view.extra_marks = [Marked(h, "in", "#aed581") for h in dests] if m.state.unit(uid).status != "map" else []
        ui["moving"] = uid
        view.redraw()

    def add_current_battle():
        if picking["att"] and picking["def"]:
            battles.append((list(picking["att"]), list(picking["def"])))
        picking["att"], picking["def"] = [], []
        after()

    def on_hex(h):
        st = m.state
        view = ui["view"]
        if st is None or h is None:
            return
        uid = unit_at(st, h)
        if m.mode != "play":
            view.selected = uid or ""
            return
        moving = ui.get("moving")
        if moving:
            dests = m.moves_for(moving)
            if h in dests and h != st.unit(moving).hex:
                ui["moving"] = None
                view.extra_marks = []
                run(dests[h])
                return
        side = m.to_act
        if st.step == "combat" and st.declared is None and uid:
            if st.scenario.units[uid].side == side:
                lst = picking["att"]
            else:
                lst = picking["def"]
            if uid in lst:
                lst.remove(uid)
            else:
                lst.append(uid)
            view.also_selected = picking["att"] + picking["def"]
            view.redraw()
            after(redraw_map=False)
            return
        if uid and st.scenario.units[uid].side == side:
            select_unit(uid)
        else:
            ui["moving"] = None
            view.extra_marks = []
            view.selected = ""

    def answer(value):
        m.answer(value)
        after()

    def after(redraw_map: bool = True):
        st = m.state
        view = ui.get("view")
        if view is not None and st is not None and redraw_map:
            view.also_selected = picking["att"] + picking["def"]
            view.set_state(st)
        status.object = f"<div class='status' data-events='{len(m.events)}' data-position='{m.position}'>" \
                        f"{html.escape(m.status_line())}</div>"
        refusal.object = f"<div class='refusal'>{html.escape(m.refusal)}</div>" if m.refusal else ""
        show_links()            # the game's links first: nothing below may keep them from the page
        message.object = html.escape(m.message)
        rows = dice_log_rows(m.events[: m.position] if m.mode == "replay" else m.events)[-40:]
        log_pane.object = ("<table class='dice-log'><caption style='text-align:left;font-weight:600'>Dice log "
                           "(raw die faces; notes give the modified rolls)</caption><tr><th>#</th><th>action</th>"
                           "<th>rule</th><th>what</th><th>label</th><th>value</th><th>detail</th></tr>"
                           + "".join(f"<tr><td>{r['#']}</td><td>{html.escape(r['action'])}</td><td>{_rule(r['rule'])}</td>"
                                     f"<td>{r['what']}</td><td>{html.escape(r['label'])}</td>"
                                     f"<td class='raw'>{html.escape(r['value'])}</td>"
                                     f"<td>{html.escape(r['detail'])}</td></tr>" for r in reversed(rows))
                           + "</table>")
        # pending question
        p = m.pending
        if p is not None and not p.done:
            req = p.pending
            parts = [pn.pane.HTML(f"<b>Waiting:</b> {html.escape(describe_request(req))} {_rule(req.rule)}",
                                  stylesheets=[CSS])]
            if isinstance(req, Choose):
                for o in req.options:
                    b = pn.widgets.Button(name=str(jsonable(o)) if not hasattr(o, "__str__") else str(o),
                                          button_type="light", css_classes=["choice"])
                    b.on_click(lambda _, o=o: answer(o))
                    parts.append(b)
            else:
                faces = [v for v, _ in req.outcomes()]
                typed = pn.widgets.Select(name="what did the table show?", options=faces, width=120,
                                          css_classes=["typed-die"])
                ok = pn.widgets.Button(name="enter", button_type="primary", width=80, css_classes=["enter-die"])
                ok.on_click(lambda _: answer(typed.value))
                parts.append(flow(typed, ok))
            cancel = pn.widgets.Button(name="cancel this action", width=150)
            cancel.on_click(lambda _: (m.cancel(), after()))
            parts.append(cancel)
            pending_box[:] = parts
        else:
            pending_box[:] = []
        if "act_select" in ui:
            acts = [a for a in m.legal() if a.kind not in ("move", "night_move")]
            ui["act_select"].options = {str(a): a for a in acts}
            due = [u.id for u in (st.units if st else ()) if u.status in ("due",)
                   and st.scenario.units[u.id].side == m.to_act]
            ui["entering"].options = {"": None} | {f"{st.scenario.units[u].name} ({u})": u for u in due}
            ui["battle_list"].object = ("<b>Battles to declare:</b> " + "; ".join(
                f"{'+'.join(a)} vs {'+'.join(d)}" for a, d in battles) if battles else "") + (
                f"<br><i>selected: {', '.join(picking['att'])} vs {', '.join(picking['def'])}</i>"
                if picking["att"] or picking["def"] else "")
            ui["jump"].options = {lab: pos for pos, lab in m.step_positions()}
            ui["marks"].options = {f"{b.label} (@{b.position})": b.position for b in m.bookmarks()}
            ui["replay_row"].visible = m.mode == "replay"
            ui["play_controls"].visible = m.mode == "play"
        show_links()
        refresh_saved()

    intro = pn.pane.HTML(INTRO_HTML, sizing_mode="stretch_width")
    if want:
        key = want_key or held.get(want)
        try:
            m.open(want, "replay" if want_mode == "replay" else "play", key=key, check_key=True)
        except (VedetteError, KeyError) as exc:
            m.refusal = f"Cannot open saved game {want[:20]}: {exc}"
        else:
            if m.role and key:
                keys.add(key)    # a link someone gave: this browser now lists the game
            rebuild()
    after()
    return pn.Column(intro, setup, status, refusal, sharing, holder, sizing_mode="stretch_width")


def _generic_page(store: GameStore, system: str):
    """Lines of Battle, These Brave Fellows and Battle Commander (and any system on the core protocol)."""
    from dashboards.components.game_view import GamePlayView
    from engine.core.game import systems
    if system not in systems():
        system = "lob"
    keys = BrowserKeys()
    view = GamePlayView(system, store=store, keys=keys)
    gid = url_arg("game", limit=40)
    if gid:
        view.open(gid, url_arg("key", limit=64) or None, url_arg("mode", "play", limit=10))
    return pn.Column(keys.panel(), view, sizing_mode="stretch_width", css_classes=["play-page"])
