"""These Brave Fellows (Dürenstein 1805): Fatigue Checks, fire, melee, cavalry charges, the map and the
scenario, built on ``engine.core`` (every random rule is one procedure, driven for play and exact odds).

Quick start::

    from engine.tbf import default_tables, CheckSpec, pass_chance
    pass_chance(default_tables(), CheckSpec("being_charged", 4, leader_cvs=(1,)))   # Fraction(5, 6)

See ``docs/tbf.md`` for the modules, the CLI (``vedette tbf ...``) and the data file formats.
"""
from .fatigue import CheckOutcome, CheckSpec, check_distribution, check_proc, fatigue_check, pass_chance
from .fire import Firer, FireOutcome, FireSetup, fire_combat, fire_distribution, fire_proc, leader_casualty
from .melee import Fighter, MeleeOutcome, MeleeSetup, melee, melee_distribution, melee_proc
from .charge import ChargeOutcome, ChargeSetup, Reactor, Target, charge, charge_from_spec, charge_proc, charge_tree
from .tables import Tables, default_tables, load_tables, parse_tables

__all__ = [
    "CheckOutcome", "CheckSpec", "check_distribution", "check_proc", "fatigue_check", "pass_chance",
    "Firer", "FireOutcome", "FireSetup", "fire_combat", "fire_distribution", "fire_proc", "leader_casualty",
    "Fighter", "MeleeOutcome", "MeleeSetup", "melee", "melee_distribution", "melee_proc",
    "ChargeOutcome", "ChargeSetup", "Reactor", "Target", "charge", "charge_from_spec", "charge_proc", "charge_tree",
    "Tables", "default_tables", "load_tables", "parse_tables",
]
