"""Which scripts a served page lists (issue 17.1): only the BokehJS bundles and Panel extensions its models use."""
from __future__ import annotations

import pandas as pd
import panel as pn
from bokeh.document import Document
from panel.io.resources import Resources
from panel.io.state import set_curdoc, state

from dashboards.server import patches, serve


def _page_scripts(viewable) -> list[str]:
    """The script URLs of the page ``vedette-serve`` would send for ``viewable``."""
    import panel.io.server as pn_server

    patches.lean_page_resources()
    doc = Document()
    with set_curdoc(doc):
        viewable.server_doc(doc)
        bundle = pn_server.bundle_resources(doc.roots, Resources(mode="server"))
    state._extensions_.pop(doc, None)
    return [str(u) for u in bundle.js_files]


def test_plain_page_leaves_out_webgl_and_tabulator():
    pn.widgets.Tabulator(pd.DataFrame({"a": [1]}))._get_model(Document())  # the Tabulator model is now imported
    js = _page_scripts(pn.Column(pn.widgets.Select(options=["a", "b"]), pn.pane.Markdown("odds")))
    assert any("bokeh.min.js" in u for u in js) and any("panel.min.js" in u for u in js)
    assert any("bokeh-widgets" in u for u in js)
    assert any("bokeh-tables" in u for u in js)     # Panel's own bundle imports it on every page
    assert not any("bokeh-gl" in u for u in js)     # no page draws a WebGL plot
    assert not any("tabulator" in u for u in js)


def test_page_with_a_tabulator_gets_its_script():
    js = _page_scripts(pn.Column(pn.widgets.Tabulator(pd.DataFrame({"a": [1, 2]}))))
    assert any("tabulator.min.js" in u for u in js)


def test_webgl_plot_keeps_bokeh_gl():
    from bokeh.plotting import figure

    fig = figure(output_backend="webgl")
    fig.line([0, 1], [0, 1])
    js = _page_scripts(pn.Column(pn.pane.Bokeh(fig)))
    assert any("bokeh-gl" in u for u in js)


def test_page_with_an_esm_component_leaves_out_es_module_shims():
    # connection.js stands in for es-module-shims' importShim; no component class here names an import map
    from dashboards.calculators.n20.plan_view import PlanView

    js = _page_scripts(pn.Column(PlanView(config={"spec": [], "headers": []})))
    assert not patches.import_maps_in_use()
    assert not any("es-module-shims" in u for u in js)


def test_a_component_with_an_import_map_brings_es_module_shims_back(monkeypatch):
    from dashboards.calculators.n20.plan_view import PlanView

    monkeypatch.setattr(PlanView, "_importmap", {"imports": {"lib": "./lib.js"}})
    assert patches.import_maps_in_use()
    js = _page_scripts(pn.Column(pn.pane.Markdown("odds")))
    assert any("es-module-shims" in u for u in js)   # a later (lazy) part of the page might build one


def test_our_esm_components_are_sent_untransformed():
    """A ``bundle`` name on the model makes BokehJS import the component's code as it is, with no TypeScript
    transform in the browser; components from other packages keep Panel's default (no bundle)."""
    from panel.custom import JSComponent

    from dashboards.calculators.n20.plan_view import PlanView

    patches.plain_esm_components()
    patches.plain_esm_components()        # installing it twice wraps once
    ours = PlanView(config={"spec": [], "headers": []})._get_model(Document())
    assert ours.bundle.startswith("vedette-") and ours.esm == PlanView._esm

    class Other(JSComponent):
        _esm = "export function render({ el }) { el.textContent = 'x' }"

    assert Other()._get_model(Document()).bundle is None


def test_connection_script_is_versioned_and_provides_import_shim():
    import hashlib

    path = serve.STATIC_DIR / "connection.js"
    assert serve.CONNECTION_JS == f"/vedette-static/connection.js?v={hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"
    text = path.read_text()
    assert "window.importShim = load" in text and "import(url)" in text


def _page_bundle(viewable, extensions=()):
    """The resources bundle of the served page for ``viewable``, the page having asked for ``extensions``."""
    import panel.io.server as pn_server

    patches.lean_page_resources()
    doc = Document()
    with set_curdoc(doc):
        if extensions:
            state._extensions_[doc] = list(extensions)      # what pn.extension(...) in page() does
        viewable.server_doc(doc)
        bundle = pn_server.bundle_resources(doc.roots, Resources(mode="server"))
    state._extensions_.pop(doc, None)
    return bundle


def test_tables_asked_for_by_later_tabs_load_after_the_first_view():
    # /tbf's first tab has no table; its later tabs do (pn.extension("tabulator")): Tabulator's scripts and
    # theme leave the page's head and are fetched by a small loader that the table views wait for
    pn.widgets.Tabulator(pd.DataFrame({"a": [1]}))._get_model(Document())
    bundle = _page_bundle(pn.Column(pn.pane.Markdown("check")), extensions=["tabulator"])
    head_js = [str(u) for u in bundle.js_files]
    head_css = [str(u) for u in bundle.css_files]
    assert not any("tabulator" in u or "luxon" in u for u in head_js + head_css)
    loader = next(r for r in bundle.js_raw if "lazy_initialize" in r)
    assert "tabulator.min.js" in loader and "luxon.min.js" in loader and "tabulator_simple.min.css" in loader
    assert "panel.models.tabulator.DataTabulator" in loader


def test_a_table_in_the_first_view_keeps_its_scripts_in_the_head():
    bundle = _page_bundle(pn.Column(pn.widgets.Tabulator(pd.DataFrame({"a": [1, 2]}))))
    assert any("tabulator.min.js" in str(u) for u in bundle.js_files)
    assert not any("lazy_initialize" in r for r in bundle.js_raw)
