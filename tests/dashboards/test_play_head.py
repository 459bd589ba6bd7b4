"""The play page's head (issue 17.1): the new-game form, import and download in one browser component."""
from __future__ import annotations

from dashboards.server.storage import GameStore


def test_the_play_head_starts_imports_and_refuses(tmp_path):
    """The play page's head (one browser component, issue 17.1): a start with a seed, a bad seed refused,
    a record imported from its bytes, a file over 2 MB refused; each refusal changes nothing."""
    import base64

    from dashboards.play.view import GamePlayView

    v = GamePlayView(system="n20", store=GameStore(tmp_path / "g.sqlite3"))
    v.__panel__()
    v.head.act({"action": "start", "scenario": "bussaco", "seed": "x1"})
    assert v.model.state is None and "whole number" in v.head.refusal
    v.head.act({"action": "start", "scenario": "bussaco", "seed": "1", "dice": "typed"})
    assert v.model.state is not None and v.model.dice_mode == "typed" and v.dice.value == "typed"
    assert "data-state='ready'" in v.head.status and not v.head.show_dice and v.head.can_download
    text = v.model.record_json()
    w = GamePlayView(system="lob", store=GameStore(tmp_path / "g.sqlite3"))
    w.__panel__()
    w.head.act({"action": "upload", "size": 3_000_000, "data": ""})
    assert w.model.state is None and "larger than 2 MB" in w.head.refusal
    w.head.act({"action": "upload", "size": len(text), "data": base64.b64encode(text.encode()).decode()})
    assert w.model.system == "n20" and w.head.system == "n20" and w.model.record is not None
    assert "data-events='0'" in w.head.status
