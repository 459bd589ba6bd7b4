"""The served app: an index page and one page per tool, discovered in ``dashboards/pages``.

Every module in ``dashboards/pages`` that defines ``TITLE``, ``SUMMARY`` and ``page()`` is served at
``/<module name>``. ``page()`` is called once per browser session, so every session has its own state.
A page module that fails to import, or whose ``page()`` raises, shows an error on its own route while
the index and the other pages keep working.

Run it with ``vedette-serve`` (see :mod:`dashboards.server.serve`); ``panel serve dashboards/app.py`` also works
and serves the index alone.
"""
from __future__ import annotations

import html
import importlib
import logging
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import panel as pn
from panel.viewable import ServableMixin

from dashboards.server import storage
from dashboards.server.access import browser_keys, game_link

log = logging.getLogger("vedette.dashboards")

__all__ = ["PageInfo", "discover_pages", "index", "page_view", "routes", "saved_games_html", "saved_games_table",
           "PROJECT", "ABOUT"]

PROJECT = "Vedette"
ABOUT = (
    "Vedette is a rules engine and a set of dashboards for Napoleonic board wargames "
    "(Napoleonic 20: Fuentes de Oñoro 20 and Bussaco 20; Lines of Battle; Battle Commander; These Brave "
    "Fellows). Work out the exact odds of an attack before rolling, look at a battle as a probability tree, "
    "study the map, and play a hotseat game with the rules checked for you. Games are saved as you play, "
    "so you can close the browser and come back later."
)

#: The page that plays (resumes, replays) a saved game of each game system.
PLAY_PAGES = {"n20": "/play", "lob": "/play", "tbf": "/play", "bc": "/play"}
# Order of the n20 tools on the index; other pages follow alphabetically.
_ORDER = ["odds", "tree", "map", "play"]


@dataclass(frozen=True)
class PageInfo:
    slug: str
    title: str
    summary: str
    factory: Callable[[], object] | None
    error: str = ""

    @property
    def route(self) -> str:
        return f"/{self.slug}"


def discover_pages() -> list[PageInfo]:
    """Every page module in ``dashboards/pages`` (import errors are kept, not raised)."""
    import dashboards.pages as pkg

    found: list[PageInfo] = []
    for mod in pkgutil.iter_modules(pkg.__path__):
        if mod.name.startswith("_") or mod.ispkg:
            continue
        try:
            m = importlib.import_module(f"dashboards.pages.{mod.name}")
        except Exception:  # a broken page must not take the app down; the traceback goes to the server's log
            log.exception("page module dashboards.pages.%s failed to import", mod.name)
            found.append(PageInfo(mod.name, mod.name, "this page failed to load", None,
                                  "the page's code failed to load"))
            continue
        fn = getattr(m, "page", None)
        if not callable(fn):
            continue
        found.append(PageInfo(mod.name, str(getattr(m, "TITLE", mod.name)), str(getattr(m, "SUMMARY", "")), fn))
    rank = {s: i for i, s in enumerate(_ORDER)}
    found.sort(key=lambda p: (rank.get(p.slug, len(_ORDER)), p.slug))
    return found


#: The page shell's stylesheet: a header bar with the links to every tool (no sidebar: the pages get the width).
SHELL_CSS = """
.vedette-header {display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 18px;background:#2f4f6f;color:#fff;
                 padding:8px 16px;font-family:system-ui,sans-serif}
.vedette-header .brand {font-size:20px;font-weight:600;color:#fff;text-decoration:none;white-space:nowrap}
.vedette-header .page-title {font-size:16px;white-space:nowrap}
.vedette-nav {display:flex;flex-wrap:wrap;gap:2px 12px;list-style:none;margin:0;padding:0;font-size:13px}
.vedette-nav a {color:#dfe9f3;text-decoration:none;white-space:nowrap}
.vedette-nav a:hover {text-decoration:underline}
@media (max-width: 700px) {
  .vedette-header {padding:6px 12px}
  .vedette-nav {flex-wrap:nowrap;overflow-x:auto;max-width:100%;gap:0 14px;padding-bottom:2px}
  .vedette-nav a {display:inline-block;padding:8px 0}
}
"""


#: every page is laid out for the screen's own width (a phone gets a page 390 px wide, not a desktop page
#: shrunk to 40 %); the reader may still zoom with a pinch
VIEWPORT_META = '<meta name="viewport" content="width=device-width, initial-scale=1">'


@lru_cache(maxsize=1)
def _nav_html() -> str:
    """The links to every page (the same for every session: built once per process)."""
    links = "".join(f'<li><a href="{p.route}">{html.escape(p.title)}</a></li>' for p in discover_pages())
    return f'<ul class="vedette-nav">{links}</ul>'


@lru_cache(maxsize=64)
def header_html(title: str) -> str:
    """The header bar of a page (project, page title, links): plain HTML, the same for every session."""
    return (f'<header class="vedette-header vedette-shell"><a class="brand" href="/">{PROJECT}</a>'
            f'<span class="page-title">{html.escape(title)}</span>{_nav_html()}</header>')


@lru_cache(maxsize=1)
def _page_template():
    """The served HTML page: Panel's own page (its ``base.html``) with the shell's stylesheet and the header bar put before the
    page's root (``vedette_header``), outside the Bokeh document, so a session makes no model for it."""
    from markupsafe import Markup
    from panel.io.resources import parse_template

    return parse_template(
        '{% extends "base.html" %}'
        '{% block postamble %}{{ super() }}' + VIEWPORT_META + '<style>' + SHELL_CSS + '</style>{% endblock %}'
        '{% block contents %}{{ vedette_header }}{{ super() }}{% endblock %}'), Markup


def _template(title: str, main: list, sidebar: list | None = None):
    """A page: a header bar (project, page title, links) above the page's own content.

    The header is static HTML in the served page's template (:func:`_page_template`), not a pane: it is the
    same for every session, so no session builds a Panel object or a Bokeh model for it, and the page's body
    is the document's root (a pane, a column of panes and the Bokeh models under them cost the server a few
    milliseconds each per session, issue 17).
    """
    objs = [*(sidebar or []), *main]
    one = objs[0] if len(objs) == 1 else None
    if isinstance(one, pn.viewable.Viewable) and one.sizing_mode == "stretch_width" and one.margin in (0, (0, 0), None):
        # a page that is one full-width object without a margin of its own is the body itself: one Bokeh
        # model fewer per session than a column around it (issue 17)
        one.param.update(margin=(8, 16), css_classes=[*one.css_classes, "vedette-main"])
        body = one
    else:
        body = pn.Column(*objs, sizing_mode="stretch_width", margin=(8, 16), css_classes=["vedette-main"])
    return PageShell(title, body, objs)


class PageShell(ServableMixin):
    """A served page: its body (the document's root) under the static header; ``main`` lists the body's
    objects, as a template's would. ``pn.serve`` serves it as a viewable (``_modify_doc`` calls
    :meth:`server_doc`); it is no Parameterized, so it costs a session nothing to make."""

    def __init__(self, title: str, body, main: list):
        self.title, self.body, self._main = title, body, main

    @property
    def main(self) -> list:
        return list(self._main)

    def server_doc(self, doc=None, title: str | None = None, location=True):
        """Attach the body to ``doc`` (default the current document) and give the document the page template."""
        if doc is None:
            doc = pn.state.curdoc
            if doc is None:
                from bokeh.io import curdoc
                doc = curdoc()
        template, markup = _page_template()
        doc.template = template
        doc.template_variables["vedette_header"] = markup(header_html(self.title))
        return self.body.server_doc(doc, title=title, location=location)

    def get_root(self, doc=None, comm=None, preprocess: bool = True):
        return self.body.get_root(doc, comm, preprocess)


def page_view(info: PageInfo):
    """The servable for one page route: the page's own view, or an error view if it cannot be built."""
    if info.factory is None:
        return _error_view(info.title, info.error)
    try:
        view = info.factory()
    except storage.StorageError as exc:   # a full disk, a read-only folder: say which file and why
        log.error("page %s: %s", info.route, exc)
        return _error_view(info.title, str(exc))
    except Exception as exc:
        log.exception("page %s could not be built", info.route)
        return _error_view(info.title, f"{type(exc).__name__}: {str(exc)[:160]}")
    if isinstance(view, pn.template.base.BaseTemplate):
        return view
    return _template(info.title, [view])


def _error_view(title: str, detail: str):
    """A short message for people; the traceback is in the server's log, never on the page."""
    return _template(title, [pn.pane.Alert(f"**This page could not be built:** {html.escape(detail[:240])}\n\n"
                                           "The details are in the server's log.", alert_type="danger",
                                           css_classes=["page-error"])])


_SAVED_CSS = ("table.saved-games td, table.saved-games th {padding:4px 8px;border-bottom:1px solid #ddd;text-align:left}"
              ".storage-error {background:#fff3cd;color:#664d03;border-radius:4px;padding:8px 12px}")


def saved_games_html(db_path=None, keys=()) -> str:
    """The saved games this browser holds a key of (``keys``), plus public ones, each with its links (HTML)."""
    try:
        games = storage.GameStore(db_path).visible(keys)
    except storage.StorageError as exc:  # an unreadable file is shown, not raised
        return f"<div class='storage-error'>Saved games could not be read: {html.escape(str(exc))}</div>"
    if not games:
        return ("<p class='saved-games'><em>No saved games in this browser yet: start one on the Play page (a game "
                "is listed here in the browser that started it, or that opened one of its links).</em></p>")
    rows = []
    for g, role, key in games:
        s = {k: html.escape(str(v)) for k, v in g.summary().items()}
        page = PLAY_PAGES.get(g.game)
        links = ""
        if page:
            who = "owner" if role == storage.OWNER else (f"plays {role}" if role else "public: watch only")
            resume = (f"<a class='resume' href='{html.escape(game_link(page, g.id, key))}'>resume</a> · "
                      if role else
                      f"<a class='watch' href='{html.escape(game_link(page, g.id, None))}'>watch</a> · ")
            links = (resume + f"<a class='replay' href='{html.escape(game_link(page, g.id, key, 'replay'))}'>"
                     f"replay</a> <small>({html.escape(who)})</small>")
        rows.append(
            "<tr class='saved-game' data-game-id='{id}'><td>{title}</td><td>{scenario}</td><td>{edition}</td>"
            "<td>{events}</td><td>{status}</td><td>{updated}</td>".format(**s) + f"<td>{links}</td></tr>")
    head = ("<tr><th>game</th><th>scenario</th><th>edition</th><th>events</th><th>status</th>"
            "<th>last played</th><th></th></tr>")
    return (f"<table class='saved-games' style='border-collapse:collapse;width:100%'>"
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>")


def saved_games_table(db_path=None, keys=()) -> pn.viewable.Viewable:
    """:func:`saved_games_html` as a pane."""
    return pn.pane.HTML(saved_games_html(db_path, keys), sizing_mode="stretch_width", stylesheets=[_SAVED_CSS])


_ABOUT_HTML = f"<h2>What is this?</h2><p>{html.escape(ABOUT)}</p><h2>Tools</h2>"
_INDEX_CSS = (".tools{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:12px}"
              ".tool-card{border:1px solid #ccd;border-radius:6px;padding:4px 12px}" + _SAVED_CSS)


@lru_cache(maxsize=1)
def _tool_cards_html() -> str:
    cards = []
    for p in discover_pages():
        body = html.escape(p.summary) if p.factory else "<em>unavailable: this page failed to load</em>"
        cards.append(f"<div class='tool-card'><h3><a href='{p.route}'>{html.escape(p.title)}</a></h3>"
                     f"<p>{body}</p></div>")
    return "<div class='tools'>" + "".join(cards) + "</div>"


def index():
    """The index page: what this is, a card per tool, the saved games (one HTML pane: every pane costs the
    server a few milliseconds per session, issue 17)."""
    body = _ABOUT_HTML + _tool_cards_html() + "<h2>Saved games</h2>" + saved_games_html(keys=browser_keys())
    return _template("home", [pn.pane.HTML(body, sizing_mode="stretch_width", stylesheets=[_INDEX_CSS],
                                           css_classes=["index"], margin=0)])


def routes() -> dict[str, Callable[[], object]]:
    """``{route: servable factory}`` for the index and every page."""
    out: dict[str, Callable[[], object]] = {"/": index}
    for info in discover_pages():
        out[info.route] = (lambda i=info: page_view(i))
    return out


if __name__.startswith("bokeh"):  # `panel serve dashboards/app.py`
    index().servable()
