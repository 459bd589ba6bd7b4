"""The charts page model (issue 17 point 5): typed values round-trip to a tables file the engine loads."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dashboards.calculators.charts_model import SYSTEMS, ChartBook, parse_cell
from engine.core.data import provenance_kind

REPO = Path(__file__).resolve().parents[2]
WORKED = REPO / "data" / "examples" / "n20_worked_example.yaml"


def _odds(tables: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine.cli", "n20", "odds", str(WORKED), "--tables", str(tables)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def test_typed_crt_cell_and_source_reach_the_cli(tmp_path):
    book = ChartBook("n20-v3")
    crt = book.block("crt")
    assert crt.is_grid and crt.provisional and "crt" in book.provisional()
    rows, cols, cells = crt.grid()
    assert rows == ["1", "2", "3", "4", "5", "6"] and cols[6] == "+2" and cells[0][6] == "EX"
    crt.set_grid_cell("1", 6, "DR")                      # die 1 on column +2: EX -> DR
    crt.set_source("published chart, the player aid of my copy")
    assert crt.kind == "published chart" and "crt" not in book.provisional()
    book.check()
    f = tmp_path / "mine.yaml"
    f.write_text(book.to_yaml(), encoding="utf-8")
    out = _odds(f)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    # worked example, column +2, now 1 DR, 2 N, 3-4 DW, 5-6 DR: DR on 3 faces of 6 = 1/2, no EX left
    assert res["column"] == 2
    assert res["crt"]["DR"]["fraction"] == "1/2" and "EX" not in res["crt"]


def test_a_bad_typed_value_is_refused_by_the_engine(tmp_path):
    book = ChartBook("n20-v3")
    book.block("crt").set_grid_cell("2", 6, "XX")
    with pytest.raises(Exception) as e:
        book.check()
    assert "crt" in str(e.value) and "/tmp" not in str(e.value)
    f = tmp_path / "bad.yaml"
    f.write_text(book.to_yaml(), encoding="utf-8")
    out = _odds(f)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1


def test_values_by_path_keep_their_types():
    book = ChartBook("n20-v3")
    tec = book.block("tec")
    rows = dict(tec.rows())
    assert rows["terrain.forest.combat"] == "1" and rows["terrain.forest.movement.stop"] == "true"
    tec.set_value("terrain.forest.combat", "2")
    tec.set_value("terrain.forest.movement.stop", "false")
    assert book.data["tec"]["terrain"]["forest"]["combat"] == 2
    assert book.data["tec"]["terrain"]["forest"]["movement"]["stop"] is False
    assert parse_cell("1611", like="1611") == "1611" and parse_cell("[1, 2]") == [1, 2] and parse_cell("") is None
    book.check()


@pytest.mark.parametrize("key", list(SYSTEMS))
def test_every_shipped_chart_file_round_trips(key):
    book = ChartBook(key)
    assert book.blocks() and not book.changed()
    book.check()                                         # the engine's loader accepts the written file
    assert ChartBook(key, text=book.to_yaml()).data == book.data


def test_provisional_marked_per_block():
    book = ChartBook("n20-v3")
    kinds = {b.name: b.kind for b in book.blocks()}
    # shipped v3 charts: only the Controlled Advance Table comes from a published chart
    assert kinds["controlled_advance"] == "published chart"
    assert set(book.provisional()) == {"crt", "tec", "rally", "morale_chart"}


@pytest.mark.parametrize("text,kind", [("rulebook", "rulebook"), ("rulebook 9.6, as we read it", "rulebook"),
                                       ("published chart player aid 2", "published chart"),
                                       ("provisional guess", "provisional"), ("uploaded by the club", "uploaded")])
def test_source_takes_any_wording_after_its_kind(text, kind):
    book = ChartBook("n20-v3")
    book.block("rally").set_source(text)
    book.check()
    assert provenance_kind(text) == kind


def test_page_builds():
    from dashboards.pages.charts import ChartsView

    v = ChartsView()
    assert len(v.tabs) == 5 and "Still provisional" in v.summary.object
    assert v.check() and "engine loads" in v.status.object
    v.pick.value = "bc-deck"
    assert len(v.tabs) == 1 and v.download.filename == "my_bc_deck_charts.yaml"
