"""The probability tree built by the enumerate driver.

Each node is a request met on the way (a roll, a draw, a chance event, a decision or a sub-procedure),
with the rule that made it; its children are the answers, each with its conditional probability
(``None`` under a decision node) and its probability from the root. Leaves carry the procedure's result.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .dist import Dist, prob_json
from .values import jsonable

__all__ = ["Node", "Tree"]


@dataclass(eq=False)
class Node:
    outcome: Any = None                       # the answer that led here from the parent
    probability: Fraction | None = None       # conditional on the parent (None under a decision)
    path_probability: Fraction | None = None  # from the root
    kind: str = "leaf"                        # roll / draw / chance / choose / sub / leaf
    rule: str = ""
    label: str = ""
    request: Any = None
    children: list["Node"] = field(default_factory=list)
    result: Any = None
    notes: list[tuple[str, str]] = field(default_factory=list)  # (rule, text) logged on the way
    subtree: "Tree | None" = None             # for sub nodes: the sub-procedure's own tree
    outcome_text: str | None = None           # display of a banded roll's outcome, e.g. "1-3"

    @property
    def shown_outcome(self) -> str:
        """The outcome as a reader sees it ("1-3" for a band of faces)."""
        return self.outcome_text if self.outcome_text is not None else str(self.outcome)

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def walk(self) -> Iterator["Node"]:
        yield self
        for c in self.children:
            yield from c.walk()


@dataclass
class Tree:
    root: Node | None
    leaves: Dist | None  # None when decision nodes were kept

    def distribution(self) -> Dist:
        """Distribution of the results (only when every decision was resolved by a policy)."""
        if self.leaves is None:
            raise ValueError("this tree keeps decision nodes: give a policy to get one distribution")
        return self.leaves

    def total(self) -> Fraction:
        """Sum of the leaf probabilities (exactly 1 for a well-formed procedure)."""
        return self.distribution().total

    def nodes(self) -> Iterator[Node]:
        if self.root is not None:
            yield from self.root.walk()

    def leaf_nodes(self) -> list[Node]:
        return [n for n in self.nodes() if n.is_leaf]

    def size(self) -> int:
        return sum(1 for _ in self.nodes())

    def _convert(self, max_depth: int | None, result: Callable[[Any], Any] | None,
                 outcome: Callable[[Any], Any] | None, subtrees: list[Any] | None) -> dict[str, Any]:
        """Nodes as dicts; with ``subtrees`` (a list to fill) sub-procedure trees are listed once and referred to."""
        result = result or jsonable
        outcome = outcome or jsonable
        index: dict[Any, int] = {}    # sub-procedure key (a value: equal requests share one tree) -> position

        def conv(n: Node, depth: int) -> dict[str, Any]:
            d: dict[str, Any] = {"kind": n.kind if n.children else "leaf",
                                 "outcome": n.outcome_text if n.outcome_text is not None else outcome(n.outcome)}
            if n.probability is not None:
                d["probability"] = prob_json(n.probability)
            if n.path_probability is not None:
                d["path_probability"] = prob_json(n.path_probability)
            if n.notes:
                d["notes"] = [{"rule": r, "text": t} for r, t in n.notes]
            if not n.children:
                d["result"] = result(n.result)
                d["text"] = str(n.result)
                return d
            d["rule"] = n.rule
            d["request"] = n.label
            if subtrees is not None and n.subtree is not None and n.subtree.root is not None:
                key = n.request.key
                if key not in index:
                    index[key] = len(subtrees)
                    subtrees.append(None)
                    subtrees[index[key]] = {"rule": n.rule, "request": n.label, "tree": conv(n.subtree.root, 0)}
                d["subtree"] = index[key]
            if max_depth is None or depth < max_depth:
                d["children"] = [conv(c, depth + 1) for c in n.children]
            else:
                d["children_omitted"] = len(n.children)
            return d

        if self.root is None:
            raise ValueError("this tree was enumerated without nodes (build=False)")
        return conv(self.root, 0)

    def to_dict(self, result: Callable[[Any], Any] | None = None, outcome: Callable[[Any], Any] | None = None,
                max_depth: int | None = None) -> dict[str, Any]:
        """JSON-able tree: each node has rule, request, outcome, probability (and result and text at leaves)."""
        return self._convert(max_depth, result, outcome, None)

    def to_json(self, max_depth: int | None = None, result: Callable[[Any], Any] | None = None) -> dict[str, Any]:
        """JSON-able tree with its sub-procedures' trees: ``{"tree": ..., "subtrees": [...]}``.

        As :meth:`to_dict`, and a sub-procedure node names its own tree by index in ``subtrees`` (each
        sub-tree is listed once, however often its key recurs).
        """
        listed: list[Any] = []
        root = self._convert(max_depth, result, None, listed)
        return {"tree": root, "subtrees": listed}

    def render(self, result: Callable[[Any], str] = str, max_depth: int | None = None,
               expand_subs: bool = True) -> str:
        """Plain-text drawing of the tree for terminals and notebooks.

        A sub-procedure's own tree is drawn (marked with ``:``) the first time it appears, then referred to.
        """
        lines: list[str] = []
        shown: set[Any] = set()    # keys of the sub-procedures drawn so far (values, not object ids)

        def fmt_p(n: Node) -> str:
            return "" if n.probability is None else f" [{n.probability}]"

        def go(n: Node, indent: str, depth: int) -> None:
            if expand_subs and n.subtree is not None and n.subtree.root is not None:
                if n.request.key in shown:
                    lines.append(f"{indent}: (its steps are drawn above)")
                else:
                    shown.add(n.request.key)
                    lines.append(f"{indent}: inside {n.label} (rule {n.rule}):")
                    go(n.subtree.root, indent + ":   ", depth)
            for c in n.children:
                head = f"{indent}{n.kind} {n.label} (rule {n.rule}) -> {c.shown_outcome}{fmt_p(c)}"
                if c.is_leaf:
                    lines.append(f"{head} => {result(c.result)}")
                else:
                    lines.append(head)
                    if max_depth is None or depth < max_depth:
                        go(c, indent + "  ", depth + 1)

        if self.root is not None:
            if self.root.is_leaf:
                lines.append(f"(certain) => {result(self.root.result)}")
            else:
                go(self.root, "", 0)
        return "\n".join(lines)
