"""The play page's view for every system on the core game protocol (issue 15).

:class:`GamePlayView` (a ``pn.viewable.Viewer``, usable inline in Jupyter too) draws a
:class:`~dashboards.components.game_play.GamePlayModel`: start or open a game, the system's board
(:mod:`dashboards.components.boards`), the legal actions of the side to act in a player's words (a pick
on the board narrows them to what that piece or place can do), the request waiting (a die to type in,
with its rule; a player's choice as buttons), refusals with their rule, undo, the dice log, replay
controls (first / previous / next / last, "action N of M", jump to a turn and phase, bookmarks), and the
record to download or import. No rules here: every question goes to the engine.
"""
from __future__ import annotations

import html
import io

import panel as pn

from engine.core.errors import VedetteError
from engine.core.game import systems
from engine.core.procedure import Choose
from engine.core.record import GameRecord

from dashboards.components.access import BrowserKeys, game_link
from dashboards.components.boards import board_for, places_of
from dashboards.components.game_play import GamePlayModel, describe_request
from dashboards.storage import OWNER, GameStore, StorageError

__all__ = ["GamePlayView", "SYSTEM_TITLES"]

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
        self.model = m = GamePlayModel(self.store, system=system)
        self.board = None
        self.picked: str | None = None
        w = pn.widgets
        names = [s for s in systems() if s in SYSTEM_TITLES] or systems()
        self.system_pick = w.Select(name="game", options={SYSTEM_TITLES.get(s, s): s for s in names}, value=system,
                                    width=330, css_classes=["system-select"])
        self.scenario = w.Select(name="scenario", options=list(m.rules.scenarios()),
                                 value=m.rules.default_scenario, width=200, css_classes=["scenario-select"])
        self.options = w.MultiChoice(name="optional rules and variants", options=list(m.rules.options()), width=330)
        self.seed = w.IntInput(name="seed (blank = random)", value=None, width=150, css_classes=["seed-input"])
        self.start_b = w.Button(name="Start a new game", button_type="primary", css_classes=["start-game"])
        self.dice = w.RadioButtonGroup(options={"computer rolls": "computer", "I type the dice in": "typed"},
                                       value="computer", css_classes=["dice-mode"])
        self.actions = w.Select(name="legal actions", options={}, size=12, width=520, css_classes=["action-list"])
        self.do_b = w.Button(name="Do it", button_type="success", css_classes=["do-action"], width=120)
        self.undo_b = w.Button(name="Undo", css_classes=["undo"], width=100)
        self.clear_b = w.Button(name="show every action", css_classes=["clear-pick"], width=160)
        self.status = pn.pane.HTML("", stylesheets=[CSS], css_classes=["status-line"], sizing_mode="stretch_width")
        self.refusal = pn.pane.HTML("", stylesheets=[CSS], css_classes=["refusal-box"], sizing_mode="stretch_width")
        self.pending = pn.Column(css_classes=["pending"], sizing_mode="stretch_width")
        self.board_box = pn.Column(sizing_mode="stretch_width", css_classes=["board-box"])
        self.log = pn.pane.HTML("", stylesheets=[CSS], css_classes=["dice-log"], sizing_mode="stretch_width")
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
        self.download = w.FileDownload(label="download the record (JSON)", filename="game.json",
                                       callback=lambda: io.StringIO(m.record_json()), width=240)
        self.upload = w.FileInput(accept=".json", name="import a record", css_classes=["import-record"])
        self.link = pn.pane.HTML("", css_classes=["game-links"], sizing_mode="stretch_width")

        self.system_pick.param.watch(self._system, "value")
        self.start_b.on_click(self._start)
        self.do_b.on_click(self._do)
        self.undo_b.on_click(lambda _: (m.undo(), self.refresh()))
        self.clear_b.on_click(lambda _: self._pick(None))
        self.dice.param.watch(lambda e: setattr(m, "dice_mode", e.new), "value")
        self.first_b.on_click(lambda _: self._goto(0))
        self.prev_b.on_click(lambda _: self._goto(m.position - 1))
        self.next_b.on_click(lambda _: self._goto(m.position + 1))
        self.last_b.on_click(lambda _: self._goto(len(m.states) - 1))
        self.jump.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.marks.param.watch(lambda e: e.new is not None and self._goto(e.new), "value")
        self.mark_b.on_click(self._bookmark)
        self.mode.param.watch(self._mode, "value")
        self.upload.param.watch(self._import, "value")
        self.refresh()

    # -- callbacks ---------------------------------------------------------------------------------------
    def _system(self, event):
        m = self.model
        try:
            m.use_system(event.new)
        except VedetteError as exc:
            self._show_refusal(str(exc))
            return
        self.scenario.options = list(m.rules.scenarios())
        self.scenario.value = m.rules.default_scenario
        self.options.options, self.options.value = list(m.rules.options()), []
        self.board = None
        self.refresh()

    def _start(self, _=None):
        m = self.model
        try:
            gid = m.new(self.scenario.value, tuple(self.options.value), self.seed.value)
        except VedetteError as exc:
            self._show_refusal(f"Cannot start: {exc}")
            return
        except StorageError as exc:
            self._show_refusal(f"Cannot save a game: {exc}")
            return
        self._remember(gid)
        self.board = None
        self.picked = None
        self.refresh()

    def _remember(self, gid: str):
        if self.keys is None:
            return
        keys = self.store.keys(gid)
        self.keys.add(*keys.values())
        self.keys.show_url(game_link("/play", gid, keys.get(OWNER)) + f"&system={self.model.system}")

    def open(self, game_id: str, key: str | None, mode: str = "play") -> None:
        try:
            self.model.open(game_id, mode=mode, key=key, check_key=True)
        except (VedetteError, StorageError) as exc:
            self._show_refusal(str(exc))
            return
        if self.keys is not None and key:
            self.keys.add(key)
        self.system_pick.param.update(value=self.model.system) if self.system_pick.value != self.model.system else None
        self.board = None
        self.refresh()

    def _do(self, _=None):
        a = self.actions.value
        if a is None:
            self._show_refusal("pick an action in the list first")
            return
        self.model.act(a)
        self.picked = None
        self.refresh()

    def _answer(self, value):
        self.model.answer(value)
        self.refresh()

    def _pick(self, place):
        self.picked = place
        self.refresh(board_only=False)

    def _goto(self, i):
        self.model.goto(i)
        self.refresh()

    def _mode(self, event):
        m = self.model
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

    def _import(self, event):
        if not event.new:
            return
        m = self.model
        try:
            if len(event.new) > 2_000_000:
                raise VedetteError("the record is larger than 2 MB")
            rec = GameRecord.loads(event.new.decode("utf-8", errors="strict"), file="the imported record")
            gid = m.import_record(rec, server=True)
        except UnicodeDecodeError:
            self._show_refusal("Not imported: the file is not a text (UTF-8) game record; nothing changed")
            return
        except (VedetteError, StorageError) as exc:
            self._show_refusal(f"Not imported, nothing changed: {str(exc)[:240]}")
            return
        self._remember(gid)
        self.system_pick.value = m.system
        self.board = None
        self.refresh()

    def _show_refusal(self, text: str):
        self.model.refusal = text
        self.refusal.object = f"<div class='refusal' data-state='refused'>{html.escape(text)}</div>"

    # -- drawing -------------------------------------------------------------------------------------------
    def refresh(self, board_only: bool = False):
        m = self.model
        st = m.state
        self.refusal.object = (f"<div class='refusal' data-state='refused'>{html.escape(m.refusal)}</div>"
                               if m.refusal else "<div data-state='none'></div>")
        if st is None:
            self.status.object = "<span data-state='no-game'>Start a new game, or open a saved one from the index.</span>"
            self.actions.options = {}
            self.board_box[:] = []
            return
        if self.board is None:
            self.board = board_for(m.rules, st)
            self.board.on_pick(self._pick)
            self.board_box[:] = [self.board.panel()]
        legal = m.legal()
        shown = legal
        if self.picked:
            near = {self.picked} | self.board.pieces_at(st, self.picked)
            shown = [a for a in legal if places_of(m.rules.action_to_json(a)) & near] or legal
        targets = set()
        for a in shown if self.picked else []:
            targets |= places_of(m.rules.action_to_json(a))
        self.board.show(st, self.picked, targets - {self.picked})
        opts = {}
        for a in shown:
            label = m.rules.describe_action(a)
            while label in opts:
                label += " "
            opts[label] = a
        self.actions.options = opts
        oc = m.rules.outcome(st)
        pos = m.rules.position(st)
        who = m.to_act
        role = {OWNER: "you hold the owner's link (both sides)", "": "watching"}.get(m.role, f"you play {m.role}")
        line = (f"{html.escape(str(pos))} · " + (f"<b>{html.escape(str(oc))}</b>" if oc else
                                                  f"to act: <b>{html.escape(who or '')}</b>")
                + f" · {html.escape(role)}")
        if m.broken:
            line += f" · <span class='broken'>read-only: {html.escape(m.broken)}</span>"
        state = "over" if oc else ("pending" if m.pending else ("replay" if m.mode == "replay" else "ready"))
        self.status.object = (f"<span data-state='{state}' data-events='{len(m.events)}' "
                              f"data-position='{m.position}'>{line}</span>"
                              + (f"<div class='message'>{html.escape(m.message)}</div>" if m.message else ""))
        self._draw_pending()
        n = len(m.states) - 1
        self.where.object = f"<span class='replay-at' data-position='{m.position}'>action {m.position} of {n}</span>"
        self.jump.options = {label: i for i, label in m.step_positions()}
        self.marks.options = {f"{label} (action {p})": p for p, label in m.bookmarks()}
        rows = m.log()[-60:]
        self.log.object = ("<table class='dice-log'><tr><th>#</th><th>action</th><th>rule</th><th>what</th>"
                           "<th>value</th><th>detail</th></tr>" + "".join(
                               f"<tr><td>{r['#']}</td><td>{html.escape(r['action'][:60])}</td><td>{html.escape(r['rule'])}</td>"
                               f"<td>{html.escape(r['label'] or r['what'])}</td><td>{html.escape(r['value'][:40])}</td>"
                               f"<td>{html.escape(r['detail'][:60])}</td></tr>" for r in rows) + "</table>")
        if m.game_id and m.role == OWNER:
            keys = self.store.keys(m.game_id)
            links = " · ".join(f"<a href='{html.escape(game_link('/play', m.game_id, k))}&system={m.system}'>"
                               f"{html.escape(r)}'s link</a>" for r, k in keys.items() if r != OWNER)
            self.link.object = f"<small>Send each player their side's link: {links}</small>"

    def _draw_pending(self):
        m = self.model
        p = m.pending
        if p is None:
            self.pending[:] = []
            return
        req = p.request
        head = pn.pane.HTML(f"<div class='pending-request' data-rule='{html.escape(req.rule)}'>"
                            f"Waiting: {html.escape(describe_request(req))}</div>", sizing_mode="stretch_width")
        if isinstance(req, Choose):
            buttons = []
            for o in req.options[:24]:
                b = pn.widgets.Button(name=str(o)[:60], css_classes=["choice"])
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

    def __panel__(self):
        setup = pn.Card(pn.Row(self.system_pick, self.scenario, self.options, self.seed, self.start_b),
                        pn.Row(self.upload, self.download), title="New game, import, download",
                        sizing_mode="stretch_width", collapsed=self.model.has_game)
        act = pn.Column(self.dice, self.pending, self.actions, pn.Row(self.do_b, self.undo_b, self.clear_b), width=540)
        replay = pn.Column(self.mode, pn.Row(self.first_b, self.prev_b, self.where, self.next_b, self.last_b),
                           pn.Row(self.jump, self.marks), pn.Row(self.mark_name, self.mark_b))
        return pn.Column(setup, self.status, self.refusal, pn.Row(self.board_box, act, sizing_mode="stretch_width"),
                         replay, self.link, pn.Card(self.log, title="dice and notes", sizing_mode="stretch_width"),
                         sizing_mode="stretch_width", css_classes=["game-play"])
