"""Replaying a whole plan: per-step outcomes, the first blocking error, warnings, and the
executed prefix as an LTL trace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planproof.ltl.ast import Atom, Const
from planproof.ltl.trace import State, Trace
from planproof.simulators.core.outcome import Action, ErrorKind, StepError
from planproof.simulators.core.world import Bound, World


@dataclass(frozen=True)
class Replay:
    """The outcome of a plan. ``trace`` holds the executed actions only (an additional
    step is a warning and is kept in the trace with an unchanged state)."""

    trace: Trace
    executed: tuple[Action, ...]
    first_error: StepError | None
    warnings: tuple[StepError, ...]
    length: int

    @property
    def executable(self) -> bool:
        return self.first_error is None

    @property
    def final(self) -> State:
        return self.trace.final

    def to_dict(self) -> dict[str, object]:
        return {
            "executable": self.executable,
            "steps": self.length,
            "executed": len(self.executed),
            "error": self.first_error.to_dict() if self.first_error else None,
            "warnings": [w.to_dict() for w in self.warnings],
        }


def check_grammar(world: World, actions: Sequence[Action]) -> StepError | None:
    """The first grammar error (hallucinated action or object, wrong argument count) of a
    plan: the paper checks the whole plan's grammar before executing anything."""
    for i, a in enumerate(actions):
        r = world.bind(a, i)
        if isinstance(r, StepError) and r.kind.is_grammar:
            return r
    return None


def action_atom(action: Action) -> Atom:
    """The trace form of an executed action: ``lookat(television.410)``."""
    return Atom(action.name.lower(), tuple(Const(a) for a in action.args))


def _action_atom(world: World, action: Action) -> Atom:
    """:func:`action_atom`, one object per action in a world."""
    return world.atom((action.name.lower(), tuple((False, a) for a in action.args)))


def replay(
    world: World, s0: State, actions: Sequence[Action], *, check_grammar_first: bool = True
) -> Replay:
    """Execute ``actions`` from ``s0`` until the first blocking error.

    A failing precondition is a wrong order if the whole precondition held in some
    earlier state of this run (``held_at`` is the latest), and a missing step otherwise.
    """
    binds = [world.bind(a, i) for i, a in enumerate(actions)]  # once: grammar, then replay
    if check_grammar_first:
        for r in binds:
            if isinstance(r, StepError) and r.kind.is_grammar:
                return Replay(Trace((s0,)), (), r, (), len(actions))
    states: list[State] = [s0]
    executed: list[Action] = []
    trace_actions: list[Atom] = []
    warnings: list[StepError] = []
    state = s0
    keys = world.key_facts(s0)
    for i, bound in enumerate(binds):
        if isinstance(bound, StepError):
            return _done(
                states,
                actions=trace_actions,
                executed=executed,
                err=bound,
                warnings=warnings,
                n=len(actions),
            )
        nxt, err, keys = world.transition(state, keys, bound, i)
        if err is not None and err.kind is ErrorKind.ADDITIONAL_STEP:
            warnings.append(err)
        elif err is not None:
            if err.kind is ErrorKind.MISSING_STEP:
                err = _wrong_order(world, bound, states, err)
            return _done(
                states,
                actions=trace_actions,
                executed=executed,
                err=err,
                warnings=warnings,
                n=len(actions),
            )
        state = nxt
        states.append(state)
        executed.append(bound.action)
        trace_actions.append(_action_atom(world, bound.action))
    return _done(
        states,
        actions=trace_actions,
        executed=executed,
        err=None,
        warnings=warnings,
        n=len(actions),
    )


def _wrong_order(world: World, bound: Bound, history: list[State], err: StepError) -> StepError:
    for k in range(len(history) - 2, -1, -1):
        if world.precondition_holds(bound, history[k]):
            return StepError(
                err.index,
                err.action,
                ErrorKind.WRONG_ORDER,
                f"{err.message}; it held earlier, in the state before step {k}",
                unmet=err.unmet,
                held_at=k,
            )
    return err


def _done(
    states: list[State],
    *,
    actions: list[Atom],
    executed: list[Action],
    err: StepError | None,
    warnings: list[StepError],
    n: int,
) -> Replay:
    return Replay(Trace(tuple(states), tuple(actions)), tuple(executed), err, tuple(warnings), n)
