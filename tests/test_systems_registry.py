"""The shipped systems in one explicit table (issue 27 point 2): core finds no system by a module-name
string; engine.systems imports each protocol and registers it; a study worker gets the rules' class."""
import subprocess
import sys
from pathlib import Path

import pytest

import engine.systems as S
from engine.core import game as core
from engine.core.errors import VedetteError
from engine.core.simulate import Study, play_one

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_names_every_shipped_system_and_registers_it():
    assert set(S.SHIPPED) == {"n20", "lob", "tbf", "bc"}
    assert set(S.SHIPPED) <= set(core.systems())
    for name, cls in S.SHIPPED.items():
        rules = S.system_of(name)
        assert isinstance(rules, cls) and rules.system == name
        assert core.factory_of(name) is cls


def test_an_unknown_system_is_one_line_naming_the_known_ones():
    with pytest.raises(VedetteError, match="unknown game system 'chess'; one of ") as e:
        core.system_of("chess")
    assert all(name in str(e.value) for name in ("bc", "lob", "n20", "tbf")) and "\n" not in str(e.value)


def test_core_alone_knows_no_system():
    # a fresh interpreter that imports core only: nothing registered, and the error says where they come from
    code = ("from engine.core.game import systems, system_of\n"
            "print(systems())\n"
            "try:\n    system_of('lob')\nexcept Exception as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.stdout.splitlines() == ["[]", "unknown game system 'lob'; one of none registered: import engine.systems"]
    source = (ROOT / "engine/core/game.py").read_text()
    assert "engine.lob" not in source and "importlib" not in source


def test_a_study_game_played_with_the_class_sent_to_a_worker_is_the_registered_one():
    study = Study("lob", games=1, seed=5, max_actions=40).validate()
    assert play_one(study, 0, S.SHIPPED["lob"]) == play_one(study, 0)
