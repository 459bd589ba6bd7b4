"""A zone map a player can click (Battle Commander's play board, issue 15).

:class:`ClickableSvg` shows an SVG drawing (here :func:`dashboards.components.bc_views.zone_map_svg`) and
reports a click on it: on an element carrying ``data-block`` (a Block) it sends that Block's id, on a
``data-zone`` group (a Zone) that Zone's name. One Bokeh model for the whole map; the drawing is replaced
by setting ``svg``, a click arrives as ``click`` (``{"n": count, "place": name, "zone": the Zone it lies
in}``, ``n`` so that two clicks on the same Zone are two events). Drawing only: what a click means is the play page's business.
"""
from __future__ import annotations

import param
from panel.custom import JSComponent

__all__ = ["ClickableSvg"]

_JS = r"""
export function render({ model, el }) {
  const wrap = document.createElement("div");
  wrap.className = "clickable-svg";
  let n = 0;
  const draw = () => { wrap.innerHTML = model.svg; };
  wrap.addEventListener("click", (ev) => {
    const t = ev.target;
    if (!t || !t.closest) return;
    const block = t.closest("[data-block]");
    const zone = t.closest("[data-zone]");
    const place = block ? block.dataset.block : (zone ? zone.dataset.zone : "");
    if (!place) return;
    n += 1;
    model.click = { n: n, place: place, zone: zone ? zone.dataset.zone : "" };
  });
  draw();
  model.on("svg", draw);
  el.appendChild(wrap);
}
"""

_CSS = """
.clickable-svg [data-zone], .clickable-svg [data-block] {cursor: pointer}
.clickable-svg [data-block]:hover {opacity: 0.8}
"""


class ClickableSvg(JSComponent):
    """An SVG whose Blocks (``data-block``) and Zones (``data-zone``) report a click."""

    svg = param.String(default="", doc="the drawing (trusted: made by our own code, names escaped)")
    click = param.Dict(default={}, doc="the last click: {'n': count, 'place': Block id or Zone name, "
                                       "'zone': the Zone clicked in}")

    _esm = _JS
    _stylesheets = [_CSS]
