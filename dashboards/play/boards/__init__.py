"""Each system's board for the play page: drawing only, no rules (issue 15).

A board shows a state, highlights the places the legal actions of a picked piece or place lead to, and
reports which place a player picked (a hex, an area, a zone). :func:`board_for` gives the board of a
system (:mod:`.n20`, :mod:`.lob`, :mod:`.tbf`, :mod:`.bc`; any other system gets the :class:`ListBoard`).
"""
from __future__ import annotations

from typing import Any, Callable

from dashboards.play.boards.base import Board, ListBoard
from dashboards.play.boards.bc import BcBoard
from dashboards.play.boards.lob import LobBoard
from dashboards.play.boards.n20 import N20Board
from dashboards.play.boards.tbf import TbfBoard

__all__ = ["board_for", "Board", "N20Board", "LobBoard", "TbfBoard", "BcBoard", "ListBoard", "BOARDS"]

#: each system's board on the play page (a system that is not here gets the :class:`ListBoard`)
BOARDS: dict[str, Callable[[Any], Board]] = {"n20": N20Board, "lob": LobBoard, "tbf": TbfBoard, "bc": BcBoard}


def board_for(rules, state) -> Board:
    board = BOARDS[rules.system](state) if rules.system in BOARDS else ListBoard(rules)
    board.rules = rules
    return board
