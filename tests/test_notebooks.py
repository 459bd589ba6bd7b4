"""Every notebook in notebooks/ runs top to bottom without an error (so the walkthroughs never rot)."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


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
