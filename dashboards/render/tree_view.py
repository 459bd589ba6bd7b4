"""Probability tree view: a collapsible HTML tree of an enumerated procedure (``engine.core.tree.Tree``).

The picture of the same tree, with this outline beside it, is :mod:`dashboards.render.tree_plot`.
Each request node says in words what is rolled, drawn or chosen, with its rule number; each branch its answer, its probability given
the parent and from the root; leaves show the result. Hovering a rule shows its summary in our own
words (:mod:`dashboards.common.rule_notes`). Built on ``<details>`` elements, so collapsing and
expanding happens in the browser with no server round trip.
"""
from __future__ import annotations

import html
from fractions import Fraction
from typing import Any, Callable

import panel as pn

from engine.core.procedure import jsonable
from engine.core.tree import Node, Tree

from dashboards.render.dist_bars import fmt_pct
from dashboards.render.tree_layout import ask_text, band_text
from dashboards.common.rule_notes import note as default_note

__all__ = ["tree_html", "tree_view", "STYLESHEET", "MAX_NODES"]

MAX_NODES = 4000
STYLESHEET = """
.ptree {font-size:13px;line-height:1.45}
.ptree ul {list-style:none;margin:0;padding-left:18px;border-left:1px dotted #bbb}
.ptree summary {cursor:pointer}
.ptree .req {color:#2f4f6f;font-weight:600}
.ptree .rule {background:#eef;border-radius:3px;padding:0 4px;margin-left:4px;font-size:11px;cursor:help}
.ptree .p {color:#555;font-variant-numeric:tabular-nums;margin-left:6px}
.ptree .res {color:#1b5e20;font-weight:600}
.ptree .note {color:#6d4c41;font-style:italic;font-size:12px}
.ptree .more {color:#999}
"""


def _frac(p: Fraction | None) -> str:
    if p is None:
        return ""
    return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"


def _fmt(v: Any) -> str:
    if isinstance(v, (str, int, float)) or v is None:
        return str(v)
    if hasattr(v, "__str__") and type(v).__str__ is not object.__str__:
        return str(v)
    import json

    return json.dumps(jsonable(v), ensure_ascii=False)


def tree_html(tree: Tree, fmt_result: Callable[[Any], str] | None = None,
              fmt_outcome: Callable[[Node, Any], str] | None = None,
              rule_note: Callable[[str], str] = default_note, open_depth: int = 1,
              max_nodes: int = MAX_NODES) -> str:
    """The tree as nested ``<details>`` (the first ``open_depth`` levels open)."""
    fmt_result = fmt_result or _fmt
    fmt_outcome = fmt_outcome or (lambda parent, v: _fmt(v))
    budget = [max_nodes]

    def rule_tag(rule: str) -> str:
        if not rule:
            return ""
        tip = rule_note(rule) or f"rule {rule}"
        return f"<span class='rule' data-rule='{html.escape(rule, quote=True)}' title='{html.escape(tip, quote=True)}'>{html.escape(rule)}</span>"

    def notes_html(n: Node) -> str:
        if not n.notes:
            return ""
        items = "".join(f"<div class='note'>{html.escape(t)} {rule_tag(r)}</div>" for r, t in n.notes)
        return items

    def request_head(n: Node) -> str:
        words = ask_text(n) if n.kind != "sub" else f"step: {n.label or ''}"
        return f"<span class='req'>{html.escape(words)}</span>{rule_tag(n.rule)}"

    def branch(parent: Node, child: Node, depth: int) -> str:
        budget[0] -= 1
        p = child.probability
        ptxt = (f"<span class='p' data-p='{_frac(p)}'>{_frac(p)}" + (f" · from the start {_frac(child.path_probability)} "
                f"({fmt_pct(child.path_probability)})" if child.path_probability is not None else "") + "</span>"
                if p is not None else "<span class='p'>a choice</span>")
        shown = band_text(child.outcome_text) if child.outcome_text is not None else fmt_outcome(parent, child.outcome)
        head = f"&rarr; <b>{html.escape(shown)}</b>{ptxt}"
        if child.is_leaf:
            return (f"<li class='leaf'>{head} &rArr; <span class='res'>{html.escape(fmt_result(child.result))}</span>"
                    f"{notes_html(child)}</li>")
        return f"<li>{node_html(child, depth + 1, head)}</li>"

    def node_html(n: Node, depth: int, head: str = "") -> str:
        summary = (head + " &middot; " if head else "") + request_head(n)
        kids = []
        sub = ""
        if n.kind == "sub" and n.subtree is not None and n.subtree.root is not None and budget[0] > 0:
            sub = ("<details class='subtree'><summary class='note'>how this step goes (chances counted from the "
                   "step's start)</summary>"
                   + body(n.subtree.root, depth + 1) + "</details>")
        for i, c in enumerate(n.children):
            if budget[0] <= 0:
                kids.append(f"<li class='more'>… {len(n.children) - i} more branch(es) not drawn</li>")
                break
            kids.append(branch(n, c, depth))
        opened = " open" if depth < open_depth else ""
        return (f"<details{opened} data-kind='{n.kind}'><summary>{summary}</summary>{notes_html(n)}{sub}"
                f"<ul>{''.join(kids)}</ul></details>")

    def body(root: Node, depth: int) -> str:
        if root.is_leaf:
            return f"<div class='leaf'>certain &rArr; <span class='res'>{html.escape(fmt_result(root.result))}</span></div>"
        return node_html(root, depth)

    if tree.root is None:
        raise ValueError("this tree was enumerated without nodes")
    return f"<div class='ptree'>{body(tree.root, 0)}</div>"


def tree_view(tree: Tree, **kw) -> pn.pane.HTML:
    return pn.pane.HTML(tree_html(tree, **kw), stylesheets=[STYLESHEET], sizing_mode="stretch_width")
