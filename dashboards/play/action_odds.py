"""The odds of the attack a player is declaring, and the result once it is resolved (issue 15.2).

:class:`ActionOddsView` (a ``pn.viewable.Viewer``) sits beside the play page's action list. When the
player selects an action the system calls an attack (:meth:`~engine.core.game.GameRules.is_attack`: an
n20 battle, a LoB combat, a TBF fire, melee or charge, a BC fire or assault), it shows that action's
exact odds before anything is committed: every outcome with its probability as a percentage and as an
exact fraction, and the rule that decides it, then the expected change of each figure. The odds come
from :func:`engine.core.odds.action_odds`, which runs the action's own rules procedure through the exact
driver; nothing here reads a rule. The enumeration runs off the server's event loop
(:class:`~dashboards.server.background.Background`, in a child process) with a busy line and
*cancel*. Once the action is resolved, :meth:`ActionOddsView.resolved` states what happened in words:
each die with its rule, each note the procedure wrote, each choice made on the way.
"""
from __future__ import annotations

import html
import json
import re
from fractions import Fraction
from functools import partial
from typing import Any

import panel as pn

from engine.core.errors import VedetteError
from engine.core.quick_odds import WHOLE, OddsHidden, odds_position
from engine.core.words import identifier_words, plain

from dashboards.server.background import Background

__all__ = ["ActionOddsView", "odds_html", "result_lines", "percent", "compute_odds"]

MAX_LINES = 40          # outcome lines shown (the rest are added up in one line)

CSS = """
.action-odds {font-size:12px}
.action-odds .odds-head {font-weight:600;color:#2f4f6f;margin-bottom:3px}
table.odds-table {border-collapse:collapse;width:100%}
table.odds-table td, table.odds-table th {border-bottom:1px solid #e0e0e0;padding:1px 5px;text-align:left;
  vertical-align:top}
table.odds-table td.pct, table.odds-table td.frac {white-space:nowrap;text-align:right;font-family:monospace}
.action-odds .odds-note {color:#555;font-style:italic}
.action-odds .odds-error {color:#b71c1c}
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


def odds_html(odds, describe: str = "", metric_title=None) -> str:
    """The odds of one action as an HTML block (a table of outcomes, then the expected changes, each figure
    by the name a player knows it by: ``metric_title``, the system's :meth:`GameRules.metric_title`)."""
    title = metric_title or identifier_words
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
    return (f"<div class='action-odds' data-state='ready' data-rule='{html.escape(odds.rule)}'>"
            f"<div class='odds-head'>Exact odds of: {head} (rule {html.escape(odds.rule)})</div>"
            "<table class='odds-table'><tr><th>outcome</th><th>chance</th><th>exactly</th><th>rule</th></tr>"
            + "".join(rows) + "</table>" + exp_html + note + "</div>")


#: the end positions an odds request from the page may reach (docs/limits.md)
PAGE_MAX_OUTCOMES = 20_000


def compute_odds(system: str, state_json: Any, action_json: Any, describe: str = "",
                 seen_by: Any = WHOLE) -> str:
    """Run in a child process: rebuild the position from its JSON (the protocol's round trip), compute
    the action's exact odds, and return them drawn as HTML (a plain, picklable string). ``seen_by``: the
    side whose page asks (``None`` a spectator; :data:`~engine.core.quick_odds.WHOLE` when the page may
    see everything): in a game that hides part of the position, the odds are worked out from what that
    side knows (the system's ``odds_position``), or refused naming why (:class:`OddsHidden`)."""
    from engine.core.odds import action_odds
    from engine.systems import system_of

    rules = system_of(system)
    state = rules.state_from_json(state_json)
    action = rules.action_from_json(action_json)
    try:
        position = odds_position(rules, state, action, seen_by)
    except OddsHidden:          # said in our words: the engine's message names the action's pieces
        raise VedetteError("this game hides part of the position from you (16.1 fog of war, 15 hands): its "
                           "odds are not shown before the action is made") from None
    # a worker process under the runner's time budget guards the server here, so the end-position bound
    # is wider than the engine's default (a Battle Commander assault ends in about 10,000 positions)
    return odds_html(action_odds(rules, position, action, max_outcomes=PAGE_MAX_OUTCOMES), describe, rules.metric_title)


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


class ActionOddsView(pn.viewable.Viewer):
    """The odds panel of one play page (one session)."""

    def __init__(self, budget_s: float | None = None, process: bool = True, **params):
        super().__init__(**params)
        self.runner = Background(budget_s=budget_s)
        self.process = process
        self.pane = pn.pane.HTML("<div class='action-odds' data-state='idle'></div>", stylesheets=[CSS],
                                 css_classes=["odds-panel"], sizing_mode="stretch_width")
        self.result = pn.pane.HTML("<div class='action-result' data-state='none'></div>", stylesheets=[CSS],
                                   css_classes=["result-panel"], sizing_mode="stretch_width")
        self._key: tuple | None = None
        self._cache: dict[tuple, str] = {}

    # -- declaring ------------------------------------------------------------------------------------
    def clear(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
        self._key = None
        self.pane.object = "<div class='action-odds' data-state='idle'></div>"

    def declare(self, rules, state, action, seen_by: Any = WHOLE, said: str | None = None) -> None:
        """The player selected ``action`` (not yet committed): show its odds if it is an attack, worked out
        from what ``seen_by`` (the page's side) knows; ``said``: the action in words as that side may
        know it (default: the system's words for it)."""
        is_attack = getattr(rules, "is_attack", None)
        if state is None or action is None or is_attack is None or not is_attack(action):
            self.clear()
            return
        action_json = rules.action_to_json(action)
        said = said or rules.describe_action(action)
        try:
            state_json = rules.state_to_json(state)
        except VedetteError as exc:
            self._key = None
            self.pane.object = (f"<div class='action-odds' data-state='error'><span class='odds-error'>No odds: "
                                f"{html.escape(str(exc)[:240])}</span></div>")
            return
        # positions are values: the same position and action always have the same odds
        key = (rules.system, hash(json.dumps(state_json, sort_keys=True, default=str)),
               json.dumps(action_json, sort_keys=True, default=str), repr(seen_by))
        if key == self._key and (self.runner.busy or key in self._cache):
            return
        self._key = key
        if key in self._cache:
            self.pane.object = self._cache[key]
            return
        self.pane.object = (f"<div class='action-odds' data-state='busy'>Working out the exact odds of "
                            f"{html.escape(said)}…</div>")
        job = partial(compute_odds, rules.system, state_json, action_json, said, seen_by)

        def done(text: str, key=key):
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[key] = text
            if self._key == key:
                self.pane.object = text

        self.runner.start(job, done, partial(self._error, key), label=f"odds of {said[:60]}…",
                          process=self.process)

    def _error(self, key, exc: Exception) -> None:
        if self._key != key:
            return
        self.pane.object = (f"<div class='action-odds' data-state='error'><span class='odds-error'>No odds: "
                            f"{html.escape(str(exc)[:240])}</span></div>")

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
        return pn.Column(self.runner.panel(), self.pane, self.result, sizing_mode="stretch_width",
                         css_classes=["odds-box"])
