"""The parts of Panel and Bokeh that dashboards/server/patches.py relies on and that are not public API (issue
27.5): one test per part in ``PRIVATE_PARTS``, named after it (``test_private_part[panel.io.server.bundle_resources]``),
fails when an upgrade removes or reshapes it. What each patch does to a page is tested in
tests/test_serve_resources.py and, in a browser, tests/e2e."""
from __future__ import annotations

import inspect
from collections.abc import Callable, MutableMapping
from pathlib import Path
from unittest import mock

import pytest

from dashboards.server import patches


def _params(fn) -> list[str]:
    return list(inspect.signature(fn).parameters)


def _use_gl() -> None:
    from bokeh.embed.bundle import _use_gl
    from bokeh.models import Div
    from bokeh.plotting import figure

    assert _params(_use_gl) == ["all_objs"], "bokeh.embed.bundle._use_gl(all_objs) changed its parameters"
    fig = figure(output_backend="webgl")
    fig.line([0, 1], [0, 1])
    assert _use_gl(fig.references()) is True
    assert _use_gl(Div(text="x").references()) is False


def _use_tables() -> None:
    from bokeh.embed.bundle import _use_tables
    from bokeh.models import ColumnDataSource, DataTable, Div, TableColumn

    assert _params(_use_tables) == ["all_objs"], "bokeh.embed.bundle._use_tables(all_objs) changed its parameters"
    table = DataTable(source=ColumnDataSource({"a": [1]}), columns=[TableColumn(field="a")])
    assert _use_tables(table.references()) is True
    assert _use_tables(Div(text="x").references()) is False


def _bundle_resources() -> None:
    import panel.io.resources as pn_resources
    import panel.io.server as pn_server

    fn = pn_resources.bundle_resources          # the original (patches replace panel.io.server's name only)
    assert _params(fn)[:2] == ["roots", "resources"] and "reloading" in _params(fn)
    # the patch replaces the module-level name: Panel must look it up there each time it sends a page
    for caller in (pn_server.server_html_page_for_session, pn_server.autoload_js_script):
        assert "bundle_resources" in caller.__code__.co_names, \
            f"panel.io.server.{caller.__name__} no longer calls bundle_resources by its module-level name"


def _resources() -> None:
    from bokeh.resources import Resources as BkResources
    from panel.io.resources import Resources

    res = Resources.from_bokeh(BkResources(mode="server"))
    assert isinstance(res, Resources)
    components = list(res.components)
    assert "bokeh-gl" in components and "bokeh-tables" in components
    assert list(res.clone(components=components[:1]).components) == components[:1]


def _bundle() -> None:
    from panel.io.resources import Resources, bundle_resources

    bundle = bundle_resources([], Resources(mode="server"))
    for name in ("js_files", "css_files", "js_raw"):
        assert isinstance(getattr(bundle, name), list), f"a resources bundle has no list {name}"


def _extension_imports() -> None:
    from panel.config import panel_extension

    imports = panel_extension._imports
    assert isinstance(imports, dict) and imports.get("tabulator") == "panel.models.tabulator"


def _state_extensions() -> None:
    from bokeh.document import Document
    from panel.io.state import state

    assert isinstance(state._extensions_, MutableMapping)
    doc = Document()
    state._extensions_[doc] = ["tabulator"]
    try:
        assert doc in state._extensions_ and state._extensions_[doc] == ["tabulator"]
    finally:
        state._extensions_.pop(doc, None)


def _get_properties() -> None:
    from bokeh.document import Document
    from panel.custom import JSComponent, ReactiveESM

    assert _params(ReactiveESM._get_properties) == ["self", "doc"]

    class Probe(JSComponent):
        _esm = "export function render({ el }) { el.textContent = 'x' }"

    props = Probe()._get_properties(Document())
    assert {"bundle", "dev", "esm"} <= set(props), "ReactiveESM._get_properties gives no bundle, dev or esm"
    assert props["bundle"] is None and isinstance(props["esm"], str)


def _process_importmap() -> None:
    from panel.custom import AnyWidgetComponent, JSComponent, ReactComponent, ReactiveESM

    # Panel's own bases (ReactComponent names React's import map) are never on a page: they must say so
    for base in (ReactiveESM, JSComponent, ReactComponent, AnyWidgetComponent):
        assert base.abstract is True, f"Panel's {base.__name__} no longer says abstract = True"

    from dashboards.calculators.n20.plan_view import PlanView   # a class of ours (a new one would stay a subclass)

    assert PlanView.abstract is False
    with mock.patch.object(PlanView, "_importmap", {"imports": {"lib": "./lib.js"}}):
        assert PlanView._process_importmap().get("imports") == {"lib": "./lib.js"}


def _es_module_shims() -> None:
    import panel
    from panel.models import esm

    assert any(patches.ESM_SHIMS in u for m in vars(esm).values() if isinstance(m, type)
               for u in getattr(m, "__javascript_raw__", None) or []), "Panel no longer loads es-module-shims"
    panel_js = (Path(panel.__file__).parent / "dist" / "panel.js").read_text(encoding="utf-8")
    assert "importShim" in panel_js, "Panel's JavaScript no longer calls importShim (connection.js provides it)"


def _tabulator_later() -> None:
    import bokeh
    from panel.models.tabulator import DataTabulator

    assert DataTabulator.__qualified_model__ == patches.TABULATOR_MODEL
    assert all(patches.LATER_PARTS in "/" + u for u in DataTabulator.__javascript__)
    assert any(patches.LATER_PARTS in "/" + u for u in DataTabulator.__css__)
    bokeh_js = (Path(bokeh.__file__).parent / "server" / "static" / "js" / "bokeh.js").read_text(encoding="utf-8")
    assert "await view.lazy_initialize()" in bokeh_js, "BokehJS no longer awaits a view's lazy_initialize"
    assert "get is_idle()" in bokeh_js, "BokehJS's Document has no is_idle"
    assert "exports.Models = " in bokeh_js, "BokehJS has no Models registry"


def _reactive_models() -> None:
    import panel as pn
    from bokeh.document import Document

    widget = pn.widgets.TextInput(value="x")
    doc = Document()
    root = widget.get_root(doc)
    doc.add_root(root)                  # as a server shows it
    models = widget._models
    assert isinstance(models, dict) and len(models) == 1
    model, parent = next(iter(models.values()))
    assert model is root and parent is None and model.document is doc
    assert "value" in model.properties()


def _priority_changes() -> None:
    import inspect

    from panel.reactive import Syncable

    assert isinstance(Syncable._priority_changes, list) and isinstance(Syncable._debounce, int)
    # the browser's changes are read against the list where Panel decides to hold them for the debounce
    assert inspect.getsource(Syncable).count("_priority_changes") >= 2


#: the check of each part in patches.PRIVATE_PARTS, by its target
CHECKS: dict[str, Callable[[], None]] = {
    "bokeh.embed.bundle._use_gl": _use_gl,
    "bokeh.embed.bundle._use_tables": _use_tables,
    "panel.io.server.bundle_resources": _bundle_resources,
    "panel.io.resources.Resources": _resources,
    "bokeh.embed.bundle.Bundle": _bundle,
    "panel.config.panel_extension._imports": _extension_imports,
    "panel.io.state.state._extensions_": _state_extensions,
    "panel.custom.ReactiveESM._get_properties": _get_properties,
    "panel.custom.ReactiveESM._process_importmap": _process_importmap,
    "js:es-module-shims": _es_module_shims,
    "panel.reactive.Reactive._models": _reactive_models,
    "panel.reactive.Syncable._priority_changes": _priority_changes,
    "js:DataTabulator.lazy_initialize": _tabulator_later,
}


@pytest.mark.parametrize("part", patches.PRIVATE_PARTS, ids=lambda p: p.target)
def test_private_part(part: patches.PrivatePart) -> None:
    try:
        CHECKS[part.target]()
    except (AssertionError, ImportError, AttributeError, TypeError, KeyError) as exc:
        pytest.fail(f"{part.target} ({part.shape}) is gone or changed: the patch {part.patch} in "
                    f"dashboards/server/patches.py needs it ({type(exc).__name__}: {exc})", pytrace=False)


def test_every_private_part_has_a_check() -> None:
    assert set(CHECKS) == {p.target for p in patches.PRIVATE_PARTS}


def test_the_tbf_page_reads_panels_loaded_extensions() -> None:
    # dashboards/pages/tbf.py (ask_for_tabulator) reads these two as well
    from panel.config import panel_extension
    from panel.io.state import state

    assert isinstance(panel_extension._loaded_extensions, list)
    assert isinstance(state._extensions_, MutableMapping)


def test_apply_installs_each_patch_once() -> None:
    import panel.io.server as pn_server
    from panel.custom import ReactiveESM

    patches.apply()
    lean, plain = pn_server.bundle_resources, ReactiveESM._get_properties
    patches.apply()
    assert pn_server.bundle_resources is lean and getattr(lean, "_vedette_lean", False)
    assert ReactiveESM._get_properties is plain and getattr(plain, "_vedette_plain", False)
