"""The sequence of play's own numbers (``data/tbf/turn.yaml``): command reach (6.1), facing changes (4.3),
where mustered columns and reinforcements are set down (9.2, 9.6.2), each with its source."""
from __future__ import annotations

from functools import lru_cache

from engine.core.data import Sourced, data_path, load_yaml

__all__ = ["TurnData", "turn_data", "TURN_FILE"]

TURN_FILE = data_path("tbf", "turn.yaml")


class _Facing(Sourced):
    mp: int
    per_segment: int


class _Reach(Sourced):
    leaders: dict[str, int]
    units: dict[str, int]


class _Hexes(Sourced):
    hexes: int


class _Radius(Sourced):
    radius: int


class _ColumnVI(Sourced):
    hex: str
    trigger: int


class _Rolls(Sourced):
    initiative_mortier_drm: int
    regroup_on: list[int]
    ammo_short_on: list[int]
    dumonceau_needs: list[int]
    klein_on: list[int]
    klein_entry_a: list[int]
    murat_on: list[int]


class _ColumnIV(Sourced):
    first_turn: int
    hex: str
    radius: int
    ranges: dict[int, list[int]]


class _Ammo(Sourced):
    first_turn: int


class TurnData(Sourced):
    facing_change: _Facing
    command_reach: _Reach
    extra_units_reach: _Hexes
    dupont_entry: _Radius
    muster: _Radius
    column_vi: _ColumnVI
    rolls: _Rolls
    column_iv: _ColumnIV
    ammo: _Ammo


@lru_cache(maxsize=1)
def turn_data() -> TurnData:
    return load_yaml(TURN_FILE, TurnData)
