"""Bounds on user files (issue 11 "bad input", issue 12.3): size, encoding, nesting, YAML aliases, and
error messages that are one line and quote at most a few dozen characters of the user's text."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from engine.core.data import (MAX_ALIASES, MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES, Strict, check_depth, load_data,
                              load_yaml, parse_data, parse_yaml, read_text)
from engine.core.errors import SHOWN, DataError, LimitError, RecordError, RuleViolation, short
from engine.core.record import GameRecord


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    """The classic alias bomb: each level lists the previous one ``width`` times (9**9 strings expanded)."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghijklmnop"
    for prev, cur in zip(names[:levels - 1], names[1:levels]):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * width) + "]")
    return "\n".join(lines) + "\n"


class Anything(Strict):
    a: object = None


def test_alias_bomb_is_refused_before_expansion():
    bomb = billion_laughs()
    assert len(bomb) < 600                        # the 550-byte class of file of issue 12
    # 9 levels of 9 aliases: 8 * 9 = 72 aliases (under MAX_ALIASES), but 9**9 strings once expanded
    assert 8 * 9 <= MAX_ALIASES and 9 ** 9 > MAX_NODES
    with pytest.raises(DataError, match="aliases are expanded"):
        parse_data(bomb, "bomb.yaml")
    with pytest.raises(DataError, match="alias"):
        parse_yaml(bomb, Anything, "bomb.yaml")


def test_too_many_aliases_are_refused():
    text = "a: &x 1\nb: [" + ", ".join(["*x"] * (MAX_ALIASES + 1)) + "]\n"
    with pytest.raises(DataError, match=f"at most {MAX_ALIASES} YAML aliases"):
        parse_data(text)


def test_a_few_aliases_still_work():
    # anchors are ordinary YAML: a small use expands as usual (3 aliases, 7 values)
    assert parse_data("base: &u {fv: 3}\nunits: [*u, *u, *u]\n") == {"base": {"fv": 3}, "units": [{"fv": 3}] * 3}


def test_an_anchor_containing_itself_is_refused():
    with pytest.raises(DataError, match="contains an alias of itself"):
        parse_data("a: &a [1, *a]\n")


def test_deep_yaml_nesting_is_refused_without_recursion_error():
    with pytest.raises(DataError, match=f"nesting at most {MAX_DEPTH} levels"):
        parse_data("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match="nesting"):
        parse_data("a:\n" + "".join("  " * i + f"  k{i}:\n" for i in range(1, 60)) + "  " * 60 + "  v: 1\n")
    # MAX_DEPTH - 1 lists around a scalar is still fine (the scalar is the last level)
    assert parse_data("[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1)) is not None


def _libyaml_nest_level() -> int:
    """libyaml's own bound on flow nesting (PyYAML >= 6.0.4); -1 where there is none."""
    import yaml

    return getattr(getattr(yaml, "_yaml", None), "_get_max_nest_level", lambda: -1)()


def test_libyamls_own_bound_is_above_ours():
    # its refusal is turned into ours (engine.core.data.parse_data): true only while its bound is the larger
    level = _libyaml_nest_level()
    assert level == -1 or level > MAX_DEPTH


def test_libyamls_nesting_refusal_is_given_in_our_words(monkeypatch):
    # PyYAML 6.0.4's libyaml scans ahead of our composer and stops a long run of brackets at its own bound
    # (1000) first, with its own words; the refusal the user sees is ours, whichever PyYAML is installed
    import yaml

    from engine.core import data

    def scanner_stops(self):
        raise yaml.scanner.ScannerError("while increasing flow level", None, "exceeded maximum nesting depth",
                                        yaml.Mark("<input>", 1500, 0, 1500, None, None))

    monkeypatch.setattr(data._BoundedLoader, "get_single_node", scanner_stops)
    with pytest.raises(DataError, match=f"^<input>: line 1: expected nesting at most {MAX_DEPTH} levels deep$"):
        parse_data("[" * 2000 + "]" * 2000)


@pytest.mark.skipif(_libyaml_nest_level() == -1, reason="this PyYAML/libyaml has no nesting bound of its own")
def test_libyamls_nesting_bound_set_low_still_gives_our_refusal():
    import yaml

    level = _libyaml_nest_level()
    yaml._yaml._set_max_nest_level(MAX_DEPTH + 8)      # libyaml stops at level 41, before our composer's 33
    try:
        with pytest.raises(DataError, match=f"nesting at most {MAX_DEPTH} levels deep"):
            parse_data("[" * (MAX_DEPTH + 20) + "]" * (MAX_DEPTH + 20))
    finally:
        yaml._yaml._set_max_nest_level(level)


def test_deep_nesting_through_aliases_is_refused():
    # 20 levels in text, then each alias adds the depth of what it names: depth grows past the bound
    lines = ["a0: &a0 " + "[" * 20 + "1" + "]" * 20]
    for i in range(1, 4):
        lines.append(f"a{i}: &a{i} " + "[" * 20 + f"*a{i - 1}" + "]" * 20)
    with pytest.raises(DataError, match="nesting"):
        parse_data("\n".join(lines))


def test_json_depth_bound():
    deep = json.loads("[" * 200 + "]" * 200)
    with pytest.raises(DataError, match="nesting"):
        check_depth(deep, "x.json")
    check_depth(json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH))


def test_size_bound(tmp_path):
    p = tmp_path / "big.yaml"
    p.write_bytes(b"a: 1\n# " + b"x" * MAX_FILE_BYTES + b"\n")
    with pytest.raises(DataError, match=f"at most {MAX_FILE_BYTES} bytes"):
        read_text(p)
    with pytest.raises(DataError, match="at most"):
        load_yaml(p, Anything)
    with pytest.raises(DataError, match="at most"):
        parse_data("x" * (MAX_FILE_BYTES + 1))


def test_binary_and_non_utf8_files(tmp_path):
    b = tmp_path / "bin.yaml"
    b.write_bytes(bytes(range(256)))
    with pytest.raises(DataError, match="binary"):
        load_data(b)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: Fuentes de Oñoro\n".encode("latin-1"))
    with pytest.raises(DataError, match="UTF-8"):
        load_data(latin)
    bom = tmp_path / "bom.yaml"
    bom.write_bytes("\ufeffa: 1\n".encode("utf-8"))
    assert load_data(bom) == {"a": 1}
    with pytest.raises(DataError, match="a file, not a folder"):
        read_text(tmp_path)
    with pytest.raises(DataError, match="an existing file"):
        read_text(tmp_path / "missing.yaml")


@pytest.mark.parametrize("text", [
    "a: 1\n\x00b: 2\n",                       # NUL: PyYAML's text for it runs over several lines
    "a: [1, 2\nb: 3\n",                       # scanner / parser errors
    "a: b: c\n",
    "- a\n- b: c\n -d\n",
    "key: 'unterminated\n",
    "x: " + "9" * 5000 + "\n",                # an integer past Python's digit limit
    "d: 2001-13-45\n",                        # a timestamp YAML cannot build
    "a: !!python/object:os.system ls\n",      # a tag the safe loader refuses
])
def test_yaml_errors_are_one_short_line(text):
    with pytest.raises(DataError) as info:
        parse_yaml(text, Anything, "f.yaml")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("f.yaml")
    assert len(msg) < 400


def test_validation_errors_quote_little():
    with pytest.raises(DataError) as info:
        parse_yaml("a: 1\nb" + "x" * 5000 + ": 2\n", Anything, "f.yaml")
    assert len(str(info.value)) < 400
    assert short("y" * 10_000) .endswith("…") and len(short("y" * 10_000)) <= SHOWN
    assert len(short(list(range(10 ** 5)))) <= SHOWN
    assert "\n" not in short("a\nb\nc")
    huge = 10 ** 5000                     # repr would raise ValueError (the 4300-digit limit)
    assert len(short(huge)) <= SHOWN


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=200),
                    lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=20), c, max_size=5),
                    max_leaves=40))
@settings(max_examples=60, deadline=None)
def test_error_messages_are_always_one_bounded_line(value):
    # whatever the user's value, the message quoting it is one line and bounded
    for exc in (DataError("f.yaml", "field\nwith newline", "a thing", value), RuleViolation("1.0", f"bad {value}"),
                RecordError(f"bad {value}", index=3, file="r.json"), LimitError("units", 6, value)):
        assert "\n" not in str(exc)
        assert len(str(exc)) <= 1000


# --- records ---------------------------------------------------------------------------------------
def _record(**changes) -> str:
    rec = {"format": "vedette-record", "format_version": 1, "game": "n20", "scenario": "fuentes", "seed": 1,
           "events": [{"kind": "action", "action": {"kind": "end_phase"}, "answers": []}]}
    rec.update(changes)
    return json.dumps(rec)


@pytest.mark.parametrize("changes, needle", [
    ({"seed": "~"}, "seed"), ({"seed": "abc"}, "seed"), ({"seed": True}, "seed"), ({"seed": 1.5}, "seed"),
    ({"events": [{"kind": "action", "answers": 2}]}, "answers"),
    ({"events": [{"kind": 5}]}, "kind"), ({"events": "abc"}, "events"), ({"game": ["n20"]}, "game"),
    ({"options": [1]}, "options"), ({"meta": 3}, "meta"), ({"edition": 3}, "edition"),
    ({"format_version": True}, "format_version"),
])
def test_record_fields_are_checked(changes, needle):
    with pytest.raises(RecordError, match=needle):
        GameRecord.loads(_record(**changes), "r.json")


def test_record_reading_bounds(tmp_path):
    GameRecord.loads(_record())                                   # the plain record is fine
    with pytest.raises(RecordError, match="nesting"):
        GameRecord.loads(_record(meta={"x": json.loads("[" * 100 + "]" * 100)}))
    with pytest.raises(RecordError, match="nested"):
        GameRecord.loads("[" * 100_000 + "]" * 100_000)           # json's own recursion limit
    with pytest.raises(RecordError, match="not valid JSON"):
        GameRecord.loads('{"seed": ' + "1" * 5000 + "}")
    b = tmp_path / "r.json"
    b.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(RecordError, match="binary"):
        GameRecord.load(b)
    b.write_bytes(b"{" + b" " * MAX_FILE_BYTES + b"}")
    with pytest.raises(RecordError, match="at most"):
        GameRecord.load(b)
