"""Every change ``vedette-serve`` makes to Panel's and Bokeh's own code, in one place (issue 27.5).

What each browser parses is kept small (issues 12.3 and 17.1; most of a page load's CPU is BokehJS and
Panel's own scripts, which every page needs): no WebGL bundle, no Panel extension the page does not use, no
es-module-shims (``connection.js`` gives ``importShim`` as the browser's ``import()``), our ESM components
sent as plain JavaScript (no in-browser TypeScript pass), and Tabulator's scripts fetched after the first
view when only later tabs hold tables.

These rely on parts of Panel and Bokeh that are not public API, listed in :data:`PRIVATE_PARTS`. pyproject.toml
bounds both packages to the minor releases checked; ``tests/dashboards/test_server_patches.py`` has one test
per part, named after it, that fails when an upgrade removes or reshapes it. :func:`apply` installs the
patches (once; installing again changes nothing).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["apply", "lean_page_resources", "plain_esm_components", "import_maps_in_use", "needed_bundles",
           "PRIVATE_PARTS", "PrivatePart"]


@dataclass(frozen=True)
class PrivatePart:
    """A part of Panel or Bokeh that is not public API, which a patch here relies on."""

    target: str      #: where it lives (a dotted name; ``js:`` for a name in the shipped JavaScript)
    patch: str       #: the function here that uses it
    shape: str       #: what the patch expects of it


#: each is checked by a test of the same name in tests/dashboards/test_server_patches.py
PRIVATE_PARTS: tuple[PrivatePart, ...] = (
    PrivatePart("bokeh.embed.bundle._use_gl", "needed_bundles", "a function of the set of models, true for WebGL"),
    PrivatePart("bokeh.embed.bundle._use_tables", "needed_bundles", "a function of the set of models, true for tables"),
    PrivatePart("panel.io.server.bundle_resources", "lean_page_resources",
                "(roots, resources, ..., reloading=...) -> a bundle; found by its module name when a page is sent"),
    PrivatePart("panel.io.resources.Resources", "lean_page_resources",
                "from_bokeh(resources), .components, clone(components=...)"),
    PrivatePart("bokeh.embed.bundle.Bundle", "lean_page_resources", "js_files, css_files and js_raw lists"),
    PrivatePart("panel.config.panel_extension._imports", "own_extensions", "extension name -> module of its models"),
    PrivatePart("panel.io.state.state._extensions_", "own_extensions", "a mapping document -> extension names"),
    PrivatePart("panel.custom.ReactiveESM._get_properties", "plain_esm_components",
                "(self, doc) -> dict with 'bundle', 'dev' and 'esm'"),
    PrivatePart("panel.custom.ReactiveESM._process_importmap", "import_maps_in_use",
                "a classmethod giving None or a dict with 'imports'; Panel's base classes say abstract = True"),
    PrivatePart("js:es-module-shims", "lean_page_resources", "Panel's loader script, named so in its URL; Panel's "
                "code calls importShim, which connection.js provides"),
    PrivatePart("panel.reactive.Reactive._models", "resend (dashboards/play/page_words.py), on_next_tick "
                "(dashboards/play/controls.py)", "a dict of the Bokeh models a component is shown as: ref -> "
                "(model, its parent), each model in the document that shows it"),
    PrivatePart("panel.reactive.Syncable._priority_changes", "_at_once (dashboards/calculators/tbf/check_view.py)",
                "a list of property names whose browser changes skip Panel's debounce (Syncable._debounce)"),
    PrivatePart("js:DataTabulator.lazy_initialize", "defer_later_parts",
                "the model panel.models.tabulator.DataTabulator, whose scripts are under /datatabulator/; "
                "BokehJS awaits a view's lazy_initialize and has Document.is_idle"),
)

#: BokehJS bundles a page loads only when one of its models needs them (issue 17.1: each one is parsed by
#: every browser that opens the page; ``bokeh-gl`` alone is ~190 KB for WebGL plots, which no page draws)
OPTIONAL_BUNDLES = tuple(b for b in os.environ.get("VEDETTE_OPTIONAL_BUNDLES", "bokeh-gl").split(",") if b)


def apply() -> None:
    """Install every patch (what ``vedette-serve`` does before it serves)."""
    lean_page_resources()
    plain_esm_components()


def needed_bundles(objs: set[Any]) -> set[str]:
    """The optional BokehJS bundles the models ``objs`` use (WebGL plots; Bokeh DataTables). Panel's own
    bundle needs ``bokeh-tables`` on every page (its Tabulator model imports it), so only ``bokeh-gl`` is
    optional by default."""
    from bokeh.embed.bundle import _use_gl, _use_tables

    needed = set()
    if _use_gl(objs):
        needed.add("bokeh-gl")
    if _use_tables(objs):
        needed.add("bokeh-tables")
    return needed


def own_extensions(objs: Iterable[Any]) -> None:
    """A page that did not call ``pn.extension(...)`` gets the Panel extensions its models use, and no other:
    without this, once any session imported e.g. the Tabulator model, Panel lists its scripts (~550 KB) on
    every later page of every route. Pages that build such widgets later (lazy tabs) ask for them with
    ``pn.extension(...)`` in ``page()``."""
    from panel.config import panel_extension
    from panel.io.state import state

    doc = state.curdoc
    if doc is None or doc in state._extensions_:
        return
    modules = {module: ext for ext, module in panel_extension._imports.items()}
    state._extensions_[doc] = sorted({modules[type(o).__module__] for o in objs if type(o).__module__ in modules})


#: Panel's module loader for ESM components (es-module-shims, 38 KB): our ``connection.js`` gives the page a
#: ``window.importShim`` that is the browser's own ``import()``, enough for ESM components without an import map
ESM_SHIMS = "es-module-shims"


def import_maps_in_use() -> bool:
    """Whether an ESM component class loaded in this process names an import map (React components do):
    only those need es-module-shims' loader, and a page may build one after it has loaded (a lazy tab)."""
    from panel.custom import ReactiveESM

    todo, seen = [ReactiveESM], set()
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            todo.append(sub)
            if getattr(sub, "abstract", False):   # Panel's own base classes are never on a page
                continue
            try:
                imports = (sub._process_importmap() or {}).get("imports")
            except Exception:  # noqa: BLE001 - when in doubt, keep Panel's loader
                return True
            if imports:
                return True
    return False


#: Tabulator's scripts and theme (luxon + tabulator, ~480 KB of JS) on a page whose first view has no table: the
#: /tbf and /lob pages ask for them (``pn.extension("tabulator")``) for tabs built later. They are fetched once
#: the page's document has been drawn and is idle, not before it (issue 12.3: the Fatigue Check shows sooner),
#: and a table's view waits for them before it draws (``lazy_initialize``, which BokehJS awaits).
LATER_PARTS = "/datatabulator/"
TABULATOR_MODEL = "panel.models.tabulator.DataTabulator"
LATER_JS = """
(function () {
  const js = %(js)s, css = %(css)s;
  let loading = null;
  function load() {
    if (loading) return loading;
    for (const href of css) {
      const l = document.createElement("link"); l.rel = "stylesheet"; l.href = href; document.head.append(l);
    }
    loading = Promise.all(js.map(function (src) {
      return new Promise(function (ok, fail) {
        const s = document.createElement("script");
        s.src = src; s.async = false;             // run in the listed order, as the page's own scripts do
        s.onload = ok; s.onerror = fail;
        document.head.append(s);
      });
    }));
    return loading;
  }
  const Model = window.Bokeh && Bokeh.Models.get(%(model)s);
  const View = Model && Model.prototype.default_view;
  if (!View) { load(); return; }
  const before = View.prototype.lazy_initialize;
  View.prototype.lazy_initialize = async function () { await load(); return before.apply(this, arguments); };
  const idle = window.requestIdleCallback || function (f) { return setTimeout(f, 50); };
  const wait = setInterval(function () {
    const doc = Bokeh.documents && Bokeh.documents[0];
    if (doc && doc.is_idle) { clearInterval(wait); idle(load); }
  }, 100);
})();
"""


def defer_later_parts(bundle: Any, objs: Iterable[Any]) -> None:
    """Move Tabulator's scripts and theme out of the page's head when no table is in its first view."""
    if any(type(o).__name__ == "DataTabulator" for o in objs):
        return
    js = [u for u in bundle.js_files if LATER_PARTS in str(u)]
    if not js:
        return
    css = [u for u in bundle.css_files if LATER_PARTS in str(u)]
    bundle.js_files = [u for u in bundle.js_files if u not in js]
    bundle.css_files = [u for u in bundle.css_files if u not in css]
    bundle.js_raw.append(LATER_JS % {"js": json.dumps([str(u) for u in js]), "css": json.dumps([str(u) for u in css]),
                                     "model": json.dumps(TABULATOR_MODEL)})


def plain_esm_components() -> None:
    """Send our ESM components (``dashboards.*``, plain JavaScript: no TypeScript, no JSX) with a ``bundle``
    name, so that BokehJS imports their code as it is. Without a bundle name Panel runs a TypeScript
    transform (sucrase) over each component's code in every browser that opens the page: about 0.2-0.3
    CPU-seconds per /odds load on a 2-core laptop, the largest single cost after BokehJS itself (issue 17.1)."""
    from panel.custom import ReactiveESM

    original = ReactiveESM._get_properties
    if getattr(original, "_vedette_plain", False):
        return

    def _get_properties(self: Any, doc: Any) -> dict[str, Any]:
        props = original(self, doc)
        if (props.get("bundle") is None and not props.get("dev") and isinstance(props.get("esm"), str)
                and type(self).__module__.startswith("dashboards.")):
            props["bundle"] = "vedette-" + hashlib.sha256(props["esm"].encode("utf-8")).hexdigest()[:16]
        return props

    _get_properties._vedette_plain = True  # type: ignore[attr-defined]
    ReactiveESM._get_properties = _get_properties  # type: ignore[method-assign]


def lean_page_resources() -> None:
    """Make every served page leave out the optional BokehJS bundles its document does not use (Panel's
    page template otherwise lists them all for every page)."""
    import panel.io.server as pn_server
    from panel.io.resources import Resources

    original = pn_server.bundle_resources
    if getattr(original, "_vedette_lean", False):
        return

    def bundle_resources(roots: Any, resources: Any, *args: Any, **kwargs: Any) -> Any:
        if resources is not None and not kwargs.get("reloading"):
            if not isinstance(resources, Resources):
                resources = Resources.from_bokeh(resources)
            objs: set[Any] = set()
            for root in roots or []:
                objs |= root.references()
            own_extensions(objs)
            components = list(resources.components)
            unused = set(OPTIONAL_BUNDLES) - needed_bundles(objs)
            if unused & set(components):
                resources = resources.clone(components=[c for c in components if c not in unused])
            bundle = original(roots, resources, *args, **kwargs)
            if not import_maps_in_use():
                bundle.js_files = [u for u in bundle.js_files if ESM_SHIMS not in str(u)]
            defer_later_parts(bundle, objs)
            return bundle
        return original(roots, resources, *args, **kwargs)

    bundle_resources._vedette_lean = True  # type: ignore[attr-defined]
    pn_server.bundle_resources = bundle_resources
