"""Which scripts a served page lists (issue 17.1): only the BokehJS bundles and Panel extensions its models use."""
from __future__ import annotations

import pandas as pd
import panel as pn
from bokeh.document import Document
from panel.io.resources import Resources
from panel.io.state import set_curdoc, state

from dashboards import serve


def _page_scripts(viewable) -> list[str]:
    """The script URLs of the page ``vedette-serve`` would send for ``viewable``."""
    import panel.io.server as pn_server

    serve._lean_page_resources()
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
