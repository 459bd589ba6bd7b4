"""Vedette dashboards."""
