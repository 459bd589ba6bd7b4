"""Measure the shape of a Python package tree (issue 27): modules over N lines, import cycles counting
imports inside functions, private names imported across modules, and reads of another object's private
attributes.

    python scripts/code_shape.py                 # engine/, summary
    python scripts/code_shape.py engine/lob -v   # one package, every finding listed

Imports are read from the source (``ast``), never executed. A module's imports count whether at the top
or inside a function; ``from . import x`` counts as importing the submodule ``x`` when it is one. A cycle
is a strongly connected set of modules (Tarjan) of two or more; each is listed with its members.
A private name is one starting with ``_`` (not a dunder); "imported across modules" means ``from M import
_name`` with M another module of the tree. A private attribute read is ``obj._name`` where ``obj`` is not
``self`` or ``cls`` (a module alias counts too).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root.parent if root.name != "." else root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve(mod: str, is_pkg: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def scan(top: Path):
    files = sorted(p for p in top.rglob("*.py") if "__pycache__" not in p.parts)
    root = top
    while (root.parent / "__init__.py").exists():
        root = root.parent
    mods = {module_name(root, p): p for p in files}
    edges: dict[str, set[str]] = {m: set() for m in mods}
    private_imports: list[str] = []
    private_reads: list[str] = []
    sizes = {m: len(p.read_text(encoding="utf-8").splitlines()) for m, p in mods.items()}
    for m, p in mods.items():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        is_pkg = p.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    name = a.name
                    while name and name not in mods:
                        name = name.rpartition(".")[0]
                    if name and name != m:
                        edges[m].add(name)
            elif isinstance(node, ast.ImportFrom):
                src = resolve(m, is_pkg, node.level, node.module)
                for a in node.names:
                    sub = f"{src}.{a.name}" if src else a.name
                    if sub in mods:
                        if sub != m:
                            edges[m].add(sub)
                        continue
                    name = src
                    while name and name not in mods:
                        name = name.rpartition(".")[0]
                    if name and name != m:
                        edges[m].add(name)
                        if a.name.startswith("_") and not a.name.startswith("__"):
                            private_imports.append(f"{m}: from {src} import {a.name}")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    obj = node.value
                    if isinstance(obj, ast.Name) and obj.id in ("self", "cls"):
                        continue
                    private_reads.append(f"{m}:{node.lineno}: .{node.attr}")
    return mods, sizes, edges, private_imports, private_reads


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in edges:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("top", nargs="?", default="engine")
    ap.add_argument("--lines", type=int, default=800)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    mods, sizes, edges, pimports, preads = scan(Path(args.top))
    big = sorted((n, m) for m, n in sizes.items() if n > args.lines)
    cyc = cycles(edges)
    print(f"modules: {len(mods)}")
    print(f"modules over {args.lines} lines: {len(big)}")
    if args.verbose:
        for n, m in reversed(big):
            print(f"  {n:5d} {m}")
    print(f"import cycles (imports inside functions counted): {len(cyc)}")
    for c in cyc:
        print("  " + " <-> ".join(c))
    print(f"private names imported across modules: {len(pimports)}")
    if args.verbose:
        for x in pimports:
            print("  " + x)
    print(f"reads of another object's private attributes: {len(preads)}")
    if args.verbose:
        for x in preads:
            print("  " + x)
    return 0


if __name__ == "__main__":
    sys.exit(main())
