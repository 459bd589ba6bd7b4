"""A probability tree laid out for a picture (issue 27.6: split from :mod:`dashboards.render.tree_plot`,
which says how the picture and the outline show it).

The engine's tree (:class:`engine.core.tree.Tree`) nests each sub-procedure (a CRT roll, a rout, a Fatigue
Check, a combat round) in its own tree. A player thinks of one chain of events instead, so
:func:`layout_tree` *splices* them: at each end of a step's own tree the step's result leads on to what
follows it. Every node of the picture is "what happened" (a die face band such as ``3–4``, a card, a
choice), with its chance given the node before and from the start, the rule number and our own summary
of it. :func:`layout_tree` returns plain data (lists of dicts and strings), so a child process can compute
it (:mod:`dashboards.server.background`) and the page draws it.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Any, Callable

from engine.core.tree import Node, Tree

from dashboards.render.dist_bars import fmt_pct
from dashboards.common.rule_notes import note as n20_note

__all__ = ["PlotNode", "TreeLayout", "layout_tree", "positions", "auto_open_depth", "describe", "frac_text",
           "band_text", "ask_text", "shorten", "p_label", "node_tip", "made_once", "MAX_NODES"]

#: nodes drawn at most (a computing limit of the page, not a rule): the rest is marked "not drawn"
MAX_NODES = 1500
MINUS = "\u2212"
DASH = "\u2013"


# --------------------------------------------------------------------------------------------------
# words
# --------------------------------------------------------------------------------------------------
def frac_text(p: Fraction | None) -> str:
    """``1/3``; a whole number without ``/1`` (``1``, ``0``)."""
    if p is None:
        return ""
    p = Fraction(p)
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def band_text(text: str) -> str:
    """A band of die faces with an en dash (``"3-4"`` -> ``"3–4"``); other text unchanged."""
    return re.sub(r"^(\d+)-(\d+)$", rf"\1{DASH}\2", text.strip())


def describe(v: Any, final: bool = False) -> str | None:
    """Short words for a value met in a tree (a die face, a card, a step's result), or None when the value
    is internal bookkeeping better left out of the picture (``final``: always give some text)."""
    if v is None:
        return "" if final else None
    if isinstance(v, Enum):
        return str(v.value)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (str, int, float)):
        return band_text(str(v))
    if isinstance(v, Fraction):
        return frac_text(v)
    # Battle Commander: a card face, a combat's outcome
    if hasattr(v, "shifted") and hasattr(v, "reshuffle"):
        if v.reshuffle:
            return "reshuffle card"
        if v.shifted:
            return ", ".join(dict.fromkeys(r.replace("_", " ") for _, r in v.shifted))
        return f"card with {str(v.skill or 'no').replace('_', ' ')} icon"
    if hasattr(v, "result") and hasattr(v, "table") and hasattr(v, "defender_morale"):
        bits = [str(v.result).replace("_", " ")]
        if getattr(v, "critical", None):
            bits.append(f"critical {str(v.critical).replace('_', ' ')}")
        if v.defender_morale or v.attacker_morale:
            bits.append(f"morale att {v.attacker_morale:+d}, def {v.defender_morale:+d}")
        return "; ".join(bits)
    # Lines of Battle: one round's roll, the whole combat's result
    if hasattr(v, "winner") and hasattr(v, "att_total") and hasattr(v, "dfn_total"):
        totals = f" ({v.att_total} v {v.dfn_total})" if (v.att_total or v.dfn_total) else ""
        return f"{v.winner} wins the roll{totals}"
    if hasattr(v, "winner") and hasattr(v, "stage") and hasattr(v, "units"):
        lost = [u.uid for u in v.units if getattr(u, "eliminated", False)]
        hurt = [f"{u.uid} {u.hits} hit{'s' if u.hits != 1 else ''}" for u in v.units
                if getattr(u, "hits", 0) and not getattr(u, "eliminated", False)]
        bits = [f"{v.winner} wins" + (" and takes the area" if getattr(v, "taken", False) else "")]
        if lost:
            bits.append("eliminated: " + ", ".join(lost))
        if hurt:
            bits.append(", ".join(hurt))
        return "; ".join(bits)
    if type(v).__str__ is not object.__str__:
        return str(v)
    if not final:
        return None
    to_json = getattr(v, "to_json", None)
    if callable(to_json):
        j = to_json()
        if isinstance(j, dict):
            return "; ".join(f"{k} {w}" for k, w in j.items())
        return str(j)
    return type(v).__name__


def ask_text(n: Node) -> str:
    """A request in a player's words: "Roll d6 for the CRT column +2", "Draw the combat card", "Choose …"."""
    label = (n.label or "").strip()
    if n.kind == "roll":
        m = re.match(r"^(\d*d\d+)\s*\((.*)\)\s*$", label)
        return f"Roll {m.group(1)}: {m.group(2)}" if m else f"Roll {label}"
    if n.kind == "draw":
        return f"Draw: {label}"
    if n.kind == "choose":
        return f"Choose: {label}"
    return label[:1].upper() + label[1:]


# --------------------------------------------------------------------------------------------------
# the layout
# --------------------------------------------------------------------------------------------------
@dataclass
class PlotNode:
    id: int
    parent: int                # -1 for the start
    depth: int
    answer: str                # what happened to get here ("3–4", "DR", "start")
    probability: Fraction | None   # given the node before (None: a choice)
    path_probability: Fraction | None  # from the start
    ask: str = ""              # the next question here ("Roll d6: rout distance of prussian-i")
    rule: str = ""             # its rule number
    note: str = ""             # our summary of that rule
    step: str = ""             # the step of the rules that starts here ("rout of prussian-i (9.8)")
    gives: str = ""            # a step's result reached here ("DR")
    result: str = ""           # at an end: the outcome
    notes: list[str] = field(default_factory=list)   # what the engine logged on the way (rule: text)
    children: list[int] = field(default_factory=list)
    truncated: bool = False    # more follows but was not drawn (node limit)

    @property
    def is_leaf(self) -> bool:
        return not self.children


@dataclass
class TreeLayout:
    nodes: list[PlotNode]
    truncated: int = 0         # how many branches were not drawn (node limit)
    title: str = ""

    def __len__(self) -> int:
        return len(self.nodes)

    def leaves(self) -> list[PlotNode]:
        return [n for n in self.nodes if n.is_leaf]


def layout_tree(tree: Tree, fmt_result: Callable[[Any], str] | None = None,
                fmt_value: Callable[[Any], str | None] | None = None, rule_note: Callable[[str], str] = n20_note,
                max_nodes: int = MAX_NODES, title: str = "") -> TreeLayout:
    """The picture's nodes: the engine's tree with every sub-procedure spliced into the chain of events."""
    if tree.root is None:
        raise ValueError("this tree was enumerated without nodes")
    fmt_result = fmt_result or (lambda v: describe(v, final=True) or "")
    fmt_value = fmt_value or describe
    nodes: list[PlotNode] = []
    cut = [0]

    def new(parent: int, answer: str, p: Fraction | None, path: Fraction | None) -> PlotNode:
        n = PlotNode(len(nodes), parent, 0 if parent < 0 else nodes[parent].depth + 1, answer, p, path)
        nodes.append(n)
        if parent >= 0:
            nodes[parent].children.append(n.id)
        return n

    def add_notes(d: PlotNode, n: Node) -> None:
        d.notes.extend(f"{r}: {t}" if r else t for r, t in n.notes)

    def find_child(n: Node, result: Any) -> Node | None:
        for c in n.children:
            if c.outcome is result:
                return c
        for c in n.children:
            try:
                if c.outcome == result:
                    return c
            except Exception:   # noqa: BLE001 - odd comparisons simply do not match
                continue
        return None

    def end(d: PlotNode, n: Node, cont) -> None:
        if cont is None:
            d.result = fmt_result(n.result)
        else:
            cont(n.result, d)

    queue: deque = deque()

    def emit(n: Node, d: PlotNode, cont) -> None:
        """``n`` is the engine node whose question is asked at picture node ``d``; its answers are queued,
        so that the node limit cuts the deepest levels, not whole branches."""
        add_notes(d, n)
        if n.is_leaf:
            end(d, n, cont)
            return
        if n.kind == "sub" and n.subtree is not None and n.subtree.root is not None:
            if not d.step:
                d.step = f"{n.label} ({n.rule})" if n.rule else n.label
                if not d.rule:
                    d.rule, d.note = n.rule, rule_note(n.rule)

            def after(result: Any, here: PlotNode, n=n, cont=cont) -> None:
                c = find_child(n, result)
                shown = fmt_value(result)
                if shown and not here.gives:
                    here.gives = shown
                if c is None:           # should not happen: the step's results are the node's answers
                    here.result = shown or ""
                    return
                emit(c, here, cont)

            emit(n.subtree.root, d, after)
            return
        d.ask, d.rule, d.note = ask_text(n), n.rule, rule_note(n.rule)
        queue.append((n, d, cont))

    def grow(n: Node, d: PlotNode, cont) -> None:
        for c in n.children:
            if len(nodes) >= max_nodes:
                d.truncated = True
                cut[0] += 1
                continue
            path = None if c.probability is None or d.path_probability is None else d.path_probability * c.probability
            shown = c.outcome_text if c.outcome_text is not None else fmt_value(c.outcome)
            kid = new(d.id, band_text(shown) if shown else "(answer)", c.probability, path)
            emit(c, kid, cont)

    root = new(-1, "start", Fraction(1), Fraction(1))
    emit(tree.root, root, None)
    while queue:
        grow(*queue.popleft())
    for d in nodes:
        if d.gives and d.gives == d.result:
            d.gives = ""
    return TreeLayout(nodes, cut[0], title)


def positions(layout: TreeLayout, collapsed: set[int] = frozenset()) -> dict[int, tuple[float, float]]:
    """(x, y) of each shown node: x is the depth, leaves (and folded nodes) one row apart downwards, a
    parent halfway between its first and last child. The browser's CustomJS does the same on a click."""
    out: dict[int, tuple[float, float]] = {}
    row = [0]

    def place(i: int) -> float:
        n = layout.nodes[i]
        if n.children and i not in collapsed:
            ys = [place(c) for c in n.children]
            y = (ys[0] + ys[-1]) / 2
        else:
            y = -float(row[0])
            row[0] += 1
        out[i] = (float(n.depth), y)
        return y

    if layout.nodes:
        place(0)
    return out


def auto_open_depth(layout: TreeLayout, max_rows: int = 32) -> int:
    """The most levels that can be unfolded with at most ``max_rows`` rows of ends shown (at least 1)."""
    deepest = max((n.depth for n in layout.nodes), default=0)
    best = 1
    for d in range(1, deepest + 1):
        folded = {n.id for n in layout.nodes if n.children and n.depth >= d}
        pos = positions(layout, folded)
        if int(-min(y for _, y in pos.values())) + 1 > max_rows:
            break
        best = d
    return best if deepest == 0 or best < deepest else deepest


def shorten(s: str, k: int) -> str:
    return s if len(s) <= k else s[: k - 1] + "…"


def p_label(n: PlotNode) -> str:
    if n.parent < 0:
        return ""
    if n.probability is None:
        return "choice"
    return f"{frac_text(n.probability)} ({fmt_pct(n.path_probability)} in all)" if n.path_probability is not None \
        else frac_text(n.probability)


def node_tip(n: PlotNode) -> str:
    bits = []
    if n.parent >= 0:
        bits.append(f"{n.answer}: chance {frac_text(n.probability) or 'a choice'}"
                    + (f" here, {frac_text(n.path_probability)} = {fmt_pct(n.path_probability)} from the start"
                       if n.path_probability is not None else ""))
    if n.gives:
        bits.append(f"gives {n.gives}")
    if n.step:
        bits.append(f"step: {n.step}")
    if n.ask:
        bits.append(f"next: {n.ask}")
    if n.note:
        bits.append(f"rule {n.note}")
    elif n.rule:
        bits.append(f"rule {n.rule}")
    if n.result:
        bits.append(f"outcome: {n.result}")
    bits.extend(n.notes[:4])
    if n.truncated:
        bits.append("more branches follow that are not drawn (node limit of the page)")
    if n.children:
        bits.append("click to fold or unfold")
    return "\n".join(bits)


def made_once(layout: TreeLayout, kind: str, key, make):
    """A drawing of ``layout`` kept with it: a layout is never changed once made, so what is drawn from it
    (the figure's columns, the outline) is made once and shared by every session showing it (and, made in
    a worker process, travels back with it)."""
    memo = layout.__dict__.setdefault("_drawn", {})
    k = (kind, key)
    if k not in memo:
        memo[k] = make()
    return memo[k]
