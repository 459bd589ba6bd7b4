"""The shape of the Battle Commander package (issue 27): modules under 800 lines, no import cycles (imports
inside functions counted), no private name imported from another module, an explicit handler per action kind,
every action with its kind and side, sides and phases as StrEnums equal to the record strings."""
from __future__ import annotations

import ast
from dataclasses import fields
from enum import StrEnum
from pathlib import Path

from engine.bc.game.actions import ACTION_TYPES, Kind, action_from_json, action_to_json
from engine.bc.game.handlers import ALLOWED, HANDLERS
from engine.bc.game.types import SIDES, Phase, Side

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "engine" / "bc"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(ROOT).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _imports(name: str, path: Path):
    """(module imported, names) for every import of ``path``, at any depth (inside functions too)."""
    base = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            b = base
            for _ in range(max(node.level - 1, 0)):
                b = b.rpartition(".")[0]
            target = (b + ("." + node.module if node.module else "")) if node.level else node.module
            yield target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def test_no_module_over_800_lines():
    big = {str(p.relative_to(ROOT)): n for p in _modules().values() if (n := len(p.read_text().splitlines())) > 800}
    assert big == {}


def test_no_import_cycles_and_no_private_imports():
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    private = []
    for m, p in mods.items():
        for target, names in _imports(m, p):
            for n in names:
                if f"{target}.{n}" in mods:
                    edges[m].add(f"{target}.{n}")
                if n.startswith("_") and target.startswith("engine."):
                    private.append(f"{m} imports {n} from {target}")
            if target in mods and target != m:
                edges[m].add(target)
    assert private == []
    # a cycle is a module that reaches itself
    for start in mods:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()]:
                assert nxt != start, f"import cycle through {start}"
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)


def test_no_handler_found_by_a_name_built_from_a_string():
    text = "\n".join(p.read_text() for p in _modules().values())
    assert 'getattr(self, f"_do_' not in text and "getattr(self, f'_do_" not in text


def test_every_kind_has_its_type_handler_and_phase():
    assert set(HANDLERS) == set(ACTION_TYPES) == set(Kind)
    assert set().union(*ALLOWED.values()) == set(Kind)
    for kind, t in ACTION_TYPES.items():
        assert t.kind == kind and t.rule
        assert [f.name for f in fields(t)][0] == "side"
        a = t(Side.COALITION)
        assert action_to_json(a) == {"kind": str(kind), "side": "coalition"}
        assert action_from_json(action_to_json(a)) == a


def test_sides_and_phases_are_str_enums_written_as_the_record_strings():
    assert issubclass(Side, StrEnum) and issubclass(Phase, StrEnum) and issubclass(Kind, StrEnum)
    assert SIDES == ("french", "coalition") and Phase.YELLOW_RALLY == "yellow_rally"
    assert repr(Side.FRENCH) == "'french'" and f"{Phase.RED}" == "red"
    assert hash(Side.COALITION) == hash("coalition")
