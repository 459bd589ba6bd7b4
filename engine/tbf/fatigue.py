"""Fatigue Checks (4.2): one procedure for every reason a unit must check.

d6 + the table's DRM for the reason + its status DRM + any ticked modifiers + extra DRM, minus the
Command Values of the leaders in or next to the unit along its chain of command (4.2.2 C and its
clarification; only one leader per hex counts, 4.1.3). The unit passes when the result is at or under
its current FV (6.1.3 C). What passing or failing does depends on the reason and the unit's status
and comes from the Fatigue Check Table (4.2.2 B).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import cast

from engine.core.dist import Dist
from engine.core.errors import RuleViolation
from engine.core.procedure import Log, Roll, Sub, distribution, enumerate_tree

from .steps import Steps
from .tables import STATUSES, Tables, UnitStatus

__all__ = ["CheckSpec", "CheckOutcome", "check_outcome", "fatigue_check", "check_proc", "check_sub",
           "check_distribution", "apply_effect", "pass_chance"]

# Status after each effect, from the status before it.
_AFTER = {
    "fatigued": {"normal": "fatigued", "fatigued": "fatigued", "routed": "routed"},
    "rout": {"normal": "routed", "fatigued": "routed", "routed": "routed"},
    "surrender": {"normal": "surrendered", "fatigued": "surrendered", "routed": "surrendered"},
    "recover": {"normal": "normal", "fatigued": "normal", "routed": "routed"},
    "rally": {"normal": "normal", "fatigued": "fatigued", "routed": "fatigued"},
}


def apply_effect(status: str, effect: str) -> str:
    """The unit's status after a check effect (4.2.4, 6.7, 7.0 E-F); other effects leave it as it was."""
    return _AFTER.get(effect, {}).get(status, status)


@dataclass(frozen=True)
class CheckSpec:
    """Everything one Fatigue Check depends on (hashable: it is the memo key of the check)."""

    check: str
    fv: int
    status: str = "normal"
    leader_cvs: tuple[int, ...] = ()
    modifiers: tuple[str, ...] = ()
    drm: int = 0
    unit: str = ""

    def validate(self, tables: Tables) -> None:
        cd = tables.check(self.check)
        ft = tables.fatigue
        if self.status not in STATUSES:
            raise RuleViolation("4.2.4", f"unit status must be one of {', '.join(STATUSES)}, not {self.status!r}")
        if not isinstance(self.fv, int) or not (ft.fv_min <= self.fv <= ft.fv_max):
            raise RuleViolation("2.4.3.9", f"an FV of {self.fv!r} is outside the counters' range "
                                           f"{ft.fv_min}..{ft.fv_max}")
        if self.status not in cd.allowed:
            raise RuleViolation(cd.rule, f"a {self.status} unit does not take the {cd.name} check "
                                         f"(only {', '.join(cd.allowed)} units do)")
        for cv in self.leader_cvs:
            if not isinstance(cv, int) or cv < 0:
                raise RuleViolation("4.2.2 C", f"a leader's Command Value must be a whole number 0 or more, not {cv!r}")
        for m in self.modifiers:
            if m not in cd.modifiers:
                known = ", ".join(sorted(cd.modifiers)) or "none"
                raise RuleViolation(cd.rule, f"the {cd.name} check has no modifier {m!r} (it has: {known})")

    def total_drm(self, tables: Tables) -> int:
        cd = tables.check(self.check)
        # (a status outside the three has no status DRM: validate refuses it)
        status_drm = cd.status_drm.get(cast(UnitStatus, self.status), 0)
        return (cd.drm + status_drm + sum(cd.modifiers[m].drm for m in self.modifiers)
                + self.drm - sum(self.leader_cvs))


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check: passed or not, the effect, the status afterwards, MF doubling (6.4 D)."""

    check: str
    passed: bool
    effect: str
    status: str
    doubled: bool = False
    unit: str = ""

    def __str__(self) -> str:
        tail = " (MF doubled)" if self.doubled else ""
        who = f"{self.unit}: " if self.unit else ""
        return f"{who}{'pass' if self.passed else 'fail'} -> {self.effect}{tail}"


def check_outcome(o: Hashable) -> CheckOutcome:
    """An outcome of a check's distribution as the value it is (a :class:`Dist` holds hashables)."""
    return cast(CheckOutcome, o)


def fatigue_check(tables: Tables, spec: CheckSpec) -> Steps[CheckOutcome]:
    """The procedure (4.2.2): one d6, modified; pass at or under the current FV."""
    spec.validate(tables)
    cd = tables.check(spec.check)
    drm = spec.total_drm(tables)
    who = f" for {spec.unit}" if spec.unit else ""
    roll = yield Roll("d6", rule=cd.rule, label=f"{cd.name} Fatigue Check{who}")
    modified = roll + drm
    passed = modified <= spec.fv
    effect = (cd.passed if passed else cd.failed).get(spec.status)
    doubled = False
    if spec.check == "attacker_melee" and passed:
        # 6.4 D: a result under half the FV (rounded down) doubles the attacker's MF.
        basis = modified if tables.fatigue.melee_double == "modified_below_half_fv" else roll
        doubled = basis < spec.fv // 2
    yield Log(cd.rule, f"{cd.name}{who}: d6 {roll} {drm:+d} = {modified} vs FV {spec.fv}: "
                       f"{'pass' if passed else 'fail'}, {effect}" + (", MF doubled (6.4 D)" if doubled else ""),
              {"roll": roll, "drm": drm, "modified": modified, "fv": spec.fv})
    return CheckOutcome(spec.check, passed, effect, apply_effect(spec.status, effect), doubled, spec.unit)


def check_proc(tables: Tables, spec: CheckSpec) -> Callable[[], Steps[CheckOutcome]]:
    """A zero-argument factory for the check (for the drivers)."""
    spec.validate(tables)
    return partial(fatigue_check, tables, spec)


def check_sub(tables: Tables, spec: CheckSpec, rule: str | None = None) -> Sub:
    """The check as a sub-procedure request, memoised by its spec (the unit name is not part of the odds)."""
    cd = tables.check(spec.check)
    return Sub(("tbf-check", tables.key, spec), partial(fatigue_check, tables, spec), rule=rule or cd.rule,
               label=f"{cd.name} Fatigue Check" + (f" for {spec.unit}" if spec.unit else ""))


def check_distribution(tables: Tables, spec: CheckSpec) -> Dist:
    return distribution(check_proc(tables, spec))


def pass_chance(tables: Tables, spec: CheckSpec) -> Fraction:
    """Exact chance to pass (a Fraction)."""
    return check_distribution(tables, spec).prob(lambda o: check_outcome(o).passed)
