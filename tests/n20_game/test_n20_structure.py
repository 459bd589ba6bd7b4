"""The shape of the Napoleonic 20 code (issue 27): no import cycle (imports inside functions and type-only
imports count), no private name crossing a module, bots above the protocol, no module over 800 lines, and
the pre-protocol facade gone. Read from the source files themselves (the ast), so a new edge fails here."""
from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "engine" / "n20"

#: attribute reads of another object's private name that are the object's own class at work: equality of
#: two game states (state.py) and a board made from another (board.py)
SAME_CLASS = {("engine/n20/game/state.py", "other._hash"), ("engine/n20/board.py", "new._zoc_now")}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (f, is_pkg)
    return out


def _imports(name: str, f: Path, is_pkg: bool, mods) -> set[str]:
    """Every module of the package ``name`` imports, wherever the import stands (top, function, if)."""
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            target = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else [])) \
                if node.level else node.module
            cands = ([target] if node.module else []) + [f"{target}.{a.name}" for a in node.names]
            out |= {c for c in cands if c in mods and c != name}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in mods and a.name != name}
    return out


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
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
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_engine_n20():
    mods = _modules()
    edges = {m: _imports(m, f, p, mods) for m, (f, p) in mods.items()}
    assert _cycles(edges) == []


def test_bots_import_the_protocol_never_the_reverse():
    mods = _modules()
    edges = {m: _imports(m, f, p, mods) for m, (f, p) in mods.items()}
    assert "engine.n20.game.protocol" in edges["engine.n20.game.bots"]
    assert not {"engine.n20.game.bots", "engine.n20.game.odds_bot"} & edges["engine.n20.game.protocol"]


def test_the_bots_are_offered_whatever_module_is_imported_first():
    # a fresh interpreter that imports only the protocol module (the core registry does the same)
    code = ("from engine.n20.game.protocol import N20Rules; "
            "print(','.join(N20Rules().bots()))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "random,greedy,odds"


def test_no_private_name_crosses_a_module_in_engine_n20():
    found = []
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found += [f"{rel}: imports {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = ast.unparse(node.value)
                if owner in ("self", "cls") or (rel, f"{owner}.{node.attr}") in SAME_CLASS:
                    continue
                found.append(f"{rel}: reads {owner}.{node.attr}")
    assert found == []


def test_no_module_over_800_lines_in_engine_n20():
    long = {f.relative_to(ROOT).as_posix(): n for f in PACKAGE.rglob("*.py")
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


@pytest.mark.parametrize("gone", ["engine.n20.game.engine", "engine.n20.game.rules"])
def test_the_pre_protocol_facade_and_the_old_rules_module_are_gone(gone):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(gone)
