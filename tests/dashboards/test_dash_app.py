"""The served app's index and page discovery (no browser)."""
from __future__ import annotations

from dashboards import app
from dashboards.server import serve
from dashboards.server.storage import GameStore


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
    assert "Traceback" not in html and 'File "' not in html      # the traceback goes to the log only


def test_saved_games_table_lists_only_games_whose_keys_the_browser_holds(tmp_path):
    db = tmp_path / "g.sqlite3"
    store = GameStore(db)
    gid = store.create("n20", "fuentes", title="Tuesday game", sides=("french", "allied"))
    other = store.create("n20", "bussaco", title="someone else's game", sides=("french", "allied"))
    owner = store.keys(gid)["owner"]
    pane = app.saved_games_table(db, keys=[owner])
    assert f"/play?game={gid}&amp;key={owner}" in pane.object and "mode=replay" in pane.object
    assert "Tuesday game" in pane.object and other not in pane.object and "someone else" not in pane.object
    # a browser holding no key sees neither game
    assert "No saved games" in app.saved_games_table(db, keys=[]).object
    # a public game is listed for everyone, with a watch link that carries no key
    store.set_public(other, True)
    html = app.saved_games_table(db, keys=[]).object
    assert "someone else" in html and "watch" in html and store.keys(other)["owner"] not in html


def test_saved_games_table_empty(tmp_path):
    pane = app.saved_games_table(tmp_path / "empty.sqlite3")
    assert "No saved games" in pane.object


def test_serve_options():
    args = serve.build_parser().parse_args(["--port", "8080", "--address", "0.0.0.0", "--allow-websocket-origin",
                                            "club:8080", "--num-procs", "2", "--num-threads", "4", "--db", "x.db"])
    assert (args.port, args.address, args.allow_websocket_origin, args.num_procs, args.num_threads, args.db) == \
        (8080, "0.0.0.0", ["club:8080"], 2, 4, "x.db")
    assert serve.build_parser().parse_args([]).port == 5006


def test_serve_start_names_the_file_and_the_cause(tmp_path, monkeypatch, capsys):
    """A saved-games path that cannot be used stops ``vedette-serve`` at once with one line (exit 2)."""
    monkeypatch.setenv("VEDETTE_DB", "unused")   # serve.main sets it; monkeypatch puts it back after
    bad = tmp_path / "not-a-folder"
    bad.write_text("a file where the data folder should be")
    db = bad / "games.sqlite3"
    assert serve.main(["--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(db) in err


def test_serve_links_prints_owner_links(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VEDETTE_DB", "unused")   # serve.main sets it; monkeypatch puts it back after
    db = tmp_path / "g.sqlite3"
    store = GameStore(db)
    gid = store.create("n20", "fuentes", title="club", sides=("french", "allied"))
    assert serve.main(["--db", str(db), "--links"]) == 0
    out = capsys.readouterr().out
    assert f"/play?game={gid}&key={store.keys(gid)['owner']}" in out


def test_the_header_is_static_html_in_the_page_template_not_a_model():
    """Issue 17: the header bar (project, page title, a link per page) is the same for every session, so it
    is written into the served HTML page's template; the document holds the page's body alone."""
    from bokeh.document import Document
    from bokeh.embed import file_html
    from bokeh.resources import INLINE
    from panel.io.state import set_curdoc

    info = {p.route: p for p in app.discover_pages()}["/map"]
    doc = Document()
    with set_curdoc(doc):
        view = app.page_view(info)
        view.server_doc(doc)
    assert [type(r).__name__ for r in doc.roots if type(r).__name__ != "Location"] == ["Column"]   # the body
    assert not any("vedette-header" in str(getattr(m, "text", "")) for m in doc.models)
    page = file_html(doc.roots[:1], INLINE, "t", template=doc.template, template_variables=doc.template_variables)
    head = page[page.index("<header"):page.index("</header>")]
    assert 'class="page-title">Map (Napoleonic 20)<' in head and 'href="/"' in head
    for p in app.discover_pages():
        assert f'href="{p.route}"' in head
    assert page.index("</header>") < page.index('data-root-id')       # above the page's root
    assert ".vedette-nav a" in page                                   # the shell's stylesheet is on the page
