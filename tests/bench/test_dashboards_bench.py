"""Benchmarks of the dashboards' server-side work (pytest-benchmark; not timed assertions)."""
from __future__ import annotations

import pytest

from dashboards.calculators.n20.battle_form import BattlePlan, example_battles
from dashboards.calculators.n20.results import results_html

pytestmark = pytest.mark.benchmark


@pytest.fixture(scope="module")
def plan():
    return BattlePlan.from_battle_file(example_battles()["n20_context_free_battle"])


def test_bench_odds_update_after_a_strength_change(benchmark, plan):
    """What the server does between an input change and the new odds panel: exact odds + the HTML."""
    values = iter(range(10**9))

    def change():
        plan.attackers[0].strength = 2 + next(values) % 4
        return results_html(plan)

    html = benchmark(change)
    assert "odds-results" in html and plan.error == ""


def test_bench_map_redraw_with_reachable_hexes(benchmark):
    from engine.n20.game.setup import new_game
    from dashboards.calculators.n20.map_view import GameMapView

    view = GameMapView(new_game("fuentes"))
    units = iter(["A1", "ALT", "A3", "A7"] * 10**6)

    def select():
        view.selected = next(units)
        return view.reach

    assert benchmark(select)


# -- one session's page (issue 17): what the server does for a new browser session, per page ----------------
@pytest.mark.parametrize("route", ["/", "/odds", "/tree", "/map", "/play"])
def test_bench_new_session_page(benchmark, route, tmp_path, monkeypatch):
    """Build the page for a new session as the server does: the page's objects, the document's models and
    the JSON sent to the browser (scripts/load_sessions.py measures the same through HTTP)."""
    from bokeh.document import Document
    from bokeh.embed.util import standalone_docs_json_and_render_items
    from panel.io.state import set_curdoc

    from dashboards.app import routes

    monkeypatch.setenv("VEDETTE_DB", str(tmp_path / "games.sqlite3"))
    factory = routes()[route]

    def build():
        doc = Document()
        with set_curdoc(doc):
            factory().server_doc(doc)
            docs_json, _ = standalone_docs_json_and_render_items(doc)
        return len(doc.models)

    assert benchmark(build) > 0
