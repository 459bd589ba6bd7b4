"""Vedette dashboards.

Importing the package registers the shipped game systems (:mod:`engine.systems`): every page that names
a system (play, studies, replays, odds) looks it up in core's registry.
"""
import engine.systems  # noqa: F401
