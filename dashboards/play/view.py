"""The play page's view for every system on the core game protocol (issues 15, 28).

:class:`GamePlayView` (a ``pn.viewable.Viewer``, usable inline in Jupyter too) draws a
:class:`~dashboards.play.model.GamePlayModel`, one browser's window on the live game the server holds:
start (each side a person or a bot) or open a game, the system's board (:mod:`dashboards.play.boards`),
the legal actions of this page's side in a player's words (a pick on the board narrows them to what that
piece or place can do, through the rules' typed places of each action), why the list is empty when it
is, the request waiting, refusals with their rule, undo, the seats and the watch controls, the dice log,
replay controls, the game's links and the record to download or import. No rules here: every question
goes to the engine.

Live (issue 28 point 2): the page subscribes to its live game; a change made anywhere (another browser,
a bot, another server process) reaches it from whatever thread made it, and is drawn on the page's own
document in its next tick, under its lock (``pn.state.execute`` on that document). Each part of the page
is drawn again only when what it shows changed: the board and the list on a change of the game or of the
pick, the status line on a message, the odds on a selection, the log and the replay controls on a change
of the game or of the replay position.
"""
from __future__ import annotations

import html
from functools import partial
from typing import Any

import panel as pn
import param
from panel.io.state import set_curdoc

from engine.core.errors import VedetteError
from engine.core.game import Places, systems
from engine.core.procedure import ChanceRequest, Choose
from engine.core.quick_odds import WHOLE
from engine.core.record import GameRecord
from engine.core.tables import upload_tables

from dashboards.common.provenance import STYLESHEET as PROV_CSS
from dashboards.play.action_odds import ActionOddsView
from dashboards.play.boards import Board, board_for
from dashboards.play.controls import GameControls, action_key, on_next_tick
from dashboards.play.head import PlayHead, decode_tables, decode_upload
from dashboards.play.layout import CARD_TOUCH_CSS, TOUCH_CSS, WIDGET_TOUCH_CSS, board_and_actions
from dashboards.play.model import LOG_CSS, GamePlayModel
from dashboards.play.page_words import is_attack, option_pairs, resend, scenario_pairs, short_title, side_name
from dashboards.play.replay_view import ReplayParts
from dashboards.play.status_view import StatusParts
from dashboards.server.access import BrowserKeys, game_link
from dashboards.server.storage import OWNER, GameStore, StorageError

__all__ = ["GamePlayView", "SYSTEM_TITLES", "UNDO_POLICY"]


SYSTEM_TITLES = {"n20": "Napoleonic 20 (Fuentes de Oñoro, Bussaco)", "lob": "Lines of Battle (Albuera 1811)",
                 "tbf": "These Brave Fellows (Dürenstein 1805)", "bc": "Battle Commander (demonstration battle)"}

#: the one undo policy of live games, as the page states it (dashboards/play/live.py, docs/dashboards.md)
UNDO_POLICY = ("Undo: you may take back your own last action (and the bot's replies to it) until dice are rolled "
               "or cards drawn, hidden units or cards are shown, or the turn passes to the other player. In a "
               "hotseat game (one screen, no bot) the last action may always be taken back.")


class GamePlayView(ReplayParts, StatusParts, pn.viewable.Viewer):
    """One session's play page for ``system``."""

    picked = param.String(default="", doc="the piece or place picked on the board ('' none)")
    aim = param.String(default="", doc="a highlighted place clicked with a piece picked: the list narrows to it")

    def __init__(self, system: str = "lob", store: GameStore | None = None, keys: BrowserKeys | None = None,
                 **params):
        super().__init__(**params)
        self.store = store or GameStore()
        self.keys = keys
        self.model = m = GamePlayModel(self.store, system=system, server=keys is not None)
        self.board: Board | None = None
        self._doc = pn.state.curdoc
        self._scheduled = False
        m.notify = self._notify
        # a change pushed while the browser is still drawing the page (after it fetched the document, before
        # it says it is ready) is dropped by Panel, which counts on the document sent whole: such a page is
        # sent again what it shows once it is ready (:meth:`_on_page_ready`)
        self._ready = True
        self._missed = False
        if self._doc is not None and self._doc.session_context is not None:
            pn.state.on_session_destroyed(lambda ctx: m.detach())
            self._ready = False
            pn.state.onload(lambda: on_next_tick(self.head, self._on_page_ready))   # under the document's lock
        # the new-game form, the dice mode before a game, the status and refusal lines and the browser's
        # keys in one browser component (issue 17.1: about twenty Panel widgets' server time before)
        self.head = PlayHead(system=system, dice=m.dice_mode, keys=keys.value if keys is not None else "",
                             sizing_mode="stretch_width", css_classes=["play-head-box"])
        self._choices(open_=True)
        self.busy_box = pn.Column(sizing_mode="stretch_width", css_classes=["replay-busy"])
        self._entries_key: tuple | None = None
        self._entries: list[tuple[Any, str, str, Places]] = []    # (action, key, label, places) of the legal actions
        self._by_key: dict[str, Any] = {}
        self._shown: list[tuple[Any, Places]] = []   # the picked piece's (action, places) listed now
        self._board_drawn: tuple | None = None       # what the board shows (it is drawn once per change)
        self._targets: set = set()   # the places highlighted now
        self.header: list = []        # what a page puts above the view (its intro), in the view's column
        self._root = None             # the view's column, once shown
        self._game_area = None        # the board, controls, odds, replay, links and log: made with a game
        self._seen = ("", -1)         # (game, events) last drawn: one more event is an action just resolved

        h = self.head
        h.param.watch(self._system, "system")
        h.param.watch(lambda e: self._dice_mode(e.new), "dice")
        h.on_action = self._head_action
        if keys is not None:
            keys.on_change(lambda v: setattr(h, "keys", v))
        # each part drawn again when what it shows changes (issue 28 point 5)
        m.param.watch(self._on_game, ["rev", "mode", "position", "role"])
        # the status line after the parts a change of the game draws, also when the same change brings new
        # words (watchers of one batch run by precedence): "your move" is read there once the rest is drawn
        m.param.watch(lambda *_: self._draw_status(), ["refusal", "message"], precedence=1)
        self.param.watch(self._on_pick, ["picked", "aim"])
        self.refresh()

    #: the widgets of a game (controls, odds, replay, links, log), made with the first game shown or on first
    #: use: a page opened without a game does not pay for them (issue 17)
    _GAME_PARTS = frozenset({"controls", "board_box", "log", "first_b", "prev_b", "next_b", "last_b", "where", "jump",
                             "marks", "mark_name", "mark_b", "mode", "link", "replay_row", "public", "odds",
                             "charts"})

    def __getattr__(self, name):
        if name in GamePlayView._GAME_PARTS and not self.__dict__.get("_made_game_parts"):
            self._make_game_parts()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _make_game_parts(self) -> None:
        self.__dict__["_made_game_parts"] = True
        m, w = self.model, pn.widgets
        touch = [WIDGET_TOUCH_CSS]     # 44 px high on a phone (dashboards/play/layout.py)
        self.controls = GameControls(sizing_mode="stretch_width", css_classes=["play-controls-part"],
                                     stylesheets=[TOUCH_CSS])
        self.controls.on_press = self._press
        self.controls.param.watch(lambda e: self._declare(self._by_key.get(e.new)), "selected")
        self.board_box = pn.Column(sizing_mode="stretch_width", css_classes=["board-box"])
        self.log = pn.pane.HTML("", stylesheets=[LOG_CSS], css_classes=["dice-log"], sizing_mode="stretch_width")
        # replay: words on the buttons (the media-control glyphs need a font the page does not ship)
        self.first_b = w.Button(name="« first", width=80, stylesheets=touch)
        self.prev_b = w.Button(name="‹ previous", width=100, stylesheets=touch)
        self.next_b = w.Button(name="next ›", width=90, stylesheets=touch)
        self.last_b = w.Button(name="last »", width=80, stylesheets=touch)
        self.where = pn.pane.HTML("", css_classes=["replay-position"], sizing_mode="stretch_width")
        self.jump = w.Select(name="jump to", options={}, width=260, css_classes=["jump-to"], stylesheets=touch)
        self.marks = w.Select(name="bookmarks", options={}, width=220, css_classes=["bookmarks"], stylesheets=touch)
        self.mark_name = w.TextInput(name="bookmark this position", placeholder="a name", width=200,
                                     stylesheets=touch)
        self.mark_b = w.Button(name="add bookmark", width=120, stylesheets=touch)
        self.mode = w.RadioButtonGroup(options={"play": "play", "replay": "replay"}, value="play",
                                       css_classes=["play-mode"], stylesheets=touch)
        self.link = pn.pane.HTML("", css_classes=["game-links"], sizing_mode="stretch_width")
        # filled the first time replay mode is shown (most sessions never open it: issue 17)
        self.replay_row = pn.Column(css_classes=["replay-controls"], visible=False, sizing_mode="stretch_width")
        self.public = w.Checkbox(name="public: anyone may watch and replay this game (read-only)", visible=False,
                                 css_classes=["public-toggle"])
        self.public.param.watch(self._set_public, "value")
        self.odds = ActionOddsView()  # the exact odds of the attack selected in the list (issue 15.2)
        # the charts the game plays with: your printed values (the file's name) or the shipped ones (issue 25.4)
        self.charts = pn.pane.HTML("", css_classes=["charts-line"], sizing_mode="stretch_width",
                                   stylesheets=[PROV_CSS])
        self._charts_of: tuple | None = None
        self.first_b.on_click(lambda _: self._goto(0))
        self.prev_b.on_click(lambda _: self._goto(m.position - 1))
        self.next_b.on_click(lambda _: self._goto(m.position + 1))
        self.last_b.on_click(lambda _: self._goto(len(m.states) - 1))
        self.jump.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.marks.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.mark_b.on_click(self._bookmark)
        self.mode.param.watch(self._mode, "value")

    # -- live: a change of the game, from any thread -------------------------------------------------
    def _notify(self) -> None:
        """The live game changed (called from whatever thread changed it): draw it on this page's own
        document, in its next tick, under its lock; at once outside a server."""
        doc = self._doc
        if doc is None or doc.session_context is None:
            self._live_changed()
            return
        if self._scheduled:
            return
        self._scheduled = True
        try:
            with set_curdoc(doc):
                pn.state.execute(self._live_changed_on_doc, schedule=True)
        except Exception:  # noqa: BLE001 - a document whose session is closing: nothing to draw
            self._scheduled = False

    def _live_changed_on_doc(self) -> None:
        self._scheduled = False
        self._live_changed()

    def _live_changed(self) -> None:
        """Take the game as it is now: a new change counter redraws the parts (their watchers); a bot
        starting or ending its thinking, the status line, the list and the seats only."""
        if not self._ready:
            self._missed = True
        m = self.model
        before = m.rev
        if m.sync() and m.rev == before and m.state is not None and self.__dict__.get("_made_game_parts"):
            self._draw_actions()
            self._draw_seats()
            self._draw_status()

    def _on_page_ready(self) -> None:
        """The browser has drawn the page. A live change drawn while it loaded never reached it (see
        ``__init__``): the status line, the refusal, the controls and the log are sent again as they are, the
        board is made anew, so the page shows the game as it is now (issue 28.2: no reload needed)."""
        self._ready = True
        if not self._missed:
            return
        self._missed = False
        self.model.sync()
        resend(self.head, ("status", "turn", "refusal", "keys", "can_download", "show_dice"))
        if self.__dict__.get("_made_game_parts") and self.model.state is not None:
            resend(self.controls, ("items", "pending", "flags", "waiting", "seats", "watch", "selected"))
            resend(self.log, ("text",))
            self.board = None
            self._draw_board()

    # -- callbacks ---------------------------------------------------------------------------------------
    def _choices(self, open_: bool) -> None:
        """The head's lists: the game systems, the system's scenarios and optional rules (with their rule),
        the sides and the bots a side may be given."""
        r = self.model.rules
        names = [s for s in systems() if s in SYSTEM_TITLES] or systems()
        self.head.set_choices([[s, SYSTEM_TITLES.get(s, s)] for s in names], scenario_pairs(r), r.default_scenario,
                              option_pairs(r), open_,
                              [[s, side_name(s)] for s in r.sides], list(r.bots()))

    def _head_action(self, msg: dict) -> None:
        """A press in the head: start a game, import a record, download the record."""
        what = msg.get("action")
        if what == "start":
            self._start(msg)
        elif what == "upload":
            self._import(msg)
        elif what == "download":
            try:
                self.head.send_record(self.model.record_json())
            except VedetteError as exc:
                self._show_refusal(str(exc))

    def _press(self, msg: dict) -> None:
        """A press in the controls (see :mod:`dashboards.play.controls`)."""
        m = self.model
        op = msg.get("op")
        if op == "do":
            self._do(msg.get("key"))
        elif op == "undo":
            m.undo()
            self.picked = self.aim = ""
        elif op == "clear":
            self._pick(None)
        elif op in ("answer", "die", "roll"):
            p = m.pending
            if p is None or msg.get("answered") != len(p.answers):
                self._show_refusal("that question was answered already: the page shows the game as it is now")
                return
            if op == "roll":
                m.roll_for_me()
                return
            req = p.request
            values = (list(req.options) if isinstance(req, Choose) else
                      [v for v, _ in req.outcomes()] if isinstance(req, ChanceRequest) else [])
            i = msg.get("index")
            if not isinstance(i, int) or not 0 <= i < len(values):
                self._show_refusal("that answer is not one of the request's")
                return
            m.answer(values[i])
        elif op == "cancel":
            m.cancel()
        elif op == "dice":
            self._dice_mode(str(msg.get("mode") or ""))
        elif op == "seat":
            m.set_seat(str(msg.get("side") or "")[:30], str(msg.get("bot") or "")[:20] or None)
        elif op in ("pause", "resume"):
            m.pause(op == "pause")
        elif op == "step":
            m.step()

    def _dice_mode(self, mode: str) -> None:
        """Computer or typed dice, from the head (before a game) or the switch beside the actions."""
        if mode not in ("computer", "typed"):
            return
        self.model.dice_mode = mode
        if self.head.dice != mode:
            self.head.dice = mode
        if self.__dict__.get("_made_game_parts"):
            self._draw_actions()

    def _system(self, event):
        """Another game system picked: a new, empty model of it (the system of a game just opened only
        changes the form's lists)."""
        m = self.model
        if event.new != m.system:
            try:
                m.use_system(event.new)
            except VedetteError as exc:
                self._show_refusal(str(exc))
                return
        self._choices(open_=True)
        self.board = None
        self.refresh()

    def _show_system(self) -> None:
        if self.head.system != self.model.system:
            self.head.system = self.model.system

    def _start(self, form: dict | None = None):
        """Start the form's game: ``scenario`` (the system's default when absent), ``chosen`` optional
        rules, ``seed`` as typed ('' = random), ``dice`` (computer or typed), ``seats`` (a bot per side)."""
        m, form = self.model, form or {}
        seed = str(form.get("seed") or "").strip()
        if seed and not (seed.isdigit() and len(seed) <= 12):
            self._show_refusal("Cannot start: the seed is a whole number (or blank for a random one)")
            return
        if form.get("dice") in ("computer", "typed"):
            self._dice_mode(form["dice"])
        chosen = tuple(str(o)[:40] for o in (form.get("chosen") or ())[:40])
        asked = form.get("seats")
        seats = {str(s)[:30]: str(b)[:20] for s, b in list(asked.items())[:4] if b} if isinstance(asked, dict) else {}
        tables = None
        pick = form.get("tables")
        if isinstance(pick, dict) and (pick.get("data") or pick.get("size")):
            try:
                data, name = decode_tables(pick)
            except ValueError as exc:
                self._show_refusal(f"Cannot start: {exc}")
                return
            up = upload_tables(m.rules, data, name)     # validated; nothing written, the name only shown
            if not up.ok:
                self._show_refusal(f"Cannot start: {up.error}")
                return
            tables = up.tables
        self.board = None
        self.picked = self.aim = ""
        try:
            gid = m.new(str(form.get("scenario") or m.rules.default_scenario)[:60], chosen,
                        int(seed) if seed else None, seats=seats, tables=tables)
        except VedetteError as exc:
            self._show_refusal(f"Cannot start: {exc}")
            return
        except StorageError as exc:
            self._show_refusal(f"Cannot save a game: {exc}")
            return
        self._remember(gid)
        self.head.form_open = False          # the form folds away once the game is shown (issue 25.2)
        self.refresh()

    def _remember(self, gid: str):
        if self.keys is None:
            return
        keys = self.store.keys(gid)
        self.keys.add(*keys.values())
        self.keys.show_url(game_link("/play", gid, keys.get(OWNER)))

    def open(self, game_id: str, key: str | None, mode: str = "play") -> None:
        self.board = None
        try:
            self.model.open(game_id, mode=mode, key=key, check_key=True)
        except (VedetteError, StorageError) as exc:
            self._show_refusal(str(exc))
            return
        if self.keys is not None and key:
            self.keys.add(key)
        self._show_system()
        self.head.form_open = False
        self.board = None
        self.refresh()

    def _do(self, key=None):
        action = self._by_key.get(key) if key else None
        if key and action is None:
            self._show_refusal("that action is no longer on the list (the game moved on): pick again")
            return
        if action is None:
            self._show_refusal("pick an action in the list first")
            return
        self.picked = self.aim = ""
        self.model.act(action)

    def _answer(self, value):
        self.model.answer(value)

    def _pick(self, place):
        m = self.model
        if self.picked and place and place != self.picked and m.mode == "play" and m.state is not None \
                and self.board is not None:
            a = self.board.action_at(m.state, self.picked, place, self._shown)
            if a is not None and is_attack(m.rules, a):  # an attack is selected, to see its odds first
                self.aim = place
                k = self._key_of(a)
                if k:
                    self.controls.selected = k
                return
            if a is not None:       # a click on a highlighted destination makes that move
                self.picked = self.aim = ""
                m.act(a)
                return
            j = self.board.attempt_at(m.state, self.picked, place)
            if j is not None:       # not a listed action: the rules say why not (nothing changes)
                try:
                    m.act(m.rules.action_from_json(j))
                except VedetteError as exc:
                    self._show_refusal(str(exc)[:200])
                return
            if place in self._targets:      # several actions lead there: the list narrows to them
                self.aim = place
                return
        with param.parameterized.batch_call_watchers(self):
            self.picked, self.aim = place or "", ""

    # -- the list, for notebooks and tests (what a press in the browser does) ----------------------------
    def listed(self) -> dict[str, Any]:
        """``{label: action}`` of the actions the list shows now."""
        by_key = self._by_key
        return {label: by_key[k] for k, label, *_ in self.controls.items if k in by_key}

    def select(self, action) -> None:
        """Select ``action`` in the list (its odds show, nothing is made)."""
        self.controls.selected = self._key_of(action) or ""

    def selected_action(self):
        return self._by_key.get(self.controls.selected)

    def _label_of(self, action) -> str | None:
        for a, _, label, _ in self._entries:
            if a == action:
                return label
        return None

    def _key_of(self, action) -> str | None:
        for a, k, _, _ in self._entries:
            if a == action:
                return k
        return None

    def _declare(self, action):
        """The action selected in the list: its odds when it is an attack, worked out from what this side
        knows (the system's ``odds_position``: engine.core.quick_odds), never from what it may not see;
        nothing is committed."""
        m = self.model
        if action is None or m.state is None or m.mode != "play" or m.pending is not None:
            self.odds.clear()
            return
        self.odds.declare(m.rules, m.state, action, seen_by=WHOLE if m.sees_all else m.viewer,
                          said=self._label_of(action))

    def _resolved(self):
        """After an action is made: the result of an attack in words (from its record event)."""
        m = self.model
        seen, self._seen = self._seen, (m.game_id, len(m.events))
        if seen[0] != m.game_id or len(m.events) != seen[1] + 1:
            if seen[0] != m.game_id:
                self.odds.forget_result()
            return
        ev = m.events[-1]
        before = m.sn.states[-2]
        if not m.sees_all:
            ev = m.rules.visible_event(before, ev, m.viewer)
            before = m.rules.view(before, m.viewer)
        try:
            action = m.rules.action_from_json(ev.get("action"))
        except VedetteError:
            return
        if is_attack(m.rules, action):
            self.odds.resolved(m.rules.describe_action(action), ev, m.rules, before)

    def _set_public(self, event):
        m = self.model
        if m.role != OWNER or not m.game_id or event.new == event.old:
            return
        if m.snap is not None and m.snap.public == bool(event.new):
            return
        m.set_public(bool(event.new))

    def show_study_game(self, link) -> None:
        """Play a study's bot game again from its link (off the event loop, within the page's budget) and
        open it read-only at its last action; a bad link or a game past the budget: a message, nothing stored."""
        from dashboards.server.background import Background
        from dashboards.play.study_replay import play_study_game
        if not hasattr(self, "_bg"):
            self._bg = Background()
            self.busy_box[:] = [self._bg.panel()]
            root = self._root
            if root is not None and not any(o is self.busy_box for o in root.objects):
                root.insert(list(root.objects).index(self.head) + 1, self.busy_box)

        def done(result):
            rec, states, cut = result
            self.board = None
            self.model.show_record(rec, states, f"Replay of the {link.describe()}: {len(rec.events)} actions"
                                   + (" (cut at the link's limit; the game went on)" if cut else "")
                                   + ". Read-only; nothing is saved.")
            self._show_system()
            self.head.form_open = False
            self.board = None
            self.refresh()

        self._bg.start(lambda: play_study_game(link), done,
                       lambda exc: self._show_refusal(f"The study game was not replayed: {str(exc)[:200]}"),
                       label=f"playing the {link.describe()} again…")

    def _import(self, msg: dict):
        m = self.model
        try:
            try:
                data = decode_upload(msg)
            except (ValueError, TypeError) as exc:
                raise VedetteError(str(exc) if "2 MB" in str(exc) else "the file did not arrive whole") from None
            rec = GameRecord.loads(data.decode("utf-8", errors="strict"), file="the imported record")
            self.board = None
            gid = m.import_record(rec, server=True)
        except UnicodeDecodeError:
            self._show_refusal("Not imported: the file is not a text (UTF-8) game record; nothing changed")
            return
        except (VedetteError, StorageError) as exc:
            self._show_refusal(f"The record was not loaded (nothing changed): {str(exc)[:240]}")
            return
        self._remember(gid)
        self._show_system()
        self.head.form_open = False
        self.board = None
        self.refresh()

    def _show_refusal(self, text: str):
        self.model.refusal = text
        self._draw_status()

    # -- what changed -> what is drawn -------------------------------------------------------------------
    def _on_game(self, *events) -> None:
        if self.model.state is not None and self.board is not None and any(e.name == "role" for e in events):
            self.board = None
        self._draw_all()

    def _on_pick(self, *_) -> None:
        if self.model.state is None:
            return
        self._draw_actions()
        self._draw_board()
        self._draw_status()

    def refresh(self, board_only: bool = False) -> None:
        """Draw every part (a new game, another system; the parts are drawn one by one on later changes)."""
        self._draw_all()

    def _draw_all(self) -> None:
        """Every part, the status line last: a page (or a test) that reads "your move" there finds the list
        and the request already drawn (each part may reach the browser in a message of its own)."""
        m = self.model
        if m.state is None:
            if self.__dict__.get("_made_game_parts"):
                self.controls.param.update(items=[], waiting="", pending={}, flags={}, seats={}, watch={})
                self.board_box[:] = []
                self._show_links()
            self._draw_status()
            return
        # the board drawn and put in its box before the box goes on the page: the page's first game then
        # reaches the browser in one message with its board (a board put in a box the browser was still
        # building was sometimes never shown)
        self._draw_board()
        self._fill_game_area()
        self._draw_actions()
        self._draw_pending()
        self._draw_seats()
        self._resolved()
        self._draw_replay()
        self._draw_log()
        self._draw_charts()
        self._show_links()
        self._draw_status()

    # -- the parts ---------------------------------------------------------------------------------------
    def _legal_entries(self) -> list[tuple[Any, str, str, Places]]:
        """(action, key, label, places) of every legal action of this page now, worked out once per change
        of the game (a pick only filters them)."""
        m = self.model
        key = (id(m.game), m.rev, m.mode, m.position, m.role, id(m.pending), m.state is None)
        if key == self._entries_key:
            return self._entries
        st = m.state
        entries: list[tuple[Any, str, str, Places]] = []
        seen: dict[str, int] = {}
        board = self.board
        for a in m.legal():
            try:
                k = f"{hash(a) & 0xFFFFFFFFFFFF:x}"
            except TypeError:                   # an action that is not hashable: its JSON names it
                k = action_key(m.rules.action_to_json(a))
            if k in seen:
                seen[k] += 1
                k = f"{k}-{seen[k]}"
            else:
                seen[k] = 0
            label = m.said(a)                    # as this page's side may know it (16.1: tokens)
            pl = board.places(m.rules, st, a) if board is not None else Places()
            entries.append((a, k, label, pl))
        self._entries_key, self._entries = key, entries
        self._by_key = {k: a for a, k, _, _ in entries}
        return entries

    def _draw_board(self) -> None:
        m = self.model
        st = m.state
        if st is None:
            return
        shown = m.shown_state()
        board = self.board
        new = False
        if board is None:
            # the board of this game and side made earlier in this same change (a page's refresh after the
            # model's own watchers drew it) is kept: a board replaced in the callback that put it on the page
            # was not shown by the browser
            want = (m.system, id(m.game), m.role)
            kept = self.__dict__.get("_kept_board")
            objs = self.board_box.objects
            if kept is not None and kept[0] == want and objs and objs[0] is kept[2]:
                board = self.board = kept[1]
            else:
                board = self.board = board_for(m.rules, shown)
                # a click comes from the board's own model: handled on the document's next tick, with its lock
                board.on_pick(lambda place: on_next_tick(self.controls, partial(self._pick, place)))
                self._entries_key = self._board_drawn = None
                new = True
        entries = self._legal_entries()
        picked = self.picked or None
        pairs = [(a, pl) for a, _, _, pl in entries]
        if picked:
            mine = [(a, pl) for a, pl in pairs if board.concerns(st, picked, pl)]
            pairs = mine or pairs
        self._shown = pairs if picked else []
        targets: set[str] = set()
        for _, pl in self._shown:
            targets |= board.targets_of(st, pl)
        self._targets = targets - {picked or ""}
        # drawn once per change: a board drawn again in the callback that made it (before the browser has
        # it) is not shown by the browser (a new game's board, then the page's own refresh)
        drawn = (id(board), id(m.game), m.rev, m.mode, m.position, picked, self.aim, id(m.pending), m.role)
        if drawn == self._board_drawn:
            return
        self._board_drawn = drawn
        board.show(shown, picked, self._targets)
        p = m.pending
        if p is not None and m.mode == "play":
            board.show_request(shown, p.request)
        if new:
            # a new board goes on the page drawn: a change of its figure's data made after it is put there,
            # in the same callback, reached the browser before the figure itself ("reference ... isn't
            # known"), and a Lines of Battle or TBF board was then never shown
            shown_panel = board.panel()
            self.board_box[:] = [shown_panel]
            self._kept_board = ((m.system, id(m.game), m.role), board, shown_panel)

    def _draw_actions(self) -> None:
        m = self.model
        if m.state is None:
            return
        entries = self._legal_entries()
        picked = self.picked or None
        shown = entries
        if picked and self.board is not None:
            mine = [e for e in entries if self.board.concerns(m.state, picked, e[3])]
            shown = mine or entries
            if self.aim:
                to = [e for e in shown if self.aim in self.board.targets_of(m.state, e[3])]
                shown = to or shown
        items = [[k, label, is_attack(m.rules, a), self._group_of(pl)] for a, k, label, pl in shown]
        sel = self.controls.selected if self.controls.selected in {k for _, k, _, _ in shown} else ""
        playing = m.mode == "play" and bool(m.role)
        can_undo = playing and bool(m.events or m.pending) and not m.broken
        waiting = self._waiting_line()
        self.controls.param.update(items=items, selected=sel, waiting=waiting,
                                   flags={"play": playing, "undo": can_undo, "dice": m.dice_mode,
                                          "undo_note": UNDO_POLICY if playing else ""})
        self._declare(self._by_key.get(sel) if sel else None)
        if playing and not waiting and m.pending is None:   # the listed attacks' odds worked out ahead (26.3)
            self.odds.ahead(m.rules, m.state, [e[0] for e in shown], seen_by=WHOLE if m.sees_all else m.viewer)

    def _group_of(self, places: Places) -> str:
        """The group of the list an action goes in (issue 25 point 3): the unit it moves or fights with,
        by the name its counter shows; several together; none: ''."""
        m = self.model
        if not places.pieces:
            return ""
        if len(places.pieces) > 1:
            return "several units together"
        try:
            return str(m.rules.piece_name(m.shown_state(), places.pieces[0]))
        except (VedetteError, KeyError, AttributeError):
            return str(places.pieces[0])

    def _draw_status(self) -> None:
        m = self.model
        st = m.state
        self.head.param.update(refusal=(f"<div class='refusal' data-state='refused'>{html.escape(m.refusal)}</div>"
                                        if m.refusal else "<div data-state='none'></div>"),
                               can_download=m.record is not None)
        if st is None:
            self.head.param.update(status=("<span class='status' data-state='no-game'>No game: start one, "
                                           "or open a saved one from the index.</span>"), turn={})
            return
        oc = m.rules.outcome(st)
        pos = m.rules.position(st)
        who = m.asked() if m.mode == "play" else m.to_act
        role = {OWNER: "you hold the owner's link (both sides)", "": "watching"}.get(m.role, f"you play {m.role}")
        mine = m.mode == "play" and oc is None and m.may_act(who) and not m.broken
        line = (f"{html.escape(self._where_line(st, pos))} · " + (f"<b>{html.escape(str(oc))}</b>" if oc else
                                                                 f"to act: <b>{html.escape(who or '')}</b>")
                + f" · {html.escape(role)}")
        if mine and m.role != OWNER:
            line = "<b class='your-move'>Your move</b> · " + line
        if m.broken:
            line += f" · <span class='broken'>read-only: {html.escape(m.broken)}</span>"
        state = "over" if oc else ("pending" if m.pending else ("replay" if m.mode == "replay" else "ready"))
        name = short_title(m.rules, m.rules.scenario_of(st))
        if oc:
            title = f"Game over — {name}"
        elif mine:
            title = f"Your move — {name}, turn {pos.turn}"
        else:
            title = f"{side_name(who)} to move — {name}, turn {pos.turn}"
        self.head.param.update(
            status=(f"<span class='status' data-state='{state}' data-events='{len(m.events)}' "
                    f"data-picked='{html.escape(self.picked or '')}' data-rev='{m.rev}' "
                    f"data-mine='{'yes' if mine else 'no'}' data-to-act='{html.escape(who or '')}' "
                    f"data-position='{m.position}'>{line}</span>"
                    + (f"<div class='message'>{html.escape(m.message)}</div>" if m.message else "")),
            turn={"title": title, "text": self._waiting_line() or "it is your move", "mine": mine})

    def _fill_game_area(self) -> None:
        """Put the game's parts on the page, once a game is shown (a page without one does not make them)."""
        root = self._root
        if root is None or self._game_area is not None:
            return
        self.head.show_dice = False                        # the dice mode moves beside the action list
        act = pn.Column(self.controls, self.odds, sizing_mode="stretch_width", css_classes=["actions-part"])
        self._game_area = [self.charts, board_and_actions(self.board_box, act),
                           pn.Column(self.mode, self.replay_row, sizing_mode="stretch_width"), self.link,
                           self.public, pn.Card(self.log, title="dice and notes", sizing_mode="stretch_width",
                                                stylesheets=[CARD_TOUCH_CSS])]
        root.extend(self._game_area)

    def __panel__(self):
        """The view's column: the page's header, the head (introduction, new-game form, dice mode before a
        game, status and refusal lines: one browser component), the busy line of a study replay while there
        is one, then the game's parts once there is a game (issue 17: a page opened without a game is two
        models besides the page's own)."""
        if self._root is not None:
            return self._root
        if self.model.has_game:
            self._choices(open_=False)      # a game shown: the form folded
        busy = [self.busy_box] if self.busy_box.objects else []
        objs = [*self.header, self.head, *busy]
        self._root = pn.Column(*objs, sizing_mode="stretch_width", css_classes=["game-play"])
        if self.model.state is not None:
            self._fill_game_area()
        return self._root

