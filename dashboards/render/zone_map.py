"""A zone map a player can click (Battle Commander's play board, issue 15).

:class:`ClickableSvg` shows an SVG drawing (here :func:`zone_map_svg`) and
reports a click on it: on an element carrying ``data-block`` (a Block) it sends that Block's id, on a
``data-zone`` group (a Zone) that Zone's name. One Bokeh model for the whole map; the drawing is replaced
by setting ``svg``, a click arrives as ``click`` (``{"n": count, "place": name, "zone": the Zone it lies
in}``, ``n`` so that two clicks on the same Zone are two events). Drawing only: what a click means is the play page's business.
"""
from __future__ import annotations

import html

import param
from panel.custom import JSComponent

__all__ = ["ClickableSvg", "zone_map_svg", "SIDE_FILL", "block_label", "fitted_text"]

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
.clickable-svg svg {max-width:100%; height:auto; display:block}
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


SIDE_FILL = {"french": "#3b5b92", "coalition": "#c9c9c9"}


#: an average glyph's width as a share of the font size (sans-serif text of letters and digits): what a label
#: is measured by before it is drawn, so one too long for its Block is fitted to it instead of cut off
GLYPH = 0.56
ROW = 24            # a Block's row in its Zone (px)


def fitted_text(x: float, y: float, text: str, size: float, room: float, fill: str = "#000",
                weight: str = "normal") -> str:
    """An SVG ``text`` of ``text`` at ``size`` px that never runs past ``room`` px: a label measured longer
    is drawn squeezed to the room (``textLength``), so a Block or Zone label is never cut off."""
    squeeze = (f" textLength='{room:.0f}' lengthAdjust='spacingAndGlyphs'"
               if len(text) * size * GLYPH > room else "")
    return (f"<text x='{x}' y='{y}' font-size='{size}' font-weight='{weight}' fill='{fill}'{squeeze}>"
            f"{html.escape(text)}</text>")


def block_label(u) -> str:
    """A Block as its row says it: id, type, Skill rating and Battle State (9.0, 9.2)."""
    from engine.bc.game.words import word
    b = u.block
    return f"{u.id} {word(b.kind)}, skill {b.skill}, {word(b.state)}"


def zone_map_svg(st) -> str:
    """An SVG drawing of the Zones, borders (interval terrain, impassable) and the Blocks in each Zone;
    each Zone is as tall as its fullest Zone needs (every Block and HQ marker inside its box)."""
    from engine.bc.game.zones import battle_zones

    sc = st.scenario
    rows = max((len(st.in_zone(z)) for z in sc.model.zones), default=0)
    hq_rows = max((len(st.hqs_in(z)) for z in sc.model.zones), default=0)
    W, PAD = 210, 20
    H = max(110, 28 + rows * ROW + hq_rows * 14 + 6)
    pos = {z: (PAD + m.x * (W + 40), PAD + (max(mm.y for mm in sc.model.zones.values()) - m.y) * (H + 30))
           for z, m in sc.model.zones.items()}
    parts = []
    for b in sc.graph.borders():
        a, c = tuple(b.areas)
        (x1, y1), (x2, y2) = pos[a], pos[c]
        feat = next(iter(b.features), "")
        colour = "#b22" if feat == "impassable" else ("#37a" if feat else "#999")
        dash = " stroke-dasharray='6 4'" if feat == "impassable" else ""
        parts.append(f"<line x1='{x1 + W / 2}' y1='{y1 + H / 2}' x2='{x2 + W / 2}' y2='{y2 + H / 2}' "
                     f"stroke='{colour}' stroke-width='3'{dash}><title>{html.escape(feat or 'open border')}</title></line>")
    for z, m in sc.model.zones.items():
        x, y = pos[z]
        units = st.in_zone(z)
        hqs = st.hqs_in(z)
        flag = "" if m.flag == "none" else f" ⚑{m.flag}"
        lines = [fitted_text(x + 6, y + 16, f"{z} · {m.terrain}{flag}", 12, W - 12, weight="bold")]
        for i, u in enumerate(units):
            label = block_label(u)
            bz = ",".join(sorted(battle_zones(st, u)))
            # the Zone's first Block is its Lead Block (9.4), the one an attack targets (23.1): a gold edge
            lead = " stroke='#d4a017' stroke-width='3'" if i == 0 else ""
            lines.append(f"<g class='bc-block' data-block='{html.escape(u.id)}'>"
                         f"<title>{html.escape(label)}{'; Lead Block (9.4)' if i == 0 else ''}; "
                         f"Battle Zones: {html.escape(bz or 'none')}</title>"
                         f"<rect x='{x + 6}' y='{y + 24 + i * ROW}' width='{W - 12}' height='20' rx='3' "
                         f"fill='{SIDE_FILL[u.side]}'{lead}/>"
                         + fitted_text(x + 10, y + 38 + i * ROW, label, 10, W - 20,
                                       fill='#fff' if u.side == 'french' else '#000') + "</g>")
        for j, h in enumerate(hqs):
            lines.append(fitted_text(x + 6, y + 28 + len(units) * ROW + 10 + j * 14,
                                     f"{h.id} ({h.hq.kind.upper()}, {h.hq.state})", 10, W - 12))
        parts.append(f"<g class='bc-zone' data-zone='{html.escape(z)}' data-blocks='{' '.join(u.id for u in units)}'>"
                     f"<rect x='{x}' y='{y}' width='{W}' height='{H}' rx='6' fill='#f4f1e8' stroke='#555'/>"
                     + "".join(lines) + "</g>")
    width = max(p[0] for p in pos.values()) + W + PAD
    height = max(p[1] for p in pos.values()) + H + PAD
    # a view box: on a narrow screen the drawing shrinks to the page's width (dashboards/render/zone_map.py CSS)
    return (f"<svg class='bc-map' width='{width}' height='{height}' viewBox='0 0 {width} {height}' "
            "xmlns='http://www.w3.org/2000/svg'>"
            + "".join(parts) + "</svg>")
