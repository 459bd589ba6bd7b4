"""Charts and modifiers of Lines of Battle, loaded from ``data/lob/tables.yaml`` (or a user's file)."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field

from engine.core.data import Sourced, Strict, data_path, load_yaml, provenance_kind
from engine.core.errors import DataError

from .fingerprint import Fingerprinted

__all__ = ["Tables", "load_tables", "default_tables", "tables_from_data", "TABLES_FILE"]

TABLES_FILE = data_path("lob", "tables.yaml")


class CombatMods(Sourced):
    infantry_vs_light_cavalry: int
    heavy_vs_light_or_lancer: int
    infantry_on_approach: int
    square_vs_cavalry: int
    infantry_vs_square: int
    attacker_from_close: int
    infantry_vs_cavalry_in_close: int
    cavalry_loser_hits_when_infantry_wins: int = Field(ge=1)


class FireTable(Sourced):
    target_square: int
    target_on_approach: int
    target_deployed_artillery: int
    one_hit_from: int
    two_hit_from: int


class RetreatTable(Sourced):
    lead_hits: int = Field(ge=0)
    lead_hits_if_attacker_cavalry: int
    lead_hits_if_lead_cavalry: int
    wrong_approach_hits: int = Field(ge=0)
    cavalry_to_close_hits: int = Field(ge=0)
    artillery_survives_from: int
    artillery_limbered: int
    artillery_vs_cavalry_lead: int
    artillery_to_close: int


class MovementTable(Sourced):
    infantry: int = Field(ge=1)
    cavalry: int = Field(ge=1)
    artillery: int = Field(ge=1)
    enter_enemy_area: int = Field(ge=0)
    square_change: int = Field(ge=0)
    square_extra: int = Field(ge=0)
    approach_step: int = Field(ge=0)
    deploy: int = Field(ge=0)


class TerrainTable(Sourced):
    town_infantry_defence: int
    town_fire: int
    woods_entry_cavalry_artillery: int = Field(ge=0)
    river_defence_first_roll: int
    stream_defence_first_roll: int
    river_artillery_retreat: int
    stream_artillery_retreat: int
    crossing_artillery_retreat: int
    stream_cost_infantry_cavalry: int = Field(ge=0)
    stream_cost_artillery: int = Field(ge=0)
    crossing_cost_cavalry_artillery: int = Field(ge=0)


class OptionalTable(Sourced):
    horse_artillery_retreat: int
    horse_artillery_long_range: int
    heavy_artillery_retreat: int
    heavy_artillery_two_hit_from: int
    rocket_hit_from: int
    rocket_hits: int = Field(ge=1)
    rain_squall_on: int = Field(ge=1, le=6)
    rain_cavalry_vs_infantry: int
    rain_infantry_artillery_movement: int = Field(ge=1)


class CommandStep(Strict):
    from_turn: int = Field(ge=1)
    fixed: int | None = Field(default=None, ge=0)
    d3_plus: int | None = None


class CommandTable(Sourced):
    French: tuple[CommandStep, ...] = Field(min_length=1)
    Allied: tuple[CommandStep, ...] = Field(min_length=1)


class Tables(Fingerprinted, Strict):
    """Every chart of the game; ``fingerprint`` (a digest of every value, computed once when loaded) stands
    for them in memo keys, so two tables never share a cache entry and two equal loads share one."""

    combat: CombatMods
    fire: FireTable
    retreat: RetreatTable
    movement: MovementTable
    terrain: TerrainTable
    optional: OptionalTable
    command: CommandTable

    def provenance(self) -> dict[str, dict]:
        """Each block's ``source`` and badge kind, for the CLI and the page."""
        out = {}
        for name in ("combat", "fire", "retreat", "movement", "terrain", "optional", "command"):
            block = getattr(self, name)
            out[name] = {"source": block.source, "kind": provenance_kind(block.source)}
        return out


def _check(t: Tables, file: str) -> Tables:
    for side in ("French", "Allied"):
        steps = getattr(t.command, side)
        if steps[0].from_turn != 1:
            raise DataError(file, f"command.{side}[0].from_turn", "1 (the schedule must start at turn 1)",
                            steps[0].from_turn)
        for i, s in enumerate(steps):
            if (s.fixed is None) == (s.d3_plus is None):
                raise DataError(file, f"command.{side}[{i}]", "exactly one of 'fixed' or 'd3_plus'")
            if i and s.from_turn <= steps[i - 1].from_turn:
                raise DataError(file, f"command.{side}[{i}].from_turn", "turns in increasing order", s.from_turn)
    return t


def load_tables(path: str | Path | None = None) -> Tables:
    """Load a tables file (default: the shipped one). Errors name the file and field."""
    if path is None:
        return default_tables()
    return _check(load_yaml(path, Tables), str(path))


def tables_from_data(data, file: str) -> Tables:
    """Parsed data (a player's tables kept by a game record, an upload) checked as a file is."""
    from engine.core.data import validate
    return _check(validate(data, Tables, file), file)


@lru_cache(maxsize=1)
def default_tables() -> Tables:
    return _check(load_yaml(TABLES_FILE, Tables), str(TABLES_FILE))
