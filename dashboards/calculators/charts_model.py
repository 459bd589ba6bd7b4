"""The charts in use, as editable tables: type in the printed values, save a tables file the engine loads.

Each game system's charts live in YAML files under ``data/`` (one block per chart, each with its own
``source:``). :class:`ChartBook` reads the shipped file as plain data, shows every block as a table (a grid
for a chart printed as a grid, such as the n20 CRT; otherwise one row per value, named by its path), lets a
player change values and sources, and writes the whole file back in the same format that ``--tables FILE``
and the upload widgets read: the calculators' and a game's (``vedette GAME new --tables FILE``, the play page's
upload), whose record keeps the values. The engine's own loaders check the result, so the same messages as
the CLI.

No rule is computed here; this is data entry with provenance.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from engine.core.data import data_path, parse_data, provenance_kind
from engine.core.errors import VedetteError

from dashboards.common.uploads import load_bytes

__all__ = ["SYSTEMS", "ChartFile", "ChartBook", "Block", "flatten", "parse_cell"]

_META = ("source", "notes")


def _n20_loader(path):
    from engine import n20
    return n20.load_tables(path)


def _lob_loader(path):
    from engine.lob.tables import load_tables
    return load_tables(path)


def _tbf_loader(path):
    from engine.tbf.tables import load_tables
    return load_tables(path)


def _bc_deck_loader(path):
    from engine.bc.deck import load_deck
    return load_deck(path)


def _bc_terrain_loader(path):
    from engine.bc.terrain import load_terrain
    return load_terrain(path)


@dataclass(frozen=True)
class ChartFile:
    key: str                         # "n20-v3"
    title: str                       # "Napoleonic 20 (v3.0 charts)"
    path: Path                       # the shipped file
    loader: Callable[[Path], Any]    # the engine's loader (the same as --tables FILE)
    option: str                      # how the CLI takes it
    system: str = ""                 # the game system whose games take it (``vedette SYSTEM new --tables FILE``)

    @property
    def game_option(self) -> str:
        return f"vedette {self.system} new --tables FILE"


SYSTEMS: dict[str, ChartFile] = {f.key: f for f in (
    ChartFile("n20-v3", "Napoleonic 20, v3.0 charts (CRT, TEC, Rally, Controlled Advance, Morale Chart)",
              data_path("n20", "tables_v3.yaml"), _n20_loader, "vedette n20 odds BATTLE --tables FILE", "n20"),
    ChartFile("n20-v2", "Napoleonic 20, older edition charts (Bussaco)", data_path("n20", "tables_v2.yaml"),
              _n20_loader, "vedette n20 odds BATTLE --tables FILE", "n20"),
    ChartFile("lob", "Lines of Battle tables", data_path("lob", "tables.yaml"), _lob_loader,
              "vedette lob combat FILE --tables FILE", "lob"),
    ChartFile("tbf", "These Brave Fellows tables (Fatigue, Fire, Melee, Terrain, Levels)",
              data_path("tbf", "tables.yaml"), _tbf_loader, "vedette tbf … --tables FILE", "tbf"),
    ChartFile("bc-deck", "Battle Commander event deck (Skill icons, Fire and Assault CRT rows)",
              data_path("bc", "deck.yaml"), _bc_deck_loader, "vedette bc … --deck FILE", "bc"),
    ChartFile("bc-terrain", "Battle Commander Terrain Effects Chart", data_path("bc", "terrain.yaml"),
              _bc_terrain_loader, "vedette bc … --terrain FILE", "bc"),
)}


# --------------------------------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------------------------------
def cell_text(v: Any) -> str:
    """A value as a player types it: ``3``, ``DR``, ``true``, ``[1, 2]``, empty for null."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    return yaml.safe_dump(v, default_flow_style=True, allow_unicode=True, width=10_000).strip()


def parse_cell(text: Any, like: Any = None) -> Any:
    """A typed cell back to data: numbers, true/false, lists ``[1, 2]``; text stays text. ``like`` (the
    shipped value) keeps a text cell text even when it looks like a number (a label such as ``"1611"``)."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    if isinstance(like, str):
        return s
    if s == "":
        return None
    try:
        v = parse_data(s, "cell")      # bounded YAML (core/data.py): no alias bomb from a typed cell
    except VedetteError:
        return s
    return v if isinstance(v, (int, float, bool, list, dict)) or v is None else s


def flatten(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Leaves of nested data as ``(path, value)``: ``terrain.forest.combat``; a list of plain values is one
    leaf, a list of mappings gives ``cards[3].skill``."""
    out: list[tuple[str, Any]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, (dict, list)) and v and not _plain_list(v):
                out.extend(flatten(v, p))
            else:
                out.append((p, v))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            p = f"{prefix}[{i}]"
            if isinstance(v, (dict, list)) and v and not _plain_list(v):
                out.extend(flatten(v, p))
            else:
                out.append((p, v))
    return out


def _plain_list(v: Any) -> bool:
    return isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v)


def _steps(path: str) -> list:
    steps: list = []
    for part in path.split("."):
        while "[" in part:
            head, _, rest = part.partition("[")
            if head:
                steps.append(head)
            idx, _, part = rest.partition("]")
            steps.append(int(idx))
        if part:
            steps.append(part)
    return steps


def _get(data: Any, steps: list) -> Any:
    for s in steps:
        data = data[s] if not isinstance(s, str) or not isinstance(data, dict) else data[_key(data, s)]
    return data


def _key(d: dict, s: str):
    """The mapping's own key for ``s`` (YAML keys may be numbers: the CRT's die rows)."""
    if s in d:
        return s
    for k in d:
        if str(k) == s:
            return k
    raise KeyError(s)


def _set(data: Any, steps: list, value: Any) -> None:
    parent = _get(data, steps[:-1])
    last = steps[-1]
    if isinstance(parent, dict):
        parent[_key(parent, str(last)) if not isinstance(last, int) or last not in parent else last] = value
    else:
        parent[last] = value


# --------------------------------------------------------------------------------------------------
# blocks
# --------------------------------------------------------------------------------------------------
@dataclass
class Block:
    """One chart of the file: its name, its own provenance, and its values as a table."""

    name: str
    path: list            # where the block sits in the file ([] for a file that is one chart)
    book: "ChartBook"

    @property
    def data(self) -> dict:
        return _get(self.book.data, self.path) if self.path else self.book.data

    @property
    def source(self) -> str:
        return str(self.data.get("source", self.book.data.get("source", "provisional")))

    @property
    def notes(self) -> str:
        return str(self.data.get("notes", "") or "")

    @property
    def kind(self) -> str:
        return provenance_kind(self.source)

    @property
    def provisional(self) -> bool:
        return self.kind == "provisional"

    def set_source(self, text: str) -> None:
        self.data["source"] = str(text).strip()

    # a chart printed as a grid: ``columns`` and ``rows`` (one list per row, one cell per column)
    @property
    def is_grid(self) -> bool:
        d = self.data
        return (isinstance(d.get("columns"), list) and isinstance(d.get("rows"), dict)
                and all(isinstance(r, list) and len(r) == len(d["columns"]) for r in d["rows"].values()))

    def grid(self) -> tuple[list[str], list[str], list[list[str]]]:
        """(row labels, column labels, cells as text)."""
        d = self.data
        cols = [f"{c:+d}" if isinstance(c, int) else str(c) for c in d["columns"]]
        return [str(k) for k in d["rows"]], cols, [[cell_text(v) for v in row] for row in d["rows"].values()]

    def set_grid_cell(self, row: str, col: int, text: str) -> None:
        rows = self.data["rows"]
        k = _key(rows, str(row))
        rows[k][col] = parse_cell(text, rows[k][col])

    def rows(self) -> list[tuple[str, str]]:
        """Every value of the block but its source and notes, as (path, text); a deck's cards are left to
        :meth:`card_table`."""
        body = {k: v for k, v in self.data.items() if k not in _META and not (k == "cards" and self.is_cards)}
        return [(p, cell_text(v)) for p, v in flatten(body)]

    def set_value(self, path: str, text: str) -> None:
        steps = _steps(path)
        old = _get(self.data, steps)
        _set(self.data, steps, parse_cell(text, old))

    # a deck of cards (Battle Commander): ``cards``, one mapping per card, with rows of one result per column
    @property
    def is_cards(self) -> bool:
        d = self.data
        return isinstance(d.get("cards"), list) and bool(d["cards"]) and all(isinstance(c, dict) for c in d["cards"])

    def card_rows(self) -> list[str]:
        """The fields of the cards that are one value per odds column (``fire``, ``assault``)."""
        n = len(self.data.get("columns") or [])
        return [k for k, v in self.data["cards"][0].items() if isinstance(v, list) and n and len(v) == n]

    def card_faces(self) -> list[str]:
        """The cards' other fields, in the file's order (``number``, ``name``, ``side``, ``skill``…)."""
        rows = set(self.card_rows())
        seen: list[str] = []
        for c in self.data["cards"]:
            seen += [k for k in c if k not in rows and k not in seen]
        return seen

    def card_columns(self) -> list[str]:
        return [f"{c:+d}" if isinstance(c, int) else str(c) for c in self.data.get("columns") or []]

    def card_table(self, view: str = "faces") -> tuple[list[str], list[list[str]]]:
        """(headers, one row of text per card): ``view`` is ``faces`` (number, name, side, skill…) or one of
        :meth:`card_rows` (the card's number, then its result in each odds column)."""
        cards = self.data["cards"]
        if view == "faces":
            heads = self.card_faces()
            return heads, [[cell_text(c.get(h)) for h in heads] for c in cards]
        if view not in self.card_rows():
            raise VedetteError(f"charts: the cards have no row {view!r} (one of faces, {', '.join(self.card_rows())})")
        cols = self.card_columns()
        return ["number", *cols], [[cell_text(c.get("number")),
                                    *(cell_text(v) for v in (c.get(view) or [None] * len(cols)))] for c in cards]

    def set_card_cell(self, index: int, view: str, header: str, text: str) -> None:
        card = self.data["cards"][index]
        if view == "faces":
            card[header] = parse_cell(text, card.get(header))
        else:
            k = self.card_columns().index(header)
            if not isinstance(card.get(view), list):
                raise VedetteError(f"charts: card {card.get('number')} has no {view} row (the reshuffle card "
                                   f"shows no result)")
            card[view][k] = parse_cell(text, card[view][k])

    def card_counts(self) -> dict[str, dict]:
        """How many cards show each value: for each row field, per odds column ``{result: {column: n}}`` (in the
        file's ``<row>_order`` when it has one); for each face field with few values, ``{value: n}``."""
        cards = self.data["cards"]
        cols = self.card_columns()
        out: dict[str, dict] = {}
        for row in self.card_rows():
            order = list(self.data.get(f"{row}_order") or [])
            shown = [c[row] for c in cards if isinstance(c.get(row), list) and len(c[row]) == len(cols)]
            seen = order + sorted({str(v) for r in shown for v in r if str(v) not in order})
            out[row] = {r: {col: sum(1 for x in shown if str(x[k]) == r) for k, col in enumerate(cols)}
                        for r in seen}
        for f in self.card_faces():
            values = [cell_text(c.get(f)) for c in cards]
            if f not in ("number", "name") and len(set(values)) <= 12:
                out[f] = {v: values.count(v) for v in sorted(set(values))}
        return out


class ChartBook:
    """The charts of one file, editable; ``to_yaml()`` is a tables file in the shipped format."""

    def __init__(self, key: str = "n20-v3", text: str | None = None):
        if key not in SYSTEMS:
            raise VedetteError(f"charts: unknown chart file {key!r} (one of {', '.join(SYSTEMS)})")
        self.file = SYSTEMS[key]
        self.key = key
        self.data = parse_data(text, f"{key} charts") if text is not None else \
            yaml.safe_load(self.file.path.read_text(encoding="utf-8"))
        self.shipped = copy.deepcopy(self.data)

    def blocks(self) -> list[Block]:
        """The charts: each top-level mapping with its own ``source``; a file with none is one chart."""
        out = [Block(str(k), [k], self) for k, v in self.data.items() if isinstance(v, dict) and "source" in v]
        if not out:
            out = [Block(self.file.title, [], self)]
        return out

    def block(self, name: str) -> Block:
        for b in self.blocks():
            if b.name == name:
                return b
        raise VedetteError(f"charts: no chart named {name!r} in {self.file.path.name}")

    def provisional(self) -> list[str]:
        return [b.name for b in self.blocks() if b.provisional]

    def changed(self) -> bool:
        return self.data != self.shipped

    def to_yaml(self) -> str:
        head = (f"# {self.file.title}: values typed in on the Vedette charts page.\n"
                f"# Use it with: {self.file.option}, or play a game with it: {self.file.game_option}\n")
        return head + yaml.safe_dump(self.data, sort_keys=False, allow_unicode=True, width=110)

    def to_bytes(self) -> bytes:
        """The file the page saves (what ``--tables FILE`` and the play page's upload take)."""
        return self.to_yaml().encode("utf-8")

    def filename(self) -> str:
        return f"my_{self.key.replace('-', '_')}_charts.yaml"

    def game_tables(self):
        """The file as a game takes it (:func:`engine.core.tables.read_tables`, the loader ``vedette GAME
        new --tables FILE`` and the play page use): a :class:`~engine.core.tables.GameTables` of this chart
        file, or the engine's one-line error."""
        from engine.core.game import system_of
        from engine.core.tables import read_tables
        got = read_tables(system_of(self.file.system), self.to_bytes(), self.filename())
        if got.chart != self.key:
            raise VedetteError(f"{self.filename()}: read as the {got.chart} charts, not the {self.key} ones "
                               f"(check its 'edition')")
        return got

    def check(self) -> Any:
        """Load the file as the CLI would, the calculators' loader and a game's (raises the engine's one-line
        error when it is not valid)."""
        loaded = load_bytes(self.to_bytes(), self.file.path.name, self.file.loader)
        self.game_tables()
        return loaded
