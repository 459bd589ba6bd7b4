"""A recorded game shown turn by turn in a notebook: the phases in words, the board after each.

Every walkthrough notebook calls this one helper: :func:`engine.core.walk.walk_record` cuts the record into
phases and tells each event in sentences; this module lays them out as light HTML (one block per game
turn, the actions of a phase folded under a summary) with a still picture of the board after each phase
(:func:`dashboards.render.board_svg.board_svg`). A phase that left the board as it was says so
instead of repeating the same picture, which keeps a whole game's notebook small.
"""
from __future__ import annotations

import html
from collections import Counter as _Tally
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from engine.core.game import GameRules
from engine.core.record import GameRecord
from engine.core.walk import PhaseWalk, by_turn, outcome_sentence, walk_record

from dashboards.render.board_svg import board_svg

__all__ = ["phase_summary", "phase_html", "turn_html", "show_walk", "walk_html"]

_CSS = ("<style>.walk-turn{font-size:13px;line-height:1.35} .walk-turn h3{margin:14px 0 4px} "
        ".walk-phase{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start;border-top:1px solid #ddd;"
        "padding:6px 0} .walk-words{flex:1;min-width:300px} .walk-words ol{margin:4px 0;padding-left:26px} "
        ".walk-words ul{margin:0;padding-left:18px;color:#555} .walk-same{color:#777;font-style:italic}</style>")


def phase_summary(p: PhaseWalk) -> str:
    """One sentence of what a phase held, each kind of action with how many, e.g.
    ``"French: move (7), end phase (1)."``."""
    parts = []
    for side in p.sides or ("",):
        verbs = _Tally((t.kind or t.action.split(' ')[0]) for t in p.told if t.side == side)
        words = ", ".join(f"{v} ({n})" for v, n in verbs.items())
        if words:
            parts.append(f"{side.capitalize() or 'The game'}: {words}")
    return "; ".join(parts) + "."


def phase_html(p: PhaseWalk, board: str | None, title: str | None = None) -> str:
    """One phase: its title, a summary, what changed, the actions folded, and the board after it."""
    items = []
    for t in p.told:
        notes = "".join(f"<li style='margin-left:{8 * d}px'>{html.escape(n)}</li>" for d, n in t.notes)
        items.append(f"<li>{html.escape(t.sentence)}" + (f"<ul>{notes}</ul>" if notes else "") + "</li>")
    changes = " ".join(html.escape(c) for c in p.changes)
    n = len(p.told)
    span = f"event {p.first + 1}" if p.first == p.last else f"events {p.first + 1}-{p.last + 1}"
    picture = board if board is not None else \
        "<span class='walk-same'>The board is as in the last picture above.</span>"
    return (f"<div class='walk-phase'><div class='walk-words'><b>{html.escape(title or p.title)}</b><br>"
            f"{html.escape(phase_summary(p))} {changes}"
            f"<details><summary>{n} action{'s' if n != 1 else ''} ({span}), "
            f"with their dice, cards, choices and notes</summary><ol start='{p.first + 1}'>{''.join(items)}</ol>"
            f"</details></div><div>{picture}</div></div>")


def turn_html(turn: int, phases: list[PhaseWalk], boards: list[str | None], heading: str = "",
              titles: Sequence[str | None] | None = None) -> str:
    """One game turn: a ``Turn N`` heading, then each phase with its board (``None``: unchanged)."""
    head = f"Turn {turn}" + (f": {heading}" if heading else "")
    body = "".join(phase_html(p, b, (titles or [None] * len(phases))[i]) for i, (p, b) in enumerate(zip(phases, boards)))
    return f"<section class='walk-turn'>{_CSS}<h3>{html.escape(head)}</h3>{body}</section>"


def walk_html(rules: GameRules, record: GameRecord, key: Callable[[Any, Any], Hashable] | None = None,
              states=None, draw: Callable[[Any], str] | None = None, width: int = 480,
              heading: Callable[[int], str] | None = None,
              title: Callable[[PhaseWalk], str] | None = None,
              notes: Callable[[Any, Any], Any] | None = None) -> list[tuple[int, str]]:
    """``(turn, html)`` for every game turn of ``record``; ``draw(state)`` gives a board picture (by
    default the system's still board ``width`` pixels wide), ``heading(turn)`` words beside the turn
    number, ``title(phase)`` a phase's title (default ``PhaseWalk.title``), ``notes(before, after)`` a
    system's own sentences on what a phase changed."""
    draw = draw or (lambda s: board_svg(rules, s, width))
    phases = walk_record(rules, record, key=key, states=states, notes=notes)
    out = []
    last = None
    for turn, ps in by_turn(phases).items():
        boards: list[str | None] = []
        for p in ps:
            pic = draw(p.after)
            boards.append(None if pic == last else pic)
            last = pic
        out.append((turn, turn_html(turn, ps, boards, heading(turn) if heading else "",
                                    [title(p) for p in ps] if title else None)))
    if phases:
        end = html.escape(outcome_sentence(rules, phases[-1].after))
        t, h = out[-1]
        out[-1] = (t, h.replace("</section>", f"<p><b>The end.</b> {end}</p></section>"))
    return out


def show_walk(rules: GameRules, record: GameRecord, **kw) -> int:
    """Display every turn of ``record`` in a notebook (one output per turn); returns the number of turns."""
    from IPython.display import HTML, display
    turns = walk_html(rules, record, **kw)
    for _turn, h in turns:
        display(HTML(h))
    return len(turns)
