"""The odds of the attack a player is declaring, and the result once it is resolved (issue 15.2; at the speed
of a pick, issue 26.3).

:class:`ActionOddsView` (a ``pn.viewable.Viewer``) sits beside the play page's action list. When the
player selects an action the system calls an attack (:meth:`~engine.core.game.GameRules.is_attack`: an
n20 battle or countercharge, a LoB combat, a TBF fire, melee or charge, a BC fire or assault), it shows that
action's exact odds before anything is committed: every outcome with its probability as a percentage and as
an exact fraction, and the rule that decides it, then the expected change of each figure. A declaration
(:data:`DECLARATIONS`: Napoleonic 20 declares a combat phase's battles in one action, 9.1-9.2) shows the
odds of each battle it declares. Under the odds, *show the tree* draws the action's probability tree, only
when the player asks for it.

The odds come from the server's warm odds worker (:mod:`dashboards.server.odds_worker`): it holds the
position already (sent once per position, by key), so a pick sends the position's key and the action
only and gets small plain data back (:func:`engine.core.quick_odds.quick_odds`), drawn here
(:func:`odds_data_html`). Nothing here reads a rule. The answers are kept by position, action and side in
the server process, so picking the same attack again is instant. The question runs off the server's event
loop (:class:`~dashboards.server.background.Background`, in a thread that waits on the worker) with a busy
line and *cancel*; a cancelled or superseded pick stops the worker's enumeration. Once the action is
resolved, :meth:`ActionOddsView.resolved` states what happened in words: each die with its rule, each note
the procedure wrote, each choice made on the way.
"""
from __future__ import annotations

import html
import json
import logging
import threading
import re
from fractions import Fraction
from functools import partial
from typing import Any

import panel as pn

from engine.core.errors import VedetteError
from engine.core.odds import ActionOdds, OddsLine
from engine.core.quick_odds import WHOLE, OddsHidden, odds_position, position_key
from engine.core.words import identifier_words, plain

from dashboards.server.background import POOL, Background, Cancelled, OverBudget, on_server
from dashboards.server import odds_worker as workers
from dashboards.server.odds_worker import PAGE_MAX_OUTCOMES, PAGE_MAX_STEPS, LocalOdds, Ticket

__all__ = ["ActionOddsView", "odds_html", "odds_data_html", "odds_from_data", "result_lines", "percent",
           "compute_odds", "DECLARATIONS"]

log = logging.getLogger("vedette.dashboards")

MAX_LINES = 40          # outcome lines shown (the rest are added up in one line)

CSS = """
.action-odds {font-size:12px}
.action-odds .odds-head {font-weight:600;color:#2f4f6f;margin-bottom:3px}
table.odds-table {border-collapse:collapse;width:100%}
table.odds-table td, table.odds-table th {border-bottom:1px solid #e0e0e0;padding:1px 5px;text-align:left;
  vertical-align:top}
table.odds-table td.pct, table.odds-table td.frac {white-space:nowrap;text-align:right;font-family:monospace}
.action-odds .odds-note {color:#555;font-style:italic}
.action-odds .odds-until {background:#fff6dc;border-left:3px solid #c9a227;padding:2px 6px;margin:2px 0}
.action-odds .odds-error {color:#b71c1c}
.action-odds .declared-head {font-weight:600;margin:2px 0}
.odds-tree-box .ptree {font-size:12px;max-height:420px;overflow:auto}
.action-result {font-size:12px;border-left:3px solid #2e7d32;padding-left:6px;margin-top:4px}
.action-result .result-head {font-weight:600;color:#2e7d32}
"""


def percent(p: Fraction) -> str:
    """A probability as a percentage a player reads at a glance (two decimals; never rounded to 0 or 100
    when it is neither)."""
    v = float(p) * 100
    if p == 0:
        return "0 %"
    if p == 1:
        return "100 %"
    if v < 0.01:
        return "< 0.01 %"
    if v > 99.99:
        return "> 99.99 %"
    return f"{v:.2f} %"


def _frac(p: Fraction) -> str:
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)


def _num(v) -> str:
    if isinstance(v, Fraction) and v.denominator == 1:
        return f"{v.numerator:+d}"
    if isinstance(v, Fraction) and v.denominator <= 10 ** 7:
        return f"{float(v):+.3f} ({_frac(v)})"
    return f"{float(v):+.3f}"


def odds_html(odds, describe: str = "", titles: Any = None) -> str:
    """The odds of one action as an HTML block (a table of outcomes, then the expected changes, each figure
    by the name a player knows it by: ``titles``, a mapping key -> name (the quick odds' data) or the
    system's :meth:`GameRules.metric_title`; a key neither names is said in plain words)."""
    if callable(titles):
        title = titles
    else:
        known = dict(titles or {})

        def title(k: str) -> str:
            return known.get(k) or identifier_words(k)
    head = html.escape(describe or odds.action)
    rows = []
    lines = list(odds.outcomes)
    shown, rest = lines[:MAX_LINES], lines[MAX_LINES:]
    for o in shown:
        rows.append(f"<tr class='odds-line' data-p='{_frac(o.probability)}'><td>{html.escape(o.label)}</td>"
                    f"<td class='pct'>{percent(o.probability)}</td><td class='frac'>{_frac(o.probability)}</td>"
                    f"<td class='rule'>{html.escape(o.rule)}</td></tr>")
    if rest:
        p = sum((o.probability for o in rest), Fraction(0))
        rows.append(f"<tr class='odds-rest'><td>{len(rest)} other outcomes</td><td class='pct'>{percent(p)}</td>"
                    f"<td class='frac'>{_frac(p)}</td><td></td></tr>")
    exp = [(k, v) for k, v in odds.expected if v != 0]
    exp_html = ""
    if exp:
        exp_html = ("<div class='odds-expected'><b>Expected change</b>: "
                    + "; ".join(f"<span data-metric='{html.escape(k)}'>{html.escape(title(k))} {_num(v)}</span>"
                                for k, v in exp) + "</div>")
    note = f"<div class='odds-note'>{html.escape(odds.note)}</div>" if odds.note else ""
    # odds that stop before what follows the action (a turn's end) say so above the table, not in a footnote
    until = f"<div class='odds-until'>{html.escape(odds.until)}</div>" if odds.until else ""
    return (f"<div class='action-odds' data-state='ready' data-rule='{html.escape(odds.rule)}'>"
            f"<div class='odds-head'>Exact odds of: {head} (rule {html.escape(odds.rule)})</div>" + until +
            "<table class='odds-table'><tr><th>outcome</th><th>chance</th><th>exactly</th><th>rule</th></tr>"
            + "".join(rows) + "</table>" + exp_html + note + "</div>")


def _value(entry: dict) -> Fraction | float:
    f = entry.get("fraction")
    return Fraction(f) if f is not None else float(entry.get("float") or 0.0)


def _chance(entry: dict) -> Fraction:
    v = _value(entry)
    return v if isinstance(v, Fraction) else Fraction(v).limit_denominator(10 ** 9)


def odds_from_data(data: dict) -> ActionOdds:
    """The odds as the worker sends them (:func:`engine.core.quick_odds.quick_odds`'s plain data) back as the
    :class:`~engine.core.odds.ActionOdds` they were made from (exact fractions again)."""
    return ActionOdds(str(data.get("action", "")), str(data.get("rule", "")),
                      tuple(OddsLine(str(o.get("label", "")), _chance(o), str(o.get("rule", "")))
                            for o in data.get("lines", ())),
                      tuple((str(e.get("metric", "")), _value(e)) for e in data.get("expected", ())),
                      str(data.get("note", "")), str(data.get("until", "")))


def odds_data_html(data: dict, describe: str = "") -> str:
    """The odds block drawn from the worker's plain data: each line's words from its ``label``, each
    figure's from its ``title``."""
    titles = {str(e.get("metric", "")): str(e.get("title") or e.get("metric", "")) for e in data.get("expected", ())}
    return odds_html(odds_from_data(data), describe or str(data.get("said", "")), titles)


def declared_html(battles: list[dict], describe: str = "") -> str:
    """The odds of each attack a declaration leads to, one block each, in the order the system lists them."""
    if not battles:
        return ("<div class='action-odds' data-state='ready'><div class='odds-note'>this declaration leads to no "
                "attack whose odds can be shown</div></div>")
    head = (f"<div class='declared-head'>Each battle of: {html.escape(describe)}</div>" if describe else "")
    return (f"<div class='declared-odds'>{head}" + "".join(odds_data_html(b) for b in battles) + "</div>")


#: the actions, per system, that declare attacks without rolling (their odds: each attack they lead to).
#: Napoleonic 20 declares every battle of its combat phase in one action before any is resolved (9.1, 9.2)
DECLARATIONS: dict[str, frozenset[str]] = {"n20": frozenset({"declare"})}


def compute_odds(system: str, state_json: Any, action_json: Any, describe: str = "",
                 seen_by: Any = WHOLE, tables: Any = None) -> str:
    """In this process (a notebook, a test): rebuild the position from its JSON (the protocol's round
    trip), work out the action's exact odds as the page's worker does (the page's bounds) and draw them.
    ``seen_by``: the side whose page asks (``None`` a spectator; :data:`~engine.core.quick_odds.WHOLE` when
    the page may see everything): in a game that hides part of the position, the odds are worked out from
    what that side knows (the system's ``odds_position``), or refused naming why. ``tables``: the game's own
    tables (:func:`tables_json`), None for the shipped charts."""
    from engine.core.quick_odds import quick_odds
    from engine.core.tables import tables_from_json
    from engine.systems import system_of

    rules = system_of(system)
    if tables is not None:
        rules = rules.with_tables(tables_from_json(rules, tables))
    state = rules.state_from_json(state_json)
    try:
        data = quick_odds(rules, state, action_json, max_outcomes=PAGE_MAX_OUTCOMES, max_steps=PAGE_MAX_STEPS,
                          seen_by=seen_by)
    except OddsHidden:          # said in our words: the engine's message names the action's pieces
        raise VedetteError(workers.HIDDEN) from None
    return odds_data_html(data, describe)


def tables_json(rules) -> Any:
    """The player's own tables ``rules`` hold (TBF, BC: :func:`engine.core.tables.rules_for`), in their record
    form, sent with the position to the odds worker so that it builds the same rules; None: the shipped
    charts (or a system whose positions carry their tables, n20 and LoB)."""
    own = getattr(rules, "game_tables", None)
    return None if own is None else own.to_json()


def _said(value) -> str:
    return "" if value is None else plain(value)[:60]


def result_lines(event: dict, rules=None, state=None) -> list[tuple[str, str]]:
    """What a resolved action's record event says happened, as ``(text, rule)`` lines: each die or card
    with what it showed and decided, each choice made, each note its procedure wrote. With ``rules`` and
    ``state`` (the position the action was made in) each answer is said in the system's words
    (:meth:`GameRules.describe_answer`: an n20 CRT die with its named result, an event card by its title),
    else plainly. The same line twice in a row is said once with its count ("x 2")."""
    out: list[tuple[str, str]] = []
    for a in event.get("answers", []) if isinstance(event, dict) else []:
        kind, rule, label = a.get("kind", ""), str(a.get("rule", "")), str(a.get("label", "") or "")
        said = ""
        if rules is not None and state is not None:
            try:
                said = str(rules.describe_answer(state, a))
            except (VedetteError, KeyError, TypeError, ValueError, AttributeError):
                said = ""
        if said:
            # the system's words end with the rule they rest on (an n20 CRT die cites its result's rule,
            # 9.6.x): it is not said twice
            out.append((said, "" if _CITES.search(said) else rule))
        elif kind == "roll":
            out.append((f"{label or 'a die'}: rolled {_said(a.get('value'))}", rule))
        elif kind == "draw":
            out.append((f"{label or 'a draw'}: drew {_said(a.get('value'))}", rule))
        elif kind == "chance":
            out.append((f"{label or 'a chance'}: {_said(a.get('value'))}", rule))
        elif kind == "choose":
            out.append((f"{label or 'a choice'}: {_said(a.get('value'))}", rule))
        elif label:
            out.append((label, rule))
    return _counted(out)


#: words that end with a rule in brackets, e.g. "... (9.6.2)", "... (rule 5.3)"
_CITES = re.compile(r"\([^()]*\d[^()]*\)\s*$")


def _counted(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Runs of the same line said once, with their count: ``"attacker block takes 1 hit (x 2)"``."""
    out: list[tuple[str, str]] = []
    n = 0
    for i, line in enumerate(lines):
        n += 1
        if i + 1 < len(lines) and lines[i + 1] == line:
            continue
        out.append((f"{line[0]} (x {n})", line[1]) if n > 1 else line)
        n = 0
    return out


#: the positions (key, side) whose attacks are being worked out ahead now, by any page of this server
_AHEAD: set[tuple[str, str]] = set()
_AHEAD_LOCK = threading.Lock()


def _work_ahead(worker, key: str, system: str, state_json, todo: list, seen_by: Any, ticket: Ticket,
                budget_s: float, batch: tuple[str, str] | None = None, tables: Any = None) -> None:
    """In a pool thread: the worker's odds of ``todo`` worked out ahead, each kept as a pick's answer."""
    try:
        done = worker.ask("ahead", key, system, state_json, todo, seen_by, ticket, budget_s, tables=tables)
    except VedetteError:            # given up, busy, or refused as a whole: a pick asks again itself
        return
    except Exception:  # noqa: BLE001 - a bug: logged, nothing shown (the pick asks again)
        log.exception("odds worked out ahead failed")
        return
    finally:
        with _AHEAD_LOCK:
            _AHEAD.discard(batch)       # type: ignore[arg-type]
    for action_json, ok, value in done:
        workers.remember("odds", key, action_json, seen_by, value if ok else workers.Refusal(value))


def _idle() -> str:
    return "<div class='action-odds' data-state='idle'></div>"


def _error_html(exc: Exception | str) -> str:
    return (f"<div class='action-odds' data-state='error'><span class='odds-error'>No odds: "
            f"{html.escape(str(exc)[:240])}</span></div>")


class ActionOddsView(pn.viewable.Viewer):
    """The odds panel of one play page (one session)."""

    def __init__(self, budget_s: float | None = None, process: bool = True, **params):
        super().__init__(**params)
        self.runner = Background(budget_s=budget_s)
        self.process = process
        self.pane = pn.pane.HTML(_idle(), stylesheets=[CSS], css_classes=["odds-panel"], sizing_mode="stretch_width")
        self.tree_button = pn.widgets.Button(label="show the tree", css_classes=["odds-tree-open"], visible=False,
                                             color="light", width=140, margin=(2, 4))
        self.tree_button.on_click(lambda _: self.toggle_tree())
        self.tree_pane = pn.pane.HTML("<div class='odds-tree' data-state='closed'></div>", stylesheets=[CSS],
                                      css_classes=["odds-tree-box"], sizing_mode="stretch_width")
        self.result = pn.pane.HTML("<div class='action-result' data-state='none'></div>", stylesheets=[CSS],
                                   css_classes=["result-panel"], sizing_mode="stretch_width")
        self._local: LocalOdds | None = None
        self._asked: tuple | None = None     # (question, position key, action, side) shown or on its way
        self._shown: tuple | None = None     # the question whose answer the panel shows
        self._ask: dict[str, Any] = {}       # what the tree needs of the question shown
        self._ticket: Ticket | None = None
        self._ahead_asked: tuple | None = None
        self._ahead_ticket: Ticket | None = None
        self._state: Any = None              # the last position asked about, and its key
        self._state_key = ""

    def _worker(self):
        if self.process:
            return workers.odds_worker()
        if self._local is None:
            self._local = LocalOdds()
        return self._local

    def _stop(self) -> None:
        """Give up the question in flight (the worker stops its enumeration)."""
        t, self._ticket = self._ticket, None
        if t is not None:
            t.cancel()

    def _close_tree(self) -> None:
        self.tree_button.visible = False
        self.tree_button.label = "show the tree"
        self.tree_pane.object = "<div class='odds-tree' data-state='closed'></div>"

    # -- declaring ------------------------------------------------------------------------------------
    def clear(self) -> None:
        self._stop()
        if self.runner.busy:
            self.runner.cancel()
        self._asked = self._shown = None
        self._close_tree()
        self.pane.object = _idle()

    def _key(self, rules, state) -> str:
        """The position's key (computed once per position object: a commit makes a new one)."""
        if state is not self._state:
            self._state_key = position_key(rules, state)
            self._state = state
        return self._state_key

    def declare(self, rules, state, action, seen_by: Any = WHOLE, said: str | None = None) -> None:
        """The player selected ``action`` (not yet committed): show its odds if it is an attack, or the odds
        of each attack it declares (:data:`DECLARATIONS`), worked out from what ``seen_by`` (the page's
        side) knows; ``said``: the action in words as that side may know it (default: the system's words)."""
        is_attack = getattr(rules, "is_attack", None)
        if state is None or action is None or is_attack is None:
            self.clear()
            return
        action_json = rules.action_to_json(action)
        if is_attack(action):
            op = "odds"
        elif isinstance(action_json, dict) and action_json.get("kind") in DECLARATIONS.get(rules.system, ()):
            op = "declared"
        else:
            self.clear()
            return
        said = said or rules.describe_action(action)
        try:
            key = self._key(rules, state)
        except VedetteError as exc:
            self.clear()
            self.pane.object = _error_html(exc)
            return
        asked = workers.answer_key(op, key, action_json, seen_by)
        if asked == self._asked and (self.runner.busy or asked == self._shown):
            return
        self._stop()
        self._asked, self._shown = asked, None
        self._close_tree()
        self._ask = {"op": op, "key": key, "system": rules.system, "state": partial(rules.state_to_json, state),
                     "action": action_json, "seen_by": seen_by, "said": said, "tables": tables_json(rules)}
        hit = workers.known(op, key, action_json, seen_by)
        if hit is not None:          # the same pick again (or worked out ahead), on any page of this server
            self.runner.drop()
            if isinstance(hit, workers.Refusal):
                self._shown = asked
                self.pane.object = _error_html(hit)
            else:
                self._show(asked, op, hit, said)
            return
        self.pane.object = (f"<div class='action-odds' data-state='busy'>Working out the exact odds of "
                            f"{html.escape(said)}…</div>")
        self._run(asked, op, f"odds of {said[:60]}…")

    def ahead(self, rules, state, actions, seen_by: Any = WHOLE) -> None:
        """The page lists ``actions`` in ``state`` for this side to pick from: the odds of the attacks among
        them are worked out now, in the warm worker, while the player looks (at most
        :data:`~dashboards.server.odds_worker.MAX_AHEAD`, those not known yet, in the list's order, for at
        most :data:`~dashboards.server.odds_worker.AHEAD_BUDGET_S` seconds: the quick ones), and kept as a
        pick's answers are; a pick meanwhile is answered first. Nothing is drawn."""
        is_attack = getattr(rules, "is_attack", None)
        if not self.process or state is None or is_attack is None or workers.AHEAD_BUDGET_S <= 0 or not on_server():
            return                  # (outside a server a pick is answered at once: nothing to gain)
        attacks = [a for a in actions if is_attack(a)]
        if not attacks:
            return
        try:
            key = self._key(rules, state)
        except VedetteError:
            return
        todo = [j for j in (rules.action_to_json(a) for a in attacks) if workers.known("odds", key, j, seen_by) is None]
        todo = todo[:workers.MAX_AHEAD]
        wanted = (key, json.dumps(todo, sort_keys=True, default=str), repr(seen_by))
        if not todo or wanted == self._ahead_asked:
            return
        self._ahead_asked = wanted
        if self._ahead_ticket is not None:
            self._ahead_ticket.cancel()
        batch = (key, repr(seen_by))
        with _AHEAD_LOCK:
            if batch in _AHEAD:             # another page of this position and side has it in hand
                return
            _AHEAD.add(batch)
        ticket = self._ahead_ticket = Ticket()
        POOL.submit(_work_ahead, self._worker(), key, rules.system, partial(rules.state_to_json, state), todo,
                    seen_by, ticket, workers.AHEAD_BUDGET_S, batch, tables_json(rules))

    def _run(self, asked: tuple, op: str, label: str) -> None:
        a = self._ask
        ticket = self._ticket = Ticket()
        job = partial(self._worker().ask, op, a["key"], a["system"], a["state"], a["action"], a["seen_by"], ticket,
                      self.runner.budget_s, tables=a["tables"])
        self.runner.start(job, partial(self._done, asked, op, a), partial(self._error, asked, op, ticket),
                          label=label, process=False)

    def _show(self, asked: tuple, op: str, value: Any, said: str) -> None:
        self._shown = asked
        if op == "declared":
            self.pane.object = declared_html(value, said)
            return
        self.pane.object = odds_data_html(value, said)
        self.tree_button.visible = True

    def _done(self, asked: tuple, op: str, a: dict, value: Any) -> None:
        workers.remember(op, a["key"], a["action"], a["seen_by"], value)
        if op == "tree":
            if self._shown == asked:
                self._draw_tree(value)
            return
        if self._asked == asked:
            self._show(asked, op, value, a["said"])

    def _error(self, asked: tuple, op: str, ticket: Ticket, exc: Exception) -> None:
        if isinstance(exc, Cancelled):
            ticket.cancel()
        if isinstance(exc, (workers.Refused, OverBudget)) and op != "tree":   # the same pick again: the same words
            a = self._ask if self._asked == asked else None
            if a is not None:
                workers.remember(op, a["key"], a["action"], a["seen_by"], workers.Refusal(str(exc)))
        if op == "tree":
            if self._shown is not None:
                self.tree_pane.object = (f"<div class='odds-tree' data-state='error'><span class='odds-error'>No tree: "
                                         f"{html.escape(str(exc)[:240])}</span></div>")
                self.tree_button.label = "show the tree"
            return
        if self._asked != asked:
            return
        self.pane.object = _error_html(exc)

    # -- the tree, on request ---------------------------------------------------------------------------
    def _draw_tree(self, drawn: str) -> None:
        from dashboards.render.tree_view import STYLESHEET
        self.tree_pane.stylesheets = [CSS, STYLESHEET]
        self.tree_pane.object = f"<div class='odds-tree' data-state='ready'>{drawn}</div>"
        self.tree_button.label = "hide the tree"

    def toggle_tree(self) -> None:
        """*show the tree* / *hide the tree* under the odds shown: the action's probability tree, worked
        out only now (then kept, as the odds are)."""
        a = self._ask
        if self._shown is None or a.get("op") != "odds":
            return
        if self.tree_button.label == "hide the tree":
            self.tree_pane.object = "<div class='odds-tree' data-state='closed'></div>"
            self.tree_button.label = "show the tree"
            return
        hit = workers.known("tree", a["key"], a["action"], a["seen_by"])
        if hit is not None:
            self._draw_tree(hit)
            return
        self.tree_pane.object = "<div class='odds-tree' data-state='busy'>Drawing the tree…</div>"
        self._stop()
        self._run(self._shown, "tree", f"the tree of {a['said'][:60]}…")

    # -- after resolving ------------------------------------------------------------------------------
    def resolved(self, said: str, event: dict, rules=None, state=None) -> None:
        """State in words what the resolved attack ``said`` did (from its record event; with ``rules`` and
        the ``state`` it was made in, in the system's words)."""
        lines = result_lines(event, rules, state)
        body = "".join(f"<li>{html.escape(t)}{f' <small>(rule {html.escape(r)})</small>' if r else ''}</li>"
                       for t, r in lines) or "<li>nothing was rolled</li>"
        self.result.object = (f"<div class='action-result' data-state='resolved'><div class='result-head'>"
                              f"Resolved: {html.escape(said)}</div><ul>{body}</ul></div>")

    def forget_result(self) -> None:
        self.result.object = "<div class='action-result' data-state='none'></div>"

    def __panel__(self):
        if self.process and pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            threading.Thread(target=workers.odds_worker().warm, name="vedette-odds-warm", daemon=True).start()
        return pn.Column(self.runner.panel(), self.pane, self.tree_button, self.tree_pane, self.result,
                         sizing_mode="stretch_width", css_classes=["odds-box"])
