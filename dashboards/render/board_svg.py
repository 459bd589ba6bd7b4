"""Still pictures of a board, as small SVG text: for notebooks, reports and records' walkthroughs.

The live boards (:mod:`dashboards.play.boards`, the n20 map of
:mod:`dashboards.render.hexboard`) are models with callbacks and a live server; a walkthrough that shows the board after every phase of a game needs dozens of pictures, which as Bokeh
documents would weigh megabytes and need a live kernel. This module draws the same maps from the same
sources as still SVG: hex maps from the :class:`~dashboards.render.hexmap.MapSpec` the live figure draws
(terrain colours, hexside features, roads, names) with the counters the live board shows
(:func:`~dashboards.calculators.n20.map_view.counters_of` for n20; the TBF board's counters with their
facing), the Lines of Battle area map with the colours of :mod:`dashboards.render.lob_map`, and the
Battle Commander zone map of :func:`~dashboards.calculators.bc.views.zone_map_svg` itself. Drawing only:
no rules.
"""
from __future__ import annotations

import html
import re
from typing import Any, Iterable

from dashboards.render.hexmap import SIDE_COLOURS, TERRAIN_COLOURS, Counter, MapSpec, static_layers

__all__ = ["hexes_around", "hexmap_svg", "board_svg", "n20_board_svg", "tbf_board_svg", "lob_board_svg", "bc_board_svg",
           "tbf_map_spec"]

_S = 20.0          # SVG units per hex radius


def _f(v: float) -> str:
    return str(int(round(v * _S)))


def _pt(x: float, y: float) -> str:
    return f"{_f(x)},{_f(-y)}"        # MapSpec y grows upwards (row 01 at the top), SVG y grows downwards


def _terrain_layer(spec: MapSpec, colours: dict[str, str], hexes: Iterable[str]) -> str:
    """The hexes as one path per colour (one short sub-path a hex), cached on the spec per hex set."""
    hexes = tuple(hexes)
    cache = spec.__dict__.setdefault("_svg_terrain", {})
    ck = (hexes, tuple(sorted(colours.items())))
    if ck in cache:
        return cache[ck]
    by_colour: dict[str, list[str]] = {}
    for h in hexes:
        c = colours.get(spec.terrain[h], "#eeeeee")
        pts = spec.corners(h)
        d = "M" + "L".join(_pt(x, y) for x, y in pts) + "Z"
        by_colour.setdefault(c, []).append(d)
    out = "".join(f"<path d='{''.join(ds)}' fill='{c}' stroke='#9e9e9e' stroke-width='1'/>"
                  for c, ds in by_colour.items())
    names = [h for h in hexes if spec.names.get(h)]
    for h in names:
        x, y = spec.center(h)
        out += (f"<text x='{_f(x)}' y='{_f(-y + 0.62)}' font-size='11' font-style='italic' fill='#3e2723' "
                f"text-anchor='middle'>{html.escape(spec.names[h])}</text>")
    cache[ck] = out
    return out


def _lines_layer(spec: MapSpec, keep: set[str]) -> str:
    st = static_layers(spec)
    parts = []
    rx, ry = st["roads"]
    for xs, ys in zip(rx, ry):
        pts = " ".join(_pt(x, y) for x, y in zip(xs, ys))
        parts.append(f"<polyline points='{pts}' fill='none' stroke='#7b5e3b' stroke-width='3' stroke-dasharray='6 4'/>")
    hs = st["hexsides"]
    for i in range(len(hs["x0"])):
        dash = {"dashed": " stroke-dasharray='6 4'", "dotted": " stroke-dasharray='2 4'"}.get(hs["dash"][i], "")
        parts.append(f"<line x1='{_f(hs['x0'][i])}' y1='{_f(-hs['y0'][i])}' x2='{_f(hs['x1'][i])}' "
                     f"y2='{_f(-hs['y1'][i])}' stroke='{hs['colour'][i]}' stroke-width='{float(hs['width'][i]):g}'{dash}/>")
    return "".join(parts)


def _counters_layer(spec: MapSpec, counters: Iterable[Counter], facing: dict[str, int] | None = None) -> str:
    stacks: dict[str, int] = {}
    parts = []
    for c in counters:
        if c.hex not in spec.terrain:
            continue
        k = stacks.get(c.hex, 0)
        stacks[c.hex] = k + 1
        x, y = spec.center(c.hex)
        x, y = x + 0.16 * k, y - 0.16 * k            # a stack fans out down and to the right
        colour = SIDE_COLOURS.get(c.side, "#777777")
        outline = "#b71c1c" if c.markers else "#111111"
        tip = f"{c.name or c.id} ({c.id}), {c.side}, {c.kind} {c.strength}-{c.movement}"
        if c.markers:
            tip += ", " + ", ".join(c.markers)
        short = (c.kind[:3].upper() if c.kind else "?") + ("*" if c.elite else "")
        parts.append(f"<g><title>{html.escape(tip)}</title>"
                     f"<rect x='{_f(x - 0.55)}' y='{_f(-y - 0.44)}' width='{_f(1.1)}' height='{_f(0.88)}' "
                     f"fill='{colour}' stroke='{outline}' stroke-width='{3 if c.markers else 1}'/>"
                     f"<text x='{_f(x)}' y='{_f(-y - 0.05)}' font-size='9' font-weight='bold' fill='white' "
                     f"text-anchor='middle'>{html.escape(short)}</text>"
                     f"<text x='{_f(x)}' y='{_f(-y + 0.32)}' font-size='9' fill='white' text-anchor='middle'>"
                     f"{html.escape(f'{c.strength}-{c.movement}')}</text>")
        if c.markers:
            parts.append(f"<text x='{_f(x)}' y='{_f(-y + 0.75)}' font-size='9' font-weight='bold' fill='#b71c1c' "
                         f"text-anchor='middle'>{html.escape(' '.join(m[:8] for m in c.markers))}</text>")
        d = (facing or {}).get(c.id)
        if d is not None:
            n = spec.grid.neighbour(c.hex, int(d))
            if n is not None:
                nx, ny = spec.center(n)
                parts.append(f"<line x1='{_f(x)}' y1='{_f(-y)}' x2='{_f(x + (nx - x) * 0.42)}' "
                             f"y2='{_f(-y + (y - ny) * 0.42)}' stroke='#ffeb3b' stroke-width='3'/>")
        parts.append("</g>")
    return "".join(parts)


def hexes_around(spec: MapSpec, hexes: Iterable[str], margin: int = 1) -> list[str]:
    """The map's hexes inside the column/row box around ``hexes`` widened by ``margin``: the part of a
    big map where a game happened (every hex if ``hexes`` is empty)."""
    cr = [spec.grid.parse(h) for h in hexes if h in spec.terrain]
    if not cr:
        return list(spec.terrain)
    c0, c1 = min(c for c, _ in cr) - margin, max(c for c, _ in cr) + margin
    r0, r1 = min(r for _, r in cr) - margin, max(r for _, r in cr) + margin
    return [h for h in spec.terrain if c0 <= spec.grid.parse(h)[0] <= c1 and r0 <= spec.grid.parse(h)[1] <= r1]


def hexmap_svg(spec: MapSpec, counters: Iterable[Counter], width: int = 480, title: str = "",
               hexes: Iterable[str] | None = None, colours: dict[str, str] | None = None,
               facing: dict[str, int] | None = None) -> str:
    """A hex map with its counters as one SVG element ``width`` pixels wide. ``hexes`` limits the drawing
    to part of the map (the view box fits them); ``facing`` (unit id -> direction 0..5) draws a tick
    towards the hexside a counter faces."""
    keep = [h for h in (hexes if hexes is not None else spec.terrain) if h in spec.terrain]
    counters = list(counters)
    terrain = _terrain_layer(spec, colours or TERRAIN_COLOURS, keep)
    pts = [p for h in keep for p in spec.corners(h)]
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(-p[1] for p in pts), max(-p[1] for p in pts)
    top = 1.2 if title else 0.2
    vb = (x0 - 0.2, y0 - top, x1 - x0 + 0.4, y1 - y0 + top + 0.2)
    height = int(width * vb[3] / vb[2])
    head = (f"<text x='{_f(vb[0] + 0.2)}' y='{_f(y0 - 0.35)}' font-size='16' font-weight='bold' "
            f"fill='#333'>{html.escape(title)}</text>") if title else ""
    kept = set(keep)
    shown = [c for c in counters if c.hex in kept]
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='{' '.join(_f(v) for v in vb)}' class='board-still' style='background:#fafafa'>"
            + head + terrain + _lines_layer(spec, kept) + _counters_layer(spec, shown, facing) + "</svg>")


# ------------------------------------------------------------------------------------------------
# One function per system, and one to pick it
# ------------------------------------------------------------------------------------------------
def n20_board_svg(state, width: int = 480, title: str = "") -> str:
    """A Napoleonic 20 position: the scenario's map and every counter on it (as the play page's map)."""
    from dashboards.render.n20_board import spec_from_board
    from dashboards.calculators.n20.map_view import counters_of
    return hexmap_svg(spec_from_board(state.scenario.board), counters_of(state), width, title)


def tbf_map_spec(scenario) -> MapSpec:
    """The TBF board as the play page's hex map draws it (:class:`~dashboards.play.boards.TbfBoard`)."""
    cached = scenario.__dict__.get("_svg_spec") if hasattr(scenario, "__dict__") else None
    if cached is not None:
        return cached
    b = scenario.board
    names = {hs[0]: n for n, hs in b.data.towns.items()}
    spec = MapSpec(b.grid, {h: b.terrain(h) for h in b.hexes()}, names=names,
                   roads=[r.hexes for r in b.data.roads], title="Dürenstein (provisional map)", source=b.data.source)
    try:
        scenario.__dict__["_svg_spec"] = spec
    except (AttributeError, TypeError):
        pass
    return spec


def tbf_board_svg(state, scenario, width: int = 480, title: str = "", hexes: Iterable[str] | None = None) -> str:
    """A TBF position: the hex map (levels, towns, river) with each fighting unit's counter and a tick
    to the hexside it faces (leaders are left out, as on the play page)."""
    from dashboards.render.hexmap import TBF_COLOURS
    spec = tbf_map_spec(scenario)
    counters, facing = [], {}
    for p in state.game.on_map():
        u = scenario.units.get(p.id)
        if u is None or scenario.is_leader(p.id):
            continue
        status = getattr(p, "status", "")
        marks = tuple(m for m in (status if status and status not in ("normal", "map") else "",) if m)
        counters.append(Counter(p.id, p.hex, "french" if u.side == "french" else "allied", getattr(u, "kind", ""),
                                getattr(u, "fv", 0), getattr(u, "ma", 0), u.name, markers=marks))
        if getattr(p, "facing", None) is not None:
            facing[p.id] = p.facing
    return hexmap_svg(spec, counters, width, title, hexes=hexes, colours=TBF_COLOURS, facing=facing)


def lob_board_svg(state, width: int = 480, title: str = "") -> str:
    """A Lines of Battle position: the area map (discs in terrain colour, borders by kind, approaches)
    with each area's holder as the disc's ring and its units counted beside."""
    from dashboards.render.lob_map import SIDE_COLOURS as LOB_SIDES, TERRAIN_COLOURS as LOB_TERRAIN
    spec = state.board.spec
    pos = {a.id: (a.x, a.y) for a in spec.areas}
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    k = 60.0
    x0, y1 = min(xs) - 0.8, max(ys) + 0.8
    head = 30 if title else 0

    def X(x):
        return int(round((x - x0) * k))

    def Y(y):
        return int(round((y1 - y) * k)) + head

    style = {None: ("#9e9e9e", 2, ""), "river": ("#1565c0", 7, ""), "stream": ("#64b5f6", 4, "")}
    parts = []
    for b in spec.borders:
        if b.a not in pos or b.b not in pos:
            continue
        (ax, ay), (bx, by) = pos[b.a], pos[b.b]
        c, w, _ = style.get(b.water, style[None])
        parts.append(f"<line x1='{X(ax)}' y1='{Y(ay)}' x2='{X(bx)}' y2='{Y(by)}' stroke='{c}' stroke-width='{w}'/>")
        if b.road:
            parts.append(f"<line x1='{X(ax)}' y1='{Y(ay)}' x2='{X(bx)}' y2='{Y(by)}' stroke='#7b5e3b' "
                         f"stroke-width='3' stroke-dasharray='6 4'/>")
        if b.approach:
            mx, my = X((ax + bx) / 2), Y((ay + by) / 2)
            parts.append(f"<rect x='{mx - 4}' y='{my - 4}' width='8' height='8' fill='white' stroke='#424242'/>")
    by_area: dict[str, list] = {}
    for u in state.units:
        if u.area is not None:
            by_area.setdefault(u.area, []).append(u)
    for a in spec.areas:
        us = by_area.get(a.id, [])
        holder = us[0].side if us else None
        ring = LOB_SIDES.get(holder, "#9e9e9e")
        tip = f"{a.id} {a.name} ({a.terrain}): " + (", ".join(u.label() for u in us) or "empty")
        parts.append(f"<g><title>{html.escape(tip)}</title><circle cx='{X(a.x)}' cy='{Y(a.y)}' r='19' "
                     f"fill='{LOB_TERRAIN.get(a.terrain, '#eee')}' stroke='{ring}' stroke-width='{4 if us else 1}'/>"
                     f"<text x='{X(a.x)}' y='{Y(a.y) + 4}' font-size='11' font-weight='bold' text-anchor='middle'>"
                     f"{html.escape(a.id[:8])}</text>")
        if us:
            side = "F" if holder == "French" else "A"
            parts.append(f"<text x='{X(a.x)}' y='{Y(a.y) + 31}' font-size='10' fill='{ring}' text-anchor='middle'>"
                         f"{len(us)} {side}{' ' + str(sum(u.hits for u in us)) + ' hits' if any(u.hits for u in us) else ''}"
                         f"</text>")
        parts.append("</g>")
    w = X(max(xs) + 0.8)
    h = Y(min(ys) - 0.8)
    titl = f"<text x='8' y='20' font-size='15' font-weight='bold' fill='#333'>{html.escape(title)}</text>" if title else ""
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{int(width * h / w)}' "
            f"viewBox='0 0 {w} {h}' class='board-still' style='background:#fbfaf5'>" + titl + "".join(parts) + "</svg>")


def bc_board_svg(state, width: int = 480, title: str = "") -> str:
    """A Battle Commander position: the zone map of the play page (Blocks in order, lead first; HQs)."""
    from dashboards.render.zone_map import zone_map_svg
    svg = zone_map_svg(state.g)
    m = re.match(r"<svg class='bc-map' width='([\d.]+)' height='([\d.]+)'", svg)
    if not m:
        return svg
    w, h = float(m.group(1)), float(m.group(2))
    head = 26 if title else 0
    titl = (f"<text x='8' y='18' font-size='15' font-weight='bold' fill='#333'>{html.escape(title)}</text>"
            if title else "")
    inner = svg[m.end():]
    inner = inner[inner.index(">") + 1:-len("</svg>")]
    return (f"<svg xmlns='http://www.w3.org/2000/svg' class='board-still bc-map' width='{width}' "
            f"height='{int(width * (h + head) / w)}' viewBox='0 {-head} {w:g} {h + head:g}'>" + titl + inner + "</svg>")


def board_svg(rules, state, width: int = 480, title: str = "", **kw: Any) -> str:
    """The still board of any system's position (``rules.system`` picks the drawing)."""
    if rules.system == "n20":
        return n20_board_svg(state, width, title)
    if rules.system == "tbf":
        return tbf_board_svg(state, rules.sc, width, title, **kw)
    if rules.system == "lob":
        return lob_board_svg(state, width, title)
    if rules.system == "bc":
        return bc_board_svg(state, width, title)
    summary = html.escape(str(rules.state_summary(state) or rules.position(state)))
    return f"<pre class='board-still'>{summary}</pre>"
