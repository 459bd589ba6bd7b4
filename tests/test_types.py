"""Types (issue 27.4): mypy over engine/ and dashboards/ with pyproject.toml's configuration.

* engine/core is strict (the flags of ``mypy --strict``, set per module in pyproject.toml) and clean;
* every other package has its error count in tests/types_baseline.json, which may only go down: the test
  fails when a package's count rises, naming the package and by how much, and when one falls it passes
  with a warning that says how to lower the file (``python tests/test_types.py --write``).

mypy keeps its incremental cache in the temporary folder (one per checkout, mypy and Python version): a
first run analyses the third-party packages too (about 25 s of CPU), later runs only what changed.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BASELINE = Path(__file__).with_name("types_baseline.json")
STRICT = "engine/core"
_ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ")


def package_of(path: str) -> str:
    """The package an error is counted in: the first two parts of its path (``engine/n20``,
    ``engine/cli.py``, ``dashboards/components``, ``dashboards/serve.py``)."""
    return "/".join(Path(path).parts[:2])


def run_mypy() -> tuple[list[str], Counter[str]]:
    """mypy's error lines over the configured files, and the count per package."""
    try:
        import mypy.version
    except ImportError:
        pytest.fail("mypy is not installed: pip install -c constraints.txt -e '.[test]'", pytrace=False)
    key = hashlib.sha256(f"{REPO}|{mypy.version.__version__}|{sys.version}".encode()).hexdigest()[:12]
    cache = Path(tempfile.gettempdir()) / f"vedette-mypy-{key}"
    proc = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary",
                           "--hide-error-context", "--no-pretty", "--show-error-codes"],
                          cwd=REPO, capture_output=True, text=True)
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        pytest.fail(f"mypy did not run (exit {proc.returncode}): {(proc.stderr or proc.stdout)[-2000:]}", pytrace=False)
    lines = [ln for ln in proc.stdout.splitlines() if _ERROR.match(ln)]
    return lines, Counter(package_of(_ERROR.match(ln)["path"]) for ln in lines)


@pytest.fixture(scope="module")
def mypy_result() -> tuple[list[str], Counter[str]]:
    return run_mypy()


def test_engine_core_is_strict_and_clean(mypy_result):
    lines, _ = mypy_result
    core = [ln for ln in lines if ln.startswith(STRICT + "/")]
    assert not core, f"{len(core)} mypy error(s) in {STRICT} (strict):\n" + "\n".join(core[:40])


def test_no_package_has_more_type_errors_than_its_baseline(mypy_result):
    lines, counts = mypy_result
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    risen = {p: (baseline.get(p, 0), n) for p, n in counts.items() if n > baseline.get(p, 0)}
    fallen = {p: (b, counts.get(p, 0)) for p, b in baseline.items() if counts.get(p, 0) < b}
    if fallen:
        warnings.warn("fewer mypy errors than tests/types_baseline.json says: "
                      + ", ".join(f"{p} {b} -> {n}" for p, (b, n) in sorted(fallen.items()))
                      + "; lower the file with: python tests/test_types.py --write", UserWarning, stacklevel=1)
    if risen:
        detail = "\n".join(ln for ln in lines if package_of(_ERROR.match(ln)["path"]) in risen)
        pytest.fail("more mypy errors than tests/types_baseline.json allows: "
                    + ", ".join(f"{p} {b} -> {n} (+{n - b})" for p, (b, n) in sorted(risen.items()))
                    + f"\n{detail[-6000:]}", pytrace=False)


def write_baseline() -> dict[str, int]:
    """Write today's counts (each package's, and 0 for engine/core) to tests/types_baseline.json."""
    _, counts = run_mypy()
    packages = {package_of(str(p.relative_to(REPO))) for top in ("engine", "dashboards")
                for p in (REPO / top).rglob("*.py")}
    data = {p: counts.get(p, 0) for p in sorted(packages | set(counts))}
    BASELINE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_types.py --write   (writes today's mypy error counts per package)")
    for package, n in write_baseline().items():
        print(f"{n:5d}  {package}")
