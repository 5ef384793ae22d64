"""Fast Downward's translated task (its ``output.sas``, format version 3) as data.

Fast Downward's translator grounds a PDDL task into finite-domain variables, operators
with (conditional) effects and axiom rules; planproof reads that file back to test the
grounded task for unsolvability (:mod:`planproof.pddl.h2`) before the search is run. Only
what that test needs is kept: variable ranges and axiom layers, the initial state, the
goal, and each operator's precondition (prevail conditions and effect pre-values) and
effects with their conditions. Mutex groups, costs and axiom rules are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

SasFact = tuple[int, int]
"""(variable, value)."""


class SasFormatError(ValueError):
    """The text is not a translated task of format version 3."""


@dataclass(frozen=True)
class SasEffect:
    """``var := value`` when every fact of ``condition`` holds before the step."""

    condition: tuple[SasFact, ...]
    var: int
    value: int


@dataclass(frozen=True)
class SasOperator:
    name: str
    precondition: tuple[SasFact, ...]
    effects: tuple[SasEffect, ...]


@dataclass(frozen=True)
class SasTask:
    """A translated task. ``derived[v]``: variable ``v`` is set by axioms (layer >= 0)."""

    ranges: tuple[int, ...]
    derived: tuple[bool, ...]
    init: tuple[int, ...]
    goal: tuple[SasFact, ...]
    operators: tuple[SasOperator, ...]


class _Lines:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.i = 0

    def next(self) -> str:
        if self.i >= len(self.lines):
            raise SasFormatError("the translated task ends early")
        line = self.lines[self.i]
        self.i += 1
        return line

    def ints(self) -> list[int]:
        try:
            return [int(x) for x in self.next().split()]
        except ValueError as exc:
            raise SasFormatError(f"line {self.i}: not numbers") from exc

    def int(self) -> int:
        xs = self.ints()
        if len(xs) != 1:
            raise SasFormatError(f"line {self.i}: one number expected")
        return xs[0]

    def expect(self, word: str) -> None:
        got = self.next().strip()
        if got != word:
            raise SasFormatError(f"line {self.i}: {word!r} expected, not {got!r}")


def read_sas(text: str) -> SasTask:
    """The translated task in ``text`` (:class:`SasFormatError` when it is not one)."""
    r = _Lines(text)
    r.expect("begin_version")
    if r.int() != 3:
        raise SasFormatError("only format version 3 is read")
    r.expect("end_version")
    r.expect("begin_metric")
    r.int()
    r.expect("end_metric")
    ranges: list[int] = []
    derived: list[bool] = []
    for _ in range(r.int()):
        r.expect("begin_variable")
        r.next()  # name
        derived.append(r.int() >= 0)
        n = r.int()
        ranges.append(n)
        for _ in range(n):
            r.next()
        r.expect("end_variable")
    for _ in range(r.int()):  # mutex groups
        r.expect("begin_mutex_group")
        for _ in range(r.int()):
            r.next()
        r.expect("end_mutex_group")
    r.expect("begin_state")
    init = tuple(r.int() for _ in ranges)
    r.expect("end_state")
    r.expect("begin_goal")
    goal = tuple(_fact(r.ints()) for _ in range(r.int()))
    r.expect("end_goal")
    operators = [_operator(r) for _ in range(r.int())]
    return SasTask(tuple(ranges), tuple(derived), init, goal, tuple(operators))


def _fact(xs: list[int]) -> SasFact:
    if len(xs) != 2:
        raise SasFormatError("a fact is two numbers")
    return xs[0], xs[1]


def _operator(r: _Lines) -> SasOperator:
    r.expect("begin_operator")
    name = r.next()
    pre = [_fact(r.ints()) for _ in range(r.int())]
    effects: list[SasEffect] = []
    for _ in range(r.int()):
        xs = r.ints()
        if not xs or len(xs) != 1 + 2 * xs[0] + 3:
            raise SasFormatError(f"line {r.i}: a malformed effect")
        k = xs[0]
        cond = tuple((xs[1 + 2 * j], xs[2 + 2 * j]) for j in range(k))
        var, old, new = xs[1 + 2 * k :]
        if old >= 0:
            pre.append((var, old))
        effects.append(SasEffect(cond, var, new))
    r.int()  # cost
    r.expect("end_operator")
    return SasOperator(name, tuple(dict.fromkeys(pre)), tuple(effects))
