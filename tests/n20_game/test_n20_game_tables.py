"""A game played with the CRT a player typed in on /charts (issue 25 point 4), worked by hand.

The test scenario (n20_game_helpers): F1, French infantry of strength 3, in 0302; A1, British infantry of
strength 3, in 0303, next to it on clear ground. F1 attacks A1: attack 3 against defence 3 (9.0 B-C: no
terrain, no modifier), differential 3 - 3 = 0, so the CRT's column 0 (9.0 E); a die of 1 reads row 1.
The shipped v3 chart has AW there (tables_v3.yaml, row 1: AB AB AR AR [AW] ...): the attacker withdraws
one hex (9.6 [C]): F1 goes back to 0201 and A1 advances into 0302 (9.9). The player's printed chart, typed
in on the charts page, has N in that cell: no effect, so F1 stays in 0302 and A1 in 0303. The game is
started by the CLI with the saved file, the file is deleted, and every later step (act, replay) reads the
values the record keeps."""
from __future__ import annotations

import contextlib
import io
import json

import pytest

from dashboards.calculators.charts_model import ChartBook
from engine.cli import main

from n20_game_helpers import make_scenario


def cli(*argv: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    assert rc == 0, err.getvalue()
    return json.loads(out.getvalue())


def _battle(tmp_path, tables: str | None) -> tuple[dict, str]:
    """F1 attacks A1 with a die of 1; the replayed position and the record's path."""
    sc = make_scenario(tmp_path, setup=[("F1", "0302"), ("A1", "0303")])
    rec = str(tmp_path / ("mine.json" if tables else "shipped.json"))
    cli("n20", "new", "--scenario", sc, "--seed", "1", "--record", rec, *(["--tables", tables] if tables else []))
    if tables:
        (tmp_path / "my_n20_v3_charts.yaml").unlink()              # the record alone carries the values now
    for action in ("draw_event", "end", "declare F1>A1"):    # 4.0: event, movement, then combat
        cli("n20", "act", rec, action)
    done = cli("n20", "act", rec, "resolve 0", "--dice", "1")
    roll = next(a for a in done["answers"] if a["kind"] == "roll")
    assert (roll["rule"], roll["label"], roll["value"]) == ("9.0 F", "CRT column +0", 1)
    return cli("n20", "replay", rec, "--full"), rec


def _where(pos: dict) -> dict:
    return {u["id"]: u["hex"] for u in pos["state"]["units"] if u["id"] in ("F1", "A1")}


def test_the_typed_crt_cell_decides_the_battle_and_the_record_keeps_it(tmp_path):
    book = ChartBook("n20-v3")
    crt = book.block("crt")
    rows, cols, cells = crt.grid()
    assert cols[4] == "+0" and cells[0][4] == "AW"                 # row 1, column 0 of the shipped chart
    crt.set_grid_cell("1", 4, "N")
    crt.set_source("published chart player aid of my copy")
    (tmp_path / book.filename()).write_bytes(book.to_bytes())      # the page's "Save the file"

    shipped, _ = _battle(tmp_path / "a", None)
    assert _where(shipped) == {"F1": "0201", "A1": "0302"}         # AW: F1 withdraws, A1 advances
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / book.filename()).write_bytes(book.to_bytes())
    mine, rec = _battle(tmp_path / "b", str(tmp_path / "b" / book.filename()))
    assert _where(mine) == {"F1": "0302", "A1": "0303"}            # N: nobody moves
    kept = json.loads(open(rec).read())["options"]["tables"]
    assert kept["file"] == "my_n20_v3_charts.yaml" and kept["content"]["crt"]["rows"]["1"][4] == "N"
    charts = mine["charts"][0]
    assert (charts["values"], charts["file"], charts["fingerprint"]) == ("your printed values",
                                                                           "my_n20_v3_charts.yaml", kept["fingerprint"])
    assert charts["tables"]["crt"] == {"source": "published chart player aid of my copy", "kind": "published chart"}
    assert charts["tables"]["tec"]["kind"] == "provisional"        # per table: the ones left as shipped say so


def test_odds_on_the_record_use_the_typed_chart(tmp_path):
    """The exact odds of F1's attack in the record's position (the odds verb, as the play page shows them).
    Column 0 of the shipped chart, rows 1-6: AW AW N DW DW DR, so 'both sides hold' (N) is 1/6 and 'the
    attacker retreats' (AW) 2/6 = 1/3. With row 1 typed N: N on rows 1 and 3, 2/6 = 1/3; AW on row 2 only, 1/6."""
    from fractions import Fraction

    book = ChartBook("n20-v3")
    book.block("crt").set_grid_cell("1", 4, "N")
    f = tmp_path / book.filename()
    f.write_bytes(book.to_bytes())
    sc = make_scenario(tmp_path, setup=[("F1", "0302"), ("A1", "0303")])
    out = {}
    for name, extra in (("shipped", []), ("mine", ["--tables", str(f)])):
        rec = str(tmp_path / f"{name}.json")
        cli("n20", "new", "--scenario", sc, "--seed", "1", "--record", rec, *extra)
        for action in ("draw_event", "end", "declare F1>A1"):
            cli("n20", "act", rec, action)
        out[name] = {o["label"]: Fraction(o["probability"]["fraction"])
                     for o in cli("n20", "odds", "--record", rec, "resolve 0")["outcomes"]}
    hold, back = "both sides hold", "defender advances 1 hex; attacker retreats 1 hex"
    assert (out["shipped"][hold], out["shipped"][back]) == (Fraction(1, 6), Fraction(1, 3))
    assert (out["mine"][hold], out["mine"][back]) == (Fraction(1, 3), Fraction(1, 6))
