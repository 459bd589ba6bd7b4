"""Napoleonic 20 (Fuentes de Oñoro 20, Bussaco 20): battles with exact odds and probability trees.

Python API (stable; the dashboards and notebooks use it)::

    from engine import n20
    battle = n20.load_battle("data/examples/n20_worked_example.yaml")
    res = n20.odds(battle)                 # or n20.odds("path/to/battle.yaml", tables="my_tables.yaml")
    res.differential, res.column           # +2, 2
    res.crt["DR"]                          # Fraction(1, 3)
    res.summary["defender_broken"]         # exact Fraction
    res.dataframe()                        # pandas view of the outcome distribution
    res.to_json()                          # fractions as strings with floats beside them
    t = n20.tree(battle)                   # the same battle as a probability tree (engine.core.tree.Tree)

Everything runs ONE procedure, :func:`engine.n20.resolution.battle_procedure`, through the core drivers:
:func:`play` for a game (seeded or typed dice), :func:`odds`/:func:`tree` for exact enumeration.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from math import lcm
from pathlib import Path

from engine.core.dist import Dist, prob_json
from engine.core.procedure import Choose, Played, distribution, enumerate_tree, first_option, jsonable, play as _play
from engine.core.tree import Tree

from .battle import Battle
from .battle_file import load_battle, parse_battle
from .resolution import battle_procedure, unit_positions
from .outcome import Outcome, UnitFate
from .retreat import ContextFreeRetreat, MapRetreat
from .board import Board, load_board, parse_board
from .tables import Tables, default_tables, edition_rules, load_tables, parse_tables
from .units import Unit, UnitSpec

__all__ = ["odds", "tree", "play_battle", "procedure", "load_battle", "parse_battle", "load_tables",
           "parse_tables", "default_tables", "load_board", "parse_board", "OddsResult", "Battle", "Outcome",
           "UnitFate", "Unit", "UnitSpec", "Board", "Tables", "default_policy", "edition_rules", "retreat_options", "choices"]

#: The default policy for every decision inside a battle: the first listed option. Each procedure lists
#: its options in the order of the documented default (retreat paths: least chance of breaking, 9.8.x;
#: exchange: least printed strength lost, 9.6 [G]; fortified hexes: retreat one hex fewer, 9.8.1;
#: advance: the compulsory minimum when control is lost, else one non-cavalry unit into the vacated hex).
default_policy = first_option


def _battle(battle: Battle | str | Path | dict, tables: Tables | str | Path | None) -> Battle:
    if isinstance(tables, (str, Path)):
        tables = load_tables(tables)
    if isinstance(battle, Battle):
        if tables is not None and tables is not battle.tables:
            raise ValueError("give tables when loading the battle (load_battle(path, tables=...)), "
                             "not with an already-built Battle")
        return battle
    if isinstance(battle, dict):
        return parse_battle(battle, tables=tables)
    return load_battle(battle, tables)


def procedure(battle: Battle | str | Path | dict, tables: Tables | str | Path | None = None):
    """The zero-argument factory of the battle's procedure, for any core driver (play, replay, enumerate)."""
    return partial(battle_procedure, _battle(battle, tables))


def play_battle(battle, tables=None, seed: int | None = None, dice=None, chooser=default_policy) -> Played:
    """Fight the battle once with the play driver (seeded RNG, or ``dice`` typed in)."""
    return _play(procedure(battle, tables), dice=dice, chooser=chooser, seed=seed)


@dataclass
class OddsResult:
    """Exact odds of one battle. Probabilities are :class:`fractions.Fraction`."""

    battle: Battle
    differential: int
    column: int
    attack: int
    defence: int
    outcomes: Dist
    crt: Dist
    tree: Tree | None = None
    strength_lines: tuple = ()
    summary: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """JSON per issue 2: fractions as strings with floats beside them."""
        b = self.battle
        items = sorted(self.outcomes.items(), key=lambda kv: (-kv[1], str(kv[0])))
        s = self.summary
        return {
            "edition": b.edition,
            "battle": b.name,
            "attacker": b.attacker_side,
            "defender": b.defender_side,
            "attack_strength": self.attack,
            "defence_strength": self.defence,
            "differential": self.differential,
            "column": self.column,
            "strengths": [{"rule": r, "text": t} for r, t in self.strength_lines],
            "crt": {k: prob_json(v) for k, v in sorted(self.crt.items(), key=lambda kv: _CODE_ORDER.index(kv[0].split('->')[0]))},
            "outcomes": [{"probability": prob_json(p), **o.to_json(), "text": str(o)} for o, p in items],
            "summary": {
                "defender_broken": prob_json(s["defender_broken"]),
                "attacker_broken": prob_json(s["attacker_broken"]),
                "defender_dislodged": prob_json(s["defender_dislodged"]),
                "expected_morale": {side: {"fraction": f"{v.numerator}/{v.denominator}", "float": float(v)}
                                    for side, v in s["expected_morale"].items()},
                "rout_beyond_ma": prob_json(s["rout_beyond_ma"]),
                "runaway_cavalry_advance": prob_json(s["runaway_cavalry_advance"]),
                "guard_recule": prob_json(s["guard_recule"]),
                "game_lost": {side: prob_json(v) for side, v in s["game_lost"].items()},
            },
            "tables": b.tables.provenance(),
            "outcome_count": len(self.outcomes),
            "total_probability": prob_json(self.outcomes.total),
        }

    def dataframe(self):
        """One row per final outcome: probability (exact and float), result, morale deltas, unit fates."""
        import pandas as pd

        rows = []
        for o, p in sorted(self.outcomes.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            row = {"probability": float(p), "fraction": f"{p.numerator}/{p.denominator}", "result": o.result}
            for side, d in o.morale:
                row[f"morale_{side}"] = d
            for f in o.fates:
                row[f"{f.unit}"] = f.fate + (f" {f.hexes}" if f.hexes else "") + (f" adv {f.advanced}" if f.advanced else "")
            row["controlled_advance"] = o.control
            row["text"] = str(o)
            rows.append(row)
        return pd.DataFrame(rows)


_CODE_ORDER = ["AB", "AR", "AW", "N", "EX", "DW", "DR", "DB"]


def _summary(b: Battle, dist: Dist) -> dict:
    """The summary figures, exactly, in one pass (integer weights over a common denominator)."""
    items = list(dist.items())
    den = lcm(*(p.denominator for _, p in items)) if items else 1
    sides = (b.attacker_side, b.defender_side)
    acc = {"defender_broken": 0, "attacker_broken": 0, "defender_dislodged": 0, "rout_beyond_ma": 0,
           "runaway_cavalry_advance": 0, "guard_recule": 0}
    morale = {s: 0 for s in sides}
    lost = {s: 0 for s in sides}
    for o, p in items:
        w = p.numerator * (den // p.denominator)
        broken_d = broken_a = beyond = False
        dislodged = True
        for f in o.fates:
            gone = f.fate in ("broken", "destroyed")
            if f.role == "defender":
                broken_d = broken_d or gone
                dislodged = dislodged and (gone or f.hexes > 0)
            else:
                broken_a = broken_a or gone
            beyond = beyond or f.beyond_ma
        acc["defender_broken"] += w if broken_d else 0
        acc["attacker_broken"] += w if broken_a else 0
        acc["defender_dislodged"] += w if dislodged else 0
        acc["rout_beyond_ma"] += w if beyond else 0
        acc["runaway_cavalry_advance"] += w if o.control == "lost" else 0
        acc["guard_recule"] += w if any(i.entry == "guard_recule" for i in o.morale_items) else 0
        for s in sides:
            morale[s] += w * o.delta(s)
            lost[s] += w if s in o.lost_game else 0
    out = {k: Fraction(v, den) for k, v in acc.items()}
    out["expected_morale"] = {s: Fraction(v, den) for s, v in morale.items()}
    out["game_lost"] = {s: Fraction(v, den) for s, v in lost.items()}
    return out


def odds(battle: Battle | str | Path | dict, tables: Tables | str | Path | None = None,
         policy=default_policy, with_tree: bool = False) -> OddsResult:
    """Exact odds of a battle by enumerating its procedure (choices by ``policy``).

    ``battle``: a :class:`Battle`, a battle file path, or a dict in the battle-file format.
    ``tables``: a :class:`Tables` or a tables file path (default: the battle's, else the edition's shipped set).
    """
    b = _battle(battle, tables)
    p = b.prepared
    factory = partial(battle_procedure, b)
    t = enumerate_tree(factory, policy=policy, build=with_tree)
    dist = t.distribution()
    crt = dist.map(lambda o: o.result)
    diff = p.attack_total - p.defend_total + p.command
    used = b.reduce_to if (b.reduce_to is not None and b.reduce_to < diff) else diff
    return OddsResult(b, diff, b.tables.column_for(used), p.attack_total, p.defend_total, dist, crt,
                      t if with_tree else None, p.lines, _summary(b, dist))


def tree(battle: Battle | str | Path | dict, tables: Tables | str | Path | None = None, policy=default_policy,
         keep_decisions: bool = False) -> Tree:
    """The battle as an exact probability tree (each node: rule, request, outcome, probability).

    With ``keep_decisions=True`` every choice (retreat path, exchange, advance) becomes a decision node
    listing all its options instead of being resolved by ``policy``.
    """
    b = _battle(battle, tables)
    return enumerate_tree(partial(battle_procedure, b), policy=policy, keep_decisions=keep_decisions)


def retreat_options(battle: Battle | str | Path | dict, unit: str, distance: int, tables=None):
    """Every retreat path the rules leave open to ``unit`` (standing where the battle file puts it) for a
    retreat of ``distance`` hexes, in the default policy's order (least chance of breaking first; 9.8.2-9.8.7).
    On a context-free battle this is the one path its hazards describe."""
    b = _battle(battle, tables)
    if unit not in b.units:
        raise KeyError(f"no unit {unit!r} in this battle")
    u = b.units[unit]
    env = MapRetreat(b.board, b.rules.loc_breaks_retreat) if b.board else \
        ContextFreeRetreat(dict(b.paths), b.rules.loc_breaks_retreat)
    return env.options(u, u.hex, distance, unit_positions(b, {}))


def choices(battle: Battle | str | Path | dict, tables=None) -> list[dict]:
    """Every decision the battle can call for, with all its options (default first), found by enumerating
    the battle with the default policy: exchange losses (9.6 [G]), fortified retreats (9.8.1), retreat
    paths (9.8.2-9.8.7), advance plans (9.9.3). Decisions inside sub-procedures are listed here even though
    a tree resolves them by the policy."""
    b = _battle(battle, tables)
    seen: dict = {}

    def recording(req: Choose):
        key = (req.rule, req.label, req.options)
        if key not in seen:
            seen[key] = {"rule": req.rule, "label": req.label, "player": req.player,
                         "options": [str(o) for o in req.options], "default": str(req.options[0]),
                         "values": [jsonable(o) for o in req.options]}
        return default_policy(req)

    distribution(partial(battle_procedure, b), policy=recording)
    return list(seen.values())
