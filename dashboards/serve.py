"""``vedette-serve`` for an install made before the dashboards were laid out by layer: its console script
names ``dashboards.serve:main``. The server is :mod:`dashboards.server.serve`; after ``pip install -e .``
the command goes there directly and nothing imports this module."""
from __future__ import annotations

import sys

from dashboards.server.serve import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
