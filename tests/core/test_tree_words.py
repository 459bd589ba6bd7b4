"""Every word of an attack's probability tree is a player's word (issue 25 point 1: "words for every result
and choice"), on every system: the tree the play page draws under the odds (``quick_odds.action_tree``) for
each attack the play page's odds benchmark picks (tests/bench/test_play_odds_bench.py: n20 battle and
countercharge, LoB attack and fire, TBF fire, melee and charge, BC fire and assault), in the first position a
random bot's game offers it.

Each question (a node's label), each answer shown (a sub-procedure's result) and each end position must:

* show no JSON, Python repr or identifier with an underscore (the play page's own check,
  tests/e2e/test_play_words.py ``NOT_WORDS``);
* not be a dump of a value's fields: never cut at the tree's length bound (``RESULT_CHARS``), never the
  field names of a record ("uid", "digest", "beyond ma", "end hex", "advance path", "pieces id");
* name a piece as its counter does: where the system's ``piece_name`` gives a piece a name other than its
  id ("NOV 3 bn" for ``ci-3``), the id does not appear.

Before the systems' ``describe_step`` / ``describe_result`` (engine/core/protocol.py) the trees read, e.g.,
"effects of gun_smoke", "unit FLTC; fate routed; hexes 3; end hex 1012; ...", "Attacker to Perform Melee
Fatigue Check for ci-5".
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import engine.systems  # noqa: F401 - registers the systems
from engine.core.quick_odds import RESULT_CHARS, _trees, action_tree

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "dashboards"))
sys.path.insert(0, str(HERE / "bench"))
sys.path.insert(0, str(HERE / "e2e"))

from attack_records import record_until  # noqa: E402
from test_play_odds_bench import CASES  # noqa: E402

NOT_WORDS = re.compile(r"[{}]|\[\[|\[['\"]|<[\w.]+ object at|\b[A-Z]\w*\(\w+=|\bAction\(|"
                       r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")
DUMP = re.compile(r"\b(uid|digest|beyond ma|end hex|advance path|pieces id)\b")


def _texts(tree) -> list[str]:
    out = []
    for t in _trees(tree):
        for n in t.nodes():
            if n.label:
                out.append(str(n.label))
            if not n.children and n.result is not None:
                out.append(str(n.result))
            out += [str(c.outcome_text) for c in n.children if c.outcome_text is not None]
    return out


def _named_ids(rules, state) -> dict[str, str]:
    """Piece ids the system names otherwise (id -> name)."""
    ids = set()
    places = getattr(rules, "piece_ids", None)
    if callable(places):
        ids = set(places(state))
    else:
        for a in rules.legal_actions(state)[:400]:
            try:
                ids |= set(rules.places(state, a).pieces)
            except Exception:  # noqa: BLE001 - an action without pieces
                continue
    out = {}
    for i in ids:
        name = rules.piece_name(state, i)
        if name and name != i and i not in name:
            out[i] = name
    return out


@pytest.mark.parametrize("name,system,wanted", CASES, ids=[c[0].replace(" ", "-") for c in CASES])
def test_every_word_of_an_attacks_tree_is_a_players_word(name, system, wanted):
    rec, state, action, rules = record_until(system, wanted, bot_seed=3, limit=3000)
    tree = action_tree(rules, state, action)
    texts = list(dict.fromkeys(_texts(tree)))
    assert texts
    named = _named_ids(rules, state)
    bad = []
    for t in texts:
        if NOT_WORDS.search(t):
            bad.append(f"not words: {t}")
        elif DUMP.search(t) or t.endswith("…") or len(t) >= RESULT_CHARS:
            bad.append(f"a dump of fields: {t}")
        else:
            ids = [i for i in named if re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", t)]
            if ids:
                bad.append(f"ids {', '.join(ids)} where the counters say {', '.join(named[i] for i in ids)}: {t}")
    assert not bad, f"{name}: {len(bad)} of {len(texts)} texts:\n" + "\n".join(bad[:40])
