"""The shape of the TBF engine (issue 27): the game is a package laid out like every system's (value types,
state, one module per rule chapter, an explicit handler table, a thin protocol, bots, words); no module of
engine/tbf is over 800 lines; its modules import each other without a cycle (imports inside functions
counted) and import no private name of another module; no action is dispatched by a name built from a
string; sides, segments and statuses are StrEnums that are their strings to a record."""
from __future__ import annotations

import ast
import json
from pathlib import Path

from engine.tbf.game import actions as A
from engine.tbf.game.handlers import HANDLERS
from engine.tbf.game.protocol import TbfRules
from engine.tbf.game.state import Impulse, Piece
from engine.tbf.game.types import SIDES, Segment, Side, Status

ROOT = Path(__file__).resolve().parents[2] / "engine" / "tbf"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(ROOT.rglob("*.py")):
        parts = p.relative_to(ROOT.parents[1]).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _imports(mod: str, path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names) of every import of ``path``, those inside functions too."""
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = pkg[:len(pkg) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            out.append((target, [a.name for a in node.names]))
    return out


def test_the_game_package_has_the_shape_of_every_system():
    names = {p.stem for p in (ROOT / "game").glob("*.py")}
    assert {"actions", "state", "types", "handlers", "protocol", "bots", "words", "activation", "movement",
            "fire_combat", "melee_combat", "phases", "victory", "exclusive"} <= names
    # the old all-in-one modules are gone: one file name, one layer
    assert not {"rules", "actions", "protocol", "bots"} & {p.stem for p in ROOT.glob("*.py")}


def test_no_module_over_800_lines():
    sizes = {m: p.read_text().count("\n") for m, p in _modules().items()}
    assert max(sizes.values()) <= 800, sorted(sizes.items(), key=lambda kv: -kv[1])[:3]


def test_no_import_cycle_and_no_private_import():
    mods = _modules()
    graph: dict[str, set[str]] = {}
    private = []
    for m, p in mods.items():
        deps = set()
        for target, names in _imports(m, p):
            plain = not names
            for n in names:
                if f"{target}.{n}" in mods:
                    deps.add(f"{target}.{n}")          # a module of a package, imported by name
                else:
                    plain = True
                    if n.startswith("_") and not n.startswith("__") and target.startswith("engine."):
                        private.append(f"{m} imports {target}.{n}")
            if plain and target in mods:
                deps.add(target)
        graph[m] = deps - {m}
    assert not private, private
    done: set[str] = set()

    def visit(m, path):
        if m in path:
            raise AssertionError("import cycle: " + " -> ".join(path[path.index(m):] + [m]))
        if m in done:
            return
        for d in sorted(graph[m]):
            visit(d, path + [m])
        done.add(m)

    for m in sorted(graph):
        visit(m, [])


def test_every_kind_has_its_handler_and_no_name_is_built_from_a_string():
    assert set(HANDLERS) == set(A.KINDS) == set(A.RULE_OF)
    for kind, cls in A.KINDS.items():
        fields = cls.__dataclass_fields__
        assert "side" in fields and fields["kind"].default == kind
    for p in ROOT.rglob("*.py"):
        text = p.read_text()
        assert 'getattr(self, f"_' not in text and "getattr(self, f'_" not in text, p


def test_sides_segments_statuses_are_their_strings():
    # 3.3 B segments in order; a member equals, hashes, formats, reprs and writes to JSON as its string
    assert [str(s) for s in Segment] == ["movement", "defensive_fire", "offensive_fire", "melee"]
    assert SIDES == ("french", "coalition") and TbfRules.sides == SIDES
    for member, text in ((Side.FRENCH, "french"), (Status.FATIGUED, "fatigued"), (Segment.MELEE, "melee")):
        assert member == text and hash(member) == hash(text) and f"{member}" == text and repr(member) == repr(text)
        assert json.dumps({"x": member}) == json.dumps({"x": text})
    assert repr(Piece("4l-1", "2014", 0, Status.FATIGUED)) == repr(Piece("4l-1", "2014", 0, "fatigued"))
    imp = Impulse(Side.FRENCH, "gazan", Segment.MELEE)
    assert TbfRules().state_to_json  # (the whole state's JSON is checked by the conformance round trips)
    assert repr(imp) == repr(Impulse("french", "gazan", "melee"))
