"""The tree as a text outline (issue 27.6: split from :mod:`dashboards.render.tree_plot`): nested lists for
screen readers, printing and search in page, shown beside the picture."""
from __future__ import annotations

import html

from dashboards.render.tree_layout import PlotNode, TreeLayout, frac_text, made_once, p_label

__all__ = ["OUTLINE_CSS", "OUTLINE_HEAD", "outline_html", "outline_for"]


OUTLINE_CSS = """
.tree-outline {font-size:13px;line-height:1.45;max-height:780px;overflow:auto}
.tree-outline ul {list-style:none;margin:0;padding-left:16px;border-left:1px dotted #bbb}
.tree-outline summary {cursor:pointer}
.tree-outline .ask {color:#2f4f6f}
.tree-outline .rule {background:#eef;border-radius:3px;padding:0 4px;margin-left:4px;font-size:11px;cursor:help}
.tree-outline .p {color:#555;font-variant-numeric:tabular-nums;margin-left:6px}
.tree-outline .res {color:#1b5e20;font-weight:600}
.tree-outline .step {color:#6d4c41;font-size:12px}
.tree-outline-head {margin:0 5px 4px 5px}
"""


def outline_html(layout: TreeLayout, open_depth: int = 2) -> str:
    """The same tree as nested lists: every line says what happened, its chance, then what comes next."""
    def rule_tag(n: PlotNode) -> str:
        if not n.rule:
            return ""
        return (f"<span class='rule' data-rule='{html.escape(n.rule, quote=True)}' "
                f"title='{html.escape(n.note or 'rule ' + n.rule, quote=True)}'>rule {html.escape(n.rule)}</span>")

    def line(n: PlotNode) -> str:
        bits = [f"<b>{html.escape(n.answer)}</b>"]
        if n.gives and n.gives != n.answer:
            bits.append(f"⇒ {html.escape(n.gives)}")
        p = p_label(n)
        if p:
            bits.append(f"<span class='p' data-p='{frac_text(n.probability)}'>{html.escape(p)}</span>")
        if n.result:
            bits.append(f"⇒ <span class='res'>{html.escape(n.result)}</span>")
        if n.ask:
            bits.append(f"· <span class='ask'>{html.escape(n.ask)}</span>{rule_tag(n)}")
        if n.step:
            bits.append(f"<span class='step'>({html.escape(n.step)})</span>")
        return " ".join(bits)

    def item(n: PlotNode) -> str:
        more = "<li>… more branches not drawn</li>" if n.truncated else ""
        if not n.children:
            return f"<li data-node='{n.id}'>{line(n)}{'<ul>' + more + '</ul>' if more else ''}</li>"
        opened = " open" if n.depth < open_depth else ""
        kids = "".join(item(layout.nodes[c]) for c in n.children)
        return f"<li data-node='{n.id}'><details{opened}><summary>{line(n)}</summary><ul>{kids}{more}</ul></details></li>"

    if not layout.nodes:
        return "<div class='tree-outline'></div>"
    return f"<div class='tree-outline' role='tree'><ul>{item(layout.nodes[0])}</ul></div>"


def outline_for(layout: TreeLayout, open_depth: int = 2) -> str:
    """:func:`outline_html`, made once per layout and depth (shared by every session showing the layout)."""
    return made_once(layout, "outline", open_depth, lambda: outline_html(layout, open_depth))


OUTLINE_HEAD = "<div class='tree-outline-head'><b>The same tree as text</b></div>"
