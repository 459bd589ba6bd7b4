"""The served app's index and page discovery (no browser)."""
from __future__ import annotations

from dashboards import app, serve
from dashboards.storage import GameStore


def test_every_page_module_is_routed_and_has_title_and_summary():
    pages = app.discover_pages()
    routes = app.routes()
    assert "/" in routes
    for p in pages:
        assert p.route in routes
        if p.factory is not None:
            assert p.title and isinstance(p.summary, str)


def test_a_page_that_raises_shows_an_error_instead_of_failing():
    def broken():
        raise RuntimeError("boom")

    view = app.page_view(app.PageInfo("broken", "Broken", "", broken))
    html = str(view.main[0].object)
    assert "could not be built" in html and "boom" in html


def test_saved_games_table_links_to_resume_and_replay(tmp_path):
    db = tmp_path / "g.sqlite3"
    gid = GameStore(db).create("n20", "fuentes", title="Tuesday game")
    pane = app.saved_games_table(db)
    assert f"/play?game={gid}" in pane.object and "mode=replay" in pane.object and "Tuesday game" in pane.object


def test_saved_games_table_empty(tmp_path):
    pane = app.saved_games_table(tmp_path / "empty.sqlite3")
    assert "No saved games" in pane.object


def test_serve_options():
    args = serve.build_parser().parse_args(["--port", "8080", "--address", "0.0.0.0", "--allow-websocket-origin",
                                            "club:8080", "--num-procs", "2", "--num-threads", "4", "--db", "x.db"])
    assert (args.port, args.address, args.allow_websocket_origin, args.num_procs, args.num_threads, args.db) == \
        (8080, "0.0.0.0", ["club:8080"], 2, 4, "x.db")
    assert serve.build_parser().parse_args([]).port == 5006
