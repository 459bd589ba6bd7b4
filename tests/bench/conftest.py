"""The benchmarks that measure pages in a browser use the browser tests' served app and Debian's chromium
(the fixtures of tests/e2e/conftest.py, loaded from there so that there is one definition of each)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("vedette_e2e_fixtures", Path(__file__).parents[1] / "e2e" / "conftest.py")
_e2e = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_e2e)

app_server = _e2e.app_server
app_url = _e2e.app_url
browser_type_launch_args = _e2e.browser_type_launch_args
