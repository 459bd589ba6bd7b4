"""The order-cube cup (8.0, 16.1-16.2, 18.0) and Army Morale (13.0).

The cup is refilled each turn (16.1) and cubes are drawn blind, one at a time, until the last Black cube
ends the turn (16.2). A cube draw is a :class:`~engine.core.procedure.Draw` over the cup's contents.

Cup questions ("how many of my orders before the turn ends?", "does the turn end within n draws?") are
answered by :func:`turn_run`, the procedure that draws cubes until the last Black one. Colours a question
does not count are drawn as ``other`` (their number is kept, so every probability is exact), and the rest
of the turn after each draw is a memoised sub-procedure keyed by what is left in the cup, so a full cup of
twenty-odd cubes enumerates in well under a second.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from engine.core.errors import RuleViolation
from engine.core.procedure import Choose, Draw, Log, Sub

__all__ = ["COLOURS", "Cup", "CupRun", "cube_draw", "cup_policy", "turn_run", "turn_procedure", "TurnSetup", "prepare_turn", "Morale",
           "initiative", "RESERVE_EXTRA", "TOKEN_EXTRA", "activation_limit"]

COLOURS = ("blue", "white", "gold", "yellow", "red", "black")
SIDE_COLOUR = {"french": "blue", "coalition": "white"}     # 8.0
RESERVE_EXTRA = 5    # 18.0 In Reserve: at most skill + 5 cubes in the Reserve Orders Box
TOKEN_EXTRA = 10     # 18.0 Ready Arms: at most skill + 10 Attack Tokens on the Army Mat


@dataclass(frozen=True)
class Cup:
    """Cup contents as ``((colour, count), ...)`` in :data:`COLOURS` order (zero counts dropped)."""

    counts: tuple[tuple[str, int], ...]

    @classmethod
    def of(cls, contents: Mapping[str, int]) -> "Cup":
        for c, n in contents.items():
            if c not in COLOURS:
                raise RuleViolation("8.0", f"unknown cube colour {c!r}: {', '.join(COLOURS)}")
            if not isinstance(n, int) or n < 0:
                raise RuleViolation("8.0", f"a number of {c} cubes must be a whole number >= 0, got {n!r}")
        if contents.get("black", 0) < 1:
            raise RuleViolation("16.2", "the cup needs at least one Black cube: the last one ends the turn")
        return cls(tuple((c, contents[c]) for c in COLOURS if contents.get(c, 0)))

    def count(self, colour: str) -> int:
        return dict(self.counts).get(colour, 0)

    @property
    def size(self) -> int:
        return sum(n for _, n in self.counts)

    def cubes(self) -> tuple[str, ...]:
        return tuple(c for c, n in self.counts for _ in range(n))

    def without(self, colour: str) -> "Cup":
        d = dict(self.counts)
        d[colour] -= 1
        return Cup(tuple((c, d[c]) for c, _ in self.counts if d[c]))

    def summarised(self, track: tuple[str, ...]) -> "Cup":
        """Colours not in ``track`` (and not black) become ``other``; counts kept."""
        d: dict[str, int] = {}
        for c, n in self.counts:
            k = c if (c in track or c == "black") else "other"
            d[k] = d.get(k, 0) + n
        order = [c for c in COLOURS if c in d] + (["other"] if "other" in d else [])
        return Cup(tuple((c, d[c]) for c in order))

    def to_json(self) -> dict:
        return dict(self.counts)


@dataclass(frozen=True)
class CupRun:
    """How a turn's draws went: ``draws`` until the last Black cube (included), and how many cubes of each
    tracked colour came out before it (``before_end``, in the order of ``track``)."""

    draws: int
    before_end: tuple[int, ...]
    track: tuple[str, ...] = ()

    def count(self, colour: str) -> int:
        return self.before_end[self.track.index(colour)]

    def to_json(self) -> dict:
        return {"draws": self.draws, **{c: n for c, n in zip(self.track, self.before_end)}}


def cube_draw(cup: Cup, passed: str | None = None, forced: str | None = None):
    """Procedure: take one order cube out of ``cup`` (16.2, 18.0); the game's draw and the cup calculator both
    run this. Returns ``(colour, cup left, returned, last)``.

    ``forced``: a colour named with a Gold cube comes out without a draw (18.0). ``passed``: the colour of a
    Pass Order just made; a cube of that colour drawn next goes back into the cup with no effect (18.0), so
    ``returned`` is true and the cup is unchanged. ``last``: the last Black cube, which ends the turn (16.2).
    """
    if forced is not None:
        if cup.count(forced) < 1:
            raise RuleViolation("18.0", f"no {forced} cube left in the cup")
        colour = forced
        yield Log("18.0", f"gold cube: the {colour} cube is taken without a draw")
    else:
        colour = yield Draw(cup.cubes(), rule="16.2", label="order cube")
        if passed is not None and colour == passed and colour != "black":
            yield Log("18.0", f"a {colour} cube right after a Pass goes back into the cup without effect")
            return colour, cup, True, False
    last = colour == "black" and cup.count("black") == 1
    return colour, cup.without(colour), False, last


def _rest(cup: Cup, track: tuple[str, ...], passing: tuple[str, ...] = (), gold: bool = False,
          passed: str | None = None, forced: str | None = None):
    """Sub-procedure: the rest of the turn from ``cup``; returns ``(draws, counts of tracked colours)``.

    ``passing``: the colours whose player is asked, on each of his cubes, whether he makes a Pass Order
    (a :class:`Choose`, answered by the policy); ``gold``: ask the Gold cube's owner which colour comes next
    (or ``card``, an event card instead, 18.0)."""
    colour, left, returned, last = yield from cube_draw(cup, passed, forced)
    if last:
        return (1, (0,) * len(track))           # 16.2, 18.0: the last Black cube ends the turn
    nxt_passed = nxt_forced = None
    if not returned and colour in passing:
        side = {v: k for k, v in SIDE_COLOUR.items()}.get(colour, colour)
        if (yield Choose((False, True), rule="18.0", player=side, label=f"Pass Order on the {colour} cube?")):
            nxt_passed = colour
    if not returned and colour == "gold" and gold:
        opts = ("card",) + tuple(c for c, _ in left.counts if c != "other")
        pick = yield Choose(opts, rule="18.0", label="gold cube: name the next cube, or draw an event card")
        nxt_forced = None if pick == "card" else pick
    draws, counts = yield Sub(("bc-cup", left, track, passing, gold, nxt_passed, nxt_forced),
                              partial(_rest, left, track, passing, gold, nxt_passed, nxt_forced), rule="16.2",
                              label="rest of the turn")
    if colour in track and not returned:
        i = track.index(colour)
        counts = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
    return (draws + 1, counts)


def turn_run(cup: Cup, track: tuple[str, ...] = ("blue", "white"), passing: tuple[str, ...] = (),
             gold: bool = False, gold_next: str | None = None):
    """Procedure: draw cubes until the last Black one (16.2); returns a :class:`CupRun`.

    With ``passing`` (colours) and ``gold``, Pass Orders and Gold cube choices are decisions (18.0) answered by
    the driver's policy (see :func:`cup_policy`). A draw that puts a cube back after a Pass counts as a draw
    but not as a cube of its colour; a cube named with the Gold cube counts as a draw."""
    for c in track + tuple(passing):
        if c not in COLOURS:
            raise RuleViolation("8.0", f"unknown cube colour {c!r}")
    named = (("gold", gold_next) if gold_next else ("gold", "yellow", "red", "blue", "white")) if gold else ()
    # ``gold_next``: the colour the Gold cube's owner means to name; the other colours then never matter and
    # are counted together (the same answers, far fewer cup states to enumerate)
    keep = tuple(dict.fromkeys(track + tuple(passing) + named))
    small = cup.summarised(keep)
    draws, counts = yield Sub(("bc-cup", small, track, tuple(passing), gold, None, None),
                              partial(_rest, small, track, tuple(passing), gold), rule="16.2",
                              label="cube draws until the last Black cube")
    return CupRun(draws, counts, track)


def turn_procedure(cup: Cup, track: tuple[str, ...] = ("blue", "white"), passing: tuple[str, ...] = (),
                   gold: bool = False, gold_next: str | None = None):
    if cup.count("black") < 1:
        raise RuleViolation("16.2", "the cup needs at least one Black cube")
    return partial(turn_run, cup, track, tuple(passing), gold, gold_next)


def cup_policy(passes: tuple[str, ...] = (), gold_next: str | None = None):
    """A policy for :func:`turn_run`: the players of ``passes`` colours pass on every cube of theirs; the Gold
    cube names ``gold_next`` when one is left in the cup, else an event card is drawn (18.0)."""
    def policy(req: Choose):
        if req.label.startswith("Pass Order"):
            colour = req.label.split(" the ")[1].split(" ")[0]
            return colour in passes
        if req.label.startswith("gold cube"):
            return gold_next if gold_next in req.options else "card"
        return req.options[0]
    return policy


# ------------------------------------------------------------------------------------------------
# Turn preparation (16.1)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnSetup:
    cup: Cup
    tokens: tuple[tuple[str, int], ...]        # side -> Attack Tokens on the Army Mat
    reserve: tuple[tuple[str, int], ...]       # side -> cubes left in the Reserve Orders Box
    lines: tuple[tuple[str, str], ...]         # (rule, what was done)

    def to_json(self) -> dict:
        return {"cup": self.cup.to_json(), "tokens": dict(self.tokens), "reserve": dict(self.reserve),
                "steps": [{"rule": r, "what": w} for r, w in self.lines]}


def prepare_turn(commanders: Mapping[str, Mapping[str, int]], initiative: str, daylight: bool = True,
                 both_hqs_steady: Mapping[str, bool] | None = None, reserve: Mapping[str, int] | None = None,
                 tokens_left: Mapping[str, int] | None = None, reserve_to_cup: Mapping[str, int] | None = None,
                 gold: bool = False, red: int = 3, black: int = 3, yellow: int = 2) -> TurnSetup:
    """Turn Preparation (16.1). ``commanders[side]`` gives ``cubes``, ``tokens`` and ``skill`` of the Army
    Commander card; ``reserve``/``tokens_left`` what is left from last turn; ``reserve_to_cup`` how many kept
    reserve cubes the player puts in the cup."""
    both_hqs_steady = both_hqs_steady or {}
    reserve = reserve or {}
    tokens_left = tokens_left or {}
    reserve_to_cup = reserve_to_cup or {}
    if initiative not in SIDE_COLOUR:
        raise RuleViolation("13.2", f"the initiative player is french or coalition, not {initiative!r}")
    cup = {c: 0 for c in COLOURS}
    lines: list[tuple[str, str]] = []
    tokens_out, reserve_out = {}, {}
    for side in ("french", "coalition"):
        if side not in commanders:
            raise RuleViolation("16.1", f"no Army Commander for the {side} side")
        com = commanders[side]
        skill = int(com["skill"])
        colour = SIDE_COLOUR[side]
        kept = min(reserve.get(side, 0), skill)
        if reserve.get(side, 0) > kept:
            lines.append(("16.1", f"{side}: reserve cubes kept {kept} of {reserve[side]} (commander skill)"))
        into = reserve_to_cup.get(side, 0)
        if into > kept:
            raise RuleViolation("16.1", f"{side} can put at most the {kept} kept reserve cube(s) in the cup")
        t_kept = min(tokens_left.get(side, 0), skill)
        tokens = t_kept + int(com["tokens"])
        cubes = int(com["cubes"]) + into
        lines.append(("16.1", f"{side}: {com['cubes']} commander cube(s) + {into} from reserve"))
        if daylight and side == initiative:
            cubes += 1
            tokens += 1
            lines.append(("13.2", f"{side}: daylight initiative bonus, one cube and one Attack Token"))
        if both_hqs_steady.get(side):
            cubes += 1
            tokens += 1
            lines.append(("28.4", f"{side}: Steady HQ and SHQ on the map, one cube and one Attack Token"))
        tokens = min(tokens, skill + TOKEN_EXTRA)
        cup[colour] += cubes
        tokens_out[side] = tokens
        reserve_out[side] = kept - into
    cup["gold"] = 1 if gold else 0
    cup["yellow"], cup["red"], cup["black"] = yellow, red, black
    lines.append(("16.1", f"{yellow} yellow, {red} red, {black} black" + (", one gold" if gold else "")))
    return TurnSetup(Cup.of(cup), tuple(tokens_out.items()), tuple(reserve_out.items()), tuple(lines))


def activation_limit(commander_skill: int, road_only: bool = False) -> int:
    """How many Zones a Move Order activates (19.0): 2 for skill 1-2, 3 for skill 3-4, 4 on roads only."""
    if road_only:
        return 4
    return 3 if commander_skill >= 3 else 2


# ------------------------------------------------------------------------------------------------
# Army Morale (13.0) and initiative (13.2)
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Morale:
    """An Army's Morale marker: ``value`` 1..10 on the track, ``good`` side up or not, ``maximum``."""

    value: int
    good: bool = True
    maximum: int = 10
    demoralised: bool = False
    resilient: bool = False     # 28.6

    def change(self, delta: int, *, army_rally: bool = False) -> "Morale":
        """Apply a gain or loss one point at a time (13.0): Good Morale reaching zero flips to Bad at 10; Bad
        Morale reaching zero loses the game (13.1) unless the army is Resilient (28.6, frozen at zero)."""
        if self.demoralised:
            return self
        v, good = self.value, self.good
        step = 1 if delta > 0 else -1
        for _ in range(abs(delta)):
            if step > 0:
                if v >= self.maximum:
                    if army_rally:
                        break                   # 20.0: no rally over maximum or back to Good Morale
                    if not good:
                        v, good = 1, True       # other means may bring the army back to Good Morale
                        continue
                    break
                v += 1
            else:
                v -= 1
                if v <= 0:
                    if good:
                        v, good = 10, False     # 13.0 flip
                    else:
                        return Morale(0, False, self.maximum, demoralised=not self.resilient,
                                      resilient=self.resilient)
        return Morale(v, good, self.maximum, False, self.resilient)

    def to_json(self):
        return {"value": self.value, "good": self.good, "maximum": self.maximum, "demoralised": self.demoralised}


def initiative(french: Morale, coalition: Morale, last_changed: str = "french") -> str:
    """The Initiative player (13.2): Good beats Bad whatever the numbers, then the higher value; on a tie the
    marker moved last sits on top and wins (13.0)."""
    if french.good != coalition.good:
        return "french" if french.good else "coalition"
    if french.value != coalition.value:
        return "french" if french.value > coalition.value else "coalition"
    return last_changed
