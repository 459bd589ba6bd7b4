"""The play page's lines about the game: why this page has nothing to do now, the request waiting and
its options, the seats and the watch controls, the turn and phase line, the game's links, the charts it
plays with and the dice log. A part of :class:`~dashboards.play.view.GamePlayView`."""
from __future__ import annotations

import html
from typing import Any

import panel as pn

from engine.core.errors import VedetteError
from engine.core.procedure import ChanceRequest, Choose, Roll
from engine.core.tables import charts_summary, rules_for

from dashboards.common.provenance import badge_html
from dashboards.common.rule_notes import rule_note_for
from dashboards.play.controls import GameControls
from dashboards.play.model import GamePlayModel, describe_request, log_html
from dashboards.play.page_words import option_words, side_name
from dashboards.server.access import game_link
from dashboards.server.storage import OWNER, GameStore

__all__ = ["StatusParts"]


class StatusParts:
    """The lines of the play page's view that say where the game stands and who may do what."""

    model: GamePlayModel
    store: GameStore
    controls: GameControls
    link: pn.pane.HTML
    public: pn.widgets.Checkbox
    charts: pn.pane.HTML
    log: pn.pane.HTML
    _charts_of: tuple | None

    def _waiting_line(self) -> str:
        """Why this page has nothing to do now, in a player's words ('' when it has)."""
        m = self.model
        st = m.state
        if st is None:
            return ""
        if m.mode != "play":
            return "Replay: switch to play to make moves." if m.role else "Watching: this link is read-only (replay)."
        oc = m.rules.outcome(m.sn.states[-1])
        if oc is not None:
            return f"The game is over: {oc}."
        if m.broken:
            return f"This saved game is read-only: {m.broken}"
        who = m.asked()
        snap = m.sn
        if snap.thinking:
            return f"The {snap.seats.get(snap.thinking, '')} bot is making the {side_name(snap.thinking)} move…"
        p = m.pending
        if p is not None:
            if m.may_act(who):
                return ""
            if who and snap.seats.get(who):
                return f"Waiting for the {snap.seats[who]} bot ({side_name(who)}): {describe_request(p.request)}"
            return f"Waiting for the {side_name(who)} player: {describe_request(p.request)}"
        if m.may_act(who):
            return ""
        if not m.role:
            return f"Watching: {side_name(who)} to act."
        phase = m.rules.position(st).phase
        if who and snap.seats.get(who):
            return f"Waiting for the {snap.seats[who]} bot playing {side_name(who)}" + (f": {phase} phase" if phase else "")
        return f"Waiting for the {side_name(who)} player" + (f": {phase} phase" if phase else "")

    def _draw_pending(self) -> None:
        m = self.model
        p = m.pending
        if p is None or m.mode != "play":
            self.controls.pending = {}
            return
        req = p.request
        if req is None:
            self.controls.pending = {}
            return
        who = m.asked()
        mine = m.may_act(who)
        # the other side's question is said without its labels when the game hides things (they may name
        # a hidden piece): who is asked, and the rule
        text = describe_request(req) if mine or m.sees_all else (
            f"{side_name(who)}: {'a choice' if isinstance(req, Choose) else 'a die or a card'} (rule {req.rule})")
        out: dict[str, Any] = {"rule": req.rule, "kind": req.kind, "answered": len(p.answers), "mine": mine,
                               "text": text}
        if mine:
            if isinstance(req, Choose):
                st = p.before
                out["options"] = [[i, option_words(m.rules, st, req, o)[:140]] for i, o in enumerate(req.options[:24])]
            elif isinstance(req, ChanceRequest):
                # a die's faces as numbers; a card or a counter drawn by what it says (n20 5.0: its title)
                die = isinstance(req, Roll)
                out["faces"] = [[i, str(v) if die else option_words(m.rules, p.before, req, v)[:90]]
                                for i, (v, _) in enumerate(req.outcomes())]
                out["face_label"] = "the die shows " if die else "the draw gives "
            out["can_cancel"] = m.may_act(m.rules.to_act(p.before))
        self.controls.pending = out

    def _draw_seats(self) -> None:
        m = self.model
        snap = m.snap
        if snap is None or not m.game_id:
            self.controls.param.update(seats={}, watch={})
            return
        owner = m.role == OWNER and not snap.broken
        seats = snap.seats
        show = owner or bool(seats)
        thinking = (f"the {seats.get(snap.thinking, '')} bot is thinking ({side_name(snap.thinking)})…"
                    if snap.thinking else "")
        self.controls.param.update(
            seats={"sides": [[s, seats.get(s, ""), side_name(s)] for s in m.rules.sides], "bots": list(m.rules.bots()),
                   "owner": owner, "thinking": thinking} if show else {},
            watch={"on": all(seats.get(s) for s in m.rules.sides), "paused": snap.paused, "owner": owner})

    def _where_line(self, st, pos) -> str:
        """Turn, its date where the scenario gives one, phase, and each side's morale where it is a number
        (e.g. 'Turn 1 · 26 Sep, Morning · phase: movement · morale allied 7, french 6')."""
        try:
            summary = self.model.rules.state_summary(self.model.shown_state(st))
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
        if not self.__dict__.get("_made_game_parts"):
            return
        if not m.game_id:
            self.link.object = ("<b>Watching</b> a game that is not saved: read-only (replay only)."
                                if m.has_game else "")
            self.public.visible = False
            return
        if m.role == OWNER:
            keys = self.store.keys(m.game_id)
            seats = m.seats

            def item(r, k):
                bot = f" (played by the {html.escape(seats[r])} bot: this link watches)" if seats.get(r) else ""
                url = html.escape(game_link('/play', m.game_id, k))
                return f"<li>{html.escape(r)}: <a class='link-{html.escape(r)}' href='{url}'>{url}</a>{bot}</li>"
            items = "".join(item(r, k) for r, k in keys.items())
            self.link.object = ("<b>Links to this game</b> (keep the owner's link; send each player their side's "
                                f"link; anyone with a link plays that side):<ul>{items}</ul>")
            public = bool(m.snap.public) if m.snap is not None else False
            if self.public.value != public:
                self.public.param.update(value=public)
            self.public.visible = True
        else:
            self.link.object = (f"You play the <b>{html.escape(m.role)}</b> side of this game." if m.role else
                                "<b>Watching</b>: this public game is read-only for you (replay only).")
            self.public.visible = False

    def _draw_charts(self) -> None:
        """The provenance of the charts the game plays with, once per game: for each chart file, your printed
        values (the file's name and fingerprint) or the shipped ones, and each chart's own provenance."""
        m = self.model
        key = (id(m.game), m.game_id, m.record is None)
        if key == self._charts_of or m.record is None or m.state is None:
            return
        self._charts_of = key
        try:
            entries = charts_summary(rules_for(m.rules, m.record), m.state)
        except (VedetteError, AttributeError, TypeError, KeyError):
            entries = []
        parts = []
        for e in entries:
            yours = e.get("values") == "your printed values"
            said = (f"your printed values · {e.get('file', '')}" + (f" ({e['fingerprint']})" if e.get("fingerprint") else "")
                    if yours else "the values shipped with Vedette")
            badges = " ".join(badge_html(str(t.get("source", "")), label=str(name).replace("_", " "), uploaded=yours)
                              for name, t in sorted((e.get("tables") or {}).items()))
            parts.append(f"<div class='charts-badge' data-values='{html.escape(str(e.get('values', '')))}'>"
                         f"<b>{html.escape(str(e.get('title', 'charts')))}</b>: {html.escape(said)} {badges}</div>")
        self.charts.object = "".join(parts)

    def _draw_log(self) -> None:
        m = self.model
        rows = m.log(last=30)[-60:]
        self.log.object = log_html(rows, rule_note_for(m.system))   # each rule with its reminder on hover
