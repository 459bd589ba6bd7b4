"""Benchmark of the play page's odds (issue 26, Speed): in a browser, a pick of an attack in the action list
until the frame in which its exact odds (or the page's refusal) are shown, for each attack the issue names:
n20 battle and countercharge, LoB attack and fire, TBF fire, melee and charge, BC fire and assault.

Each pick is of an action not asked about before on this server (its odds not yet known anywhere: the
"first pick" figures), taken from the positions where random bots' games (bot seeds 3 to 6) first offer that
kind of attack (something else picked before each, where the position offers it, so the panel is empty
when the pick is made); then, where it does, the same attack picked again ("again"). Both times are read from the page's clock (pytest-benchmark, the figures in
``extra_info`` and printed; no timed assertion). Run it on the code before and after a change:
``python -m pytest tests/bench/test_play_odds_bench.py -m slow -s -p no:cacheprovider``."""
from __future__ import annotations

import statistics
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.benchmark, pytest.mark.e2e, pytest.mark.slow]   # minutes: run with -m slow

sys.path.insert(0, str(Path(__file__).parents[1] / "dashboards"))
sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))


def _kind(rules, action) -> str:
    j = rules.action_to_json(action)
    return str(j.get("type") or j.get("kind") or "")


def _bc(attack):
    return lambda r, s, a: _kind(r, a) == "attack" and getattr(a, "attack", "") == attack


#: (name, system, the attacks of that name)
CASES = [
    ("n20 battle", "n20", lambda r, s, a: _kind(r, a) == "resolve"),
    ("n20 countercharge", "n20", lambda r, s, a: _kind(r, a) == "countercharge"),
    ("LoB attack", "lob", lambda r, s, a: _kind(r, a) == "attack"),
    ("LoB fire", "lob", lambda r, s, a: _kind(r, a) == "fire"),
    ("TBF fire", "tbf", lambda r, s, a: _kind(r, a) == "fire"),
    ("TBF melee", "tbf", lambda r, s, a: _kind(r, a) == "melee"),
    ("TBF charge", "tbf", lambda r, s, a: _kind(r, a) == "charge"),
    ("BC fire", "bc", _bc("fire")),
    ("BC assault", "bc", _bc("assault")),
]
BOT_SEEDS = (3, 4, 5, 6)
PER_POSITION = 3

_STAMP = "() => performance.timeOrigin + performance.now()"
#: the page's clock at the first frame whose odds panel shows the odds of ``said`` (or a refusal) -- 120 s at most
_WAIT_ODDS = """(said) => new Promise((done, fail) => {
  const end = performance.now() + 120000;
  const all = (root, out) => { for (const e of root.querySelectorAll('.action-odds')) out.push(e);
    for (const e of root.querySelectorAll('*')) if (e.shadowRoot) all(e.shadowRoot, out); return out; };
  const look = () => { const shown = all(document, []).filter(e =>
      (e.dataset.state === 'ready' && (e.textContent || '').includes(said)) || e.dataset.state === 'error');
    if (shown.length) done([performance.timeOrigin + performance.now(), shown[0].dataset.state]);
    else if (performance.now() > end) fail(new Error('no odds within 120 s'));
    else requestAnimationFrame(look); };
  look(); })"""
_WAIT_IDLE = _WAIT_ODDS.replace("(e.dataset.state === 'ready' && (e.textContent || '').includes(said)) || "
                                "e.dataset.state === 'error'", "e.dataset.state === 'idle'")


def _p95(values: list[float]) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(round(0.95 * (len(v) - 1))))]


def _positions(system, wanted):
    """(record, labels of up to PER_POSITION attacks wanted there) for each bot seed's first such position."""
    from attack_records import record_until
    out, seen = [], set()
    for bot_seed in BOT_SEEDS:
        try:
            rec, state, _, rules = record_until(system, wanted, bot_seed=bot_seed, limit=3000)
        except AssertionError:
            continue
        if rec.dumps() in seen:
            continue
        seen.add(rec.dumps())
        attacks = [a for a in rules.legal_actions(state) if wanted(rules, state, a)][:PER_POSITION]
        out.append((rec, [rules.describe_action(a) for a in attacks]))
    return out


def _select(page, label: str) -> float:
    sel = page.locator(".action-list select")
    value = sel.locator("option", has_text=label).first.get_attribute("value")
    t0 = page.evaluate(_STAMP)
    sel.select_option(value=value)
    return t0


@pytest.mark.parametrize("name,system,wanted", CASES, ids=[c[0].replace(" ", "-") for c in CASES])
def test_bench_pick_to_odds_shown(benchmark, page, app_url, tmp_path, name, system, wanted):
    from play_helpers import open_record

    positions = _positions(system, wanted)
    assert positions, f"no position with a {name}"
    first: list[float] = []
    again: list[float] = []
    states: list[str] = []

    def run():
        for rec, labels in positions:
            open_record(page, app_url, system, rec, tmp_path)
            other = page.locator(".action-list select option:not(.attack)")
            can_reset = other.count() > 0

            def reset():          # something else picked first: the panel empty, so the next answer is new
                if can_reset:
                    page.locator(".action-list select").select_option(value=other.first.get_attribute("value"))
                    page.evaluate(_WAIT_IDLE, "")
            for label in labels:
                reset()
                t0 = _select(page, label)
                t1, state = page.evaluate(_WAIT_ODDS, label)
                first.append(t1 - t0)
                states.append(state)
            if can_reset:
                for label in labels:
                    reset()
                    t0 = _select(page, label)
                    t1, _ = page.evaluate(_WAIT_ODDS, label)
                    again.append(t1 - t0)
    benchmark.pedantic(run, rounds=1, iterations=1)
    info = {"first_pick_ms_p50": statistics.median(first), "first_pick_ms_p95": _p95(first), "picks": len(first),
            "refused": states.count("error")}
    if again:
        info.update(again_ms_p50=statistics.median(again), again_ms_p95=_p95(again))
    benchmark.extra_info.update(info)
    print(f"\n{name}: first pick -> odds shown p50 {info['first_pick_ms_p50']:.0f} ms, p95 "
          f"{info['first_pick_ms_p95']:.0f} ms, max {max(first):.0f} ms over {len(first)} picks"
          + (f" ({info['refused']} refused)" if info["refused"] else "")
          + (f"; again p50 {info['again_ms_p50']:.0f} ms, p95 {info['again_ms_p95']:.0f} ms over {len(again)}"
             if again else ""))
