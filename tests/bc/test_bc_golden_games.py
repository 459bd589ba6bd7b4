"""Fixed-seed Battle Commander bot games replay to the very same record: the records of ten games (greedy and
random bots) are saved as sha256 digests of their JSON (engine version included), and one in full. Any change
of a legal action, a card drawn, a choice or a note changes a record, so these fail on any change of result.
Made again (``python -m tests.bc.test_bc_golden_games``) only in a commit of its own, after a rule reading
that changes records and bumps the engine version (issue 29)."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from engine.core.game import play_game, replay
from engine.systems import system_of

FIX = Path(__file__).parent / "fixtures"
GAMES = [f"greedy,greedy-{s}" for s in (1, 2, 3, 4, 5)] + [f"random,random-{s}" for s in (1, 2, 3, 7, 11)]
FULL = "greedy,greedy-1"


def _record(key: str) -> dict:
    bots, seed = key.rsplit("-", 1)
    _, rec = play_game(system_of("bc"), tuple(bots.split(",")), None, seed=int(seed))
    return json.loads(json.dumps(rec.to_json(), sort_keys=True))


def _digest(rec: dict) -> str:
    return hashlib.sha256(json.dumps(rec, sort_keys=True).encode()).hexdigest()


def test_greedy_seed1_record_is_the_saved_one_and_replays():
    saved = json.loads((FIX / "golden_bc_greedy_seed1.json").read_text())
    got = _record(FULL)
    assert len(got["events"]) == len(saved["events"])
    for i, (g, s) in enumerate(zip(got["events"], saved["events"])):
        assert g == s, f"event {i} differs"
    assert got == saved
    from engine.core.record import GameRecord
    states = replay(system_of("bc"), GameRecord.from_json(saved))
    assert len(states) == len(saved["events"]) + 1


@pytest.mark.parametrize("key", GAMES)
def test_bot_game_record_digest_unchanged(key):
    digests = json.loads((FIX / "golden_bc_digests.json").read_text())["digests"]
    assert _digest(_record(key)) == digests[key]


def _write() -> None:                      # pragma: no cover - run by hand, see the module docstring
    FIX.mkdir(exist_ok=True)
    (FIX / "golden_bc_greedy_seed1.json").write_text(json.dumps(_record(FULL), indent=1, sort_keys=True) + "\n")
    digests = {k: _digest(_record(k)) for k in GAMES}
    (FIX / "golden_bc_digests.json").write_text(json.dumps({"digests": digests}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":               # pragma: no cover
    _write()
    sys.exit(0)
