"""Every notebook in notebooks/ runs top to bottom without an error (so the walkthroughs never rot), and
each walkthrough of a recorded game shows every turn of its record (issue 15.7)."""
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from engine.core.game import replay, system_of
from engine.core.record import GameRecord
from engine.core.walk import turns_of

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: the walkthroughs of a recorded game: each names its record in its metadata ("vedette": system, record)
RECORDED_WALKTHROUGHS = ("n20_fuentes_walkthrough", "n20_bussaco_walkthrough", "lob_albuera_walkthrough",
                         "tbf_durenstein_walkthrough", "bc_demo_walkthrough")
MAX_EXECUTED_BYTES = 5 * 1024 * 1024


def _output_texts(nb) -> list[str]:
    """Every text a notebook's outputs hold: streams, tracebacks, and each text or HTML display."""
    out = []
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o.get("text", ""))
            elif o.get("output_type") == "error":
                out.append("\n".join(o.get("traceback", [])))
            for mime, v in (o.get("data") or {}).items():
                if mime.startswith("text/"):
                    out.append(v if isinstance(v, str) else "".join(v))
    return out


def _record_turns(meta) -> list[int]:
    rules = system_of(meta["system"])
    return turns_of(rules, replay(rules, GameRecord.load(ROOT / meta["record"])))


@pytest.mark.parametrize("name", RECORDED_WALKTHROUGHS)
def test_each_recorded_walkthrough_names_a_record_that_replays(name):
    nb = nbformat.read(ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    meta = nb.metadata.get("vedette")
    assert meta and {"system", "record"} <= set(meta), f"{name}: metadata 'vedette' names no record"
    assert _record_turns(meta), f"{name}: the record has no event"


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds the walkthroughs; none found"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path, monkeypatch):
    # studies and other sampled notebooks run at a small size in the test run (the kernel inherits this)
    monkeypatch.setenv("VEDETTE_NOTEBOOK_SIZE", "small")
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    # figures are shown live through Panel (pn.extension()), never as Bokeh's standalone output, which
    # drops their Python callbacks with a warning (issue 17)
    stderr = [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "stream" and o.get("name") == "stderr"]
    assert not [t for t in stderr if "standalone" in t.lower()], stderr
    meta = nb.metadata.get("vedette")
    if meta:
        # a walkthrough of a record: every turn of the record is shown, no Bokeh warning anywhere in the
        # outputs, and the executed notebook stays small enough to open and share
        texts = "\n".join(_output_texts(nb))
        assert "BokehUserWarning" not in texts and "standalone" not in texts.lower()
        missing = [t for t in _record_turns(meta) if not re.search(rf"\bTurn {t}\b", texts)]
        assert not missing, f"{path.stem}: turns {missing} of {meta['record']} are not shown"
        assert len(nbformat.writes(nb).encode()) < MAX_EXECUTED_BYTES
