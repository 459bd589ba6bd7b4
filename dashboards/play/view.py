"""The play page's view for every system on the core game protocol (issue 15).

:class:`GamePlayView` (a ``pn.viewable.Viewer``, usable inline in Jupyter too) draws a
:class:`~dashboards.play.model.GamePlayModel`: start or open a game, the system's board
(:mod:`dashboards.play.boards`), the legal actions of the side to act in a player's words (a pick
on the board narrows them to what that piece or place can do), the request waiting (a die to type in,
with its rule; a player's choice as buttons), refusals with their rule, undo, the dice log, replay
controls (first / previous / next / last, "action N of M", jump to a turn and phase, bookmarks), and the
record to download or import. No rules here: every question goes to the engine.
"""
from __future__ import annotations

import html

import panel as pn

from engine.core.errors import VedetteError
from engine.core.game import systems
from engine.core.procedure import Choose
from engine.core.record import GameRecord

from dashboards.server.access import BrowserKeys, game_link
from dashboards.play.action_odds import ActionOddsView
from dashboards.play.boards import board_for, places_of
from dashboards.play.model import LOG_CSS, GamePlayModel, describe_request, log_html
from dashboards.common.rule_notes import rule_note_for
from dashboards.common.layout import columns
from dashboards.play.head import PlayHead, decode_upload
from dashboards.server.storage import OWNER, GameStore, StorageError

__all__ = ["GamePlayView", "SYSTEM_TITLES"]


def _is_attack(rules, action) -> bool:
    """Whether the system calls ``action`` an attack (its odds are shown before it is made)."""
    check = getattr(rules, "is_attack", None)
    return bool(check and check(action))

SYSTEM_TITLES = {"n20": "Napoleonic 20 (Fuentes de Oñoro, Bussaco)", "lob": "Lines of Battle (Albuera 1811)",
                 "tbf": "These Brave Fellows (Dürenstein 1805)", "bc": "Battle Commander (demonstration battle)"}

CSS = """
.status-line {font-size:14px;font-weight:600;color:#2f4f6f}
.refusal {color:#b71c1c;font-weight:600}
table.dice-log {border-collapse:collapse;font-size:12px;width:100%}
table.dice-log td, table.dice-log th {border-bottom:1px solid #e0e0e0;padding:1px 5px;text-align:left}
"""


class GamePlayView(pn.viewable.Viewer):
    """One session's play page for ``system``."""

    def __init__(self, system: str = "lob", store: GameStore | None = None, keys: BrowserKeys | None = None,
                 **params):
        super().__init__(**params)
        self.store = store or GameStore()
        self.keys = keys
        self.model = m = GamePlayModel(self.store, system=system, server=keys is not None)
        self.board = None
        self.picked: str | None = None
        # the new-game form, the dice mode before a game, the status and refusal lines and the browser's
        # keys in one browser component (issue 17.1: about twenty Panel widgets' server time before)
        self.head = PlayHead(system=system, dice=m.dice_mode, keys=keys.value if keys is not None else "",
                             sizing_mode="stretch_width", css_classes=["play-head-box"])
        self._choices(open_=True)
        self.busy_box = pn.Column(sizing_mode="stretch_width", css_classes=["replay-busy"])
        self._shown: list = []       # the (action, json) pairs listed now (a click on the board may make one)
        self.aim: str | None = None  # a highlighted place clicked with a piece picked: the list narrows to it
        self._targets: set = set()   # the places highlighted now
        self.header: list = []        # what a page puts above the view (its intro), in the view's column
        self._root = None             # the view's column, once shown
        self._game_area = None        # the board, actions, odds, replay, links and log: made with a game
        self._seen = ("", -1)         # (game, events) last drawn: one more event is an action just resolved

        h = self.head
        h.param.watch(self._system, "system")
        h.param.watch(lambda e: self._dice_mode(e.new), "dice")
        h.on_action = self._head_action
        if keys is not None:
            keys.on_change(lambda v: setattr(h, "keys", v))
        self.refresh()

    #: the widgets of a game (actions, odds, replay, links, log), made with the first game shown or on first
    #: use: a page opened without a game does not pay for them (issue 17)
    _GAME_PARTS = frozenset({"dice", "actions", "do_b", "undo_b", "clear_b", "pending", "board_box", "log", "first_b",
                             "prev_b", "next_b", "last_b", "where", "jump", "marks", "mark_name", "mark_b", "mode",
                             "link", "act_box", "replay_row", "public", "odds"})

    def __getattr__(self, name):
        if name in GamePlayView._GAME_PARTS and not self.__dict__.get("_made_game_parts"):
            self._make_game_parts()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _make_game_parts(self) -> None:
        self.__dict__["_made_game_parts"] = True
        m, w = self.model, pn.widgets
        self.dice = w.RadioButtonGroup(options={"computer rolls": "computer", "I type the dice in": "typed"},
                                       value=m.dice_mode, css_classes=["dice-mode"])
        self.dice.param.watch(lambda e: self._dice_mode(e.new), "value")
        self.actions = w.Select(name="legal actions", options={}, size=12, width=520, css_classes=["action-list"])
        self.do_b = w.Button(name="Do it", button_type="success", css_classes=["do-action"], width=120)
        self.undo_b = w.Button(name="Undo", css_classes=["undo"], width=100)
        self.clear_b = w.Button(name="show every action", css_classes=["clear-pick"], width=160)
        self.pending = pn.Column(css_classes=["pending"], sizing_mode="stretch_width")
        self.board_box = pn.Column(sizing_mode="stretch_width", css_classes=["board-box"])
        self.log = pn.pane.HTML("", stylesheets=[LOG_CSS], css_classes=["dice-log"], sizing_mode="stretch_width")
        # replay
        self.first_b, self.prev_b = w.Button(name="⏮ first", width=80), w.Button(name="◀ previous", width=100)
        self.next_b, self.last_b = w.Button(name="next ▶", width=90), w.Button(name="last ⏭", width=80)
        self.where = pn.pane.HTML("", css_classes=["replay-position"])
        self.jump = w.Select(name="jump to", options={}, width=260, css_classes=["jump-to"])
        self.marks = w.Select(name="bookmarks", options={}, width=220, css_classes=["bookmarks"])
        self.mark_name = w.TextInput(name="bookmark this position", placeholder="a name", width=200)
        self.mark_b = w.Button(name="add bookmark", width=120)
        self.mode = w.RadioButtonGroup(options={"play": "play", "replay": "replay"}, value="play",
                                       css_classes=["play-mode"])
        self.link = pn.pane.HTML("", css_classes=["game-links"], sizing_mode="stretch_width")
        self.act_box = pn.Column(self.actions, pn.Row(self.do_b, self.undo_b, self.clear_b), css_classes=["play-controls"])
        # filled the first time replay mode is shown (most sessions never open it: issue 17)
        self.replay_row = pn.Column(css_classes=["replay-controls"], visible=False)
        self.public = w.Checkbox(name="public: anyone may watch and replay this game (read-only)", visible=False,
                                 css_classes=["public-toggle"])
        self.public.param.watch(self._set_public, "value")
        self.odds = ActionOddsView()  # the exact odds of the attack selected in the list (issue 15.2)
        self.actions.param.watch(lambda e: self._declare(e.new), "value")
        self.do_b.on_click(self._do)
        self.undo_b.on_click(lambda _: (m.undo(), self.refresh()))
        self.clear_b.on_click(lambda _: self._pick(None))
        self.first_b.on_click(lambda _: self._goto(0))
        self.prev_b.on_click(lambda _: self._goto(m.position - 1))
        self.next_b.on_click(lambda _: self._goto(m.position + 1))
        self.last_b.on_click(lambda _: self._goto(len(m.states) - 1))
        self.jump.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.marks.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.mark_b.on_click(self._bookmark)
        self.mode.param.watch(self._mode, "value")

    # -- callbacks ---------------------------------------------------------------------------------------
    def _choices(self, open_: bool) -> None:
        """The head's lists: the game systems, the system's scenarios and optional rules (with their rule)."""
        r = self.model.rules
        names = [s for s in systems() if s in SYSTEM_TITLES] or systems()
        self.head.set_choices([[s, SYSTEM_TITLES.get(s, s)] for s in names], _scenario_pairs(r), r.default_scenario,
                              [[k, str(v)] for k, v in r.options().items()], open_)

    def _head_action(self, msg: dict) -> None:
        """A press in the head: start a game, import a record, download the record."""
        what = msg.get("action")
        if what == "start":
            self._start(msg)
        elif what == "upload":
            self._import(msg)
        elif what == "download":
            self.head.send_record(self.model.record_json())

    def _dice_mode(self, mode: str) -> None:
        """Computer or typed dice, from the head (before a game) or the switch beside the actions."""
        self.model.dice_mode = mode
        if self.head.dice != mode:
            self.head.dice = mode
        if self.__dict__.get("_made_game_parts") and self.dice.value != mode:
            self.dice.value = mode

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
        rules, ``seed`` as typed ('' = random), ``dice`` (computer or typed)."""
        m, form = self.model, form or {}
        seed = str(form.get("seed") or "").strip()
        if seed and not (seed.isdigit() and len(seed) <= 12):
            self._show_refusal("Cannot start: the seed is a whole number (or blank for a random one)")
            return
        if form.get("dice") in ("computer", "typed"):
            self._dice_mode(form["dice"])
        chosen = tuple(str(o)[:40] for o in (form.get("chosen") or ())[:40])
        try:
            gid = m.new(str(form.get("scenario") or m.rules.default_scenario)[:60], chosen, int(seed) if seed else None)
        except VedetteError as exc:
            self._show_refusal(f"Cannot start: {exc}")
            return
        except StorageError as exc:
            self._show_refusal(f"Cannot save a game: {exc}")
            return
        self._remember(gid)
        self.board = None
        self.picked = self.aim = None
        self.refresh()

    def _remember(self, gid: str):
        if self.keys is None:
            return
        keys = self.store.keys(gid)
        self.keys.add(*keys.values())
        self.keys.show_url(game_link("/play", gid, keys.get(OWNER)))

    def open(self, game_id: str, key: str | None, mode: str = "play") -> None:
        try:
            self.model.open(game_id, mode=mode, key=key, check_key=True)
        except (VedetteError, StorageError) as exc:
            self._show_refusal(str(exc))
            return
        if self.keys is not None and key:
            self.keys.add(key)
        self._show_system()
        self.board = None
        self.refresh()

    def _do(self, _=None):
        a = self.actions.value
        if a is None:
            self._show_refusal("pick an action in the list first")
            return
        self.model.act(a)
        self.picked = self.aim = None
        self.refresh()

    def _answer(self, value):
        self.model.answer(value)
        self.refresh()

    def _pick(self, place):
        m = self.model
        if self.picked and place and place != self.picked and m.mode == "play" and m.state is not None:
            a = self.board.action_at(m.state, self.picked, place, self._shown)
            if a is not None and _is_attack(m.rules, a):  # an attack is selected, to see its odds first
                self.aim = place
                self.refresh()
                if a in self.actions.options.values():
                    self.actions.value = a
                return
            if a is not None:       # a click on a highlighted destination makes that move
                m.act(a)
                self.picked = self.aim = None
                self.refresh()
                return
            j = self.board.attempt_at(m.state, self.picked, place)
            if j is not None:       # not a listed action: the rules say why not (nothing changes)
                try:
                    m.act(m.rules.action_from_json(j))
                except VedetteError as exc:
                    self._show_refusal(str(exc)[:200])
                self.refresh()
                return
            if place in self._targets:      # several actions lead there: the list narrows to them
                self.aim = place
                self.refresh()
                return
        self.picked, self.aim = place, None
        self.refresh(board_only=False)

    def _declare(self, action):
        """The action selected in the list: its odds when it is an attack (nothing is committed)."""
        m = self.model
        if m.state is None or m.mode != "play" or m.pending is not None:
            self.odds.clear()
            return
        self.odds.declare(m.rules, m.state, action)

    def _resolved(self):
        """After an action is made: the result of an attack in words (from its record event)."""
        m = self.model
        seen, self._seen = self._seen, (m.game_id, len(m.events))
        if seen[0] != m.game_id or len(m.events) != seen[1] + 1:
            if seen[0] != m.game_id:
                self.odds.forget_result()
            return
        ev = m.events[-1]
        try:
            action = m.rules.action_from_json(ev.get("action"))
        except VedetteError:
            return
        if _is_attack(m.rules, action):
            self.odds.resolved(m.rules.describe_action(action), ev)

    def _set_public(self, event):
        m = self.model
        if m.role != OWNER or not m.game_id or event.new == event.old:
            return
        try:
            self.store.set_public(m.game_id, bool(event.new))
        except StorageError as exc:
            self._show_refusal(str(exc)[:200])
            return
        m.message = ("This game is now public: anyone may watch and replay it." if event.new
                     else "This game is now private: only its links open it.")
        self.refresh()

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
            self.board = None
            self.refresh()

        self._bg.start(lambda: play_study_game(link), done,
                       lambda exc: self._show_refusal(f"The study game was not replayed: {str(exc)[:200]}"),
                       label=f"playing the {link.describe()} again…")

    def _goto(self, i):
        self.model.goto(i)
        self.refresh()

    def _mode(self, event):
        m = self.model
        if event.new == m.mode:
            return
        if event.new == "play" and (m.broken or not m.role):
            self._show_refusal(m.broken or "this link lets you watch and replay this game only")
            self.mode.value = "replay"
            return
        m.mode = event.new
        m.position = len(m.states) - 1 if event.new == "play" else m.position
        self.refresh()

    def _bookmark(self, _=None):
        try:
            self.model.add_bookmark(self.mark_name.value or "")
        except (VedetteError, StorageError, ValueError) as exc:
            self._show_refusal(str(exc)[:200])
        self.refresh()

    def _import(self, msg: dict):
        m = self.model
        try:
            try:
                data = decode_upload(msg)
            except (ValueError, TypeError) as exc:
                raise VedetteError(str(exc) if "2 MB" in str(exc) else "the file did not arrive whole") from None
            rec = GameRecord.loads(data.decode("utf-8", errors="strict"), file="the imported record")
            gid = m.import_record(rec, server=True)
        except UnicodeDecodeError:
            self._show_refusal("Not imported: the file is not a text (UTF-8) game record; nothing changed")
            return
        except (VedetteError, StorageError) as exc:
            self._show_refusal(f"The record was not loaded (nothing changed): {str(exc)[:240]}")
            return
        self._remember(gid)
        self._show_system()
        self.board = None
        self.refresh()

    def _show_refusal(self, text: str):
        self.model.refusal = text
        self.head.refusal = f"<div class='refusal' data-state='refused'>{html.escape(text)}</div>"

    # -- drawing -------------------------------------------------------------------------------------------
    def refresh(self, board_only: bool = False):
        m = self.model
        st = m.state
        self.head.param.update(refusal=(f"<div class='refusal' data-state='refused'>{html.escape(m.refusal)}</div>"
                                        if m.refusal else "<div data-state='none'></div>"), can_download=m.record is not None)
        if st is None:
            self.head.status = ("<span class='status' data-state='no-game'>No game: start one, "
                                  "or open a saved one from the index.</span>")
            if self.__dict__.get("_made_game_parts"):
                self.actions.options = {}
                self.board_box[:] = []
                self._show_links()
            return
        self._fill_game_area()
        if self.board is None:
            self.board = board_for(m.rules, st)
            self.board.on_pick(self._pick)
            self.board_box[:] = [self.board.panel()]
        legal = [(a, m.rules.action_to_json(a)) for a in m.legal()]
        pairs = legal
        if self.picked:
            pairs = [(a, j) for a, j in legal if self.board.concerns(st, self.picked, j)] or legal
        self._shown = pairs if self.picked else []
        shown = [a for a, _ in pairs]
        targets = set()
        for _, j in pairs if self.picked else []:
            targets |= self.board.targets_of(st, j)
        self._targets = targets - {self.picked}
        if self.picked and self.aim:      # a highlighted place clicked: only what leads there is listed
            shown = [a for a, j in pairs if self.aim in self.board.targets_of(st, j)] or shown
        self.board.show(st, self.picked, targets - {self.picked})
        opts = {}
        for a in shown:
            label = m.rules.describe_action(a)
            while label in opts:
                label += " "
            opts[label] = a
        self.actions.options = opts
        self._declare(self.actions.value)
        self._resolved()
        oc = m.rules.outcome(st)
        pos = m.rules.position(st)
        who = m.to_act
        role = {OWNER: "you hold the owner's link (both sides)", "": "watching"}.get(m.role, f"you play {m.role}")
        line = (f"{html.escape(self._where_line(st, pos))} · " + (f"<b>{html.escape(str(oc))}</b>" if oc else
                                                                 f"to act: <b>{html.escape(who or '')}</b>")
                + f" · {html.escape(role)}")
        if m.broken:
            line += f" · <span class='broken'>read-only: {html.escape(m.broken)}</span>"
        state = "over" if oc else ("pending" if m.pending else ("replay" if m.mode == "replay" else "ready"))
        self.head.status = (f"<span class='status' data-state='{state}' data-events='{len(m.events)}' "
                              f"data-picked='{html.escape(self.picked or '')}' "
                              f"data-position='{m.position}'>{line}</span>"
                              + (f"<div class='message'>{html.escape(m.message)}</div>" if m.message else ""))
        self._draw_pending()
        n = len(m.states) - 1
        self.where.object = f"<span class='replay-at' data-position='{m.position}'>action {m.position} of {n}</span>"
        # a first entry that goes nowhere: picking the first turn or bookmark is a change, so it jumps
        self.jump.options = {"(choose a turn and phase)": None} | {label: i for i, label in m.step_positions()}
        self.marks.options = {"(choose a bookmark)": None} | {f"{label} (action {p})": p for p, label in m.bookmarks()}
        self.jump.value = self.marks.value = None
        self.act_box.visible = m.mode == "play" and bool(m.role)
        if m.mode == "replay" and not self.replay_row.objects:
            self.replay_row[:] = [pn.Row(self.first_b, self.prev_b, self.where, self.next_b, self.last_b),
                                  pn.Row(self.jump, self.marks), pn.Row(self.mark_name, self.mark_b)]
        self.replay_row.visible = m.mode == "replay"
        if self.mode.value != m.mode:
            self.mode.value = m.mode
        rows = m.log()[-60:]
        self.log.object = log_html(rows, rule_note_for(m.system))   # each rule with its reminder on hover
        self._show_links()

    def _where_line(self, st, pos) -> str:
        """Turn, its date where the scenario gives one, phase, and each side's morale where it is a number
        (e.g. 'Turn 1 · 26 Sep, Morning · phase: movement · morale allied 7, french 6')."""
        try:
            summary = self.model.rules.state_summary(st)
        except VedetteError:
            summary = {}
        summary = summary if isinstance(summary, dict) else {}
        label = summary.get("turn_label")
        morale = summary.get("morale")
        out = f"Turn {pos.turn}" + (f" · {label}" if isinstance(label, str) and label else "")
        out += f" · phase: {pos.phase}" if pos.phase else ""
        if isinstance(morale, dict) and morale and all(isinstance(v, int) for v in morale.values()):
            out += " · morale " + ", ".join(f"{k} {v}" for k, v in morale.items())
        return out

    def _show_links(self):
        """The game's links: the owner sees every side's link to hand out (and may make the game public);
        a side's player sees which side they play; a watcher, that the game is read-only."""
        m = self.model
        if not m.game_id:
            self.link.object = ("<b>Watching</b> a game that is not saved: read-only (replay only)."
                                if m.has_game else "")
            self.public.visible = False
            return
        if m.role == OWNER:
            keys = self.store.keys(m.game_id)
            items = "".join(f"<li>{html.escape(r)}: <a class='link-{html.escape(r)}' "
                            f"href='{html.escape(game_link('/play', m.game_id, k))}'>"
                            f"{html.escape(game_link('/play', m.game_id, k))}</a></li>" for r, k in keys.items())
            self.link.object = ("<b>Links to this game</b> (keep the owner's link; send each player their side's "
                                f"link; anyone with a link plays that side):<ul>{items}</ul>")
            try:
                public = self.store.load(m.game_id).public
            except (KeyError, VedetteError):
                public = False
            if self.public.value != public:
                self.public.param.update(value=public)
            self.public.visible = True
        else:
            self.link.object = (f"You play the <b>{html.escape(m.role)}</b> side of this game." if m.role else
                                "<b>Watching</b>: this public game is read-only for you (replay only).")
            self.public.visible = False

    def _draw_pending(self):
        m = self.model
        p = m.pending
        if p is None:
            self.pending[:] = []
            return
        req = p.request
        head = pn.pane.HTML(f"<div class='pending-request' data-rule='{html.escape(req.rule)}' "
                            f"data-answered='{len(p.answers)}' data-kind='{html.escape(req.kind)}'>"
                            f"Waiting: {html.escape(describe_request(req))}</div>", sizing_mode="stretch_width")
        if self.board is not None:
            self.board.show_request(m.state, req)
        if isinstance(req, Choose):
            buttons = []
            for o in req.options[:24]:
                said = {True: "yes", False: "no"}.get(o, str(o)) if isinstance(o, bool) else str(o)
                b = pn.widgets.Button(name=said[:60], css_classes=["choice"])
                b.on_click(lambda _, o=o: self._answer(o))
                buttons.append(b)
            self.pending[:] = [head, pn.FlexBox(*buttons)]
            return
        faces = [v for v, _ in req.outcomes()]
        die = pn.widgets.Select(name="the die shows", options=faces, width=120, css_classes=["typed-die"])
        ok = pn.widgets.Button(name="enter", button_type="primary", css_classes=["enter-die"], width=90)
        ok.on_click(lambda _: self._answer(die.value))
        roll = pn.widgets.Button(name="let the computer roll", width=170)
        roll.on_click(lambda _: (m.roll_for_me(), self.refresh()))
        cancel = pn.widgets.Button(name="cancel the action", width=150)
        cancel.on_click(lambda _: (m.cancel(), self.refresh()))
        self.pending[:] = [head, pn.Row(die, ok, roll, cancel)]

    def _fill_game_area(self) -> None:
        """Put the game's parts on the page, once a game is shown (a page without one does not make them)."""
        root = self._root
        if root is None or self._game_area is not None:
            return
        self.head.show_dice = False                        # the dice mode moves beside the action list
        act = pn.Column(self.dice, self.pending, self.act_box, self.odds, width=540)
        self._game_area = [columns(self.board_box, act, basis=540), pn.Column(self.mode, self.replay_row), self.link,
                           self.public, pn.Card(self.log, title="dice and notes", sizing_mode="stretch_width")]
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


def _scenario_pairs(rules) -> list[list[str]]:
    """[id, title] of each scenario of ``rules``, for the head's scenario list."""
    return [[k, f"{v} ({k})" if v and v != k else k] for k, v in rules.scenarios().items()]
