"""Vedette's rules engine: game-agnostic machinery in ``engine.core`` and one package per game.

The engine never imports the dashboards; game packages never import each other.
"""
